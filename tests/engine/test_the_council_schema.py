"""The Council's positions in the one schema (``council.v1.GameState``, ``the_council``):
exact round trips of full states and views, message and JSON, and the validation of what
a client may send (field paths, hidden cards, cards in two places, conservation)."""

from __future__ import annotations

import json
import random

import pytest
from council_positions import random_positions
from google.protobuf import json_format

from council.engine._the_council import CARD_NAMES, SUITS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import (
    StateValidationError,
    config_from_json,
    config_from_proto,
    dumps,
    loads,
    state_from_json,
    state_from_proto,
    state_to_json,
    state_to_proto,
)
from council.engine.serialize_the_council import FORMAT, SUIT_FIELDS
from council.engine.the_council import TheCouncilConfig, TheCouncilState
from council.v1 import game_pb2 as pb
from council.v1 import the_council_pb2 as tc_pb


def positions(players: int, seed: int):
    """Random positions of a few games and each seat's view of them."""
    for state in random_positions(players, seed, every=4 * players, games=2, final=True):
        yield state
        for seat in range(players):
            yield state.view(seat)


def test_suit_counts_are_the_cores_suits():
    assert [f.name for f in tc_pb.SuitCounts.DESCRIPTOR.fields] == list(SUIT_FIELDS)
    assert tuple(s.lower() for s in SUITS) == SUIT_FIELDS


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_trip_of_full_states_and_views(players):
    count = 0
    for state in positions(players, seed=100 + players):
        msg = state_to_proto(state)
        assert msg.config.game == pb.GAME_THE_COUNCIL and msg.format == FORMAT
        assert state_from_proto(msg) == state
        # The wire bytes and the JSON text carry it unchanged too.
        assert state_from_proto(pb.GameState.FromString(msg.SerializeToString())) == state
        text = dumps(state)
        assert loads(text) == state
        assert dumps(loads(text)) == text
        assert json_format.ParseDict(state_to_json(state), pb.GameState()) == msg
        count += 1
    assert count > 150


def test_a_view_names_no_card_its_seat_cannot_place():
    state = TheCouncilState.new_game(4, seed=3)
    state.apply(state.legal_actions()[0])  # seat 0 picks in secret
    full = state_to_proto(state).the_council
    view = state_to_proto(state.view(2)).the_council
    assert len(full.deck) == full.deck_size == 20 and full.unknown_cards == 0
    assert list(view.deck) == [] and view.deck_size == 20
    # Seat 2 holds pack 2 only: the other packs and the deck are counts.
    assert [len(p.cards) for p in view.packs] == [0, 0, 6, 0]
    assert [p.size for p in view.packs] == [6, 6, 6, 6]
    assert view.unknown_cards == 44 - 6
    assert full.packs[0].HasField("picked") and not view.packs[0].HasField("picked")
    named = {n for p in view.packs for n in p.cards} | set(view.deck)
    assert named == set(full.packs[2].cards)


def test_the_json_form():
    obj = state_to_json(TheCouncilState.new_game(3, seed=4))
    assert obj["format"] == "the-council/1"
    assert obj["config"] == {"players": 3, "game": "GAME_THE_COUNCIL"}
    assert "players" not in obj and "board" not in obj
    tc = obj["the_council"]
    assert tc["phase"] == "draft" and tc["current"] == 0 and tc["bid_floor"] == "Moons"
    assert tc["empire"] == {s: 6 for s in SUIT_FIELDS}
    assert tc["packs"][1]["held_by"] == [1] and len(tc["packs"][1]["cards"]) == 6
    assert set(tc["packs"][1]["cards"]) <= set(CARD_NAMES)
    # lowerCamelCase names and enum numbers are read too, as by the protobuf JSON mapping.
    obj["config"]["game"] = 2
    obj["the_council"]["draftRound"] = obj["the_council"].pop("draft_round")
    assert state_from_json(obj) == TheCouncilState.new_game(3, seed=4)


# -- validation ----------------------------------------------------------------------------


def _bid_position() -> TheCouncilState:
    """Seat 1 of 4 to bid in the first event, seat 0 having bid and chosen a card."""
    state = TheCouncilState.new_game(4, seed=9)
    while state.phase == "draft":
        state.apply(state.legal_actions()[0])
    seat = state.current_player
    state.apply(state.action_from_text("end bid"))
    mine = state.drafted(seat)
    state.apply(state.action_from_text(f"reveal {CARD_NAMES[mine[0]]}"))
    return state


