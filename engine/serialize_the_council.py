"""A position of The Council as a ``council.v1.GameState``: its writer and its reader.

The message's ``the_council`` part (``TheCouncilPosition``) carries every field of the core's
struct (``TCState``, ``engine/_the_council.pxd``) by name: cards from ``CARD_NAMES``, suits
from ``SUITS`` (the ``SuitCounts`` fields are their lower-case names), phases from
``PHASES``, ranks from ``RANK_ORDER``. The seat count is ``config.players``, the chance state
``rng`` and the viewer ``viewer``, as in Council of Four's positions. The mapping is exact:
``read(write(state))`` equals ``state`` for full states and views alike.

``council.engine.serialize`` dispatches here on ``config.game``; use its ``state_to_proto``
/ ``state_from_proto`` / JSON functions rather than this module.

>>> from council.engine import TheCouncilState
>>> state = TheCouncilState.new_game(players=3, seed=4)
>>> msg = write(state)
>>> msg.format, msg.the_council.phase, list(msg.the_council.packs[0].held_by)
('the-council/1', 'draft', [0])
>>> read(msg) == (state, [])
True
>>> msg.the_council.seats[2].chips.knots = 999
>>> read(msg)[1]
[('the_council.seats[2].chips.knots', 'must be in 0..100, got 999')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from council.engine._the_council import (
    CARD_NAMES,
    DEAL,
    DRAFT_ROUNDS,
    EVENTS_PER_HAND,
    LOCATIONS,
    MAX_HANDS,
    MAX_PLAYERS,
    MAX_RANK,
    MIN_PLAYERS,
    NO_CARD,
    PHASES,
    RANK_ORDER,
    STATE_DTYPE,
    SUITS,
    TheCouncilState,
)
from council.v1 import game_pb2 as pb

__all__ = ["CARD_INDEX", "FORMAT", "SUIT_FIELDS", "SUIT_INDEX", "read", "write"]

FORMAT = "the-council/1"
# The fields of SuitCounts, in the core's suit order.
SUIT_FIELDS = tuple(s.lower() for s in SUITS)
N_CARDS = len(CARD_NAMES)
CARD_INDEX = {name: c for c, name in enumerate(CARD_NAMES)}
SUIT_INDEX = {name: x for x, name in enumerate(SUITS)}
RANK_INDEX = {name: i for i, name in enumerate(RANK_ORDER)}
PHASE_INDEX = {name: i for i, name in enumerate(PHASES)}
DRAFT, BID, REVEAL, OVER = (PHASE_INDEX[p] for p in ("draft", "bid", "reveal", "over"))
LOC_DECK, LOC_PACK, LOC_DRAFTED, LOC_FACEDOWN, LOC_SPENT, LOC_EVENT, LOC_UNKNOWN = (
    LOCATIONS[k] for k in ("deck", "pack", "drafted", "facedown", "spent", "event", "unknown")
)
# A seat takes at most one chip of a suit per pick: DRAFT_ROUNDS picks a hand, MAX_HANDS
# hands. Traitor chips: at most 7 an event (a trade in each of an event's suits, at most 3,
# and 4 Courts) over 100 events stays far below this bound, which keeps the struct's int16
# fields from overflowing whatever a position says.
MAX_CHIPS = MAX_HANDS * DRAFT_ROUNDS
MAX_TRAITORS = 1000
MAX_SCORE = 32767
# Council of Four's parts of a GameState and of its GameConfig, none of which The Council has.
COF_STATE_FIELDS = ("board", "turn")
COF_CONFIG_FIELDS = tuple(
    f.name for f in pb.GameConfig.DESCRIPTOR.fields if f.name not in ("game", "players")
)


# ---------------------------------------------------------------------------------------
# The writer.


def _names(cards: Iterable[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def _set_suits(msg: pb.SuitCounts, counts: Sequence[int]) -> None:
    for name, n in zip(SUIT_FIELDS, counts, strict=True):
        setattr(msg, name, n)


def write(state: TheCouncilState) -> pb.GameState:
    """The GameState message of a position of The Council (a full state or a view)."""
    raw = state.to_raw()
    n = raw["n_players"]
    loc = raw["card_loc"]
    chosen = raw["card_pending"]
    at: dict[int, list[int]] = {}  # card_loc code -> its cards, in card order
    for c, where in enumerate(loc):
        at.setdefault(where, []).append(c)
    msg = pb.GameState(format=FORMAT)
    msg.config.game = pb.GAME_THE_COUNCIL
    msg.config.players = n
    if raw["viewer"] >= 0:
        msg.viewer = raw["viewer"]
    else:
        msg.rng = raw["rng"]
    tc = msg.the_council
    tc.phase = PHASES[raw["phase"]]
    if raw["current"] >= 0:
        tc.current = raw["current"]
    tc.hand = raw["hand"]
    tc.dealer = raw["dealer"]
    tc.draft_round = raw["draft_round"]
    tc.starter = raw["starter"]
    if raw["next_starter"] >= 0:
        tc.next_starter = raw["next_starter"]
    tc.bids_done = raw["bids_done"]
    tc.events_done = raw["events_done"]
    if raw["event"] >= 0:
        tc.event = CARD_NAMES[raw["event"]]
    tc.bid_floor = SUITS[raw["bid_floor"]]
    _set_suits(tc.empire, raw["empire"])
    for p in range(n):
        seat = tc.seats.add(traitors=raw["traitors"][p], score=raw["score"][p])
        _set_suits(seat.chips, raw["chips"][p])
        _set_suits(seat.bid, raw["bid"][p])
        _set_suits(seat.ranks, raw["ranks"][p])
        drafted = at.get(LOC_DRAFTED + p, [])
        seat.drafted.extend(_names(drafted))
        seat.to_reveal.extend(_names(c for c in drafted if chosen[c]))
        if raw["low_card"][p] != NO_CARD:
            seat.lowest_revealed = RANK_ORDER[raw["low_card"][p]]
    for k in range(n):
        cards = at.get(LOC_PACK + k, [])
        pack = tc.packs.add(size=raw["pack_n"][k])
        pack.cards.extend(_names(cards))
        pack.held_by.extend(p for p in range(n) if raw["pack_seen"][k] >> p & 1)
        for c in cards:
            if chosen[c]:
                pack.picked = CARD_NAMES[c]
        for c in at.get(LOC_FACEDOWN + k, []):
            pack.face_down = CARD_NAMES[c]
    tc.deck.extend(_names(c for c in raw["deck"][: raw["deck_n"]] if c >= 0))
    tc.deck_size = raw["deck_n"]
    tc.spent.extend(_names(at.get(LOC_SPENT, [])))
    tc.unknown_cards = len(at.get(LOC_UNKNOWN, []))
    tc.action_count = raw["action_count"]
    return msg


# ---------------------------------------------------------------------------------------
# The reader.


class _Reader:
    """Reads one GameState of The Council into the core's raw form, collecting every
    (field path, problem) it finds."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def bad(self, path: str, problem: str) -> None:
        self.problems.append((path, problem))

    def int_in(self, value: int, lo: int, hi: int, path: str) -> int:
        if not lo <= value <= hi:
            self.bad(path, f"must be in {lo}..{hi}, got {value}")
        return value

    def name(self, index: dict[str, int], value: str, what: str, path: str) -> int:
        """The index of a name, or -1 (reported)."""
        i = index.get(value)
        if i is None:
            listing = f"one of {', '.join(index)}" if len(index) <= 12 else "see the card list"
            self.bad(path, f"unknown {what} {value!r}; {listing}")
            return -1
        return i

    def suits(self, msg: pb.SuitCounts, hi: int, path: str) -> list[int]:
        return [self.int_in(getattr(msg, f), 0, hi, f"{path}.{f}") for f in SUIT_FIELDS]

    def seat_in(self, value: int, n: int, path: str) -> int:
        return self.int_in(value, 0, n - 1, path)

    # -- stage 1: the game, the shape, names and ranges ---------------------------------
    def read(self, msg: pb.GameState) -> TheCouncilState | None:
        if msg.format not in ("", FORMAT):
            self.bad("format", f"must be {FORMAT!r} for The Council, got {msg.format!r}")
        for f in COF_STATE_FIELDS:
            if msg.HasField(f):
                self.bad(f, "a part of Council of Four's position: The Council's is the_council")
        if len(msg.players):
            self.bad(
                "players",
                "a part of Council of Four's position: The Council's seats are the_council.seats",
            )
        for f in COF_CONFIG_FIELDS:
            if msg.config.HasField(f):
                self.bad(
                    f"config.{f}",
                    "a rule variant of Council of Four: The Council's "
                    "configuration is game and players only",
                )
        n = 0
        if not msg.config.HasField("players"):
            self.bad("config.players", "required field is missing")
        elif not MIN_PLAYERS <= msg.config.players <= MAX_PLAYERS:
            self.bad(
                "config.players",
                f"The Council seats {MIN_PLAYERS} to {MAX_PLAYERS}, got {msg.config.players}",
            )
        else:
            n = msg.config.players
        if not msg.HasField("the_council"):
            self.bad("the_council", "required field is missing")
        if self.problems:
            return None
        viewer = msg.viewer if msg.HasField("viewer") else -1
        if viewer >= 0 or msg.HasField("viewer"):
            self.seat_in(viewer, n, "viewer")
            if msg.HasField("rng"):
                self.bad("rng", "must be absent in a view (a view carries no chance state)")
        elif not msg.HasField("rng"):
            self.bad("rng", "required in a full state (viewer is absent)")
        raw = self.fields(msg.the_council, n, viewer)
        if self.problems or raw is None:
            return None
        raw["n_players"] = n
        raw["viewer"] = viewer
        raw["rng"] = msg.rng if viewer < 0 else 0
        self.consistency(msg.the_council, raw, n, viewer)
        if self.problems:
            return None
        return TheCouncilState.from_raw(raw)

    def fields(self, tc: pb.TheCouncilPosition, n: int, viewer: int) -> dict | None:
        """The raw form of the fields one by one (cards placed in stage 2)."""
        path = "the_council"
        raw: dict[str, Any] = dict.fromkeys(STATE_DTYPE.names or (), 0)
        raw["phase"] = phase = self.name(PHASE_INDEX, tc.phase, "phase", f"{path}.phase")
        if phase == OVER:
            if tc.HasField("current"):
                self.bad(f"{path}.current", "must be absent once the game is over")
            raw["current"] = -1
        elif not tc.HasField("current"):
            self.bad(f"{path}.current", "required while the game is in progress")
        else:
            raw["current"] = self.seat_in(tc.current, n, f"{path}.current")
        raw["hand"] = self.int_in(tc.hand, 1, MAX_HANDS, f"{path}.hand")
        raw["dealer"] = self.seat_in(tc.dealer, n, f"{path}.dealer")
        raw["draft_round"] = self.int_in(tc.draft_round, 0, DRAFT_ROUNDS, f"{path}.draft_round")
        raw["starter"] = self.seat_in(tc.starter, n, f"{path}.starter")
        raw["next_starter"] = (
            self.seat_in(tc.next_starter, n, f"{path}.next_starter")
            if tc.HasField("next_starter")
            else -1
        )
        raw["bids_done"] = self.int_in(tc.bids_done, 0, n, f"{path}.bids_done")
        raw["events_done"] = self.int_in(tc.events_done, 0, EVENTS_PER_HAND, f"{path}.events_done")
        # Empty is the zero value a JSON writer leaves out: the first suit.
        raw["bid_floor"] = (
            self.name(SUIT_INDEX, tc.bid_floor, "suit", f"{path}.bid_floor") if tc.bid_floor else 0
        )
        raw["empire"] = self.suits(tc.empire, MAX_RANK, f"{path}.empire")
        raw["action_count"] = self.int_in(tc.action_count, 0, 2**31 - 1, f"{path}.action_count")
        raw["deck_n"] = self.int_in(tc.deck_size, 0, N_CARDS, f"{path}.deck_size")
        self.int_in(tc.unknown_cards, 0, N_CARDS, f"{path}.unknown_cards")
        table = [[0] * len(SUITS) for _ in range(MAX_PLAYERS)]
        raw["chips"] = [row[:] for row in table]
        raw["bid"] = [row[:] for row in table]
        raw["ranks"] = [row[:] for row in table]
        raw["traitors"] = [0] * MAX_PLAYERS
        raw["score"] = [0] * MAX_PLAYERS
        raw["low_card"] = [NO_CARD] * MAX_PLAYERS
        raw["pack_n"] = [0] * MAX_PLAYERS
        raw["pack_seen"] = [0] * MAX_PLAYERS
        if len(tc.seats) != n:
            self.bad(f"{path}.seats", f"must have one entry per seat ({n}), got {len(tc.seats)}")
        if len(tc.packs) != n:
            self.bad(f"{path}.packs", f"must have one entry per pack ({n}), got {len(tc.packs)}")
        for p, seat in enumerate(tc.seats[:n]):
            where = f"{path}.seats[{p}]"
            raw["chips"][p] = self.suits(seat.chips, MAX_CHIPS, f"{where}.chips")
            raw["bid"][p] = self.suits(seat.bid, MAX_CHIPS, f"{where}.bid")
            raw["ranks"][p] = self.suits(seat.ranks, MAX_RANK, f"{where}.ranks")
            raw["traitors"][p] = self.int_in(seat.traitors, 0, MAX_TRAITORS, f"{where}.traitors")
            raw["score"][p] = self.int_in(seat.score, 0, MAX_SCORE, f"{where}.score")
            if seat.score and phase != OVER:
                self.bad(f"{where}.score", "must be 0 until the game is over")
            if seat.HasField("lowest_revealed"):
                raw["low_card"][p] = self.name(
                    RANK_INDEX, seat.lowest_revealed, "rank", f"{where}.lowest_revealed"
                )
            if len(seat.drafted) > DRAFT_ROUNDS:
                self.bad(
                    f"{where}.drafted",
                    f"a seat drafts {DRAFT_ROUNDS} cards a hand, got {len(seat.drafted)}",
                )
        for k, pack in enumerate(tc.packs[:n]):
            where = f"{path}.packs[{k}]"
            raw["pack_n"][k] = self.int_in(pack.size, 0, DEAL, f"{where}.size")
            for i, p in enumerate(pack.held_by):
                if self.seat_in(p, n, f"{where}.held_by[{i}]") == p and 0 <= p < n:
                    if raw["pack_seen"][k] >> p & 1:
                        self.bad(f"{where}.held_by[{i}]", f"seat {p} is listed twice")
                    raw["pack_seen"][k] |= 1 << p
        return None if self.problems else raw

    # -- stage 2: where every card is, and the position as a whole -----------------------
    def consistency(self, tc: pb.TheCouncilPosition, raw: dict, n: int, viewer: int) -> None:
        path = "the_council"
        loc: list[int | None] = [None] * N_CARDS
        first: dict[int, str] = {}
        pending = [0] * N_CARDS

        def place(name: str, code: int, where: str) -> int:
            c = self.name(CARD_INDEX, name, "card", where)
            if c < 0:
                return c
            if loc[c] is not None:
                self.bad(where, f"{name} is in two places: also at {first[c]}")
                return -1
            loc[c] = code
            first[c] = where
            return c

        event = -1
        if tc.HasField("event"):
            event = place(tc.event, LOC_EVENT, f"{path}.event")
        raw["event"] = event
        for p, seat in enumerate(tc.seats):
            for i, name in enumerate(seat.drafted):
                place(name, LOC_DRAFTED + p, f"{path}.seats[{p}].drafted[{i}]")
        for k, pack in enumerate(tc.packs):
            for i, name in enumerate(pack.cards):
                place(name, LOC_PACK + k, f"{path}.packs[{k}].cards[{i}]")
            if pack.HasField("face_down"):
                place(pack.face_down, LOC_FACEDOWN + k, f"{path}.packs[{k}].face_down")
        deck = [place(name, LOC_DECK, f"{path}.deck[{i}]") for i, name in enumerate(tc.deck)]
        for i, name in enumerate(tc.spent):
            place(name, LOC_SPENT, f"{path}.spent[{i}]")
        # Secret choices: a pick is one of its pack's cards, a card to reveal a drafted one.
        for k, pack in enumerate(tc.packs):
            if pack.HasField("picked"):
                where = f"{path}.packs[{k}].picked"
                c = self.name(CARD_INDEX, pack.picked, "card", where)
                if c >= 0 and loc[c] != LOC_PACK + k:
                    self.bad(where, f"{pack.picked} is not one of this pack's cards")
                elif c >= 0:
                    pending[c] = 1
        for p, seat in enumerate(tc.seats):
            for i, name in enumerate(seat.to_reveal):
                where = f"{path}.seats[{p}].to_reveal[{i}]"
                c = self.name(CARD_INDEX, name, "card", where)
                if c >= 0 and loc[c] != LOC_DRAFTED + p:
                    self.bad(where, f"{name} is not one of this seat's drafted cards")
                elif c >= 0 and pending[c]:
                    self.bad(where, f"{name} is listed twice")
                elif c >= 0:
                    pending[c] = 1
        if self.problems:
            return
        named = sum(code is not None for code in loc)
        if viewer < 0:
            missing = [CARD_NAMES[c] for c in range(N_CARDS) if loc[c] is None]
            if missing:
                self.bad(
                    path,
                    f"every one of the {N_CARDS} cards must be in exactly one place; "
                    f"{len(missing)} are nowhere: {', '.join(missing)}",
                )
            if tc.unknown_cards:
                self.bad(
                    f"{path}.unknown_cards",
                    f"must be 0 in a full state (it names every card), got {tc.unknown_cards}",
                )
            if len(tc.deck) != tc.deck_size:
                self.bad(
                    f"{path}.deck", f"holds {len(tc.deck)} cards but deck_size is {tc.deck_size}"
                )
        elif named + tc.unknown_cards != N_CARDS:
            self.bad(
                f"{path}.unknown_cards",
                f"the {named} cards named and the unknown ones "
                f"must make the {N_CARDS} cards: must be {N_CARDS - named}, got "
                f"{tc.unknown_cards}",
            )
        self.hidden_parts(tc, raw, n, viewer)
        self.phase_parts(tc, raw, n, viewer, pending)
        if self.problems:
            return
        if viewer >= 0:
            # determinize deals the unknown cards to exactly these places.
            places = tc.deck_size + sum(
                pack.size
                - len(pack.cards)
                + (raw["draft_round"] == DRAFT_ROUNDS and not pack.HasField("face_down"))
                for pack in tc.packs
            )
            if tc.unknown_cards != places:
                self.bad(
                    f"{path}.unknown_cards",
                    f"must be {places}: the deck's {tc.deck_size} "
                    f"cards and the unseen cards of the packs, got {tc.unknown_cards}",
                )
                return
        raw["card_loc"] = [LOC_UNKNOWN if code is None else code for code in loc]
        raw["card_pending"] = pending
        raw["deck"] = deck + [-1] * (N_CARDS - len(deck))

    def hidden_parts(self, tc: pb.TheCouncilPosition, raw: dict, n: int, viewer: int) -> None:
        """What a view must not name (TC15): the deck, cards of packs its seat never held,
        another seat's secret pick or cards to reveal. And what every pack holds."""
        path = "the_council"
        for k, pack in enumerate(tc.packs):
            where = f"{path}.packs[{k}]"
            seen = viewer < 0 or raw["pack_seen"][k] >> viewer & 1
            if viewer >= 0 and not seen and (pack.cards or pack.HasField("face_down")):
                self.bad(
                    f"{where}.cards" if pack.cards else f"{where}.face_down",
                    f"seat {viewer}'s view names cards of a pack it has not held",
                )
            elif seen and len(pack.cards) != pack.size:
                self.bad(
                    f"{where}.cards",
                    f"holds {len(pack.cards)} cards but size is "
                    f"{pack.size}"
                    + ("" if viewer < 0 else f" (seat {viewer} has held it: it knows them all)"),
                )
            holder = (k + raw["draft_round"]) % n
            if viewer >= 0 and pack.HasField("picked") and holder != viewer:
                self.bad(
                    f"{where}.picked",
                    f"seat {holder}'s pick is hidden in seat "
                    f"{viewer}'s view until the round's reveal",
                )
        if viewer < 0:
            return
        if tc.deck:
            self.bad(
                f"{path}.deck",
                "a view does not name the deck's cards (deck_size gives their number)",
            )
        for p, seat in enumerate(tc.seats):
            if seat.to_reveal and p != viewer:
                self.bad(
                    f"{path}.seats[{p}].to_reveal",
                    f"seat {p}'s choice is hidden in seat {viewer}'s view until the event's reveal",
                )

    def phase_parts(
        self, tc: pb.TheCouncilPosition, raw: dict, n: int, viewer: int, pending: list[int]
    ) -> None:
        """The position as play leaves it in its phase, so that the rules can go on from it."""
        path = "the_council"
        phase, rounds = raw["phase"], raw["draft_round"]
        if phase == OVER:
            return
        current = raw["current"]
        # Pack k has been held by seats k .. k + rounds (all of them after the draft).
        for k in range(n):
            held = {(k + r) % n for r in range(min(rounds, DRAFT_ROUNDS - 1) + 1)}
            if raw["pack_seen"][k] != sum(1 << p for p in held):
                self.bad(
                    f"{path}.packs[{k}].held_by",
                    f"must be the seats {sorted(held)} in draft round {rounds}",
                )
        if phase == DRAFT:
            if rounds >= DRAFT_ROUNDS:
                self.bad(f"{path}.draft_round", f"must be below {DRAFT_ROUNDS} in the draft")
                return
            if tc.HasField("event"):
                self.bad(f"{path}.event", "must be absent during the draft")
            if tc.events_done:
                self.bad(f"{path}.events_done", "must be 0 during the draft")
            if tc.spent:
                self.bad(
                    f"{path}.spent",
                    "must be empty during the draft (a hand starts with a fresh deck, TC3)",
                )
            if tc.deck_size != N_CARDS - n * DEAL:
                self.bad(
                    f"{path}.deck_size",
                    f"must be {N_CARDS - n * DEAL} during the draft "
                    f"({n} packs of {DEAL} dealt), got {tc.deck_size}",
                )
            for k, pack in enumerate(tc.packs):
                if pack.size != DEAL - rounds:
                    self.bad(
                        f"{path}.packs[{k}].size",
                        f"must be {DEAL - rounds} in draft round {rounds}, got {pack.size}",
                    )
                if pack.HasField("face_down"):
                    self.bad(f"{path}.packs[{k}].face_down", "must be absent during the draft")
                holder = (k + rounds) % n
                # The seats before the current one have picked this round, in secret.
                if (viewer < 0 or holder == viewer) and pack.HasField("picked") != (
                    holder < current
                ):
                    self.bad(
                        f"{path}.packs[{k}].picked",
                        f"seat {holder} "
                        + (
                            "has picked this round: its pick is required"
                            if holder < current
                            else "has not picked yet this round"
                        ),
                    )
            for p, seat in enumerate(tc.seats):
                if len(seat.drafted) != rounds:
                    self.bad(
                        f"{path}.seats[{p}].drafted",
                        f"must hold {rounds} cards in draft "
                        f"round {rounds}, got {len(seat.drafted)}",
                    )
                if seat.to_reveal:
                    self.bad(f"{path}.seats[{p}].to_reveal", "must be empty during the draft")
            return
        # The events: the draft is over, an event is turned, the seats bid in turn.
        if rounds != DRAFT_ROUNDS:
            self.bad(f"{path}.draft_round", f"must be {DRAFT_ROUNDS} once the draft is over")
        if not tc.HasField("event"):
            self.bad(f"{path}.event", f"required in phase {tc.phase!r}")
        if tc.events_done >= EVENTS_PER_HAND:
            self.bad(
                f"{path}.events_done",
                f"must be below {EVENTS_PER_HAND} while an event is being bid on",
            )
        turned = N_CARDS - n * DEAL - tc.events_done - 1
        if tc.deck_size != turned:
            self.bad(
                f"{path}.deck_size",
                f"must be {turned} at event {tc.events_done + 1} "
                f"({n} packs dealt, {tc.events_done + 1} events turned), got {tc.deck_size}",
            )
        for k, pack in enumerate(tc.packs):
            if pack.size or pack.cards or pack.HasField("picked"):
                self.bad(f"{path}.packs[{k}]", "must be empty once the draft is over")
            if not pack.HasField("face_down"):
                self.bad(f"{path}.packs[{k}].face_down", "required once the draft is over")
        if tc.bids_done >= n:
            self.bad(f"{path}.bids_done", f"must be below {n} while the seats bid")
        elif current != (tc.starter + tc.bids_done) % n:
            self.bad(
                f"{path}.current",
                f"must be seat {(tc.starter + tc.bids_done) % n}: "
                f"starter {tc.starter} and {tc.bids_done} bids done",
            )
        done = {(tc.starter + i) % n for i in range(tc.bids_done)}
        for p, seat in enumerate(tc.seats):
            if seat.to_reveal and p not in done:
                self.bad(
                    f"{path}.seats[{p}].to_reveal",
                    f"seat {p} has not bid yet in this event: it has chosen no card",
                )


def read(msg: pb.GameState) -> tuple[TheCouncilState | None, list[tuple[str, str]]]:
    """The position of a GameState whose config.game is GAME_THE_COUNCIL, and the problems
    found: a state exactly when there are none. Field paths are the message's
    (``the_council.seats[2].chips.knots``)."""
    reader = _Reader()
    state = reader.read(msg)
    return state, reader.problems
