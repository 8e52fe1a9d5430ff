"""The HTTP port's edges (council.server.connect): what a client sends that is not an
ordinary call. A gzip bomb is refused once the inflated message passes the 1 MiB limit,
without the server's memory growing, on every transport that inflates (Connect unary by
Content-Encoding, a Connect stream and gRPC-Web, binary and text, by their message
flags); the bearer token (several tokens, a client each, the scheme in any case) is
checked from the headers before any body is read; and each client mistake gets a 4xx, or
gRPC-Web's grpc-status, in its transport's own error shape."""

from __future__ import annotations

import base64
import gzip
import http.client
import json
import struct
import subprocess
import sys
import tracemalloc
import urllib.parse

import grpc
import pytest

from council.server.app import start_server
from council.server.config import ServerConfig, accepted_token, parse_tokens
from council.server.connect import MAX_REQUEST_BYTES, connect_code
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

SERVICE = "council.v1.CouncilService"
# Each transport: the method called (a stream's must stream) and the request's Content-Type.
TRANSPORTS = {
    "connect": ("GetEngineInfo", "application/proto"),
    "connect-json": ("GetEngineInfo", "application/json"),
    "connect-stream": ("AnalyzePosition", "application/connect+proto"),
    "grpc-web": ("GetEngineInfo", "application/grpc-web+proto"),
    "grpc-web-text": ("GetEngineInfo", "application/grpc-web-text"),
}
# The header that names an enveloped message's compression, per protocol.
MESSAGE_ENCODING = {"connect-stream": "Connect-Content-Encoding", "grpc-web": "Grpc-Encoding"}
# Connect's HTTP status of an error code (unary calls; streams answer 200).
HTTP_STATUS = {"invalid_argument": 400, "unauthenticated": 401, "resource_exhausted": 429}
TOKENS = ("alpha-1", "beta-2")
BOMB_BYTES = 64 << 20  # inflated: 64 times the limit
MEMORY_BOUND = 16 << 20  # what the server may allocate while refusing it (tracemalloc)


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip.compress(bytes(BOMB_BYTES), compresslevel=9)