def _draft_position() -> TheCouncilState:
    state = TheCouncilState.new_game(4, seed=9)
    for _ in range(6):  # round 1 done, seats 0 and 1 have picked in round 2
        state.apply(state.legal_actions()[-1])
    return state


def _problems(msg) -> list[tuple[str, str]]:
    with pytest.raises(StateValidationError) as e:
        state_from_proto(msg)
    return e.value.violations


def _edit(state, edit, view: int | None = None):
    msg = state_to_proto(state if view is None else state.view(view))
    edit(msg, msg.the_council)
    return msg


def _unnamed(tc) -> str:
    """A card a view does not name."""
    named = {tc.event, *tc.deck, *tc.spent}
    named |= {c for s in tc.seats for c in s.drafted}
    named |= {c for p in tc.packs for c in [*p.cards, p.face_down]}
    return next(c for c in CARD_NAMES if c not in named)


def _turn_an_event(msg, tc):
    tc.event = tc.deck.pop()
    tc.deck_size -= 1


def _deck_card_also_spent(msg, tc):
    tc.spent.append(tc.deck[0])


def _drop_card(msg, tc):
    del tc.deck[0]
    tc.deck_size -= 1


CASES = [
    # (position, edit, view, expected path, words of the problem)
    (
        "bid",
        lambda m, t: setattr(t.seats[2].chips, "knots", 101),
        None,
        "the_council.seats[2].chips.knots",
        "must be in 0..100, got 101",
    ),
    (
        "bid",
        lambda m, t: setattr(t.seats[1].ranks, "moons", 7),
        None,
        "the_council.seats[1].ranks.moons",
        "must be in 0..6, got 7",
    ),
    (
        "bid",
        lambda m, t: setattr(t.empire, "wyrms", -1),
        None,
        "the_council.empire.wyrms",
        "must be in 0..6, got -1",
    ),
    (
        "bid",
        lambda m, t: setattr(t, "phase", "bidding"),
        None,
        "the_council.phase",
        "unknown phase 'bidding'; one of draft, bid, reveal, over",
    ),
    (
        "bid",
        lambda m, t: setattr(t, "bid_floor", "Stars"),
        None,
        "the_council.bid_floor",
        "unknown suit 'Stars'",
    ),
    (
        "bid",
        lambda m, t: setattr(t, "event", "The Joker"),
        None,
        "the_council.event",
        "unknown card 'The Joker'",
    ),
    (
        "bid",
        lambda m, t: setattr(t.seats[3], "lowest_revealed", "Queen"),
        None,
        "the_council.seats[3].lowest_revealed",
        "unknown rank 'Queen'",
    ),
    (
        "bid",
        _deck_card_also_spent,
        None,
        "the_council.spent[0]",
        "is in two places: also at the_council.deck[0]",
    ),
    ("bid", _drop_card, None, "the_council", "must be in exactly one place; 1 are nowhere"),
    ("bid", lambda m, t: setattr(t, "current", 3), None, "the_council.current", "must be seat"),
    (
        "bid",
        lambda m, t: m.config.ClearField("players"),
        None,
        "config.players",
        "required field is missing",
    ),
    (
        "bid",
        lambda m, t: setattr(m.config, "players", 6),
        None,
        "config.players",
        "The Council seats 3 to 5, got 6",
    ),
    (
        "bid",
        lambda m, t: setattr(m.config, "layout", "ABA"),
        None,
        "config.layout",
        "a rule variant of Council of Four",
    ),
    (
        "bid",
        lambda m, t: m.board.SetInParent(),
        None,
        "board",
        "a part of Council of Four's position",
    ),
    ("bid", lambda m, t: m.players.add(), None, "players", "a part of Council of Four's position"),
    (
        "bid",
        lambda m, t: setattr(m, "format", "council-of-four/1"),
        None,
        "format",
        "must be 'the-council/1'",
    ),
    ("bid", lambda m, t: m.ClearField("rng"), None, "rng", "required in a full state"),
    ("bid", lambda m, t: setattr(m, "rng", 5), 2, "rng", "must be absent in a view"),
    (
        "bid",
        lambda m, t: m.ClearField("the_council"),
        None,
        "the_council",
        "required field is missing",
    ),
    (
        "bid",
        lambda m, t: t.seats.pop(),
        None,
        "the_council.seats",
        "must have one entry per seat (4), got 3",
    ),
    (
        "bid",
        lambda m, t: setattr(t, "unknown_cards", 1),
        None,
        "the_council.unknown_cards",
        "must be 0 in a full state",
    ),
    # A view that names what its seat cannot know.
    (
        "bid",
        lambda m, t: t.deck.append(_unnamed(t)),
        2,
        "the_council.deck",
        "a view does not name the deck's cards",
    ),
    (
        "bid",
        lambda m, t: t.seats[0].to_reveal.append(t.seats[0].drafted[0]),
        2,
        "the_council.seats[0].to_reveal",
        "hidden in seat 2's view",
    ),
    (
        "draft",
        lambda m, t: t.packs[1].cards.extend([_unnamed(t)]),
        3,
        "the_council.packs[1].cards",
        "names cards of a pack it has not held",
    ),
    # Seat 3 held pack 3 in round 0; seat 0 holds it now and has picked from it.
    (
        "draft",
        lambda m, t: setattr(t.packs[3], "picked", t.packs[3].cards[0]),
        3,
        "the_council.packs[3].picked",
        "seat 0's pick is hidden in seat 3's view",
    ),
    (
        "draft",
        lambda m, t: setattr(t, "unknown_cards", t.unknown_cards - 1),
        3,
        "the_council.unknown_cards",
        "must make the 44 cards",
    ),
    # The phase's own shape.
    (
        "draft",
        lambda m, t: setattr(t.packs[2], "size", 6),
        None,
        "the_council.packs[2].size",
        "must be 5 in draft round 1",
    ),
    (
        "draft",
        lambda m, t: t.packs[(0 - t.draft_round) % 4].ClearField("picked"),
        None,
        "the_council.packs[3].picked",
        "has picked this round",
    ),
    (
        "draft",
        lambda m, t: setattr(t, "event", t.deck[-1]),
        None,
        "the_council.deck[19]",
        "is in two places: also at the_council.event",
    ),
    ("draft", _turn_an_event, None, "the_council.event", "must be absent during the draft"),
    (
        "draft",
        lambda m, t: t.packs[0].held_by.append(3),
        None,
        "the_council.packs[0].held_by",
        "must be the seats [0, 1]",
    ),
    (
        "draft",
        lambda m, t: t.packs[0].held_by.append(7),
        None,
        "the_council.packs[0].held_by[2]",
        "must be in 0..3, got 7",
    ),
    (
        "bid",
        lambda m, t: setattr(t.packs[0], "picked", "The Author"),
        None,
        "the_council.packs[0].picked",
        "is not one of this pack's cards",
    ),
    (
        "bid",
        lambda m, t: t.seats[2].to_reveal.append(t.seats[2].drafted[0]),
        None,
        "the_council.seats[2].to_reveal",
        "has not bid yet in this event",
    ),
    (
        "bid",
        lambda m, t: setattr(t.seats[0], "score", 3),
        None,
        "the_council.seats[0].score",
        "must be 0 until the game is over",
    ),
]


