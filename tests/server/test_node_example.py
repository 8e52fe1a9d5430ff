"""The Node.js example client (examples/node) against a real `council-ai serve`: bots play a
whole 3-player game over gRPC (@grpc/grpc-js) and over HTTP with Connect and JSON (fetch),
and traps.mjs still shows the JavaScript traps that docs/service.md describes.

Needs node (>= 20) and npm: a machine without them fails here, with a message saying so.
``npm ci`` runs once per package-lock.json (examples/node/node_modules, git-ignored, is kept
with a stamp of the lock file); it needs the npm registry or npm's cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node"
STAMP = EXAMPLE / "node_modules" / ".council-lock-sha256"
ITERATIONS = 20  # per move: a game of ~150 moves takes a few seconds


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} not found: the Node.js example (examples/node) needs Node.js >= 20 and npm "
            "on PATH (e.g. apt-get install nodejs npm)",
            pytrace=False,
        )
    return path


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=EXAMPLE, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def node_example() -> str:
    """`node`, with the example's dependencies installed (npm ci, skipped while the lock
    file is the one last installed)."""
    node = _tool("node")
    version = _run([node, "--version"], 30).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= 20, f"node >= 20 needed, found {version}"
    lock = hashlib.sha256((EXAMPLE / "package-lock.json").read_bytes()).hexdigest()
    if not (STAMP.exists() and STAMP.read_text() == lock):
        npm = _tool("npm")
        done = _run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], 300)
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
        STAMP.write_text(lock)
    return node


@pytest.fixture(scope="module")
def served():
    """`council-ai serve` on ephemeral gRPC and HTTP ports: its ready line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0",
         "--http-address", "127.0.0.1:0", "--workers", "2", "--grace", "0.5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COUNCIL_AUTH_TOKEN": ""},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        ready = json.loads(process.stdout.readline())
        assert ready["listening"].startswith("127.0.0.1:")
        assert ready["http"].startswith("127.0.0.1:")  # the HTTP (Connect) port too
        yield ready
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    assert process.returncode == 0, err


def _last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("transport", ["grpc", "connect"])
def test_bots_play_a_whole_game(node_example, served, transport):
    where = (
        ["--address", served["listening"]]
        if transport == "grpc"
        else ["--url", f"http://{served['http']}"]
    )
    args = ["play.mjs", "--transport", transport, *where, "--players", "3"]
    done = _run([node_example, *args, "--iterations", str(ITERATIONS), "--quiet"], 240)
    assert done.returncode == 0, done.stderr
    game = _last_json(done.stdout)
    assert game["transport"] == transport
    assert len(game["scores"]) == 3 and game["winners"]
    assert max(game["scores"]) == min(game["scores"][w] for w in game["winners"])
    assert game["actions"] > 30 and game["turns"] > 10
    assert "game over after" in done.stdout


def test_the_javascript_traps_of_the_front_end_guide(node_example, served):
    args = ["traps.mjs", "--address", served["listening"], "--url", f"http://{served['http']}"]
    done = _run([node_example, *args], 120)
    assert done.returncode == 0, done.stderr
    found = _last_json(done.stdout)
    # 1. defaults:false: seat 0 and action 0 vanish, and so does the action sent back.
    assert found["seatWithoutDefaults"] is None and found["seatWithDefaults"] == 0
    assert found["endActionIdWithoutDefaults"] is None
    assert found["applyingItFails"].startswith("INVALID_ARGUMENT: action: required")
    # 2. longs:Number: the rng is rounded, and the game goes on with other cards.
    assert found["rng"] != found["rngAsNumber"] and int(found["rng"]) > 2**53
    assert found.get("handsDifferAfterMoves") is not None
    # 3. Durations: objects in grpc-js, strings in JSON.
    assert found["durationInGrpcJs"] == {"seconds": "30", "nanos": 0}
    assert found["durationInJson"] == "30s"
    assert "object expected" in found["stringDurationInGrpcJs"]
