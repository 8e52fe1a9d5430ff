"""Council of Four's own search settings (``CouncilOfFourSettings``, read by
``_council_of_four_search``), and its frozen baselines' configs (``V1_CONFIG``,
``STRONG_V3_CONFIG``). Registered with its game in ``council_of_four_agents.py``.

A spec or preset sets one rollout weight as ``kind_<name>``:

>>> CouncilOfFourSettings().with_settings({"kind_pay": 2.0, "w_coins": 0.2}).kind_weights[-4:]
(('pay', 2.0), ('choose_token', 1.0), ('choose_free_permit', 1.0), ('choose_permit_bonus', 1.0))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from council.mcts import _council_of_four_evaluation
from council.mcts.search import GameSettings, SearchConfig

__all__ = ["DEFAULT_KIND_WEIGHTS", "STRONG_V3_CONFIG", "V1_CONFIG", "CouncilOfFourSettings"]

DEFAULT_KIND_WEIGHTS = {
    "end_turn": 4.0,
    "elect": 1.0,
    "acquire": 3.0,
    "build_permit": 8.0,
    "build_king": 4.0,
    "engage": 0.2,
    "change": 0.1,
    "quick_elect": 0.2,
    "extra_main": 1.0,
    "pay": 1.0,
    "choose_token": 1.0,
    "choose_free_permit": 1.0,
    "choose_permit_bonus": 1.0,
}

# The rollout weights of each action kind as (name, weight) pairs in the order above: a
# tuple, so that the settings hash.
KindWeights = tuple[tuple[str, float], ...]

# A spec's or preset's key for one rollout weight: kind_<name>.
KIND_PREFIX = "kind_"


def _kind_weight_pairs(weights: Mapping[str, float] | KindWeights) -> KindWeights:
    """(name, weight) pairs in DEFAULT_KIND_WEIGHTS's order (unknown names after, for
    validate to name)."""
    order = {name: i for i, name in enumerate(DEFAULT_KIND_WEIGHTS)}
    return tuple(sorted(dict(weights).items(), key=lambda item: order.get(item[0], len(order))))


@dataclass(frozen=True)
class CouncilOfFourSettings(GameSettings):
    """Council of Four's evaluation settings (defaults tuned by measured strength).

    ``kind_weights`` takes a mapping or (name, weight) pairs and keeps pairs, so that the
    settings hash (a preset or agent can key a cache by its config):

    >>> CouncilOfFourSettings(kind_weights=dict(DEFAULT_KIND_WEIGHTS)) == CouncilOfFourSettings()
    True
    """

    game = "council-of-four"

    tree_payments: int = 0  # 1: payments below the root are searched; 0: the prior's choice
    uniform_rollout: int = 0  # 1: uniformly random rollouts (for comparison)
    temperature: float = 12.0  # heuristic evaluator: score scale turning estimates into chances
    # learned evaluator: > 0 values a leaf by the mean over this many fresh deals of the
    # cards the searching seat cannot see (0: by the sampled world alone)
    leaf_redeals: int = 0
    pay_decay: float = 0.3
    w_coins: float = 0.15
    w_assistants: float = 0.3
    w_cards: float = 0.3
    w_emporium: float = 4.0
    w_permit_unused: float = 1.5
    w_nobility: float = 0.3
    # (name, weight) pairs once built (a mapping is taken too)
    kind_weights: Mapping[str, float] | KindWeights = tuple(DEFAULT_KIND_WEIGHTS.items())

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind_weights", _kind_weight_pairs(self.kind_weights))

    @classmethod
    def setting_types(cls) -> dict[str, str]:
        plain = {k: v for k, v in super().setting_types().items() if k != "kind_weights"}
        return plain | {KIND_PREFIX + k: "float" for k in DEFAULT_KIND_WEIGHTS}

    def with_settings(self, settings: Mapping[str, Any]) -> GameSettings:
        """``kind_<name>`` sets one rollout weight; the others as GameSettings's."""
        plain = {k: v for k, v in settings.items() if not k.startswith(KIND_PREFIX)}
        kinds = {k[len(KIND_PREFIX) :]: v for k, v in settings.items() if k not in plain}
        for name in kinds:
            if name not in DEFAULT_KIND_WEIGHTS:
                raise self.unknown(KIND_PREFIX + name)
        if kinds:
            plain["kind_weights"] = dict(plain.get("kind_weights", self.kind_weights)) | kinds
        return super().with_settings(plain)

    def changes_from(self, base: GameSettings) -> dict[str, Any]:
        """As GameSettings's, a changed rollout weight as ``kind_<name>``."""
        assert isinstance(base, CouncilOfFourSettings)
        changed = super().changes_from(base)
        weights, defaults = changed.pop("kind_weights", ()), dict(base.kind_weights)
        return changed | {KIND_PREFIX + k: v for k, v in weights if defaults.get(k) != v}

    def validate(self) -> CouncilOfFourSettings:
        if self.tree_payments not in (0, 1):
            raise ValueError(f"tree_payments: must be 0 or 1, got {self.tree_payments}")
        most = _council_of_four_evaluation.MAX_LEAF_REDEALS
        if not (isinstance(self.leaf_redeals, int) and 0 <= self.leaf_redeals <= most):
            raise ValueError(
                f"leaf_redeals: must be an integer in 0..{most}, got {self.leaf_redeals}"
            )
        if not self.temperature > 0:
            raise ValueError("temperature: must be > 0")
        weights = dict(self.kind_weights)
        if set(weights) != set(DEFAULT_KIND_WEIGHTS):
            raise ValueError(f"kind_weights: needs exactly {sorted(DEFAULT_KIND_WEIGHTS)}")
        if any(not w >= 0 for w in weights.values()):
            raise ValueError("kind_weights: weights must be >= 0")
        return self


