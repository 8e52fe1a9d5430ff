"""A learned policy prior: how likely the search is to prefer each legal action.

Every legal action ``a`` of the seat to move has a feature row ``phi(a)``
(``council.mcts.features.action_feature_rows``; names in ``ACTION_FEATURE_NAMES``). Its
first columns are a one-hot of the action's kind, so each kind gets its own bias, and the
rest describe the action within its kind (a payment's cost, cards and jokers, what a build
links, ...): the prior is factored by action kind and covers payments as well as turn
decisions. The prior is the softmax of a linear score over the legal actions (a conditional
logit)::

    z_a = (phi(a) - mean) / scale
    prior(a) = exp(w . z_a) / sum_b exp(w . z_b)       (b over the legal actions)

The compiled search repeats this forward pass in C (``PolicyNet``, filled by
``fill_policy_net``). The model is stored as a NumPy ``.npz`` file read without pickle:
``format_version``, ``model_kind`` ("policy"), ``feature_names``, ``mean``, ``scale``,
``w`` and ``info`` (a JSON string: how it was trained). ``council-ai train-policy`` makes
one (``council.learning.train_policy``). See docs/learning.md.

>>> import numpy as np
>>> m = PolicyModel(("a", "b"), np.zeros(2), np.ones(2), np.array([1.0, 0.0]))
>>> m.priors(np.array([[1.0, 5.0], [0.0, 5.0]])).round(3).tolist()
[0.731, 0.269]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from council.mcts.value_model import MODELS_DIR, FeatureMismatchError, describe_mismatch

FORMAT_VERSION = 1
MODEL_KIND = "policy"
DEFAULT_POLICY_PATH = MODELS_DIR / "policy.npz"


class ActionFeatureMismatchError(FeatureMismatchError):
    """A policy model trained on other action features than the search computes now."""


def current_action_feature_names() -> tuple[str, ...]:
    from council.mcts.features import ACTION_FEATURE_NAMES

    return tuple(ACTION_FEATURE_NAMES)


def segment_softmax(logits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Softmax within each segment ``offsets[i]:offsets[i+1]`` of a flat array of logits
    (every segment non-empty)."""
    logits = np.asarray(logits, dtype=np.float64)
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    seg = np.repeat(np.arange(len(starts)), np.diff(offsets))
    e = np.exp(logits - np.maximum.reduceat(logits, starts)[seg])
    return e / np.add.reduceat(e, starts)[seg]


@dataclass(frozen=True, eq=False)
class PolicyModel:
    """Per-action logits from standardised action features, softmax over legal actions."""

    feature_names: tuple[str, ...]
    mean: np.ndarray  # (F,)
    scale: np.ndarray  # (F,)
    w: np.ndarray  # (F,)
    format_version: int = FORMAT_VERSION
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        f = len(self.feature_names)
        object.__setattr__(self, "feature_names", tuple(str(n) for n in self.feature_names))
        for name in ("mean", "scale", "w"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=np.float64))
        for name in ("mean", "scale", "w"):
            if getattr(self, name).shape != (f,):
                raise ValueError(f"{name} must have shape ({f},)")
        if not np.all(self.scale > 0):
            raise ValueError("scale must be > 0")
        if not (np.all(np.isfinite(self.mean)) and np.all(np.isfinite(self.w))):
            raise ValueError("mean and w must be finite")

    # -- inference ---------------------------------------------------------------------

    def logits(self, rows: np.ndarray) -> np.ndarray:
        """The score w . z of each action row, rows of shape (..., F)."""
        return ((np.asarray(rows, dtype=np.float64) - self.mean) / self.scale) @ self.w

    def priors(self, rows: np.ndarray) -> np.ndarray:
        """Prior probabilities (n_actions,) of the legal actions' rows (n_actions, F)."""
        rows = np.asarray(rows)
        f = len(self.feature_names)
        if rows.ndim != 2 or rows.shape[1] != f or rows.shape[0] == 0:
            raise ValueError(f"rows must have shape (n_actions >= 1, {f}), got {rows.shape}")
        s = self.logits(rows)
        e = np.exp(s - s.max())
        return e / e.sum()

    def priors_flat(self, rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Priors of many positions at once: ``rows`` (R, F) of all their legal actions,
        position ``i`` being ``rows[offsets[i]:offsets[i+1]]``."""
        return segment_softmax(self.logits(rows), offsets)

    def priors_for(self, state, actions=None) -> np.ndarray:
        """Priors of ``actions`` (default: every legal action) for the seat to move of a
        full state."""
        from council.mcts.features import action_feature_rows

        if actions is None:
            actions = state.legal_actions()
        return self.priors(np.array(action_feature_rows(state, list(actions)), dtype=np.float64))

    # -- storage -----------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as .npz (atomically: a temporary file, then a rename)."""
        arrays = {
            "format_version": np.array(self.format_version, dtype=np.int64),
            "model_kind": np.array(MODEL_KIND),
            "feature_names": np.array(self.feature_names, dtype=str),
            "mean": self.mean,
            "scale": self.scale,
            "w": self.w,
            "info": np.array(json.dumps(self.info, sort_keys=True)),
        }
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            with open(tmp, "wb") as f:
                np.savez(f, allow_pickle=False, **arrays)
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()

    @classmethod
    def load(
        cls, path: str | os.PathLike = DEFAULT_POLICY_PATH, check_features: bool = True
    ) -> PolicyModel:
        """Read a model; with ``check_features`` its feature names must equal
        ``council.mcts.features.ACTION_FEATURE_NAMES`` (else ActionFeatureMismatchError
        says how they differ)."""
        path = Path(path)
        if not path.exists():
            hint = " (no trained policy is shipped yet: see docs/learning.md)"
            raise FileNotFoundError(
                f"{path}: no such policy model" + (hint if path == DEFAULT_POLICY_PATH else "")
            )
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        kind = str(arrays["model_kind"]) if "model_kind" in arrays else None
        if kind != MODEL_KIND:
            raise ValueError(
                f"{path}: not a policy model (model_kind {kind!r}; "
                "council-ai train-policy writes policy models, council-ai train value models)"
            )
        version = int(arrays.get("format_version", -1))
        if version != FORMAT_VERSION:
            raise ValueError(
                f"{path}: policy model format {version}, this version reads {FORMAT_VERSION}"
            )
        names = tuple(str(n) for n in arrays["feature_names"])
        if check_features:
            expected = current_action_feature_names()
            if names != expected:
                raise ActionFeatureMismatchError(
                    f"{path}: the policy model's feature_names do not match "
                    "council.mcts.features.ACTION_FEATURE_NAMES "
                    f"({describe_mismatch(expected, names)}); retrain it "
                    "(council-ai train-policy) with the current action features"
                )
        info = json.loads(str(arrays["info"])) if "info" in arrays else {}
        return cls(
            feature_names=names,
            mean=arrays["mean"],
            scale=arrays["scale"],
            w=arrays["w"],
            format_version=version,
            info=info,
        )
