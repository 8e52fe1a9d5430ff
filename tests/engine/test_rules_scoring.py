"""Bonus and king reward tiles, the end of the game, final scoring and winners
(rulebook; RULINGS 8, 9, 10, 17)."""

from __future__ import annotations

import pytest
from positions import (
    END_TURN,
    T_ASS1,
    T_ASS2,
    T_ASS_POL,
    T_COIN_ASS,
    T_COINS1,
    T_COINS2,
    T_COINS3,
    T_POL1,
    T_VP1,
    Pos,
    build_permit,
    elect,
    play,
    tile,
)

from council.engine import IllegalActionError
from council.engine import council_of_four_board as B

COAST_T, HILLS_T, MOUNT_T, GOLD_T, SILVER_T, BRONZE_T, IRON_T = range(7)
ALL_BONUS = 0b1111111
KING_VP = [25, 18, 12, 7, 3]
# Layout ABA colours: iron = Arkon + Merkatim; gold = Burgen, Framek, Hellar, Kultos, Osium;
# silver = Castrum, Dorful, Graden, Lyram; bronze = Esti, Indur, Naris.


def arkon(players=4, **kw) -> Pos:
    """Seat 0 about to build in Arkon (token: 1 VP) with the Arkon permit tile."""
    return (
        Pos(players=players, **kw).permits(0, up=[tile("A")]).assistants(0, 0).token("Arkon", T_VP1)
    )


# -- bonus tiles and king reward tiles -----------------------------------------------------
def test_region_bonus_tile_with_the_top_king_reward_tile():
    s = arkon().emporia(0, ["Burgen", "Castrum", "Dorful", "Esti"]).state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == 1 << COAST_T
    assert r["king_tiles"][0] == 1 and r["king_tiles_taken"] == 1
    assert r["bonus_tiles_left"] == ALL_BONUS & ~(1 << COAST_T)
    vp_track = r["vp"][0]
    # Tile VP are not on the track yet; scores() shows them provisionally.
    assert s.scores()[0] == vp_track + 5 + 25
    assert s.scores()[1:] == [0, 0, 0]


@pytest.mark.parametrize("taken", [0, 1, 2, 3, 4, 5])
def test_king_reward_tiles_in_order(taken):
    s = (
        arkon()
        .emporia(0, ["Burgen", "Castrum", "Dorful", "Esti"])
        .bonus_left(ALL_BONUS, king_taken=taken)
        .state()
    )
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == 1 << COAST_T
    if taken < 5:
        assert r["king_tiles"][0] == 1 << taken and r["king_tiles_taken"] == taken + 1
        assert s.scores()[0] == r["vp"][0] + 5 + KING_VP[taken]
    else:
        assert r["king_tiles"][0] == 0 and r["king_tiles_taken"] == 5
        assert s.scores()[0] == r["vp"][0] + 5


def test_colour_bonus_tile():
    # Iron on ABA: Arkon and Merkatim.
    s = arkon().emporia(0, ["Merkatim"]).state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == 1 << IRON_T and r["king_tiles"][0] == 1
    assert s.scores()[0] == 1 + 5 + 25


def test_region_and_colour_at_once_take_two_king_tiles():
    s = arkon().emporia(0, ["Burgen", "Castrum", "Dorful", "Esti", "Merkatim"]).state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == (1 << COAST_T) | (1 << IRON_T)
    assert r["king_tiles"][0] == 0b11 and r["king_tiles_taken"] == 2
    # Track: Arkon 1 VP (links to the coast cities' tokens too; count them from raw).
    assert s.scores()[0] == r["vp"][0] + 5 + 5 + 25 + 18


def test_bonus_tile_goes_to_the_first_player_only():
    s = (
        arkon()
        .emporia(0, ["Burgen", "Castrum", "Dorful", "Esti"])
        .bonus_tiles(1, 1 << COAST_T, king_bits=1)
        .bonus_left(ALL_BONUS & ~(1 << COAST_T), king_taken=1)
        .state()
    )
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == 0 and r["king_tiles"][0] == 0
    assert r["king_tiles_taken"] == 1
    assert s.scores()[1] == 30


def test_king_city_counts_for_the_hills_and_has_no_colour():
    # Hills on ABA: Framek, Graden, Hellar, Indur, Juvelar (king's city, no colour).
    s = (
        Pos()
        .permits(0, up=[tile("J")])
        .emporia(0, ["Framek", "Graden", "Hellar", "Indur"])
        .assistants(0, 0)
        .state()
    )
    play(s, build_permit(tile("J")))
    r = s.to_raw()
    assert r["bonus_tiles"][0] == 1 << HILLS_T and r["king_tiles"][0] == 1


