"""The compiled benchmark loops (council.engine._bench) drive the same core as
CouncilOfFourState."""

from council.engine import _bench
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState


def test_bench_random_games_plays_the_games_state_plays():
    config = CouncilOfFourConfig(players=3)  # the loop's settings are GameConfig's defaults
    seed = 41
    actions, games = _bench.bench_random_games(3, 4, seed, config.layout_index)
    expected = 0
    for g in range(4):
        state = CouncilOfFourState.new_game(config, seed=seed + g)
        state.random_playout()
        assert state.is_terminal()
        expected += state.action_count
    assert (actions, games) == (expected, 4)


def test_bench_loops_leave_the_state_alone():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=5)
    for a in (0, 1, 2):
        state.apply(state.legal_actions()[a % len(state.legal_actions())])
    before = state.clone()
    assert _bench.bench_clone(state, 10) == 10 * state.turn
    assert _bench.bench_legal_actions(state, 10) == 10 * len(state.legal_actions())
    view = state.view(state.current_player)
    _bench.bench_determinize(view, 10, 3)
    assert state == before and view == state.view(state.current_player)
