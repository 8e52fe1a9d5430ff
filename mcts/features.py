"""Per-seat features of a position: what the expert weighs and the value model learns from;
and per-action features (``action_feature_rows``, names ``ACTION_FEATURE_NAMES``): what the
policy prior learns from. Computed by the default game's compiled evaluation.

>>> from council.engine.games import default_game
>>> game = default_game()
>>> state = game.new_game(game.config_class(players=3), seed=1)
>>> rows = seat_features(state)
>>> rows.shape == (3, len(FEATURE_NAMES))
True
>>> [float(rows[seat, FEATURE_NAMES.index("coins")]) for seat in range(3)]
[10.0, 11.0, 12.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from council.engine.position import Position
from council.mcts import _council_of_four_evaluation

# The default game's compiled evaluation: its functions take that game's positions only (a
# TypeError for another game's).
_evaluation: Any = _council_of_four_evaluation

FEATURE_NAMES: tuple[str, ...] = _evaluation.FEATURE_NAMES
ACTION_FEATURE_NAMES: tuple[str, ...] = _evaluation.ACTION_FEATURE_NAMES
# The feature rows of a full state's actions, in ACTION_FEATURE_NAMES order.
action_feature_rows: Callable[[Position, Iterable[int]], list[list[float]]] = (
    _evaluation.action_feature_rows
)
# The expert's choice in a full state: the legal action its FEATURE_NAMES weights value most.
expert_choice: Callable[[Position, Sequence[float]], int] = _evaluation.expert_choice


def seat_features(state: Position) -> np.ndarray:
    """One row of ``FEATURE_NAMES`` per seat of a full state of the default game (the one
    the learned models are for), shape (players, features)."""
    return np.asarray(_evaluation.features(state), dtype=np.float64)
