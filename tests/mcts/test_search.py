"""IS-MCTS: determinism, legality, budgets, hidden information and obvious wins."""

import random
import threading
import time
from dataclasses import replace

import pytest

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState, Decision
from council.mcts.council_of_four_settings import CouncilOfFourSettings
from council.mcts.search import (
    SearchConfig,
    SearchLimits,
    StopFlag,
    game_config,
    search,
    search_full_state,
)


def cof_config(**settings) -> SearchConfig:
    """Council of Four's default search with `settings` (the search's own or the game's)."""
    return game_config(None, "council-of-four").with_settings(settings)


def midgame(players=4, seed=0, actions=60):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        state.apply(rng.choice(state.legal_actions()))
    while len(state.legal_actions()) < 2:  # a position with a choice to search
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_same_view_seed_and_iterations_give_the_same_result():
    state = midgame(seed=3)
    view = state.view(state.current_player)
    first = search(view, SearchLimits(iterations=800), seed=11)
    second = search(view, SearchLimits(iterations=800), seed=11)
    assert first.candidates == second.candidates
    assert first.principal_variation == second.principal_variation
    assert first.action == second.action
    assert first.iterations == 800


def test_different_seeds_explore_differently():
    view = midgame(seed=3).view(midgame(seed=3).current_player)
    a = search(view, SearchLimits(iterations=400), seed=1)
    b = search(view, SearchLimits(iterations=400), seed=2)
    assert a.candidates != b.candidates


def test_result_never_depends_on_cards_the_seat_cannot_see():
    state = midgame(players=3, seed=5)
    seat = state.current_player
    view = state.view(seat)
    # Two true states that share the seat's view but deal the hidden cards differently.
    world_a, world_b = view.determinize(1), view.determinize(2)
    assert world_a.to_raw()["hand"] != world_b.to_raw()["hand"]
    assert world_a.view(seat) == world_b.view(seat) == view
    limits = SearchLimits(iterations=600)
    result_a = search(world_a.view(seat), limits, seed=9)
    result_b = search(world_b.view(seat), limits, seed=9)
    assert replace(result_a, elapsed_s=0) == replace(result_b, elapsed_s=0)


def test_search_refuses_a_full_state_and_a_seat_not_to_move():
    state = midgame(seed=1)
    with pytest.raises(ValueError, match="view"):
        search(state, SearchLimits(iterations=10))
    other = (state.current_player + 1) % state.n_players
    with pytest.raises(ValueError, match="not to move"):
        search(state.view(other), SearchLimits(iterations=10))
    finished = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    finished.random_playout(seed=1)
    with pytest.raises(ValueError, match="over"):
        search(finished.view(0), SearchLimits(iterations=10))


@pytest.mark.parametrize(
    "limits",
    [SearchLimits(), SearchLimits(iterations=0), SearchLimits(time_s=0), SearchLimits(threads=0)],
)
def test_bad_limits_are_rejected(limits):
    view = midgame(seed=1).view(midgame(seed=1).current_player)
    with pytest.raises(ValueError):
        search(view, limits)


def test_bad_config_is_rejected():
    view = midgame(seed=1).view(midgame(seed=1).current_player)
    with pytest.raises(ValueError, match="margin_weight"):
        search(view, SearchLimits(iterations=5), SearchConfig(margin_weight=2.0))


def test_iteration_budget_is_exact_and_the_tree_respects_its_node_cap():
    view = midgame(seed=2).view(midgame(seed=2).current_player)
    result = search(view, SearchLimits(iterations=3000, max_nodes=500), seed=1)
    assert result.iterations == 3000
    assert result.tree_nodes <= 500
    assert sum(c.visits for c in result.candidates) == 3000


def test_time_budget_ends_the_search():
    view = midgame(seed=2).view(midgame(seed=2).current_player)
    result = search(view, SearchLimits(time_s=0.2, iterations=10**9), seed=1)
    assert 0 < result.iterations < 10**9
    assert result.elapsed_s >= 0.2
    assert result.elapsed_s < 30  # a sanity bound, not a speed requirement


def test_stop_flag_ends_a_long_search_and_keeps_the_best_action_so_far():
    state = midgame(seed=4)
    view = state.view(state.current_player)
    stop = StopFlag()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    started = time.perf_counter()
    result = search(view, SearchLimits(time_s=600), seed=1, stop=stop)
    timer.join()
    assert time.perf_counter() - started < 60
    assert result.iterations > 0
    assert result.action in state.legal_actions()


def test_parallel_trees_split_the_iterations_and_stay_deterministic():
    state = midgame(seed=6)
    view = state.view(state.current_player)
    limits = SearchLimits(iterations=1001, threads=2)
    first = search(view, limits, seed=3)
    second = search(view, limits, seed=3)
    assert first.iterations == 1001
    assert first.candidates == second.candidates
    assert first.action in state.legal_actions()


