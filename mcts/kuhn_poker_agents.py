"""Kuhn poker's part of the search layer (``council.mcts.games``): the search's settings for
it, and its expert, which plays the game's known equilibrium (Kuhn, 1950).

The first seat's equilibria form one family, by ``alpha`` in [0, 1/3], the chance that it
bluffs a bet with a Jack; the second seat's strategy is unique. Every member gives the first
seat -1/18 chip a game (``equilibrium_value``; tests/engine/test_kuhn_poker.py).

>>> from fractions import Fraction
>>> equilibrium_value(Fraction(1, 6))
Fraction(-1, 18)
>>> from council.engine._kuhn_poker import KuhnPokerState
>>> state = KuhnPokerState.new_game(seed=3)  # seat 0 holds a Jack
>>> KuhnPokerExpertAgent(alpha=0.0).act(state.view(0), seed=1)  # never bluffs: pass
0
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations
from typing import ClassVar

from council.engine._kuhn_poker import KuhnPokerState
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

__all__ = [
    "KUHN_POKER_CONFIG",
    "KUHN_POKER_V3_CONFIG",
    "KuhnPokerExpertAgent",
    "bet_chance",
    "equilibrium_value",
]

J, Q, K = 0, 1, 2
PASS, BET = 0, 1


@dataclass(frozen=True)
class KuhnPokerSettings(GameSettings):
    """Kuhn poker's own search settings: none (its evaluation is the exact returns at the
    end, its rollouts uniform)."""

    game = "kuhn-poker"


# Every iteration plays the whole hand from the deal, both cards dealt at random and each
# seat's nodes keyed by its own card (search_root="hand": the opponent's bets and calls
# depend on its card, and the iterations that bet as the actual hand did weigh the
# opponent's cards), Smooth UCT at every node (eta 0.9 decaying to 0.1 by
# 1 / (1 + 0.002 sqrt(visits)): Heinrich & Silver 2015's schedule), UCB1's c 0.3, the move
# drawn from the visit shares (play="sample": an equilibrium mixes its bluffs and calls).
# Exact returns at the end (every rollout plays to it, uniformly). Each choice measured by
# exploitability (docs/results.md, "Mixed play and beliefs").
KUHN_POKER_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.3,
    rollout_actions=-1,
    search_root="hand",
    smooth_eta=0.9,
    smooth_gamma=0.1,
    smooth_d=0.002,
    play="sample",
)

# The search before mixed play and beliefs (issue #36), frozen as ``strong-v3`` at its
# strong budget: UCB1 over the seat's view, the other card dealt uniformly, the most
# visited move (exploitability 0.167).
KUHN_POKER_V3_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.7,
    rollout_actions=-1,
    search_root="view",
    smooth_eta=0.0,
    play="most_visited",
)
STRONG_V3["kuhn-poker"] = (KUHN_POKER_V3_CONFIG, 2000)


def bet_chance(card: int, history: tuple[int, ...], alpha: float | Fraction) -> float | Fraction:
    """The chance the equilibrium bets (or calls) with `card` after `history` (the actions
    so far: the seat to act is len(history) % 2), for the first seat's `alpha`."""
    third = Fraction(1, 3) if isinstance(alpha, Fraction) else 1 / 3
    if history == ():  # seat 0 opens: bluff a Jack at alpha, bet a King at 3 alpha
        return {J: alpha, Q: 0, K: 3 * alpha}[card]
    if history == (PASS, BET):  # seat 0 facing a bet: call with a Queen at alpha + 1/3
        return {J: 0, Q: alpha + third, K: 1}[card]
    if history == (PASS,):  # seat 1 after a check: bluff a Jack at 1/3, bet a King
        return {J: third, Q: 0, K: 1}[card]
    # seat 1 facing a bet: call with a Queen at 1/3
    return {J: 0, Q: third, K: 1}[card]


def equilibrium_value(alpha: float | Fraction) -> float | Fraction:
    """Seat 0's expected chips when both seats play the equilibrium, over the 6 deals, by
    exhaustive play of the rules core."""
    total: float | Fraction = 0

    def walk(state: KuhnPokerState, chance: float | Fraction) -> float | Fraction:
        if state.is_terminal():
            return chance * state.scores()[0]  # its chips (ints: exact with Fractions)
        card = state.cards[state.current_player]
        bet = bet_chance(card, tuple(state.history), alpha)
        return walk(state.child(BET), chance * bet) + walk(state.child(PASS), chance * (1 - bet))

    for cards in permutations((J, Q, K), 2):
        total += walk(KuhnPokerState.from_deal(list(cards), []), Fraction(1, 6))
    return total


@dataclass(frozen=True)
class KuhnPokerExpertAgent:
    """Plays the equilibrium (``bet_chance``) from its view, its own card and the betting,
    with the first seat's bluffing chance `alpha` (in [0, 1/3])."""

    alpha: float = 1 / 6

    sees_true_state: ClassVar[bool] = False

    def act(self, view: KuhnPokerState, seed: int) -> int:
        card = view.cards[view.current_player]
        chance = bet_chance(card, tuple(view.history), self.alpha)
        return BET if random.Random(seed).random() < chance else PASS


register_search(
    "kuhn-poker",
    config=KUHN_POKER_CONFIG,
    settings=KuhnPokerSettings,
    agents={
        "random": RandomAgent,
        "expert": KuhnPokerExpertAgent,
        "ismcts": ISMCTSAgent,
        "strong-v3": StrongV3Agent,
        "pimc": PIMCAgent,
        "cheat": CheatingMCTS,
    },
    table_size=2,
    # Chips: the win probability is the chips rescaled, (chips + 2) / 4, so the review's
    # win-probability thresholds in chips.
    review_thresholds={"inaccuracy": 0.2, "mistake": 0.4, "blunder": 0.6},
)
