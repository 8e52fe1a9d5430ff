"""Leduc poker's part of the search layer (``council.mcts.games``): the search's settings for
it, and its expert, a fixed rule of hand strength (not an equilibrium: Leduc's is not known
in closed form; ``council.mcts.exploitability`` measures how far any policy is from one).

The expert raises its strong hands, calls its middling ones and checks or folds the rest:
in the first round a King is strong, a Queen middling; in the second a pair is strong and a
card above the public card's rank middling.

>>> from council.engine._leduc_poker import LeducPokerState
>>> expert = LeducPokerExpertAgent()
>>> expert.act(LeducPokerState.from_deal([4, 0, 2], []).view(0), seed=1)  # a King: raise
2
>>> expert.act(LeducPokerState.from_deal([4, 0, 2], [2]).view(1), seed=1)  # a Jack: fold
0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from council.engine._leduc_poker import MAX_RAISES, LeducPokerState
from council.mcts.agents import (
    STRONG_V3,
    CheatingMCTS,
    ISMCTSAgent,
    PIMCAgent,
    RandomAgent,
    StrongV3Agent,
)
from council.mcts.games import register_search
from council.mcts.search import GameSettings, SearchConfig

__all__ = ["LEDUC_POKER_CONFIG", "LEDUC_POKER_V3_CONFIG", "LeducPokerExpertAgent", "hand_strength"]

FOLD, CALL, RAISE = 0, 1, 2
JACK, QUEEN, KING = 0, 1, 2


@dataclass(frozen=True)
class LeducPokerSettings(GameSettings):
    """Leduc poker's own search settings: none (its evaluation is the exact returns at the
    end, its rollouts uniform)."""

    game = "leduc-poker"


# Outcome-sampling Monte Carlo CFR over the whole hand from the deal (solver=mccfr): regret
# matching at every information set, half the iterations targeted at the seat's own
# position, VR-MCCFR baselines (0.1), the move drawn from its average strategy. UCB1 over
# the view or the hand did not become less exploitable with more iterations; this does
# (docs/results.md, "Leduc poker by Monte Carlo CFR"). The exact returns at the end: a
# hand is 8 actions at most.
LEDUC_POKER_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    rollout_actions=-1,
    search_root="hand",
    solver="mccfr",
    mccfr_baseline=0.1,
    play="sample",
)

# The search before mixed play and beliefs (issue #36), frozen as ``strong-v3``: UCB1 over
# the seat's view with c_uct 0.7 (Kuhn poker's, the rewards being chip gains mapped onto
# [0, 1] alike), the hidden cards dealt uniformly, the most visited move.
LEDUC_POKER_V3_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.7,
    rollout_actions=-1,
    search_root="view",
    smooth_eta=0.0,
    play="most_visited",
)
STRONG_V3["leduc-poker"] = (LEDUC_POKER_V3_CONFIG, 10000)


def hand_strength(view: LeducPokerState) -> int:
    """2 strong, 1 middling, 0 weak: the expert's reading of the seat to act's card."""
    rank = view.cards[view.current_player] // 2
    if view.round == 0:
        return {KING: 2, QUEEN: 1, JACK: 0}[rank]
    public = view.public_card // 2
    if rank == public:
        return 2
    return 1 if rank > public else 0


@dataclass(frozen=True)
class LeducPokerExpertAgent:
    """Plays ``hand_strength`` from its view: strong raises (calls once the round's raises
    are used up), middling checks or calls, weak checks or folds to a raise."""

    sees_true_state: ClassVar[bool] = False

    def act(self, view: LeducPokerState, seed: int) -> int:
        strength = hand_strength(view)
        if strength == 2:
            return RAISE if view.raises < MAX_RAISES else CALL
        facing = view.decision_name == "call"
        return FOLD if strength == 0 and facing else CALL


register_search(
    "leduc-poker",
    config=LEDUC_POKER_CONFIG,
    settings=LeducPokerSettings,
    agents={
        "random": RandomAgent,
        "expert": LeducPokerExpertAgent,
        "ismcts": ISMCTSAgent,
        "strong-v3": StrongV3Agent,
        "pimc": PIMCAgent,
        "cheat": CheatingMCTS,
    },
    table_size=2,
    # Chips: the win probability is the chips rescaled, (chips + 13) / 26, so the review's
    # win-probability thresholds in chips.
    review_thresholds={"inaccuracy": 1.3, "mistake": 2.6, "blunder": 3.9},
)
