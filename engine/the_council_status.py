"""Consistency of a position of The Council: ``problems(state)``, as Council of Four's
``council.engine._council_of_four_status.problems``.

Contract
--------
``problems(state)`` returns every consistency problem of a full state or a view as
``(field path, problem sentence)`` pairs, ``[]`` for a consistent position. Paths are the
``GameState`` message's (``the_council.packs[2].size``), so that the reader
(``serialize_the_council.read``) reports them as they are: it fills the state from the
message, naming shape problems (unknown names, ranges, a card named in two places), then
asks this module. ``check(state, unknown_cards)`` is the reader's form: the message also
states the number of cards a view does not name, which the state does not hold.

What the caller guarantees, so it is not checked again here: every field is in its range
(seats, counts, phase, ranks), one entry per seat and per pack, every card in one place,
a pick one of its pack's cards and a card to reveal one of its seat's drafted cards.

What is checked: every card placed (a full state), the deck against its size, what a view
must not name (TC15), and the position as play leaves it in its phase (the draft's packs
and picks, the event's deck, packs, bids and choices), so that the rules can go on from it.

>>> from council.engine.the_council import TheCouncilConfig, TheCouncilState
>>> state = TheCouncilState.new_game(TheCouncilConfig(players=3), seed=4)
>>> problems(state)
[]
>>> raw = state.to_raw(); raw["pack_n"][1] = 5
>>> problems(TheCouncilState.from_raw(raw))  # doctest: +NORMALIZE_WHITESPACE
[('the_council.packs[1].cards', 'holds 6 cards but size is 5'),
 ('the_council.packs[1].size', 'must be 6 in draft round 0, got 5')]
"""

from __future__ import annotations

from council.engine._the_council import (
    CARD_NAMES,
    DEAL,
    DRAFT_ROUNDS,
    EVENTS_PER_HAND,
    LOCATIONS,
    PHASES,
    TheCouncilState,
)

__all__ = ["check", "problems"]

PATH = "the_council"
N_CARDS = len(CARD_NAMES)
DRAFT, BID, REVEAL, OVER = (PHASES.index(p) for p in ("draft", "bid", "reveal", "over"))
LOC_DECK, LOC_PACK, LOC_DRAFTED, LOC_FACEDOWN, LOC_SPENT, LOC_UNKNOWN = (
    LOCATIONS[k] for k in ("deck", "pack", "drafted", "facedown", "spent", "unknown")
)

Problems = list[tuple[str, str]]


class _Position:
    """The raw form of a position with the counts the checks ask for, in the message's
    terms (a pack's cards, its face-down card and pick; a seat's drafted cards and
    choice)."""

    def __init__(self, raw: dict) -> None:
        self.raw = raw
        self.n = raw["n_players"]
        self.viewer = raw["viewer"]
        self.phase = raw["phase"]
        self.rounds = raw["draft_round"]
        loc, pending = raw["card_loc"], raw["card_pending"]
        self.at: dict[int, int] = {}  # card_loc code -> its number of cards
        self.chosen: set[int] = set()  # codes holding a card chosen in secret
        for c in range(N_CARDS):
            self.at[loc[c]] = self.at.get(loc[c], 0) + 1
            if pending[c]:
                self.chosen.add(loc[c])
        self.unplaced = [CARD_NAMES[c] for c in range(N_CARDS) if loc[c] == LOC_UNKNOWN]

    def count(self, code: int) -> int:
        return self.at.get(code, 0)

    def pack_cards(self, k: int) -> int:
        return self.count(LOC_PACK + k)

    def face_down(self, k: int) -> bool:
        return self.count(LOC_FACEDOWN + k) > 0

    def picked(self, k: int) -> bool:
        return LOC_PACK + k in self.chosen

    def drafted(self, p: int) -> int:
        return self.count(LOC_DRAFTED + p)

    def to_reveal(self, p: int) -> bool:
        return LOC_DRAFTED + p in self.chosen


def problems(state: TheCouncilState) -> Problems:
    """Every consistency problem of ``state`` as ``(field path, problem)`` pairs, in a
    fixed order; ``[]`` when the position is consistent (see the module docstring)."""
    return check(state)


def check(state: TheCouncilState, unknown_cards: int | None = None) -> Problems:
    """``problems(state)``, with a message's ``unknown_cards`` checked against the state
    where one is given (the reader's form)."""
    pos = _Position(state.to_raw())
    out: Problems = []
    _placed(pos, unknown_cards, out)
    _hidden_parts(pos, out)
    _phase_parts(pos, out)
    if not out and pos.viewer >= 0:
        _unknown_places(pos, unknown_cards, out)
    return out


