"""Setup for 2, 3 and 4 players on every layout (rulebook setup; RULINGS 3, 18, 19)."""

from __future__ import annotations

import pytest
from positions import END_TURN, T_VP1, Pos, build_permit, play, tile

from council.engine import council_of_four_board as B
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState


def new(players=4, layout="ABA", seed=0, **kw) -> dict:
    return CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=players, layout=layout, **kw), seed
    ).to_raw()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_coins_assistants_and_hands(players):
    for seed in range(5):
        r = new(players, seed=seed)
        assert r["n_players"] == players
        assert r["coins"][:players] == [10, 11, 12, 13][:players]
        assert r["assistants"][:players] == [1, 2, 3, 4][:players]
        assert r["vp"][:players] == [0] * players
        assert r["nobility"][:players] == [0] * players
        # 6 cards each; the first player already drew the turn-start card.
        assert r["hand_n"][:players] == [7] + [6] * (players - 1)
        assert [sum(h) for h in r["hand"][:players]] == r["hand_n"][:players]
        # 90 cards: 13 per colour, 12 jokers, nothing discarded yet.
        assert r["discard"] == [0] * 7
        assert r["politics_deck_n"] == 90 - 6 * players - 1 == sum(r["politics_deck"])
        for k in range(7):
            total = r["politics_deck"][k] + sum(r["hand"][p][k] for p in range(players))
            assert total == (12 if k == 6 else 13)
        assert r["current"] == 0 and r["turn"] == 1
        assert (r["main_left"], r["main_done"], r["quick_used"]) == (1, 0, 0)
        assert r["end_trigger"] == -1 and r["game_over"] == 0 and r["pending_n"] == 0
        assert r["emporia"][:players] == [0] * players
        assert r["bonus_tiles_left"] == 0b1111111 and r["king_tiles_taken"] == 0


@pytest.mark.parametrize("layout", B.LAYOUT_CODES)
def test_every_layout_sets_up(layout):
    king = B.city_index("Graden" if layout[1] == "A" else "Juvelar")
    for players in (2, 3, 4):
        r = new(players, layout, seed=3)
        assert r["layout"] == B.LAYOUT_CODES.index(layout)
        assert r["king_city"] == king
        # 14 tokens, each once, none on the king's city.
        assert r["city_token"][king] == -1
        assert sorted(t for t in r["city_token"] if t >= 0) == list(range(14))
        # Councillors: 4 per balcony, 8 in the pool, 4 of each of the 6 colours.
        assert all(len(b) == 4 for b in r["balcony"])
        assert sum(r["pool"]) == 8
        for c in range(6):
            assert sum(b.count(c) for b in r["balcony"]) + r["pool"][c] == 4
        # Two face-up permit tiles per region, from that region; 13 left in each deck.
        for reg in range(3):
            shown = r["face_up"][reg]
            assert all(reg * 15 <= t < reg * 15 + 15 for t in shown)
            assert shown[0] != shown[1]
            assert r["deck_n"][reg] == 13 and r["deck_known"][reg] == 0
            deck = r["permit_deck"][reg][:13]
            assert sorted(deck + shown) == list(range(reg * 15, reg * 15 + 15))
            assert r["permit_deck"][reg][13:] == [-1, -1]
        s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players, layout=layout), 3)
        assert s.config.layout == layout


def test_king_city_default_layout_is_juvelar_and_hills_a_is_graden():
    assert new()["king_city"] == B.city_index("Juvelar")
    assert CouncilOfFourConfig().layout == "ABA"
    assert new(layout="AAA")["king_city"] == B.city_index("Graden")
    assert new(layout="BAB")["king_city"] == B.city_index("Graden")
    assert new(layout="BBB")["king_city"] == B.city_index("Juvelar")


def test_tokens_are_shuffled_between_seeds():
    seen = {tuple(new(seed=s)["city_token"]) for s in range(20)}
    assert len(seen) > 15
    balconies = {tuple(map(tuple, new(seed=s)["balcony"])) for s in range(20)}
    assert len(balconies) > 15


def test_seeds_are_reproducible():
    for players in (2, 3, 4):
        a = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), 1234)
        b = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), 1234)
        assert a == b and a.to_raw() == b.to_raw()
        c = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), 1235)
        assert a != c
        # Same seed, same actions -> same states (chance is carried in the state).
        for _ in range(30):
            act = a.legal_actions()[len(a.legal_actions()) // 2]
            a.apply(act)
            b.apply(act)
        assert a == b


def test_neutral_emporia_only_with_two_players():
    for seed in range(10):
        assert new(3, seed=seed)["neutral"] == 0
        assert new(4, seed=seed)["neutral"] == 0


def _tiles_covering(neutral: int) -> list[tuple[int, ...]]:
    """For each region, the tiles whose cities are exactly the neutral cities there."""
    out = []
    for reg in range(3):
        cities = {c for c in range(15) if (neutral >> c) & 1 and B.CITY_REGION[c] == reg}
        out.append(
            tuple(t.index for t in B.PERMIT_TILES if t.region == reg and set(t.cities) == cities)
        )
    return out


@pytest.mark.parametrize("layout", ["ABA", "AAA", "BBB"])
def test_two_player_neutral_emporia_are_the_cities_of_one_tile_per_region(layout):
    counts = set()
    for seed in range(200):
        r = new(2, layout, seed=seed)
        n = r["neutral"]
        per_region = _tiles_covering(n)
        # Every region holds exactly the cities of one of its tiles (1, 2 or 3 cities).
        assert all(len(tiles) == 1 for tiles in per_region), (seed, bin(n))
        k = bin(n).count("1")
        assert 3 <= k <= 9
        counts.add(k)
        # The tiles went back: every region still has 15 tiles between deck and face up.
        for reg in range(3):
            assert r["deck_n"][reg] + 2 == 15
    # Over 200 seeds the spread of 3..9 shows up at both ends of the usual range.
    assert min(counts) <= 4 and max(counts) >= 7


def test_two_player_neutral_emporium_costs_an_assistant():
    r = new(2, seed=5)
    n = r["neutral"]
    c = next(c for c in range(15) if (n >> c) & 1)
    # Seat 0 has 1 assistant: building where a neutral emporium stands costs it.
    t = tile(B.CITY_LETTERS[c])
    s = Pos(players=2, seed=5).permits(0, up=[t]).token(c, T_VP1).state()
    assert s.to_raw()["neutral"] == n
    play(s, build_permit(t))
    r = s.to_raw()
    assert r["assistants"][0] == 0 and r["vp"][0] == 1
    assert r["neutral"] == n and r["emporia"][0] == 1 << c
    # With no assistant left, no other neutral city can be built in.
    s = Pos(players=2, seed=5).permits(0, up=[t]).assistants(0, 0).state()
    assert build_permit(t) not in s.legal_actions()


def test_first_turn_needs_a_main_action():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(), 0)
    assert END_TURN not in s.legal_actions()
