"""The search's outcome-sampling Monte Carlo CFR (``solver=mccfr``, issue #36): regret
matching at every information set of the hand, targeted at the seat's own position (Online
Outcome Sampling), the move drawn from the average strategy. Kuhn poker's equilibrium is
known (mcts/kuhn_poker_agents.py), so the policy it returns is checked against it."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from council.engine._kuhn_poker import KuhnPokerState
from council.engine._leduc_poker import LeducPokerState
from council.mcts import _search
from council.mcts.exploitability import exploitability, game_tree
from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG
from council.mcts.search import Search, SearchConfig, SearchLimits, search, search_full_state

J, Q, K = 0, 1, 2
PASS, BET = 0, 1
MCCFR = replace(KUHN_POKER_CONFIG, solver="mccfr", play="sample", hand_focus=0.0)


def kuhn_view(seat: int, card: int, history: list[int]) -> KuhnPokerState:
    cards = [-1, -1]
    cards[seat] = card
    return KuhnPokerState.from_deal(cards, history, viewer=seat)


def returned_exploitability(config: SearchConfig, iterations: int, seeds: int = 4) -> float:
    """Kuhn poker's exploitability of the mean of the policies that `seeds` searches return
    at each of its 12 information states (as bench/exploitability.py reads a policy)."""
    tree = game_tree("kuhn-poker")
    limits = SearchLimits(iterations=iterations)
    table = {}
    for info in tree.infosets:
        policies = [search(info.view, limits, config, seed=s).policy for s in range(seeds)]
        table[info.key] = {a: sum(p.get(a, 0.0) for p in policies) / seeds for a in info.actions}
    return exploitability(tree, table)


def test_its_average_strategy_approaches_kuhn_poker_s_equilibrium_with_the_budget():
    # Uniform play: 0.458; the UCT search before mixed play: 0.167 at every budget. Here
    # (4 searches a state) 0.056 at 2,000 iterations, 0.024 at 20,000.
    coarse = returned_exploitability(MCCFR, 2_000)
    fine = returned_exploitability(MCCFR, 20_000)
    assert fine < 0.035
    assert fine < coarse / 1.5


def mean_call(view: KuhnPokerState, config: SearchConfig, seeds: int = 4) -> float:
    """The mean chance of betting (calling) that `seeds` searches of 100,000 iterations
    return (a single search's is within about 0.1 of it)."""
    limits = SearchLimits(iterations=100_000)
    return (
        sum(search(view, limits, config, seed=s).policy.get(BET, 0.0) for s in range(seeds)) / seeds
    )


def test_facing_a_bet_it_folds_a_jack_calls_a_king_and_mixes_a_queen():
    # The equilibrium: seat 1 facing a bet calls never with a Jack, always with a King, a
    # third of the time with a Queen (the same at every equilibrium).
    assert mean_call(kuhn_view(1, J, [BET]), MCCFR) < 0.03
    assert mean_call(kuhn_view(1, K, [BET]), MCCFR) > 0.97
    assert mean_call(kuhn_view(1, Q, [BET]), MCCFR) == pytest.approx(1 / 3, abs=0.06)


def test_targeting_brings_the_iterations_to_the_seat_s_position_without_bending_it():
    # Seat 1's Queen facing a bet is met by a sixth of the hands untargeted (a Queen, then
    # a bet); targeted iterations all replay it. Weighted by the mixture of both samplers,
    # the strategy found is the game's either way.
    view = kuhn_view(1, Q, [BET])
    visits = {}
    for targeting in (0.0, 0.9):
        config = replace(MCCFR, mccfr_targeting=targeting)
        tree = _search.Tree(view, _search.INFOSET, config.params(), 3, 100_000)
        tree.run(20_000)
        visits[targeting] = sum(v for _a, v, *_ in tree.root_children())
        assert mean_call(view, config) == pytest.approx(1 / 3, abs=0.06)
    assert visits[0.0] < 20_000 / 4 < 20_000 / 2 < visits[0.9]


def test_a_baseline_keeps_the_strategy_and_narrows_its_spread():
    # VR-MCCFR's baselines correct each sampled value without bias: seat 1's Queen facing
    # a bet still calls a third of the time, and eight searches of 20,000 iterations agree
    # far more closely (their spread: 0.13 without, 0.03 with a baseline).
    view = kuhn_view(1, Q, [BET])
    limits = SearchLimits(iterations=20_000)
    spread = {}
    for rate in (0.0, 0.1):
        config = replace(MCCFR, mccfr_baseline=rate)
        calls = [search(view, limits, config, seed=s).policy[BET] for s in range(8)]
        spread[rate] = statistics.pstdev(calls)
        if rate:
            assert statistics.mean(calls) == pytest.approx(1 / 3, abs=0.06)
    assert spread[0.1] < spread[0.0] / 2


def test_the_seed_draws_the_move_from_the_average_strategy():
    view = kuhn_view(1, Q, [BET])
    limits = SearchLimits(iterations=5_000)
    first = search(view, limits, MCCFR, seed=4)
    again = search(view, limits, MCCFR, seed=4)
    assert again == replace(first, elapsed_s=again.elapsed_s)
    assert sum(first.policy.values()) == pytest.approx(1.0)
    assert first.policy[first.action] > 0
    assert {search(view, limits, MCCFR, seed=s).action for s in range(8)} == {PASS, BET}


def test_leduc_poker_s_second_round_is_searched_from_the_deal():
    # Seat 1's view in the second round (raise, call; a Queen shown; seat 0 checked), a
    # Jack in hand: its average strategy is a distribution over its legal actions, and a
    # tree too small for the game still answers (rollouts below it).
    king, jack, queen = 4, 0, 2
    view = LeducPokerState.from_deal([king, jack, queen], [2, 1, 1]).view(1)
    config = SearchConfig(
        evaluator="heuristic",
        policy="none",
        rollout_actions=-1,
        search_root="hand",
        solver="mccfr",
        play="sample",
    )
    legal = set(view.determinize(0).legal_actions())
    for max_nodes in (100_000, 40):
        result = search(view, SearchLimits(iterations=3_000, max_nodes=max_nodes), config)
        assert set(result.policy) <= legal and result.action in legal
        assert sum(result.policy.values()) == pytest.approx(1.0)
        assert result.tree_nodes <= max_nodes


def test_the_uct_search_has_no_average_strategy():
    tree = _search.Tree(kuhn_view(0, J, []), _search.INFOSET, KUHN_POKER_CONFIG.params(), 1, 1000)
    tree.run(100)
    assert tree.average_policy() == {}


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"solver": "cfr"}, "solver"),
        ({"solver": "mccfr", "search_root": "view"}, "solver"),
        ({"solver": "mccfr", "play": "most_visited"}, "solver"),
        ({"mccfr_exploration": 1.5}, "mccfr_exploration"),
        ({"mccfr_targeting": 1.0}, "mccfr_targeting"),
        ({"mccfr_baseline": -0.1}, "mccfr_baseline"),
    ],
)
def test_bad_settings_are_named(settings, named):
    with pytest.raises(ValueError, match=named):
        replace(MCCFR, **settings).validate()


