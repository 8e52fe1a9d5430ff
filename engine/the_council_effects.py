"""The Council's effects of an action (``Game.effects``; ``council.engine.effects``).

A pick is secret until the round's picks are revealed together (TC5): its line names the
card only to a seat that may know it (the picker; everything for `seat` None); the last
pick of a round tells every seat's drafted card and chips. A bid is public. A reveal is
secret until the last seat of the event has bid: that action resolves the event
(``EventOutcome``: the chips bid against the event's rank, success or failure, who gains
or loses a rank in each of its suits, TC8 - TC11), the revealed cards then being public.
Known effects (ListLegalActions) leave out what others' secret choices decide: the other
seats' picks, an event's outcome. Everything is told from the action's event trace (the
core's TE_* events, ``council.engine.effects.Trace``): the picks, drafts, chips, the event's
resolution as ``resolve_event`` ran it.

>>> from council.engine.the_council import TheCouncilConfig, TheCouncilState
>>> state = TheCouncilState.new_game(TheCouncilConfig(players=3), seed=1)
>>> after = state.child(state.legal_actions()[0])
>>> [line.text for line in effects(state, after, state.legal_actions()[0], 1, False).lines]
['picks a card']
>>> [line.text for line in effects(state, after, state.legal_actions()[0], 0, False).lines]
['picks The Battle (secret until the round is revealed)']
"""

from __future__ import annotations

from typing import Any

from council.engine import _the_council as tc
from council.engine.effects import EffectsBuilder, Event, Trace, names, signed
from council.v1 import game_pb2 as pb
from council.v1 import the_council_pb2 as tc_pb

__all__ = ["effects"]

N_SUITS = len(tc.SUITS)
SUIT_FIELDS = tuple(s.lower() for s in tc.SUITS)  # SuitCounts' field names


def _suit_counts(message: tc_pb.SuitCounts, counts: list[int]) -> None:
    for field, n in zip(SUIT_FIELDS, counts, strict=True):
        setattr(message, field, n)


def _chips(counts: list[int]) -> str:
    """Chips by suit in words: ``+1 Moons chip, +2 Suns chips``."""
    return ", ".join(signed(n, f"{tc.SUITS[x]} chip") for x, n in enumerate(counts) if n)


def _by_suit(trace: Trace, kind: str, seat: int) -> list[int]:
    """`seat`'s changes by suit from its events of `kind` (args: suit, change)."""
    counts = [0] * N_SUITS
    for e in trace.of(kind, seat):
        counts[e.args[0]] += e.args[1]
    return counts


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: only what no other seat's secret decides."""
    trace = Trace(after, action)
    n, p = before.n_players, trace.mover
    out = EffectsBuilder(n)
    # Only the mover's own facts are surely known before others' secret choices are seen.
    seats = [p] if known_only else list(range(n))
    for q in seats:
        e = out.seat(q)
        e.score = trace.total("score", q)
        _suit_counts(e.ranks, _by_suit(trace, "rank", q))
        _suit_counts(e.chips, _by_suit(trace, "chips", q))
        e.traitor_chips = trace.total("traitor", q)
        for counts in ("ranks", "chips"):  # unchanged: left out
            if not getattr(e, counts).ListFields():
                e.ClearField(counts)
    resolves = trace.has("draft") or trace.has("outcome")  # others' secrets decide it
    if trace.has("pick"):
        _pick(out, trace, seat, seats, known_only)
    elif trace.has("bid"):
        (bid,) = trace.of("bid")
        suit, total, needed, event = bid.args
        out.line(
            f"bids 1 {tc.SUITS[suit]} chip (the bid: {total}; {tc.CARD_NAMES[event]} needs "
            f"{needed})",
            p,
        )
    elif trace.has("end_bid"):
        out.line("ends the bid: the cards to reveal are chosen next", p)
    elif not trace.has("outcome"):
        out.line("chooses the cards to reveal (secret until every seat has bid)", p)
    elif known_only:
        out.line("chooses the cards to reveal: the event is resolved", p)
    else:
        _resolve(out, trace, n)
    if known_only and len(seats) < n:
        out.effects.partial = resolves
    if trace.has("winners") and not known_only:
        finals = trace.of("final")
        final = ", ".join(f"seat {e.seat} {e.args[0]}" for e in finals)
        out.line(f"the empire collapses: final scores {final}")
        tie_break = _tie_break(finals, trace.of("winners")[0].args[0])
        if tie_break:
            out.line(tie_break)
    return out.message()


