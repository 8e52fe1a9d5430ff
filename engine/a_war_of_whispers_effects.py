"""A War of Whispers' effects of an action (``Game.effects``; ``council.engine.effects``), told
from the action's event trace (the core's AE_* events): agents placed, taken back, swapped or
moved; each region whose banners changed (an add, an attack's losses, a supply check); cards
drawn (their empire; which cards, to the drawer only) and discarded; loyalty tokens swapped
and revealed; the empire turn or the round that begins; the final scores. Known effects
(ListLegalActions) leave out what chance decides: the cards a draw brings (and so whether it
lets a later seat act), marked ``partial``.

>>> from council.engine._a_war_of_whispers import AWarOfWhispersState
>>> state = AWarOfWhispersState.new_game(2, seed=3)
>>> action = state.action_from_text("deploy lion marshal")
>>> [line.text for line in effects(state, state.child(action), action, None).lines]
['places an agent on the lion marshal']
"""

from __future__ import annotations

from typing import Any

from council.engine._a_war_of_whispers import current_content
from council.engine.a_war_of_whispers_content import EMPIRES, SEATS
from council.engine.effects import EffectsBuilder, Trace
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

_N_SEATS = len(SEATS)


def _seat_name(i: int) -> str:
    return f"{EMPIRES[i // _N_SEATS]} {SEATS[i % _N_SEATS]}"


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything: the drawn cards by name); `known_only`: nothing chance
    decides (a draw's cards, and what follows them)."""
    trace = Trace(after, action)
    content = current_content()
    out = EffectsBuilder(before.n_players)
    for e in trace.of("agent"):
        where, was, now = _seat_name(e.args[0]), e.args[1], e.args[2]
        if was < 0:
            out.line(f"places an agent on the {where}", now)
        elif now < 0:
            out.line(f"takes back the agent on the {where}", was)
        else:
            out.line(f"the {where} now holds player {now}'s agent", now)
    for e in trace.of("map_agent"):
        if e.args[0] >= 0:
            out.line(f"places an agent on {content.regions[e.args[0]].name}", e.seat)
    for e in trace.of("region"):
        r, owner, banners, was = e.args
        name = content.regions[r].name
        if owner < 0:
            out.line(f"{name} is emptied ({was} banners gone)")
        else:
            out.line(f"{name}: {EMPIRES[owner]} {banners} banners (was {was})")
    drawn = trace.of("draw")
    if drawn and known_only:
        out.effects.partial = True  # the cards a draw brings are chance
    # One line per drawer and deck: how many, and which to the drawer alone.
    decks: dict[tuple[int, int], list[int]] = {}
    for e in [] if known_only else drawn:
        decks.setdefault((e.seat, e.args[0]), []).append(e.args[1])
    for (drawer, empire), cards in decks.items():
        out.seat(drawer).a_war_of_whispers.cards_drawn += len(cards)
        names = [content.cards[c].name for c in cards if c >= 0]
        named = f": {', '.join(names)}" if seat in (None, drawer) and names else ""
        plural = "card" if len(cards) == 1 else "cards"
        out.line(f"draws {len(cards)} {EMPIRES[empire]} {plural}{named}", drawer)
    for e in trace.of("discard"):
        out.seat(e.seat).a_war_of_whispers.cards_discarded += 1
        out.line(f"discards {content.cards[e.args[0]].name}", e.seat)
    for e in trace.of("loyalty_swap"):
        a, b = EMPIRES[e.args[0]], EMPIRES[e.args[1]]
        out.line(f"swaps the {a} and {b} loyalty tokens: both revealed", e.seat)
    if known_only and (drawn or trace.has("score")):
        out.effects.partial = True
        return out.message()
    for e in trace.of("round"):
        out.line(f"round {e.args[0]} begins")
    for e in trace.of("empire_turn"):
        out.line(f"the {EMPIRES[e.args[0]]} empire's turn")
    finals = trace.of("score")
    for e in finals:
        out.seat(e.seat).score = e.args[0]
        out.line(f"scores {e.args[0]}", e.seat)
    if finals:
        mask = trace.of("winners")[0].args[0]
        winners = [e.seat for e in finals if mask >> e.seat & 1]
        out.line(f"won by {', '.join(f'seat {p}' for p in winners)}")
        tie_break = _tie_break(finals, winners)
        if tie_break:
            out.line(tie_break)
    return out.message()


def _tie_break(finals: list[Any], winners: list[int]) -> str:
    """What decided a tie for the highest score (AW20: the fewest loyalty swaps, then the most
    cards in hand, then a shared win); "" when no seat tied with the winner. `finals`:
    each seat's score event (score, swaps, cards in hand)."""
    top = max(e.args[0] for e in finals)
    tied = [e for e in finals if e.args[0] == top]
    if len(tied) < 2:
        return ""
    players = " and ".join(f"seat {e.seat}" for e in tied)
    said = f"tie-break: {players} tied at {top}"
    fewest = min(e.args[1] for e in tied)
    still = [e for e in tied if e.args[1] == fewest]
    if len(still) < len(tied):
        counts = ", ".join(f"seat {e.seat} {e.args[1]}" for e in tied)
        said += f"; loyalty swaps made: {counts}"
        if len(still) == 1:
            return f"{said}: seat {still[0].seat} made the fewest and wins"
    if len(still) > 1:
        cards = ", ".join(f"seat {e.seat} {e.args[2]}" for e in still)
        said += f"; cards in hand: {cards}"
    if len(winners) == 1:
        return f"{said}: seat {winners[0]} holds the most and wins"
    return f"{said}: still tied, a shared win"
