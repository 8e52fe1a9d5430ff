"""Kuhn poker's effects of an action (``Game.effects``; ``council.engine.effects``): the chip
a bet or a call puts into the pot, the pot, and at the end who takes it (a fold, or a
showdown naming both cards: the showdown shows them to both seats). Known effects
(ListLegalActions) leave out who wins a showdown: the other seat's card decides it.

>>> from council.engine._kuhn_poker import KuhnPokerState
>>> state = KuhnPokerState.new_game(seed=3)  # seat 0 holds J, seat 1 K
>>> state.apply(1)
>>> e = effects(state, state.child(1), 1, None, False)
>>> [line.text for line in e.lines], [(s.seat, s.score) for s in e.seats], e.pot
(['calls 1 chip: the pot is 4 chips', 'showdown: J against K: takes the pot of 4 chips, +2'], \
[(0, -2), (1, 2)], 4)
>>> effects(state, state.child(1), 1, 0, True).partial
True
"""

from __future__ import annotations

from typing import Any

from council.engine._kuhn_poker import CARD_NAMES
from council.engine.effects import EffectsBuilder
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

ANTE = 1
BET = 1  # action id of bet (a call facing a bet)


def _pot(state: Any) -> int:
    """The chips in the pot: both antes, and a chip for each bet or call."""
    return 2 * ANTE + sum(1 for a in state.history if a == BET)


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: no showdown's winner."""
    p = before.current_player
    out = EffectsBuilder(before.n_players)
    word = before.action_to_text(action)  # pass, bet, fold or call
    did = {"pass": "passes", "bet": "bets", "fold": "folds", "call": "calls"}[word]
    pot = _pot(after)
    out.effects.pot = pot
    if action == BET:
        out.seat(p).chips_bet = 1
        out.line(f"{did} 1 chip: the pot is {pot} chips", p)
    else:
        out.line(did if word == "pass" else f"{did}: gives up the pot", p)
    if not after.is_terminal():
        return out.message()
    if known_only and after.showed_down:
        out.effects.partial = True  # the other seat's card decides the showdown
        return out.message()
    scores = after.scores()
    winner = max(range(len(scores)), key=lambda q: scores[q])
    for q, score in enumerate(scores):
        out.seat(q).score = score
    if after.showed_down:
        # A showdown shows both cards to both seats: every view names them.
        cards = " against ".join(CARD_NAMES[c] for c in after.cards)
        out.line(f"showdown: {cards}: takes the pot of {pot} chips, {scores[winner]:+d}", winner)
    else:
        out.line(f"takes the pot of {pot} chips, {scores[winner]:+d}", winner)
    return out.message()