def test_result_statistics_are_consistent():
    state = midgame(seed=8)
    view = state.view(state.current_player)
    result = search(view, SearchLimits(iterations=1500), seed=2)
    visits = [c.visits for c in result.candidates]
    assert visits == sorted(visits, reverse=True)
    assert result.action == result.candidates[0].action
    assert result.principal_variation[0] == result.action
    legal = set(state.legal_actions())
    assert {c.action for c in result.candidates} <= legal
    for c in result.candidates:
        assert 0.0 <= c.mean_reward <= 1.0
        assert 0.0 <= c.win_probability <= 1.0


def _with_pending(state, kind):
    raw = state.to_raw()
    raw["pending_n"] = 1
    raw["pending_kind"][0] = kind
    raw["pending_arg"][0] = 0
    return CouncilOfFourState.from_raw(raw)


def test_a_legal_action_for_every_position_of_random_games():
    """All player counts, every decision kind met on the way (payments, bonus choices)."""
    kinds_seen = set()
    for players in (2, 3, 4):
        for seed in range(3):
            state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
            rng = random.Random(seed)
            step = 0
            while not state.is_terminal():
                kind = state.decision()[0]
                if kind != "turn" or step % 9 == 0:
                    kinds_seen.add(kind)
                    view = state.view(state.current_player)
                    result = search(view, SearchLimits(iterations=25), seed=step)
                    assert result.action in state.legal_actions(), (players, seed, step)
                state.apply(rng.choice(state.legal_actions()))
                step += 1
    assert {"turn", "pay_permit", "pay_king"} <= kinds_seen


@pytest.mark.parametrize(
    "kind",
    [
        Decision.city_token,
        Decision.first_of_two_city_tokens,
        Decision.free_permit,
        Decision.permit_bonus,
    ],
)
def test_a_legal_action_for_every_bonus_choice(kind):
    # A late position where the seat to move owns emporiums and permit tiles.
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=21)
    rng = random.Random(21)
    while True:
        raw = state.to_raw()
        p = raw["current"]
        if (
            state.decision()[0] == "turn"
            and raw["emporia_n"][p] >= 3
            and (raw["permits_up"][p] | raw["permits_down"][p])
        ):
            chooser = _with_pending(state, kind)
            if chooser.legal_actions():
                break
        state.apply(rng.choice(state.legal_actions()))
    result = search(chooser.view(p), SearchLimits(iterations=200), seed=1)
    assert result.action in chooser.legal_actions()


def _last_turn_position():
    """Seat 1's final turn: seat 0 triggered the end; building in Castrum (a 3 VP token)
    wins, anything else loses by a point or two."""
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=13)
    raw = state.to_raw()
    castrum, tile_c = 2, 2  # coast tile 2 is the single-city permit for Castrum
    tokens = raw["city_token"]
    vp3 = 5  # token index 5 is {"VP": 3}
    j = tokens.index(vp3)
    tokens[j], tokens[castrum] = tokens[castrum], tokens[j]
    # Seat 0: ten emporiums away from Castrum, one used permit, the end triggered.
    cities = [c for c in range(15) if c != castrum and not (raw["neutral"] >> c) & 1][:10]
    raw["neutral"] &= ~(1 << castrum)
    raw["emporia"][0] = sum(1 << c for c in cities)
    raw["emporia_n"][0] = 10
    raw["end_trigger"] = 0
    # Move the two tiles out of the decks / face-up slots into the players' hands.
    tile_0 = 20  # a hills tile for seat 0
    for t in (tile_c, tile_0):
        r = t // 15
        if t in raw["face_up"][r]:
            raw["face_up"][r][raw["face_up"][r].index(t)] = -1
        deck = raw["permit_deck"][r][: raw["deck_n"][r]]
        if t in deck:
            deck.remove(t)
            raw["permit_deck"][r] = deck + [-1] * (15 - len(deck))
            raw["deck_n"][r] -= 1
    raw["permits_down"][0] = 1 << tile_0
    raw["permits_up"][1] = 1 << tile_c
    raw["vp"][0], raw["vp"][1] = 30, 28
    raw["nobility"][0] = raw["nobility"][1] = 0
    # Seat 1 has no cards to pay a council with, so a permit build is its only way to score.
    for k in range(7):
        raw["discard"][k] += raw["hand"][1][k]
        raw["hand"][1][k] = 0
    raw["hand_n"][1] = 0
    raw["current"] = 1
    raw["main_left"], raw["main_done"], raw["quick_used"] = 1, 0, 0
    return CouncilOfFourState.from_raw(raw)


def test_the_move_that_wins_the_game_is_taken():
    from council.engine.council_of_four_actions import Action

    state = _last_turn_position()
    build = Action.from_text("build Castrum with permit 2").id
    assert build in state.legal_actions()
    # Check the premise: building then ending the turn wins; ending at once loses.
    won = state.child(build)
    won.apply(0)
    assert won.is_terminal() and won.winners() == [1]
    lost = state.clone()
    legal = state.legal_actions()
    elect = next(a for a in legal if Action.from_id(a).to_text().startswith("elect "))
    for a in (elect, 0):
        lost.apply(a)
    assert lost.is_terminal() and lost.winners() == [0]
    result = search(state.view(1), SearchLimits(iterations=2000), seed=4)
    assert result.action == build
    assert result.candidates[0].win_probability > 0.9


