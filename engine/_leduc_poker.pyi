"""Type stubs for the compiled rules core of Leduc poker (engine/_leduc_poker.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any, ClassVar

import numpy as np

from council.engine._position import PositionMembers

CARD_NAMES: tuple[str, ...]  # "J1", "J2", "Q1", "Q2", "K1", "K2": the card ids 0..5
RANK_NAMES: tuple[str, ...]  # "J", "Q", "K": card // 2
NUM_ACTIONS: int
# The names of the event kinds of the trace an apply writes (a position's events).
EVENT_KINDS: tuple[str, ...]
NUM_CARDS: int
PLAYERS: int
MAX_MOVES: int
MAX_RAISES: int  # raises a round
RAISE_SIZES: tuple[int, int]  # the raise size of each round
MAX_PUT_IN: int  # the most chips a seat can put in
ANTE: int
NO_CARD: int  # a card a view cannot see
ACTION_NAMES: tuple[str, ...]  # "fold", "call", "raise"
# The LDState struct as a NumPy structured dtype (the fields of LeducPokerState.to_raw).
STATE_DTYPE: np.dtype[np.void]

class LeducPokerState(PositionMembers):
    """A position of Leduc poker: a full state, or one seat's view of it (it meets
    council.engine.position.Position; the members every position has are PositionMembers')."""

    @classmethod
    def new_game(cls, config: Any = None, seed: int = 0) -> LeducPokerState: ...
    @staticmethod
    def from_deal(
        cards: list[int], history: list[int], viewer: int = -1, rng: int = 0
    ) -> LeducPokerState: ...
    @property
    def round(self) -> int: ...
    @property
    def cards(self) -> list[int]: ...
    @property
    def public_card(self) -> int: ...
    @property
    def history(self) -> list[int]: ...
    @property
    def rounds(self) -> list[list[int]]: ...
    @property
    def put_in(self) -> list[int]: ...
    @property
    def pot(self) -> int: ...
    @property
    def raises(self) -> int: ...
    @property
    def folded(self) -> int: ...
    @property
    def showed_down(self) -> bool: ...
    @staticmethod
    def from_raw(raw: dict[str, Any]) -> LeducPokerState: ...
    def __eq__(self, other: object) -> bool: ...
    # Mutable: __hash__ raises TypeError (typeshed's spelling of an unhashable class).
    __hash__: ClassVar[None]  # type: ignore[assignment]
