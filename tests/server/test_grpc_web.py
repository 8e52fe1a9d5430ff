"""gRPC-Web on the HTTP port (council.server.connect): connect-python's gRPC-Web client (a
client a front-end's server or a test could use), and the wire itself as a browser's
grpc-web or connect-web sends it (urllib, frames read by hand), binary and text
(base64). Answers are the gRPC server's, errors carry the same status and BadRequest
(``grpc-status-details-bin``), and the deadline, the bearer token and CORS hold for it."""

from __future__ import annotations

import base64
import struct
import time
import urllib.error
import urllib.parse
import urllib.request

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2
from server_helpers import played, to_proto, violations

from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1.service_connect import CouncilServiceClientSync

SERVICE = "council.v1.CouncilService"


@pytest.fixture(scope="module", params=[False, True], ids=["proto", "json"])
def client(http_server, request):
    """connect-python's gRPC-Web client (application/grpc-web+proto, or +json)."""
    with CouncilServiceClientSync(
        f"http://{http_server.http_address}",
        protocol=ProtocolType.GRPC_WEB,
        proto_json=request.param,
    ) as web:
        yield web


def bad_position() -> pb.GameState:
    state = to_proto(played(3, seed=6, actions=3))
    state.players[1].coins = 99
    del state.board.balconies.king[:]
    return state


def field_violations(details) -> list[tuple[str, str]]:
    """The field violations of google.rpc.Status details (google.protobuf.Any)."""
    found = []
    for detail in details:
        bad = error_details_pb2.BadRequest()
        assert detail.Unpack(bad)
        found += [(v.field, v.description) for v in bad.field_violations]
    return found


def web_call(address, method, request, headers=None, text=False):
    """POST one gRPC-Web call as a browser's client does; (HTTP status, response headers,
    messages, trailers). `text`: application/grpc-web-text (base64 both ways)."""
    body = struct.pack(">BI", 0, len(request)) + request
    content_type = "application/grpc-web-text" if text else "application/grpc-web+proto"
    call = urllib.request.Request(
        f"http://{address}/{SERVICE}/{method}",
        data=base64.b64encode(body) if text else body,
        headers={"Content-Type": content_type, "X-Grpc-Web": "1", **(headers or {})},
    )
    with urllib.request.urlopen(call, timeout=30) as answer:
        status, answer_headers, data = answer.status, answer.headers, answer.read()
    if text:  # each piece padded on its own: decode 4 characters at a time, as grpc-web does
        data = b"".join(base64.b64decode(data[i : i + 4]) for i in range(0, len(data), 4))
    messages, trailers, at = [], {}, 0
    while at < len(data):
        flags, size = struct.unpack(">BI", data[at : at + 5])
        frame = data[at + 5 : at + 5 + size]
        at += 5 + size
        if flags & 0x80:  # the trailers frame ends the body
            for line in frame.decode("ascii").split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip()] = value.strip()
            assert at == len(data)
        else:
            messages.append(frame)
    return status, answer_headers, messages, trailers


def status_details(trailers) -> status_pb2.Status:
    value = trailers["grpc-status-details-bin"]
    return status_pb2.Status.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))


def test_unary_calls_answer_as_grpc(client, grpc_stub):
    info = client.get_engine_info(spb.GetEngineInfoRequest())
    assert info == grpc_stub.GetEngineInfo(spb.GetEngineInfoRequest())
    state = to_proto(played(3, seed=5, actions=7))
    request = spb.ListLegalActionsRequest(state=state, include_descriptions=True)
    assert client.list_legal_actions(request) == grpc_stub.ListLegalActions(request)


def test_a_bad_position_gets_invalid_argument_with_the_field_violations(client, grpc_stub):
    request = spb.ListLegalActionsRequest(state=bad_position())
    with pytest.raises(grpc.RpcError) as over_grpc:
        grpc_stub.ListLegalActions(request)
    with pytest.raises(ConnectError) as over_web:
        client.list_legal_actions(request)
    assert over_web.value.code == Code.INVALID_ARGUMENT
    assert over_web.value.message == over_grpc.value.details()
    found = field_violations(over_web.value.details)
    assert found == violations(over_grpc.value)
    assert "state.players[1].coins" in [field for field, _ in found]


@pytest.mark.parametrize("text", [False, True], ids=["binary", "text"])
def test_the_wire_a_browser_reads(http_server, grpc_stub, text):
    status, headers, messages, trailers = web_call(
        http_server.http_address, "GetEngineInfo", b"", text=text
    )
    kind = "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
    assert status == 200 and headers["Content-Type"] == kind
    assert trailers == {"grpc-status": "0"}
    (message,) = messages
    info = spb.GetEngineInfoResponse.FromString(message)
    assert info == grpc_stub.GetEngineInfo(spb.GetEngineInfoRequest())

    request = spb.ListLegalActionsRequest(state=bad_position())
    with pytest.raises(grpc.RpcError) as over_grpc:
        grpc_stub.ListLegalActions(request)
    status, _, messages, trailers = web_call(
        http_server.http_address, "ListLegalActions", request.SerializeToString(), text=text
    )
    # gRPC-Web answers HTTP 200; the status is in the trailers frame, as gRPC's trailers.
    assert status == 200 and messages == []
    assert trailers["grpc-status"] == str(grpc.StatusCode.INVALID_ARGUMENT.value[0])
    assert urllib.parse.unquote(trailers["grpc-message"]) == over_grpc.value.details()
    rich = status_details(trailers)
    assert rich.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert field_violations(rich.details) == violations(over_grpc.value)


