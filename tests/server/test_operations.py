"""Admission under load, graceful shutdown on SIGTERM, the bearer token and TLS
(Admission itself: test_admission.py; cheap calls and fairness under load: test_load.py)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from server_helpers import played, self_signed_certificate, to_proto, wait_until

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_to_json
from council.server.app import HURRY_ANSWER_S, start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc


def test_parallel_calls_are_answered_or_refused():
    running = start_server(
        ServerConfig(address="127.0.0.1:0", search_slots=1, search_queue=1, cheap_workers=2)
    )
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            state = to_proto(played(3, seed=1, actions=15))
            request = spb.RecommendActionRequest(
                state=state, limits=pb.SearchLimits(iterations=4000), seed=1
            )
            calls = [stub.RecommendAction.future(request, timeout=60) for _ in range(16)]
            codes = []
            for call in calls:
                try:
                    result = call.result()
                    codes.append(grpc.StatusCode.OK)
                    assert result.result.stats.iterations == 4000
                except grpc.RpcError as error:
                    codes.append(error.code())
            assert set(codes) == {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}
            # Nothing is poisoned: the server answers as before.
            health = health_pb2_grpc.HealthStub(channel)
            status = health.Check(health_pb2.HealthCheckRequest()).status
            assert status == health_pb2.HealthCheckResponse.SERVING
            again = stub.RecommendAction(request, timeout=60)
            assert again.result.stats.iterations == 4000
            assert running.servicer.wait_idle(10)
    finally:
        running.stop(grace=None)


def serve_process(*flags: str) -> tuple[subprocess.Popen, str]:
    """`council-ai serve` in a child process on a free port, and its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ready = json.loads(process.stdout.readline())
    assert ready["pid"] == process.pid
    return process, ready["listening"]


def end_process(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()
    process.stdout.close()


class HealthPoller:
    """Polls the health service every 20 ms on a connection of its own until stopped, and
    keeps what each check answered: a status name, or the error's code name."""

    def __init__(self, address: str):
        self.seen: list[str] = []
        self.done = threading.Event()
        self.channel = grpc.insecure_channel(
            address, options=[("grpc.use_local_subchannel_pool", 1)]
        )
        self.thread = threading.Thread(target=self.poll)
        self.thread.start()

    def poll(self) -> None:
        health = health_pb2_grpc.HealthStub(self.channel)
        names = health_pb2.HealthCheckResponse.ServingStatus
        while not self.done.wait(0.02):
            try:
                status = health.Check(health_pb2.HealthCheckRequest(), timeout=2).status
                self.seen.append(names.Name(status))
            except grpc.RpcError as error:
                self.seen.append(error.code().name)

    def stop(self) -> list[str]:
        self.done.set()
        self.thread.join(10)
        self.channel.close()
        return self.seen


def test_sigterm_drains_health_not_serving_and_searches_answer_before_the_grace_ends():
    process, address = serve_process("--grace", "2")
    poller = None
    try:
        with grpc.insecure_channel(address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            state = to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
            long_limits = pb.SearchLimits(iterations=2_000_000)  # tens of seconds
            analysis = stub.AnalyzePosition(
                spb.AnalyzePositionRequest(
                    state=state,
                    limits=long_limits,
                    report_interval=duration_pb2.Duration(nanos=50_000_000),
                )
            )
            assert not next(analysis).final  # the search runs
            poller = HealthPoller(address)
            wait_until(lambda: "SERVING" in poller.seen)
            os.kill(process.pid, signal.SIGTERM)
            wait_until(lambda: "NOT_SERVING" in poller.seen)
            # Draining: cheap calls are answered, new searches refused (retry elsewhere).
            listing = stub.ListLegalActions(spb.ListLegalActionsRequest(state=state), timeout=10)
            assert listing.actions
            with pytest.raises(grpc.RpcError) as info:
                stub.RecommendAction(
                    spb.RecommendActionRequest(state=state, limits=long_limits), timeout=10
                )
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            # Before the grace ends the search is stopped and answers with its best action
            # so far (after the grace the call would be cancelled instead).
            final = list(analysis)[-1]
            assert final.final
            assert 0 < final.result.stats.iterations < 2_000_000
            assert final.result.stats.stop_reason == pb.STOP_REASON_CANCELLED
            assert final.result.action.text
            assert process.wait(timeout=30) == 0
        seen = poller.stop()
        # Health polls saw SERVING, then NOT_SERVING all through the drain (the port stayed
        # open: the listing above was answered), and only once the server closed, errors.
        runs = [status for status, _ in itertools.groupby(seen)]
        assert runs[:2] == ["SERVING", "NOT_SERVING"]
        assert not {"SERVING", "NOT_SERVING"} & set(runs[2:])
    finally:
        if poller is not None:
            poller.stop()
        end_process(process)


def test_on_stop_running_searches_answer_in_time_and_queued_ones_are_refused():
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0", search_slots=1, search_queue=1, max_searches_per_caller=2
        )
    )
    stopper = threading.Thread(target=running.stop, kwargs={"grace": 1.5})
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            state = to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
            long_search = spb.RecommendActionRequest(
                state=state, limits=pb.SearchLimits(iterations=2_000_000)
            )
            first = stub.RecommendAction.future(long_search, timeout=60)
            wait_until(lambda: running.servicer.active_searches == 1)
            queued = stub.RecommendAction.future(long_search, timeout=60)
            wait_until(lambda: running.servicer.admission.queued == 1)
            stopper.start()
            answer = first.result()  # the slot's search, stopped: its best action so far
            assert answer.result.stats.stop_reason == pb.STOP_REASON_CANCELLED
            assert 0 < answer.result.stats.iterations < 2_000_000
            # The queued one never got the slot: refused, so that it can go elsewhere.
            with pytest.raises(grpc.RpcError) as info:
                queued.result()
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            stopper.join(30)
            assert not stopper.is_alive()
    finally:
        if stopper.is_alive():
            stopper.join(30)
        running.stop(grace=None)


