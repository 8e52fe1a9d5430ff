"""A learned value model: a calibrated win probability for every seat of a position.

Each seat ``p`` gets a score from its own feature row (``council.mcts.features``), and the
win probabilities are the softmax of the scores over the seats of the game (a conditional
logit), so one model serves 2, 3 and 4 players::

    z_p = (x_p - mean) / scale
    s_p = z_p . w                          (linear, hidden = 0)
    s_p = tanh(z_p @ w1 + b1) . w2         (one hidden layer of H tanh units)
    P(seat p wins) = exp(s_p) / sum_q exp(s_q)

The forward pass is deliberately this plain so the compiled search can repeat it in C.
The model is stored as a NumPy ``.npz`` file read without pickle: ``format_version``,
``feature_names``, ``mean``, ``scale``, then ``w`` or ``w1``/``b1``/``w2``, and ``info``
(a JSON string: how it was trained). ``DEFAULT_MODEL_PATH`` is the copy shipped as package
data (``council/mcts/models/value.npz``). See docs/learning.md.

>>> import numpy as np
>>> m = ValueModel(("a", "b"), np.zeros(2), np.ones(2), w=np.array([1.0, 0.0]))
>>> m.predict(np.array([[1.0, 5.0], [0.0, 5.0]])).round(3).tolist()
[0.731, 0.269]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FORMAT_VERSION = 1
MODELS_DIR = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL_PATH = MODELS_DIR / "value.npz"


class FeatureMismatchError(ValueError):
    """A model trained on other features than ``council.mcts.features`` computes now."""


def current_feature_names() -> tuple[str, ...]:
    from council.mcts.features import FEATURE_NAMES

    return tuple(FEATURE_NAMES)


def describe_mismatch(expected: tuple[str, ...], found: tuple[str, ...]) -> str:
    """A short account of how two feature lists differ (for error messages)."""
    missing = [n for n in expected if n not in found]
    extra = [n for n in found if n not in expected]
    parts = []
    if missing:
        parts.append(f"missing {missing}")
    if extra:
        parts.append(f"unknown {extra}")
    if not parts:
        at = next(i for i, (a, b) in enumerate(zip(expected, found, strict=False)) if a != b)
        parts.append(f"order differs from position {at}: {found[at]!r} where {expected[at]!r}")
    return "; ".join(parts)


def _softmax_rows(s: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    top = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - top)
    return e / np.sum(e, axis=-1, keepdims=True)


@dataclass(frozen=True, eq=False)
class ValueModel:
    """Per-seat scores from standardised features, softmax over the seats of the game."""

    feature_names: tuple[str, ...]
    mean: np.ndarray  # (F,)
    scale: np.ndarray  # (F,)
    w: np.ndarray | None = None  # (F,) linear
    w1: np.ndarray | None = None  # (F, H) hidden layer
    b1: np.ndarray | None = None  # (H,)
    w2: np.ndarray | None = None  # (H,)
    format_version: int = FORMAT_VERSION
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        f = len(self.feature_names)
        object.__setattr__(self, "feature_names", tuple(str(n) for n in self.feature_names))
        for name in ("mean", "scale", "w", "w1", "b1", "w2"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, np.asarray(value, dtype=np.float64))
        if self.mean.shape != (f,) or self.scale.shape != (f,):
            raise ValueError(f"mean and scale must have shape ({f},)")
        if not np.all(self.scale > 0):
            raise ValueError("scale must be > 0")
        if self.w is not None:  # linear
            if self.w1 is not None or self.b1 is not None or self.w2 is not None:
                raise ValueError("give either w (linear) or w1, b1, w2 (hidden layer)")
            if self.w.shape != (f,):
                raise ValueError(f"w must have shape ({f},)")
        else:
            if self.w1 is None or self.b1 is None or self.w2 is None:
                raise ValueError("give either w (linear) or w1, b1, w2 (hidden layer)")
            h = self.w1.shape[1] if self.w1.ndim == 2 else -1
            if self.w1.shape != (f, h) or self.b1.shape != (h,) or self.w2.shape != (h,):
                raise ValueError(f"w1, b1, w2 must have shapes ({f}, H), (H,), (H,)")

    @property
    def is_linear(self) -> bool:
        return self.w is not None

    @property
    def hidden(self) -> int:
        return 0 if self.w1 is None else self.w1.shape[1]

    # -- inference ---------------------------------------------------------------------

    def scores(self, features: np.ndarray) -> np.ndarray:
        """Per-seat scores s for features of shape (..., F)."""
        z = (np.asarray(features, dtype=np.float64) - self.mean) / self.scale
        if self.is_linear:
            return z @ self.w
        return np.tanh(z @ self.w1 + self.b1) @ self.w2

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Win probabilities (n_players,) from the seats' feature rows (n_players, F)."""
        features = np.asarray(features)
        if features.ndim != 2 or features.shape[1] != len(self.feature_names):
            raise ValueError(
                f"features must have shape (n_players, {len(self.feature_names)}), "
                f"got {features.shape}"
            )
        return _softmax_rows(self.scores(features))

    def predict_batch(self, features: np.ndarray, n_players: np.ndarray) -> np.ndarray:
        """Probabilities (N, S) for padded features (N, S, F); seats >= n_players get 0."""
        mask = np.arange(features.shape[1])[None, :] < np.asarray(n_players)[:, None]
        return _softmax_rows(self.scores(features), mask)

    def predict_state(self, state) -> np.ndarray:
        """Win probabilities of a full state's seats (features from council.mcts.features)."""
        from council.mcts.features import seat_features

        return self.predict(seat_features(state))

    # -- storage -----------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as .npz (atomically: a temporary file, then a rename)."""
        arrays = {
            "format_version": np.array(self.format_version, dtype=np.int64),
            "feature_names": np.array(self.feature_names, dtype=str),
            "mean": self.mean,
            "scale": self.scale,
            "info": np.array(json.dumps(self.info, sort_keys=True)),
        }
        # The weights: w (linear) or w1, b1, w2 (hidden layer), as __post_init__ checked.
        layers = {"w": self.w, "w1": self.w1, "b1": self.b1, "w2": self.w2}
        arrays.update({name: value for name, value in layers.items() if value is not None})
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        with open(tmp, "wb") as f:
            np.savez(f, allow_pickle=False, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(
        cls, path: str | os.PathLike = DEFAULT_MODEL_PATH, check_features: bool = True
    ) -> ValueModel:
        """Read a model; with ``check_features`` its feature names must equal the ones
        ``council.mcts.features`` computes now (else FeatureMismatchError says how not)."""
        path = Path(path)
        if not path.exists():
            hint = " (no trained model is shipped yet: see docs/learning.md)"
            raise FileNotFoundError(
                f"{path}: no such value model" + (hint if path == DEFAULT_MODEL_PATH else "")
            )
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        version = int(arrays.get("format_version", -1))
        if version != FORMAT_VERSION:
            raise ValueError(
                f"{path}: value model format {version}, this version reads {FORMAT_VERSION}"
            )
        names = tuple(str(n) for n in arrays["feature_names"])
        if check_features:
            expected = current_feature_names()
            if names != expected:
                raise FeatureMismatchError(
                    f"{path}: the model's feature_names do not match "
                    f"council.mcts.features.FEATURE_NAMES ({describe_mismatch(expected, names)}); "
                    "retrain it (council-ai train) on data featurised with the current features"
                )
        info = json.loads(str(arrays["info"])) if "info" in arrays else {}
        return cls(
            feature_names=names,
            mean=arrays["mean"],
            scale=arrays["scale"],
            w=arrays.get("w"),
            w1=arrays.get("w1"),
            b1=arrays.get("b1"),
            w2=arrays.get("w2"),
            format_version=version,
            info=info,
        )