def _tie_break(finals: list[Event], winners_mask: int) -> str:
    """What decided a tie for the highest score (TC13: the lowest-ranked card revealed in the
    last event, the earlier bidder at equal ranks; a shared win if none of them revealed
    one); "" when no seat tied with the winner. `finals`: each seat's final event (its score,
    its lowest card of the last event)."""
    scores = [e.args[0] for e in finals]
    low = [e.args[1] for e in finals]
    winners = [q for q in range(len(finals)) if winners_mask >> q & 1]
    top = max(scores)
    tied = [q for q, points in enumerate(scores) if points == top]
    if len(tied) < 2:
        return ""
    seats = " and ".join(f"seat {q}" for q in tied)
    lowest = ", ".join(
        f"seat {q} {'nothing' if low[q] == tc.NO_CARD else tc.RANK_ORDER[low[q]]}" for q in tied
    )
    said = f"tie-break: {seats} tied at {top}; lowest card revealed in the last event: {lowest}"
    if len(winners) > 1:
        return f"{said}: none revealed a card, a shared win"
    (winner,) = winners
    equal = sum(low[q] == low[winner] for q in tied) > 1
    return f"{said}: seat {winner} wins" + (" (it bid first)" if equal else "")


def _pick(
    out: EffectsBuilder, trace: Trace, seat: int | None, seats: list[int], known_only: bool
) -> None:
    p = trace.mover
    (pick,) = trace.of("pick")
    if seat is None or seat == p:
        out.line(f"picks {tc.CARD_NAMES[pick.args[0]]} (secret until the round is revealed)", p)
    else:
        out.line("picks a card", p)
    # The last pick of the round: every seat's pick is revealed and its chips taken (each
    # draft's chips are the events that follow it).
    drafted: list[tuple[int, int, list[int]]] = []
    for e in trace.events:
        if e.kind == "draft":
            drafted.append((e.seat, e.args[0], [0] * N_SUITS))
        elif e.kind == "chips" and drafted:
            drafted[-1][2][e.args[0]] += e.args[1]
    for q in seats:
        for _, card, chips in sorted(d for d in drafted if d[0] == q):
            out.line(f"drafts {tc.CARD_NAMES[card]}: {_chips(chips)}", q)
    if trace.has("event") and not known_only:
        out.line(_event_line(trace.of("event")[0].args[0]))


def _event_line(card: int) -> str:
    event = tc.CARDS[card]
    suits = names(tc.SUITS[x] for x in event.suits)
    return f"the event: {event.name} (rank {event.value}; {suits})"


def _resolve(out: EffectsBuilder, trace: Trace, n: int) -> None:
    """The last reveal of an event: the cards revealed and the event's outcome, as the
    core's resolve_event wrote them (TC8 - TC11)."""
    out.line("reveals last: the event is resolved", trace.mover)
    for q in range(n):
        revealed = sorted(e.args[0] for e in trace.of("reveal", q))
        if revealed:
            out.line(f"reveals {names(tc.CARD_NAMES[c] for c in revealed)}", q)
    (result,) = trace.of("outcome")
    card, bid, ace, succeeded = result.args
    event = tc.CARDS[card]
    outcome = out.effects.event
    outcome.event = event.name
    outcome.needed = event.value
    outcome.bid = bid
    outcome.ace = bool(ace)
    outcome.succeeded = bool(succeeded)
    verdict = "succeeds" if succeeded else "fails"
    chips = "an Ace: unlimited chips" if ace else f"{bid} chips bid"
    out.line(f"{event.name} (rank {event.value}) {verdict}: {chips}")
    for e in trace.of("suit"):  # one per suit of the event, in suit order (TC10)
        x, tied = e.args[0], e.args[1]
        suit = outcome.suits.add(suit=tc.SUITS[x])
        if tied:
            out.line(f"{tc.SUITS[x]}: a tie, nobody {'gains' if succeeded else 'loses'}")
        elif e.seat >= 0:
            suit.seat = e.seat
            if succeeded:
                out.line(f"bid the most {tc.SUITS[x]}: gains a {tc.SUITS[x]} rank", e.seat)
            else:
                out.line(
                    f"bid the fewest {tc.SUITS[x]}: trades a {tc.SUITS[x]} rank for a traitor",
                    e.seat,
                )
    for q in range(n):
        for card, what in sorted(
            [(e.args[0], "crown") for e in trace.of("crown", q)]
            + [(e.args[0], "court") for e in trace.of("court", q)]
        ):
            if what == "crown":
                out.line(f"{tc.CARD_NAMES[card]}: +1 {tc.SUITS[tc.CARDS[card].suits[0]]} rank", q)
            else:
                out.line(f"{tc.CARD_NAMES[card]}: +1 traitor chip", q)
    if trace.has("new_hand"):
        out.line(f"hand {trace.of('new_hand')[0].args[0]} begins: six cards to each seat")
    elif trace.has("event"):
        out.line(_event_line(trace.of("event")[0].args[0]))
