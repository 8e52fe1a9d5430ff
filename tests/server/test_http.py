"""The service over HTTP (Connect protocol, council.server.connect), called as a browser or
curl would: plain urllib and JSON, no Connect client. The answers are the gRPC server's
(the same servicer), errors carry the same BadRequest details, and deadlines, cancellation,
the bearer token, CORS and the request size limit hold over HTTP too."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import struct
import time
import urllib.error
import urllib.request

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from server_helpers import finished, played, self_signed_certificate, to_proto, violations

from council.server.app import start_server
from council.server.cli import build_parser
from council.server.config import DEFAULT_HTTP_ADDRESS, ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

SERVICE = "council.v1.CouncilService"


def call(address, method, body, headers=None, timeout=30):
    """POST one Connect call; (HTTP status, response headers, body bytes)."""
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://{address}/{SERVICE}/{method}",
        data=body,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read()


def message_json(message) -> dict:
    return json.loads(json_format.MessageToJson(message))


def bad_request(error: dict) -> list[tuple[str, str]]:
    """The field violations of a Connect error's google.rpc.BadRequest detail (its binary
    value, as a Connect client reads it; `debug` holds the same as JSON)."""
    (detail,) = error["details"]
    assert detail["type"] == "google.rpc.BadRequest"
    bad = error_details_pb2.BadRequest.FromString(
        base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    )
    found = [(v.field, v.description) for v in bad.field_violations]
    debug = [(v["field"], v["description"]) for v in detail["debug"]["fieldViolations"]]
    assert debug == found
    return found


def test_engine_info_and_legal_actions_over_json(http_server, grpc_stub):
    status, headers, body = call(http_server.http_address, "GetEngineInfo", {})
    assert status == 200 and headers["Content-Type"] == "application/json"
    info = json.loads(body)
    assert info == message_json(grpc_stub.GetEngineInfo(spb.GetEngineInfoRequest()))
    assert info["stateFormat"] == "council-of-four/1" and info["numActions"] > 0

    state = to_proto(played(3, seed=5, actions=7))
    request = {"state": message_json(state), "includeDescriptions": True}
    status, _, body = call(http_server.http_address, "ListLegalActions", request)
    assert status == 200
    expected = grpc_stub.ListLegalActions(
        spb.ListLegalActionsRequest(state=state, include_descriptions=True)
    )
    assert json.loads(body) == message_json(expected)
    # The proto field names (the engine's JSON form, docs/state-json.md) are read as well.
    snake = json_format.MessageToDict(state, preserving_proto_field_name=True)
    request = {"state": snake, "include_descriptions": True}
    status, _, body = call(http_server.http_address, "ListLegalActions", request)
    assert status == 200 and json.loads(body) == message_json(expected)


def test_new_game_warns_of_a_small_seed_over_json(http_server):
    status, _, body = call(
        http_server.http_address, "NewGame", {"config": {"players": 2}, "seed": "12"}
    )
    assert status == 200
    (warning,) = json.loads(body)["warnings"]
    assert warning.startswith("seed 12 is below 2^32")


def test_a_bad_position_gets_invalid_argument_with_the_grpc_field_violations(
    http_server, grpc_stub
):
    state = to_proto(played(3, seed=6, actions=3))
    state.players[1].coins = 99
    del state.board.balconies.king[:]
    with pytest.raises(grpc.RpcError) as grpc_error:
        grpc_stub.ListLegalActions(spb.ListLegalActionsRequest(state=state))
    request = {"state": message_json(state)}
    status, headers, body = call(http_server.http_address, "ListLegalActions", request)
    assert status == 400 and headers["Content-Type"] == "application/json"
    error = json.loads(body)
    assert error["code"] == "invalid_argument"
    assert error["message"] == grpc_error.value.details()
    found = bad_request(error)
    assert found == violations(grpc_error.value)
    assert "state.players[1].coins" in [field for field, _ in found]


def test_other_errors_keep_their_codes(http_server):
    over = {"state": message_json(to_proto(finished(2, seed=3)))}
    status, _, body = call(http_server.http_address, "ListLegalActions", over)
    assert status == 400 and json.loads(body)["code"] == "failed_precondition"
    status, _, body = call(http_server.http_address, "ApplyAction", {"state": over["state"]})
    assert json.loads(body)["code"] in ("failed_precondition", "invalid_argument")
    status, _, _ = call(http_server.http_address, "NoSuchMethod", {})
    assert status == 404


@pytest.mark.parametrize(
    "body",
    [b"{not json", b'{"stat": {}}', b'{"seat": "one"}', b"\xff\xfe"],
    ids=["not-json", "unknown-field", "wrong-type", "not-utf8"],
)
def test_an_undecodable_request_is_invalid_argument(http_server, body):
    status, _, answer = call(http_server.http_address, "ListLegalActions", body)
    error = json.loads(answer)
    assert (status, error["code"]) == (400, "invalid_argument")
    assert error["message"].startswith("not a valid council.v1.ListLegalActionsRequest")
    # The same for binary protobuf and for a stream's request.
    status, _, answer = call(
        http_server.http_address,
        "ListLegalActions",
        b"\x0a\xff",
        {"Content-Type": "application/proto"},
    )
    assert (status, json.loads(answer)["code"]) == (400, "invalid_argument")
    envelope = struct.pack(">BI", 0, len(body)) + body
    status, _, answer = call(
        http_server.http_address,
        "AnalyzePosition",
        envelope,
        {"Content-Type": "application/connect+json"},
    )
    end = json.loads(answer[5:])  # a stream's error is its end message
    assert status == 200 and end["error"]["code"] == "invalid_argument"


def test_a_request_over_the_size_limit_is_refused(http_server):
    body = b'{"state": {"players": [{"name": "' + b"x" * (1 << 20) + b'"}]}}'
    status, _, answer = call(http_server.http_address, "ListLegalActions", body)
    assert json.loads(answer)["code"] == "resource_exhausted"
    assert status == 429


def test_binary_protobuf_and_a_whole_game_step(http_server):
    start = spb.NewGameRequest(config=pb.GameConfig(players=3), seed=11)
    status, headers, body = call(
        http_server.http_address,
        "NewGame",
        start.SerializeToString(),
        {"Content-Type": "application/proto"},
    )
    assert status == 200 and headers["Content-Type"] == "application/proto"
    state = spb.NewGameResponse.FromString(body).state
    assert state.rng  # the uint64 arrives whole; in JSON it is a decimal string
    status, _, body = call(
        http_server.http_address, "NewGame", {"config": {"players": 3}, "seed": 11}
    )
    assert json.loads(body)["state"]["rng"] == str(state.rng)
    request = {"state": message_json(state), "limits": {"iterations": 50}, "seed": "1"}
    status, _, body = call(http_server.http_address, "RecommendAction", request)
    action = json.loads(body)["result"]["action"]
    apply = {"state": message_json(state), "actionId": action.get("id", 0)}
    status, _, body = call(http_server.http_address, "ApplyAction", apply)
    assert status == 200 and json.loads(body)["applied"]["text"] == action["text"]


def test_calls_on_a_kept_alive_connection_are_not_delayed(http_server):
    # With Nagle's algorithm on the server's sockets, each answer on a kept-alive connection
    # waited ~40 ms for the client's delayed ACK (a browser or fetch() keeps connections).
    host, port = http_server.http_address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    took = []
    try:
        for _ in range(12):
            started = time.perf_counter()
            connection.request(
                "POST", f"/{SERVICE}/GetEngineInfo", b"{}", {"Content-Type": "application/json"}
            )
            answer = connection.getresponse()
            assert answer.status == 200 and answer.read()
            took.append(time.perf_counter() - started)
    finally:
        connection.close()
    assert sorted(took)[len(took) // 2] < 0.025, took


def test_analyze_position_streams_reports_and_one_final(http_server):
    request = {
        "state": message_json(to_proto(played(2, seed=8, actions=4))),
        "limits": {"maxTime": "0.4s"},
        "reportInterval": "0.1s",
    }
    body = json.dumps(request).encode()
    status, headers, answer = call(
        http_server.http_address,
        "AnalyzePosition",
        struct.pack(">BI", 0, len(body)) + body,
        {"Content-Type": "application/connect+json"},
    )
    assert status == 200 and headers["Content-Type"] == "application/connect+json"
    messages, at = [], 0
    while at < len(answer):
        flags, size = struct.unpack(">BI", answer[at : at + 5])
        messages.append((flags, json.loads(answer[at + 5 : at + 5 + size])))
        at += 5 + size
    *reports, (end_flags, end) = messages
    assert end_flags == 2 and "error" not in end  # the end of a stream that succeeded
    assert [m.get("final", False) for _, m in reports] == [False] * (len(reports) - 1) + [True]
    assert len(reports) >= 2


def test_the_deadline_header_bounds_a_search(http_server):
    request = {"state": message_json(to_proto(played(3, seed=9, actions=2))), "limits": {}}
    request["limits"]["maxTime"] = "10s"
    started = time.monotonic()
    status, _, body = call(
        http_server.http_address, "RecommendAction", request, {"Connect-Timeout-Ms": "1500"}
    )  # (600 ms left a loaded machine too little margin to answer in time: a 504)
    assert time.monotonic() - started < 3.0
    assert status == 200
    assert json.loads(body)["result"]["stats"]["stopReason"] == "STOP_REASON_DEADLINE"


def test_a_client_that_goes_away_stops_its_search(http_server):
    request = {"state": message_json(to_proto(played(3, seed=9, actions=2)))}
    request["limits"] = {"maxTime": "15s"}
    body = json.dumps(request).encode()
    host, port = http_server.http_address.rsplit(":", 1)
    head = (
        f"POST /{SERVICE}/RecommendAction HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    before = len(http_server.servicer.recent_searches)
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(head.encode() + body)
        deadline = time.monotonic() + 5
        while http_server.servicer.active_searches == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert http_server.servicer.active_searches == 1
    deadline = time.monotonic() + 5
    while len(http_server.servicer.recent_searches) == before and time.monotonic() < deadline:
        time.sleep(0.01)
    record = http_server.servicer.recent_searches[-1]
    assert record.stop_reason == pb.STOP_REASON_CANCELLED
    assert record.elapsed_s < 5


def test_cors_default_admits_pages_of_this_machine_only(http_server):
    for origin, allowed in (
        ("http://localhost:5173", True),
        ("http://127.0.0.1:3000", True),
        ("http://[::1]:8000", True),
        ("https://localhost", True),
        ("https://game.example.com", False),
        ("http://localhost.example.com", False),
    ):
        _, headers, _ = call(http_server.http_address, "GetEngineInfo", {}, {"Origin": origin})
        assert (headers["Access-Control-Allow-Origin"] == origin) == allowed, origin
        preflight = urllib.request.Request(
            f"http://{http_server.http_address}/{SERVICE}/GetEngineInfo",
            method="OPTIONS",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,connect-protocol-version",
            },
        )
        try:
            with urllib.request.urlopen(preflight) as answer:
                assert allowed and answer.headers["Access-Control-Allow-Origin"] == origin
                assert "Connect-Timeout-Ms" in answer.headers["Access-Control-Allow-Headers"]
        except urllib.error.HTTPError as error:
            error.close()
            assert not allowed and error.code == 400


@pytest.mark.parametrize(
    ("origins", "origin", "allowed"),
    [
        ((), "http://localhost:5173", None),
        (("*",), "https://anywhere.example", "*"),
        (("https://play.example.com",), "https://play.example.com", "https://play.example.com"),
        (("https://play.example.com",), "http://localhost:5173", None),
    ],
)
def test_cors_origins_and_the_bearer_token(origins, origin, allowed):
    config = ServerConfig(
        address="127.0.0.1:0",
        http_address="127.0.0.1:0",
        search_slots=1,
        cors_origins=origins,
        auth_token="s3cret",
    )
    server = start_server(config)
    try:
        headers = {"Origin": origin, "Authorization": "Bearer s3cret"}
        status, answer_headers, _ = call(server.http_address, "GetEngineInfo", {}, headers)
        assert status == 200 and answer_headers["Access-Control-Allow-Origin"] == allowed
        for wrong in ({}, {"Authorization": "Bearer guess"}):
            status, _, body = call(server.http_address, "GetEngineInfo", {}, wrong)
            assert (status, json.loads(body)["code"]) == (401, "unauthenticated")
    finally:
        server.stop(grace=None)


def test_serve_flags_for_http():
    parser = build_parser()
    args = parser.parse_args(["serve"])
    assert args.http_address == DEFAULT_HTTP_ADDRESS and args.cors_origins is None
    args = parser.parse_args(["serve", "--http-address", "", "--cors-origins", ""])
    assert args.http_address is None and args.cors_origins == ()
    args = parser.parse_args(["serve", "--cors-origins", "https://a.example, http://b:81"])
    assert args.cors_origins == ("https://a.example", "http://b:81")
    with pytest.raises(ValueError, match="http_address"):
        ServerConfig(http_address="localhost").resolved()


def test_no_http_server_unless_asked():
    server = start_server(ServerConfig(address="127.0.0.1:0", search_slots=1))
    try:
        assert server.http is None and server.http_address is None
    finally:
        server.stop(grace=None)


def test_tls_makes_it_https(tmp_path):
    cert, key = self_signed_certificate(tmp_path)
    server = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            tls_cert=str(cert),
            tls_key=str(key),
        )
    )
    try:
        request = urllib.request.Request(
            f"https://{server.http_address}/{SERVICE}/GetEngineInfo",
            data=b"{}",
            headers={"Content-Type": "application/json"},
        )
        context = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(request, context=context, timeout=10) as answer:
            assert json.load(answer)["stateFormat"] == "council-of-four/1"
        with pytest.raises(OSError):  # plain HTTP is not answered (the server hangs up)
            call(server.http_address, "GetEngineInfo", {}, timeout=5)
    finally:
        server.stop(grace=None)