def test_neutral_emporia_do_not_complete_a_region():
    s = (
        arkon(players=2)
        .neutral(["Burgen"])
        .emporia(0, ["Castrum", "Dorful", "Esti"])
        .emporia(1, [])
        .state()
    )
    # Building where no neutral stands: the coast still lacks Burgen.
    play(s, build_permit(tile("A")))
    assert s.to_raw()["bonus_tiles"][0] == 0


# -- the end of the game -------------------------------------------------------------------
NINE = ["Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar", "Indur", "Juvelar"]


# Tokens without VP or nobility on the nine cities (Juvelar has none): Arkon alone pays VP.
NO_VP = dict(
    zip(
        ["Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar", "Indur"],
        [T_COINS1, T_COINS2, T_COINS3, T_ASS1, T_ASS2, T_POL1, T_COIN_ASS, T_ASS_POL],
        strict=True,
    )
)


def ten(players=3, seat=0) -> Pos:
    return (
        Pos(players=players)
        .permits(seat, up=[tile("A")])
        .emporia(seat, NINE)
        .assistants(seat, 0)
        .tokens({"Arkon": T_VP1, **NO_VP})
        .bonus_left(0, king_taken=5)
        .turn(current=seat)
    )


def _any_colour(s) -> int:
    return next(c for c in range(6) if s.to_raw()["pool"][c] > 0)


def test_tenth_emporium_scores_3_and_triggers_the_end():
    s = ten().state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["emporia_n"][0] == 10 and r["end_trigger"] == 0
    assert r["vp"][0] == 1 + 3
    assert not s.is_terminal()
    # No more building for seat 0 (10 emporia).
    # The trigger's turn goes on; then seats 1 and 2 play one more turn each.
    play(s, END_TURN)
    assert s.current_player == 1
    play(s, elect("coast", _any_colour(s)), END_TURN)
    assert s.current_player == 2 and not s.is_terminal()
    play(s, elect("coast", _any_colour(s)), END_TURN)
    assert s.is_terminal() and s.current_player == -1
    assert s.legal_actions() == [] and s.decision() == ("game_over", None)
    with pytest.raises(IllegalActionError):
        s.apply(END_TURN)


def test_only_the_first_tenth_emporium_scores_3():
    s = ten().end_trigger(2).state()
    play(s, build_permit(tile("A")))
    r = s.to_raw()
    assert r["emporia_n"][0] == 10 and r["end_trigger"] == 2 and r["vp"][0] == 1


def test_trigger_by_the_last_seat_gives_everyone_else_one_turn():
    s = ten(players=4, seat=3).state()
    play(s, build_permit(tile("A")))
    assert s.to_raw()["vp"][3] == 4 and s.to_raw()["end_trigger"] == 3
    play(s, END_TURN)
    for seat in (0, 1, 2):
        assert s.current_player == seat and not s.is_terminal()
        play(s, elect("coast", _any_colour(s)), END_TURN)
    assert s.is_terminal()


def last_turn(players=4, **kw) -> Pos:
    """Seat players-1 has ended its last turn's main action; seat 0 triggered the end."""
    return (
        Pos(players=players, **kw)
        .end_trigger(0)
        .turn(current=players - 1, main_left=0, main_done=1)
        .bonus_left(ALL_BONUS)
    )


# RULINGS 8: a player with no permit tile counts like any other, so where nobody holds one
# every player ties for most tiles and scores (permit_tie_all_score, the default).
NO_TILES_TIE = B.RULE_NUMBERS["most_permits_vp"]


def finish(p: Pos):
    s = p.state()
    play(s, END_TURN)
    assert s.is_terminal()
    return s


@pytest.mark.parametrize(
    "nobility, bonus",
    [
        ([5, 3, 3, 0], [5, 2, 2, 0]),
        ([5, 5, 3, 0], [5, 5, 0, 0]),
        ([0, 0, 0, 0], [5, 5, 5, 5]),
        ([4, 0, 0, 0], [5, 2, 2, 2]),
        ([2, 7, 7, 7], [0, 5, 5, 5]),
        ([1, 2, 3, 4], [0, 0, 2, 5]),
        ([20, 0, 19, 19], [5, 0, 2, 2]),
    ],
)
def test_final_nobility_5_and_2_with_ties(nobility, bonus):
    p = last_turn()
    for q in range(4):
        p.nobility(q, nobility[q]).vp(q, 10)
    s = finish(p)
    assert s.scores() == [10 + b + NO_TILES_TIE for b in bonus]


