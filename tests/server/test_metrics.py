"""The Prometheus metrics (council.server.metrics, docs/metrics.md): each call counted and
timed over every transport, the search and admission metrics, label values only from their
fixed sets, ``GET /metrics`` behind the Host check, the guard and the bearer token on the
HTTP port, and ``--metrics-address``'s listener of its own."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
import pytest
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import played, to_proto, wait_until

from council.server.app import start_server
from council.server.config import ServerConfig
from council.server.metrics import allowed_labels
from council.server.sealing import new_key_line
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc
from council.v1.service_connect import CouncilServiceClientSync

TOKEN = "metrics-test-token-7q"
TRANSPORTS = ["grpc", "connect-json", "connect-proto", "grpc-web"]


@pytest.fixture(scope="module")
def running(http_server):
    """This module's server with its HTTP port (tests/server/conftest.py's)."""
    return http_server


class Calls:
    """One transport's way of calling a running server: ``call(method, request)`` returns
    the response or raises with ``code`` (a grpc.StatusCode name) as the error's .code_name."""

    def __init__(self, running, transport: str, token: str | None = None):
        self.transport = transport
        self.label = transport.partition("-json")[0].partition("-proto")[0]
        self._closers = []
        metadata = [("authorization", f"Bearer {token}")] if token else []
        if transport == "grpc":
            channel = grpc.insecure_channel(running.address)
            self._closers.append(channel.close)
            self._stub = service_pb2_grpc.CouncilServiceStub(channel)
            self._metadata = metadata
        else:
            protocol = ProtocolType.GRPC_WEB if transport == "grpc-web" else ProtocolType.CONNECT
            client = CouncilServiceClientSync(
                f"http://{running.http_address}",
                protocol=protocol,
                proto_json=transport == "connect-json",
            )
            self._closers.append(client.close)
            self._client = client
            self._headers = dict(metadata)

    def __call__(self, method: str, request):
        if self.transport == "grpc":
            return getattr(self._stub, method)(request, metadata=self._metadata, timeout=30)
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in method).lstrip("_")
        return getattr(self._client, snake)(request, headers=self._headers, timeout_ms=30_000)

    def close(self) -> None:
        for close in self._closers:
            close()


@pytest.fixture(params=TRANSPORTS)
def calls(running, request):
    calls = Calls(running, request.param)
    yield calls
    calls.close()


