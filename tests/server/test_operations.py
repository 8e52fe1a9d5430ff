"""Admission under load, graceful shutdown on SIGTERM, the bearer token and TLS
(Admission itself: test_admission.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from server_helpers import played, to_proto

from council.engine import GameConfig, State
from council.server.app import start_server
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


def test_sigterm_cancels_in_flight_search_and_exits():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "council.server.cli",
            "serve",
            "--address",
            "127.0.0.1:0",
            "--grace",
            "0.5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready = json.loads(process.stdout.readline())
        assert ready["pid"] == process.pid
        with grpc.insecure_channel(ready["listening"]) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            state = to_proto(State.new_game(GameConfig(players=2), seed=1))
            quick = stub.RecommendAction(
                spb.RecommendActionRequest(state=state, limits=pb.SearchLimits(iterations=50))
            )
            assert quick.result.stats.iterations == 50
            long_search = spb.RecommendActionRequest(
                state=state,
                limits=pb.SearchLimits(iterations=2_000_000),  # tens of seconds
            )
            call = stub.RecommendAction.future(long_search)
            health = health_pb2_grpc.HealthStub(channel)
            health.Check(health_pb2.HealthCheckRequest())  # the search call is in flight
            os.kill(process.pid, signal.SIGTERM)
            # Past the grace period the call is cancelled, its search stopped, and the
            # process exits long before the search would have ended.
            assert process.wait(timeout=4.5) == 0
            # Either the stopped search's best-so-far answer got out before the server closed,
            # or the call was cancelled; either way it did not run to its budget.
            try:
                response = call.result(timeout=5)
            except grpc.RpcError as error:
                assert error.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
            else:
                assert response.result.stats.iterations < 2_000_000
                assert response.result.stats.stop_reason == pb.STOP_REASON_CANCELLED
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()


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
            state = to_proto(State.new_game(GameConfig(players=2), seed=1))
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
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
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
