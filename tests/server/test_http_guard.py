"""The HTTP port's guard (council.server.http_guard), over raw sockets to a server with short
timeouts: requests that never finish arriving are answered 408 and closed, idle connections
closed, connections past the cap refused with 503, a request with both Content-Length and
Transfer-Encoding refused with 400, and on a loopback address only loopback Host names
answered (DNS rebinding), for the page, Connect and gRPC-Web alike. A long answer (an
AnalyzePosition stream) is not cut by the timeouts, which are for reading a request."""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import socket
import struct
import time

import pytest
from google.protobuf import json_format
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import played, to_proto, wait_until

from council.server.app import start_server
from council.server.cli import build_parser
from council.server.config import ServerConfig
from council.server.connect import DISCARDED_BODY_BYTES, MAX_REQUEST_BYTES
from council.server.http_guard import guarded_protocol, host_check
from council.v1 import service_pb2 as spb

SERVICE = "council.v1.CouncilService"
TIMEOUT_S = 0.5  # the guarded server's head, body and keep-alive timeouts
# The most a timeout may take to act here: its own length, and a loaded machine's delay.
LATE_S = TIMEOUT_S + 1.5


def start(**settings):
    return start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            search_queue=1,
            **settings,
        )
    )


@pytest.fixture(scope="module")
def guarded():
    running = start(
        http_header_timeout_s=TIMEOUT_S,
        http_body_timeout_s=TIMEOUT_S,
        http_keep_alive_s=TIMEOUT_S,
    )
    yield running
    running.stop(grace=None)


def connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=5)


def read_until_closed(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection, and the seconds that took;
    fails if it is still open after `limit_s`."""
    started, received = time.monotonic(), b""
    sock.settimeout(limit_s)
    while True:
        try:
            piece = sock.recv(65536)
        except TimeoutError:
            pytest.fail(f"still open after {limit_s} s, having sent {received[:200]!r}")
        except ConnectionResetError:
            piece = b""
        if not piece:
            return received, time.monotonic() - started
        received += piece


def engine_info_request(host: str, body: bytes = b"{}", extra: str = "") -> bytes:
    return (
        f"POST /{SERVICE}/GetEngineInfo HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def read_answer(sock: socket.socket) -> http.client.HTTPResponse:
    answer = http.client.HTTPResponse(sock)
    answer.begin()
    answer.read()
    return answer


def test_a_head_that_stops_midway_is_answered_408_within_the_header_timeout(guarded):
    with connect(guarded.http_address) as sock:
        sock.sendall(f"POST /{SERVICE}/GetEngineInfo HTTP/1.1\r\nHost: 127.0.0".encode())
        answer, took = read_until_closed(sock, LATE_S)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"--header-timeout" in answer
    assert took >= TIMEOUT_S * 0.9


def test_a_head_sent_a_byte_at_a_time_is_not_given_more_time(guarded):
    head = engine_info_request("127.0.0.1", extra="X-Padding: " + "x" * 200 + "\r\n")
    started = time.monotonic()
    with connect(guarded.http_address) as sock:
        for byte in head:  # a byte every 0.05 s, each well within the timeout, until closed
            if select.select([sock], [], [], 0.05)[0]:
                break
            sock.sendall(bytes([byte]))
        answer, _ = read_until_closed(sock, LATE_S)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - started < LATE_S


def test_a_connection_that_sends_nothing_is_closed_quietly(guarded):
    with connect(guarded.http_address) as sock:
        answer, took = read_until_closed(sock, LATE_S)
    assert answer == b"" and took >= TIMEOUT_S * 0.9


def test_a_body_shorter_than_its_length_is_answered_408_within_the_body_timeout(guarded):
    request = engine_info_request(guarded.http_address, b"x" * 1000)
    with connect(guarded.http_address) as sock:
        sock.sendall(request[: request.index(b"\r\n\r\n") + 4 + 9])  # 9 bytes of 1000
        answer, took = read_until_closed(sock, LATE_S)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"--body-timeout" in answer
    assert took >= TIMEOUT_S * 0.9


def test_a_body_that_comes_in_time_is_served(guarded):
    request = engine_info_request(guarded.http_address)
    with connect(guarded.http_address) as sock:
        sock.sendall(request[:-2])
        time.sleep(TIMEOUT_S / 2)
        sock.sendall(request[-2:])
        answer = read_answer(sock)
    assert answer.status == 200


def test_an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout(guarded):
    with connect(guarded.http_address) as sock:
        for _ in range(2):  # kept alive while the calls come sooner than the timeout
            sock.sendall(engine_info_request(guarded.http_address))
            assert read_answer(sock).status == 200
            time.sleep(TIMEOUT_S / 2)
        answer, took = read_until_closed(sock, LATE_S)
    assert answer == b"" and took >= TIMEOUT_S / 2 * 0.9


def test_connections_past_the_cap_get_503_until_earlier_ones_close():
    server = start(max_http_connections=3)
    held: list[socket.socket] = []
    try:
        for _ in range(3):  # held open by keep-alive after one call each
            sock = connect(server.http_address)
            held.append(sock)
            sock.sendall(engine_info_request(server.http_address))
            assert read_answer(sock).status == 200
        for _ in range(2):
            with connect(server.http_address) as extra:
                answer, _ = read_until_closed(extra, 5)
            assert answer.startswith(b"HTTP/1.1 503 ") and b"--max-http-connections" in answer
        held.pop().close()

        def served() -> bool:
            with connect(server.http_address) as sock:
                try:
                    sock.sendall(engine_info_request(server.http_address))
                    return read_answer(sock).status == 200
                except (http.client.HTTPException, ConnectionError):
                    return False

        wait_until(served, timeout=5)
        # The held ones were served on all along.
        held[0].sendall(engine_info_request(server.http_address))
        assert read_answer(held[0]).status == 200
    finally:
        for sock in held:
            sock.close()
        server.stop(grace=None)


def scrape(address: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the server's /metrics by (name, sorted labels)."""
    status, _, text = send(address, "GET", "/metrics", "127.0.0.1")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text.decode())
        for sample in family.samples
    }


