"""The client side of ``council.v1.CouncilService``: the request and call metadata that
``council-ai hint`` sends, for any Python client to share (the ladder's remote entrants
among them), and the reading of a failed call's field violations.

>>> from council.engine.games import default_game
>>> game = default_game()
>>> view = game.new_game(game.config_class(players=2), seed=1).view(0)
>>> request = recommend_request(view, seat=0, preset="strong", seed=-1, max_candidates=1)
>>> request.seat, request.limits.preset, request.seed, request.state.viewer
(0, 3, 18446744073709551615, 0)
>>> bearer_metadata("s3cret"), bearer_metadata(None)
([('authorization', 'Bearer s3cret')], None)

A channel to replicas (several addresses, a DNS name, or a proxy) takes `channel_options`:
the service config of ``deploy/grpc_service_config.json`` (round-robin over the addresses;
UNAVAILABLE retried, every RPC being free of side effects; docs/deploy.md), with health
checking when the addresses are the replicas themselves, not a proxy:

>>> config = json.loads(dict(channel_options(health_check=True))["grpc.service_config"])
>>> config["methodConfig"][0]["retryPolicy"]["maxAttempts"], config["healthCheckConfig"]
(5, {'serviceName': 'council.v1.CouncilService'})
"""

from __future__ import annotations

import json
from importlib import resources

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from council.engine import Position
from council.engine.serialize import state_to_proto
from council.server.presets import search_limits
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

__all__ = [
    "bearer_metadata",
    "channel_options",
    "field_violations",
    "recommend_request",
    "service_config",
]

_UINT64 = (1 << 64) - 1


def recommend_request(
    state: Position | pb.GameState,
    *,
    seat: int | None = None,
    preset: str | None = None,
    iterations: int | None = None,
    time_s: float | None = None,
    seed: int = 0,
    max_candidates: int = 0,
) -> spb.RecommendActionRequest:
    """A RecommendAction request for a position (a state of either game, full or a view, or
    a GameState message). Limits as in ``presets.search_limits`` (ValueError for an unknown
    preset); the seed is taken modulo 2**64; no `seat` lets the server pick it (the view's
    viewer, else the seat to move); `max_candidates` 0 asks for every candidate."""
    if not isinstance(state, pb.GameState):
        state = state_to_proto(state)
    request = spb.RecommendActionRequest(
        state=state,
        limits=search_limits(preset, iterations, time_s),
        seed=seed & _UINT64,
        max_candidates=max_candidates,
    )
    if seat is not None:
        request.seat = seat
    return request


def service_config(*, health_check: bool = False) -> str:
    """The gRPC service config for clients of the service (JSON): round-robin balancing and
    the retry policy (``grpc_service_config.json`` of this package, which
    ``deploy/grpc_service_config.json`` links to). With `health_check`, a replica whose
    health is not SERVING (draining) gets no call: only for a channel to the replicas
    themselves, since through a proxy the health seen is that of one replica behind it."""
    text = resources.files("council.server").joinpath("grpc_service_config.json").read_text()
    config = json.loads(text)
    if health_check:
        config["healthCheckConfig"] = {"serviceName": "council.v1.CouncilService"}
    return json.dumps(config)


def channel_options(*, health_check: bool = False) -> list[tuple[str, str | int]]:
    """Channel options that apply `service_config` (retries on, as is gRPC's default)."""
    config = service_config(health_check=health_check)
    return [("grpc.service_config", config), ("grpc.enable_retries", 1)]


def bearer_metadata(token: str | None) -> list[tuple[str, str]] | None:
    """The call metadata that carries `token` to a server started with one (None: none)."""
    return [("authorization", f"Bearer {token}")] if token else None


def field_violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The (field path, problem) pairs of a failed call's BadRequest details, if any."""
    # The error a failed call raises is also its grpc.Call, whose trailers carry the status.
    status = rpc_status.from_call(error) if isinstance(error, grpc.Call) else None
    if status is None:
        return []
    out: list[tuple[str, str]] = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            out += [(v.field, v.description) for v in bad.field_violations]
    return out