@pytest.mark.parametrize(
    "nobility, bonus",
    [([3, 0], [5, 2]), ([0, 0], [5, 5]), ([0, 6], [2, 5]), ([4, 4], [5, 5])],
)
def test_final_nobility_two_players(nobility, bonus):
    p = last_turn(players=2)
    for q in range(2):
        p.nobility(q, nobility[q])
    assert finish(p).scores() == [b + NO_TILES_TIE for b in bonus]


def _perm(p: Pos, counts, down=False):
    t = 0
    for q, n in enumerate(counts):
        tiles = list(range(t, t + n))
        t += n
        p.permits(q, down=tiles) if down else p.permits(q, up=tiles)
    return p


@pytest.mark.parametrize(
    "counts, tie_all, bonus",
    [
        ([2, 1, 0, 0], True, [3, 0, 0, 0]),
        ([2, 2, 0, 1], True, [3, 3, 0, 0]),
        ([2, 2, 0, 1], False, [0, 0, 0, 0]),
        ([0, 0, 0, 0], True, [3, 3, 3, 3]),  # nobody holds a tile: all tie (RULINGS 8)
        ([0, 0, 0, 0], False, [0, 0, 0, 0]),  # ... and a tie scores nothing without the variant
        ([0, 0, 1, 0], False, [0, 0, 3, 0]),
        ([3, 3, 3, 3], True, [3, 3, 3, 3]),
    ],
)
def test_final_most_permit_tiles(counts, tie_all, bonus):
    # All players at the same nobility: 5 each, not part of the check.
    s = finish(_perm(last_turn(permit_tie_all_score=tie_all), counts))
    assert s.scores() == [5 + b for b in bonus]
    s = finish(_perm(last_turn(permit_tie_all_score=tie_all), counts, down=True))
    assert s.scores() == [5 + b for b in bonus]


def test_final_permit_count_adds_face_up_and_used():
    p = last_turn().permits(0, up=[0, 1], down=[2]).permits(1, up=[3, 4])
    assert finish(p).scores() == [5 + 3, 5, 5, 5]


def test_final_scoring_adds_bonus_and_king_tiles():
    p = last_turn()
    p.bonus_tiles(0, (1 << COAST_T) | (1 << GOLD_T), king_bits=0b101)
    p.bonus_tiles(2, 1 << IRON_T, king_bits=0b10).bonus_left(0, king_taken=3)
    p.vp(0, 7).vp(1, 1)
    before = p.state()
    assert before.scores() == [7 + 5 + 20 + 25 + 12, 1, 5 + 18, 0]
    s = finish(p)
    r = s.to_raw()
    # Nobility all 0: 5 each; no permit tiles: 3 each; tiles now on the track.
    assert r["vp"][:4] == [7 + 5 + 20 + 25 + 12 + 8, 1 + 8, 5 + 18 + 8, 8]
    assert s.scores() == r["vp"][:4]


def test_final_scoring_everything_together():
    p = last_turn(players=3)
    p.vp(0, 30).vp(1, 40).vp(2, 20)
    p.nobility(0, 9).nobility(1, 4).nobility(2, 4)
    p.permits(0, up=[0], down=[1, 2]).permits(1, down=[3]).permits(2, up=[4, 5])
    p.bonus_tiles(2, 1 << SILVER_T, king_bits=1).bonus_left(ALL_BONUS & ~(1 << SILVER_T), 1)
    s = finish(p)
    assert s.scores() == [30 + 5 + 3, 40 + 2, 20 + 2 + 12 + 25]
    assert s.winners() == [2] and s.returns() == [0.0, 0.0, 1.0]


def test_winner_tie_break_assistants_plus_cards():
    p = last_turn(players=3)
    p.vp(0, 20).vp(1, 20).vp(2, 19)  # + 5 each (nobility all 0), + 3 each (no tiles)
    p.assistants(0, 3).hand(0, white=2).assistants(1, 1).hand(1, white=3)
    p.assistants(2, 9).hand(2, cyan=5)
    s = finish(p)
    assert s.scores() == [28, 28, 27]
    assert s.winners() == [0]  # 5 > 4
    assert s.returns() == [1.0, 0.0, 0.0]


def test_shared_win():
    p = last_turn(players=3)
    p.vp(0, 20).vp(1, 20).vp(2, 3)
    p.assistants(0, 3).hand(0, white=2).assistants(1, 1).hand(1, cyan=4)
    p.assistants(2, 0).hand(2)
    s = finish(p)
    assert s.winners() == [0, 1]
    assert s.returns() == [0.5, 0.5, 0.0]


def test_no_winners_before_the_end():
    s = Pos().state()
    assert s.winners() == [] and s.returns() == [0.0] * 4 and not s.is_terminal()
