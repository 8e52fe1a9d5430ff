"""Every RPC for every registered game over a real gRPC server (``conftest.py``'s).

A whole seeded random game of each game is played with ``ApplyAction`` (the action sent by
id, text and structured message in turn), its answers compared with the engine's position
after every action; ``ListLegalActions`` at every step, on the full state and on the
mover's view; every few actions ``GetView`` and ``RenderPosition`` for every seat,
``ApplyAction`` on the mover's view with a seed, and ``RecommendAction`` (a tiny budget, on
the full state and on the view: the same answer) and ``AnalyzePosition`` (its last message
is that recommendation). ``NewGame`` deals every seat count as the engine does, and
``GetEngineInfo`` lists the game.
"""

from __future__ import annotations

import random

import grpc
import pytest
from every_game import EVERY_GAME

from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

EVERY_SO_OFTEN = 23  # actions between the calls that are not made at every step
LIMITS = pb.SearchLimits(iterations=8)


def engine_view_messages(game, state) -> list[pb.PlayerView]:
    return [
        pb.PlayerView(seat=seat, state=game.write(state.view(seat)))
        for seat in range(state.n_players)
    ]


def search_result(stub, msg, seed: int) -> pb.SearchResult:
    request = spb.RecommendActionRequest(state=msg, limits=LIMITS, seed=seed)
    result = stub.RecommendAction(request).result
    result.stats.ClearField("elapsed")
    return result


def check_searches(game, stub, state) -> None:
    """RecommendAction and AnalyzePosition on the full state and the mover's view."""
    seat = state.current_player
    full, view = game.write(state), game.write(state.view(seat))
    result = search_result(stub, full, seed=5)
    assert result == search_result(stub, view, seed=5), "the search sees the mover's view only"
    assert result.seat == seat and result.action.id in state.legal_actions()
    assert result.action == game.action_to_proto(state, result.action.id)
    assert result.stats.iterations == LIMITS.iterations
    request = spb.AnalyzePositionRequest(state=full, limits=LIMITS, seed=5)
    stream = list(stub.AnalyzePosition(request))
    assert [m.final for m in stream][-1] and not any(m.final for m in stream[:-1])
    stream[-1].result.stats.ClearField("elapsed")
    assert stream[-1].result == result


def check_views_and_drawing(game, stub, state) -> None:
    msg = game.write(state)
    for seat in range(state.n_players):
        view = stub.GetView(spb.GetViewRequest(state=msg, seat=seat)).state
        assert view == game.write(state.view(seat))
        svg = stub.RenderPosition(spb.RenderPositionRequest(state=msg, seat=seat)).svg
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")


def check_apply_on_the_view(game, stub, state, action: int) -> None:
    """ApplyAction on the mover's view deals its hidden cards from the seed and answers
    with the view of the sampled continuation."""
    seat = state.current_player
    view = state.view(seat)
    request = spb.ApplyActionRequest(state=game.write(view), action_id=action, seed=9)
    answer = stub.ApplyAction(request)
    assert answer.sampled and answer.applied.id == action
    assert answer.state == game.write(view.determinize(9).child(action).view(seat))


def apply_request(game, state, msg, action: int, form: int) -> spb.ApplyActionRequest:
    """The action by id (form 0), by text (1) or by structured message without id (2)."""
    if form % 3 == 0:
        return spb.ApplyActionRequest(state=msg, action_id=action)
    if form % 3 == 1:
        return spb.ApplyActionRequest(state=msg, action_text=state.action_to_text(action))
    structured = pb.Action()
    structured.CopyFrom(game.action_to_proto(state, action))  # the codec's may be shared
    structured.ClearField("id")
    return spb.ApplyActionRequest(state=msg, structured=structured)


@pytest.mark.parametrize("game", EVERY_GAME)
def test_every_rpc_plays_a_whole_game(game, stub):
    players = game.min_players
    config = game.config_class(players=players)
    answer = stub.NewGame(
        spb.NewGameRequest(config=game.write(game.new_game(config)).config, seed=6)
    )
    state = game.new_game(config, seed=6)
    msg = answer.state
    assert msg == game.write(state)
    rng = random.Random(6)
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        listed = stub.ListLegalActions(
            spb.ListLegalActionsRequest(state=msg, include_descriptions=True)
        )
        assert listed.seat == state.current_player and listed.decision == state.decision_name
        assert [a.id for a in listed.actions] == legal
        assert [a.text for a in listed.actions] == [state.action_to_text(a) for a in legal]
        assert all(a.description for a in listed.actions)
        from_view = spb.ListLegalActionsRequest(state=game.write(state.view(listed.seat)))
        assert [a.id for a in stub.ListLegalActions(from_view).actions] == legal
        action = rng.choice(legal)
        if step % EVERY_SO_OFTEN == 0:
            check_views_and_drawing(game, stub, state)
            check_searches(game, stub, state)
            check_apply_on_the_view(game, stub, state, action)
        forms = range(3) if step == 0 else [step]  # the three at the first action
        answers = [stub.ApplyAction(apply_request(game, state, msg, action, f)) for f in forms]
        answer = answers[0]
        assert all(a == answer for a in answers), f"{game.name}: the forms of {action} differ"
        state.apply(action)
        assert answer.applied.id == action and not answer.sampled
        assert answer.state == game.write(state), f"{game.name}: ApplyAction at step {step}"
        assert answer.game_over == state.is_terminal()
        msg = answer.state
        step += 1
    assert list(answer.scores) == state.scores() and list(answer.winners) == state.winners()
    check_views_and_drawing(game, stub, state)
    for refused in (
        lambda: stub.RecommendAction(spb.RecommendActionRequest(state=msg, limits=LIMITS)),
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=0)),
    ):
        with pytest.raises(grpc.RpcError) as e:
            refused()
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION, e.value.details()


@pytest.mark.parametrize("game", EVERY_GAME)
def test_new_game_deals_every_seat_count_as_the_engine_does(game, stub):
    (listed,) = [
        g for g in stub.GetEngineInfo(spb.GetEngineInfoRequest()).games if g.name == game.name
    ]
    assert (listed.game, listed.min_players, listed.max_players) == (
        game.proto,
        game.min_players,
        game.max_players,
    )
    for players in game.players:
        state = game.new_game(game.config_class(players=players), seed=players)
        config = pb.GameConfig(game=game.proto, players=players)
        answer = stub.NewGame(spb.NewGameRequest(config=config, seed=players, include_views=True))
        assert answer.state == game.write(state)
        assert list(answer.views) == engine_view_messages(game, state)
