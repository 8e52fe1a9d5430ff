"""Training the learned value model (``council.mcts.value_model``) on self-play data.

``train`` loads the shards of one or more self-play directories
(``council.learning.selfplay``), splits the *games* (never the positions of one game) into a
training and a held-out set by a seeded shuffle (``council.learning.data``), and fits the
model by minimising the softmax-over-seats cross-entropy against the outcome vectors (1/k
for each of k tied winners) plus an L2 penalty on the weights, with SciPy's L-BFGS-B and an
analytic gradient. With ``root_value_weight`` > 0 the training targets blend the outcome
with the search's own estimate at each decision (``mix_targets``); held-out scores are
always against the outcomes. The same data, settings and seed give the same model.

The report (JSON) gives held-out log loss and Brier score overall, by game phase (the
thirds of turn / final turn) and by player count, for the new model and two baselines: the
constant 1/n and the search's hand-made evaluator (``council.mcts._search.evaluate_state``
with ``council.mcts.council_of_four_settings.V1_CONFIG``, the frozen version 0.1
settings). ``report_png`` also draws a reliability plot. Commands and formats:
docs/learning.md. SciPy is the ``train`` extra; inference needs NumPy only.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from council.learning.data import (
    data_shards,
    game_keys,
    sample_positions,
    shard_game_keys,
    split_games,
)
from council.learning.selfplay import MAX_SEATS, decode_state
from council.mcts.value_model import ValueModel, current_feature_names

PHASES = ("early", "mid", "late")
EPS = 1e-6  # probabilities are clipped to [EPS, 1 - EPS] for the log loss


@dataclass
class Dataset:
    """Positions of self-play games, seats padded to ``MAX_SEATS``."""

    features: np.ndarray  # (N, 4, F) float64
    n_players: np.ndarray  # (N,)
    outcome: np.ndarray  # (N, 4) float64, rows sum to 1
    phase: np.ndarray  # (N,) turn / final turn, in [0, 1]
    game: np.ndarray  # (N,) int64 key unique over all directories
    evaluator: np.ndarray | None = None  # (N, 4) the old evaluator's win chances

    def __len__(self) -> int:
        return len(self.n_players)

    @property
    def mask(self) -> np.ndarray:
        return np.arange(MAX_SEATS)[None, :] < self.n_players[:, None]

    def subset(self, rows: np.ndarray) -> Dataset:
        ev = None if self.evaluator is None else self.evaluator[rows]
        return Dataset(
            self.features[rows],
            self.n_players[rows],
            self.outcome[rows],
            self.phase[rows],
            self.game[rows],
            ev,
        )


def load_data(
    data_dirs: Sequence[str | os.PathLike],
    holdout: float = 0.2,
    seed: int = 0,
    positions_per_game: int = 0,
    root_value_weight: float = 0.0,
) -> tuple[Dataset, Dataset, dict]:
    """(training set, held-out set, data summary). ``positions_per_game`` > 0 keeps a
    seeded sample of that many positions of each game. Shards featurised with other
    features than ``FEATURE_NAMES`` now are featurised again from their stored states; the
    old evaluator's win chances are computed for the held-out positions. The training
    set's targets blend outcomes and root values by ``root_value_weight``
    (``mix_targets``); the held-out set keeps the outcomes."""
    from council.mcts import _search
    from council.mcts.council_of_four_settings import V1_CONFIG
    from council.mcts.features import seat_features

    names = current_feature_names()
    shards = data_shards(data_dirs)
    all_games = shard_game_keys(shards)
    held = split_games(all_games, holdout, seed)
    params = V1_CONFIG.params()  # the hand-made evaluation, frozen as of version 0.1
    parts: dict[str, list] = {"train": [], "held": []}
    refeaturised = 0
    for d, path in shards:
        with np.load(path, allow_pickle=False) as z:
            s = {k: z[k] for k in z.files}
        game = game_keys(d, s["game"])
        rows = sample_positions(game, positions_per_game, seed)
        n = len(rows)
        if n == 0:
            continue
        game = game[rows]
        x = s["features"][rows].astype(np.float64)
        if tuple(str(f) for f in s["feature_names"]) != names:
            x = np.zeros((n, MAX_SEATS, len(names)))
            for i, row in enumerate(rows):
                state = _state(s, row)
                x[i, : state.n_players] = seat_features(state)
            refeaturised += n
        is_held = np.isin(game, held)
        ev = np.zeros((n, MAX_SEATS))
        for j in np.flatnonzero(is_held):
            win, _ = _search.evaluate_state(_state(s, rows[j]), params)
            ev[j, : len(win)] = win
        final_turn = np.maximum(s["final_turn"][rows].astype(np.float64), 1.0)
        ds = Dataset(
            x,
            s["n_players"][rows].astype(np.int64),
            s["outcome"][rows].astype(np.float64),
            np.clip(s["turn"][rows] / final_turn, 0.0, 1.0),
            game,
            ev,
        )
        parts["held"].append(ds.subset(is_held))
        train_rows = rows[~is_held]
        training = ds.subset(~is_held)
        training.outcome = mix_targets(
            training.outcome,
            training.n_players,
            s["seat"][train_rows],
            s["root_value"][train_rows].astype(np.float64),
            root_value_weight,
        )
        parts["train"].append(training)
    if not parts["train"]:
        raise ValueError("no positions in the data")
    train_set, held_set = (_concat(parts[k], len(names)) for k in ("train", "held"))
    train_set.evaluator = None
    summary = {
        "dirs": [str(d) for d in data_dirs],
        "shards": len(shards),
        "games": int(len(np.unique(all_games))),
        "held_out_games": int(len(held)),
        "train_positions": len(train_set),
        "held_out_positions": len(held_set),
        "refeaturised_positions": refeaturised,
    }
    return train_set, held_set, summary


def mix_targets(
    outcome: np.ndarray,
    n_players: np.ndarray,
    seat: np.ndarray,
    root_value: np.ndarray,
    weight: float,
) -> np.ndarray:
    """Training targets that blend each position's outcome with the root value the
    search gave the mover's chosen move: the mover's target is ``(1 - weight) * outcome +
    weight * root_value``, and the other seats share the rest in proportion to their
    outcomes (equally if the mover won outright). Rows without a root value (agents that
    do not search) keep their outcome. The search's estimate is far less noisy than one
    game's result, so the blend fits the value better (docs/learning.md).

    >>> y = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0]])
    >>> mix_targets(y, np.array([2, 3]), np.array([0, 0]), np.array([0.6, 0.2]), 0.5)
    array([[0.8 , 0.2 , 0.  , 0.  ],
           [0.1 , 0.45, 0.45, 0.  ]])
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"root_value_weight: must be in [0, 1], got {weight}")
    if weight == 0.0:
        return outcome
    target = outcome.copy()
    for i in np.flatnonzero(np.isfinite(root_value)):
        m, n = int(seat[i]), int(n_players[i])
        mover = (1.0 - weight) * outcome[i, m] + weight * root_value[i]
        others = [q for q in range(n) if q != m]
        rest = 1.0 - outcome[i, m]
        for q in others:
            target[i, q] = (
                outcome[i, q] * (1.0 - mover) / rest if rest > EPS else (1.0 - mover) / len(others)
            )
        target[i, m] = mover
    return target