def test_the_compiled_tree_refuses_mccfr_from_the_view():
    params = replace(MCCFR, search_root="view").params()
    with pytest.raises(ValueError, match="search_root=hand"):
        _search.Tree(kuhn_view(0, J, []), _search.INFOSET, params, 1, 1000)


def test_a_search_in_threads_averages_its_trees_strategies():
    view = kuhn_view(1, Q, [BET])
    searcher = Search.from_view(view, MCCFR, seed=2, threads=2)
    searcher.run(4_000)
    result = searcher.result()
    assert sum(result.policy.values()) == pytest.approx(1.0)
    assert result.iterations == 4_000


def test_a_move_under_review_is_the_only_one_searched_at_the_seat_s_position():
    view = kuhn_view(1, Q, [BET])
    searcher = Search.from_view(view, MCCFR, seed=2, root_action=PASS)
    searcher.run(2_000)
    assert [c.action for c in searcher.result().candidates] == [PASS]


def test_a_full_state_is_searched_by_uct():
    # The cheat and PIMC search full states, which hide nothing: no hand to sample.
    state = KuhnPokerState.from_deal([J, K], [BET])
    result = search_full_state(state, SearchLimits(iterations=300), MCCFR, seed=1)
    assert result.action == BET  # seat 1 sees its King beat the Jack that bet: it calls
