"""Mixed play and beliefs (issue #36): the search from the start of the hand, Smooth UCT,
the move drawn from the search's policy, and the frozen search before them (strong-v3).
Kuhn poker is the worked case: its equilibrium (mcts/kuhn_poker_agents.py) says what a
search that reads the other seat should do."""

from __future__ import annotations

from dataclasses import replace

import pytest

from council.engine._kuhn_poker import KuhnPokerState
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.the_council import TheCouncilState
from council.mcts import _search
from council.mcts.agents import STRONG_V3, parse_agent
from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG, KUHN_POKER_V3_CONFIG
from council.mcts.search import Search, SearchConfig, SearchLimits, search

J, Q, K = 0, 1, 2
PASS, BET = 0, 1
CASUAL = SearchLimits(iterations=2000)


def kuhn_view(seat: int, card: int, history: list[int]) -> KuhnPokerState:
    cards = [-1, -1]
    cards[seat] = card
    return KuhnPokerState.from_deal(cards, history, viewer=seat)


def mean_policy(view, config: SearchConfig, action: int, seeds: int = 4) -> float:
    total = 0.0
    for seed in range(seeds):
        result = search(view, CASUAL, config, seed=seed)
        assert sum(c.policy for c in result.candidates) == pytest.approx(1.0)
        total += sum(c.policy for c in result.candidates if c.action == action)
    return total / seeds


def test_the_search_bluffs_a_jack_and_mixes_its_calls_with_a_queen():
    # Before, it never bet a Jack and called a bet with a Queen 86-100% of the time; an
    # equilibrium bluffs a Jack up to 1/3 of the time and calls with a Queen 1/3.
    assert mean_policy(kuhn_view(0, J, []), KUHN_POKER_V3_CONFIG, BET) == 0.0
    assert 0.05 < mean_policy(kuhn_view(0, J, []), KUHN_POKER_CONFIG, BET) < 0.5
    assert mean_policy(kuhn_view(1, Q, [BET]), KUHN_POKER_V3_CONFIG, BET) == 1.0
    assert 0.1 < mean_policy(kuhn_view(1, Q, [BET]), KUHN_POKER_CONFIG, BET) < 0.7


def test_a_bet_tells_the_search_the_other_card_is_likely_higher():
    # Seat 1 holds a Queen facing a bet. Dealt the other card uniformly (J or K), calling
    # is worth 0 chips (reward 0.5); believing the bettor's betting (K bets far more often
    # than J bluffs) it loses, -1 chip (reward 0.25) against the equilibrium.
    view = kuhn_view(1, Q, [BET])

    def call_reward(config: SearchConfig) -> float:
        result = search(view, CASUAL, config, seed=1)
        return next(c.mean_reward for c in result.candidates if c.action == BET)

    assert 0.4 < call_reward(KUHN_POKER_V3_CONFIG) < 0.6
    assert call_reward(KUHN_POKER_CONFIG) < 0.4


def test_the_seed_draws_the_move_from_the_policy():
    view = kuhn_view(1, Q, [BET])
    first = search(view, CASUAL, KUHN_POKER_CONFIG, seed=3)
    again = search(view, CASUAL, KUHN_POKER_CONFIG, seed=3)
    assert again == replace(first, elapsed_s=again.elapsed_s)
    assert dict((c.action, c.policy) for c in first.candidates)[first.action] > 0
    chosen = {search(view, CASUAL, KUHN_POKER_CONFIG, seed=s).action for s in range(6)}
    assert chosen == {PASS, BET}
    # The most visited move: policy 1 on it, 0 on the others.
    plain = search(view, CASUAL, KUHN_POKER_V3_CONFIG, seed=3)
    assert [c.policy for c in plain.candidates] == [1.0] + [0.0] * (len(plain.candidates) - 1)
    assert plain.action == plain.candidates[0].action


def test_a_line_the_search_hardly_plays_is_answered_from_the_actual_betting():
    view = kuhn_view(0, K, [PASS, BET])  # a King checked, then faces a bet
    tree = _search.Tree(view, _search.INFOSET, KUHN_POKER_CONFIG.params(), 5, 10_000)
    tree.follow_history = True
    tree.run(60)
    visits = sum(v for _a, v, *_ in tree.root_children())
    # Every iteration bets as the hand did; those that dealt seat 0 its King reach it.
    assert 0 < visits < 60
    assert tree.principal_variation()[0] in (PASS, BET)


def test_a_forced_move_at_the_seat_s_position_is_the_only_one_searched_there():
    view = kuhn_view(1, Q, [BET])
    searcher = Search.from_view(view, KUHN_POKER_CONFIG, seed=2, root_action=PASS)
    searcher.run(300)
    assert [c.action for c in searcher.result().candidates] == [PASS]


