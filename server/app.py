"""Assembling and running the gRPC server: the service, health, reflection, optional TLS and
bearer-token check, bounded admission and graceful shutdown on SIGTERM.

>>> from council.server.app import start_server
>>> from council.server.config import ServerConfig
>>> running = start_server(ServerConfig(address="127.0.0.1:0"))
>>> running.port > 0
True
>>> running.stop(grace=None)
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from concurrent import futures
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from council.engine.games import use_content_file
from council.server import reflection
from council.server.config import ServerConfig, accepted_token
from council.server.connect import HttpServer, start_http
from council.server.errors import DecodeRequests
from council.server.game_store import GameStore, default_game_store_url, open_game_store
from council.server.http_guard import host_name, is_loopback_host
from council.server.logs import CallInterceptor, CallLog
from council.server.metrics import MetricsServer, start_metrics
from council.server.service import SERVICE_NAME, CouncilServicer
from council.v1 import service_pb2_grpc

log = logging.getLogger("council.server")

HEALTH_SERVICE = health.SERVICE_NAME  # "grpc.health.v1.Health"
# After a second signal, the stopped searches still get this long to send their answers.
HURRY_ANSWER_S = 0.3
# How long after the drain ends the ports are closed, at most: the running searches stop
# and answer at once (a busy machine's margin; see `RunningServer.stop`).
PORTS_CLOSED_S = 0.1
# What uvicorn's shutdown adds to the time it is given (see `RunningServer.stop`).
HTTP_SHUTDOWN_TICKS_S = 0.25
# `council-ai serve` has ended this long after its grace at the latest (`serve`).
EXIT_SPARE_S = 0.4


class BearerTokenInterceptor(grpc.ServerInterceptor):
    """Rejects calls without ``authorization: Bearer <token>`` of one of `tokens`
    (UNAUTHENTICATED; the check is `accepted_token`, the HTTP server's too). The health
    service stays open so that load balancers can probe it."""

    def __init__(self, tokens: tuple[str, ...]):
        self._tokens = tokens

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        if handler is None or details.method.startswith(f"/{HEALTH_SERVICE}/"):
            return handler
        for key, value in details.invocation_metadata or ():
            if key == "authorization" and accepted_token(value, self._tokens) is not None:
                return handler
        return _deny(handler)


def _deny(handler):
    def abort(request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")

    kwargs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(abort, **kwargs)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(abort, **kwargs)
    if handler.stream_stream:
        return grpc.stream_stream_rpc_method_handler(abort, **kwargs)
    return grpc.unary_unary_rpc_method_handler(abort, **kwargs)


@dataclass
class RunningServer:
    """A started server: its port, the servicer and the health servicer."""

    server: grpc.Server
    port: int
    servicer: CouncilServicer
    health: health.HealthServicer
    config: ServerConfig
    http: HttpServer | None = None  # the HTTP (Connect) server, with config.http_address
    metrics: MetricsServer | None = None  # the metrics' own listener, with metrics_address
    game_store: GameStore | None = None  # the store start_server opened (--no-rewind)

    @property
    def address(self) -> str:
        host = self.config.address.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    @property
    def http_address(self) -> str | None:
        """host:port of the HTTP (Connect) server (the chosen port for port 0), or None."""
        return None if self.http is None else self.http.address

    @property
    def metrics_address(self) -> str | None:
        """host:port of the metrics' own listener (the chosen port for port 0), or None."""
        return None if self.metrics is None else self.metrics.address

    def stop(self, grace: float | None = None, hurry: threading.Event | None = None) -> None:
        """Stop within `grace` seconds (None: at once), answering what is in flight.

        1. Health turns NOT_SERVING, the HTTP port's ``/readyz`` 503; new searches get
           UNAVAILABLE (retry elsewhere; over gRPC the retry pushback says: once closed, step 4).
        2. For the grace period, less the deadline margin of a call with `grace` seconds
           left, the port stays open: health checks see NOT_SERVING (not a refused
           connection), cheap calls are answered, running searches go on and queued ones
           still get the slots they free. `hurry` (a second signal) cuts this short.
        3. Then queued searches get UNAVAILABLE and running ones are stopped: being anytime,
           each answers with its best action so far, sent within the margin left.
        4. The server closes its port; calls still open when the grace ends are cancelled.
        """
        start = time.monotonic()
        end = None if grace is None else start + grace
        drain_end = start + grace - self.config.deadline_margin(grace) if grace else start
        self.health.enter_graceful_shutdown()
        # A refused search is told to retry once the ports are closed (retry pushback): a
        # proxy in front, which cannot see health, then sends the retry to another replica.
        self.servicer.close_admission(retry_at=drain_end + PORTS_CLOSED_S)
        hurry = hurry or threading.Event()
        if grace:
            # Short waits: a second signal's handler runs only when this (main) thread runs
            # Python code, since the signal itself may land on one of gRPC's threads.
            while (rest := drain_end - time.monotonic()) > 0 and not hurry.wait(min(rest, 0.1)):
                pass
        self.servicer.close_admission(queued=True)
        self.servicer.cancel_all()
        if end is not None and hurry.is_set():
            # Stopped at once, but a stopped search's answer (its best action so far) still
            # needs a moment to be written and sent: without it gRPC cancels the call.
            end = min(end, time.monotonic() + HURRY_ANSWER_S)

        def left(spare: float = 0.0) -> float | None:
            """Seconds left of the grace, less `spare` (None: no grace at all)."""
            return None if end is None else max(end - time.monotonic() - spare, 0.0)

        self.servicer.wait_idle(left() or 0.0)  # the stopped searches' answers are on their way
        if self.http is not None:  # closes its port with the gRPC server's
            # uvicorn ticks every 0.1 s and pauses 0.1 s before waiting for its calls.
            self.http.shutdown(left(spare=HTTP_SHUTDOWN_TICKS_S))
        if self.metrics is not None:  # now: the drain could be watched to its end
            self.metrics.shutdown()  # (its uvicorn's ticks pass with the others')
        self.server.stop(left()).wait()
        if self.http is not None:
            self.http.wait(left() or 0.0)
        if self.metrics is not None:
            self.metrics.stop()
        if self.game_store is not None:  # after every call that could use it
            self.game_store.close()


def _credentials(config: ServerConfig):
    if not config.tls_cert and not config.tls_key:
        return None
    if not (config.tls_cert and config.tls_key):
        raise ValueError("TLS needs both a certificate and a key")
    cert = Path(config.tls_cert).read_bytes()
    key = Path(config.tls_key).read_bytes()
    return grpc.ssl_server_credentials([(key, cert)])


def start_server(config: ServerConfig | None = None) -> RunningServer:
    """Build and start a server from `config` (port 0 in the address picks a free one).

    With `no_rewind` and no `game_store_instance`, the store of `game_store` is opened here
    (GameStoreUnavailable if it cannot be reached: nothing listens then) and closed when
    the server stops."""
    config = config or ServerConfig()
    for entry in config.content:
        game, content_id, digest = use_content_file(entry)
        log.info("%s plays the content %r (digest %s)", game.display_name, content_id, digest)
    opened = None
    if config.no_rewind and config.game_store_instance is None:
        url = config.game_store or default_game_store_url()
        opened = open_game_store(url, ttl_s=config.seal_ttl_s)
        config = replace(config, game_store_instance=opened)
    if config.no_rewind:
        store = config.game_store_instance
        log.info("--no-rewind: a sealed game's older blobs are refused (%r)", store)
    try:
        running = _start(config)
    except BaseException:
        if opened is not None:
            opened.close()
        raise
    running.game_store = opened
    return running


def _start(config: ServerConfig) -> RunningServer:
    servicer = CouncilServicer(config)
    config = servicer.config
    interceptors: list[grpc.ServerInterceptor] = (
        [BearerTokenInterceptor(config.tokens)] if config.tokens else []
    )
    # Last, next to the handlers: an undecodable request becomes INVALID_ARGUMENT.
    interceptors.append(DecodeRequests(SERVICE_NAME))
    # First: every call is timed, counted and logged, those the token check refuses too.
    calls = CallLog(servicer.metrics, config.access_log)
    interceptors.insert(0, CallInterceptor(SERVICE_NAME, calls))
    server = grpc.server(
        # A thread per search slot and queue place, plus cheap_workers for the other calls:
        # admission keeps searches off the cheap calls' threads (ServerConfig.threads).
        futures.ThreadPoolExecutor(max_workers=config.threads, thread_name_prefix="council-rpc"),
        interceptors=interceptors,
        # Bounds only the calls waiting for a thread (call_backlog past the pool), well
        # above what searches can hold, so cheap calls are not refused because searches
        # are busy (ServerConfig.max_concurrent_rpcs says what bounds memory).
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        options=[
            ("grpc.max_receive_message_length", 1 << 20),
            ("grpc.so_reuseport", 0),
        ],
    )
    service_pb2_grpc.add_CouncilServiceServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer(
        experimental_non_blocking=True,
        experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=1),
    )
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable((SERVICE_NAME, HEALTH_SERVICE), server)  # v1 and v1alpha
    credentials = _credentials(config)
    if credentials is None:
        port = server.add_insecure_port(config.address)
    else:
        port = server.add_secure_port(config.address, credentials)
    if port == 0:
        raise OSError(f"cannot listen on {config.address}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    http = None
    try:  # the same RPCs over HTTP (Connect), on the same servicer
        http = start_http(servicer, config) if config.http_address else None
        metrics = start_metrics(servicer.metrics, config)
    except BaseException:
        if http is not None:
            http.shutdown(None)
            http.wait()
        server.stop(None)
        raise
    return RunningServer(server, port, servicer, health_servicer, config, http, metrics)


def is_loopback(address: str) -> bool:
    """Whether a listen address (``host:port``) is on this machine's loopback only.

    >>> is_loopback("127.0.0.1:50051"), is_loopback("[::1]:80"), is_loopback("0.0.0.0:80")
    (True, True, False)
    """
    return is_loopback_host(host_name(address))


def serve(config: ServerConfig, ready=None, exit_process: bool = False) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully. `ready(running)` is called
    once the server listens. With `exit_process` (``council-ai serve``) the process ends
    once the server has stopped, within `EXIT_SPARE_S` of the grace's end whatever still
    runs: Python's own exit (joining every pool's threads, collecting the heap) took up
    to 2 s more."""
    running = start_server(config)
    cfg = running.config
    for address in (cfg.address, cfg.http_address):
        if address is None or is_loopback(address) or (cfg.tls_cert and cfg.tokens):
            continue
        log.warning(
            "listening on %s without %s: anyone who can reach it can use it",
            address,
            " and ".join(
                x for x, on in (("TLS", cfg.tls_cert), ("a bearer token", cfg.tokens)) if not on
            ),
        )
    stopping, hurry = threading.Event(), threading.Event()

    def on_signal(signum, frame):
        (hurry if stopping.is_set() else stopping).set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        if ready is not None:
            ready(running)
        while not stopping.wait(0.1):  # a signal handler runs between two waits
            pass
        log.info(
            "shutting down: health NOT_SERVING, %.1f s grace for in-flight calls "
            "(signal again to stop at once)",
            cfg.grace_s,
        )
        if exit_process:
            threading.Thread(
                target=_exit_late, args=(cfg.grace_s, hurry), name="council-exit", daemon=True
            ).start()
        running.stop(grace=cfg.grace_s, hurry=hurry)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if exit_process:
        _exit(0)
    return 0


def _exit_late(grace: float, hurry: threading.Event) -> None:
    """End the process `EXIT_SPARE_S` after the grace (after `HURRY_ANSWER_S` once `hurry`
    is set) if it still runs then: a stop that overran (a thread that would not end)."""
    start = time.monotonic()
    end = start + grace + EXIT_SPARE_S
    while (now := time.monotonic()) < end:
        if hurry.wait(min(end - now, 0.05)):
            end = min(end, time.monotonic() + HURRY_ANSWER_S + EXIT_SPARE_S)
            hurry = threading.Event()  # seen: now only the time
    log.warning("still stopping %.1f s after the signal: exiting now", time.monotonic() - start)
    _exit(0)


def _exit(code: int) -> NoReturn:
    """End the process at once, its output and log lines written out."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
