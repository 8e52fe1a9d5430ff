"""Main and quick actions, payments, turn structure (rulebook; RULINGS 6, 14-16, 22-24)."""

from __future__ import annotations

from itertools import product

import pytest
from positions import (
    END_TURN,
    ENGAGE,
    EXTRA_MAIN,
    T_COINS1,
    T_VP1,
    T_VP2,
    T_VP3,
    Pos,
    acquire,
    build_king,
    build_permit,
    cards,
    change,
    city,
    elect,
    hand,
    of_kind,
    owned_tiles,
    pay,
    pay_tuple,
    play,
    quick_elect,
    tile,
)

from council.engine import IllegalActionError
from council.engine import council_of_four_board as B
from council.engine._council_of_four import PAYMENTS

W, K, OR, P, U, C, J = range(7)  # white black orange pink purple cyan joker
COAST, HILLS, MOUNTAINS = 0, 1, 2


def board4(**kw) -> Pos:
    """Four players, default layout ABA, known balconies (pool: no white, one black, one
    purple, two orange, pink and cyan)."""
    return Pos(**kw).known_councils()


# -- elect ---------------------------------------------------------------------------------
def test_elect_pushes_councillor_out_and_pays_4_coins():
    s = board4().coins(0, 10).state()
    r = s.to_raw()
    assert r["pool"] == [0, 1, 2, 2, 1, 2]
    legal = s.legal_actions()
    # Every balcony x every colour still in the pool (white is not).
    assert of_kind(legal, "elect") == [b * 6 + c for b in range(4) for c in (K, OR, P, U, C)]
    play(s, elect("coast", "cyan"))
    r = s.to_raw()
    assert r["balcony"][0] == [C, W, W, K]  # new one at slot 0, orange fell out
    assert r["pool"] == [0, 1, 3, 2, 1, 1]
    assert r["coins"][0] == 14
    assert (r["main_left"], r["main_done"]) == (0, 1)
    legal = s.legal_actions()
    assert END_TURN in legal
    assert of_kind(legal, "elect") == []  # no main action left
    assert of_kind(legal, "quick_elect") != []  # the quick action is still there


def test_elect_coins_capped_at_20():
    s = board4().coins(0, 18).state()
    play(s, elect("king", "black"))
    assert s.to_raw()["coins"][0] == 20
    assert s.to_raw()["balcony"][3] == [K, W, K, P]


def test_elect_same_colour_as_the_one_falling_out():
    s = board4().state()
    play(s, elect("coast", "orange"))
    r = s.to_raw()
    assert r["balcony"][0] == [OR, W, W, K] and r["pool"] == [0, 1, 2, 2, 1, 2]


# -- acquire a permit tile -----------------------------------------------------------------
def expected_payments(balcony: list[int], hand_counts, coins: int) -> set[tuple]:
    """Oracle: every multiset of 1..4 cards, each matched to a different councillor."""
    out = set()
    ranges = [range(min(balcony.count(k), hand_counts[k]) + 1) for k in range(6)]
    for colours in product(*ranges):
        for j in range(hand_counts[J] + 1):
            n = sum(colours) + j
            if 1 <= n <= 4 and {1: 10, 2: 7, 3: 4, 4: 0}[n] + j <= coins:
                out.add((*colours, j))
    return out


@pytest.mark.parametrize("coins", [20, 11, 7, 4, 2, 1])
def test_acquire_lists_every_distinct_payment_and_only_those(coins):
    # Coast balcony: white, white, black, orange.
    h = cards(white=3, black=1, pink=1, joker=2)
    s = board4().hand(0, white=3, black=1, pink=1, joker=2).coins(0, coins).state()
    want = expected_payments([W, W, K, OR], h, coins)
    legal = s.legal_actions()
    assert want
    # Acquire is offered for both coast slots (and hills/mountains per their councils).
    assert acquire(COAST, 0) in legal and acquire(COAST, 1) in legal
    play(s, acquire(COAST, 0))
    assert s.decision() == ("pay_permit", 0)
    got = {PAYMENTS[a] for a in of_kind(s.legal_actions(), "pay")}
    assert got == want
    assert all(a >= 210 for a in s.legal_actions())


