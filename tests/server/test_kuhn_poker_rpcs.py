"""Kuhn poker (config.game = GAME_KUHN_POKER) over a real gRPC server: NewGame,
ListLegalActions, ApplyAction (by id, text and structure), RecommendAction, GetView,
RenderPosition and GetEngineInfo, a whole game played with RecommendAction for both seats,
and NewGame and a bad position over HTTP (Connect, JSON)."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import json_format
from server_helpers import violations
from test_http import call

from council.engine._kuhn_poker import KuhnPokerState
from council.engine.serialize import state_from_proto, state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

KUHN = pb.GAME_KUHN_POKER


def new_game(stub, seed=3, **kwargs):
    config = pb.GameConfig(game=KUHN, players=2)
    return stub.NewGame(spb.NewGameRequest(config=config, seed=seed, **kwargs))


def invalid(call_) -> list[tuple[str, str]]:
    with pytest.raises(grpc.RpcError) as e:
        call_()
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value.details()
    return violations(e.value)


def test_new_game_deals_from_the_seed_and_views_hide_the_other_card(stub):
    response = new_game(stub, seed=3, include_views=True)
    assert response.state.format == "kuhn-poker/1"
    assert list(response.state.kuhn_poker.cards) == ["J", "K"]
    assert response.state.kuhn_poker.current == 0
    assert state_from_proto(response.state) == KuhnPokerState.new_game(seed=3)
    views = {v.seat: v.state for v in response.views}
    assert list(views[0].kuhn_poker.cards) == ["J", ""]
    assert list(views[1].kuhn_poker.cards) == ["", "K"]
    assert not views[1].HasField("rng")
    shown = stub.GetView(spb.GetViewRequest(state=response.state, seat=1)).state
    assert shown == views[1]


def test_new_game_refuses_other_seat_counts(stub):
    config = pb.GameConfig(game=KUHN, players=3)
    found = invalid(lambda: stub.NewGame(spb.NewGameRequest(config=config, seed=1)))
    assert found == [("config.players", "Kuhn poker seats 2, got 3")]


def test_list_legal_actions_names_fold_and_call_facing_a_bet(stub):
    msg = new_game(stub).state
    listed = stub.ListLegalActions(
        spb.ListLegalActionsRequest(state=msg, include_descriptions=True)
    )
    assert (listed.seat, listed.decision) == (0, "bet")
    assert [(a.id, a.text, a.kind) for a in listed.actions] == [
        (0, "pass", pb.ACTION_KIND_PASS),
        (1, "bet", pb.ACTION_KIND_BET),
    ]
    assert all(a.description for a in listed.actions)
    after_bet = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=1)).state
    listed = stub.ListLegalActions(spb.ListLegalActionsRequest(state=after_bet))
    assert (listed.seat, listed.decision) == (1, "call")
    assert [a.text for a in listed.actions] == ["fold", "call"]


def test_apply_action_by_id_text_and_structure_to_the_end(stub):
    msg = new_game(stub).state  # seat 0 holds J, seat 1 K
    passed = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_text="pass"))
    assert passed.applied.text == "pass" and not passed.game_over
    structured = pb.Action(kind=pb.ACTION_KIND_BET)
    bet = stub.ApplyAction(spb.ApplyActionRequest(state=passed.state, structured=structured))
    assert bet.applied.id == 1 and list(bet.state.kuhn_poker.history) == ["pass", "bet"]
    folded = stub.ApplyAction(spb.ApplyActionRequest(state=bet.state, action_id=0))
    assert folded.applied.text == "fold"
    assert folded.game_over and list(folded.scores) == [-1, 1] and list(folded.winners) == [1]
    assert list(folded.state.kuhn_poker.returns) == [-1, 1]
    assert not folded.state.kuhn_poker.HasField("current")
    # A fold shows no card: seat 1's view still hides seat 0's Jack.
    view = stub.GetView(spb.GetViewRequest(state=folded.state, seat=1)).state
    assert list(view.kuhn_poker.cards) == ["", "K"]


def test_bad_positions_and_actions_name_their_field(stub):
    msg = new_game(stub).state
    msg.kuhn_poker.cards[1] = "J"
    found = invalid(lambda: stub.GetView(spb.GetViewRequest(state=msg, seat=0)))
    assert found == [("state.kuhn_poker.cards[1]", "the deal holds one J")]
    msg = new_game(stub).state
    msg.kuhn_poker.history.extend(["pass", "pass", "bet"])
    msg.kuhn_poker.ClearField("current")
    found = invalid(lambda: stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg)))
    assert found == [("state.kuhn_poker.history[2]", "the game was over before this action")]
    msg = new_game(stub).state
    structured = pb.Action(kind=pb.ACTION_KIND_PICK, card="The Author")
    found = invalid(
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    )
    assert found[0][0] == "structured.kind"


def test_recommend_action_searches_the_seats_view(stub):
    msg = new_game(stub, seed=3).state  # seat 0: J; seat 1: K
    bet = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=1)).state
    view = state_to_proto(state_from_proto(bet).view(1))
    result = stub.RecommendAction(
        spb.RecommendActionRequest(state=view, limits=pb.SearchLimits(iterations=300), seed=1)
    ).result
    assert result.action.text == "call"  # a King always calls


def test_recommend_action_returns_the_mixed_policy(stub):
    # Seat 1 holds a Queen facing a bet: an equilibrium calls a third of the time, and the
    # search mixes too. Each candidate carries its chance of being played; the seed draws.
    bet = KuhnPokerState.from_deal([0, 1], [1])
    view = state_to_proto(bet.view(1))
    played = set()
    for seed in range(4):
        result = stub.RecommendAction(
            spb.RecommendActionRequest(
                state=view, limits=pb.SearchLimits(iterations=2000), seed=seed
            )
        ).result
        policy = {c.action.text: c.policy for c in result.candidates}
        assert set(policy) == {"fold", "call"} and sum(policy.values()) == pytest.approx(1.0)
        assert 0 < policy["call"] < 1 and policy[result.action.text] > 0
        played.add(result.action.text)
    assert played == {"fold", "call"}


def test_render_and_engine_info(stub):
    msg = new_game(stub).state
    svg = stub.RenderPosition(spb.RenderPositionRequest(state=msg, seat=0)).svg
    assert svg.startswith("<svg") and "seat 1: ?" in svg
    info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    (kuhn,) = [g for g in info.games if g.game == KUHN]
    assert (kuhn.name, kuhn.display_name, kuhn.min_players, kuhn.max_players) == (
        "kuhn-poker",
        "Kuhn poker",
        2,
        2,
    )
    assert list(kuhn.card_ranks) == ["J", "Q", "K"] and kuhn.num_actions == 2


def test_a_whole_game_over_grpc_with_recommendations_for_both_seats(stub):
    for seed in range(4):
        msg = new_game(stub, seed=seed).state
        actions = []
        answer = None
        while not state_from_proto(msg).is_terminal():
            result = stub.RecommendAction(
                spb.RecommendActionRequest(
                    state=msg, limits=pb.SearchLimits(iterations=50), seed=len(actions)
                )
            ).result
            answer = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=result.action.id))
            actions.append(result.action.id)
            msg = answer.state
        assert answer is not None and answer.game_over
        core = KuhnPokerState.new_game(seed=seed)
        for a in actions:
            core.apply(a)
        assert state_from_proto(msg) == core
        assert list(answer.scores) == core.scores() and sum(answer.scores) == 0


def test_kuhn_poker_over_connect_json(http_server, grpc_stub):
    config = {"game": "GAME_KUHN_POKER", "players": 2}
    status, _, body = call(http_server.http_address, "NewGame", {"config": config, "seed": "3"})
    assert status == 200
    state = json.loads(body)["state"]
    assert state["kuhnPoker"]["cards"] == ["J", "K"] and state["format"] == "kuhn-poker/1"
    grpc_state = grpc_stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(game=KUHN, players=2), seed=3)
    ).state
    assert json_format.ParseDict(state, pb.GameState()) == grpc_state
    state["kuhnPoker"]["history"] = ["raise"]
    status, _, body = call(http_server.http_address, "GetView", {"state": state, "seat": 0})
    assert status == 400
    assert json.loads(body)["message"] == (
        "state.kuhn_poker.history[0]: unknown action 'raise'; pass or bet"
    )
