"""CouncilOfFourState.adjudicated(): a game stopped before its end, scored as if it ended now."""

from __future__ import annotations

import pytest
from positions import END_TURN, Pos, acquire, pay, play, play_random

from council.engine._council_of_four import Decision
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState

COAST_T, HILLS_T, MOUNT_T, GOLD_T, SILVER_T, BRONZE_T, IRON_T = range(7)
ALL_BONUS = 0b1111111


def mid_game(players=3, **kw) -> Pos:
    """Seat 1 in the middle of its turn (main action not taken); nobody triggered the end."""
    return Pos(players=players, **kw).turn(current=1, main_left=1).bonus_left(ALL_BONUS)


def test_scores_tiles_and_awards_like_the_real_end():
    p = mid_game()
    p.vp(0, 30).vp(1, 40).vp(2, 20)
    p.nobility(0, 9).nobility(1, 4).nobility(2, 4)
    p.permits(0, up=[0], down=[1, 2]).permits(1, down=[3]).permits(2, up=[4, 5])
    # Seat 2 holds the silver tile (12 VP) and the first king reward tile (25 VP).
    p.bonus_tiles(2, 1 << SILVER_T, king_bits=1).bonus_left(ALL_BONUS & ~(1 << SILVER_T), 1)
    s = p.state()
    before = s.to_raw()
    a = s.adjudicated()
    # Nobility 9 > 4 = 4: 5 to seat 0, 2 to each of seats 1 and 2. Most permit tiles:
    # seat 0 (3 tiles), 3 VP. Seat 2: the silver and king tiles.
    assert a.scores() == [30 + 5 + 3, 40 + 2, 20 + 2 + 12 + 25]
    assert a.to_raw()["vp"][:3] == a.scores()
    assert a.is_terminal() and a.current_player == -1 and a.decision() == ("game_over", None)
    assert a.legal_actions() == []
    assert a.winners() == [2] and a.returns() == [0.0, 0.0, 1.0]
    # The original is untouched and still provisional.
    assert s.to_raw() == before and not s.is_terminal()
    assert s.scores() == [30, 40, 20 + 12 + 25]


def test_same_result_as_the_real_end():
    """Adjudicating just before the last end_turn gives the finished game's state."""
    p = Pos(players=4).end_trigger(0).turn(current=3, main_left=0, main_done=1)
    p.vp(0, 50).vp(1, 44).vp(2, 47).vp(3, 12)
    p.nobility(0, 2).nobility(1, 6).nobility(2, 6).nobility(3, 1)
    p.permits(1, up=[7], down=[8]).permits(3, down=[20, 21])
    p.bonus_tiles(0, 1 << COAST_T, king_bits=0b1).bonus_left(ALL_BONUS & ~1, king_taken=1)
    s = p.state()
    finished = play(s.clone(), END_TURN)
    assert finished.is_terminal()
    a = s.adjudicated()
    # Nobility: seats 1 and 2 share first (5 each), so no second place. Permit tiles: seats
    # 1 and 3 tie with 2 (every tied player scores by default). Seat 0: coast 5, king 25.
    assert a.scores() == finished.scores() == [50 + 5 + 25, 44 + 5 + 3, 47 + 5, 12 + 3]
    assert a.winners() == finished.winners() == [0]
    # The same struct but for the action count (the real end took one more action).
    assert a.to_raw() == finished.to_raw() | {"action_count": a.action_count}


def test_two_players_tie_break_on_assistants_and_cards():
    p = mid_game(players=2).turn(current=0)
    p.vp(0, 18).vp(1, 21).nobility(0, 3).nobility(1, 0)
    p.assistants(0, 1).hand(0, white=3).assistants(1, 2).hand(1, cyan=1)
    a = p.state().adjudicated()
    # 18 + 5 = 21 + 2: a tie on VP; nobody holds a permit tile, so both tie for most
    # tiles and score 3 (RULINGS 8): 26 each; then assistants + cards: 1 + 3 > 2 + 1.
    assert a.scores() == [26, 26]
    assert a.winners() == [0] and a.returns() == [1.0, 0.0]


def test_shared_win_after_the_tie_break():
    p = mid_game(players=2).turn(current=0)
    p.vp(0, 10).vp(1, 10).assistants(0, 2).hand(0, black=2).assistants(1, 4).hand(1)
    a = p.state().adjudicated()
    # Nobility 0 = 0: 5 each; no permit tiles: 3 each (RULINGS 8); assistants + cards 4 = 4.
    assert a.scores() == [18, 18]
    assert a.winners() == [0, 1] and a.returns() == [0.5, 0.5]


def test_pending_decisions_are_dropped():
    p = mid_game(players=2).turn(current=0).known_councils()
    p.hand(0, white=2, black=1, orange=1).coins(0, 10).vp(0, 4).vp(1, 6)
    s = play(p.state(), acquire("coast", 0))
    assert s.to_raw()["pending_n"] == 1 and s.to_raw()["pending_kind"][0] == Decision.pay_permit
    assert pay(white=2, black=1, orange=1) in s.legal_actions()
    a = s.adjudicated()
    r = a.to_raw()
    assert r["pending_n"] == 0 and r["pending_kind"] == [0] * 16
    # The unpaid tile is not taken: nobody holds a permit tile, so both score 3 (RULINGS 8).
    assert a.is_terminal() and a.scores() == [4 + 5 + 3, 6 + 5 + 3]
    assert a.winners() == [1]


def test_end_trigger_bonus_is_not_counted_twice():
    p = mid_game(players=2).end_trigger(1).vp(1, 3 + 30).vp(0, 28)
    a = p.state().adjudicated()
    assert a.scores() == [28 + 5 + 3, 33 + 5 + 3]  # nobility 5 each, no tiles: 3 each


def test_finished_state_comes_back_as_a_copy():
    s = play_random(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3), seed=3, steps=100_000
    )
    assert s.is_terminal()
    a = s.adjudicated()
    assert a == s and a is not s
    assert a.scores() == s.scores()
    b = s.adjudicated().adjudicated()
    assert b == s


def test_a_random_mid_game_position():
    s = play_random(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=11), seed=11, steps=150
    )
    assert not s.is_terminal()
    a = s.adjudicated()
    # Provisional scores hold the tiles; adjudication adds only the end awards.
    awards = [x - y for x, y in zip(a.scores(), s.scores(), strict=True)]
    assert all(v in (0, 2, 3, 5, 7, 8) for v in awards)
    assert a.is_terminal() and 1 <= len(a.winners()) <= 4


def test_a_view_is_refused():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=1)
    with pytest.raises(ValueError, match="full state"):
        s.view(0).adjudicated()