def test_acquire_with_coins_1_has_only_the_4_card_payments():
    s = board4().hand(0, white=3, black=1, pink=1, joker=2).coins(0, 1).state()
    play(s, acquire(COAST, 1))
    got = {PAYMENTS[a] for a in of_kind(s.legal_actions(), "pay")}
    # 4 cards cost 0 + 1 per joker; no orange in hand, so W W K + joker (1 coin) only.
    assert got == {(2, 1, 0, 0, 0, 0, 1)}


@pytest.mark.parametrize(
    "payment, cost",
    [
        (dict(white=1), 10),
        (dict(joker=1), 11),
        (dict(white=2), 7),
        (dict(white=1, joker=1), 8),
        (dict(white=2, black=1), 4),
        (dict(black=1, joker=2), 6),
        (dict(white=2, black=1, joker=1), 1),
        (dict(white=2, joker=2), 2),
    ],
)
def test_acquire_costs_10_7_4_0_plus_1_per_joker(payment, cost):
    d, a = tile("D"), tile("A")  # D: 7 VP; A: 4 VP + 3 coins
    s = (
        board4()
        .hand(0, white=3, black=1, pink=1, joker=2)
        .coins(0, 20)
        .face_up("coast", d, a)
        .deck("coast", [tile("BCD")])
        .state()
    )
    before = hand(s, 0)
    play(s, acquire(COAST, 0), pay(**payment))
    r = s.to_raw()
    assert r["coins"][0] == 20 - cost
    paid = cards(**payment)
    assert hand(s, 0) == tuple(b - p for b, p in zip(before, paid, strict=True))
    assert r["hand_n"][0] == sum(before) - sum(paid)
    assert tuple(r["discard"]) == paid
    assert r["vp"][0] == 7  # tile bonus at once
    assert owned_tiles(r["permits_up"][0]) == {d}
    assert r["face_up"][0] == [tile("BCD"), a]  # refilled from the deck
    assert r["deck_n"][0] == 0
    assert (r["main_left"], r["main_done"], r["pending_n"]) == (0, 1, 0)
    assert s.decision() == ("turn", None)


def test_acquire_not_legal_when_council_cannot_be_paid():
    # No card matches the coast council (white white black orange) and no joker.
    s = board4().hand(0, pink=3, cyan=2).coins(0, 20).state()
    assert all(a not in s.legal_actions() for a in (acquire(COAST, 0), acquire(COAST, 1)))
    # One matching card costs 10: not with 9 coins, yes with 10.
    s = board4().hand(0, white=1, pink=3).coins(0, 9).state()
    assert acquire(COAST, 0) not in s.legal_actions()
    s = board4().hand(0, white=1, pink=3).coins(0, 10).state()
    assert acquire(COAST, 0) in s.legal_actions()
    # A lone joker costs 11.
    s = board4().hand(0, joker=1).coins(0, 10).state()
    assert acquire(COAST, 0) not in s.legal_actions()
    s = board4().hand(0, joker=1).coins(0, 11).state()
    assert acquire(COAST, 0) in s.legal_actions()


def test_acquire_empty_slot_not_offered():
    s = board4().hand(0, white=2).coins(0, 20).face_up("coast", tile("A"), -1).state()
    s_r = s.to_raw()
    assert s_r["face_up"][0] == [tile("A"), -1]
    legal = s.legal_actions()
    assert acquire(COAST, 0) in legal and acquire(COAST, 1) not in legal


def test_acquire_duplicate_councillor_colours_need_duplicate_councillors():
    # Hills: black orange pink purple -> at most one card of each; W never matches.
    s = board4().hand(1, black=2, orange=1, white=2).turn(current=1).coins(1, 20).state()
    play(s, acquire(HILLS, 0))
    got = {PAYMENTS[a] for a in of_kind(s.legal_actions(), "pay")}
    assert got == {(0, 1, 0, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0, 0), (0, 1, 1, 0, 0, 0, 0)}


