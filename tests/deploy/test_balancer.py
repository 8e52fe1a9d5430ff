"""Replicas behind nginx, and balanced by the client (docs/deploy.md): real ``council-ai
serve`` children on free ports and Debian's nginx (`make nginx`), driven by deploy/local.py.

A replica is told apart by its answers: replica i runs with ``--max-iterations`` CAP + i,
which GetEngineInfo reports and which caps every search's iterations."""

from __future__ import annotations

import doctest
import http.client
import importlib.util
import io
import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_to_proto
from council.server.app import start_server
from council.server.client import bearer_metadata, channel_options, recommend_request
from council.server.config import ServerConfig
from council.server.errors import RETRY_PUSHBACK_KEY
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

_spec = importlib.util.spec_from_file_location(
    "deploy_local", Path(__file__).parents[2] / "deploy" / "local.py"
)
assert _spec is not None and _spec.loader is not None
local = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(local)

EXAMPLE = Path(__file__).parents[2] / "examples" / "python" / "balanced_client.py"
CAP = 300  # replica i searches CAP + i iterations at most: a few ms each
STATE = state_to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
SEARCH = recommend_request(STATE, iterations=100_000)
SEARCH_JSON = json.dumps(json_format.MessageToDict(SEARCH)).encode()


def test_deploy_local_examples():
    """deploy/local.py's doctests (a file outside the packages test_doctests.py runs)."""
    assert doctest.testmod(local).failed == 0


