"""Baseline agents and the arena."""

import json
import random

import pytest

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts.agents import (
    CheatingMCTS,
    GreedyAgent,
    ISMCTSAgent,
    PIMCAgent,
    RandomAgent,
    agent_label,
    parse_agent,
)
from council.mcts.arena import (
    ArenaReport,
    GameRecord,
    mean_interval,
    play_game,
    run_arena,
    wilson_interval,
)

AGENTS = [
    RandomAgent(),
    GreedyAgent(),
    ISMCTSAgent(iterations=60),
    PIMCAgent(worlds=3, iterations=60),
    CheatingMCTS(iterations=60),
]


@pytest.mark.parametrize("agent", AGENTS, ids=agent_label)
def test_every_agent_plays_legal_actions_in_random_positions(agent):
    for players in (2, 3, 4):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=players)
        rng = random.Random(players)
        for step in range(120):
            if state.is_terminal():
                break
            seat = state.current_player
            observed = state.clone() if agent.sees_true_state else state.view(seat)
            action = agent.act(observed, seed=step)
            assert action in state.legal_actions()
            # Alternate the agent's move with random moves to reach varied positions.
            state.apply(action if step % 2 else rng.choice(state.legal_actions()))


@pytest.mark.parametrize("agent", AGENTS[:4], ids=agent_label)
def test_agents_that_see_a_view_refuse_the_true_state(agent):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    with pytest.raises(ValueError):
        agent.act(state, seed=0)


def test_cheating_yardstick_sees_the_true_state():
    assert CheatingMCTS.sees_true_state
    assert not any(a.sees_true_state for a in AGENTS[:4])


def test_agents_are_deterministic_in_their_seed():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=9)
    for agent in AGENTS:
        observed = state.clone() if agent.sees_true_state else state.view(0)
        assert agent.act(observed, seed=5) == agent.act(observed, seed=5)


def test_parse_agent_and_labels():
    assert parse_agent("random") == RandomAgent()
    assert parse_agent("pimc:worlds=4,iterations=100") == PIMCAgent(worlds=4, iterations=100)
    assert parse_agent("ismcts:time_s=0.5") == ISMCTSAgent(iterations=None, time_s=0.5)
    assert agent_label(ISMCTSAgent(iterations=100)) == "ismcts(iterations=100)"
    assert agent_label(GreedyAgent()) == "greedy"
    with pytest.raises(ValueError, match="unknown agent"):
        parse_agent("alphazero")
    with pytest.raises(ValueError, match="unknown option"):
        parse_agent("ismcts:depth=3")


def test_play_game_reaches_the_end_with_consistent_scores():
    state, actions = play_game(
        [GreedyAgent(), RandomAgent()], CouncilOfFourConfig(players=2), seed=3
    )
    assert state.is_terminal()
    assert actions == state.action_count
    assert state.winners()


def test_arena_rotates_seats_over_the_same_deals():
    report = run_arena([GreedyAgent(), RandomAgent(), RandomAgent()], deals=2, seed=7, workers=1)
    assert report.games == 6
    seeds = sorted((r.seed, r.rotation) for r in report.records)
    assert seeds == [(7, 0), (7, 1), (7, 2), (8, 0), (8, 1), (8, 2)]
    # Greedy sits in every seat once per deal.
    for deal in (7, 8):
        seats = [r.seats.index("greedy") for r in report.records if r.seed == deal]
        assert sorted(seats) == [0, 1, 2]
    assert report.agents["greedy"].seats_played == 6
    assert report.agents["random"].seats_played == 12
    total_wins = sum(s.wins for s in report.agents.values())
    assert total_wins == pytest.approx(6)
    data = json.loads(json.dumps(report.to_dict()))
    assert set(data["agents"]) == {"greedy", "random"}
    assert "greedy" in report.to_text()


def test_arena_results_do_not_depend_on_worker_count():
    lineup = [GreedyAgent(), RandomAgent()]
    serial = run_arena(lineup, deals=2, seed=1, workers=1)
    parallel = run_arena(lineup, deals=2, seed=1, workers=2)
    assert serial.records == parallel.records


def test_arena_checks_the_lineup_against_the_config():
    with pytest.raises(ValueError, match="seats"):
        run_arena([RandomAgent(), RandomAgent()], deals=1, config=CouncilOfFourConfig(players=3))


def test_beats_others_counts_the_other_agents_seats_finished_ahead_of():
    report = ArenaReport(players=4)
    # Seat 1 (search) wins; of the experts it is ahead of all three.
    report.add(GameRecord(1, 0, ("expert", "search", "expert", "expert"), (5, 9, 7, 9), (1,), 0, 0))
    # Search (seat 0) is level on score with seat 1 and behind the winner, seat 2; ahead
    # of seat 3.
    report.add(GameRecord(2, 1, ("search", "expert", "expert", "expert"), (4, 4, 8, 1), (2,), 0, 0))
    search = report.to_dict()["agents"]["search"]
    assert search["win_rate"] == 0.5
    assert search["beats_others"] == pytest.approx((1.0 + (0.5 + 0 + 1) / 3) / 2, abs=1e-4)
    # The experts are compared with the search seat only, never with each other: in game 1
    # each is behind it, in game 2 seat 1 is level, seat 2 ahead, seat 3 behind.
    assert report.agents["expert"].beats_n == 6
    assert report.agents["expert"].beats_total == pytest.approx(0 + 0.5 + 1 + 0)


def test_games_won_is_the_team_reading_of_an_agent_with_several_seats():
    report = ArenaReport(players=4)
    report.add(GameRecord(1, 0, ("search", "expert", "search", "expert"), (9, 5, 7, 6), (0,), 0, 0))
    report.add(GameRecord(1, 1, ("expert", "search", "expert", "search"), (9, 5, 7, 6), (0,), 0, 0))
    # A win shared by a search seat and an expert seat is half a game to each team.
    report.add(
        GameRecord(2, 0, ("search", "expert", "search", "expert"), (8, 8, 1, 1), (0, 1), 0, 0)
    )
    data = report.to_dict()["agents"]
    assert data["search"]["games_won"] == pytest.approx(1.5 / 3, abs=1e-4)
    assert data["expert"]["games_won"] == pytest.approx(1.5 / 3, abs=1e-4)
    assert data["search"]["games_won_95ci"] == [round(x, 4) for x in wilson_interval(1.5, 3)]
    # Per seat the win rate is half that: each team holds two of the four seats.
    assert data["search"]["win_rate"] == pytest.approx(1.5 / 6, abs=1e-4)
    assert "games won 0.500" in report.to_text()
    # One seat a game: the team reading is the win rate, so it is not repeated.
    one = ArenaReport(players=2)
    one.add(GameRecord(1, 0, ("search", "expert"), (9, 5), (0,), 0, 0))
    assert "games_won" not in one.to_dict()["agents"]["search"]


def test_mean_interval():
    low, high = mean_interval(total=5.0, squares=5.0, n=10)  # five 0s and five 1s
    assert (low + high) / 2 == pytest.approx(0.5)
    assert high - low == pytest.approx(2 * 1.96 * (2.5 / 9 / 10) ** 0.5)
    assert mean_interval(1.0, 1.0, 1) == (0.0, 1.0)


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-3)


def test_greedy_beats_random():
    report = run_arena([GreedyAgent(), RandomAgent()], deals=4, seed=2, workers=1)
    assert report.agents["greedy"].win_rate > report.agents["random"].win_rate