@pytest.mark.parametrize(("which", "edit", "view", "path", "words"), CASES)
def test_a_bad_position_names_the_field(which, edit, view, path, words):
    state = _bid_position() if which == "bid" else _draft_position()
    found = _problems(_edit(state, edit, view))
    assert any(f == path and words in p for f, p in found), found


def test_the_positions_of_the_cases_are_valid():
    for state in (_bid_position(), _draft_position()):
        for view in (None, 0, 1, 2, 3):
            shown = state if view is None else state.view(view)
            assert state_from_proto(state_to_proto(shown)) == shown


def test_both_games_parts_are_refused():
    cof = state_to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=1))
    cof.the_council.phase = "draft"
    assert _problems(cof) == [
        (
            "the_council",
            "a part of The Council's position: config.game must then be GAME_THE_COUNCIL "
            "(absent means Council of Four)",
        )
    ]
    cof.ClearField("the_council")
    cof.config.game = pb.GAME_COUNCIL_OF_FOUR  # naming Council of Four is the same
    assert state_from_proto(cof) == CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=3), seed=1
    )
    cof.config.game = 9  # type: ignore[assignment]
    assert _problems(cof)[0][0] == "config.game"


def test_mutated_positions_are_refused_or_playable():
    """Random edits of valid messages: each is refused with field violations or read into
    a position the rules can play to its end (never a crash)."""
    rng = random.Random(5)
    states = [s for s in random_positions(4, 21, every=9, games=2) if not s.is_terminal()]
    ints = [
        "hand",
        "dealer",
        "draft_round",
        "starter",
        "bids_done",
        "events_done",
        "deck_size",
        "unknown_cards",
        "current",
        "next_starter",
    ]
    accepted = refused = 0
    for i in range(400):
        state = rng.choice(states)
        view = rng.choice([None, state.current_player])
        msg = state_to_proto(state if view is None else state.view(view))
        tc = msg.the_council
        what = rng.randrange(5)
        if what == 0:
            setattr(tc, rng.choice(ints), rng.randrange(-1, 8))
        elif what == 1:
            seat = rng.choice(tc.seats)
            setattr(
                getattr(seat, rng.choice(["chips", "bid", "ranks"])),
                rng.choice(SUIT_FIELDS),
                rng.randrange(-1, 120),
            )
        elif what == 2:
            cards = [c for c in (list(tc.deck) + list(tc.spent)) if c] or list(CARD_NAMES)
            rng.choice(tc.seats).drafted.append(rng.choice(cards))
        elif what == 3:
            rng.choice(tc.packs).ClearField(rng.choice(["picked", "face_down"]))
        else:
            tc.phase = rng.choice(["draft", "bid", "reveal", "over"])
        try:
            got = state_from_proto(msg)
        except StateValidationError as e:
            assert e.violations
            refused += 1
            continue
        accepted += 1
        assert isinstance(got, TheCouncilState)
        if not got.is_terminal():
            world = got.determinize(i) if got.is_view else got
            world.random_playout(i)
            assert world.is_terminal()
    assert refused > 100 and accepted > 20


