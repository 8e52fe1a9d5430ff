"""One schema on the wire: every GameState the service returns (new, mid-game and finished
states of 2, 3 and 4 players, full and every seat's view) is the protobuf form of the
engine's JSON, and its protobuf JSON mapping loads back to the same engine state."""

from __future__ import annotations

import random

import pytest
from google.protobuf import json_format

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_from_json, state_to_json, state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb


def _same_schema(msg: pb.GameState, state: CouncilOfFourState) -> None:
    assert json_format.ParseDict(state_to_json(state), pb.GameState()) == msg
    written = json_format.MessageToDict(msg, preserving_proto_field_name=True)
    assert state_from_json(written) == state


def _check_response(response, state: CouncilOfFourState) -> None:
    _same_schema(response.state, state)
    assert [v.seat for v in response.views] == list(range(state.n_players))
    for view in response.views:
        _same_schema(view.state, state.view(view.seat))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_new_mid_game_and_finished_states_on_the_wire(stub, players):
    config = CouncilOfFourConfig(players=players)
    response = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(players=players), seed=players, include_views=True)
    )
    state = CouncilOfFourState.new_game(config, seed=players)
    _check_response(response, state)

    chooser = random.Random(players)
    for _ in range(30 * players):
        state.apply(chooser.choice(state.legal_actions()))
    action = state.legal_actions()[0]
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state), action_id=action, include_views=True)
    )
    _check_response(response, state.child(action))

    while True:
        action = chooser.choice(state.legal_actions())
        if state.child(action).is_terminal():
            break
        state.apply(action)
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state), action_id=action, include_views=True)
    )
    assert response.game_over
    _check_response(response, state.child(action))
