"""What an action did (issue #30): each game's ``Game.effects`` on hand-made positions, with
the exact numbers and lines, and that a seat's effects never name a card it cannot see."""

from __future__ import annotations

import random
import re

import pytest

from council.engine import council_of_four_board as B
from council.engine import the_council_effects as tc_effects
from council.engine._the_council import CARDS
from council.engine.effects import action_effects, known_effects
from council.engine.games import game_named
from council.v1 import game_pb2 as pb
from tests.engine import council_positions as tcp
from tests.engine.positions import (
    T_ASS1,
    T_COIN_ASS,
    T_COINS1,
    T_COINS2,
    T_NOB_A,
    T_VP1,
    T_VP2,
    T_VP3,
    Pos,
    acquire,
    build_king,
    build_permit,
    pay,
)


def seat_of(effects: pb.ActionEffects, seat: int) -> pb.SeatEffects:
    return next(s for s in effects.seats if s.seat == seat)


def texts(effects: pb.ActionEffects, seat: int | None = None) -> list[str]:
    return [
        line.text
        for line in effects.lines
        if seat is None or (line.HasField("seat") and line.seat == seat)
    ]


def applied(state, action, seat=None):
    """The effects of `action` in `state` (applied in place), as `seat` sees them."""
    before = state.clone()
    state.apply(action)
    return action_effects(before, state, action, seat)


# -- Council of Four ---------------------------------------------------------------------


def linked_king_build():
    """Seat 0 moves the king from Juvelar to Merkatim (2 roads) with emporiums linked to it
    in Hellar, Osium, Esti, Naris and Burgen: six city tokens, the king's council paid with
    four cards (0 coins), its payment decision next."""
    state = (
        Pos(players=3)
        .known_councils()
        .tokens(
            {
                "Merkatim": T_NOB_A,  # +1 nobility
                "Hellar": T_VP3,
                "Osium": T_ASS1,
                "Esti": T_COIN_ASS,
                "Naris": T_VP1,
                "Burgen": T_COINS1,
            }
        )
        .emporia(0, ["Hellar", "Osium", "Esti", "Naris", "Burgen"])
        .emporia(1, [])
        .emporia(2, [])
        .neutral([])
        .nobility(0, 3)
        .coins(0, 10)
        .assistants(0, 1)
        .hand(0, white=1, black=1, pink=1, purple=1)
        .king("Juvelar")
        .state()
    )
    state.apply(build_king(B.city_index("Merkatim")))
    return state


def test_a_king_build_collects_every_linked_city_token():
    state = linked_king_build()
    effects = applied(state, pay(white=1, black=1, pink=1, purple=1))
    me = seat_of(effects, 0)
    assert (me.score, me.coins, me.assistants, me.nobility_steps) == (4, 2 - 4, 2, 1)
    assert (me.emporiums_built, me.politics_cards_played, me.politics_cards_drawn) == (1, 4, 0)
    assert list(me.city_tokens) == ["Merkatim", "Hellar", "Osium", "Esti", "Naris", "Burgen"]
    assert texts(effects, 0) == [
        "satisfies the king's council with white+black+pink+purple: no coins",
        "moves the king from Juvelar to Merkatim (2 roads): -4 coins",
        "builds an emporium in Merkatim",
        "City tokens of Merkatim, Hellar, Osium, Esti, Naris, Burgen: +4 VP, +2 coins, "
        "+2 assistants, +1 nobility step",
        "nobility track: moves to space 4: take the bonus of one city token of a city of yours",
    ]
    assert [s.seat for s in effects.seats] == [0]  # nobody else changed
    assert state.decision_name == "city_token"


