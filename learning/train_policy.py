"""Training the learned policy prior (``council.mcts.policy_model``) on self-play data.

The targets are the search's own root visit distributions, recorded in the self-play shards
(``visit_action``, ``visit_count``; ``council.learning.selfplay``). Positions without them (an
agent with no search: greedy, expert) are skipped. For each kept position the full state is
rebuilt, its legal actions listed and their action feature rows computed
(``council.mcts.features.action_feature_rows``); the target gives each legal action its
share of the root visits (0 for an action the search never tried).

``train_policy`` splits the *games* into a training and a held-out set by a seeded shuffle
(``council.learning.data``, as for the value model), fits ``w`` by minimising the mean
cross-entropy between the target and the softmax of the logits over the legal actions, plus
``l2 * |w|^2``, with SciPy's L-BFGS-B and an analytic gradient, from zero weights.
Positions have different numbers of legal actions, so all rows lie in one flat array with
segment offsets. The same data, settings and seed give the same model.

The report (JSON) gives the cross-entropy and the top-1 agreement with the most-visited
action, for the model and the uniform prior, overall, by the kind of decision (payment,
bonus choice, turn) and by player count. Commands and formats: docs/learning.md.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from council.learning.data import (
    data_shards,
    game_keys,
    sample_positions,
    shard_game_keys,
    split_games,
)
from council.learning.selfplay import read_shard, shard_state
from council.mcts.policy_model import PolicyModel, current_action_feature_names

# The kind of a decision, from the kinds of its legal actions: all payments; all bonus
# choices (a city token, a free permit, a permit's bonus); anything else is a turn decision.
DECISIONS = ("payment", "bonus_choice", "turn")
_BONUS_KINDS = ("choose_token", "choose_free_permit", "choose_permit_bonus")
TIE = 1e-9  # relative tolerance of "as likely as the most likely action"


@dataclass
class PolicyData:
    """Positions with recorded root visits: all their legal actions' rows in one array."""

    rows: np.ndarray  # (R, F) float64: the action feature rows
    offsets: np.ndarray  # (N+1,) int64: position i is rows[offsets[i]:offsets[i+1]]
    target: np.ndarray  # (R,) float64: visit shares, summing to 1 within each position
    game: np.ndarray  # (N,) int64 game key, unique over all directories
    decision: np.ndarray  # (N,) int64 index into DECISIONS
    n_players: np.ndarray  # (N,) int64

    def __len__(self) -> int:
        return len(self.game)

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.offsets)

    def subset(self, positions: np.ndarray) -> PolicyData:
        positions = np.asarray(positions)
        if positions.dtype == bool:
            positions = np.flatnonzero(positions)
        lo, hi = self.offsets[positions], self.offsets[positions + 1]
        counts = hi - lo
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        take = np.arange(offsets[-1]) + np.repeat(lo - offsets[:-1], counts)
        return PolicyData(
            self.rows[take],
            offsets,
            self.target[take],
            self.game[positions],
            self.decision[positions],
            self.n_players[positions],
        )


def _concat(parts: list[PolicyData], f: int) -> PolicyData:
    if not parts:
        z = np.zeros(0, np.int64)
        return PolicyData(np.zeros((0, f)), np.zeros(1, np.int64), np.zeros(0), z, z, z)
    ends = np.cumsum([p.offsets[-1] for p in parts])
    starts = np.concatenate([[0], ends[:-1]])
    offsets = np.concatenate(
        [[0]] + [p.offsets[1:] + s for p, s in zip(parts, starts, strict=True)]
    )
    return PolicyData(
        np.concatenate([p.rows for p in parts]),
        offsets.astype(np.int64),
        np.concatenate([p.target for p in parts]),
        np.concatenate([p.game for p in parts]),
        np.concatenate([p.decision for p in parts]),
        np.concatenate([p.n_players for p in parts]),
    )


def _kind_names(names: Sequence[str]) -> tuple[str, ...]:
    """The one-hot kind columns: they come first and end before "pay_cost"."""
    return tuple(names[: list(names).index("pay_cost")])


def decision_kind(rows: np.ndarray, names: Sequence[str]) -> int:
    """The index in DECISIONS of a position whose legal actions have these rows."""
    kind_names = _kind_names(names)
    kinds = {kind_names[k] for k in np.flatnonzero(rows[:, : len(kind_names)].any(axis=0))}
    if kinds == {"pay"}:
        return 0
    if kinds and kinds <= set(_BONUS_KINDS):
        return 1
    return 2