def test_acquire_last_tile_of_deck_leaves_slot_empty():
    s = (
        board4()
        .hand(0, white=2, black=1, orange=1)
        .face_up("coast", tile("D"), tile("A"))
        .deck("coast", [])
        .state()
    )
    play(s, acquire(COAST, 1), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert r["face_up"][0] == [tile("D"), -1]
    assert r["vp"][0] == 4 and r["coins"][0] == 10 + 3


def test_payment_is_not_legal_as_a_turn_action():
    s = board4().hand(0, white=2).state()
    with pytest.raises(IllegalActionError):
        s.apply(pay(white=2))


# -- build with a permit tile --------------------------------------------------------------
def test_build_with_permit_choice_of_city_and_assistants_per_other_emporium():
    abc = tile("ABC")
    p = (
        board4()
        .permits(0, up=[abc])
        .emporia(0, ["Burgen"])
        .emporia(1, ["Castrum"])
        .emporia(2, ["Castrum", "Arkon"])
        .assistants(0, 1)
        .tokens({"Arkon": T_VP1, "Castrum": T_VP2, "Burgen": T_VP3})
    )
    s = p.state()
    # Burgen: already own one. Castrum: 2 others, only 1 assistant. Arkon: 1 other.
    assert of_kind(s.legal_actions(), "build_permit") == [abc * 3 + 0]
    s = p.assistants(0, 2).state()
    assert of_kind(s.legal_actions(), "build_permit") == [abc * 3 + 0, abc * 3 + 2]
    play(s, build_permit(abc, 2))
    r = s.to_raw()
    assert r["assistants"][0] == 0
    assert r["emporia"][0] == (1 << city("Castrum")) | (1 << city("Burgen"))
    assert r["emporia_n"][0] == 2
    assert r["vp"][0] == 2  # Castrum's token; Burgen is not linked to Castrum on coast A
    assert owned_tiles(r["permits_up"][0]) == set()
    assert owned_tiles(r["permits_down"][0]) == {abc}
    assert (r["main_left"], r["main_done"]) == (0, 1)
    # The used tile cannot build again, even with a main action left.
    s = p.turn(main_left=2).state()
    play(s, build_permit(abc, 2))
    assert s.to_raw()["main_left"] == 1
    assert of_kind(s.legal_actions(), "build_permit") == []


def test_build_in_empty_city_costs_nothing():
    s = board4().permits(0, up=[tile("A")]).assistants(0, 0).token("Arkon", T_VP1).state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["assistants"][0] == 0 and r["vp"][0] == 1
    assert r["emporia"][0] == 1 << city("Arkon")


def test_build_permit_not_offered_with_ten_emporia():
    ten = ["Arkon", "Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar",
           "Indur", "Juvelar"]  # fmt: skip
    s = board4().emporia(0, ten).permits(0, up=[tile("K")]).state()
    assert of_kind(s.legal_actions(), "build_permit") == []
    assert of_kind(s.legal_actions(), "build_king") == []


# -- build with the king -------------------------------------------------------------------
KING_DIST_ABA = {"Juvelar": 0, "Graden": 1, "Hellar": 1, "Indur": 1, "Lyram": 1,
                 "Dorful": 2, "Esti": 2, "Framek": 2, "Kultos": 2, "Merkatim": 2, "Osium": 2,
                 "Burgen": 3, "Castrum": 3, "Naris": 3, "Arkon": 4}  # fmt: skip


@pytest.mark.parametrize("coins", [0, 1, 2, 4, 6, 8])
def test_king_route_costs_2_per_road_on_default_layout(coins):
    # King council: white black pink purple; a 4-card match costs 0.
    s = board4().hand(0, white=1, black=1, pink=1, purple=1).coins(0, coins).state()
    assert s.to_raw()["king_city"] == city("Juvelar")
    want = sorted(city(c) for c, d in KING_DIST_ABA.items() if 2 * d <= coins)
    assert of_kind(s.legal_actions(), "build_king") == want


@pytest.mark.parametrize("dest", ["Graden", "Framek", "Naris", "Arkon"])
def test_king_moves_and_builds_paying_council_plus_travel(dest):
    d = KING_DIST_ABA[dest]
    s = (
        board4()
        .hand(0, white=1, black=1, joker=1, cyan=2)
        .coins(0, 20)
        .token(dest, T_COINS1)
        .state()
    )
    play(s, build_king(dest))
    assert s.decision() == ("pay_king", city(dest))
    got = {PAYMENTS[a] for a in of_kind(s.legal_actions(), "pay")}
    assert got == expected_payments([W, K, P, U], cards(white=1, black=1, joker=1, cyan=2),
                                    20 - 2 * d)  # fmt: skip
    play(s, pay(white=1, black=1, joker=1))  # 3 cards: 4 + 1 joker
    r = s.to_raw()
    assert r["king_city"] == city(dest)
    assert r["coins"][0] == 20 - 5 - 2 * d + 1  # + the coin token of the city
    assert r["emporia"][0] == 1 << city(dest)
    assert hand(s, 0) == cards(cyan=2)
    assert (r["main_left"], r["main_done"]) == (0, 1)


def test_king_may_stay_for_free_and_the_next_route_starts_where_it_is():
    p = board4().hand(0, white=1).coins(0, 13)
    s = p.state()
    # 10 for one card leaves 3: only the king's city (0) and its neighbours (2).
    assert of_kind(s.legal_actions(), "build_king") == sorted(
        city(c) for c in ("Juvelar", "Graden", "Hellar", "Indur", "Lyram")
    )
    play(s, build_king("Juvelar"), pay(white=1))
    r = s.to_raw()
    assert r["coins"][0] == 3 and r["king_city"] == city("Juvelar")
    assert r["vp"][0] == 0 and r["emporia"][0] == 1 << city("Juvelar")  # no token there
    # King now in Arkon: Arkon-Burgen 1 road, Arkon-Juvelar 4 roads.
    s = p.king("Arkon").hand(0, white=1, black=1, pink=1, purple=1).coins(0, 2).state()
    assert of_kind(s.legal_actions(), "build_king") == sorted(
        city(c) for c in ("Arkon", "Burgen", "Castrum")
    )


def test_king_destination_needs_assistants_and_no_own_emporium():
    s = (
        board4()
        .hand(0, white=1, black=1, pink=1, purple=1)
        .coins(0, 2)
        .emporia(0, ["Graden"])
        .emporia(1, ["Hellar"])
        .emporia(2, ["Indur"])
        .emporia(3, ["Indur"])
        .assistants(0, 1)
        .state()
    )
    # Graden: own emporium; Indur: 2 others, 1 assistant; Hellar: 1 other, OK.
    assert of_kind(s.legal_actions(), "build_king") == sorted(
        city(c) for c in ("Juvelar", "Hellar", "Lyram")
    )


def test_king_not_legal_without_council_match():
    s = board4().hand(0, orange=4, cyan=3).coins(0, 20).state()
    assert of_kind(s.legal_actions(), "build_king") == []


# -- quick actions -------------------------------------------------------------------------
def test_engage_assistant_costs_3_coins():
    s = board4().coins(0, 3).assistants(0, 1).state()
    assert ENGAGE in s.legal_actions()
    play(s, ENGAGE)
    r = s.to_raw()
    assert (r["coins"][0], r["assistants"][0], r["quick_used"]) == (0, 2, 1)
    assert (r["main_left"], r["main_done"]) == (1, 0)
    s = board4().coins(0, 2).state()
    assert ENGAGE not in s.legal_actions()


def test_send_assistant_to_elect_gives_no_coins():
    s = board4().coins(0, 10).assistants(0, 1).state()
    play(s, quick_elect("hills", "cyan"))
    r = s.to_raw()
    assert r["balcony"][1] == [C, K, OR, P]
    assert r["pool"][U] == 2 and r["pool"][C] == 1
    assert (r["coins"][0], r["assistants"][0]) == (10, 0)
    assert (r["main_left"], r["main_done"], r["quick_used"]) == (1, 0, 1)
    s = board4().assistants(0, 0).state()
    assert of_kind(s.legal_actions(), "quick_elect") == []
    assert of_kind(s.legal_actions(), "change") == []


def test_change_permit_tiles_goes_under_slot0_then_slot1():
    a, b, c = tile("A"), tile("B"), tile("C")
    s = board4().assistants(0, 2).face_up("coast", a, b).deck("coast", [c]).state()
    play(s, change("coast"))
    r = s.to_raw()
    # Deck was [c] + [a, b] (known bottom): c is drawn first, then a, the top known one.
    assert r["face_up"][0] == [c, a]
    assert r["permit_deck"][0][:1] == [b] and r["deck_n"][0] == 1 and r["deck_known"][0] == 1
    assert r["assistants"][0] == 1 and r["quick_used"] == 1


def test_change_keeps_the_known_bottom_under_the_unknown_part():
    a, b = tile("A"), tile("B")
    rest = [tile("C"), tile("D"), tile("E")]
    s = board4().assistants(0, 1).face_up("coast", a, b).deck("coast", rest).state()
    play(s, change("coast"))
    r = s.to_raw()
    assert set(r["face_up"][0]) < set(rest)
    assert r["deck_n"][0] == 3 and r["deck_known"][0] == 2
    assert r["permit_deck"][0][1:3] == [a, b]
    assert set(r["permit_deck"][0][:1]) | set(r["face_up"][0]) == set(rest)


def test_change_allowed_with_one_tile_shown_and_not_with_none():
    a, c = tile("A"), tile("C")
    s = board4().assistants(0, 1).face_up("coast", a, -1).deck("coast", [c]).state()
    assert change("coast") in s.legal_actions()
    play(s, change("coast"))
    r = s.to_raw()
    assert r["face_up"][0] == [c, a] and r["deck_n"][0] == 0 and r["deck_known"][0] == 0
    s = board4().assistants(0, 1).face_up("coast", -1, -1).deck("coast", [c]).state()
    assert change("coast") not in s.legal_actions()
    assert change("hills") in s.legal_actions()


def test_change_with_empty_deck_puts_the_same_tiles_back():
    a, b = tile("A"), tile("B")
    s = board4().assistants(0, 1).face_up("coast", a, b).deck("coast", []).state()
    play(s, change("coast"))
    r = s.to_raw()
    assert r["face_up"][0] == [a, b] and r["deck_n"][0] == 0 and r["deck_known"][0] == 0


def test_extra_main_action_costs_3_assistants_and_can_be_declined():
    s = board4().assistants(0, 3).state()
    assert EXTRA_MAIN in s.legal_actions()
    play(s, EXTRA_MAIN)
    r = s.to_raw()
    assert (r["assistants"][0], r["main_left"], r["quick_used"]) == (0, 2, 1)
    assert END_TURN not in s.legal_actions()  # the first main action is owed
    play(s, elect("coast", "cyan"))
    assert END_TURN in s.legal_actions()  # the extra one may be declined
    assert elect("hills", "pink") in s.legal_actions()
    play(s, elect("hills", "pink"))
    r = s.to_raw()
    assert (r["main_left"], r["main_done"], r["coins"][0]) == (0, 2, 18)
    assert s.legal_actions() == [END_TURN]
    s = board4().assistants(0, 2).state()
    assert EXTRA_MAIN not in s.legal_actions()


def test_only_one_quick_action_per_turn():
    s = board4().coins(0, 20).assistants(0, 5).state()
    play(s, ENGAGE)
    legal = s.legal_actions()
    assert ENGAGE not in legal and EXTRA_MAIN not in legal
    assert of_kind(legal, "change") == [] and of_kind(legal, "quick_elect") == []
    play(s, elect("coast", "cyan"))
    assert s.legal_actions() == [END_TURN]


def test_quick_action_after_the_main_action():
    s = board4().coins(0, 10).assistants(0, 1).state()
    play(s, elect("coast", "cyan"))
    legal = s.legal_actions()
    assert ENGAGE in legal and EXTRA_MAIN not in legal
    play(s, ENGAGE)
    assert s.legal_actions() == [END_TURN]


# -- turn structure ------------------------------------------------------------------------
def test_end_turn_passes_and_next_player_draws():
    s = board4().hand(1, cyan=2).state()
    r0 = s.to_raw()
    play(s, elect("coast", "cyan"), END_TURN)
    r = s.to_raw()
    assert r["current"] == 1 and r["turn"] == r0["turn"] + 1
    assert r["hand_n"][1] == 3 and r["politics_deck_n"] == r0["politics_deck_n"] - 1
    assert (r["main_left"], r["main_done"], r["quick_used"]) == (1, 0, 0)
    assert END_TURN not in s.legal_actions()


def test_turn_order_wraps_to_seat_0():
    s = board4().turn(current=3).state()
    play(s, elect("coast", "cyan"), END_TURN)
    assert s.current_player == 0


def test_politics_deck_reshuffles_discard_when_empty():
    s = board4().hand(1, white=1).politics(deck=[0] * 7, discard=cards(orange=3)).state()
    play(s, elect("coast", "cyan"), END_TURN)
    r = s.to_raw()
    assert hand(s, 1) == cards(white=1, orange=1)
    assert r["politics_deck"] == [0, 0, 2, 0, 0, 0, 0] and r["politics_deck_n"] == 2
    assert r["discard"] == [0] * 7


def test_no_draw_when_deck_and_discard_are_empty():
    s = board4().hand(1, white=1).politics(deck=[0] * 7, discard=[0] * 7).state()
    play(s, elect("coast", "cyan"), END_TURN)
    r = s.to_raw()
    assert hand(s, 1) == cards(white=1) and r["hand_n"][1] == 1
    assert r["politics_deck_n"] == 0


def test_paid_cards_can_be_reshuffled_and_drawn():
    s = (
        board4()
        .hand(0, white=2, black=1, orange=1)
        .hand(1)
        .politics(deck=[0] * 7, discard=[0] * 7)
        .state()
    )
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1), END_TURN)
    r = s.to_raw()
    assert r["hand_n"][1] == 1 and r["politics_deck_n"] == 3 and r["discard"] == [0] * 7
    drawn = hand(s, 1)
    assert sum(drawn) == 1 and drawn[J] == 0 and drawn[P] == 0


