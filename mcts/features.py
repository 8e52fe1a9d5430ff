"""Per-seat features of a position: what the expert weighs and the value model learns from.

>>> from council.engine import GameConfig, State
>>> state = State.new_game(GameConfig(players=3), seed=1)
>>> rows = seat_features(state)
>>> rows.shape == (3, len(FEATURE_NAMES))
True
>>> [float(rows[seat, FEATURE_NAMES.index("coins")]) for seat in range(3)]
[10.0, 11.0, 12.0]
"""

from __future__ import annotations

import numpy as np

from council.engine import State
from council.mcts import _evaluation

FEATURE_NAMES: tuple[str, ...] = _evaluation.FEATURE_NAMES


def seat_features(state: State) -> np.ndarray:
    """One row of ``FEATURE_NAMES`` per seat of a full state, shape (players, features)."""
    return np.asarray(_evaluation.features(state), dtype=np.float64)