def test_a_region_bonus_and_the_kings_reward_tile_won_at_once():
    # Seat 0 holds Arkon, Burgen, Castrum, Dorful and builds in Esti: the coast's bonus
    # tile and the top king's reward tile; VP 17 -> 17 + 6 (tokens) + 5 + 25.
    esti = 4  # the permit tile of Esti alone
    state = (
        Pos(players=3)
        .tokens({"Arkon": T_VP1, "Burgen": T_VP2, "Castrum": T_VP3})
        .tokens({"Dorful": T_COINS1, "Esti": T_COINS2})
        .emporia(0, ["Arkon", "Burgen", "Castrum", "Dorful"])
        .emporia(1, [])
        .emporia(2, [])
        .neutral([])
        .vp(0, 17)
        .coins(0, 10)
        .permits(0, up=[esti])
        .state()
    )
    assert state.scores()[0] == 17
    effects = applied(state, build_permit(esti, 0))
    me = seat_of(effects, 0)
    assert state.scores()[0] == 53
    assert (me.score, me.coins, me.emporiums_built, me.permit_tiles_gained) == (36, 3, 1, 0)
    assert list(me.bonus_tiles) == ["coast"]
    assert list(me.king_tiles) == [25]
    assert texts(effects, 0) == [
        "uses permit tile 4 (Esti)",
        "builds an emporium in Esti",
        "City tokens of Esti, Burgen, Arkon, Dorful, Castrum: +6 VP, +3 coins",
        "Region bonus: coast, +5 VP",
        "King's reward tile: +25 VP",
    ]


def acquire_position():
    """Seat 0 has chosen face-up coast tile 3 (Dorful, +7 VP); four cards pay the coast."""
    state = (
        Pos(players=3)
        .known_councils()
        .face_up("coast", 3, 0)
        .hand(0, white=2, black=1, orange=1)
        .coins(0, 5)
        .state()
    )
    state.apply(acquire("coast", 0))
    return state


def test_an_acquired_permit_tile_and_its_bonus():
    state = acquire_position()
    effects = applied(state, pay(white=2, black=1, orange=1))
    me = seat_of(effects, 0)
    assert (me.score, me.coins, me.permit_tiles_gained, me.politics_cards_played) == (7, 0, 1, 4)
    assert texts(effects, 0) == [
        "satisfies the coast council with white+white+black+orange: no coins",
        "acquires permit tile 3 (Dorful): +7 VP",
    ]
    # The slot is refilled from the deck: the new tile is public once face up.
    new_tile = state.to_raw()["face_up"][0][0]
    assert texts(effects)[-1].startswith(f"new face-up permit tile {new_tile} (")
    assert not effects.partial


def test_a_permit_tiles_nobility_step_pays_the_space_it_stops_on():
    # Tile 16 (Graden: +2 VP, +2 assistants, +1 nobility) from nobility 1: space 2 pays
    # 2 VP and 2 coins.
    state = (
        Pos(players=3)
        .known_councils()
        .face_up("hills", 16, 15)
        .hand(0, black=1, orange=1, pink=1, purple=1)
        .nobility(0, 1)
        .coins(0, 5)
        .assistants(0, 1)
        .state()
    )
    state.apply(acquire("hills", 0))
    effects = applied(state, pay(black=1, orange=1, pink=1, purple=1))
    me = seat_of(effects, 0)
    assert (me.score, me.coins, me.assistants, me.nobility_steps) == (4, 2, 2, 1)
    assert texts(effects, 0) == [
        "satisfies the hills council with black+orange+pink+purple: no coins",
        "acquires permit tile 16 (Graden): +2 VP, +2 assistants, +1 nobility step",
        "nobility track: moves to space 2: +2 VP, +2 coins",
    ]


def test_known_effects_of_a_payment_leave_out_the_refilled_tile():
    state = acquire_position()
    action = pay(white=2, black=1, orange=1)
    known = known_effects(state.view(0), 0)[action]
    assert seat_of(known, 0).score == 7
    assert known.partial  # the tile drawn into the slot is hidden until drawn
    assert not any(t.startswith("new face-up") for t in texts(known))


def test_an_opponents_draw_is_counted_never_named():
    # Seat 0 ends its turn: seat 1 draws a politics card. Seat 0's view of it (and seat
    # 2's) counts the card; the full state's effects name no card either.
    state = Pos(players=3).turn(current=0, main_left=0, main_done=1).state()
    before = state.clone()
    state.apply(0)
    drawn = [k for k in range(7) if state.to_raw()["hand"][1][k] != before.to_raw()["hand"][1][k]]
    assert len(drawn) == 1
    for seat in (0, 2, None):
        effects = action_effects(before, state, 0, seat)
        assert seat_of(effects, 1).politics_cards_drawn == 1
        assert texts(effects, 1) == ["draws 1 politics card"]
        words = str(effects).lower()
        assert B.CARD_KINDS[drawn[0]] not in words
        assert not any(kind in words for kind in B.CARD_KINDS)


