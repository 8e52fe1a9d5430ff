"""The server's Prometheus metrics (docs/metrics.md lists them): calls by RPC, transport and
status code with their latency, errors by kind, searches by game and preset, the search
slots and queue, admission's refusals, and the process's resources.

Each server has its own `Metrics` (its own registry: tests run several servers in one
process), made by its servicer. Where they come from: `council.server.logs` times every
call (a gRPC interceptor, an ASGI middleware of the HTTP port) and hands it to
`Metrics.record_call`; the servicer records each finished search (`record_search`);
admission reports its refusals (`admission_event`) and its gauges are read at each scrape.

Every label value is one of a fixed set (`allowed_labels`): an RPC of the service, a
transport, a status code name, a game, a preset, a stop reason, a refusal reason. Nothing a
client sends becomes a label value, so a client cannot grow the series nor find its caller
key, token, request id or position in them.

Served as ``GET /metrics`` on the HTTP port, or with ``metrics_address`` (``serve
--metrics-address``) on a listener of its own instead (`MetricsServer`), behind the HTTP
port's guard and Host check either way. On the HTTP port a server with bearer tokens asks
one for ``/metrics`` too; the listener of its own asks none, it being meant for a network
only the scraper reaches (docs/metrics.md, "Access").

>>> metrics = Metrics()
>>> metrics.record_call("GetEngineInfo", "grpc", "OK", 0.002)
>>> b'council_calls_total{code="OK",rpc="GetEngineInfo",transport="grpc"} 1.0' in (
...     metrics.exposition()[0])
True
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import grpc
import uvicorn
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.exposition import choose_encoder

from council.engine.games import all_games
from council.server import presets
from council.server.config import accepted_token
from council.server.http_guard import DROP_REASONS, guarded_protocol, host_check
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

if TYPE_CHECKING:
    from council.server.admission import Admission
    from council.server.config import ServerConfig

__all__ = [
    "CUSTOM_PRESET",
    "RPCS",
    "TRANSPORTS",
    "Metrics",
    "MetricsServer",
    "allowed_labels",
    "metrics_endpoint",
    "preset_label",
]

log = logging.getLogger("council.server")

# No <name>_created series beside each counter and histogram: in the Prometheus text format
# each is a series of its own, doubling the count for a start time nobody reads (a switch
# of prometheus_client's, for the process).
disable_created_metrics()

METRICS_PATH = "/metrics"
# The service's methods, the only values of the `rpc` label.
RPCS = frozenset(m.name for m in spb.DESCRIPTOR.services_by_name["CouncilService"].methods)
TRANSPORTS = ("grpc", "connect", "grpc-web")
CODES = frozenset(code.name for code in grpc.StatusCode)
# A search whose budget the request's explicit limits set, no preset.
CUSTOM_PRESET = "custom"
STOP_REASONS = frozenset(
    name.removeprefix("STOP_REASON_").lower()
    for name in pb.StopReason.keys()  # noqa: SIM118 (an enum wrapper)
)
# Why admission refused a search (council.server.admission): no place left, displaced from
# the queue by a caller with fewer searches, no time left before the deadline, the caller's
# cap (--max-searches-per-caller), the server stopping.
REFUSALS = ("full", "displaced", "deadline", "caller_cap", "closed")
# What the codes of failed calls say, for alerts: the client's mistake (validation,
# precondition, auth), load (resource_exhausted, unavailable, deadline), the client leaving
# (cancelled) and the server's own fault (internal).
ERROR_KINDS = {
    "INVALID_ARGUMENT": "validation",
    "OUT_OF_RANGE": "validation",
    "FAILED_PRECONDITION": "precondition",
    "UNAUTHENTICATED": "auth",
    "PERMISSION_DENIED": "auth",
    "RESOURCE_EXHAUSTED": "resource_exhausted",
    "UNAVAILABLE": "unavailable",
    "DEADLINE_EXCEEDED": "deadline",
    "CANCELLED": "cancelled",
    "UNIMPLEMENTED": "unimplemented",
    "INTERNAL": "internal",
    "UNKNOWN": "internal",
    "DATA_LOSS": "internal",
}
OTHER_ERROR = "other"  # NOT_FOUND, ALREADY_EXISTS, ABORTED: none of this service's own

# Seconds: cheap calls take about a millisecond, searches up to max_search_time (30 s).
CALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
# Iterations per second of one search: about 10^5 for a default search on one core.
SPEED_BUCKETS = (1e3, 3e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6)


def _games() -> frozenset[str]:
    return frozenset(game.name for game in all_games())


def allowed_labels() -> dict[str, frozenset[str]]:
    """Every value each label of the service's own metrics may take (the process_* metrics
    have none)."""
    return {
        "rpc": RPCS,
        "transport": frozenset(TRANSPORTS),
        "code": CODES,
        "kind": frozenset({*ERROR_KINDS.values(), OTHER_ERROR}),
        "game": _games(),
        "preset": PRESET_LABELS,
        "stop_reason": STOP_REASONS,
        "reason": frozenset({*REFUSALS, *DROP_REASONS}),
    }


PRESET_LABELS = frozenset({*presets.BY_NAME, CUSTOM_PRESET})


def preset_label(limits: pb.SearchLimits, default_preset: str) -> str:
    """The `preset` label of a search of these limits: the preset that set its budget (the
    named one, else the server's default when no explicit limit is given), else
    `CUSTOM_PRESET`.

    >>> preset_label(presets.search_limits("strong"), "casual")
    'strong'
    >>> preset_label(presets.search_limits(), "casual")
    'casual'
    >>> preset_label(presets.search_limits(iterations=50), "casual")
    'custom'
    """
    deciding = presets._deciding_preset(limits, default_preset)
    return CUSTOM_PRESET if deciding is None else deciding.name


class Metrics:
    """The metrics of one server, in a registry of their own (`registry`)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.calls = Counter(
            "council_calls",
            "Calls of the service finished, by RPC, transport and status code",
            ("rpc", "transport", "code"),
            registry=r,
        )
        self.call_seconds = Histogram(
            "council_call_duration_seconds",
            "Seconds from a call's arrival to its answer (a stream's last message)",
            ("rpc", "transport"),
            buckets=CALL_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "council_errors",
            "Calls that failed, by kind of error (the codes of council_calls_total grouped)",
            ("kind",),
            registry=r,
        )
        self.search_iterations = Counter(
            "council_search_iterations",
            "Search iterations run, by game and preset",
            ("game", "preset"),
            registry=r,
        )
        self.search_speed = Histogram(
            "council_search_iterations_per_second",
            "Iterations per second of each finished search, by game and preset",
            ("game", "preset"),
            buckets=SPEED_BUCKETS,
            registry=r,
        )
        self.searches = Counter(
            "council_searches",
            "Searches finished, by game, preset and why they stopped",
            ("game", "preset", "stop_reason"),
            registry=r,
        )
        self.refused = Counter(
            "council_admission_refused",
            "Searches refused by admission, by reason (caller_cap: a caller's cap was hit)",
            ("reason",),
            registry=r,
        )
        self.dropped = Counter(
            "council_http_connections_dropped",
            "HTTP connections that ended before a request of theirs was complete (no call), "
            "by reason: header_timeout, body_timeout, address_cap and connection_cap (refused "
            "503 at once), client_left",
            ("reason",),
            registry=r,
        )
        self.stopped = Counter(
            "council_admission_searches_stopped",
            "Searches stopped early to give their slot to a caller with fewer searches",
            registry=r,
        )
        self.slots = Gauge("council_search_slots", "Search slots", registry=r)
        self.slots_in_use = Gauge(
            "council_search_slots_in_use", "Search slots running a search now", registry=r
        )
        self.queue_places = Gauge(
            "council_search_queue_places", "Places in the search queue", registry=r
        )
        self.queue_length = Gauge(
            "council_search_queue_length", "Searches waiting for a slot now", registry=r
        )
        ProcessCollector(registry=r)
        # The counters alerts divide or compare exist from the start, at 0.
        for reason in REFUSALS:
            self.refused.labels(reason)
        for reason in DROP_REASONS:
            self.dropped.labels(reason)
        for kind in {*ERROR_KINDS.values(), OTHER_ERROR}:
            self.errors.labels(kind)

    def watch_admission(self, admission: Admission) -> None:
        """Read the slot and queue gauges from `admission` at each scrape."""
        self.slots.set(admission.slots)
        self.queue_places.set(admission.capacity - admission.slots)
        self.slots_in_use.set_function(lambda: admission.running)
        self.queue_length.set_function(lambda: admission.queued)

    def record_call(self, rpc: str, transport: str, code: str, seconds: float) -> None:
        """Count a finished call (a code name of grpc.StatusCode); one of an unknown RPC or
        transport is not counted, an unknown code counts as UNKNOWN."""
        if rpc not in RPCS or transport not in TRANSPORTS:
            return
        if code not in CODES:
            code = "UNKNOWN"
        self.calls.labels(rpc, transport, code).inc()
        self.call_seconds.labels(rpc, transport).observe(seconds)
        if code != "OK":
            self.errors.labels(ERROR_KINDS.get(code, OTHER_ERROR)).inc()

    def record_search(
        self, game: str, preset: str, stop_reason: int, iterations: int, elapsed_s: float
    ) -> None:
        """Count a finished search: its iterations and speed, and why it stopped (a
        StopReason value)."""
        if game not in _games() or preset not in PRESET_LABELS:
            return
        reason = pb.StopReason.Name(stop_reason).removeprefix("STOP_REASON_").lower()
        self.searches.labels(game, preset, reason).inc()
        self.search_iterations.labels(game, preset).inc(iterations)
        if iterations > 0 and elapsed_s > 0:
            self.search_speed.labels(game, preset).observe(iterations / elapsed_s)

    def admission_event(self, event: str) -> None:
        """What admission reports: a refusal (one of `REFUSALS`) or ``"stopped"`` (a hog's
        search stopped for a waiting call). Called with admission's lock held: quick."""
        if event == "stopped":
            self.stopped.inc()
        elif event in REFUSALS:
            self.refused.labels(event).inc()

    def connection_dropped(self, reason: str) -> None:
        """Count an HTTP connection that ended without a whole request (the HTTP port's
        guard says why: one of `DROP_REASONS`)."""
        if reason in DROP_REASONS:
            self.dropped.labels(reason).inc()

    def exposition(self, accept: str = "") -> tuple[bytes, str]:
        """The metrics in the format the ``Accept`` header asks for (Prometheus text by
        default, OpenMetrics if asked), and its content type."""
        encode, content_type = choose_encoder(accept)
        return encode(self.registry), content_type


class _MetricsEndpoint:
    """ASGI: answers ``GET /metrics`` (and HEAD) with the metrics, asking for a bearer token
    of `tokens` if there are any, and hands every other request to `app` (None: 404)."""

    def __init__(self, app: Any, metrics: Metrics, tokens: tuple[str, ...]):
        self.app = app
        self.metrics = metrics
        self.tokens = tokens

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("path") == METRICS_PATH:
            return await self._answer(scope, send)
        if self.app is not None:
            return await self.app(scope, receive, send)
        if scope["type"] == "http":
            await _send(send, 404, b"not found: the metrics are at /metrics\n")

    async def _answer(self, scope, send) -> None:
        headers = dict(scope.get("headers", ()))
        if scope["method"] not in ("GET", "HEAD"):
            return await _send(send, 405, b"GET /metrics\n", [(b"allow", b"GET, HEAD")])
        if self.tokens and accepted_token(headers.get(b"authorization"), self.tokens) is None:
            return await _send(
                send,
                401,
                b"missing or wrong bearer token\n",
                [(b"www-authenticate", b'Bearer realm="council-ai"')],
            )
        body, content_type = self.metrics.exposition(headers.get(b"accept", b"").decode("latin-1"))
        if scope["method"] == "HEAD":
            body = b""
        await _send(send, 200, body, content_type=content_type.encode())


async def _send(
    send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
    content_type: bytes = b"text/plain; charset=utf-8",
) -> None:
    head = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
        *(headers or ()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def metrics_endpoint(app: Any, metrics: Metrics, config: ServerConfig) -> Any:
    """`app` (the HTTP port's application) with ``GET /metrics`` answered in front of it,
    unless the metrics have a listener of their own (``config.metrics_address``)."""
    if config.metrics_address:
        return app
    return _MetricsEndpoint(app, metrics, config.tokens)


class MetricsServer:
    """The listener of ``config.metrics_address``: ``GET /metrics`` only, no token, plain
    HTTP, with the HTTP port's guard (timeouts, connection cap) and Host check (its
    loopback rule read from this address)."""

    def __init__(self, metrics: Metrics, config: ServerConfig):
        from council.server.connect import _listen  # connect imports this module

        assert config.metrics_address
        own = replace(config, http_address=config.metrics_address)
        app = host_check(_MetricsEndpoint(None, metrics, ()), own)
        self._config = uvicorn.Config(
            app,
            http=guarded_protocol(own, metrics.connection_dropped),
            timeout_keep_alive=own.http_keep_alive_s,  # type: ignore[arg-type]
            loop="asyncio",
            lifespan="off",
            ws="none",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=None,
            proxy_headers=False,
        )
        self._config.load()
        self._socket = _listen(config.metrics_address)
        self.port: int = self._socket.getsockname()[1]
        self.address = f"{config.metrics_address.rpartition(':')[0]}:{self.port}"
        self._server = uvicorn.Server(self._config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name="council-metrics",
            daemon=True,
        )

    def start(self, timeout: float = 10.0) -> None:
        self._thread.start()
        end = time.monotonic() + timeout
        while not self._server.started and self._thread.is_alive() and time.monotonic() < end:
            time.sleep(0.01)
        if not self._server.started:
            self._socket.close()
            raise OSError(f"the metrics server on {self.address} did not start")

    def shutdown(self) -> None:
        """Start closing the listener (a scrape in progress is answered); see `stop`."""
        self._server.should_exit = True

    def stop(self, timeout: float = 2.0) -> None:
        """Close the listener (a scrape in progress gets `timeout` seconds)."""
        self.shutdown()
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(1.0)


def start_metrics(metrics: Metrics, config: ServerConfig) -> MetricsServer | None:
    """Start the listener of ``config.metrics_address`` (None without one)."""
    if not config.metrics_address:
        return None
    server = MetricsServer(metrics, config)
    server.start()
    log.debug("serving metrics on %s", server.address)
    return server
