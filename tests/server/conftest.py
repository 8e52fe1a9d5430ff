"""A server with its HTTP port for the tests of this folder (the gRPC-only `server`, `channel`
and `stub` are tests/conftest.py's, shared with tests/games); a private Redis server."""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import grpc
import pytest

from council.server import sealed_games, sealing
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


class RedisServer:
    """A private Debian ``redis-server`` (`make redis`), never the system's service: on a free
    port of 127.0.0.1 and a unix socket in `folder`, in memory only (nothing saved), in the
    foreground of a child process. `stop` and `start` again keep its port (a restart)."""

    def __init__(self, folder: Path):
        program = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin")
        if program is None:  # never skipped: CI must run these
            pytest.fail("redis-server is missing: run `make redis` (installs Debian's)")
        self.program = program
        self.folder = folder
        self.socket = folder / "redis.sock"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def unix_url(self) -> str:
        return f"unix://{self.socket}"

    def start(self) -> None:
        # Redis takes no port 0: a free one is picked, and another if taken meanwhile.
        for attempt in range(3):
            if not self.port or attempt:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    self.port = s.getsockname()[1]
            if self._started():
                return
        pytest.fail(f"redis-server did not start: {self._output()}")

    def _started(self) -> bool:
        self.process = subprocess.Popen(
            [self.program, "--port", str(self.port), "--bind", "127.0.0.1",
             "--unixsocket", str(self.socket), "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--daemonize", "no",
             "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")],
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return True
            except OSError:
                time.sleep(0.02)
        self.stop()
        return False

    def _output(self) -> str:
        log = self.folder / "redis.log"
        return log.read_text()[-2000:] if log.exists() else "(no log)"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a paused one would not see SIGTERM
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A Redis server for a test module (its keys: each test uses games of its own)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_redis_server(tmp_path_factory):
    """A Redis server for one test, which may stop, pause or restart it."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fixed_chance(monkeypatch):
    """The server's fresh chance (every move's draw seed, the game's secret, so the bot's
    search seed) from one seeded generator: a whole game played by a script is the same game
    every run, instead of whatever the draws of that run allow (CI once drew a game with no
    payment of two ways). The browser tests' modules use it (``pytestmark``)."""
    rng = random.Random(1)  # (its board game has payments of two ways: test_browser_board)
    monkeypatch.setattr(sealed_games, "fresh_chance_seed", lambda: rng.getrandbits(64) or 1)
    monkeypatch.setattr(sealing, "new_game_secret", lambda: rng.randbytes(sealing.SECRET_BYTES))
