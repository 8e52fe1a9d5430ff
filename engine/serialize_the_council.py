"""A position of The Council as a ``council.v1.GameState``: its writer and its reader.

The message's ``the_council`` part (``TheCouncilPosition``) carries every field of the core's
struct (``TCState``, ``engine/_the_council.pxd``) by name: cards from ``CARD_NAMES``, suits
from ``SUITS`` (the ``SuitCounts`` fields are their lower-case names), phases from
``PHASES``, ranks from ``RANK_ORDER``. The seat count is ``config.players``, the chance state
``rng`` and the viewer ``viewer``, as in Council of Four's positions. The mapping is exact:
``read(write(state))`` equals ``state`` for full states and views alike.

``council.engine.serialize`` dispatches here on ``config.game``; use its ``state_to_proto``
/ ``state_from_proto`` / JSON functions rather than this module.

>>> from council.engine.the_council import TheCouncilState
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
from council.engine.the_council_status import check
from council.v1 import game_pb2 as pb
from council.v1 import the_council_pb2 as tc_pb

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


# ---------------------------------------------------------------------------------------
# The writer.


def _names(cards: Iterable[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def _set_suits(msg: tc_pb.SuitCounts, counts: Sequence[int]) -> None:
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
    picks = [raw["draft_picks"][p][r] for r in range(raw["draft_round"]) for p in range(n)]
    if all(c >= 0 for c in picks):
        tc.draft_picks.extend(_names(picks))
    return msg


# ---------------------------------------------------------------------------------------
# The reader.


class _Reader:
    """Reads one GameState of The Council into the core's raw form, collecting every
    (field path, problem) of its shape it finds: the game's parts, names, ranges, and
    every card in one place. The consistency of the position read is its ``problems()``
    (``council.engine.the_council_status``)."""

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

    def suits(self, msg: tc_pb.SuitCounts, hi: int, path: str) -> list[int]:
        return [self.int_in(getattr(msg, f), 0, hi, f"{path}.{f}") for f in SUIT_FIELDS]

    def seat_in(self, value: int, n: int, path: str) -> int:
        return self.int_in(value, 0, n - 1, path)

    def read(self, msg: pb.GameState) -> TheCouncilState | None:
        n = self.game(msg)
        if self.problems:
            return None
        viewer = self.viewer(msg, n)
        raw = self.fields(msg.the_council, n)
        if self.problems:
            return None
        raw["n_players"] = n
        raw["viewer"] = viewer
        raw["rng"] = msg.rng if viewer < 0 else 0
        self.cards(msg.the_council, raw)
        if self.problems:
            return None
        state = TheCouncilState.from_raw(raw)
        self.problems.extend(check(state, msg.the_council.unknown_cards))
        return None if self.problems else state

    # -- stage 1: the game, the shape, names and ranges ---------------------------------
    def game(self, msg: pb.GameState) -> int:
        """The seat count (0 if unread). Another game's part is refused before
        (``serialize.game_of_message``)."""
        if msg.format not in ("", FORMAT):
            self.bad("format", f"must be {FORMAT!r} for The Council, got {msg.format!r}")
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
        return n

    def viewer(self, msg: pb.GameState, n: int) -> int:
        viewer = msg.viewer if msg.HasField("viewer") else -1
        if viewer >= 0 or msg.HasField("viewer"):
            self.seat_in(viewer, n, "viewer")
            if msg.HasField("rng"):
                self.bad("rng", "must be absent in a view (a view carries no chance state)")
        elif not msg.HasField("rng"):
            self.bad("rng", "required in a full state (viewer is absent)")
        return viewer

    def fields(self, tc: tc_pb.TheCouncilPosition, n: int) -> dict[str, Any]:
        """The raw form of the fields one by one (cards placed in stage 2)."""
        path = "the_council"
        raw: dict[str, Any] = dict.fromkeys(STATE_DTYPE.names or (), 0)
        raw["phase"] = self.name(PHASE_INDEX, tc.phase, "phase", f"{path}.phase")
        raw["current"] = self.current(tc, raw["phase"], n)
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
        if len(tc.seats) != n:
            self.bad(f"{path}.seats", f"must have one entry per seat ({n}), got {len(tc.seats)}")
        if len(tc.packs) != n:
            self.bad(f"{path}.packs", f"must have one entry per pack ({n}), got {len(tc.packs)}")
        self.seats(tc, raw, n)
        self.packs(tc, raw, n)
        raw["draft_picks"] = self.draft_picks(tc, raw["draft_round"], n)
        return raw

    def draft_picks(self, tc: tc_pb.TheCouncilPosition, rounds: int, n: int) -> list[list[int]]:
        """Each seat's pick of each draft round done (-1: not picked, or not given)."""
        path = "the_council.draft_picks"
        picks = [[-1] * DRAFT_ROUNDS for _ in range(MAX_PLAYERS)]
        if not tc.draft_picks:
            return picks
        if len(tc.draft_picks) != n * rounds:
            self.bad(
                path,
                f"must have players * draft_round entries ({n * rounds}) or none, "
                f"got {len(tc.draft_picks)}",
            )
            return picks
        for i, name in enumerate(tc.draft_picks):
            picks[i % n][i // n] = self.name(CARD_INDEX, name, "card", f"{path}[{i}]")
        return picks

    def current(self, tc: tc_pb.TheCouncilPosition, phase: int, n: int) -> int:
        path = "the_council.current"
        if phase == OVER:
            if tc.HasField("current"):
                self.bad(path, "must be absent once the game is over")
            return -1
        if not tc.HasField("current"):
            self.bad(path, "required while the game is in progress")
            return 0
        return self.seat_in(tc.current, n, path)

    def seats(self, tc: tc_pb.TheCouncilPosition, raw: dict[str, Any], n: int) -> None:
        path = "the_council.seats"
        table = [[0] * len(SUITS) for _ in range(MAX_PLAYERS)]
        raw["chips"] = [row[:] for row in table]
        raw["bid"] = [row[:] for row in table]
        raw["ranks"] = [row[:] for row in table]
        raw["traitors"] = [0] * MAX_PLAYERS
        raw["score"] = [0] * MAX_PLAYERS
        raw["low_card"] = [NO_CARD] * MAX_PLAYERS
        for p, seat in enumerate(tc.seats[:n]):
            where = f"{path}[{p}]"
            raw["chips"][p] = self.suits(seat.chips, MAX_CHIPS, f"{where}.chips")
            raw["bid"][p] = self.suits(seat.bid, MAX_CHIPS, f"{where}.bid")
            raw["ranks"][p] = self.suits(seat.ranks, MAX_RANK, f"{where}.ranks")
            raw["traitors"][p] = self.int_in(seat.traitors, 0, MAX_TRAITORS, f"{where}.traitors")
            raw["score"][p] = self.int_in(seat.score, 0, MAX_SCORE, f"{where}.score")
            if seat.score and raw["phase"] != OVER:
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

    def packs(self, tc: tc_pb.TheCouncilPosition, raw: dict[str, Any], n: int) -> None:
        path = "the_council.packs"
        raw["pack_n"] = [0] * MAX_PLAYERS
        raw["pack_seen"] = [0] * MAX_PLAYERS
        for k, pack in enumerate(tc.packs[:n]):
            where = f"{path}[{k}]"
            raw["pack_n"][k] = self.int_in(pack.size, 0, DEAL, f"{where}.size")
            for i, p in enumerate(pack.held_by):
                if self.seat_in(p, n, f"{where}.held_by[{i}]") == p and 0 <= p < n:
                    if raw["pack_seen"][k] >> p & 1:
                        self.bad(f"{where}.held_by[{i}]", f"seat {p} is listed twice")
                    raw["pack_seen"][k] |= 1 << p

    # -- stage 2: where every card is, and its secret choices ----------------------------
    def cards(self, tc: tc_pb.TheCouncilPosition, raw: dict[str, Any]) -> None:
        """card_loc, deck, event and card_pending of the raw form: every card named in one
        place, a pick one of its pack's cards, a card to reveal one of its seat's."""
        places = _Places(self)
        path = "the_council"
        raw["event"] = (
            places.put(tc.event, LOC_EVENT, f"{path}.event") if tc.HasField("event") else -1
        )
        for p, seat in enumerate(tc.seats):
            for i, name in enumerate(seat.drafted):
                places.put(name, LOC_DRAFTED + p, f"{path}.seats[{p}].drafted[{i}]")
        for k, pack in enumerate(tc.packs):
            for i, name in enumerate(pack.cards):
                places.put(name, LOC_PACK + k, f"{path}.packs[{k}].cards[{i}]")
            if pack.HasField("face_down"):
                places.put(pack.face_down, LOC_FACEDOWN + k, f"{path}.packs[{k}].face_down")
        deck = [places.put(name, LOC_DECK, f"{path}.deck[{i}]") for i, name in enumerate(tc.deck)]
        for i, name in enumerate(tc.spent):
            places.put(name, LOC_SPENT, f"{path}.spent[{i}]")
        for k, pack in enumerate(tc.packs):
            if pack.HasField("picked"):
                places.choose(pack.picked, LOC_PACK + k, f"{path}.packs[{k}].picked")
        for p, seat in enumerate(tc.seats):
            for i, name in enumerate(seat.to_reveal):
                places.choose(name, LOC_DRAFTED + p, f"{path}.seats[{p}].to_reveal[{i}]")
        raw["card_loc"] = [LOC_UNKNOWN if code is None else code for code in places.loc]
        raw["card_pending"] = places.pending
        raw["deck"] = deck + [-1] * (N_CARDS - len(deck))


class _Places:
    """Where the cards a message names are, each named once (reporting to a reader)."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.loc: list[int | None] = [None] * N_CARDS
        self.first: dict[int, str] = {}
        self.pending = [0] * N_CARDS

    def put(self, name: str, code: int, where: str) -> int:
        c = self.reader.name(CARD_INDEX, name, "card", where)
        if c < 0:
            return c
        if self.loc[c] is not None:
            self.reader.bad(where, f"{name} is in two places: also at {self.first[c]}")
            return -1
        self.loc[c] = code
        self.first[c] = where
        return c

    def choose(self, name: str, code: int, where: str) -> None:
        """A secret choice: a pick of the pack at `code`, a card to reveal of the seat's."""
        c = self.reader.name(CARD_INDEX, name, "card", where)
        if c < 0:
            return
        if self.loc[c] != code:
            mine = "this pack's cards" if code < LOC_DRAFTED else "this seat's drafted cards"
            self.reader.bad(where, f"{name} is not one of {mine}")
        elif self.pending[c]:
            self.reader.bad(where, f"{name} is listed twice")
        else:
            self.pending[c] = 1


def read(msg: pb.GameState) -> tuple[TheCouncilState | None, list[tuple[str, str]]]:
    """The position of a GameState whose config.game is GAME_THE_COUNCIL, and the problems
    found: a state exactly when there are none. Field paths are the message's
    (``the_council.seats[2].chips.knots``)."""
    reader = _Reader()
    state = reader.read(msg)
    return state, reader.problems