def _position(shard: dict, i: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(rows, target, visits dropped) of position ``i``, or None if none of its visits
    are of a legal action."""
    from council.mcts.features import action_feature_rows

    state = shard_state(shard, i)
    legal = list(state.legal_actions())
    index = {a: j for j, a in enumerate(legal)}
    target = np.zeros(len(legal))
    dropped = 0
    for a, c in zip(shard["visit_action"][i], shard["visit_count"][i], strict=True):
        if a < 0 or c <= 0:
            continue
        j = index.get(int(a))
        if j is None:
            dropped += int(c)
        else:
            target[j] += c
    if target.sum() <= 0:
        return None
    # The target is the search's choice, its most visited action (ties shared): at the
    # budgets of self-play the visit shares are nearly uniform and teach the prior little.
    target = (target == target.max()).astype(np.float64)
    rows = np.array(action_feature_rows(state, legal), dtype=np.float64)
    return rows, target / target.sum(), dropped


def load_policy_data(
    data_dirs: Sequence[str | os.PathLike],
    holdout: float = 0.2,
    seed: int = 0,
    positions_per_game: int = 0,
) -> tuple[PolicyData, PolicyData, dict]:
    """(training set, held-out set, data summary). Only positions with a recorded root
    visit distribution are used; ``positions_per_game`` > 0 keeps a seeded sample of that
    many of them per game."""
    names = current_action_feature_names()
    shards = data_shards(data_dirs)
    all_games = shard_game_keys(shards)
    held = split_games(all_games, holdout, seed)
    parts: dict[str, list[PolicyData]] = {"train": [], "held": []}
    positions = recorded = skipped = visits_dropped = 0
    games_recorded: set[int] = set()
    for d, path in shards:
        s = read_shard(path)
        game = game_keys(d, s["game"])
        positions += len(game)
        with_visits = np.flatnonzero(s["visit_count"].sum(axis=1) > 0)
        recorded += len(with_visits)
        chosen = with_visits[sample_positions(game[with_visits], positions_per_game, seed)]
        rows, targets, counts, kept, decisions = [], [], [], [], []
        for i in chosen:
            got = _position(s, int(i))
            if got is None:
                skipped += 1
                continue
            r, t, dropped = got
            visits_dropped += dropped
            rows.append(r)
            targets.append(t)
            counts.append(len(t))
            kept.append(i)
            decisions.append(decision_kind(r, names))
        if not kept:
            continue
        kept_rows = np.array(kept)
        games_recorded.update(int(g) for g in np.unique(game[kept_rows]))
        data = PolicyData(
            np.concatenate(rows),
            np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
            np.concatenate(targets),
            game[kept_rows],
            np.array(decisions, np.int64),
            s["n_players"][kept_rows].astype(np.int64),
        )
        is_held = np.isin(data.game, held)
        parts["train"].append(data.subset(~is_held))
        parts["held"].append(data.subset(is_held))
    train_set, held_set = (_concat(parts[k], len(names)) for k in ("train", "held"))
    if not len(train_set):
        raise ValueError(
            "no training positions with recorded root visits (self-play with a search "
            "agent records them; greedy and expert do not)"
        )
    summary = {
        "dirs": [str(d) for d in data_dirs],
        "shards": len(shards),
        "games": int(len(np.unique(all_games))),
        "games_with_visits": len(games_recorded),
        "held_out_games": int(len(held)),
        "positions_in_data": positions,
        "positions_with_visits": recorded,
        "train_positions": len(train_set),
        "train_actions": int(train_set.offsets[-1]),
        "held_out_positions": len(held_set),
        "held_out_actions": int(held_set.offsets[-1]),
        "skipped_positions": skipped,
        "visits_of_illegal_actions": visits_dropped,
    }
    return train_set, held_set, summary


# -- the fit -------------------------------------------------------------------------------


def standardise(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scale (standard deviation, 1 where constant) of the action rows."""
    mean = rows.mean(axis=0)
    std = rows.std(axis=0)
    return mean, np.where(std > 1e-9, std, 1.0)


class _Objective:
    """Mean cross-entropy of the softmax over each position's legal actions against its
    visit shares, plus ``l2 * |w|^2``, and its gradient."""

    def __init__(self, z: np.ndarray, offsets: np.ndarray, y: np.ndarray, l2: float):
        self.z, self.y, self.l2 = z, y, l2
        self.starts = np.asarray(offsets[:-1], dtype=np.int64)
        self.seg = np.repeat(np.arange(len(self.starts)), np.diff(offsets))
        self.n = len(self.starts)

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        s = self.z @ w
        s = s - np.maximum.reduceat(s, self.starts)[self.seg]
        e = np.exp(s)
        total = np.add.reduceat(e, self.starts)
        logp = s - np.log(total)[self.seg]
        loss = -(self.y @ logp) / self.n + self.l2 * (w @ w)
        g = (e / total[self.seg] - self.y) / self.n  # d loss / d logit
        return float(loss), self.z.T @ g + 2 * self.l2 * w


def fit(
    data: PolicyData,
    feature_names: Sequence[str],
    l2: float = 1e-4,
    max_iter: int = 1000,
) -> tuple[PolicyModel, dict]:
    """Fit a policy model to ``data`` from zero weights; returns it and the optimiser's
    summary."""
    from scipy.optimize import minimize

    if l2 < 0:
        raise ValueError(f"l2: must be >= 0, got {l2}")
    mean, scale = standardise(data.rows)
    z = (data.rows - mean) / scale
    objective = _Objective(z, data.offsets, data.target, l2)
    result = minimize(
        objective, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": max_iter}
    )
    model = PolicyModel(tuple(feature_names), mean, scale, result.x)
    info = {
        "iterations": int(result.nit),
        "converged": bool(result.success),
        "message": str(result.message),
        "train_objective": float(result.fun),
    }
    return model, info


# -- evaluation ----------------------------------------------------------------------------


def _per_position(data: PolicyData, p: np.ndarray) -> dict[str, np.ndarray]:
    """Per position: cross-entropy -sum y log p, the target's entropy, and the top-1
    agreement: the share of the actions the prior ranks first (ties within TIE) that the
    search visited most (so a uniform prior scores the chance of a random pick)."""
    starts, seg = data.offsets[:-1], np.repeat(np.arange(len(data)), data.counts)
    y = data.target
    logp = np.log(np.maximum(p, 1e-300))
    ce = -np.add.reduceat(y * logp, starts)
    ent = -np.add.reduceat(np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0)), 0.0), starts)
    top_p = p >= np.maximum.reduceat(p, starts)[seg] * (1 - TIE)
    top_y = y >= np.maximum.reduceat(y, starts)[seg]
    both = np.add.reduceat((top_p & top_y).astype(np.float64), starts)
    top1 = both / np.add.reduceat(top_p.astype(np.float64), starts)
    return {"cross_entropy": ce, "target_entropy": ent, "top1": top1}