def _placed(pos: _Position, unknown_cards: int | None, out: Problems) -> None:
    """Every card in a place (a full state), and the number of the unknown ones."""
    raw = pos.raw
    if pos.viewer < 0:
        if pos.unplaced:
            out.append(
                (
                    PATH,
                    f"every one of the {N_CARDS} cards must be in exactly one place; "
                    f"{len(pos.unplaced)} are nowhere: {', '.join(pos.unplaced)}",
                )
            )
        if unknown_cards:
            out.append(
                (
                    f"{PATH}.unknown_cards",
                    f"must be 0 in a full state (it names every card), got {unknown_cards}",
                )
            )
        in_deck = pos.count(LOC_DECK)
        if in_deck != raw["deck_n"]:
            out.append((f"{PATH}.deck", f"holds {in_deck} cards but deck_size is {raw['deck_n']}"))
        return
    named = N_CARDS - pos.count(LOC_UNKNOWN)
    if unknown_cards is not None and named + unknown_cards != N_CARDS:
        out.append(
            (
                f"{PATH}.unknown_cards",
                f"the {named} cards named and the unknown ones "
                f"must make the {N_CARDS} cards: must be {N_CARDS - named}, got "
                f"{unknown_cards}",
            )
        )


def _hidden_parts(pos: _Position, out: Problems) -> None:
    """What a view must not name (TC15): the deck, cards of packs its seat never held,
    another seat's secret pick or cards to reveal. And what every pack holds."""
    raw, viewer = pos.raw, pos.viewer
    for k in range(pos.n):
        where = f"{PATH}.packs[{k}]"
        cards, size = pos.pack_cards(k), raw["pack_n"][k]
        seen = viewer < 0 or raw["pack_seen"][k] >> viewer & 1
        if viewer >= 0 and not seen and (cards or pos.face_down(k)):
            out.append(
                (
                    f"{where}.cards" if cards else f"{where}.face_down",
                    f"seat {viewer}'s view names cards of a pack it has not held",
                )
            )
        elif seen and cards != size:
            out.append(
                (
                    f"{where}.cards",
                    f"holds {cards} cards but size is {size}"
                    + ("" if viewer < 0 else f" (seat {viewer} has held it: it knows them all)"),
                )
            )
        holder = (k + pos.rounds) % pos.n
        if viewer >= 0 and pos.picked(k) and holder != viewer:
            out.append(
                (
                    f"{where}.picked",
                    f"seat {holder}'s pick is hidden in seat "
                    f"{viewer}'s view until the round's reveal",
                )
            )
    if viewer < 0:
        return
    if pos.count(LOC_DECK):
        out.append(
            (f"{PATH}.deck", "a view does not name the deck's cards (deck_size gives their number)")
        )
    for p in range(pos.n):
        if pos.to_reveal(p) and p != viewer:
            out.append(
                (
                    f"{PATH}.seats[{p}].to_reveal",
                    f"seat {p}'s choice is hidden in seat {viewer}'s view until the event's reveal",
                )
            )


def _phase_parts(pos: _Position, out: Problems) -> None:
    """The position as play leaves it in its phase, so that the rules can go on from it."""
    if pos.phase == OVER:
        return
    # Pack k has been held by seats k .. k + rounds (all of them after the draft).
    for k in range(pos.n):
        held = {(k + r) % pos.n for r in range(min(pos.rounds, DRAFT_ROUNDS - 1) + 1)}
        if pos.raw["pack_seen"][k] != sum(1 << p for p in held):
            out.append(
                (
                    f"{PATH}.packs[{k}].held_by",
                    f"must be the seats {sorted(held)} in draft round {pos.rounds}",
                )
            )
    _draft_picks(pos, out)
    if pos.phase == DRAFT:
        _draft(pos, out)
    else:
        _event(pos, out)


def _draft_picks(pos: _Position, out: Problems) -> None:
    """The history of this hand's picks: none (not known), or each seat's pick of each
    round done, a card of its own that it has not revealed yet or that is spent."""
    picks, loc = pos.raw["draft_picks"], pos.raw["card_loc"]
    rounds = min(pos.rounds, DRAFT_ROUNDS)
    given = [(p, r, picks[p][r]) for p in range(pos.n) for r in range(rounds)]
    path = f"{PATH}.draft_picks"
    if any(picks[p][r] >= 0 for p in range(len(picks)) for r in range(rounds, DRAFT_ROUNDS)):
        out.append((path, f"names a pick of a draft round not done ({rounds} done)"))
    if all(c < 0 for _, _, c in given):
        return
    seen: set[int] = set()
    for p, r, c in given:
        where = f"{path}[{r * pos.n + p}]"
        if c < 0:
            out.append((where, "missing: a history names every pick of the rounds done"))
        elif c in seen:
            out.append((where, f"{CARD_NAMES[c]} is listed twice"))
        elif loc[c] not in (LOC_DRAFTED + p, LOC_SPENT):
            out.append((where, f"{CARD_NAMES[c]} is neither before seat {p} nor spent"))
        seen.add(c)


