"""Type stubs for Council of Four's compiled position evaluation (mcts/_evaluation.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from collections.abc import Iterable, Sequence

from council.engine._core import State
from council.mcts.policy_model import PolicyModel
from council.mcts.value_model import ValueModel

FEATURE_NAMES: tuple[str, ...]
ACTION_FEATURE_NAMES: tuple[str, ...]
MAX_LEAF_REDEALS: int

def policy_priors_of(state: State, actions: Sequence[int], model: PolicyModel) -> list[float]: ...
def features(state: State) -> list[list[float]]: ...
def expert_choice(world: State, weights: Sequence[float]) -> int: ...
def action_feature_rows(state: State, actions: Iterable[int]) -> list[list[float]]: ...
def redealt_win_chances_of(
    state: State, viewer: int, model: ValueModel, redeals: int, seed: int
) -> list[float]: ...
def value_win_chances_of(state: State, model: ValueModel) -> list[float]: ...