@pytest.mark.parametrize(
    "view",
    [
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1).view(0),
        TheCouncilState.new_game(4, 1).view(0),
    ],
)
def test_a_game_that_keeps_no_record_of_its_hand_refuses_the_hand_start(view):
    config = SearchConfig(evaluator="heuristic", policy="none", search_root="hand")
    with pytest.raises(ValueError, match="search_root"):
        search(view, SearchLimits(iterations=10), config)


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("search_root", "deal"),
        ("smooth_eta", 1.5),
        ("smooth_gamma", -0.1),
        ("smooth_d", -1.0),
        ("play", "best"),
        ("hand_focus", 1.0),
    ],
)
def test_bad_settings_are_named(setting, value):
    with pytest.raises(ValueError, match=setting):
        replace(SearchConfig(), **{setting: value}).validate()


def test_smooth_uct_is_refused_with_the_learned_prior():
    view = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1).view(0)
    with pytest.raises(ValueError, match="policy=none"):
        search(view, SearchLimits(iterations=10), SearchConfig(smooth_eta=0.9))


def test_smooth_uct_over_the_view_mixes_in_the_average_policy():
    # Council of Four, UCB1 from the view: the same seed searches differently once the
    # average policy is mixed in, and still returns a legal move with its visits.
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=2)
    plain = SearchConfig(evaluator="heuristic", policy="none")
    limits = SearchLimits(iterations=300)
    before = search(state.view(0), limits, plain, seed=4)
    after = search(state.view(0), limits, replace(plain, smooth_eta=0.5, smooth_gamma=0.5), seed=4)
    assert after.action in state.legal_actions()
    assert sum(c.visits for c in after.candidates) == sum(c.visits for c in before.candidates)
    assert [c.visits for c in after.candidates] != [c.visits for c in before.candidates]


def test_strong_v3_searches_the_frozen_budget_and_settings():
    view = kuhn_view(1, Q, [BET])
    agent = parse_agent("strong-v3", "kuhn-poker")
    config, iterations = STRONG_V3["kuhn-poker"]
    result = agent.analyse(view, seed=5)
    assert result == replace(
        search(view, SearchLimits(iterations=iterations), config, seed=5),
        elapsed_s=result.elapsed_s,
    )
    assert iterations == 2000 and config.search_root == "view" and config.play == "most_visited"
    timed = parse_agent("strong-v3:time_s=0.01", "kuhn-poker")
    assert timed.iterations is None and timed.act(view, seed=5) in (PASS, BET)


def test_leduc_poker_rewinds_its_two_rounds_to_the_deal_and_replays_them():
    # Seat 1's view in the second round (raise, call; the Queen shown; seat 0 checked): the
    # search from the deal replays both rounds' betting, and the iterations that deal seat
    # 1 a Jack (2 of 6 cards) with a Queen shown (2 of the 5 left) reach its position, where
    # both its actions are searched.
    from council.engine._leduc_poker import LeducPokerState

    king, jack, queen = 4, 0, 2
    view = LeducPokerState.from_deal([king, jack, queen], [2, 1, 1]).view(1)
    assert view.current_player == 1
    config = SearchConfig(
        evaluator="heuristic", policy="none", rollout_actions=-1, search_root="hand"
    )
    tree = _search.Tree(view, _search.INFOSET, config.params(), 3, 100_000)
    tree.follow_history = True
    tree.run(3000)
    children = {a: v for a, v, *_ in tree.root_children()}
    assert set(children) == set(view.determinize(0).legal_actions())
    assert all(v > 0 for v in children.values())
    assert 3000 * 2 / 6 * 2 / 5 * 0.8 < sum(children.values()) < 3000 * 2 / 6 * 2 / 5 * 1.2


def test_council_of_four_s_strong_preset_still_searches_as_strong_v3():
    # The new settings are off in Council of Four (not measured there yet): its strong
    # preset's search is strong-v3's, result for result.
    from council.server.presets import BY_NAME

    view = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=6).view(0)
    budget = BY_NAME["strong"].budget("council-of-four")
    preset = SearchConfig().with_settings(dict(budget.settings))
    result = parse_agent("strong-v3", "council-of-four").analyse(view, seed=2)
    again = search(view, SearchLimits(iterations=budget.iterations), preset, seed=2)
    assert result == replace(again, elapsed_s=result.elapsed_s)


def test_focused_iterations_update_only_the_seat_s_own_choices():
    # Kuhn poker, seat 1 holding a Queen facing a bet. A focused iteration deals seat 1 its
    # Queen and replays its betting: seat 1's position gets far more of the iterations than
    # without focus (a third of the deals give it a Queen), but not all (a focused line
    # whose bet the other seat's searched play does not make is dropped).
    view = kuhn_view(1, Q, [BET])
    focused = _search.Tree(
        view, _search.INFOSET, replace(KUHN_POKER_CONFIG, hand_focus=0.9).params(), 4, 100_000
    )
    plain = _search.Tree(view, _search.INFOSET, KUHN_POKER_CONFIG.params(), 4, 100_000)
    focused.run(3000)
    plain.run(3000)
    own = sum(v for _a, v, *_ in focused.root_children())
    assert 2 * sum(v for _a, v, *_ in plain.root_children()) < own < 3000