def test_full_state_search_needs_a_full_state():
    state = midgame(seed=1)
    with pytest.raises(ValueError):
        search_full_state(state.view(state.current_player), SearchLimits(iterations=10))
    result = search_full_state(state, SearchLimits(iterations=300), seed=1)
    assert result.action in state.legal_actions()


def test_a_single_legal_action_is_answered_without_spending_the_budget():
    from council.mcts.search import FORCED_MOVE_ITERATIONS

    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=21)
    rng = random.Random(4)
    while len(state.legal_actions()) != 1:
        state.apply(rng.choice(state.legal_actions()))
        assert not state.is_terminal()
    view = state.view(state.current_player)
    # A 30-second budget would give millions of iterations if it were spent.
    result = search(view, SearchLimits(time_s=30.0), seed=1)
    assert result.forced and result.action == state.legal_actions()[0]
    assert result.iterations == FORCED_MOVE_ITERATIONS
    assert result.candidates[0].visits == FORCED_MOVE_ITERATIONS
    free = search(view, SearchLimits(iterations=5), seed=1)
    assert free.forced and free.iterations == 5


def _kinds(actions):
    from council.engine.council_of_four_actions import Action

    return [Action.from_id(a).kind.name for a in actions]


@pytest.mark.parametrize("seed", range(3))
def test_payments_below_the_root_are_not_tree_nodes_by_default(seed):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=seed)
    view = state.view(state.current_player)
    limits = SearchLimits(iterations=2000)
    default = search(view, limits, seed=1)
    searched = search(view, limits, cof_config(tree_payments=1), seed=1)
    # The opening's lines acquire permits, which are paid for: searched as nodes they show
    # up in the most visited line; by default the prior's payment is made without a node.
    assert "PAY" in _kinds(searched.principal_variation)
    assert "PAY" not in _kinds(default.principal_variation)
    assert CouncilOfFourSettings().tree_payments == 0


def test_a_payment_at_the_root_is_still_searched():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    state.apply(25)  # acquire coast 0: 15 ways to pay for it
    assert state.decision()[0] == "pay_permit"
    result = search(state.view(state.current_player), SearchLimits(iterations=500), seed=1)
    assert len(result.candidates) == len(state.legal_actions()) > 1
    assert set(_kinds(c.action for c in result.candidates)) == {"PAY"}


def test_tree_payments_must_be_0_or_1():
    view = midgame(seed=1).view(midgame(seed=1).current_player)
    with pytest.raises(ValueError, match="tree_payments"):
        search(view, SearchLimits(iterations=5), cof_config(tree_payments=2))


def test_leaf_redeals_values_leaves_over_fresh_deals_of_the_hidden_cards():
    state = midgame(players=2, seed=4)
    view = state.view(state.current_player)
    limits = SearchLimits(iterations=600)
    redealt = search(view, limits, cof_config(leaf_redeals=4), seed=5)
    assert search(view, limits, cof_config(leaf_redeals=4), seed=5).candidates == (
        redealt.candidates
    )
    # The leaves are valued otherwise, so the statistics differ from the sampled world's.
    assert search(view, limits, seed=5).candidates != redealt.candidates
    assert redealt.action in state.legal_actions()
    assert CouncilOfFourSettings().leaf_redeals == 0


@pytest.mark.parametrize(
    "config",
    [cof_config(evaluator="heuristic", policy="none"), cof_config(rollout_actions=-1)],
)
def test_leaf_redeals_change_nothing_where_no_learned_value_is_read(config):
    # A heuristic leaf, or a rollout to the end of the game, has no learned value to average.
    state = midgame(players=2, seed=6)
    view = state.view(state.current_player)
    limits = SearchLimits(iterations=300)
    plain = search(view, limits, config, seed=2)
    redealt = config.with_settings({"leaf_redeals": 4})
    assert search(view, limits, redealt, seed=2).candidates == (plain.candidates)


def test_leaf_redeals_do_nothing_in_a_search_that_sees_every_card():
    state = midgame(players=2, seed=7)
    limits = SearchLimits(iterations=300)
    plain = search_full_state(state, limits, seed=3)
    redealt = search_full_state(state, limits, cof_config(leaf_redeals=4), seed=3)
    assert redealt.candidates == plain.candidates


@pytest.mark.parametrize("redeals", [-1, 65, 2.5])
def test_leaf_redeals_must_be_an_integer_in_range(redeals):
    view = midgame(seed=1).view(midgame(seed=1).current_player)
    with pytest.raises(ValueError, match="leaf_redeals"):
        search(view, SearchLimits(iterations=5), cof_config(leaf_redeals=redeals))