def scrape(address: str, token: str | None = None, host: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if host:
        headers["Host"] = host
    request = urllib.request.Request(f"http://{address}/metrics", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain")
        return answer.read().decode()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by (name, sorted labels)."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_call_moves_its_counter_and_histogram(running, calls):
    labels = {"rpc": "GetEngineInfo", "transport": calls.label}
    before = samples(scrape(running.http_address))
    calls("GetEngineInfo", spb.GetEngineInfoRequest())
    after = samples(scrape(running.http_address))
    counted = "council_calls_total"
    assert (
        value(after, counted, code="OK", **labels)
        == value(before, counted, code="OK", **labels) + 1
    )
    timed = "council_call_duration_seconds_count"
    assert value(after, timed, **labels) == value(before, timed, **labels) + 1
    slowest = "council_call_duration_seconds_bucket"
    assert value(after, slowest, le="+Inf", **labels) == value(after, timed, **labels)


def test_a_failed_call_counts_its_code_and_kind(running, calls):
    labels = {"rpc": "RecommendAction", "transport": calls.label, "code": "INVALID_ARGUMENT"}
    before = samples(scrape(running.http_address))
    with pytest.raises((grpc.RpcError, ConnectError)):
        calls("RecommendAction", spb.RecommendActionRequest())  # no state
    after = samples(scrape(running.http_address))
    assert value(after, "council_calls_total", **labels) == (
        value(before, "council_calls_total", **labels) + 1
    )
    kind = "council_errors_total"
    assert value(after, kind, kind="validation") == value(before, kind, kind="validation") + 1


def test_a_stream_counts_its_end(running, calls):
    """AnalyzePosition's status comes from a stream's end (Connect's end message, gRPC-Web's
    trailers), both when it ends well and when it fails."""
    if calls.transport == "grpc":
        stream = lambda request: list(  # noqa: E731
            calls._stub.AnalyzePosition(request, timeout=30)
        )
    else:
        stream = lambda request: list(calls._client.analyze_position(request))  # noqa: E731
    labels = {"rpc": "AnalyzePosition", "transport": calls.label}
    before = samples(scrape(running.http_address))
    state = to_proto(played(3, seed=2, actions=10))
    limits = pb.SearchLimits(iterations=200)
    assert stream(spb.AnalyzePositionRequest(state=state, limits=limits, seed=1))[-1].final
    with pytest.raises((grpc.RpcError, ConnectError)):
        stream(spb.AnalyzePositionRequest(limits=limits))
    after = samples(scrape(running.http_address))
    for code in ("OK", "INVALID_ARGUMENT"):
        assert value(after, "council_calls_total", code=code, **labels) == (
            value(before, "council_calls_total", code=code, **labels) + 1
        ), code


def test_search_metrics_move_after_a_recommend_action(running):
    state = to_proto(played(3, seed=3, actions=12))
    game = {"game": "council-of-four"}
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        for limits, preset in (
            (pb.SearchLimits(iterations=300), "custom"),
            (pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER), "beginner"),
        ):
            labels = {**game, "preset": preset}
            before = samples(scrape(running.http_address))
            answer = stub.RecommendAction(
                spb.RecommendActionRequest(state=state, limits=limits, seed=1), timeout=30
            )
            after = samples(scrape(running.http_address))
            iterations = answer.result.stats.iterations
            assert iterations > 0
            name = "council_search_iterations_total"
            assert value(after, name, **labels) == value(before, name, **labels) + iterations
            name = "council_search_iterations_per_second_count"
            assert value(after, name, **labels) == value(before, name, **labels) + 1
            name = "council_searches_total"
            reason = {"stop_reason": "iterations"}
            assert value(after, name, **labels, **reason) == (
                value(before, name, **labels, **reason) + 1
            )


def test_admission_gauges_and_refusals():
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            search_queue=0,
            max_searches_per_caller=1,
            max_search_time_s=20,
        )
    )
    state = to_proto(played(3, seed=4, actions=12))
    long = spb.RecommendActionRequest(state=state, seed=1)
    long.limits.max_time.FromSeconds(15)
    apart = [("grpc.use_local_subchannel_pool", 1)]  # two connections: two callers
    try:
        with (
            grpc.insecure_channel(running.address, options=apart) as mine,
            grpc.insecure_channel(running.address, options=apart) as other,
        ):
            stub = service_pb2_grpc.CouncilServiceStub(mine)
            first = stub.RecommendAction.future(long, timeout=30)
            wait_until(lambda: running.servicer.admission.running == 1)
            found = samples(scrape(running.http_address))
            assert value(found, "council_search_slots") == 1
            assert value(found, "council_search_slots_in_use") == 1
            assert value(found, "council_search_queue_length") == 0
            assert value(found, "council_search_queue_places") == 0
            with pytest.raises(grpc.RpcError) as refused:  # this caller's one search runs
                stub.RecommendAction(long, timeout=30)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            other_stub = service_pb2_grpc.CouncilServiceStub(other)
            with pytest.raises(grpc.RpcError) as refused:  # another caller: no place left
                other_stub.RecommendAction(long, timeout=30)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            found = samples(scrape(running.http_address))
            name = "council_admission_refused_total"
            assert value(found, name, reason="caller_cap") == 1
            assert value(found, name, reason="full") == 1
            assert value(found, name, reason="deadline") == 0  # there from the start
            first.cancel()
            wait_until(lambda: running.servicer.admission.running == 0)
            found = samples(scrape(running.http_address))
            assert value(found, "council_search_slots_in_use") == 0
    finally:
        running.stop(grace=None)


def test_process_metrics_are_there(running):
    found = samples(scrape(running.http_address))
    assert value(found, "process_resident_memory_bytes") > 0
    assert value(found, "process_open_fds") > 0


