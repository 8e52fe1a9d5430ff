"""Random play of every registered game, with the invariants of the position contract
(``council.engine.position.Position``) checked after every action.

At every seat count of every game, seeded games of uniformly random legal actions are played
to the end: the legal actions are never empty before the end, sorted, distinct and in the
action space; a legal action applies, an illegal one raises ``IllegalActionError`` and
changes nothing; clones and pickles are equal and independent; ``problems()`` finds nothing;
the game ends in a bounded number of actions with scores, winners and returns that agree.
"""

from __future__ import annotations

import pickle
import random

import pytest
from every_game import EVERY_GAME, EVERY_SEAT_COUNT, SEEDS, random_play

from council.engine import IllegalActionError

SAMPLE_RATE = 0.1  # share of positions where every action id is asked is_legal


def check_running(game, state, rng: random.Random) -> None:
    """The invariants of a position of a running game."""
    assert state.problems() == []
    assert not state.is_view and state.viewer == -1
    legal = state.legal_actions()
    assert legal, f"{game.name}: no legal action in a running game"
    assert legal == sorted(set(legal)), "legal actions must be sorted and distinct"
    assert legal[0] >= 0 and legal[-1] < game.num_actions
    assert 0 <= state.current_player < state.n_players
    if rng.random() < SAMPLE_RATE:
        assert [a for a in range(game.num_actions) if state.is_legal(a)] == legal
    # Clones and pickles are equal, and independent of the original.
    twin = state.clone()
    assert twin == state and twin is not state
    assert pickle.loads(pickle.dumps(state)) == state
    child = twin.child(legal[-1])
    assert child.action_count == state.action_count + 1 and twin == state
    twin.apply(legal[0])
    assert twin != state and twin.action_count == state.action_count + 1
    # Illegal ids are refused and leave the position as it was.
    illegal = [a for a in range(game.num_actions) if a not in set(legal)]
    for action in [*rng.sample(illegal, min(3, len(illegal))), -1, game.num_actions]:
        before = state.clone()
        with pytest.raises(IllegalActionError):
            before.apply(action)
        assert before == state, f"{game.name}: the refused action {action} changed the state"


def check_finished(game, state, players: int) -> None:
    """The invariants of a finished game: no action, and scores, winners and returns that
    agree (the winners are the seats of the best return, and hold the best score)."""
    assert state.problems() == []
    assert state.legal_actions() == [] and state.current_player == -1
    with pytest.raises(IllegalActionError):
        state.clone().apply(0)
    scores, winners, returns = state.scores(), state.winners(), state.returns()
    assert state.n_players == len(scores) == len(returns) == players
    assert winners and winners == sorted(set(winners)) and set(winners) <= set(range(players))
    assert winners == [p for p in range(players) if returns[p] == max(returns)]
    assert all(scores[p] == max(scores) for p in winners)


@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_random_play_keeps_the_invariants(game, players):
    for seed in SEEDS:
        rng = random.Random(-seed)
        start = game.new_game(game.config_class(players=players), seed=seed)
        assert start.winners() == [] and start.returns() == [0.0] * players
        actions = 0
        for state in random_play(game, players, seed):
            if state.is_terminal():
                break
            check_running(game, state, rng)
            actions += 1
        assert state.action_count == actions > 0
        check_finished(game, state, players)


@pytest.mark.parametrize("game", EVERY_GAME)
def test_the_same_seed_and_actions_give_the_same_game(game):
    config = game.config_class(players=game.min_players)
    state, rng = game.new_game(config, seed=4), random.Random(4)
    trace, actions = [], []
    while not state.is_terminal():
        trace.append(state.clone())
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    replay = game.new_game(config, seed=4)
    for step, (before, action) in enumerate(zip(trace, actions, strict=True)):
        assert replay == before, f"{game.name}: the replay differs before action {step}"
        replay.apply(action)
    assert replay == state and replay.scores() == state.scores()
    starts = {game.write(game.new_game(config, seed=s)).SerializeToString() for s in range(5)}
    assert len(starts) > 1, f"{game.name}: five seeds dealt the same game"