def dropped(found: dict, reason: str) -> float:
    return found.get(("council_http_connections_dropped_total", (("reason", reason),)), 0.0)


def test_one_address_cannot_fill_the_port_and_its_unfinished_requests_are_no_calls():
    """The issue's attack, smaller: 60 connections from 127.0.0.2 each sending a request's
    head and no body, against a cap of 4 per address and 20 in all. A call from 127.0.0.1
    is served; the 4 held connections get 408 at the body timeout and the 56 others 503 at
    once (or a reset: they sent a head the server never read); /metrics counts them as
    dropped connections, not as calls. So is a head whose client leaves before its body."""
    server = start(
        max_http_connections=20,
        max_http_connections_per_address=4,
        http_header_timeout_s=TIMEOUT_S,
        http_body_timeout_s=TIMEOUT_S,
    )
    host, port = server.http_address.rsplit(":", 1)
    head = engine_info_request(host, b"x" * 1000)[:-1000]  # Content-Length 1000, no body
    held: list[socket.socket] = []
    try:
        for _ in range(60):
            sock = socket.create_connection(
                (host, int(port)), timeout=5, source_address=("127.0.0.2", 0)
            )
            held.append(sock)
            with contextlib.suppress(ConnectionError):
                sock.sendall(head)
        status, _, body = send(
            server.http_address,
            "POST",
            f"/{SERVICE}/GetEngineInfo",
            host,
            b"{}",
            {"Content-Type": "application/json"},
        )
        assert status == 200, body
        answers = [read_until_closed(sock, LATE_S)[0] for sock in held]
        timed_out = [a for a in answers if a.startswith(b"HTTP/1.1 408 ")]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
        assert len(timed_out) == 4 and len(timed_out) + len(refused) + answers.count(b"") == 60
        assert all(b"--max-http-connections-per-address" in a for a in refused)
        with socket.create_connection(
            (host, int(port)), timeout=5, source_address=("127.0.0.3", 0)
        ) as sock:
            sock.sendall(head)  # and leaves
        wait_until(lambda: dropped(scrape(server.http_address), "client_left") == 1, timeout=5)
        found = scrape(server.http_address)
        assert dropped(found, "address_cap") == 56
        assert dropped(found, "body_timeout") == 4
        assert dropped(found, "connection_cap") == dropped(found, "header_timeout") == 0
        calls = {labels: n for (name, labels), n in found.items() if name == "council_calls_total"}
        ok = (("code", "OK"), ("rpc", "GetEngineInfo"), ("transport", "connect"))
        assert calls == {ok: 1.0}
    finally:
        for sock in held:
            sock.close()
        server.stop(grace=None)