@pytest.fixture(scope="module")
def token_server():
    """A server of two bearer tokens (`TOKENS`) and a third, `auth_token`'s."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            auth_token="gamma-3",
            auth_tokens=TOKENS,
            search_slots=1,
        )
    )
    yield running
    running.stop(grace=None)


def request_of(transport: str, message: bytes, compressed: bool = False):
    """(path, headers, body) of a call of `transport` carrying `message` (gzipped data when
    `compressed`: Content-Encoding for a unary Connect call, the message's flag else)."""
    method, content_type = TRANSPORTS[transport]
    headers = {"Content-Type": content_type}
    if transport.startswith("connect") and transport != "connect-stream":
        body = message
        if compressed:
            headers["Content-Encoding"] = "gzip"
    else:
        body = struct.pack(">BI", int(compressed), len(message)) + message
        if compressed:
            headers[MESSAGE_ENCODING[transport.removesuffix("-text")]] = "gzip"
        if transport == "grpc-web-text":
            body = base64.b64encode(body)
    return f"/{SERVICE}/{method}", headers, body


def post(address: str, path: str, headers: dict, body: bytes | None, timeout: float = 10.0):
    """POST by hand, so that a header may hold any bytes; `body` None: only the headers
    (and a Content-Length of 1 MB) are sent. (HTTP status, headers, body)."""
    host, _, port = address.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.putrequest("POST", path, skip_accept_encoding=True)
        for key, value in headers.items():
            connection.putheader(key, value)
        connection.putheader("Content-Length", str(1_000_000 if body is None else len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def outcome(transport: str, status: int, headers, body: bytes) -> tuple[int, str | None, str]:
    """(HTTP status, Connect code or None, message) of an answer, read in the transport's
    own shape: a unary Connect call's JSON error, a Connect stream's end message, gRPC-Web's
    trailers (grpc-status, grpc-message)."""
    if transport in ("connect", "connect-json"):
        if status == 200:
            return status, None, ""
        assert headers["Content-Type"] == "application/json"
        error = json.loads(body)
        return status, error["code"], error["message"]
    if transport == "grpc-web-text":
        assert headers["Content-Type"].startswith("application/grpc-web-text")
        # Each frame is base64 on its own, padding and all: 4 characters at a time.
        body = b"".join(base64.b64decode(body[i : i + 4]) for i in range(0, len(body), 4))
    frames, at = [], 0
    while at < len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        frames.append((flags, body[at + 5 : at + 5 + size]))
        at += 5 + size
    flags, last = frames[-1]
    if transport == "connect-stream":
        assert flags == 0x02, "a Connect stream ends in its end message"
        error = json.loads(last).get("error")
        return status, error and error["code"], error["message"] if error else ""
    assert flags == 0x80, "a gRPC-Web answer ends in its trailers"
    trailers = dict(
        (key.strip().lower(), value.strip())
        for key, _, value in (line.partition(":") for line in last.decode().split("\r\n"))
        if key
    )
    code = next(c for c in grpc.StatusCode if c.value[0] == int(trailers["grpc-status"]))
    name = None if code == grpc.StatusCode.OK else connect_code(code).value
    return status, name, urllib.parse.unquote(trailers.get("grpc-message", ""))


def assert_refused(transport: str, answer, code: str) -> str:
    """That `answer` is an error of `code` in `transport`'s shape; its message."""
    status, got, message = outcome(transport, *answer)
    expected_status = HTTP_STATUS[code] if transport in ("connect", "connect-json") else 200
    assert (status, got) == (expected_status, code), message
    return message


ENVELOPED = ["connect-stream", "grpc-web", "grpc-web-text"]


@pytest.mark.parametrize("transport", ["connect", *ENVELOPED])
def test_gzip_is_read_up_to_the_limit_and_a_bomb_refused_at_it(http_server, bomb, transport):
    """A gzipped message is answered as the plain one; a gzip bomb (64 MiB of zeros in 64
    KB) is refused once its inflated bytes pass the limit, the server allocating little
    (tracemalloc: the server runs in this process)."""
    request = spb.GetEngineInfoRequest()
    if transport == "connect-stream":
        request = spb.AnalyzePositionRequest()  # no position: refused, but read and decoded
    message = request.SerializeToString()
    answers = [
        outcome(transport, *post(http_server.http_address, *request_of(transport, *sent)))
        for sent in ((message, False), (gzip.compress(message), True))
    ]
    assert answers[0] == answers[1]
    assert answers[0][1] in (None, "invalid_argument")

    path, headers, body = request_of(transport, bomb, compressed=True)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        answer = post(http_server.http_address, path, headers, body)
        grown = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert grown < MEMORY_BOUND, f"the server allocated {grown} bytes refusing a gzip bomb"
    message = assert_refused(transport, answer, "resource_exhausted")
    assert f"larger than {MAX_REQUEST_BYTES} bytes once inflated" in message


@pytest.mark.parametrize("transport", ["connect", *ENVELOPED])
def test_gzip_that_is_not_gzip_is_invalid_argument(http_server, transport):
    path, headers, body = request_of(transport, b"\x08\x01 not gzip", compressed=True)
    message = assert_refused(
        transport, post(http_server.http_address, path, headers, body), "invalid_argument"
    )
    assert "gzip" in message


@pytest.mark.parametrize("transport", ["connect-stream", "grpc-web"])
def test_a_compressed_message_needs_its_encoding_named(http_server, transport):
    path, headers, body = request_of(transport, gzip.compress(b""), compressed=True)
    del headers[MESSAGE_ENCODING[transport]]
    message = assert_refused(
        transport, post(http_server.http_address, path, headers, body), "invalid_argument"
    )
    assert MESSAGE_ENCODING[transport].lower() in message


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_without_the_token_the_answer_does_not_wait_for_the_body(token_server, bomb, transport):
    """Only the headers are sent (the body never comes): the 401 (unauthenticated) comes
    all the same, so it cannot depend on the body, a bomb's or a malformed one's."""
    path, headers, _ = request_of(transport, bomb, compressed=True)
    for authorization in (None, "Bearer wrong", "Basic alpha-1", "Bearer alpha-1 beta-2"):
        if authorization:
            headers["Authorization"] = authorization
        answer = post(token_server.http_address, path, headers, None, timeout=5)
        assert_refused(transport, answer, "unauthenticated")


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_without_the_token_a_malformed_body_is_unauthenticated(token_server, transport):
    path, headers, body = request_of(transport, b"\xff\xfe not a message")
    assert_refused(
        transport, post(token_server.http_address, path, headers, body), "unauthenticated"
    )


def test_each_token_is_accepted_the_scheme_in_any_case_on_both_ports(token_server):
    path, headers, body = request_of("connect", b"")
    with grpc.insecure_channel(token_server.address) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        for token in (*TOKENS, "gamma-3"):
            for scheme in ("Bearer", "bearer", "BEARER"):
                authorization = f"{scheme} {token}"
                metadata = [("authorization", authorization)]
                assert stub.GetEngineInfo(spb.GetEngineInfoRequest(), metadata=metadata).version
                for transport in ("connect", "grpc-web"):
                    path, headers, body = request_of(transport, b"")
                    answer = post(
                        token_server.http_address,
                        path,
                        {**headers, "Authorization": authorization},
                        body,
                    )
                    assert outcome(transport, *answer)[:2] == (200, None)
        for authorization in ("Bearer alpha-", "Bearer alpha-1x", "Basic alpha-1", ""):
            with pytest.raises(grpc.RpcError) as refused:
                stub.GetEngineInfo(
                    spb.GetEngineInfoRequest(), metadata=[("authorization", authorization)]
                )
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_accepted_token_compares_every_token():
    assert accepted_token("Bearer  beta-2 ", TOKENS) == "beta-2"
    assert accepted_token(b"bEaReR alpha-1", TOKENS) == "alpha-1"
    assert accepted_token("Bearer alpha-1", ()) is None
    assert accepted_token("Bearer \xe9", TOKENS) is None
    assert accepted_token(None, TOKENS) is None


def test_a_token_file_holds_a_token_per_client(tmp_path):
    """``council-ai serve --auth-token-file``: one token per line, comments and blank
    lines ignored; each token is accepted, a comment is not a token."""
    assert parse_tokens("\n# comment\n  tok-1  \n\ntok-2\n") == ("tok-1", "tok-2")
    path = tmp_path / "tokens"
    path.write_text("# the page\nalpha-1\n\n# the ladder\nbeta-2\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "", "--auth-token-file", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready = json.loads(process.stdout.readline())
        assert ready["auth"] is True
        with grpc.insecure_channel(ready["listening"]) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            for token in TOKENS:
                metadata = [("authorization", f"Bearer {token}")]
                assert stub.GetEngineInfo(spb.GetEngineInfoRequest(), metadata=metadata).version
            with pytest.raises(grpc.RpcError) as refused:
                metadata = [("authorization", "Bearer # the page")]
                stub.GetEngineInfo(spb.GetEngineInfoRequest(), metadata=metadata)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
    empty = tmp_path / "empty"
    empty.write_text("# no token yet\n\n")
    refused_start = subprocess.run(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "", "--auth-token-file", str(empty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused_start.returncode == 2
    assert "holds no token" in refused_start.stderr


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_a_header_value_that_is_not_utf8_is_invalid_argument(http_server, transport):
    path, headers, body = request_of(transport, b"")
    headers["X-Note"] = b"caf\xe9"  # Latin-1, as http.client sends a str
    message = assert_refused(
        transport, post(http_server.http_address, path, headers, body), "invalid_argument"
    )
    assert "x-note" in message


@pytest.mark.parametrize("transport", ["grpc-web", "grpc-web-text"])
@pytest.mark.parametrize("timeout", ["abc", "100000000m", "5", "5x"])
def test_a_bad_grpc_timeout_is_invalid_argument_in_grpc_web_trailers(
    http_server, transport, timeout
):
    path, headers, body = request_of(transport, b"")
    answer = post(http_server.http_address, path, {**headers, "Grpc-Timeout": timeout}, body)
    assert "grpc-timeout" in assert_refused(transport, answer, "invalid_argument")


def test_a_bad_connect_timeout_of_a_stream_is_in_its_end_message(http_server):
    path, headers, body = request_of("connect-stream", b"")
    answer = post(http_server.http_address, path, {**headers, "Connect-Timeout-Ms": "soon"}, body)
    assert "connect-timeout-ms" in assert_refused("connect-stream", answer, "invalid_argument")


@pytest.mark.parametrize("content_type", ["application/grpc", "application/grpc+proto"])
def test_grpc_over_http1_is_415_naming_the_grpc_port(http_server, content_type):
    path, _, body = request_of("grpc-web", b"")
    status, headers, answer = post(
        http_server.http_address, path, {"Content-Type": content_type}, body
    )
    assert status == 415
    error = json.loads(answer)
    assert error["code"] == "unimplemented"
    assert "HTTP/2" in error["message"] and "gRPC port" in error["message"]


@pytest.mark.parametrize("transport", ["connect", "connect-json"])
def test_an_unknown_content_encoding_is_415(http_server, transport):
    path, headers, body = request_of(transport, b"")
    answer = post(http_server.http_address, path, {**headers, "Content-Encoding": "br"}, body)
    assert answer[0] == 415
    error = json.loads(answer[2])
    assert error["code"] == "unimplemented" and "'br'" in error["message"]


@pytest.mark.parametrize(
    ("content_type", "transport"),
    [
        ("APPLICATION/JSON", "connect-json"),
        ("Application/Proto", "connect"),
        ("Application/GRPC-Web+proto", "grpc-web"),
    ],
)
def test_media_types_are_case_insensitive(http_server, content_type, transport):
    path, _, body = request_of(transport, b"{}" if transport == "connect-json" else b"")
    answer = post(http_server.http_address, path, {"Content-Type": content_type}, body)
    assert outcome(transport, *answer)[:2] == (200, None), answer


def post_json(address: str, method: str, body: bytes) -> tuple[int, dict]:
    """A unary Connect JSON call: its HTTP status and JSON answer."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(
            "POST", f"/{SERVICE}/{method}", body, {"Content-Type": "application/json"}
        )
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("body", "kind"),
    [(b"[]", "an array"), (b" null", "null"), (b'"{}"', "a string"), (b"0", "a number")],
)
def test_a_json_request_must_be_an_object(http_server, body, kind):
    status, error = post_json(http_server.http_address, "GetEngineInfo", body)
    assert status == 400 and error["code"] == "invalid_argument"
    assert error["message"] == (
        "not a valid council.v1.GetEngineInfoRequest: a JSON request must be an object "
        f"({{...}}), got {kind}"
    )


def test_a_connect_json_error_with_many_violations_stays_under_5_kb(http_server):
    """The worst kind for JSON: long non-ASCII map keys, each shown in the BadRequest's
    base64 and again, escaped six bytes a character, in its `debug` copy."""
    from google.protobuf import json_format
    from google.rpc import error_details_pb2

    from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
    from council.engine.serialize import state_to_proto

    state = state_to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
    for i in range(3_000):
        state.board.city_tokens[f"{i}" + "€" * 75] = 1
    request = spb.ListLegalActionsRequest(state=state)
    body = json.dumps(json_format.MessageToDict(request), ensure_ascii=False).encode()
    host, port = http_server.http_address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request(
        "POST", f"/{SERVICE}/ListLegalActions", body, {"Content-Type": "application/json"}
    )
    answer = connection.getresponse()
    raw = answer.read()
    connection.close()
    assert answer.status == 400 and len(raw) < 5 * 1024, len(raw)
    error = json.loads(raw)
    assert error["code"] == "invalid_argument"
    (detail,) = error["details"]
    bad = error_details_pb2.BadRequest.FromString(
        base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    )
    fields = [(v.field, v.description) for v in bad.field_violations]
    assert fields[0][0].startswith("state.board.city_tokens")
    listed, more = fields[:-1], fields[-1][1]
    assert more == f"and {3_000 - len(listed)} more violations not listed", more
    assert detail["debug"]["fieldViolations"][-1]["description"] == more


def test_a_long_non_ascii_message_is_shortened_to_keep_the_json_error_small():
    """The last resort of the cap: the message itself (each non-ASCII character is six
    bytes in JSON) once the violations are down to the one counting them."""
    from connectrpc._protocol import ConnectWireError
    from connectrpc.code import Code
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2

    from council.server.connect import MAX_JSON_ERROR_BYTES, _fitting

    bad = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=f"f{i}", description="ü" * 50)
            for i in range(40)
        ]
    )
    detail = any_pb2.Any()
    detail.Pack(bad)
    long = "ü" * 800  # 4,800 bytes in JSON
    message, details = _fitting(Code.INVALID_ARGUMENT, long, [detail])
    size = len(ConnectWireError(Code.INVALID_ARGUMENT, message, details).to_json_bytes())
    assert size <= MAX_JSON_ERROR_BYTES, size
    assert message.startswith("üüü") and message.endswith("…") and len(message) < 800
    fitted = error_details_pb2.BadRequest()
    details[0].Unpack(fitted)
    assert fitted.field_violations[-1].description.endswith("more violations not listed")
