"""A War of Whispers' part of the search layer (``council.mcts.games``): the search's settings
for it, and its expert, a greedy player of its own loyalties.

The expert knows its own loyalty tokens (its view shows them) and plays for the empires it
is loyal to: it places agents in the councils of the empires it scores most for; in an
empire turn it takes the step that most raises its score if the game ended now (each
empire's cities times the loyalty of its token), looking through the steps of its own action
(an option, then its regions and count); it retrieves the agent and discards the card of the
empire it scores least for, and never swaps loyalty tokens (a swap reveals two).

>>> from council.engine._a_war_of_whispers import AWarOfWhispersState
>>> state = AWarOfWhispersState.new_game(2, seed=4)
>>> action = AWarOfWhispersExpertAgent().act(state.view(0), seed=1)
>>> state.action_to_text(action).startswith("deploy ")
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from council.engine._a_war_of_whispers import (
    ACTION_OFFSETS,
    LOYALTY_VALUES,
    AWarOfWhispersState,
    current_content,
)
from council.mcts.agents import CheatingMCTS, ISMCTSAgent, PIMCAgent, RandomAgent
from council.mcts.games import register_search
from council.mcts.search import GameSettings, SearchConfig

__all__ = [
    "A_WAR_OF_WHISPERS_CONFIG",
    "AWarOfWhispersExpertAgent",
    "AWarOfWhispersSettings",
    "score_now",
]

N_SEATS = 4
DONE = ACTION_OFFSETS["done"]
# How many of its own steps the expert looks through after a choice (an option's region,
# destination and count).
LOOKAHEAD = 3


@dataclass(frozen=True)
class AWarOfWhispersSettings(GameSettings):
    """A War of Whispers' own search settings, read by ``_a_war_of_whispers_search``."""

    game = "a-war-of-whispers"

    # The heuristic's score scale turning estimated scores into chances: scores run to a
    # few tens (loyalty x4 times a handful of cities).
    temperature: float = 4.0
    uniform_rollout: int = 0  # 1: uniformly random rollouts (for comparison)

    def validate(self) -> AWarOfWhispersSettings:
        if not self.temperature > 0:
            raise ValueError("temperature: must be > 0")
        if self.uniform_rollout not in (0, 1):
            raise ValueError(f"uniform_rollout: must be 0 or 1, got {self.uniform_rollout}")
        return self


# UCB1 over the heuristic at the leaves, after a short rollout by the cheap policy: a whole
# game is hundreds of actions, so a rollout to the end would cost most of an iteration.
A_WAR_OF_WHISPERS_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.7,
    rollout_actions=8,
    game=AWarOfWhispersSettings(),
)


def score_now(state: AWarOfWhispersState, player: int) -> int:
    """The player's score if the game ended now, from its own loyalty tokens (known in its
    view as in a full state)."""
    raw = state.to_raw()
    content = current_content()
    cities = [0] * 5
    for r, region in enumerate(content.regions):
        owner = raw["owner"][r]
        if owner >= 0:
            cities[owner] += region.cities
    slots = raw["loyalty"][player]
    score = sum(LOYALTY_VALUES[slots[e]] * cities[e] for e in range(5) if slots[e] >= 0)
    for r in raw["map_agent"][player]:
        if r >= 0 and raw["owner"][r] >= 0 and slots[raw["owner"][r]] >= 0:
            score += LOYALTY_VALUES[slots[raw["owner"][r]]]
    return score


def _own_values(view: AWarOfWhispersState, player: int) -> list[int]:
    """The multiplier of each empire's token of the player."""
    return [LOYALTY_VALUES[slot] for slot in view.to_raw()["loyalty"][player]]


@dataclass(frozen=True)
class AWarOfWhispersExpertAgent:
    """Greedy for its own loyalties (the module's docstring)."""

    sees_true_state: ClassVar[bool] = False

    def act(self, view: AWarOfWhispersState, seed: int) -> int:
        world = view.determinize(seed) if view.is_view else view.clone()
        me = world.current_player
        legal = world.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rng = random.Random(seed)
        values = _own_values(world, me)
        phase = world.phase
        if phase == "deploy":
            return max(legal, key=lambda a: (self._deploy_value(world, a, values), -a))
        if phase == "retrieve":
            return min(
                legal, key=lambda a: (values[(a - ACTION_OFFSETS["retrieve"]) // N_SEATS], a)
            )
        if phase == "cleanup":
            content = current_content()
            return min(
                legal,
                key=lambda a: (values[content.cards[a - ACTION_OFFSETS["discard"]].empire], a),
            )
        if phase == "swap":
            return DONE
        return self._best_step(world, me, legal, rng)

    @staticmethod
    def _deploy_value(world: AWarOfWhispersState, action: int, values: list[int]) -> float:
        if action >= ACTION_OFFSETS["deploy_map"]:
            region = action - ACTION_OFFSETS["deploy_map"]
            owner = world.regions()[region][0]
            return values[owner] - 0.5 if owner >= 0 else -10.0
        empire, seat = divmod(action - ACTION_OFFSETS["deploy"], N_SEATS)
        return values[empire] - 0.1 * seat  # the earlier seats act first

    def _best_step(
        self, world: AWarOfWhispersState, me: int, legal: list[int], rng: random.Random
    ) -> int:
        best, best_value = [], float("-inf")
        for action in legal:
            value = self._value_after(world.child(action), me, LOOKAHEAD)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-9:
                best.append(action)
        # Among equals, prefer acting to passing and to spending cards.
        acting = [a for a in best if a < ACTION_OFFSETS["play"]]
        return rng.choice(acting or best)

    def _value_after(self, state: AWarOfWhispersState, me: int, depth: int) -> float:
        """My score after my own steps that follow (the best of them), `depth` deep."""
        if (
            depth == 0
            or state.is_terminal()
            or state.current_player != me
            or state.phase != "turns"
            or state.decision_name in ("choose", "after")
        ):
            return score_now(state, me)
        return max(self._value_after(state.child(a), me, depth - 1) for a in state.legal_actions())


register_search(
    "a-war-of-whispers",
    config=A_WAR_OF_WHISPERS_CONFIG,
    settings=AWarOfWhispersSettings,
    agents={
        "random": RandomAgent,
        "expert": AWarOfWhispersExpertAgent,
        "ismcts": ISMCTSAgent,
        "pimc": PIMCAgent,
        "cheat": CheatingMCTS,
    },
    table_size=4,
    # Points (loyalty times cities): not yet measured by bench/review_thresholds.py; a city
    # of a x2 empire, of a x4 one, and two of a x4 one.
    review_thresholds={"inaccuracy": 2.0, "mistake": 4.0, "blunder": 8.0},
)