def test_a_head_that_never_comes_is_a_header_timeout_in_the_metrics(guarded):
    before = dropped(scrape(guarded.http_address), "header_timeout")
    with connect(guarded.http_address) as sock:
        sock.sendall(f"POST /{SERVICE}/GetEngineInfo HTTP/1.1\r\nHost: 127".encode())
        read_until_closed(sock, LATE_S)
    assert dropped(scrape(guarded.http_address), "header_timeout") == before + 1


@pytest.mark.parametrize(
    "length", [2**64, DISCARDED_BODY_BYTES + 1], ids=["2^64", "past-discarded-bodies"]
)
def test_a_content_length_over_the_limit_is_refused_at_once(guarded, length):
    # (A body of up to DISCARDED_BODY_BYTES is read first, so that a client still sending
    # gets the answer: test_http's test_a_request_over_the_size_limit_is_refused.)
    head = engine_info_request("127.0.0.1")[: -len("Content-Length: 2\r\n\r\n{}")]
    with connect(guarded.http_address) as sock:
        sock.sendall(head + f"Content-Length: {length}\r\n\r\n".encode())
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        # At once: the guarded server's body timeout would answer 408.
        assert answer.status == 429
        error = json.loads(answer.read())
    assert error["code"] == "resource_exhausted"
    assert error["message"] == (
        f"the request is larger than {MAX_REQUEST_BYTES} bytes (Content-Length {length})"
    )


@pytest.mark.parametrize("length", ["007", "00"])
def test_a_content_length_not_plain_decimal_is_refused_400(guarded, length):
    head = engine_info_request("127.0.0.1")[: -len("Content-Length: 2\r\n\r\n{}")]
    with connect(guarded.http_address) as sock:
        sock.sendall(head + f"Content-Length: {length}\r\n\r\n{{}}".encode())
        answer, _ = read_until_closed(sock, LATE_S)
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert b"Content-Length must be a decimal number without leading zeros" in answer


def test_content_length_with_transfer_encoding_is_refused_400(guarded):
    chunked = b"2\r\n{}\r\n0\r\n\r\n"
    head = (
        f"POST /{SERVICE}/GetEngineInfo HTTP/1.1\r\nHost: {guarded.http_address}\r\n"
        "Content-Type: application/json\r\nContent-Length: 2\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    with connect(guarded.http_address) as sock:
        sock.sendall(head.encode() + chunked)
        answer, _ = read_until_closed(sock, 5)
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert b"both Content-Length and Transfer-Encoding" in answer


@pytest.mark.parametrize(
    ("request_bytes", "status", "named"),
    [
        (b"GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400, b"Host"),
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"a" * 20000, 431, b"head is over"),
        (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, b"chunked"),
    ],
    ids=["no-host", "head-too-large", "unknown-transfer-encoding"],
)
def test_a_malformed_request_is_refused_naming_what_is_wrong(guarded, request_bytes, status, named):
    with connect(guarded.http_address) as sock:
        sock.sendall(request_bytes)
        answer, _ = read_until_closed(sock, 5)
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()) and named in answer