def test_the_template_renders_to_a_config_nginx_accepts(tmp_path, nginx_program):
    (tmp_path / "tmp").mkdir()  # nginx makes its temporary folders in there
    config = tmp_path / "nginx.conf"
    config.write_text(
        local.render(
            tmp_path, "127.0.0.1:1", "127.0.0.1:2", ["127.0.0.1:3", "127.0.0.1:4"], ["127.0.0.1:5"]
        )
    )
    assert set(re.findall(r"@[A-Z_]+@", config.read_text())) == {"@NAME@"}  # the comment's
    check = subprocess.run(
        [nginx_program, "-t", "-p", str(tmp_path), "-c", str(config), "-e", "error.log"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


@pytest.fixture(scope="module")
def nginx_program():
    try:
        return local.find_nginx()
    except RuntimeError as error:  # never skipped: CI must run these
        pytest.fail(str(error))


class Cluster:
    """Replicas, each with its own search cap, behind nginx."""

    def __init__(
        self,
        folder: Path,
        count: int,
        flags: list[str],
        proxy: bool = True,
        fail_timeout_s: int = local.FAIL_TIMEOUT_S,
    ):
        self.log = (folder / "replicas.log").open("w")
        self.replicas = local.start_replicas(
            count,
            folder / "state",
            [["--max-iterations", str(CAP + i), *flags] for i in range(count)],
            stderr=self.log,
        )
        self.nginx = None
        if proxy:
            grpc_listen = f"127.0.0.1:{local.free_port()}"
            http_listen = f"127.0.0.1:{local.free_port()}"
            try:
                self.nginx = local.Nginx(
                    folder, self.replicas, grpc_listen, http_listen, fail_timeout_s
                )
            except BaseException:
                self.close()
                raise

    def replica_of(self, iterations: int) -> int | None:
        """Which replica answered a search of that many iterations (None: stopped early)."""
        i = iterations - CAP
        return i if 0 <= i < len(self.replicas) else None

    def close(self) -> None:
        for replica in self.replicas:
            replica.signal(signal.SIGKILL)
            replica.close(timeout=10)
        if self.nginx is not None:
            self.nginx.close()
        self.log.close()


@pytest.fixture
def cluster(tmp_path, request):
    made: list[Cluster] = []

    def make(
        count: int = 2,
        flags: tuple[str, ...] = (),
        proxy: bool = True,
        fail_timeout_s: int = local.FAIL_TIMEOUT_S,
    ) -> Cluster:
        if proxy:
            request.getfixturevalue("nginx_program")  # fails naming `make nginx`
        made.append(Cluster(tmp_path, count, list(flags), proxy, fail_timeout_s))
        return made[-1]

    yield make
    for c in made:
        c.close()


def connect_call(connection: http.client.HTTPConnection, method: str, body: bytes) -> dict:
    """A unary Connect JSON call on a kept-alive connection; its answer, or raises."""
    connection.request(
        "POST",
        f"/council.v1.CouncilService/{method}",
        body,
        {"Content-Type": "application/json", "Connect-Timeout-Ms": "30000"},
    )
    answer = connection.getresponse()
    data = answer.read()
    if answer.status != 200:
        raise RuntimeError(f"HTTP {answer.status}: {data[:200]!r}")
    return json.loads(data)


class Load:
    """Client threads calling RecommendAction through nginx until stopped: gRPC ones on a
    channel with the retry service config, Connect ones without any retry of their own.
    Each call is kept: (start, end, replica answering or None, error or None)."""

    def __init__(self, cluster: Cluster, grpc_clients: int = 3, connect_clients: int = 3):
        assert cluster.nginx is not None
        self.cluster = cluster
        self.calls: list[tuple[str, float, float, int | None, str | None]] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.channel = grpc.insecure_channel(cluster.nginx.grpc_listen, channel_options())
        self.threads = [threading.Thread(target=self.grpc_client) for _ in range(grpc_clients)] + [
            threading.Thread(target=self.connect_client) for _ in range(connect_clients)
        ]
        for thread in self.threads:
            thread.start()

    def keep(self, kind: str, start: float, iterations: int | None, error: str | None) -> None:
        replica = None if iterations is None else self.cluster.replica_of(iterations)
        with self.lock:
            self.calls.append((kind, start, time.monotonic(), replica, error))

    def grpc_client(self) -> None:
        stub = service_pb2_grpc.CouncilServiceStub(self.channel)
        while not self.done.is_set():
            start = time.monotonic()
            try:
                answer = stub.RecommendAction(SEARCH, timeout=30)
                self.keep("grpc", start, answer.result.stats.iterations, None)
            except grpc.RpcError as error:
                self.keep("grpc", start, None, f"{error.code().name}: {error.details()}")

    def connect_client(self) -> None:
        assert self.cluster.nginx is not None
        host, _, port = self.cluster.nginx.http_listen.rpartition(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        while not self.done.is_set():
            start = time.monotonic()
            try:
                answer = connect_call(connection, "RecommendAction", SEARCH_JSON)
                self.keep("connect", start, int(answer["result"]["stats"]["iterations"]), None)
            except (OSError, RuntimeError, http.client.HTTPException) as error:
                self.keep("connect", start, None, repr(error))
                connection.close()
        connection.close()

    def answered_by(self, replica: int) -> int:
        with self.lock:
            return sum(1 for call in self.calls if call[3] == replica)

    def stop(self) -> list[tuple[str, float, float, int | None, str | None]]:
        self.done.set()
        for thread in self.threads:
            thread.join(60)
        self.channel.close()
        return self.calls


def wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_calls_spread_over_both_replicas_through_nginx(cluster):
    c = cluster()
    assert c.nginx is not None
    caps = set()
    with grpc.insecure_channel(c.nginx.grpc_listen, channel_options()) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        for _ in range(10):
            caps.add(stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=10).max_iterations)
    host, _, port = c.nginx.http_listen.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    http_caps = set()
    for _ in range(10):
        http_caps.add(int(connect_call(connection, "GetEngineInfo", b"{}")["maxIterations"]))
    connection.close()
    assert caps == http_caps == {CAP, CAP + 1}
    # nginx's access log names the replica of each call: both ports of both replicas.
    log = "\n".join(c.nginx.log_lines())
    for replica in c.replicas:
        assert f"upstream={replica.address} " in log
        assert f"upstream={replica.http_address} " in log
    # The example client, through nginx.
    example = subprocess.run(
        [sys.executable, EXAMPLE, c.nginx.grpc_listen, "--moves", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert example.returncode == 0 and len(example.stdout.splitlines()) == 2, example.stderr
    # The page and the probes, through nginx too.
    with urllib.request.urlopen(f"http://{c.nginx.http_listen}/readyz", timeout=10) as answer:
        assert answer.read() == b"ok\n"
    with urllib.request.urlopen(f"http://{c.nginx.http_listen}/", timeout=10) as answer:
        assert b"<html" in answer.read().lower()


def test_sigterm_mid_load_loses_no_call_and_the_draining_replica_is_taken_out(cluster):
    c = cluster(flags=("--grace", "1.5", "--workers", "2"))
    load = Load(c)
    try:
        wait_until(lambda: load.answered_by(0) >= 5 and load.answered_by(1) >= 5)
        stopped = time.monotonic()
        c.replicas[0].signal(signal.SIGTERM)
        assert c.replicas[0].process.wait(timeout=20) == 0
        exited = time.monotonic()
        answered_before = load.answered_by(1)
        wait_until(lambda: load.answered_by(1) >= answered_before + 10)
    finally:
        calls = load.stop()
    failed = [call for call in calls if call[4] is not None]
    assert not failed, failed[:5]
    assert {kind for kind, *_ in calls if kind} == {"grpc", "connect"}
    # Taken out: once it drains, the replica starts no search (those it answers after the
    # signal were running or queued there before); nginx sends no call to it once it closed.
    # (Half a second for the signal to reach its handler: 50 ms once missed on a loaded machine.)
    late = [call for call in calls if call[1] > stopped + 0.5 and call[3] == 0]
    assert not late, late[:5]
    assert all(call[3] == 1 for call in calls if call[1] > exited)
    assert c.nginx is not None
    closed_port = [
        line for line in c.nginx.log_lines() if f"{c.replicas[0].address}, " in line
    ]  # a call nginx sent to the closed port, then on to the other replica
    assert len(closed_port) <= len(load.threads), closed_port


def test_sigkill_costs_only_the_calls_the_replica_was_running(cluster):
    c = cluster(flags=("--workers", "2"))
    load = Load(c)
    try:
        wait_until(lambda: load.answered_by(0) >= 5 and load.answered_by(1) >= 5)
        c.replicas[0].signal(signal.SIGKILL)
        c.replicas[0].process.wait(timeout=10)
        # nginx learns of it when the kernel closes its connections: a call nginx had sent
        # on a kept-alive one just before that was running there too.
        killed = time.monotonic() + 0.25
        answered_before = load.answered_by(1)
        wait_until(lambda: load.answered_by(1) >= answered_before + 20)
    finally:
        calls = load.stop()
    failed = [call for call in calls if call[4] is not None]
    # At most the calls running when it died (one per client thread), none started later.
    assert len(failed) <= len(load.threads), failed
    assert all(call[1] < killed for call in failed), failed
    assert all(call[3] == 1 for call in calls if call[1] > killed)


def test_deploy_local_starts_an_exited_replica_again_and_sigterm_loses_no_call(cluster):
    """deploy/local.py's Supervisor, under load through nginx (3 gRPC clients with the
    retry config, 3 Connect clients without retries): SIGTERM to a replica, which drains,
    exits and is started again on its ports; once it answers again, SIGKILL to it, and it
    is started again. No call fails across the SIGTERM; across the SIGKILL at most the
    calls it was running (one per client). nginx leaves a failed replica out 1 s here."""
    c = cluster(flags=("--grace", "1.5", "--workers", "2"), fail_timeout_s=1)
    said = io.StringIO()
    supervisor = local.Supervisor(c.replicas, out=said)
    supervisor.FIRST_WAIT_S = 0.1
    stop = threading.Event()
    watching = threading.Thread(target=supervisor.run, args=(stop,))
    watching.start()
    load = Load(c)
    try:
        wait_until(lambda: load.answered_by(0) >= 5 and load.answered_by(1) >= 5)
        c.replicas[0].signal(signal.SIGTERM)
        wait_until(lambda: supervisor.restarts[0] == 1)
        answered = load.answered_by(0)
        wait_until(lambda: load.answered_by(0) >= answered + 5)  # back in nginx's rotation
        killed = time.monotonic()
        c.replicas[0].signal(signal.SIGKILL)
        served = load.answered_by(1)
        wait_until(lambda: supervisor.restarts[0] == 2)
        wait_until(lambda: load.answered_by(1) >= served + 5)  # calls went on meanwhile
    finally:
        calls = load.stop()
        stop.set()
        watching.join(30)
    failed = [call for call in calls if call[4] is not None]
    across_sigterm = [call for call in failed if call[2] < killed]  # ended before the kill
    across_sigkill = [call for call in failed if call[2] >= killed]
    print(
        f"{len(calls)} calls: failed {len(across_sigterm)} across SIGTERM,"
        f" {len(across_sigkill)} across SIGKILL"
    )
    assert not across_sigterm, across_sigterm[:5]
    assert len(across_sigkill) <= len(load.threads), across_sigkill
    assert {kind for kind, *_ in calls} == {"grpc", "connect"}
    lines = said.getvalue().splitlines()
    assert len(lines) == 4 and "exited with code 0" in lines[0], lines
    assert "exited with code -9" in lines[2] and "serves again" in lines[3], lines


class _Exited:
    """A replica's process that has exited with `code`."""

    def __init__(self, code: int):
        self.code = code
        self.stdout = None

    def poll(self) -> int:
        return self.code


class _FailingReplica:
    """A replica that exits at once each time it is started."""

    address, http_address, ready = "127.0.0.1:1", "127.0.0.1:2", {}

    def __init__(self) -> None:
        self.process = _Exited(3)
        self.starts: list[float] = []

    def restart(self):
        self.starts.append(time.monotonic())
        raise RuntimeError("council-ai serve exited (3) before listening")


def test_a_replica_that_cannot_start_is_tried_again_less_and_less_often():
    replica = _FailingReplica()
    said = io.StringIO()
    supervisor = local.Supervisor([replica], out=said)
    supervisor.FIRST_WAIT_S = 0.05
    supervisor.step()  # sees it exited: waits 0.05 s
    deadline = time.monotonic() + 5
    while len(replica.starts) < 4 and time.monotonic() < deadline:
        supervisor.step()
        time.sleep(0.005)
    gaps = [b - a for a, b in zip(replica.starts, replica.starts[1:], strict=False)]
    assert len(gaps) == 3 and gaps[0] >= 0.1 and gaps[1] >= 0.2 and gaps[2] >= 0.4, gaps
    assert "starting it again in 0.05 s" in said.getvalue()
    assert "did not start again: council-ai serve exited (3)" in said.getvalue()
    assert supervisor.restarts == [0]


def test_round_robin_client_spreads_calls_and_skips_a_draining_replica(cluster):
    c = cluster(flags=("--grace", "5"), proxy=False)
    target = "ipv4:" + ",".join(r.address for r in c.replicas)
    with grpc.insecure_channel(target, channel_options(health_check=True)) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        caps = [
            stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=10).max_iterations
            for _ in range(20)
        ]
        assert caps.count(CAP) >= 5 and caps.count(CAP + 1) >= 5, caps
        c.replicas[0].signal(signal.SIGTERM)  # health NOT_SERVING; the port stays open
        time.sleep(0.5)
        for _ in range(10):  # cheap calls and searches: the other replica only
            assert stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=10).max_iterations == (
                CAP + 1
            )
            assert stub.RecommendAction(SEARCH, timeout=10).result.stats.iterations == CAP + 1
    example = subprocess.run(
        [sys.executable, EXAMPLE, "--replicas", ",".join(r.address for r in c.replicas)]
        + ["--moves", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert example.returncode == 0 and len(example.stdout.splitlines()) == 2, example.stderr


def test_a_refusal_of_a_draining_replica_is_retried_on_another():
    """Round-robin without health checks (so the draining replica still gets calls): its
    refusals carry the retry pushback, the retry comes once its port is closed and goes
    to the other replica. No call fails."""
    servers = [
        start_server(ServerConfig(address="127.0.0.1:0", max_iterations=CAP + i)) for i in range(2)
    ]
    stopper = threading.Thread(target=servers[0].stop, args=(1.0,))
    try:
        target = "ipv4:" + ",".join(s.address for s in servers)
        with grpc.insecure_channel(target, channel_options()) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            for _ in range(4):
                stub.RecommendAction(SEARCH, timeout=30)
            stopper.start()
            wait_until(lambda: servers[0].servicer.draining)
            answered = []
            for _ in range(6):
                start = time.monotonic()
                try:
                    result = stub.RecommendAction(SEARCH, timeout=30).result
                except grpc.RpcError as error:
                    pytest.fail(
                        f"{error.code().name}: {error.details()}: not retried. A response"
                        " header sent before the status (send_initial_metadata at a call's"
                        " start) commits a gRPC call: no retry policy can retry it (gRFC A6)"
                    )
                answered.append((result.stats.iterations, time.monotonic() - start))
        assert {iterations for iterations, _ in answered} == {CAP + 1}
        # One of them was refused and waited for the closing: the pushback, not a backoff.
        assert max(seconds for _, seconds in answered) > 0.5
    finally:
        if stopper.is_alive() or stopper.ident is not None:
            stopper.join(10)
        for server in servers:
            server.stop(grace=None)


def test_a_draining_server_says_so_on_http_and_when_to_retry_on_grpc():
    """On stop: /readyz answers 503 (/healthz still 200; both without the bearer token a
    call needs, as the probes of a load balancer come), and a refused search carries the
    retry pushback up to the ports' closing, if the call's deadline leaves room for it."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=2.0, auth_token="s3cret"
        )
    )
    stopper = None
    try:
        base = f"http://{running.http_address}"

        def probe(path: str) -> int:
            try:
                with urllib.request.urlopen(base + path, timeout=5) as answer:
                    return answer.status
            except urllib.error.HTTPError as error:
                return error.code

        assert (probe("/readyz"), probe("/healthz")) == (200, 200)
        stopper = threading.Thread(target=running.stop, args=(2.0,))
        stopper.start()
        wait_until(lambda: running.servicer.draining)
        assert (probe("/readyz"), probe("/healthz")) == (503, 200)
        with grpc.insecure_channel(running.address) as channel:  # no retry policy
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            for timeout, pushback in ((30, True), (1.0, False)):
                with pytest.raises(grpc.RpcError) as info:
                    stub.RecommendAction(
                        SEARCH, timeout=timeout, metadata=bearer_metadata("s3cret")
                    )
                assert info.value.code() == grpc.StatusCode.UNAVAILABLE
                trailers = dict(info.value.trailing_metadata())
                if pushback:
                    # The drain ends 0.22 s before the grace's end, the ports close 0.1 s later.
                    assert 1000 < int(trailers[RETRY_PUSHBACK_KEY]) <= 1880
                else:  # 1 s left: the retry would have too little, so the client's backoff
                    assert RETRY_PUSHBACK_KEY not in trailers
    finally:
        if stopper is not None:
            stopper.join(10)
        running.stop(grace=None)