def test_analyze_position_streams_reports_and_one_final(client):
    request = spb.AnalyzePositionRequest(
        state=to_proto(played(2, seed=8, actions=4)),
        limits=pb.SearchLimits(max_time=duration_pb2.Duration(nanos=400_000_000)),
        report_interval=duration_pb2.Duration(nanos=100_000_000),
    )
    reports = list(client.analyze_position(request))
    assert [r.final for r in reports] == [False] * (len(reports) - 1) + [True]
    assert len(reports) >= 2 and reports[-1].result.stats.iterations > 0


def test_analyze_position_over_grpc_web_text(http_server):
    request = spb.AnalyzePositionRequest(
        state=to_proto(played(2, seed=8, actions=4)),
        limits=pb.SearchLimits(iterations=200),
        report_interval=duration_pb2.Duration(nanos=1_000_000),
    )
    status, headers, messages, trailers = web_call(
        http_server.http_address, "AnalyzePosition", request.SerializeToString(), text=True
    )
    assert status == 200 and trailers == {"grpc-status": "0"}
    reports = [spb.AnalyzePositionResponse.FromString(m) for m in messages]
    assert reports[-1].final and reports[-1].result.stats.iterations == 200
    # A body that is not base64 is the call's INVALID_ARGUMENT, not a broken answer.
    call = urllib.request.Request(
        f"http://{http_server.http_address}/{SERVICE}/GetEngineInfo",
        data=b"AAAA*AAA",
        headers={"Content-Type": "application/grpc-web-text"},
    )
    with urllib.request.urlopen(call, timeout=30) as answer:
        end = base64.b64decode(answer.read())
    assert b"grpc-status: 3\r\n" in end and b"base64" in end


def test_grpc_timeout_is_the_deadline(client):
    request = spb.RecommendActionRequest(
        state=to_proto(played(3, seed=9, actions=2)),
        limits=pb.SearchLimits(max_time=duration_pb2.Duration(seconds=10)),
    )
    started = time.monotonic()
    answer = client.recommend_action(request, timeout_ms=600)  # sent as grpc-timeout: 600m
    assert time.monotonic() - started < 2.0
    assert answer.result.stats.stop_reason == pb.STOP_REASON_DEADLINE


def test_an_undecodable_request_is_invalid_argument(http_server):
    status, _, messages, trailers = web_call(
        http_server.http_address, "ListLegalActions", b"\x0a\xff"
    )
    assert status == 200 and messages == []
    assert trailers["grpc-status"] == str(grpc.StatusCode.INVALID_ARGUMENT.value[0])
    message = urllib.parse.unquote(trailers["grpc-message"])
    assert message.startswith("not a valid council.v1.ListLegalActionsRequest")


def test_the_bearer_token_and_cors_for_grpc_web_clients():
    server = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            cors_origins=("https://play.example.com",),
            auth_token="s3cret",
        )
    )
    origin = {"Origin": "https://play.example.com"}
    try:
        status, headers, messages, trailers = web_call(
            server.http_address,
            "GetEngineInfo",
            b"",
            {**origin, "Authorization": "Bearer s3cret"},
        )
        assert status == 200 and trailers == {"grpc-status": "0"} and len(messages) == 1
        assert headers["Access-Control-Allow-Origin"] == origin["Origin"]
        exposed = headers["Access-Control-Expose-Headers"].lower()
        assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= {
            h.strip() for h in exposed.split(",")
        }
        for wrong in ({}, {"Authorization": "Bearer guess"}):
            for text in (False, True):
                _, _, messages, trailers = web_call(
                    server.http_address, "GetEngineInfo", b"", wrong, text=text
                )
                assert messages == []
                assert trailers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
        with CouncilServiceClientSync(
            f"http://{server.http_address}", protocol=ProtocolType.GRPC_WEB
        ) as web:
            with pytest.raises(ConnectError) as refused:
                web.get_engine_info(spb.GetEngineInfoRequest())
            assert refused.value.code == Code.UNAUTHENTICATED
        # A browser's preflight for a grpc-web call (its headers: grpc-web's and connect-web's).
        asked = "content-type,x-grpc-web,x-user-agent,grpc-timeout,authorization"
        preflight = urllib.request.Request(
            f"http://{server.http_address}/{SERVICE}/GetEngineInfo",
            method="OPTIONS",
            headers={
                **origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": asked,
            },
        )
        with urllib.request.urlopen(preflight, timeout=10) as answer:
            assert answer.headers["Access-Control-Allow-Origin"] == origin["Origin"]
            allowed = {
                h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")
            }
            assert set(asked.split(",")) - {"content-type"} <= allowed
    finally:
        server.stop(grace=None)
