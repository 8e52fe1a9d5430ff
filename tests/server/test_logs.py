"""The access log and the request id (council.server.logs): one JSON object per line with a
call's fields and nothing of its content (no seed, position or token), the ``x-request-id``
taken when valid, else a fresh one, and answered over every transport; ``serve
--log-format json`` end to end."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import grpc
import pytest
from connectrpc.protocol import ProtocolType
from google.protobuf import json_format
from server_helpers import played, to_proto

from council.server import logs
from council.server.app import start_server
from council.server.config import ServerConfig
from council.server.sealing import new_key_line
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc
from council.v1.service_connect import CouncilServiceClientSync

TOKEN = "logs-test-token-9zx"
SEED = 740_112_993_581
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
HEX_ID = re.compile(r"[0-9a-f]{32}")
ACCESS_FIELDS = {"time", "level", "logger", "message", *logs.FIELDS}


@pytest.fixture(scope="module")
def running():
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            auth_token=TOKEN,
            access_log=True,
        )
    )
    yield running
    running.stop(grace=None)


@pytest.fixture
def captured():
    """The JSON lines council.server logs during the test."""
    stream = io.StringIO()
    handler = logs.log_handler("json", stream)
    logger = logging.getLogger("council.server")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def access_lines(stream: io.StringIO) -> list[dict]:
    return [line for line in lines(stream) if line["logger"] == logs.ACCESS_LOGGER]


AUTH = ("authorization", f"Bearer {TOKEN}")


def web_client(running, transport: str) -> CouncilServiceClientSync:
    protocol = ProtocolType.GRPC_WEB if transport == "grpc-web" else ProtocolType.CONNECT
    return CouncilServiceClientSync(f"http://{running.http_address}", protocol=protocol)


def test_one_json_object_per_line_with_the_fields_and_no_secret(running, captured):
    """Calls carrying a token, seeds and a position, over gRPC, Connect and gRPC-Web: each
    gives one line with its fields, and none of what it carried is logged."""
    state = to_proto(played(3, seed=7, actions=12))
    recommend = spb.RecommendActionRequest(
        state=state, limits=pb.SearchLimits(iterations=100), seed=SEED + 1
    )
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        stub.NewGame(spb.NewGameRequest(seed=SEED), metadata=[AUTH], timeout=30)
        stub.RecommendAction(recommend, metadata=[AUTH], timeout=30)
        with pytest.raises(grpc.RpcError):
            stub.ApplyAction(spb.ApplyActionRequest(state=state), metadata=[AUTH], timeout=30)
    for transport in ("connect", "grpc-web"):
        with web_client(running, transport) as client:
            headers = dict([AUTH])
            client.new_game(spb.NewGameRequest(seed=SEED), headers=headers)
            client.recommend_action(recommend, headers=headers)
    found = access_lines(captured)
    assert [(line["rpc"], line["transport"], line["status"]) for line in found] == [
        ("NewGame", "grpc", "OK"),
        ("RecommendAction", "grpc", "OK"),
        ("ApplyAction", "grpc", "INVALID_ARGUMENT"),
        ("NewGame", "connect", "OK"),
        ("RecommendAction", "connect", "OK"),
        ("NewGame", "grpc-web", "OK"),
        ("RecommendAction", "grpc-web", "OK"),
    ]
    for line in found:
        assert set(line) == ACCESS_FIELDS, line
        assert TIME.fullmatch(line["time"]) and line["level"] == "INFO"
        assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
        assert line["caller"].startswith("token:")  # a keyed hash of the token
        assert HEX_ID.fullmatch(line["request_id"])
    # One caller (the token), whatever the transport; each call its own request id.
    assert len({line["caller"] for line in found}) == 1
    assert len({line["request_id"] for line in found}) == len(found)
    text = captured.getvalue()
    position = json_format.MessageToJson(state, indent=None)
    for secret in (TOKEN, str(SEED), str(SEED + 1), position[:40], '"players"'):
        assert secret not in text, secret


def test_a_call_refused_by_the_token_check_is_logged(running, captured):
    with grpc.insecure_channel(running.address) as channel, pytest.raises(grpc.RpcError) as error:
        service_pb2_grpc.CouncilServiceStub(channel).GetEngineInfo(
            spb.GetEngineInfoRequest(), metadata=[("authorization", "Bearer nope")], timeout=10
        )
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
    (line,) = access_lines(captured)
    assert (line["rpc"], line["status"]) == ("GetEngineInfo", "UNAUTHENTICATED")
    assert line["caller"].startswith("token:") and "nope" not in captured.getvalue()


GOOD_ID = "client-req.42_A:b/c"
BAD_IDS = ["has space", "x" * (logs.MAX_REQUEST_ID_CHARS + 1), "caf\u00e9", ""]


def grpc_request_id(running, given: str | None) -> str:
    metadata = [AUTH] + ([("x-request-id", given)] if given is not None else [])
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        _, call = stub.GetEngineInfo.with_call(
            spb.GetEngineInfoRequest(), metadata=metadata, timeout=10
        )
    # In the trailers, never the headers: those would stop a client's retries (gRFC A6).
    assert not [k for k, _ in call.initial_metadata() if k == "x-request-id"]
    (echoed,) = [v for k, v in call.trailing_metadata() if k == "x-request-id"]
    return echoed


def http_request_id(running, given: str | None, transport: str) -> str:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if given is not None:  # urllib sends latin-1: a UTF-8 value's bytes, as a browser would
        headers["X-Request-Id"] = given.encode("utf-8").decode("latin-1")
    if transport == "grpc-web":
        body, content_type = b"\0\0\0\0\0", "application/grpc-web+proto"
    else:
        body, content_type = b"{}", "application/json"
    request = urllib.request.Request(
        f"http://{running.http_address}/council.v1.CouncilService/GetEngineInfo",
        data=body,
        headers={**headers, "Content-Type": content_type},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
        answer.read()  # the call is logged before its answer ends (not before its head)
        return answer.headers["x-request-id"]


@pytest.mark.parametrize("transport", ["grpc", "connect", "grpc-web"])
def test_the_request_id_is_taken_when_valid_and_answered(running, captured, transport):
    def echoed(given):
        if transport == "grpc":
            return grpc_request_id(running, given)
        return http_request_id(running, given, transport)

    assert echoed(GOOD_ID) == GOOD_ID
    # gRPC metadata carries ASCII only.
    bad = [given for given in BAD_IDS if transport != "grpc" or given.isascii()]
    fresh = [echoed(given) for given in [None, *bad]]
    for answer in fresh:
        assert HEX_ID.fullmatch(answer), answer
    assert len(set(fresh)) == len(fresh)
    logged = [line["request_id"] for line in access_lines(captured)]
    assert logged == [GOOD_ID, *fresh]


def test_a_line_logged_during_a_call_carries_its_request_id(running, captured):
    """The undecodable request's line (council.server.errors) is logged by the handler."""
    with grpc.insecure_channel(running.address) as channel:
        raw = channel.unary_unary(
            "/council.v1.CouncilService/GetView",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        with pytest.raises(grpc.RpcError) as error:
            raw(b"\xff\xff\xff", metadata=[AUTH, ("x-request-id", "undecodable-1")], timeout=10)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    found = lines(captured)
    assert [line["logger"] for line in found] == ["council.server", logs.ACCESS_LOGGER]
    assert "undecodable request" in found[0]["message"]
    for line in found:
        assert (line["rpc"], line["request_id"]) == ("GetView", "undecodable-1")


def test_text_lines_are_as_before():
    record = logging.LogRecord("council.server", logging.INFO, "", 0, "hello %s", ("x",), None)
    plain = logging.Formatter(logs.TEXT_FORMAT).format(record)
    assert logs.TextFormatter().format(record) == plain
    record.__dict__.update(caller="token:ab", request_id="r1", rpc="GetView")
    assert logs.TextFormatter().format(record) == plain + " (caller token:ab, request r1)"
    with pytest.raises(ValueError, match="xml"):
        logs.log_handler("xml")


def test_access_lines_are_off_unless_asked(captured):
    running = start_server(ServerConfig(address="127.0.0.1:0"))
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=10)
    finally:
        running.stop(grace=None)
    assert access_lines(captured) == []