def _draft(pos: _Position, out: Problems) -> None:
    raw, n, rounds = pos.raw, pos.n, pos.rounds
    if rounds >= DRAFT_ROUNDS:
        out.append((f"{PATH}.draft_round", f"must be below {DRAFT_ROUNDS} in the draft"))
        return
    if raw["event"] >= 0:
        out.append((f"{PATH}.event", "must be absent during the draft"))
    if raw["events_done"]:
        out.append((f"{PATH}.events_done", "must be 0 during the draft"))
    if pos.count(LOC_SPENT):
        why = "a hand starts with a fresh deck, TC3"
        out.append((f"{PATH}.spent", f"must be empty during the draft ({why})"))
    if raw["deck_n"] != N_CARDS - n * DEAL:
        out.append(
            (
                f"{PATH}.deck_size",
                f"must be {N_CARDS - n * DEAL} during the draft "
                f"({n} packs of {DEAL} dealt), got {raw['deck_n']}",
            )
        )
    for k in range(n):
        _draft_pack(pos, k, out)
    for p in range(n):
        if pos.drafted(p) != rounds:
            out.append(
                (
                    f"{PATH}.seats[{p}].drafted",
                    f"must hold {rounds} cards in draft round {rounds}, got {pos.drafted(p)}",
                )
            )
        if pos.to_reveal(p):
            out.append((f"{PATH}.seats[{p}].to_reveal", "must be empty during the draft"))


def _draft_pack(pos: _Position, k: int, out: Problems) -> None:
    rounds, size = pos.rounds, pos.raw["pack_n"][k]
    if size != DEAL - rounds:
        out.append(
            (
                f"{PATH}.packs[{k}].size",
                f"must be {DEAL - rounds} in draft round {rounds}, got {size}",
            )
        )
    if pos.face_down(k):
        out.append((f"{PATH}.packs[{k}].face_down", "must be absent during the draft"))
    holder = (k + rounds) % pos.n
    # The seats before the current one have picked this round, in secret.
    has_picked = holder < pos.raw["current"]
    if (pos.viewer < 0 or holder == pos.viewer) and pos.picked(k) != has_picked:
        out.append(
            (
                f"{PATH}.packs[{k}].picked",
                f"seat {holder} "
                + (
                    "has picked this round: its pick is required"
                    if has_picked
                    else "has not picked yet this round"
                ),
            )
        )


def _event(pos: _Position, out: Problems) -> None:
    """The events: the draft is over, an event is turned, the seats bid in turn."""
    raw, n = pos.raw, pos.n
    events_done, deck_n = raw["events_done"], raw["deck_n"]
    if pos.rounds != DRAFT_ROUNDS:
        out.append((f"{PATH}.draft_round", f"must be {DRAFT_ROUNDS} once the draft is over"))
    if raw["event"] < 0:
        out.append((f"{PATH}.event", f"required in phase {PHASES[pos.phase]!r}"))
    if events_done >= EVENTS_PER_HAND:
        out.append(
            (
                f"{PATH}.events_done",
                f"must be below {EVENTS_PER_HAND} while an event is being bid on",
            )
        )
    turned = N_CARDS - n * DEAL - events_done - 1
    if deck_n != turned:
        out.append(
            (
                f"{PATH}.deck_size",
                f"must be {turned} at event {events_done + 1} "
                f"({n} packs dealt, {events_done + 1} events turned), got {deck_n}",
            )
        )
    for k in range(n):
        if raw["pack_n"][k] or pos.pack_cards(k) or pos.picked(k):
            out.append((f"{PATH}.packs[{k}]", "must be empty once the draft is over"))
        if not pos.face_down(k):
            out.append((f"{PATH}.packs[{k}].face_down", "required once the draft is over"))
    _bids(pos, out)


def _bids(pos: _Position, out: Problems) -> None:
    raw, n = pos.raw, pos.n
    starter, bids_done = raw["starter"], raw["bids_done"]
    if bids_done >= n:
        out.append((f"{PATH}.bids_done", f"must be below {n} while the seats bid"))
    elif raw["current"] != (starter + bids_done) % n:
        out.append(
            (
                f"{PATH}.current",
                f"must be seat {(starter + bids_done) % n}: "
                f"starter {starter} and {bids_done} bids done",
            )
        )
    done = {(starter + i) % n for i in range(bids_done)}
    for p in range(n):
        if pos.to_reveal(p) and p not in done:
            out.append(
                (
                    f"{PATH}.seats[{p}].to_reveal",
                    f"seat {p} has not bid yet in this event: it has chosen no card",
                )
            )


def _unknown_places(pos: _Position, unknown_cards: int | None, out: Problems) -> None:
    """A view's unknown cards are exactly the places determinize deals them to."""
    raw = pos.raw
    if unknown_cards is None:
        unknown_cards = pos.count(LOC_UNKNOWN)
    places = raw["deck_n"] + sum(
        raw["pack_n"][k] - pos.pack_cards(k) + (pos.rounds == DRAFT_ROUNDS and not pos.face_down(k))
        for k in range(pos.n)
    )
    if unknown_cards != places:
        out.append(
            (
                f"{PATH}.unknown_cards",
                f"must be {places}: the deck's {raw['deck_n']} "
                f"cards and the unseen cards of the packs, got {unknown_cards}",
            )
        )