# Version 0.1's rollout weights (the frozen baselines' below).
V1_KIND_WEIGHTS = {
    "end_turn": 4.0,
    "elect": 1.0,
    "acquire": 3.0,
    "build_permit": 8.0,
    "build_king": 4.0,
    "engage": 0.2,
    "change": 0.1,
    "quick_elect": 0.2,
    "extra_main": 1.0,
    "pay": 1.0,
    "choose_token": 1.0,
    "choose_free_permit": 1.0,
    "choose_permit_bonus": 1.0,
}

# Version 0.1's search, frozen as the baseline every change is measured against (the agent
# ``ismcts-v1``): the hand-set heuristic evaluation with its tuned settings, written out so
# that changing the defaults above never changes it.
V1_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.35,
    rollout_actions=10,
    finish_decisions=0,
    margin_weight=0.5,
    margin_scale=15.0,
    game=CouncilOfFourSettings(
        tree_payments=1,
        uniform_rollout=0,
        temperature=12.0,
        pay_decay=0.3,
        w_coins=0.15,
        w_assistants=0.3,
        w_cards=0.3,
        w_emporium=4.0,
        w_permit_unused=1.5,
        w_nobility=0.3,
        kind_weights=V1_KIND_WEIGHTS,
    ),
)


# Council of Four's strong preset as it searched before mixed play and beliefs (issue
# #36), written out so that changing the defaults never changes it: the agent
# ``strong-v3``'s settings in this game (with the shipped models), at 5,000 iterations.
STRONG_V3_CONFIG = SearchConfig(
    evaluator="learned",
    policy="learned",
    c_puct=1.0,
    fpu_reduction=0.3,
    c_uct=0.2,
    rollout_actions=0,
    finish_decisions=1,
    margin_weight=0.0,
    margin_scale=15.0,
    search_root="view",
    smooth_eta=0.0,
    play="most_visited",
    game=CouncilOfFourSettings(
        tree_payments=0,
        uniform_rollout=0,
        temperature=12.0,
        leaf_redeals=0,
        pay_decay=0.3,
        w_coins=0.15,
        w_assistants=0.3,
        w_cards=0.3,
        w_emporium=4.0,
        w_permit_unused=1.5,
        w_nobility=0.3,
        kind_weights=V1_KIND_WEIGHTS,
    ),
)
