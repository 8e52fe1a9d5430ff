"""Positions to send the server and helpers to read its answers."""

from __future__ import annotations

import random
import subprocess
import threading
from pathlib import Path

import grpc

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_to_proto


def played(players: int, seed: int, actions: int) -> CouncilOfFourState:
    """A full state after `actions` seeded random actions from a seeded deal."""
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    chooser = random.Random(seed)
    for _ in range(actions):
        state.apply(chooser.choice(state.legal_actions()))
    return state


def finished(players: int, seed: int) -> CouncilOfFourState:
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    state.random_playout(seed)
    assert state.is_terminal()
    return state


def to_proto(state: CouncilOfFourState):
    return state_to_proto(state)


def violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The BadRequest field violations of a failed call."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    status = rpc_status.from_call(error)
    assert status is not None, "the error carries no google.rpc.Status"
    out = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        assert detail.Unpack(bad)
        out += [(v.field, v.description) for v in bad.field_violations]
    return out


def wait_until(condition, timeout: float = 20.0) -> None:
    """Poll `condition` every 10 ms until it holds; AssertionError after `timeout` s."""
    pause = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        pause.wait(0.01)
    raise AssertionError("condition not reached")


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost / 127.0.0.1 and its key, made by openssl in `folder`."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key
