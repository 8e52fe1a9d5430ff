"""A server with its HTTP port for the tests of this folder (the gRPC-only `server`, `channel`
and `stub` are tests/conftest.py's, shared with tests/games)."""

from __future__ import annotations

import grpc
import pytest

from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import service_pb2_grpc


@pytest.fixture(scope="module")
def http_server():
    """A server with its HTTP port too (Connect, gRPC-Web, the page), one per test module:
    the HTTP tests cancel and time out searches, so they get slots of their own."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            search_queue=1,
            max_search_time_s=20,
        )
    )
    yield running
    running.stop(grace=None)


@pytest.fixture(scope="module")
def grpc_stub(http_server):
    """A gRPC stub on `http_server`, to compare its answers with the HTTP ones."""
    with grpc.insecure_channel(http_server.address) as channel:
        yield service_pb2_grpc.CouncilServiceStub(channel)
