"""council.server.client: the RecommendAction request and metadata clients send, and the
field violations of a failed call."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import duration_pb2
from server_helpers import to_proto

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.server.client import bearer_metadata, field_violations, recommend_request
from council.v1 import game_pb2 as pb


def test_request_from_a_state_or_a_message():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2)
    from_state = recommend_request(state, iterations=40, time_s=0.5, seed=7, max_candidates=3)
    from_message = recommend_request(
        to_proto(state), iterations=40, time_s=0.5, seed=7, max_candidates=3
    )
    assert from_state == from_message
    assert from_state.state == to_proto(state)
    assert not from_state.HasField("seat")  # the server picks the seat
    half_second = duration_pb2.Duration(nanos=500_000_000)
    assert from_state.limits == pb.SearchLimits(iterations=40, max_time=half_second)
    assert (from_state.seed, from_state.max_candidates) == (7, 3)
    view = recommend_request(state.view(1), seat=1, preset="beginner")
    assert view.seat == 1 and view.state.viewer == 1
    assert view.limits.preset == pb.STRENGTH_PRESET_BEGINNER
    assert recommend_request(state, seed=-2).seed == 2**64 - 2


def test_unknown_preset_is_a_value_error():
    with pytest.raises(ValueError, match="unknown strength preset 'max'"):
        recommend_request(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1), preset="max"
        )


def test_bearer_metadata():
    assert bearer_metadata("t") == [("authorization", "Bearer t")]
    assert bearer_metadata("") is None and bearer_metadata(None) is None


def test_field_violations_of_a_failed_call(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    with pytest.raises(grpc.RpcError) as info:
        stub.RecommendAction(recommend_request(state, seat=-1, iterations=10))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(info.value) == [("seat", "must be a seat number, got -1")]
    idle = 1 - state.current_player
    with pytest.raises(grpc.RpcError) as info:  # no BadRequest: no violations
        stub.RecommendAction(recommend_request(state, seat=idle, iterations=10))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert field_violations(info.value) == []
