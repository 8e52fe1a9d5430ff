"""Type stubs for the compiled rules core of The Council (engine/_the_council.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any, ClassVar, NamedTuple

import numpy as np

from council.engine._position import PositionMembers
from council.engine.the_council_config import TheCouncilConfig

class Card(NamedTuple):
    """One card's facts as the rules use them."""

    name: str
    kind: str  # "ace", "number", "pawn", "court" or "crown"
    value: int  # its rank as an event: Ace 1, numbers their value, else 0
    order: int  # index in RANK_ORDER (Ace lowest, TC12)
    suits: tuple[int, ...]  # suit indices, as the card list names them

CARD_KINDS: tuple[str, ...]
SUITS: tuple[str, ...]
RANK_ORDER: tuple[str, ...]
CARDS: tuple[Card, ...]
CARD_NAMES: tuple[str, ...]
MAX_RANK: int
MIN_PLAYERS: int
MAX_PLAYERS: int
DEAL: int  # cards dealt to each seat, its pack
DRAFT_ROUNDS: int
NO_CARD: int  # low_card of a seat that revealed nothing in the last event
PHASES: tuple[str, ...]
# The card_loc codes of the raw form (pack, drafted and facedown: plus the pack or seat).
LOCATIONS: dict[str, int]
NUM_ACTIONS: int
# The names of the event kinds of the trace an apply writes (a position's events).
EVENT_KINDS: tuple[str, ...]
EVENTS_PER_HAND: int  # TC6
MAX_HANDS: int  # TC14
# The first id of each kind of action: pick + card, bid + suit, end_bid, reveal + mask.
ACTION_OFFSETS: dict[str, int]
# The TCState struct as a NumPy structured dtype (the fields of TheCouncilState.to_raw).
STATE_DTYPE: np.dtype[np.void]

class TheCouncilState(PositionMembers):
    """A position of The Council: a full state, or one seat's view of it (it meets
    council.engine.position.Position; the members every position has are PositionMembers')."""

    @classmethod
    def new_game(
        cls,
        config: TheCouncilConfig | int | None = None,
        seed: int = 0,
        *,
        players: int | None = None,
    ) -> TheCouncilState: ...
    @property
    def phase(self) -> str: ...
    @property
    def hand(self) -> int: ...
    @property
    def event(self) -> int | None: ...
    def drafted(self, seat: int) -> list[int]: ...
    def random_playout(self, seed: int) -> int: ...
    @staticmethod
    def from_raw(raw: dict[str, Any]) -> TheCouncilState: ...
    def __eq__(self, other: object) -> bool: ...
    # Mutable: __hash__ raises TypeError (typeshed's spelling of an unhashable class).
    __hash__: ClassVar[None]  # type: ignore[assignment]
