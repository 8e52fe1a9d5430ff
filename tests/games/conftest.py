"""A real server on 127.0.0.1 with an ephemeral port for the generic tests of every game
(the same as tests/server/conftest.py's, which pytest does not share across folders)."""

from __future__ import annotations

import grpc
import pytest

from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import service_pb2_grpc


@pytest.fixture(scope="session")
def server():
    running = start_server(
        ServerConfig(address="127.0.0.1:0", search_slots=2, search_queue=2, max_search_time_s=20)
    )
    yield running
    running.stop(grace=None)


@pytest.fixture(scope="session")
def stub(server):
    with grpc.insecure_channel(server.address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        yield service_pb2_grpc.CouncilServiceStub(channel)
