"""The Council's agents: the expert (mcts/the_council_agents.py) and the random player play
legally and deterministically from a seat's view, use no hidden information, and the expert
is measured against random seats."""

import pytest
from council_positions import random_positions

from council.engine.games import all_games
from council.engine.the_council import TheCouncilConfig, TheCouncilState
from council.mcts.agents import ISMCTSAgent, RandomAgent, agent_label, parse_agent
from council.mcts.arena import play_game
from council.mcts.games import all_search_games
from council.mcts.the_council_agents import TheCouncilExpertAgent, _plan

EXPERT = TheCouncilExpertAgent()
RANDOM = RandomAgent()
AGENTS = [RANDOM, EXPERT]


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("agent", AGENTS, ids=["random", "expert"])
def test_agents_play_legal_deterministic_actions_in_whole_games(agent, players):
    phases = set()
    for game in range(2):
        state = TheCouncilState.new_game(players=players, seed=100 * players + game)
        # The agent under test plays every other seat; random play fills the rest.
        seats = [agent if s % 2 == game % 2 else RANDOM for s in range(players)]
        step = 0
        while not state.is_terminal():
            seat = state.current_player
            view = state.view(seat)
            action = seats[seat].act(view, step)
            assert action in state.legal_actions(), (state.phase, action)
            if seats[seat] is agent:
                phases.add(state.phase)
                _plan.cache_clear()  # the planner's answer again from scratch
                assert agent.act(view, step) == action
                assert agent.act(view.clone(), step) == action
            state.apply(action)
            step += 1
        assert state.winners()
    assert phases == {"draft", "bid", "reveal"}


@pytest.mark.parametrize("agent", AGENTS, ids=["random", "expert"])
def test_agents_refuse_the_full_state(agent):
    state = TheCouncilState.new_game(players=4, seed=1)
    with pytest.raises(ValueError):
        agent.act(state, 0)


@pytest.mark.parametrize("agent", AGENTS, ids=["random", "expert"])
def test_the_answer_does_not_depend_on_hidden_information(agent):
    checked = differed = 0
    for players in (3, 4, 5):
        for state in random_positions(players, seed=players, every=3):
            seat = state.current_player
            view = state.view(seat)
            first = view.determinize(11)
            second = view.determinize(22)
            differed += first != second
            # Two full states behind the same view (and the true one) give the same view.
            views = [first.view(seat), second.view(seat), state.view(seat)]
            assert all(v == view for v in views)
            actions = {agent.act(v, 5) for v in views}
            assert len(actions) == 1
            assert actions.pop() in state.legal_actions()
            checked += 1
    assert checked > 300
    assert differed > checked // 2  # the hidden parts really were drawn differently


def test_the_agents_of_the_council_by_name():
    assert parse_agent("random", game="the-council") == RandomAgent()
    assert parse_agent(" expert", game="the-council") == TheCouncilExpertAgent()
    assert parse_agent("ismcts:iterations=50", game="the-council") == ISMCTSAgent(iterations=50)
    assert agent_label(EXPERT) == "expert"
    with pytest.raises(ValueError, match="unknown agent 'greedy'; choose from random, expert"):
        parse_agent("greedy", game="the-council")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        parse_agent("random", game="chess")
    # every game has its agents (tests/test_games.py checks each part of each game)
    assert [g.name for g in all_search_games()] == [g.name for g in all_games()]


def test_games_are_reproducible():
    agents = [EXPERT, RANDOM, RANDOM]
    first, _ = play_game(agents, TheCouncilConfig(3), seed=3)
    second, _ = play_game(agents, TheCouncilConfig(3), seed=3)
    assert first.is_terminal() and first == second
    assert play_game(agents, TheCouncilConfig(3), seed=4)[0] != first


# Measured (seeds 0..39 below): the expert wins 39 of 40 (97.5%) four-seat games against
# three random seats, 91% over 400 other games; a fair share is 25%. The bar is set well
# below it so that a small change of the rules core does not trip it.
STRENGTH_GAMES = 40
STRENGTH_BAR = 0.6


def test_expert_beats_random_seats():
    players = 4
    won = 0.0
    for game in range(STRENGTH_GAMES):
        seat = game % players  # the expert in each seat equally often
        agents = [EXPERT if s == seat else RANDOM for s in range(players)]
        state, _ = play_game(agents, TheCouncilConfig(players), seed=game)
        won += state.returns()[seat]
    assert won / STRENGTH_GAMES > STRENGTH_BAR, won
