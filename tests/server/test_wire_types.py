"""A position whose fields come with unexpected wire types is read as protobuf reads it.

protobuf keeps a field sent with another wire type than its declared one as an unknown
field, which its accessors ignore; the engine must ignore it too (tests/engine/
test_wire_agreement.py checks that over mutated messages). Here the service answers such
requests over gRPC and over HTTP (Connect, binary protobuf) as it answers the message
protobuf read:
- `0a 02 10 01`: a state whose `config` (a message) is sent as a varint: protobuf reads an
  empty GameState, so the answer is INVALID_ARGUMENT naming the missing fields
  (state.config, state.board, state.turn, ...), never INTERNAL / HTTP 500;
- `config.players` sent again as a fixed32 3, or as a length-delimited "xx": protobuf keeps
  the 2 players of the state, and so does the engine (the answer is the clean state's).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import grpc
import pytest
from server_helpers import played, to_proto, violations

from council.v1 import service_pb2 as spb

SERVICE = "council.v1.CouncilService"
EMPTY_CONFIG_AS_VARINT = bytes.fromhex("0a021001")  # state { field 2 (config), varint 1 }
# What protobuf reads in it: every required part of a position missing.
EMPTY_STATE_VIOLATIONS = {
    ("state.config", "required field is missing"),
    ("state.board", "required field is missing"),
    ("state.turn", "required field is missing"),
}
STATE = to_proto(played(2, seed=7, actions=12))
CLEAN = spb.ListLegalActionsRequest(state=STATE).SerializeToString()


def with_config_players(wire_bytes: bytes) -> bytes:
    """The clean request with a second `config` in its state holding only `wire_bytes`
    (protobuf merges the two configs and keeps `wire_bytes` as an unknown field)."""
    state = STATE.SerializeToString() + b"\x12" + bytes([len(wire_bytes)]) + wire_bytes
    return b"\x0a" + _varint(len(state)) + state


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


PLAYERS_AS_FIXED32 = with_config_players(bytes.fromhex("0d03000000"))  # players, fixed32 3
PLAYERS_AS_BYTES = with_config_players(b"\x0a\x02xx")  # players, length-delimited "xx"


def test_protobuf_reads_the_mutants_as_the_tests_say():
    assert spb.ListLegalActionsRequest.FromString(EMPTY_CONFIG_AS_VARINT).state.ByteSize() == 2
    assert not spb.ListLegalActionsRequest.FromString(EMPTY_CONFIG_AS_VARINT).state.HasField(
        "config"
    )
    for mutant in (PLAYERS_AS_FIXED32, PLAYERS_AS_BYTES):
        request = spb.ListLegalActionsRequest.FromString(mutant)
        assert request.state.config.players == 2
        assert request.state.config.SerializeToString() != STATE.config.SerializeToString()


# -- gRPC -------------------------------------------------------------------------------------

STATE_METHODS = {  # the unary methods that read a position, and their response types
    "ListLegalActions": spb.ListLegalActionsResponse,
    "ApplyAction": spb.ApplyActionResponse,
    "RecommendAction": spb.RecommendActionResponse,
    "GetView": spb.GetViewResponse,
    "RenderPosition": spb.RenderPositionResponse,
}

OTHER_FIELDS = {"GetView": b"\x10\x00"}  # seat 0, which GetView checks before the state


def raw_call(channel, method: str, request: bytes):
    call = channel.unary_unary(
        f"/{SERVICE}/{method}",
        request_serializer=lambda b: b,
        response_deserializer=STATE_METHODS[method].FromString,
    )
    return call(request, timeout=30)


@pytest.mark.parametrize("method", sorted(STATE_METHODS))
def test_grpc_a_message_field_sent_as_a_varint_is_invalid_argument(channel, method):
    with pytest.raises(grpc.RpcError) as caught:
        raw_call(channel, method, EMPTY_CONFIG_AS_VARINT + OTHER_FIELDS.get(method, b""))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert set(violations(caught.value)) >= EMPTY_STATE_VIOLATIONS


def test_grpc_a_message_field_sent_as_a_varint_is_invalid_argument_in_a_stream(channel):
    call = channel.unary_stream(
        f"/{SERVICE}/AnalyzePosition",
        request_serializer=lambda b: b,
        response_deserializer=spb.AnalyzePositionResponse.FromString,
    )
    with pytest.raises(grpc.RpcError) as caught:
        list(call(EMPTY_CONFIG_AS_VARINT, timeout=30))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert set(violations(caught.value)) >= EMPTY_STATE_VIOLATIONS


@pytest.mark.parametrize("mutant", [PLAYERS_AS_FIXED32, PLAYERS_AS_BYTES], ids=["fixed32", "xx"])
def test_grpc_players_with_another_wire_type_are_read_as_protobuf_reads_them(channel, mutant):
    expected = raw_call(channel, "ListLegalActions", CLEAN)
    answer = raw_call(channel, "ListLegalActions", mutant)
    assert answer == expected and len(answer.actions) > 0


# -- HTTP (Connect, binary protobuf) ----------------------------------------------------------


def post(address: str, method: str, body: bytes) -> tuple[int, bytes]:
    request = urllib.request.Request(
        f"http://{address}/{SERVICE}/{method}",
        data=body,
        headers={"Content-Type": "application/proto"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


def test_http_a_message_field_sent_as_a_varint_is_invalid_argument(http_server):
    status, body = post(http_server.http_address, "ListLegalActions", EMPTY_CONFIG_AS_VARINT)
    error = json.loads(body)
    assert (status, error["code"]) == (400, "invalid_argument")
    (detail,) = error["details"]
    found = {(v["field"], v["description"]) for v in detail["debug"]["fieldViolations"]}
    assert found >= EMPTY_STATE_VIOLATIONS


@pytest.mark.parametrize("mutant", [PLAYERS_AS_FIXED32, PLAYERS_AS_BYTES], ids=["fixed32", "xx"])
def test_http_players_with_another_wire_type_are_read_as_protobuf_reads_them(http_server, mutant):
    status, expected = post(http_server.http_address, "ListLegalActions", CLEAN)
    assert status == 200
    status, body = post(http_server.http_address, "ListLegalActions", mutant)
    assert status == 200
    answer = spb.ListLegalActionsResponse.FromString(body)
    assert answer == spb.ListLegalActionsResponse.FromString(expected)
    assert len(answer.actions) > 0