def _scores(data: PolicyData, per: dict, positions: np.ndarray) -> dict:
    n = int(positions.sum())
    if n == 0:
        return {"positions": 0}
    return {
        "positions": n,
        "legal_actions_mean": float(data.counts[positions].mean()),
        "cross_entropy": float(per["cross_entropy"][positions].mean()),
        "top1": float(per["top1"][positions].mean()),
        "target_entropy": float(per["target_entropy"][positions].mean()),
    }


def evaluate(data: PolicyData, priors: np.ndarray) -> dict:
    """Scores overall, by the kind of decision and by player count. ``target_entropy`` is
    the least cross-entropy any prior could reach."""
    per = _per_position(data, priors)
    everything = np.ones(len(data), bool)
    out = {"all": _scores(data, per, everything), "by_decision": {}, "by_players": {}}
    for k, name in enumerate(DECISIONS):
        out["by_decision"][name] = _scores(data, per, data.decision == k)
    for n in (2, 3, 4):
        rows = data.n_players == n
        if rows.any():
            out["by_players"][f"{n}p"] = _scores(data, per, rows)
    return out


def uniform_priors(data: PolicyData) -> np.ndarray:
    return np.repeat(1.0 / data.counts, data.counts)


# -- the whole run -------------------------------------------------------------------------


def train_policy(
    data_dirs: Sequence[str | os.PathLike],
    out: str | os.PathLike,
    *,
    l2: float = 1e-4,
    seed: int = 0,
    holdout: float = 0.2,
    max_iter: int = 1000,
    positions_per_game: int = 0,
) -> dict:
    """Load, split by game, fit, evaluate on the held-out games, save; returns the report."""
    start = time.perf_counter()
    names = current_action_feature_names()
    train_set, held, data_summary = load_policy_data(
        data_dirs, holdout=holdout, seed=seed, positions_per_game=positions_per_game
    )
    model, optimiser = fit(train_set, names, l2=l2, max_iter=max_iter)
    settings = {
        "l2": l2,
        "seed": seed,
        "holdout": holdout,
        "max_iter": max_iter,
        "positions_per_game": positions_per_game,
    }
    report: dict[str, Any] = {
        "model": str(out),
        "settings": settings,
        "data": data_summary,
        "optimiser": optimiser,
        "train": {
            "model": evaluate(train_set, model.priors_flat(train_set.rows, train_set.offsets)),
            "uniform": evaluate(train_set, uniform_priors(train_set)),
        },
    }
    if len(held):
        report["held_out"] = {
            "model": evaluate(held, model.priors_flat(held.rows, held.offsets)),
            "uniform": evaluate(held, uniform_priors(held)),
        }
    # The weights on the standardised features, by name (their sign and size).
    report["weights"] = {n: float(w) for n, w in zip(names, model.w, strict=True)}
    held_scores = report.get("held_out", {}).get("model", {}).get("all")
    model = PolicyModel(
        model.feature_names,
        model.mean,
        model.scale,
        model.w,
        info={"settings": settings, "data": data_summary, "held_out": held_scores},
    )
    model.save(out)
    report["seconds"] = round(time.perf_counter() - start, 2)
    return report


def report_json(report: dict) -> str:
    return json.dumps(report, indent=2)