def test_no_label_value_carries_a_caller_token_request_id_or_position():
    """Calls carrying a token, a request id, a seed and a position, over every transport,
    successful and failed, then every label value of every sample is one of its fixed set."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            auth_token=TOKEN,
        )
    )
    request_id = "req-3f1b9c2e-unique"
    seed = 918_273_645_546
    state = to_proto(played(3, seed=5, actions=12))
    try:
        for transport in TRANSPORTS:
            calls = Calls(running, transport, token=TOKEN)
            if transport == "grpc":
                calls._metadata.append(("x-request-id", request_id))
            else:
                calls._headers["x-request-id"] = request_id
            try:
                calls("NewGame", spb.NewGameRequest(seed=seed))
                calls(
                    "RecommendAction",
                    spb.RecommendActionRequest(
                        state=state, limits=pb.SearchLimits(iterations=100), seed=seed
                    ),
                )
                broken = to_proto(played(3, seed=5, actions=12))
                broken.players[0].coins = 12345
                with pytest.raises((grpc.RpcError, ConnectError)):
                    calls("ListLegalActions", spb.ListLegalActionsRequest(state=broken))
            finally:
                calls.close()
        # No token: refused.
        with grpc.insecure_channel(running.address) as channel, pytest.raises(grpc.RpcError):
            service_pb2_grpc.CouncilServiceStub(channel).GetEngineInfo(
                spb.GetEngineInfoRequest(), timeout=10
            )
        text = scrape(running.http_address, token=TOKEN)
    finally:
        running.stop(grace=None)
    allowed = allowed_labels()
    found = samples(text)
    seen = set()
    for name, labels in found:
        if name.startswith("process_"):
            assert labels == (), name
            continue
        assert name.startswith("council_"), name
        for label, given in labels:
            if label == "le":  # a histogram's bucket bound
                float(given)
                continue
            assert given in allowed[label], (name, label, given)
            seen.add(label)
    assert {"rpc", "transport", "code", "game", "preset", "stop_reason"} <= seen
    codes = {dict(labels).get("code") for _, labels in found}
    assert "UNAUTHENTICATED" in codes and "INVALID_ARGUMENT" in codes
    for secret in (TOKEN, request_id, str(seed), "ipv4", "127.0.0.1"):
        assert secret not in text, secret


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_on_the_http_port_metrics_ask_for_the_bearer_token_and_a_good_host():
    running = start_server(
        ServerConfig(address="127.0.0.1:0", http_address="127.0.0.1:0", auth_token=TOKEN)
    )
    url = f"http://{running.http_address}/metrics"
    try:
        assert get(url)[0] == 401
        assert get(url, {"Authorization": "Bearer wrong"})[0] == 401
        status, text = get(url, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and "council_search_slots" in text
        status, text = get(url, {"Authorization": f"Bearer {TOKEN}", "Host": "evil.example"})
        assert status == 403 and "evil.example" in text
        assert running.metrics_address is None
    finally:
        running.stop(grace=None)


def test_metrics_address_serves_on_its_own_port():
    """With metrics_address: no token asked there (tokens guard the service), the Host check
    and the guard's timeouts hold, and the HTTP port no longer serves /metrics."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            metrics_address="127.0.0.1:0",
            auth_token=TOKEN,
            http_header_timeout_s=0.3,
        )
    )
    try:
        address = running.metrics_address
        assert address and address != running.http_address
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            stub.GetEngineInfo(
                spb.GetEngineInfoRequest(),
                metadata=[("authorization", f"Bearer {TOKEN}")],
                timeout=10,
            )
        text = scrape(address)
        assert 'council_calls_total{code="OK",rpc="GetEngineInfo",transport="grpc"} 1.0' in text
        assert get(f"http://{address}/other")[0] == 404
        assert get(f"http://{address}/metrics", {"Host": "evil.example"})[0] == 403
        main_port = f"http://{running.http_address}/metrics"
        assert get(main_port, {"Authorization": f"Bearer {TOKEN}"})[0] == 404
        # A client that sends half a head is answered 408 and closed (the slowloris guard).
        host, _, port = address.rpartition(":")
        with socket.create_connection((host, int(port)), timeout=5) as slow:
            slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n")
            start = time.monotonic()
            answer = slow.recv(4096)
            assert answer.startswith(b"HTTP/1.1 408"), answer
            assert time.monotonic() - start < 3
    finally:
        running.stop(grace=None)
    with pytest.raises(OSError):  # closed with the server
        scrape(address)


def test_serve_metrics_address_flag(tmp_path):
    """`council-ai serve --metrics-address` prints the listener's address in its ready line
    and serves there."""
    keys = tmp_path / "seal-keys"
    keys.write_text(new_key_line(None) + "\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "", "--metrics-address", "127.0.0.1:0"]
        + ["--seal-key-file", str(keys), "--grace", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "COUNCIL_AUTH_TOKEN": ""},
    )
    try:
        ready = json.loads(process.stdout.readline())
        assert ready["http"] is None and ready["metrics"].startswith("127.0.0.1:")
        assert "council_search_slots " in scrape(ready["metrics"])
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_a_scrape_during_a_search_is_answered_at_once(running):
    """A scrape reads gauges and counters only: it does not wait for a search."""
    state = to_proto(played(3, seed=6, actions=12))
    request = spb.RecommendActionRequest(state=state, seed=1)
    request.limits.max_time.FromSeconds(15)
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        search = stub.RecommendAction.future(request, timeout=30)
        wait_until(lambda: running.servicer.admission.running == 1)
        start = time.monotonic()
        found = samples(scrape(running.http_address))
        assert time.monotonic() - start < 5  # the search has 15 s
        assert value(found, "council_search_slots_in_use") == 1
        search.cancel()
        wait_until(lambda: running.servicer.admission.running == 0)


def test_http_refusals_and_the_text_form_count_their_codes():
    """Codes read from the HTTP answer whatever refused the call: the token check before
    the body is read (Connect JSON, 401), a stream's end (gRPC-Web text, base64)."""
    running = start_server(
        ServerConfig(address="127.0.0.1:0", http_address="127.0.0.1:0", auth_token=TOKEN)
    )
    url = f"http://{running.http_address}/council.v1.CouncilService/GetEngineInfo"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        refused = urllib.request.Request(
            url, data=b"{}", headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(refused, timeout=10)
        assert error.value.code == 401
        text = urllib.request.Request(
            url,
            data=base64.b64encode(b"\0\0\0\0\0"),
            headers={"Content-Type": "application/grpc-web-text", **auth},
        )
        with urllib.request.urlopen(text, timeout=10) as answer:
            assert answer.headers["Content-Type"] == "application/grpc-web-text+proto"
            answer.read()
        found = samples(scrape(running.http_address, token=TOKEN))
    finally:
        running.stop(grace=None)
    rpc = {"rpc": "GetEngineInfo"}
    assert (
        value(found, "council_calls_total", transport="connect", code="UNAUTHENTICATED", **rpc) == 1
    )
    assert value(found, "council_calls_total", transport="grpc-web", code="OK", **rpc) == 1
    assert value(found, "council_errors_total", kind="auth") == 1