def test_illegal_actions_raise():
    s = board4().coins(0, 2).assistants(0, 0).state()
    for a in (ENGAGE, EXTRA_MAIN, END_TURN, change("coast"), -1, 10_000):
        with pytest.raises(IllegalActionError):
            s.apply(a)


def test_every_main_action_listed_on_the_opening_position():
    s = (
        board4()
        .hand(0, white=1, black=1, pink=1, purple=1)
        .coins(0, 10)
        .assistants(0, 3)
        .permits(0, up=[tile("M")])
        .state()
    )
    legal = s.legal_actions()
    kinds = {k for k in ("elect", "acquire", "build_permit", "build_king", "change",
                         "quick_elect") if of_kind(legal, k)}  # fmt: skip
    assert kinds == {"elect", "acquire", "build_permit", "build_king", "change", "quick_elect"}
    assert ENGAGE in legal and EXTRA_MAIN in legal and END_TURN not in legal
    # Acquire in the hills (B O P U) with W K P U: pink+purple+black -> 4 coins.
    assert acquire(HILLS, 0) in legal
    # No orange, no white in the mountains except one white -> 10 coins, affordable.
    assert acquire(MOUNTAINS, 0) in legal


def test_pay_tuple_helper_matches_engine_indices():
    assert pay_tuple((1, 0, 0, 0, 0, 0, 0)) == 210
    assert PAYMENTS[0] == (1, 0, 0, 0, 0, 0, 0)
    assert len(PAYMENTS) == 329 and len(set(PAYMENTS)) == 329
    assert all(1 <= sum(p) <= 4 for p in PAYMENTS)
    assert B.CARD_KINDS[J] == "joker"