def _state(shard: dict, i: int):
    lo, hi = shard["state_offsets"][i], shard["state_offsets"][i + 1]
    return decode_state(shard["state_bytes"][lo:hi])


def _concat(parts: list[Dataset], f: int) -> Dataset:
    if not parts:
        z = np.zeros(0)
        return Dataset(np.zeros((0, MAX_SEATS, f)), z.astype(int), np.zeros((0, 4)), z, z, None)
    ev = [p.evaluator for p in parts if p.evaluator is not None]
    return Dataset(
        np.concatenate([p.features for p in parts]),
        np.concatenate([p.n_players for p in parts]),
        np.concatenate([p.outcome for p in parts]),
        np.concatenate([p.phase for p in parts]),
        np.concatenate([p.game for p in parts]),
        np.concatenate(ev) if len(ev) == len(parts) else None,
    )


# -- the fit -------------------------------------------------------------------------------


def standardise(features: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scale (standard deviation, 1 where constant) over the real seats."""
    rows = features[mask]
    mean = rows.mean(axis=0)
    std = rows.std(axis=0)
    return mean, np.where(std > 1e-9, std, 1.0)


class _Objective:
    """Mean softmax-over-seats cross-entropy plus ``l2`` x the squared weights (b1 is not
    penalised), and its gradient, for the parameter vector of a linear or hidden model."""

    def __init__(self, z: np.ndarray, mask: np.ndarray, y: np.ndarray, hidden: int, l2: float):
        self.z, self.mask, self.y, self.hidden, self.l2 = z, mask, y, hidden, l2
        self.n, _, self.f = z.shape

    def unpack(self, theta: np.ndarray) -> dict:
        f, h = self.f, self.hidden
        if h == 0:
            return {"w": theta}
        return {
            "w1": theta[: f * h].reshape(f, h),
            "b1": theta[f * h : f * h + h],
            "w2": theta[f * h + h :],
        }

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        p = self.unpack(theta)
        if self.hidden == 0:
            s = self.z @ p["w"]
        else:
            hid = np.tanh(self.z @ p["w1"] + p["b1"])
            s = hid @ p["w2"]
        s = np.where(self.mask, s, -np.inf)
        top = s.max(axis=1, keepdims=True)
        logz = top + np.log(np.exp(s - top).sum(axis=1, keepdims=True))
        logp = np.where(self.mask, s - logz, 0.0)
        loss = -(self.y * logp).sum() / self.n
        g = np.where(self.mask, np.exp(logp) - self.y, 0.0) / self.n  # d loss / d s
        if self.hidden == 0:
            loss += self.l2 * p["w"] @ p["w"]
            grad = np.einsum("ns,nsf->f", g, self.z) + 2 * self.l2 * p["w"]
            return float(loss), grad
        loss += self.l2 * ((p["w1"] ** 2).sum() + p["w2"] @ p["w2"])
        g_w2 = np.einsum("ns,nsh->h", g, hid) + 2 * self.l2 * p["w2"]
        da = g[..., None] * p["w2"] * (1.0 - hid**2)
        g_w1 = self.z.reshape(-1, self.f).T @ da.reshape(-1, self.hidden)
        g_w1 += 2 * self.l2 * p["w1"]
        g_b1 = da.sum(axis=(0, 1))
        return float(loss), np.concatenate([g_w1.ravel(), g_b1, g_w2])


def fit(
    data: Dataset,
    feature_names: Sequence[str],
    hidden: int = 0,
    l2: float = 1e-4,
    seed: int = 0,
    max_iter: int = 1000,
) -> tuple[ValueModel, dict]:
    """Fit a value model to ``data``; returns it and the optimiser's summary."""
    from scipy.optimize import minimize

    if hidden < 0:
        raise ValueError(f"hidden: must be >= 0, got {hidden}")
    if l2 < 0:
        raise ValueError(f"l2: must be >= 0, got {l2}")
    mask = data.mask
    mean, scale = standardise(data.features, mask)
    z = np.where(mask[..., None], (data.features - mean) / scale, 0.0)
    f = z.shape[2]
    objective = _Objective(z, mask, data.outcome, hidden, l2)
    if hidden == 0:
        theta0 = np.zeros(f)
    else:
        rng = np.random.default_rng(seed)
        theta0 = np.concatenate(
            [
                rng.normal(0.0, 1.0 / np.sqrt(f), f * hidden),
                np.zeros(hidden),
                rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
            ]
        )
    result = minimize(objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    weights = objective.unpack(result.x)
    model = ValueModel(tuple(feature_names), mean, scale, **weights)
    info = {
        "iterations": int(result.nit),
        "converged": bool(result.success),
        "message": str(result.message),
        "train_objective": float(result.fun),
    }
    return model, info


# -- evaluation ----------------------------------------------------------------------------


def _scores(p: np.ndarray, y: np.ndarray, mask: np.ndarray) -> dict:
    """Log loss and Brier over the seats (per-seat probability vs per-seat outcome), and
    the cross-entropy of the whole distribution over seats, per position."""
    n = int(mask.shape[0])
    if n == 0:
        return {"positions": 0}
    q = np.clip(p, EPS, 1 - EPS)
    seat_ll = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    return {
        "positions": n,
        "log_loss": float(seat_ll[mask].mean()),
        "brier": float(((p - y) ** 2)[mask].mean()),
        "cross_entropy": float(-(np.where(mask, y * np.log(q), 0.0)).sum(axis=1).mean()),
    }


def phase_of(phase: np.ndarray) -> np.ndarray:
    """0, 1, 2 for early, mid, late: the thirds of turn / final turn."""
    return np.minimum((phase * 3).astype(int), 2)


def evaluate(data: Dataset, probabilities: np.ndarray) -> dict:
    """Scores overall, by phase and by player count."""
    mask, y = data.mask, data.outcome
    p = np.where(mask, probabilities, 0.0)
    ph = phase_of(data.phase)
    out = {"all": _scores(p, y, mask), "by_phase": {}, "by_players": {}}
    for i, name in enumerate(PHASES):
        rows = ph == i
        out["by_phase"][name] = _scores(p[rows], y[rows], mask[rows])
    for n in (2, 3, 4):
        rows = data.n_players == n
        if rows.any():
            out["by_players"][f"{n}p"] = _scores(p[rows], y[rows], mask[rows])
    return out


def uniform_probabilities(data: Dataset) -> np.ndarray:
    return np.where(data.mask, 1.0 / data.n_players[:, None], 0.0)


def reliability_plot(path: str | os.PathLike, data: Dataset, curves: dict, bins: int = 10):
    """Predicted probability (binned) against the observed win frequency, per seat."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mask = data.mask
    y = data.outcome[mask]
    edges = np.linspace(0, 1, bins + 1)
    fig, (ax, hist) = plt.subplots(
        2, 1, figsize=(6, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfect calibration")
    for (label, probs), marker in zip(curves.items(), "os^D", strict=False):
        p = probs[mask]
        which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
        xs, ys, ns = [], [], []
        for b in range(bins):
            sel = which == b
            if sel.any():
                xs.append(p[sel].mean())
                ys.append(y[sel].mean())
                ns.append(sel.sum())
        ll = _scores(np.where(mask, probs, 0), data.outcome, mask).get("log_loss", float("nan"))
        ax.plot(xs, ys, marker=marker, label=f"{label} (log loss {ll:.3f})")
        hist.hist(p, bins=edges, histtype="step", label=label)
    ax.set_ylabel("observed win frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"Value calibration, held-out seats ({int(mask.sum())} seat-positions)")
    ax.legend(loc="upper left", fontsize="small")
    hist.set_xlabel("predicted win probability")
    hist.set_ylabel("seat-positions")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


# -- the whole run -------------------------------------------------------------------------


def train(
    data_dirs: Sequence[str | os.PathLike],
    out: str | os.PathLike,
    *,
    hidden: int = 0,
    l2: float = 1e-4,
    seed: int = 0,
    holdout: float = 0.2,
    max_iter: int = 1000,
    positions_per_game: int = 0,
    root_value_weight: float = 0.0,
    report_png: str | os.PathLike | None = None,
) -> dict:
    """Load, split by game, fit, evaluate on the held-out games, save; returns the report."""
    start = time.perf_counter()
    names = current_feature_names()
    train_set, held, data_summary = load_data(
        data_dirs,
        holdout=holdout,
        seed=seed,
        positions_per_game=positions_per_game,
        root_value_weight=root_value_weight,
    )
    model, optimiser = fit(train_set, names, hidden=hidden, l2=l2, seed=seed, max_iter=max_iter)
    settings = {
        "hidden": hidden,
        "l2": l2,
        "seed": seed,
        "holdout": holdout,
        "max_iter": max_iter,
        "positions_per_game": positions_per_game,
        "root_value_weight": root_value_weight,
    }
    report: dict[str, Any] = {
        "model": str(out),
        "settings": settings,
        "data": data_summary,
        "optimiser": optimiser,
        "train": {"model": evaluate(train_set, _predict(model, train_set))},
    }
    if len(held):
        curves = {"model": _predict(model, held), "uniform": uniform_probabilities(held)}
        if held.evaluator is not None:  # load_data always computes it
            curves["evaluator"] = held.evaluator
        report["held_out"] = {k: evaluate(held, p) for k, p in curves.items()}
        if report_png:
            del curves["uniform"]
            reliability_plot(report_png, held, curves)
            report["reliability_plot"] = str(report_png)
    elif report_png:
        raise ValueError("a reliability plot needs held-out games (--holdout > 0)")
    held_scores = report.get("held_out", {}).get("model", {}).get("all")
    model = ValueModel(
        model.feature_names,
        model.mean,
        model.scale,
        w=model.w,
        w1=model.w1,
        b1=model.b1,
        w2=model.w2,
        info={"settings": settings, "data": data_summary, "held_out": held_scores},
    )
    model.save(out)
    report["seconds"] = round(time.perf_counter() - start, 2)
    return report


def _predict(model: ValueModel, data: Dataset) -> np.ndarray:
    return model.predict_batch(data.features, data.n_players)


def report_json(report: dict) -> str:
    return json.dumps(report, indent=2)
