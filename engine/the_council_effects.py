"""The Council's effects of an action (``Game.effects``; ``council.engine.effects``).

A pick is secret until the round's picks are revealed together (TC5): its line names the
card only to a seat that may know it (the picker; everything for `seat` None); the last
pick of a round tells every seat's drafted card and chips. A bid is public. A reveal is
secret until the last seat of the event has bid: that action resolves the event
(``EventOutcome``: the chips bid against the event's rank, success or failure, who gains
or loses a rank in each of its suits, TC8 - TC11), the revealed cards then being public.
Known effects (ListLegalActions) leave out what others' secret choices decide: the other
seats' picks, an event's outcome.

>>> from council.engine import TheCouncilConfig, TheCouncilState
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
from council.engine.effects import EffectsBuilder, names, signed
from council.v1 import game_pb2 as pb
from council.v1 import the_council_pb2 as tc_pb

__all__ = ["effects"]

LOC = tc.LOCATIONS
DRAFTED, FACEDOWN, SPENT = LOC["drafted"], LOC["facedown"], LOC["spent"]
N_SUITS = len(tc.SUITS)
SUIT_FIELDS = tuple(s.lower() for s in tc.SUITS)  # SuitCounts' field names


def _suit_counts(message: tc_pb.SuitCounts, counts: list[int]) -> None:
    for field, n in zip(SUIT_FIELDS, counts, strict=True):
        setattr(message, field, n)


def _chips(counts: list[int]) -> str:
    """Chips by suit in words: ``+1 Moons chip, +2 Suns chips``."""
    return ", ".join(signed(n, f"{tc.SUITS[x]} chip") for x, n in enumerate(counts) if n)


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: only what no other seat's secret decides."""
    b, a = before.to_raw(), after.to_raw()
    n, p = b["n_players"], b["current"]
    out = EffectsBuilder(n)
    offsets = tc.ACTION_OFFSETS
    # Only the mover's own facts are surely known before others' secret choices are seen.
    seats = [p] if known_only else list(range(n))
    scores_before, scores_after = before.scores(), after.scores()
    for q in seats:
        e = out.seat(q)
        e.score = scores_after[q] - scores_before[q]
        _suit_counts(e.ranks, [a["ranks"][q][x] - b["ranks"][q][x] for x in range(N_SUITS)])
        _suit_counts(e.chips, [a["chips"][q][x] - b["chips"][q][x] for x in range(N_SUITS)])
        e.traitor_chips = a["traitors"][q] - b["traitors"][q]
        for counts in ("ranks", "chips"):  # unchanged: left out
            if not getattr(e, counts).ListFields():
                e.ClearField(counts)
    if action < offsets["bid"]:
        _pick(out, b, a, action - offsets["pick"], seat, known_only)
    elif action < offsets["end_bid"]:
        suit = action - offsets["bid"]
        event = tc.CARDS[b["event"]]
        bid = sum(a["bid"][q][x] for q in range(n) for x in event.suits)
        out.line(
            f"bids 1 {tc.SUITS[suit]} chip (the bid: {bid}; {event.name} needs {event.value})", p
        )
    elif action == offsets["end_bid"]:
        out.line("ends the bid: the cards to reveal are chosen next", p)
    elif b["bids_done"] + 1 < n:
        out.line("chooses the cards to reveal (secret until every seat has bid)", p)
    elif known_only:
        out.line("chooses the cards to reveal: the event is resolved", p)
    else:
        _resolve(out, b, a, action - offsets["reveal"])
    if known_only and len(seats) < n:  # other seats' secret choices decide more
        out.effects.partial = _resolves(b, action)
    if a["phase"] == tc.PHASES.index("over") and not known_only:
        final = ", ".join(f"seat {q} {points}" for q, points in enumerate(after.scores()))
        out.line(f"the empire collapses: final scores {final}")
        tie_break = _tie_break(a, after.scores(), after.winners())
        if tie_break:
            out.line(tie_break)
    return out.message()


def _tie_break(a: dict, scores: list[int], winners: list[int]) -> str:
    """What decided a tie for the highest score (TC13: the lowest-ranked card revealed in the
    last event, the earlier bidder at equal ranks; a shared win if none of them revealed
    one); "" when no seat tied with the winner."""
    top = max(scores)
    tied = [q for q, points in enumerate(scores) if points == top]
    if len(tied) < 2:
        return ""
    seats = " and ".join(f"seat {q}" for q in tied)
    low = a["low_card"]
    lowest = ", ".join(
        f"seat {q} {'nothing' if low[q] == tc.NO_CARD else tc.RANK_ORDER[low[q]]}" for q in tied
    )
    said = f"tie-break: {seats} tied at {top}; lowest card revealed in the last event: {lowest}"
    if len(winners) > 1:
        return f"{said}: none revealed a card, a shared win"
    (winner,) = winners
    equal = sum(low[q] == low[winner] for q in tied) > 1
    return f"{said}: seat {winner} wins" + (" (it bid first)" if equal else "")


def _resolves(b: dict, action: int) -> bool:
    """Whether an action ends a draft round or an event (others' secrets decide it)."""
    if action < tc.ACTION_OFFSETS["bid"]:
        return b["current"] == b["n_players"] - 1
    return action >= tc.ACTION_OFFSETS["reveal"] and b["bids_done"] + 1 == b["n_players"]