def test_serve_log_format_json(tmp_path):
    """`council-ai serve --log-format json`: every line of stderr is a JSON object, the
    calls' lines among them, with no token, seed or position."""
    keys = tmp_path / "seal-keys"
    keys.write_text(new_key_line(None) + "\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "127.0.0.1:0", "--log-format", "json"]
        + ["--seal-key-file", str(keys), "--grace", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COUNCIL_AUTH_TOKEN": TOKEN},
    )
    try:
        ready = json.loads(process.stdout.readline())
        state = to_proto(played(3, seed=8, actions=12))
        with grpc.insecure_channel(ready["listening"]) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            stub.NewGame(spb.NewGameRequest(seed=SEED), metadata=[AUTH], timeout=30)
            stub.RecommendAction(
                spb.RecommendActionRequest(
                    state=state, limits=pb.SearchLimits(iterations=50), seed=SEED + 2
                ),
                metadata=[AUTH, ("x-request-id", "from-the-test")],
                timeout=30,
            )
        request = urllib.request.Request(
            f"http://{ready['http']}/council.v1.CouncilService/GetEngineInfo",
            data=b"{}",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    found = [json.loads(line) for line in err.splitlines()]  # each line one object
    assert all(TIME.fullmatch(line["time"]) and line["level"] for line in found)
    calls = [line for line in found if line["logger"] == logs.ACCESS_LOGGER]
    assert [(c["rpc"], c["transport"], c["status"]) for c in calls] == [
        ("NewGame", "grpc", "OK"),
        ("RecommendAction", "grpc", "OK"),
        ("GetEngineInfo", "connect", "OK"),
    ]
    assert calls[1]["request_id"] == "from-the-test"
    assert any("shutting down" in line["message"] for line in found)
    for secret in (TOKEN, str(SEED), str(SEED + 2), '"players"'):
        assert secret not in err, secret
