"""The `rpc` handler decorator and the statuses it answers with, unary and streaming."""

from __future__ import annotations

import inspect
import logging

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from server_helpers import to_proto, violations

from council.engine import GameConfig, State
from council.server.errors import RpcError, failed_precondition, invalid, rpc, to_status
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb


class Aborted(Exception):
    """What grpc's context.abort raises, here."""


class Context:
    def __init__(self):
        self.status = None
        self.code = None
        self.details = None

    def abort_with_status(self, status):
        self.status = status
        raise Aborted

    def abort(self, code, details):
        self.code, self.details = code, details
        raise Aborted


def rich(status: grpc.Status) -> status_pb2.Status:
    """The google.rpc.Status a grpc.Status carries in its trailing metadata."""
    return status_pb2.Status.FromString(dict(status.trailing_metadata)["grpc-status-details-bin"])


def bad_request(status: grpc.Status) -> list[tuple[str, str]]:
    out = []
    for detail in rich(status).details:
        bad = error_details_pb2.BadRequest()
        assert detail.Unpack(bad)
        out += [(v.field, v.description) for v in bad.field_violations]
    return out


class Servicer:
    @rpc
    def Unary(self, request, context):
        if request == "invalid":
            raise invalid([("seat", "must be a seat number, got -1")])
        if request == "bug":
            raise KeyError("oops")
        return f"answer to {request}"

    @rpc
    def Stream(self, request, context):
        yield 1
        yield 2
        if request == "invalid":
            raise invalid([("report_interval", "must be a positive duration")])
        if request == "precondition":
            raise failed_precondition("the game is over")
        if request == "bug":
            raise KeyError("oops")
        yield 3


def test_invalid_message_names_the_first_five_violations():
    error = invalid([(f"f{i}", "bad") for i in range(7)])
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.message == "f0: bad; f1: bad; f2: bad; f3: bad; f4: bad; and 2 more"
    assert len(error.violations) == 7
    assert invalid([("a", "b")], "custom").message == "custom"


def test_to_status_carries_code_message_and_bad_request():
    status = to_status(invalid([("state.players[2].coins", "must be in 0..20, got 99")]))
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT
    assert status.details == "state.players[2].coins: must be in 0..20, got 99"
    assert rich(status).code == code_pb2.INVALID_ARGUMENT
    assert bad_request(status) == [("state.players[2].coins", "must be in 0..20, got 99")]
    plain = to_status(failed_precondition("over"))
    assert plain.code == grpc.StatusCode.FAILED_PRECONDITION
    assert rich(plain).details == []


def test_unary_handler():
    servicer, context = Servicer(), Context()
    assert not inspect.isgeneratorfunction(Servicer.Unary)
    assert Servicer.Unary.__name__ == "Unary"
    assert servicer.Unary("x", context) == "answer to x"
    with pytest.raises(Aborted):
        servicer.Unary("invalid", context)
    assert context.status.code == grpc.StatusCode.INVALID_ARGUMENT
    assert bad_request(context.status) == [("seat", "must be a seat number, got -1")]


def test_streaming_handler_maps_rpc_error_after_the_messages_sent():
    assert inspect.isgeneratorfunction(Servicer.Stream)
    assert list(Servicer().Stream("x", Context())) == [1, 2, 3]
    for request, code, fields in (
        ("invalid", grpc.StatusCode.INVALID_ARGUMENT, ["report_interval"]),
        ("precondition", grpc.StatusCode.FAILED_PRECONDITION, []),
    ):
        context, sent = Context(), []
        with pytest.raises(Aborted):
            for message in Servicer().Stream(request, context):
                sent.append(message)
        assert sent == [1, 2]
        assert context.status.code == code
        assert [f for f, _ in bad_request(context.status)] == fields


@pytest.mark.parametrize("method", ["Unary", "Stream"])
def test_any_other_exception_is_logged_and_answered_internal(method, caplog):
    context = Context()
    with caplog.at_level(logging.ERROR, logger="council.server"), pytest.raises(Aborted):
        result = getattr(Servicer(), method)("bug", context)
        if method == "Stream":
            list(result)
    assert context.code == grpc.StatusCode.INTERNAL
    assert context.details == f"{method}: internal error"
    assert f"{method} failed" in caplog.text and "KeyError" in caplog.text


def test_rpc_error_keeps_its_fields():
    error = RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "full")
    assert (error.code, error.message, error.violations, str(error)) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "full",
        [],
        "full",
    )


def test_streaming_rpc_error_on_the_wire(stub):
    state = to_proto(State.new_game(GameConfig(players=2), seed=1))
    request = spb.AnalyzePositionRequest(
        state=state,
        limits=pb.SearchLimits(iterations=10),
        report_interval=duration_pb2.Duration(seconds=-1),
    )
    with pytest.raises(grpc.RpcError) as info:
        list(stub.AnalyzePosition(request))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(info.value) == [("report_interval", "must be a positive duration")]
