"""Type stubs for the compiled tree search (mcts/_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any

from council.engine import Position
from council.mcts.policy_model import PolicyModel
from council.mcts.value_model import ValueModel

EVALUATORS: tuple[str, ...]
POLICIES: tuple[str, ...]
# Where every iteration starts (SearchConfig.search_root).
SEARCH_ROOTS: tuple[str, ...]
# How search_root=hand chooses at an information set (SearchConfig.solver).
SOLVERS: tuple[str, ...]
# The SearchConfig settings the search itself reads (each game's module reads its own).
SETTINGS: tuple[str, ...]
# The search modes (Tree's `mode`).
INFOSET: int
FIXED: int

class StopFlag:
    """Set from any thread to stop the searches that share this flag."""

    value: int
    def set(self) -> None: ...
    def is_set(self) -> bool: ...

class Tree:
    """One search tree, grown by ``run``."""

    iterations: int
    elapsed: float
    def __init__(
        self,
        root: Position,
        mode: int,
        params: dict[str, Any],
        seed: int,
        max_nodes: int,
        stop: StopFlag | None = None,
        value_model: ValueModel | None = None,
        policy_model: PolicyModel | None = None,
        root_action: int = -1,
    ) -> None: ...
    def run(self, max_iterations: int = -1, time_limit: float = -1.0) -> int: ...
    @property
    def size(self) -> int: ...
    # (action, visits, availability, reward sum, win sum, margin sum) per root child.
    def root_children(self) -> list[tuple[int, int, int, float, float, float]]: ...
    def principal_variation(self, max_length: int = 32, first: int = -1) -> list[int]: ...
    def hand_line(self, max_length: int, first: int) -> list[int]: ...
    # solver=mccfr: the viewer's average strategy at its own position, by action.
    def average_policy(self) -> dict[int, float]: ...
    # With search_root=hand: every iteration plays the actual history.
    follow_history: bool

# (win chances, score margins) of a full position by its game's hand-set evaluation, one
# entry per seat.
def evaluate_state(
    position: Position, params: dict[str, Any]
) -> tuple[list[float], list[float]]: ...