def test_configs_of_the_council():
    msg = pb.GameConfig(game=pb.GAME_THE_COUNCIL, players=5)
    assert config_from_proto(msg) == TheCouncilConfig(players=5)
    assert config_from_proto(pb.GameConfig(game=pb.GAME_THE_COUNCIL)) == TheCouncilConfig()
    assert config_from_json({"game": "GAME_THE_COUNCIL", "players": 3}) == TheCouncilConfig(3)
    with pytest.raises(StateValidationError) as e:
        config_from_proto(pb.GameConfig(game=pb.GAME_THE_COUNCIL, players=2, max_coins=20))
    assert e.value.violations == [
        (
            "config.max_coins",
            "a rule variant of Council of Four: The Council's configuration "
            "is game and players only",
        ),
    ]
    with pytest.raises(StateValidationError) as e:
        config_from_proto(pb.GameConfig(game=pb.GAME_THE_COUNCIL, players=2), "new.config")
    assert e.value.violations == [("new.config.players", "The Council seats 3, 4 or 5, got 2")]
    with pytest.raises(StateValidationError) as e:
        config_from_json({"game": "GAME_CHESS"})
    assert e.value.field == "config.game" and "unknown value 'GAME_CHESS'" in e.value.problem
    # Council of Four's configuration is read as before, `game` named or not.
    assert config_from_json(
        {"game": "GAME_COUNCIL_OF_FOUR", **CouncilOfFourConfig().to_dict()}
    ) == (CouncilOfFourConfig())


def test_json_documents_of_the_council_are_checked_against_the_schema():
    obj = json.loads(dumps(TheCouncilState.new_game(3, seed=2)))
    obj["the_council"]["seats"][0]["chips"]["stars"] = 1
    obj["the_council"]["hand"] = "one"
    with pytest.raises(StateValidationError) as e:
        state_from_json(obj)
    assert e.value.violations == [
        ("the_council.hand", "must be an integer"),
        ("the_council.seats[0].chips.stars", "unknown field"),
    ] or sorted(e.value.violations) == sorted(
        [
            ("the_council.hand", "must be an integer"),
            ("the_council.seats[0].chips.stars", "unknown field"),
        ]
    )