def test_the_final_scoring_awards():
    # Seat 1 built the 10th emporium first; seat 0 ends the last turn: nobility 5 / 2 and
    # most permit tiles 3; seat 1's coast and gold bonus tiles and first king's reward tile
    # (scored at the end, RULINGS 17: its provisional score held them already).
    state = (
        Pos(players=2)
        .vp(0, 11)
        .vp(1, 17)
        .nobility(0, 6)
        .nobility(1, 2)
        .permits(1, down=[0, 1])
        .bonus_tiles(1, 0b1001, king_bits=0b1)
        .bonus_left(0b1110110, king_taken=1)
        .end_trigger(1)
        .turn(current=0, main_left=0, main_done=1)
        .state()
    )
    effects = applied(state, 0)
    assert state.is_terminal()
    assert (seat_of(effects, 0).score, seat_of(effects, 1).score) == (5, 2 + 3)
    assert texts(effects, 0)[-2:] == [
        "final scoring: VP track, 11 VP",
        "final scoring: nobility track, first, +5 VP",
    ]
    assert texts(effects, 1) == [
        "final scoring: VP track, 17 VP",
        "final scoring: region bonus tile (coast), +5 VP",
        "final scoring: colour bonus tile (gold cities), +20 VP",
        "final scoring: king's reward tile, +25 VP",
        "final scoring: nobility track, second, +2 VP",
        "final scoring: most permit tiles, +3 VP",
    ]
    # The parts sum to each seat's final score (what the page's breakdown shows).
    for seat in (0, 1):
        parts = [re.search(r"(\d+) VP$", t) for t in texts(effects, seat)]
        assert sum(int(m[1]) for m in parts if m) == state.scores()[seat]
    assert state.scores() == [16, 17 + 5 + 20 + 25 + 2 + 3]


def _tied_end(assistants: tuple[int, int]):
    """Seat 0 ends the last turn with both seats at 20 VP and no award to tell them apart;
    `assistants` each, no politics cards."""
    return (
        Pos(players=2)
        .vp(0, 20)
        .vp(1, 20)
        .assistants(0, assistants[0])
        .assistants(1, assistants[1])
        .hand(0)
        .hand(1)
        .end_trigger(1)
        .turn(current=0, main_left=0, main_done=1)
        .state()
    )


@pytest.mark.parametrize(
    ("assistants", "winners", "last"),
    [
        ((2, 3), [1], "seat 0 2, seat 1 3: seat 1 holds the most and wins"),
        ((3, 3), [0, 1], "seat 0 3, seat 1 3: still tied, a shared win"),
    ],
)
def test_a_tie_for_the_most_vp_names_its_tie_break(assistants, winners, last):
    state = _tied_end(assistants)
    effects = applied(state, 0)
    assert state.is_terminal() and state.winners() == winners
    top = state.scores()[0]
    assert state.scores() == [top, top]
    assert effects.lines[-1].text == (
        f"tie-break: seat 0 and seat 1 tied at {top} VP; assistants and politics cards held: {last}"
    )


def test_no_tie_break_line_without_a_tie():
    state = Pos(players=2).vp(0, 30).vp(1, 20).end_trigger(1)
    state = state.turn(current=0, main_left=0, main_done=1).state()
    effects = applied(state, 0)
    assert not any(line.text.startswith("tie-break") for line in effects.lines)


# -- The Council --------------------------------------------------------------------------


