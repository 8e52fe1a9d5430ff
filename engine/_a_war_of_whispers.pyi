"""Type stubs for the compiled rules core of A War of Whispers (engine/_a_war_of_whispers.pyx)."""

from typing import Any, ClassVar

import numpy as np

from council.engine._position import PositionMembers
from council.engine.a_war_of_whispers_content import Content

PHASES: tuple[str, ...]
STEPS: tuple[str, ...]
OPERATION_NAMES: tuple[str, ...]
LOYALTY_VALUES: tuple[int, ...]  # by slot: Devout x4, Dutiful x3, Affiliated x2, ...
LOYALTY_PAIRS: tuple[tuple[int, int], ...]  # WA_LOYALTY + i swaps empires LOYALTY_PAIRS[i]
LOCATIONS: dict[str, int]  # the card_loc codes of the raw form (hand: plus the player)
MIN_PLAYERS: int
MAX_PLAYERS: int
ROUNDS: int
HAND_LIMIT: int
BANNERS_PER_EMPIRE: int
NUM_ACTIONS: int
# The names of the event kinds of the trace an apply writes (AE_* in the .pxd).
EVENT_KINDS: tuple[str, ...]
# The first id of each kind of action.
ACTION_OFFSETS: dict[str, int]
# The AWState struct as a NumPy structured dtype (the fields of to_raw).
STATE_DTYPE: np.dtype[np.void]

def use_content(content: Content) -> None: ...
def current_content() -> Content: ...

class AWarOfWhispersState(PositionMembers):
    """A position of A War of Whispers: a full state, or one player's view of it."""

    @classmethod
    def new_game(
        cls,
        config: Any = None,
        seed: int = 0,
        *,
        players: int | None = None,
        agents_on_map: bool | None = None,
    ) -> AWarOfWhispersState: ...
    @property
    def agents_on_map(self) -> bool: ...
    def map_agents(self, player: int) -> list[int]: ...
    @property
    def phase(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def empire(self) -> str | None: ...
    @property
    def content_digest_prefix(self) -> str: ...
    def agents(self) -> list[list[int]]: ...
    def controller(self, empire: int, seat: int) -> int: ...
    def regions(self) -> list[tuple[int, int]]: ...
    def hand(self, player: int) -> list[int]: ...
    def _check_content(self) -> None: ...
    def _card_name(self, c: int) -> str: ...
    def random_playout(self, seed: int) -> int: ...
    @staticmethod
    def from_raw(raw: dict[str, Any]) -> AWarOfWhispersState: ...
    def __eq__(self, other: object) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
