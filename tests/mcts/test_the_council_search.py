"""The compiled IS-MCTS on The Council: the same search as Council of Four's, through the
narrow game interface (mcts/_games.pxd)."""

from __future__ import annotations

import pytest
from council_positions import random_positions

from council.engine import GameConfig, TheCouncilConfig, TheCouncilState
from council.mcts.agents import ISMCTSAgent, RandomAgent
from council.mcts.arena import play_game
from council.mcts.search import (
    THE_COUNCIL_CONFIG,
    SearchConfig,
    SearchLimits,
    default_config,
    search,
    search_full_state,
)


def positions(players: int):
    """Positions along a seeded random game: draft, bids and reveals."""
    return random_positions(players, seed=50 + players, every=5)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_search_answers_a_legal_action_in_every_phase(players):
    phases = set()
    for state in positions(players):
        view = state.view(state.current_player)
        result = search(view, SearchLimits(iterations=60), seed=4)
        assert result.action in state.legal_actions()
        assert result.iterations == (32 if result.forced else 60)
        assert sum(c.visits for c in result.candidates) == result.iterations
        phases.add(state.phase)
    assert phases == {"draft", "bid", "reveal"}


def test_search_is_deterministic_and_sees_only_the_view():
    state = TheCouncilState.new_game(4, seed=8)
    for _ in range(5):  # into the second draft round: seat 1 has seen two packs
        state.apply(state.legal_actions()[0])
    view = state.view(state.current_player)
    other = view.determinize(seed=77)  # another full state behind the same view
    assert other != state and other.view(state.current_player) == view
    results = [
        search(s.view(state.current_player), SearchLimits(iterations=400), seed=3)
        for s in (state, other, state)
    ]
    assert len({(r.action, r.candidates) for r in results}) == 1


def test_root_parallel_trees_sum_their_iterations():
    state = TheCouncilState.new_game(5, seed=2)
    result = search(state.view(0), SearchLimits(iterations=300, threads=2), seed=1)
    assert result.iterations == 300 and result.action in state.legal_actions()


def test_the_default_config_follows_the_game():
    assert default_config(TheCouncilState.new_game(3)) == THE_COUNCIL_CONFIG
    assert default_config(GameConfig(players=2).new_game()) == SearchConfig()
    assert THE_COUNCIL_CONFIG.evaluator == "heuristic" and THE_COUNCIL_CONFIG.policy == "none"


@pytest.mark.parametrize(
    "setting", [{"evaluator": "learned", "policy": "none"}, {"evaluator": "heuristic"}]
)
def test_learned_models_are_refused_for_the_council_by_name(setting):
    state = TheCouncilState.new_game(4, seed=1)
    with pytest.raises(ValueError, match="The Council has no learned models"):
        search(state.view(0), SearchLimits(iterations=10), SearchConfig(**setting))


def test_a_full_state_search_and_a_finished_game():
    state = TheCouncilState.new_game(3, seed=6)
    assert search_full_state(state, SearchLimits(iterations=50)).action in state.legal_actions()
    state.random_playout(seed=1)
    with pytest.raises(ValueError, match="over"):
        search(state.view(0), SearchLimits(iterations=10))


def test_the_arena_plays_the_council_with_any_agent():
    final, actions = play_game(
        [ISMCTSAgent(iterations=30), RandomAgent(), RandomAgent()], TheCouncilConfig(3), seed=9
    )
    assert final.is_terminal() and actions == final.action_count
    assert sorted(final.winners()) == final.winners() and final.winners()