def test_a_second_sigterm_stops_at_once():
    process, address = serve_process("--grace", "60")
    try:
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == (
                health_pb2.HealthCheckResponse.SERVING
            )
            os.kill(process.pid, signal.SIGTERM)
            wait_until(
                lambda: (
                    health.Check(health_pb2.HealthCheckRequest(), timeout=10).status
                    == health_pb2.HealthCheckResponse.NOT_SERVING
                )
            )
            os.kill(process.pid, signal.SIGTERM)
            assert process.wait(timeout=20) == 0  # long before the 60 s grace
    finally:
        end_process(process)


def _http_search(address: str, state: CouncilOfFourState, answers: list) -> None:
    """A long RecommendAction over HTTP (Connect JSON); its stats, or the error, go to
    `answers`."""
    body = json.dumps({"state": state_to_json(state), "limits": {"iterations": 2_000_000}})
    call = urllib.request.Request(
        f"http://{address}/council.v1.CouncilService/RecommendAction",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(call, timeout=60) as answer:
            answers.append(json.load(answer)["result"]["stats"])
    except Exception as error:  # the test reads what went wrong
        answers.append(repr(error))


@pytest.mark.parametrize("hurry", [False, True], ids=["grace", "second-signal"])
def test_stopped_searches_answer_on_every_transport_within_the_grace(hurry):
    """However the stop comes (the grace running out, or a second signal during the drain),
    a running search answers with its best action so far over gRPC, unary and streaming,
    and over HTTP, and the server is down within the grace."""
    running = start_server(
        ServerConfig(address="127.0.0.1:0", http_address="127.0.0.1:0", search_slots=3)
    )
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    long_limits = pb.SearchLimits(iterations=2_000_000)
    http_answers: list = []
    grace = 1.5
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            unary = stub.RecommendAction.future(
                spb.RecommendActionRequest(state=to_proto(state), limits=long_limits), timeout=60
            )
            stream = stub.AnalyzePosition(
                spb.AnalyzePositionRequest(state=to_proto(state), limits=long_limits)
            )
            http = threading.Thread(
                target=_http_search, args=(running.http_address, state, http_answers)
            )
            http.start()
            wait_until(lambda: running.servicer.active_searches == 3)
            second_signal = threading.Event()
            if hurry:
                second_signal.set()
            start = time.monotonic()
            running.stop(grace=grace, hurry=second_signal)
            took = time.monotonic() - start
            http.join(30)
            answers = [unary.result().result, list(stream)[-1].result]
            for answer in answers:
                assert answer.stats.stop_reason == pb.STOP_REASON_CANCELLED
                assert answer.action.text
            assert http_answers and isinstance(http_answers[0], dict), http_answers
            assert http_answers[0]["stopReason"] == "STOP_REASON_CANCELLED"
            # Down within the grace (a second signal: at once, bar the answers' moment).
            assert took < (0.3 + HURRY_ANSWER_S if hurry else grace + 0.3), took
    finally:
        running.stop(grace=None)


def test_sigterm_with_searches_in_flight_the_process_is_gone_within_the_grace():
    """``council-ai serve --grace 1.5`` (HTTP port and metrics listener on) with searches
    running over gRPC (unary and stream) and HTTP: after SIGTERM each answers its best
    action so far and the process has exited within the grace + 0.5 s. It used to linger
    past the ports' closing: the metrics listener closed last, then Python's own exit
    joined every pool's threads and collected the heap (6.8 s for a 5 s grace)."""
    grace = 1.5
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "127.0.0.1:0", "--metrics-address", "127.0.0.1:0"]
        + ["--grace", str(grace), "--workers", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    long_limits = pb.SearchLimits(iterations=2_000_000)
    http_answers: list = []
    try:
        ready = json.loads(process.stdout.readline())

        def running_searches() -> float:
            url = f"http://{ready['metrics']}/metrics"
            with urllib.request.urlopen(url, timeout=10) as answer:
                text = answer.read().decode()
            return float(text.split("\ncouncil_search_slots_in_use ")[1].split()[0])

        with grpc.insecure_channel(ready["listening"]) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            unary = stub.RecommendAction.future(
                spb.RecommendActionRequest(state=to_proto(state), limits=long_limits), timeout=60
            )
            stream = stub.AnalyzePosition(
                spb.AnalyzePositionRequest(state=to_proto(state), limits=long_limits)
            )
            http = threading.Thread(target=_http_search, args=(ready["http"], state, http_answers))
            http.start()
            wait_until(lambda: running_searches() == 3)
            start = time.monotonic()
            os.kill(process.pid, signal.SIGTERM)
            assert process.wait(timeout=30) == 0
            took = time.monotonic() - start
            http.join(30)
            for answer in (unary.result().result, list(stream)[-1].result):
                assert answer.stats.stop_reason == pb.STOP_REASON_CANCELLED and answer.action.text
        assert http_answers and http_answers[0]["stopReason"] == "STOP_REASON_CANCELLED"
        assert took < grace + 0.5, took
    finally:
        end_process(process)


def test_bearer_token():
    running = start_server(ServerConfig(address="127.0.0.1:0", auth_token="s3cret"))
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            request = spb.GetEngineInfoRequest()
            with pytest.raises(grpc.RpcError) as info:
                stub.GetEngineInfo(request)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as info:
                stub.GetEngineInfo(request, metadata=[("authorization", "Bearer wrong")])
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            state = to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
            analyze = spb.AnalyzePositionRequest(state=state, limits=pb.SearchLimits(iterations=5))
            with pytest.raises(grpc.RpcError) as info:
                list(stub.AnalyzePosition(analyze))
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            good = [("authorization", "Bearer s3cret")]
            assert stub.GetEngineInfo(request, metadata=good).num_actions == 605
            assert list(stub.AnalyzePosition(analyze, metadata=good))[-1].final
            health = health_pb2_grpc.HealthStub(channel)  # probes need no token
            status = health.Check(health_pb2.HealthCheckRequest()).status
            assert status == health_pb2.HealthCheckResponse.SERVING
    finally:
        running.stop(grace=None)


def test_tls(tmp_path):
    cert, key = self_signed_certificate(tmp_path)
    running = start_server(
        ServerConfig(address="127.0.0.1:0", tls_cert=str(cert), tls_key=str(key))
    )
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"localhost:{running.port}", credentials) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            assert stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=10).num_actions == 605
        with grpc.insecure_channel(running.address) as plain:
            stub = service_pb2_grpc.CouncilServiceStub(plain)
            with pytest.raises(grpc.RpcError) as info:
                stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        running.stop(grace=None)
