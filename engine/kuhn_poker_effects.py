"""Kuhn poker's effects of an action (``Game.effects``; ``council.engine.effects``): the chip
a bet or a call puts into the pot, the pot, and at the end who takes it (a fold, or a
showdown naming both cards: the showdown shows them to both seats), told from the action's
event trace (the core's KE_* events). Known effects (ListLegalActions) leave out who wins a
showdown: the other seat's card decides it.

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
from council.engine.effects import EffectsBuilder, Trace
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

# What the mover did, by the kind of its event.
_DID = {"check": "passes", "bet": "bets", "fold": "folds", "call": "calls"}


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: no showdown's winner."""
    trace = Trace(after, action)
    p = trace.mover
    out = EffectsBuilder(before.n_players)
    move = trace.events[1]  # the mover's check, bet, fold or call
    did = _DID[move.kind]
    if move.kind in ("bet", "call"):
        chips, pot = move.args[0], move.args[1]
        out.seat(p).chips_bet = chips
        out.line(f"{did} {chips} chip: the pot is {pot} chips", p)
    else:
        pot = move.args[0]
        out.line(did if move.kind == "check" else f"{did}: gives up the pot", p)
    out.effects.pot = pot
    if not trace.has("takes_pot"):
        return out.message()
    showdown = trace.of("showdown")
    if known_only and showdown:
        out.effects.partial = True  # the other seat's card decides the showdown
        return out.message()
    for e in trace.of("score"):
        out.seat(e.seat).score = e.args[0]
    (won,) = trace.of("takes_pot")
    takes = f"takes the pot of {won.args[0]} chips, {won.args[1]:+d}"
    if showdown:
        # A showdown shows both cards to both seats: every view names them.
        cards = " against ".join(CARD_NAMES[c] for c in showdown[0].args[:2])
        out.line(f"showdown: {cards}: {takes}", won.seat)
    else:
        out.line(takes, won.seat)
    return out.message()
