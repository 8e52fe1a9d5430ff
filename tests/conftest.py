"""Suite-wide checks."""

import os
from pathlib import Path

import grpc
import pytest
from hypothesis import settings

import council.engine._council_of_four as core
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import service_pb2_grpc

# Property tests draw their examples from a fixed seed, so every run tries the same cases.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.load_profile("repeatable")


def pytest_report_header(config):
    return f"council.engine._council_of_four: {core.__file__}"


def pytest_configure(config):
    # `council-ai serve` keeps a seal key under $XDG_STATE_HOME when given none: the
    # servers the tests start (child processes included) keep theirs in a folder of this
    # run, never in the home folder of whoever runs the tests.
    state_home = Path(config.rootpath, "build", "test-state")
    state_home.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_STATE_HOME"] = str(state_home)
    # `make test` reruns the random-play tests against the debug build; make sure that
    # run really imported it rather than the optimised build of the editable install.
    if os.environ.get("COUNCIL_EXPECT_DEBUG_BUILD") == "1":
        built = Path(core.__file__).resolve()
        if "debug" not in built.parts:
            raise RuntimeError(f"expected the debug build of the core, imported {built}")


# A real server on 127.0.0.1 with an ephemeral port, started once for the tests that ask for
# it (tests/server, tests/games).
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