def test_permit_tile_may_be_acquired_even_if_its_city_cannot_be_built_in():
    # Seat 0 already owns Arkon; the Arkon tile is still acquirable (RULINGS 16).
    a = tile("A")
    s = (
        board4()
        .hand(0, white=2, black=1, orange=1)
        .emporia(0, ["Arkon"])
        .face_up("coast", a, tile("D"))
        .state()
    )
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert owned_tiles(r["permits_up"][0]) == {a} and r["vp"][0] == 4
    assert of_kind(s.legal_actions(), "build_permit") == []


def test_payment_sets_match_the_oracle_on_many_random_positions():
    """Acquire / king legality and the PAY sets against a brute-force oracle, on 150
    seeded random balconies, hands and coin counts (RULINGS 14, 15)."""
    import random

    rng = random.Random(20240601)
    dist = {city(c): d for c, d in KING_DIST_ABA.items()}
    for _ in range(150):
        p = Pos(seed=rng.randrange(1000))
        colours = rng.sample([c for c in range(6) for _ in range(4)], 16)
        for b in range(4):
            p.balcony(b, colours[4 * b : 4 * b + 4])
        counts = {B.CARD_KINDS[k]: rng.randrange(3) for k in range(7)}
        coins = rng.randrange(0, 21)
        s = p.hand(0, **counts).coins(0, coins).state()
        h = cards(**counts)
        legal = s.legal_actions()
        for b in range(3):
            want = expected_payments(colours[4 * b : 4 * b + 4], h, coins)
            assert (acquire(b, 0) in legal) == bool(want)
            if want:
                t = s.child(acquire(b, 0))
                assert {PAYMENTS[a] for a in of_kind(t.legal_actions(), "pay")} == want
        king = colours[12:16]
        for c, d in dist.items():
            want = expected_payments(king, h, coins - 2 * d) if coins >= 2 * d else set()
            assert (build_king(c) in legal) == bool(want)
            if want and rng.random() < 0.2:
                t = s.child(build_king(c))
                assert {PAYMENTS[a] for a in of_kind(t.legal_actions(), "pay")} == want
