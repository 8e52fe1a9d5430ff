"""Type stubs for the compiled rules core (engine/_council_of_four.pyx).

Kept in step with the extension by tests/test_stubs.py: every public name the module (and
its classes) defines at runtime is declared here, and nothing else.
"""

import enum
from typing import Any, ClassVar, NamedTuple

import numpy as np

from council.engine._position import PositionMembers
from council.engine.council_of_four_config import CouncilOfFourConfig

class Decision(enum.IntEnum):
    """The kinds of pending decision, numbered as the core numbers them."""

    pay_permit = 1
    pay_king = 2
    city_token = 3
    first_of_two_city_tokens = 4
    second_of_two_city_tokens = 5
    free_permit = 6
    permit_bonus = 7

class ActionKindRange(NamedTuple):
    """The ids ``first .. first + size - 1`` of one kind of action."""

    name: str
    first: int
    size: int

# The action kinds in id order, indexed by the core's K_* numbers.
ACTION_KINDS: tuple[ActionKindRange, ...]
# Action id ranges by kind: the first id of each kind (council.engine.council_of_four_actions
# decodes them).
ACTION_OFFSETS: dict[str, int]
NUM_ACTIONS: int
# The names of the event kinds of the trace an apply writes (a position's events).
EVENT_KINDS: tuple[str, ...]
# The awards of final scoring, by an award event's first argument.
AWARD_NAMES: tuple[str, ...]
# The card counts (one per card kind) of each payment action.
PAYMENTS: tuple[tuple[int, ...], ...]
# The GameState struct as a NumPy structured dtype (the fields of CouncilOfFourState.to_raw).
STATE_DTYPE: np.dtype[np.void]

def rule_numbers() -> dict[str, Any]:
    """The rule numbers the core plays by, in the form of
    council.engine.council_of_four_board.RULE_NUMBERS."""

class CouncilOfFourState(PositionMembers):
    """A Council of Four position: a full state, or one seat's view of it (it meets
    council.engine.position.Position; the members every position has are PositionMembers')."""

    @classmethod
    def new_game(
        cls, config: CouncilOfFourConfig | None = None, seed: int = 0
    ) -> CouncilOfFourState: ...
    @property
    def config(self) -> CouncilOfFourConfig: ...
    def decision(self) -> tuple[str, int | None]: ...
    def random_playout(self, seed: int | None = None, max_actions: int = 1_000_000) -> int: ...
    @staticmethod
    def from_raw(raw: dict[str, Any]) -> CouncilOfFourState: ...
    def __eq__(self, other: object) -> bool: ...
    # Mutable: __hash__ raises TypeError (typeshed's spelling of an unhashable class).
    __hash__: ClassVar[None]  # type: ignore[assignment]