def resolve(state, bids):
    """Every seat bids (bids[seat] = (chips, reveal)); the effects of the last reveal."""
    for _ in range(state.n_players - 1):
        seat = state.current_player
        chips, reveal = bids.get(seat, ({}, ()))
        tcp.take_bid(state, chips, reveal)
    chips, reveal = bids.get(state.current_player, ({}, ()))
    for x in sorted(chips, key=tcp.suit):
        for _ in range(chips[x]):
            state.apply(tcp.bid(x))
    state.apply(tcp.END_BID)
    return applied(state, tcp.reveal_mask(state, reveal))


def test_the_council_a_tie_at_the_end_names_its_tie_break():
    """Random 3-seat games until one ends in a tie for the highest score: its last line
    names the tied seats, each one's lowest card of the last event and who won (TC13)."""
    game = game_named("the-council")
    for seed in range(400):
        state, chooser = game.new_game(game.config_class(players=3), seed=seed), random.Random(seed)
        while not state.is_terminal():
            before = state.clone()
            action = chooser.choice(state.legal_actions())
            state.apply(action)
        scores = state.scores()
        if scores.count(max(scores)) > 1:
            break
    else:
        pytest.fail("no tied game in 400")
    last = action_effects(before, state, action, None).lines[-1].text
    tied = [q for q, points in enumerate(scores) if points == max(scores)]
    assert last.startswith(
        "tie-break: " + " and ".join(f"seat {q}" for q in tied) + f" tied at {max(scores)}; "
    )
    if len(state.winners()) == 1:
        assert f": seat {state.winners()[0]} wins" in last
    else:
        assert last.endswith("none revealed a card, a shared win")


def test_the_council_event_succeeds():
    # The Journey (Moons, Waves; rank 3): seat 0 bids 3 Moons and reveals The Huntress
    # (Crown of Moons): success; seat 0 the highest Moons bidder, nobody bids Waves.
    state = tcp.event_position(
        event="The Journey", drafted={0: ["The Huntress"]}, chips={0: {tcp.MOONS: 3}}
    )
    effects = resolve(state, {0: ({tcp.MOONS: 3}, ["The Huntress"])})
    event = effects.event
    assert (event.event, event.needed, event.bid, event.succeeded) == ("The Journey", 3, 3, True)
    assert [(s.suit, s.HasField("seat"), s.seat) for s in event.suits] == [
        ("Moons", True, 0),
        ("Waves", False, 0),
    ]
    assert seat_of(effects, 0).ranks.moons == 2  # the crown's rank and the bid's
    assert "The Journey (rank 3) succeeds: 3 chips bid" in texts(effects)
    assert texts(effects, 0)[-2:] == [
        "bid the most Moons: gains a Moons rank",
        "The Huntress: +1 Moons rank",
    ]


def test_the_council_event_fails():
    # The Sailor (Waves, Leaves; rank 4) with 3 Waves chips: a failure; seat 0 revealed
    # The Consul (a Court): a traitor chip.
    state = tcp.event_position(
        event="The Sailor", drafted={0: ["The Consul"]}, chips={1: {tcp.WAVES: 4}}
    )
    effects = resolve(state, {0: ({}, ["The Consul"]), 1: ({tcp.WAVES: 3}, [])})
    event = effects.event
    assert (event.needed, event.bid, event.succeeded) == (4, 3, False)
    assert seat_of(effects, 0).traitor_chips == 1
    assert "The Consul: +1 traitor chip" in texts(effects, 0)
    assert "The Sailor (rank 4) fails: 3 chips bid" in texts(effects)


def test_the_council_known_effects_of_the_last_reveal_say_nothing_of_the_outcome():
    state = tcp.event_position(
        event="The Sailor", drafted={0: ["The Consul"]}, chips={1: {tcp.WAVES: 4}}
    )
    for _ in range(2):
        tcp.take_bid(state, {}, ())
    state.apply(tcp.END_BID)
    known = known_effects(state.view(2), 2)
    assert all(e.partial and not e.HasField("event") for e in known.values())


