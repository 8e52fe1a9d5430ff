"""Leduc poker's effects of an action (``Game.effects``; ``council.engine.effects``): the chips
a call or a raise puts into the pot, the pot, the public card once the first round ends, and
at the end who takes the pot (a fold, or a showdown naming the three cards: the showdown
shows them to both seats). Known effects (ListLegalActions) leave out what a card not yet
seen decides: the public card to come and who wins a showdown.

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
from council.engine.effects import EffectsBuilder
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

FOLD, CALL, RAISE = 0, 1, 2


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything; nothing here is secret from a seat once it happens);
    `known_only`: no public card to come, no showdown's winner."""
    p = before.current_player
    out = EffectsBuilder(before.n_players)
    word = before.action_to_text(action)  # fold, check, call or raise
    pot = after.pot
    out.effects.pot = pot
    chips = after.put_in[p] - before.put_in[p]
    if chips:
        out.seat(p).chips_bet = chips
        did = "raises" if action == RAISE else "calls"
        out.line(f"{did} {chips} chip{'s' if chips > 1 else ''}: the pot is {pot} chips", p)
    else:
        out.line({"fold": "folds: gives up the pot", "check": "checks"}[word], p)
    if after.round > before.round:
        if known_only:
            out.effects.partial = True  # the public card is not seen before it is shown
            return out.message()
        out.line(f"the public card: {CARD_NAMES[after.public_card]}")
    if not after.is_terminal():
        return out.message()
    if known_only and after.showed_down:
        out.effects.partial = True  # the other seat's card decides the showdown
        return out.message()
    scores = after.scores()
    for q, score in enumerate(scores):
        out.seat(q).score = score
    winners = after.winners()
    if after.showed_down:
        # A showdown shows both cards to both seats: every view names them.
        cards = " against ".join(CARD_NAMES[c] for c in after.cards)
        public = CARD_NAMES[after.public_card]
        if len(winners) > 1:
            out.line(f"showdown: {cards}, the public card {public}: a split pot, 0 each")
        else:
            won = f"takes the pot of {pot} chips, {scores[winners[0]]:+d}"
            out.line(f"showdown: {cards}, the public card {public}: {won}", winners[0])
    else:
        out.line(f"takes the pot of {pot} chips, {scores[winners[0]]:+d}", winners[0])
    return out.message()
