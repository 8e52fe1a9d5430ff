"""Type stubs for the compiled rules core of Kuhn poker (engine/_kuhn_poker.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any, ClassVar

import numpy as np

from council.engine._position import PositionMembers

CARD_NAMES: tuple[str, ...]  # "J", "Q", "K": the card ids 0, 1, 2
NUM_ACTIONS: int
# The names of the event kinds of the trace an apply writes (a position's events).
EVENT_KINDS: tuple[str, ...]
PLAYERS: int
MAX_MOVES: int
NO_CARD: int  # a card a view cannot see
ACTION_NAMES: tuple[str, ...]  # "pass", "bet"
ACTION_NAMES_FACING_BET: tuple[str, ...]  # "fold", "call"
# The KPState struct as a NumPy structured dtype (the fields of KuhnPokerState.to_raw).
STATE_DTYPE: np.dtype[np.void]

class KuhnPokerState(PositionMembers):
    """A position of Kuhn poker: a full state, or one seat's view of it (it meets
    council.engine.position.Position; the members every position has are PositionMembers')."""

    @classmethod
    def new_game(cls, config: Any = None, seed: int = 0) -> KuhnPokerState: ...
    @staticmethod
    def from_deal(
        cards: list[int], history: list[int], viewer: int = -1, rng: int = 0
    ) -> KuhnPokerState: ...
    @property
    def cards(self) -> list[int]: ...
    @property
    def history(self) -> list[int]: ...
    @property
    def showed_down(self) -> bool: ...
    @staticmethod
    def from_raw(raw: dict[str, Any]) -> KuhnPokerState: ...
    def __eq__(self, other: object) -> bool: ...
    # Mutable: __hash__ raises TypeError (typeshed's spelling of an unhashable class).
    __hash__: ClassVar[None]  # type: ignore[assignment]
