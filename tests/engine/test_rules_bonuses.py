"""Bonuses: tiles, city tokens, the linked bonus, the nobility track and its choices
(rulebook; RULINGS 1, 4, 5, 11-13, 20-22)."""

from __future__ import annotations

import pytest
from positions import (
    END_TURN,
    ENGAGE,
    T_ASS1,
    T_ASS2,
    T_ASS_POL,
    T_COIN_ASS,
    T_COINS1,
    T_COINS2,
    T_COINS3,
    T_NOB_A,
    T_NOB_B,
    T_POL1,
    T_VP1,
    T_VP2,
    T_VP3,
    T_VP_POL,
    Pos,
    acquire,
    build_permit,
    choose_free_permit,
    choose_permit_bonus,
    choose_token,
    city,
    elect,
    of_kind,
    owned_tiles,
    pay,
    pending,
    play,
    tile,
)

from council.engine import council_of_four_board as B
from council.engine._council_of_four import Decision

COAST, HILLS, MOUNTAINS = 0, 1, 2
TILE_A = tile("A")  # Arkon; 4 VP + 3 coins
# Cities far from Arkon (not linked to it by roads on layout ABA when owned alone).
FAR = ("Esti", "Lyram", "Osium")


def base(**kw) -> Pos:
    """Seat 0 to play: 10 coins, 1 assistant, 6 known cards, the Arkon tile face up in
    hand (not yet used), a coast council W W K O it can pay with 4 cards."""
    return (
        Pos(**kw)
        .known_councils()
        .hand(0, white=2, black=1, orange=1, cyan=2)
        .coins(0, 10)
        .assistants(0, 1)
        .permits(0, up=[TILE_A])
    )


def build_arkon(p: Pos, token: int):
    s = p.token("Arkon", token).state()
    before = s.to_raw()
    play(s, build_permit(TILE_A))
    return before, s


# -- city tokens and tiles: every bonus kind ----------------------------------------------
@pytest.mark.parametrize(
    "token, dvp, dcoins, dass, dcards",
    [
        (T_COINS1, 0, 1, 0, 0),
        (T_COINS2, 0, 2, 0, 0),
        (T_COINS3, 0, 3, 0, 0),
        (T_VP1, 1, 0, 0, 0),
        (T_VP2, 2, 0, 0, 0),
        (T_VP3, 3, 0, 0, 0),
        (T_ASS1, 0, 0, 1, 0),
        (T_ASS2, 0, 0, 2, 0),
        (T_POL1, 0, 0, 0, 1),
        (T_COIN_ASS, 0, 1, 1, 0),
        (T_ASS_POL, 0, 0, 1, 1),
        (T_VP_POL, 1, 0, 0, 1),
    ],
)
def test_city_token_bonus(token, dvp, dcoins, dass, dcards):
    before, s = build_arkon(base(), token)
    r = s.to_raw()
    assert r["vp"][0] == dvp
    assert r["coins"][0] == 10 + dcoins
    assert r["assistants"][0] == 1 + dass
    assert r["hand_n"][0] == 6 + dcards
    assert r["politics_deck_n"] == before["politics_deck_n"] - dcards
    assert r["nobility"][0] == 0


def test_token_coins_capped_at_20():
    _, s = build_arkon(base().coins(0, 19), T_COINS3)
    assert s.to_raw()["coins"][0] == 20


def test_coins_cap_variant():
    _, s = build_arkon(base(max_coins=30).coins(0, 19), T_COINS3)
    assert s.to_raw()["coins"][0] == 22
    s = base(max_coins=30).coins(0, 18).state()
    play(s, elect("coast", "cyan"))
    assert s.to_raw()["coins"][0] == 22


def test_tile_bonus_coins_capped_at_20():
    # Arkon/Burgen tile: 3 coins + 1 politics card; paid with 4 cards (0 coins).
    s = base().coins(0, 19).face_up("coast", tile("AB"), tile("D")).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert r["coins"][0] == 20 and r["hand_n"][0] == 3