def _pick(
    out: EffectsBuilder, b: dict, a: dict, card: int, seat: int | None, known_only: bool
) -> None:
    p, n = b["current"], b["n_players"]
    if seat is None or seat == p:
        out.line(f"picks {tc.CARD_NAMES[card]} (secret until the round is revealed)", p)
    else:
        out.line("picks a card", p)
    if p < n - 1:
        return
    # The last pick of the round: every seat's pick is revealed and its chips taken.
    for q in [p] if known_only else range(n):
        drafted = [
            c for c in range(len(tc.CARDS)) if a["card_loc"][c] == DRAFTED + q != b["card_loc"][c]
        ]
        for c in drafted:
            chips = _chips([int(x in tc.CARDS[c].suits) for x in range(N_SUITS)])
            out.line(f"drafts {tc.CARD_NAMES[c]}: {chips}", q)
    if a["event"] >= 0 and a["event"] != b["event"] and not known_only:
        out.line(_event_line(a["event"]))


def _event_line(card: int) -> str:
    event = tc.CARDS[card]
    suits = names(tc.SUITS[x] for x in event.suits)
    return f"the event: {event.name} (rank {event.value}; {suits})"


def _resolve(out: EffectsBuilder, b: dict, a: dict, mask: int) -> None:
    """The last reveal of an event: the cards revealed and the event's outcome (the core's
    resolve_event, TC8 - TC11, told from the position before it)."""
    n, p = b["n_players"], b["current"]
    revealed: list[list[int]] = [[] for _ in range(n)]
    for c in range(len(tc.CARDS)):
        loc = b["card_loc"][c]
        if DRAFTED <= loc < FACEDOWN and b["card_pending"][c]:
            revealed[loc - DRAFTED].append(c)
    mine = [c for c in range(len(tc.CARDS)) if b["card_loc"][c] == DRAFTED + p]
    revealed[p] += [c for i, c in enumerate(mine) if mask >> i & 1]
    out.line("reveals last: the event is resolved", p)
    for q in range(n):
        if revealed[q]:
            out.line(f"reveals {names(tc.CARD_NAMES[c] for c in sorted(revealed[q]))}", q)
    event = tc.CARDS[b["event"]]
    outcome = out.effects.event
    outcome.event = event.name
    outcome.needed = event.value
    # Each seat's chips in each of the event's suits (Aces: unlimited) and its tie-breaker:
    # its lowest number card in that suit (TC10).
    amount = {(q, x): b["bid"][q][x] for q in range(n) for x in event.suits}
    ace = {(q, x): False for q in range(n) for x in event.suits}
    low = {(q, x): 99 for q in range(n) for x in event.suits}
    for q in range(n):
        for c in revealed[q]:
            card = tc.CARDS[c]
            for x in card.suits:
                if x not in event.suits:
                    continue
                if card.kind == "ace":
                    ace[q, x] = True
                elif card.kind == "pawn":
                    amount[q, x] += 1
                elif card.kind == "number":
                    low[q, x] = min(low[q, x], card.value)
    outcome.bid = sum(amount.values())
    outcome.ace = any(ace.values())
    outcome.succeeded = outcome.ace or outcome.bid >= event.value
    verdict = "succeeds" if outcome.succeeded else "fails"
    bid = "an Ace: unlimited chips" if outcome.ace else f"{outcome.bid} chips bid"
    out.line(f"{event.name} (rank {event.value}) {verdict}: {bid}")
    for x in event.suits:

        def key(q: int, x: int = x) -> tuple[bool, int, int]:
            return (ace[q, x], amount[q, x], -low[q, x])

        keys = [key(q) for q in range(n)]
        pick = max(keys) if outcome.succeeded else min(keys)
        suit = outcome.suits.add(suit=tc.SUITS[x])
        if keys.count(pick) > 1:
            out.line(f"{tc.SUITS[x]}: a tie, nobody {'gains' if outcome.succeeded else 'loses'}")
            continue
        q = keys.index(pick)
        if outcome.succeeded and (amount[q, x] > 0 or ace[q, x]):
            suit.seat = q
            out.line(f"bid the most {tc.SUITS[x]}: gains a {tc.SUITS[x]} rank", q)
        elif not outcome.succeeded and b["ranks"][q][x] > 0:
            suit.seat = q
            out.line(f"bid the fewest {tc.SUITS[x]}: trades a {tc.SUITS[x]} rank for a traitor", q)
    for q in range(n):
        for c in revealed[q]:
            card = tc.CARDS[c]
            if card.kind == "crown":
                out.line(f"{card.name}: +1 {tc.SUITS[card.suits[0]]} rank", q)
            elif card.kind == "court" and not outcome.succeeded:
                out.line(f"{card.name}: +1 traitor chip", q)
    if a["event"] >= 0 and a["event"] != b["event"] and a["hand"] == b["hand"]:
        out.line(_event_line(a["event"]))
    elif a["hand"] != b["hand"]:
        out.line(f"hand {a['hand']} begins: six cards to each seat")
