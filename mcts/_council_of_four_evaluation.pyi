"""Type stubs for Council of Four's compiled position evaluation
(mcts/_council_of_four_evaluation.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from collections.abc import Iterable, Sequence

from council.engine._council_of_four import CouncilOfFourState
from council.mcts.policy_model import PolicyModel
from council.mcts.value_model import ValueModel

FEATURE_NAMES: tuple[str, ...]
ACTION_FEATURE_NAMES: tuple[str, ...]
MAX_LEAF_REDEALS: int

def policy_priors_of(
    state: CouncilOfFourState, actions: Sequence[int], model: PolicyModel
) -> list[float]: ...
def features(state: CouncilOfFourState) -> list[list[float]]: ...
def expert_choice(world: CouncilOfFourState, weights: Sequence[float]) -> int: ...
def action_feature_rows(state: CouncilOfFourState, actions: Iterable[int]) -> list[list[float]]: ...
def redealt_win_chances_of(
    state: CouncilOfFourState, viewer: int, model: ValueModel, redeals: int, seed: int
) -> list[float]: ...
def value_win_chances_of(state: CouncilOfFourState, model: ValueModel) -> list[float]: ...