@pytest.mark.parametrize(
    "letters, dvp, dcoins, dass, dcards, dnob, dmain",
    [
        ("A", 4, 3, 0, 0, 0, 0),
        ("B", 0, 0, 1, 3, 0, 0),
        ("C", 0, 3, 2, 0, 0, 0),
        ("D", 7, 0, 0, 0, 0, 0),
        ("E", 0, 2, 0, 0, 0, 1),
        ("AE", 2, 2, 0, 0, 2, 0),  # nobility 0 -> 2: space 2 pays 2 VP + 2 coins
        ("CDE", 0, 0, 0, 1, 1, 0),
    ],
)
def test_permit_tile_bonus(letters, dvp, dcoins, dass, dcards, dnob, dmain):
    t = tile(letters)
    s = base().face_up("coast", t, tile("BC")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert r["vp"][0] == dvp
    assert r["coins"][0] == 10 + dcoins
    assert r["assistants"][0] == 1 + dass
    assert r["hand_n"][0] == 2 + dcards
    assert r["nobility"][0] == dnob
    assert r["main_left"] == dmain and r["main_done"] == 1
    assert owned_tiles(r["permits_up"][0]) == {t}


def test_extra_main_action_from_tile_may_be_declined_or_used():
    s = base().face_up("coast", tile("E"), tile("BC")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    legal = s.legal_actions()
    assert END_TURN in legal and elect("coast", "cyan") in legal
    play(s, elect("coast", "cyan"))
    r = s.to_raw()
    assert (r["main_left"], r["main_done"], r["coins"][0]) == (0, 2, 16)
    assert END_TURN in s.legal_actions() and elect("hills", "cyan") not in s.legal_actions()


def test_limited_assistant_supply():
    # 4 players hold 1+2+3+4 = 10 assistants: a supply of 10 is empty.
    p = base(assistant_supply=10).coins(0, 10)
    s = p.state()
    assert ENGAGE not in s.legal_actions()
    _, s = build_arkon(p, T_ASS2)
    assert s.to_raw()["assistants"][0] == 1
    # One assistant back in the supply (seat 3 has 3): the token gives only 1 of its 2.
    _, s = build_arkon(p.assistants(3, 3), T_ASS2)
    assert s.to_raw()["assistants"][0] == 2
    s = p.assistants(3, 3).state()
    assert ENGAGE in s.legal_actions()
    # Unlimited (default): always available.
    _, s = build_arkon(base().assistants(3, 300), T_ASS2)
    assert s.to_raw()["assistants"][0] == 3


# -- the linked bonus (RULINGS 11) ---------------------------------------------------------
def test_linked_bonus_collects_every_connected_own_city_once():
    # Coast A roads: A-B, A-C, B-D, B-E. Own Burgen and Dorful; Naris is unconnected.
    p = (
        base()
        .emporia(0, ["Burgen", "Dorful", "Naris"])
        .tokens(
            {"Arkon": T_VP1, "Burgen": T_VP2, "Dorful": T_COINS3, "Naris": T_VP3, "Esti": T_ASS1}
        )
    )
    s = p.state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["vp"][0] == 1 + 2 and r["coins"][0] == 13 and r["assistants"][0] == 1


def test_linked_bonus_stops_at_cities_without_own_emporium():
    # Own Dorful only: Arkon-Burgen-Dorful, but Burgen is not ours -> Arkon alone.
    p = base().emporia(0, ["Dorful"]).emporia(1, ["Burgen"])
    p.tokens({"Arkon": T_VP1, "Burgen": T_VP2, "Dorful": T_COINS3})
    s = p.state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["vp"][0] == 1 and r["coins"][0] == 10


def test_french_rulebook_linked_bonus_example_on_hills_b():
    """The player owns Framek, Castrum, Juvelar (king's city), Graden and Hellar, builds
    in Indur with a permit tile (1 assistant for the red emporium there): tokens of Indur
    (3 coins), Framek (2 VP), Castrum (3 VP), Graden (1 coin + 1 assistant), Hellar
    (1 coin); the hills are complete: 5 VP tile + the first king reward tile (25)."""
    indur = tile("I")
    p = (
        base()
        .permits(0, up=[indur])
        .emporia(0, ["Framek", "Castrum", "Juvelar", "Graden", "Hellar"])
        .emporia(1, ["Indur"])
        .assistants(0, 1)
        .coins(0, 5)
        .tokens(
            {
                "Indur": T_COINS3,
                "Framek": T_VP2,
                "Castrum": T_VP3,
                "Graden": T_COIN_ASS,
                "Hellar": T_COINS1,
                "Kultos": T_VP1,  # Indur-Kultos road: not ours, not collected
            }
        )
    )
    s = p.state()
    assert B.CITY_NAMES[s.to_raw()["king_city"]] == "Juvelar"
    assert build_permit(indur) in s.legal_actions()
    play(s, build_permit(indur))
    r = s.to_raw()
    assert r["coins"][0] == 5 + 3 + 1 + 1
    assert r["vp"][0] == 2 + 3
    assert r["assistants"][0] == 1 - 1 + 1
    assert r["emporia_n"][0] == 6
    assert r["bonus_tiles"][0] == 1 << HILLS
    assert r["king_tiles"][0] == 1 and r["king_tiles_taken"] == 1
    assert r["bonus_tiles_left"] == 0b1111111 & ~(1 << HILLS)
    assert s.scores()[0] == 5 + 5 + 25  # provisional: track + tiles


# -- the nobility track --------------------------------------------------------------------
def nob(start: int, **kw) -> Pos:
    """Seat 0 at nobility `start`, about to build in Arkon with a +1 nobility token.
    Seat 0 owns Esti (3 VP), Lyram (1 assistant), Osium (2 coins) and Naris (nobility)."""
    return (
        base(**kw)
        .nobility(0, start)
        .emporia(0, ["Esti", "Lyram", "Osium", "Naris"])
        .tokens(
            {
                "Arkon": T_NOB_A,
                "Esti": T_VP3,
                "Lyram": T_ASS1,
                "Osium": T_COINS2,
                "Naris": T_NOB_B,
                "Burgen": T_VP1,
                "Castrum": T_VP2,
            }
        )
    )


@pytest.mark.parametrize(
    "space, dvp, dcoins, dass, dcards, dmain",
    [
        (1, 0, 0, 0, 0, 0),
        (2, 2, 2, 0, 0, 0),
        (3, 0, 0, 0, 0, 0),
        (5, 0, 0, 0, 0, 0),
        (6, 0, 0, 0, 0, 1),
        (7, 0, 0, 0, 0, 0),
        (8, 3, 0, 0, 1, 0),
        (9, 0, 0, 0, 0, 0),
        (11, 0, 0, 0, 0, 0),
        (12, 5, 0, 1, 0, 0),
        (13, 0, 0, 0, 0, 0),
        (15, 0, 0, 0, 0, 0),
        (17, 0, 0, 0, 0, 0),
        (18, 8, 0, 0, 0, 0),
        (19, 2, 0, 0, 0, 0),
        (20, 3, 0, 0, 0, 0),
    ],
)
def test_nobility_space_fixed_bonus(space, dvp, dcoins, dass, dcards, dmain):
    s = nob(space - 1).state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["nobility"][0] == space
    assert r["vp"][0] == dvp
    assert r["coins"][0] == 10 + dcoins
    assert r["assistants"][0] == 1 + dass
    assert r["hand_n"][0] == 6 + dcards
    assert r["main_left"] == dmain
    assert r["pending_n"] == 0 and s.decision() == ("turn", None)


def test_nobility_track_ends_at_20():
    s = nob(20).state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["nobility"][0] == 20 and r["vp"][0] == 0
    # 19 + a 2-step tile stops at 20 and pays space 20 only.
    s = base().nobility(0, 19).face_up("coast", tile("AE"), tile("D")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert r["nobility"][0] == 20 and r["vp"][0] == 3


def test_nobility_4_one_city_token_not_a_nobility_one():
    s = nob(3).state()
    play(s, build_permit(TILE_A))
    assert s.decision() == ("city_token", 0)
    # Esti, Lyram, Osium; not Naris nor Arkon (nobility tokens), not Burgen (not ours).
    assert s.legal_actions() == [choose_token(c) for c in sorted(map(city, FAR))]
    play(s, choose_token("Esti"))
    r = s.to_raw()
    assert r["vp"][0] == 3 and r["nobility"][0] == 4 and r["pending_n"] == 0
    # Resolved decisions leave no trace in the queue (equal positions, equal structs).
    assert r["pending_kind"] == [0] * 16 and r["pending_arg"] == [0] * 16
    assert END_TURN in s.legal_actions()


def test_nobility_4_without_eligible_city_is_lost():
    s = nob(3).emporia(0, ["Naris", "Juvelar"]).state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["nobility"][0] == 4 and r["pending_n"] == 0
    assert s.decision() == ("turn", None)
    assert s.legal_actions()[0] == END_TURN
    assert r["vp"][0] == 0 and r["coins"][0] == 10


def test_nobility_16_two_different_cities():
    s = nob(15).state()
    play(s, build_permit(TILE_A))
    assert s.decision() == ("first_of_two_city_tokens", 0)
    esti, lyram, osium = (city(c) for c in FAR)
    # Pairs are picked in increasing order: the highest city cannot come first.
    assert s.legal_actions() == [choose_token(esti), choose_token(lyram)]
    play(s, choose_token("Esti"))
    assert s.decision() == ("second_of_two_city_tokens", esti)
    assert s.legal_actions() == [choose_token(lyram), choose_token(osium)]
    play(s, choose_token("Osium"))
    r = s.to_raw()
    assert r["vp"][0] == 3 and r["coins"][0] == 12 and r["assistants"][0] == 1
    assert r["pending_n"] == 0


def test_nobility_16_every_pair_reachable():
    pairs = set()
    for first in ("Esti", "Lyram"):
        s = nob(15).state()
        play(s, build_permit(TILE_A), choose_token(first))
        for a in s.legal_actions():
            pairs.add(frozenset((city(first), a - choose_token(0))))
    esti, lyram, osium = (city(c) for c in FAR)
    assert pairs == {frozenset(x) for x in ((esti, lyram), (esti, osium), (lyram, osium))}


def test_nobility_16_one_eligible_city_gives_that_one():
    s = nob(15).emporia(0, ["Osium", "Naris"]).state()
    play(s, build_permit(TILE_A))
    assert s.legal_actions() == [choose_token("Osium")]
    play(s, choose_token("Osium"))
    r = s.to_raw()
    assert r["coins"][0] == 12 and r["pending_n"] == 0 and s.decision() == ("turn", None)


def test_nobility_16_none_eligible_gives_nothing():
    s = nob(15).emporia(0, ["Naris"]).state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["nobility"][0] == 16 and r["pending_n"] == 0
    assert (r["vp"][0], r["coins"][0], r["assistants"][0]) == (0, 10, 1)


def test_nobility_10_free_face_up_tile_bonus_then_refill():
    p = nob(9).face_up("coast", tile("D"), tile("BC")).face_up("hills", tile("H"), tile("FG"))
    p.face_up("mountains", tile("N"), tile("KL")).deck("hills", [tile("HIJ")])
    s = p.state()
    play(s, build_permit(TILE_A))
    assert s.decision() == ("free_permit", 0)
    assert s.legal_actions() == [choose_free_permit(r, k) for r in range(3) for k in range(2)]
    play(s, choose_free_permit(HILLS, 0))  # Hellar tile: 4 assistants
    r = s.to_raw()
    assert r["assistants"][0] == 5 and r["coins"][0] == 10
    assert owned_tiles(r["permits_up"][0]) == {tile("H")}
    assert owned_tiles(r["permits_down"][0]) == {TILE_A}
    assert r["face_up"][1] == [tile("HIJ"), tile("FG")] and r["deck_n"][1] == 0
    assert r["pending_n"] == 0


def test_acquired_tile_bonus_resolves_before_the_slot_is_refilled():
    """RULINGS 22: a tile whose nobility reaches space 10: the free tile is chosen among
    the tiles shown before the refill; the replacement comes after."""
    ae, d, x = tile("AE"), tile("D"), tile("BCD")
    s = (
        base()
        .permits(0)
        .nobility(0, 8)
        .face_up("coast", ae, d)
        .deck("coast", [x])
        .face_up("hills", tile("H"), tile("FG"))
        .state()
    )
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    assert s.decision() == ("free_permit", 0)
    legal = s.legal_actions()
    assert choose_free_permit(COAST, 1) in legal
    assert choose_free_permit(COAST, 0) not in legal  # the empty slot, not yet refilled
    r = s.to_raw()
    assert r["face_up"][0] == [-1, d] and r["deck_n"][0] == 1
    assert r["vp"][0] == 0 and r["nobility"][0] == 10
    play(s, choose_free_permit(COAST, 1))
    r = s.to_raw()
    assert owned_tiles(r["permits_up"][0]) == {ae, d}
    assert r["vp"][0] == 7 and r["nobility"][0] == 10
    # The deck's only tile refills the first slot; the second stays empty.
    assert sorted(r["face_up"][0], key=lambda t: t < 0) == [x, -1]
    assert r["deck_n"][0] == 0 and r["pending_n"] == 0


def test_nobility_14_bonus_of_an_owned_tile_face_up_or_down():
    p = nob(13).permits(0, up=[TILE_A, tile("N")], down=[tile("D")])
    s = p.state()
    play(s, build_permit(TILE_A))
    assert s.decision() == ("permit_bonus", 0)
    assert s.legal_actions() == [
        choose_permit_bonus(t) for t in sorted((TILE_A, tile("N"), tile("D")))
    ]
    play(s, choose_permit_bonus(tile("D")))
    r = s.to_raw()
    assert r["vp"][0] == 7 and r["pending_n"] == 0
    s = p.state()
    play(s, build_permit(TILE_A), choose_permit_bonus(tile("N")))
    assert s.to_raw()["coins"][0] == 17


def test_nobility_14_with_the_just_used_tile_only():
    s = nob(13).state()
    play(s, build_permit(TILE_A))
    assert s.legal_actions() == [choose_permit_bonus(TILE_A)]
    play(s, choose_permit_bonus(TILE_A))
    r = s.to_raw()
    assert (r["vp"][0], r["coins"][0]) == (4, 13)


def test_multi_step_move_pays_only_the_stop_space_by_default():
    ae = tile("AE")  # nobility +2
    for start, vp, coins, kind in [(0, 2, 12, None), (1, 0, 10, None), (3, 0, 10, None),
                                   (4, 0, 10, "main"), (2, 0, 10, "token")]:  # fmt: skip
        s = nob(start).face_up("coast", ae, tile("D")).permits(0).state()
        play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
        r = s.to_raw()
        assert r["nobility"][0] == start + 2
        assert (r["vp"][0], r["coins"][0]) == (vp, coins), start
        assert r["main_left"] == (1 if kind == "main" else 0)
        assert (pending(s) == [(Decision.city_token, 0)]) == (kind == "token")


def test_nobility_bonus_on_pass_variant_pays_every_space_passed():
    ae = tile("AE")
    # 1 -> 3 passes space 2.
    s = nob(1, nobility_bonus_on_pass=True).face_up("coast", ae, tile("D")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert (r["nobility"][0], r["vp"][0], r["coins"][0]) == (3, 2, 12)
    # 5 -> 7 passes 6: extra main action.
    s = nob(5, nobility_bonus_on_pass=True).face_up("coast", ae, tile("D")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    assert s.to_raw()["main_left"] == 1
    # 3 -> 5 passes 4: a token choice.
    s = nob(3, nobility_bonus_on_pass=True).face_up("coast", ae, tile("D")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    assert s.decision() == ("city_token", 0)
    # 18 -> 20 passes 19 and stops on 20: 2 + 3 VP (default: 3 only).
    for on_pass, vp in ((True, 5), (False, 3)):
        p = nob(18, nobility_bonus_on_pass=on_pass).face_up("coast", ae, tile("D")).permits(0)
        s = p.state()
        play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
        assert s.to_raw()["vp"][0] == vp


def test_two_tokens_in_one_build_are_two_separate_moves():
    # Own Burgen (nobility token), build Arkon (nobility token), linked: 1 -> 2 -> 3.
    p = nob(1).emporia(0, ["Burgen"]).tokens({"Burgen": T_NOB_B})
    s = p.state()
    play(s, build_permit(TILE_A))
    r = s.to_raw()
    assert r["nobility"][0] == 3
    assert (r["vp"][0], r["coins"][0]) == (2, 12)  # space 2 paid on the first move
    # From 2: 3 then 4 -> one token choice (Burgen and Arkon are nobility tokens).
    s = p.nobility(0, 2).emporia(0, ["Burgen", "Esti"]).state()
    play(s, build_permit(TILE_A))
    assert s.decision() == ("city_token", 0)
    assert s.legal_actions() == [choose_token("Esti")]


def test_chain_nobility_14_to_16():
    """13 -> 14 by an acquired tile (Merkatim: 5 VP, +1 nobility); the bonus of the used
    Arkon/Esti tile (+2 nobility) moves to 16: two city tokens."""
    m = tile("M")
    p = (
        nob(13)
        .permits(0, down=[tile("AE")])
        .emporia(0, ["Esti", "Lyram"])
        .balcony("mountains", ["white", "white", "black", "orange"])
        .balcony("coast", ["purple", "cyan", "cyan", "pink"])
        .face_up("mountains", m, tile("N"))
    )
    s = p.state()
    play(s, acquire(MOUNTAINS, 0), pay(white=2, black=1, orange=1))
    assert s.decision() == ("permit_bonus", 0)
    assert s.legal_actions() == [choose_permit_bonus(tile("AE")), choose_permit_bonus(m)]
    play(s, choose_permit_bonus(tile("AE")))
    assert s.to_raw()["nobility"][0] == 16
    assert s.decision() == ("first_of_two_city_tokens", 0)
    play(s, choose_token("Esti"), choose_token("Lyram"))
    r = s.to_raw()
    assert (r["vp"][0], r["assistants"][0], r["pending_n"]) == (5 + 3, 2, 0)


def test_tile_nobility_landing_on_6_gives_a_main_action():
    # Castrum/Dorful/Esti tile: 1 politics card, +1 nobility: 5 -> 6.
    s = nob(5).face_up("coast", tile("CDE"), tile("D")).permits(0).state()
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert (r["nobility"][0], r["main_left"], r["main_done"], r["hand_n"][0]) == (6, 1, 1, 3)
    play(s, elect("coast", "cyan"))
    assert s.to_raw()["coins"][0] == 14


def test_pending_decisions_block_other_actions():
    s = nob(3).state()
    play(s, build_permit(TILE_A))
    assert of_kind(s.legal_actions(), "choose_token") == sorted(map(city, FAR))
    assert len(s.legal_actions()) == 3
    r = s.to_raw()
    assert r["pending_kind"][0] == Decision.city_token and r["pending_kind"][1:] == [0] * 15