def send(address: str, method: str, path: str, host: str, body=b"", headers=None):
    """One request with this Host header; (status, headers, body)."""
    ip, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(ip, int(port), timeout=10)
    try:
        connection.request(method, path, body=body, headers={"Host": host, **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def calls(address: str, host: str) -> list[tuple[int, http.client.HTTPMessage, bytes]]:
    """The page, a Connect JSON call and a gRPC-Web call, each with this Host."""
    grpc_web = spb.GetEngineInfoRequest().SerializeToString()
    return [
        send(address, "GET", "/", host),
        send(
            address,
            "POST",
            f"/{SERVICE}/GetEngineInfo",
            host,
            b"{}",
            {"Content-Type": "application/json"},
        ),
        send(
            address,
            "POST",
            f"/{SERVICE}/GetEngineInfo",
            host,
            struct.pack(">BI", 0, len(grpc_web)) + grpc_web,
            {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"},
        ),
    ]


def test_a_foreign_host_gets_403_on_a_loopback_address(guarded):
    page, connect_json, grpc_web = calls(guarded.http_address, "evil.example")
    assert page[0] == 403 and b"--allowed-hosts" in page[2]
    assert connect_json[0] == 403
    assert json.loads(connect_json[2])["code"] == "permission_denied"
    assert grpc_web[0] == 403 and grpc_web[1]["grpc-status"] == "7"
    for name in ("evil.example:80", "localhost.evil.example", "127.0.0.1.evil.example"):
        assert send(guarded.http_address, "GET", "/", name)[0] == 403, name


def test_loopback_host_names_are_answered(guarded):
    port = guarded.http_address.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "127.0.0.2"):
        assert [status for status, _, _ in calls(guarded.http_address, host)] == [200] * 3, host


def test_allowed_hosts_admits_more():
    server = start(allowed_hosts=("game.example", "[fd00::1]"))
    try:
        for host, status in (
            ("game.example:8080", 200),
            ("GAME.example", 200),
            ("[fd00::1]:80", 200),
            ("localhost", 200),
            ("evil.example", 403),
        ):
            assert [s for s, _, _ in calls(server.http_address, host)] == [status] * 3, host
    finally:
        server.stop(grace=None)


def test_which_hosts_are_checked():
    app = object()
    for address, allowed, checked in (
        ("127.0.0.1:0", None, True),
        ("[::1]:0", None, True),
        ("localhost:0", None, True),
        ("127.0.0.1:0", ("*",), False),
        ("0.0.0.0:0", None, False),  # bound to every address: a reverse proxy's concern
        ("0.0.0.0:0", ("play.example",), True),
    ):
        config = ServerConfig(http_address=address, allowed_hosts=allowed)
        assert (host_check(app, config) is not app) == checked, (address, allowed)


def test_the_open_file_limit_is_raised_to_fit_the_cap(monkeypatch):
    import resource

    raised: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 4096))
    monkeypatch.setattr(resource, "setrlimit", lambda kind, limits: raised.append(limits))
    guarded_protocol(ServerConfig(max_http_connections=2000))
    assert raised == [(2200, 4096)]  # the cap and room for the rest of the process


def test_serve_flags_for_the_guard():
    args = build_parser().parse_args(
        ["serve", "--allowed-hosts", "a.example, [fd00::1]", "--header-timeout", "2"]
    )
    assert args.allowed_hosts == ("a.example", "[fd00::1]")
    assert args.http_header_timeout_s == 2.0
    args = build_parser().parse_args(["serve", "--max-http-connections", "5"])
    assert args.max_http_connections == 5 and args.allowed_hosts is None
    args = build_parser().parse_args(["serve", "--max-http-connections-per-address", "3"])
    assert args.max_http_connections_per_address == 3
    assert ServerConfig().max_http_connections_per_address == 100
    with pytest.raises(ValueError, match="max_http_connections_per_address"):
        ServerConfig(max_http_connections_per_address=-1).resolved()
    with pytest.raises(ValueError, match="max_http_connections"):
        ServerConfig(max_http_connections=0).resolved()
    with pytest.raises(ValueError, match="timeouts"):
        ServerConfig(http_body_timeout_s=0).resolved()


def test_a_long_stream_is_not_cut_by_the_timeouts(guarded):
    request = {
        "state": json.loads(json_format.MessageToJson(to_proto(played(2, seed=8, actions=4)))),
        "limits": {"maxTime": f"{4 * TIMEOUT_S}s"},
        "reportInterval": f"{TIMEOUT_S / 4}s",
    }
    body = json.dumps(request).encode()
    started = time.monotonic()
    status, headers, answer = send(
        guarded.http_address,
        "POST",
        f"/{SERVICE}/AnalyzePosition",
        "127.0.0.1",
        struct.pack(">BI", 0, len(body)) + body,
        {"Content-Type": "application/connect+json"},
    )
    assert status == 200 and time.monotonic() - started >= 3 * TIMEOUT_S
    messages, at = [], 0
    while at < len(answer):
        flags, size = struct.unpack(">BI", answer[at : at + 5])
        messages.append((flags, json.loads(answer[at + 5 : at + 5 + size])))
        at += 5 + size
    *reports, (end_flags, end) = messages
    assert end_flags == 2 and "error" not in end
    assert reports[-1][1].get("final") and len(reports) >= 4
