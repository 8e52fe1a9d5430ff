"""Leduc poker's effects of an action (``Game.effects``; ``council.engine.effects``): the chips
a call or a raise puts into the pot, the pot, the public card once the first round ends, and
at the end who takes the pot (a fold, or a showdown naming the three cards: the showdown
shows them to both seats), told from the action's event trace (the core's LE_* events).
Known effects (ListLegalActions) leave out what a card not yet seen decides: the public card
to come and who wins a showdown.

>>> from council.engine._leduc_poker import LeducPokerState
>>> state = LeducPokerState.from_deal([4, 0, 2], [2])  # K1, J1, public Q1; seat 0 raised
>>> e = effects(state, state.child(1), 1, None, False)
>>> [line.text for line in e.lines], [(s.seat, s.chips_bet) for s in e.seats], e.pot
(['calls 2 chips: the pot is 6 chips', 'the public card: Q1'], [(1, 2)], 6)
>>> effects(state, state.child(1), 1, 1, True).partial
True
"""

from __future__ import annotations

from typing import Any

from council.engine._leduc_poker import CARD_NAMES
from council.engine.effects import EffectsBuilder, Trace
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

# What the mover did, by the kind of its event.
_DID = {"fold": "folds: gives up the pot", "check": "checks", "call": "calls", "raise": "raises"}


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything; nothing here is secret from a seat once it happens);
    `known_only`: no public card to come, no showdown's winner."""
    trace = Trace(after, action)
    p = trace.mover
    out = EffectsBuilder(before.n_players)
    move = trace.events[1]  # the mover's fold, check, call or raise
    if move.kind in ("call", "raise"):
        chips, pot = move.args[0], move.args[1]
        out.seat(p).chips_bet = chips
        out.line(
            f"{_DID[move.kind]} {chips} chip{'s' if chips > 1 else ''}: the pot is {pot} chips", p
        )
    else:
        pot = move.args[0]
        out.line(_DID[move.kind], p)
    out.effects.pot = pot
    if trace.has("public_card"):
        if known_only:
            out.effects.partial = True  # the public card is not seen before it is shown
            return out.message()
        out.line(f"the public card: {CARD_NAMES[trace.of('public_card')[0].args[0]]}")
    if not (trace.has("takes_pot") or trace.has("split_pot")):
        return out.message()
    showdown = trace.of("showdown")
    if known_only and showdown:
        out.effects.partial = True  # the other seat's card decides the showdown
        return out.message()
    for e in trace.of("score"):
        out.seat(e.seat).score = e.args[0]
    won = trace.of("takes_pot")
    takes = f"takes the pot of {won[0].args[0]} chips, {won[0].args[1]:+d}" if won else ""
    if showdown:
        # A showdown shows both cards to both seats: every view names them.
        seat0, seat1, public = showdown[0].args[:3]
        said = f"showdown: {CARD_NAMES[seat0]} against {CARD_NAMES[seat1]}, the public card "
        if not won:
            out.line(f"{said}{CARD_NAMES[public]}: a split pot, 0 each")
        else:
            out.line(f"{said}{CARD_NAMES[public]}: {takes}", won[0].seat)
    else:
        out.line(takes, won[0].seat)
    return out.message()
