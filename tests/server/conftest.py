"""A real server on 127.0.0.1 with an ephemeral port, shared by the tests of this folder."""

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
def channel(server):
    with grpc.insecure_channel(server.address) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="session")
def stub(channel):
    return service_pb2_grpc.CouncilServiceStub(channel)