def test_the_council_lines_say_chips_in_the_singular_or_plural():
    # The last pick of a round: each seat's drafted card and the chip of each of its suits;
    # then a bid of one chip.
    game = game_named("the-council")
    state = game.new_game(game.config_class(players=3), seed=1)
    for _ in range(2):
        state.apply(state.legal_actions()[0])
    last = state.legal_actions()[0]
    drafts = texts(applied(state, last))[1:4]
    for line in drafts:
        card, chips = line.removeprefix("drafts ").split(": ")
        suits = CARDS[tcp.CARD_NAMES.index(card)].suits
        assert chips == ", ".join(f"+1 {tcp.SUITS[x]} chip" for x in suits), line
    assert len(drafts) == 3 and not any("(s)" in t for t in drafts)
    assert tc_effects._chips([2, 1, 0, 0, 0, 0]) == "+2 Moons chips, +1 Suns chip"


def test_the_council_a_pick_is_named_only_to_its_seat():
    game = game_named("the-council")
    state = game.new_game(game.config_class(players=3), seed=1)
    action = state.legal_actions()[0]
    name = tcp.CARD_NAMES[action - tcp.PICK]
    for seat in (None, 0, 1, 2):
        effects = action_effects(state, state.child(action), action, seat)
        assert (name in str(effects)) == (seat in (None, 0))


# -- Kuhn poker ---------------------------------------------------------------------------


def test_kuhn_poker_the_pot():
    game = game_named("kuhn-poker")
    state = game.new_game(seed=3)  # seat 0 J, seat 1 K
    bet = applied(state, 1)
    assert (bet.pot, seat_of(bet, 0).chips_bet) == (3, 1)
    fold = applied(state, 0)
    assert fold.pot == 3
    assert [(s.seat, s.score) for s in fold.seats] == [(0, 1), (1, -1)]
    assert texts(fold) == ["folds: gives up the pot", "takes the pot of 3 chips, +1"]


@pytest.mark.parametrize("game", ["council-of-four", "the-council", "kuhn-poker", "leduc-poker"])
def test_every_legal_action_has_known_effects(game):
    g = game_named(game)
    state = g.new_game(seed=2)
    seat = state.current_player
    known = known_effects(state.view(seat), seat)
    assert sorted(known) == state.legal_actions()
    assert all(isinstance(e, pb.ActionEffects) for e in known.values())


@pytest.mark.parametrize(
    ("game", "games", "max_actions"),
    [
        ("council-of-four", 2, 150),
        ("the-council", 2, 250),
        ("kuhn-poker", 40, 3),
        ("leduc-poker", 40, 8),
    ],
)
def test_a_seats_effects_follow_from_what_it_sees(game, games, max_actions):
    # No leak: two deals a seat cannot tell apart, before and after the same action, give
    # that seat the same effects. (The Council's last reveal of an event is left out: the
    # cards it reveals are public, while a new hand dealt after it may forget them.)
    g = game_named(game)
    chooser = random.Random(7)
    compared = twins = 0
    for seed in range(games):
        state = g.new_game(seed=seed)
        for _ in range(max_actions):
            if state.is_terminal():
                break
            mover = state.current_player
            action = chooser.choice(state.legal_actions())
            resolves = game == "the-council" and effects_resolve(state, action)
            for seat in range(state.n_players):
                if seat == mover or resolves:
                    continue
                other = state.view(seat).determinize(chooser.randrange(1 << 30))
                one = state.clone()
                for world in (one, other):
                    world.reseed(seed)
                if not other.is_legal(action):
                    continue
                after_one, after_other = one.child(action), other.child(action)
                if after_one.view(seat) != after_other.view(seat):
                    continue  # the action showed the seat something: a draw of its own
                mine = action_effects(one, after_one, action, seat)
                assert mine == action_effects(other, after_other, action, seat)
                compared += 1
                # Another action the seat cannot tell from this one (a secret pick) tells
                # it the same.
                twin = chooser.choice(state.legal_actions())
                after_twin = one.child(twin)
                if twin != action and after_twin.view(seat) == after_one.view(seat):
                    assert mine == action_effects(one, after_twin, twin, seat)
                    twins += 1
            state.apply(action)
    assert compared >= 40
    assert twins >= (10 if game == "the-council" else 0)


def effects_resolve(state, action) -> bool:
    raw = state.to_raw()
    return action >= tcp.REVEAL and raw["bids_done"] + 1 == raw["n_players"]
