"""The HTTP port's guard against clients that hold connections or trick the server: how long
reading a request may take, how many connections may be open, which requests are refused
outright, and which Host names the server answers (council.server.connect installs it).

uvicorn's h11 protocol reads a request for as long as its client cares to send it, accepts
any number of connections and lets ``Transfer-Encoding: chunked`` win over a
``Content-Length`` beside it. `guarded_protocol` makes its subclass for a `ServerConfig`:

- A request's head (request line and headers) must arrive within ``http_header_timeout_s``
  (``--header-timeout``), counted from the connection's opening for its first request and
  from the first byte of each later one; its body within ``http_body_timeout_s``
  (``--body-timeout``) of the end of the head, all of it (bodies here are one message of a
  few KB, at most 1 MiB: a total bounds a client trickling bytes, a time between reads
  would not). Past either, the client gets ``408 Request Timeout`` and the connection is
  closed; one that sent nothing yet (a browser's spare connection) is closed quietly.
  These bound the reading of a request only: its answer (a search, a long AnalyzePosition
  stream) takes what it takes.
- An idle kept-alive connection is closed after ``http_keep_alive_s``
  (``--keep-alive-timeout``, uvicorn's ``timeout_keep_alive``).
- Beyond ``max_http_connections_per_address`` (``--max-http-connections-per-address``)
  open connections from one client address, a new one from that address gets ``503
  Service Unavailable`` (with ``Retry-After``) at once and is closed, before anything of it
  is read; beyond ``max_http_connections`` (``--max-http-connections``) open connections
  in all, so does any new one. A connection held open is what an attack costs the server:
  the per-address cap keeps one address from taking every place, the global cap is the
  last line against many. Refusing the newcomers keeps the calls in progress served (a
  client that sent its request at once may see the connection reset instead). TLS
  handshakes in progress are not counted: asyncio bounds those (60 s). The process's open
  file limit is raised to fit the cap where the hard limit allows.
- A request with both ``Content-Length`` and ``Transfer-Encoding`` gets ``400`` and the
  connection is closed (RFC 9112 §6.3: a proxy in front that went by the other header
  would read the next request differently, request smuggling); so does a ``Content-Length``
  that is not a plain decimal number (``007``). h11's own refusals (a malformed line, a
  missing ``Host`` under HTTP/1.1, a head over 16 KiB) name what is wrong, with h11's
  status (400, 431 or 501). A request answered before its body arrived (a refusal from its
  headers) has the rest of its body read and dropped (uvicorn's), until the body timeout.
- A connection that ends before a request of it is complete is no call of the service:
  ``dropped`` (`guarded_protocol`) hears why, one of `DROP_REASONS` (the metrics'
  ``council_http_connections_dropped_total``).

`host_check` guards against DNS rebinding: a page of ``evil.example`` whose name is
re-pointed at 127.0.0.1 calls the server from the browser as its own origin, which CORS
does not stop, but its requests carry ``Host: evil.example``. On a loopback address the
server answers only the Host names ``localhost``, ``127.x.x.x`` and ``[::1]`` (any port), as
Jupyter does, plus those of ``allowed_hosts`` (``--allowed-hosts``; ``*``: any); on another
address any name, unless ``allowed_hosts`` is given (then those and the loopback names). A
request without Host (HTTP/1.0) is refused wherever names are checked. Others get ``403``
naming the flag: plain text, a Connect error (``permission_denied``) to a Connect call, with
``grpc-status: 7`` to a gRPC-Web one.

>>> [host_name(h) for h in ("LocalHost:8080", "[::1]:80", "127.0.0.1", "evil.example:1")]
['localhost', '::1', '127.0.0.1', 'evil.example']
>>> [is_loopback_host(h) for h in ("localhost", "127.3.2.1", "::1", "evil.example", "0.0.0.0")]
[True, True, True, False, False]
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

if TYPE_CHECKING:
    from council.server.config import ServerConfig

__all__ = [
    "DROP_REASONS",
    "guarded_protocol",
    "host_check",
    "host_name",
    "is_loopback_host",
]

log = logging.getLogger("council.server")

# Why a connection ended before a request of it was complete: its head or its body did not
# arrive in time, its address or the server had all the connections allowed open, or its
# client closed it midway.
DROP_REASONS = ("header_timeout", "body_timeout", "address_cap", "connection_cap", "client_left")
_REASON_LIMIT = 200  # characters of h11's reason for a refusal (it may quote the input)
_WARN_EVERY_S = 60.0  # the connection cap's warning, at most this often
_SPARE_FILES = 200  # files the process needs besides its HTTP connections (gRPC, modules)

# What a connection is waiting for, each with its own timer.
_HEAD = "head"  # a request's line and headers
_BODY = "body"  # the rest of a request's body
_IDLE = "idle"  # a next request on a kept-alive connection


def is_loopback_host(host: str) -> bool:
    """Whether a host name (no port, no brackets) is this machine's loopback one."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The name of a ``Host`` value (or of a listen address): lower case, without its port
    and an IPv6 address's brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    name, colon, port = value.rpartition(":")
    return name if colon and port.isdigit() else value


def _answer(status: int, text: str, headers: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole plain-text HTTP/1.1 answer that closes its connection."""
    body = (text + "\n").encode("ascii", "backslashreplace")
    head = [
        f"HTTP/1.1 {status} {STATUS_PHRASES[status].decode()}",
        "content-type: text/plain; charset=utf-8",
        f"content-length: {len(body)}",
        "connection: close",
        "x-content-type-options: nosniff",
        *(f"{name}: {value}" for name, value in headers),
    ]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


class _StrictConnection(h11.Connection):
    """h11's server side, which also refuses a request with both Content-Length and
    Transfer-Encoding (h11 lets chunked win) and keeps the reason of its last refusal."""

    refusal: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.refusal = error
            raise
        if isinstance(event, h11.Request):
            names = {name for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                self.refusal = h11.RemoteProtocolError(
                    "a request may not have both Content-Length and Transfer-Encoding"
                )
                raise self.refusal
            for name, value in event.headers:
                if name == b"content-length":
                    self._check_length(value)
        return event

    def _check_length(self, value: bytes) -> None:
        """Refuse a Content-Length that is not a plain decimal (h11 takes ``007``)."""
        shown = value[:40].decode("latin-1")
        if not _LENGTH.fullmatch(value):
            self.refusal = h11.RemoteProtocolError(
                f"Content-Length must be a decimal number without leading zeros, got {shown!r}"
            )
            raise self.refusal


_LENGTH = re.compile(rb"0|[1-9][0-9]*")


class _GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the request timeouts, the connection caps and the refusals
    of the module's docstring; `guarded_protocol` sets `limits`, `dropped` and
    `open_by_address` per server."""

    limits: ServerConfig
    dropped: Callable[[str], None]  # told why a connection ended without a whole request
    open_by_address: dict[str, int]  # this server's open connections of each client address
    last_warned: dict[str, float]  # when each cap was last logged (monotonic)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        size = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.conn = _StrictConnection(h11.SERVER, size)
        self._waiting_for: str | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._refused = False
        self._address: str | None = None  # its client's, once counted in open_by_address

    def connection_made(self, transport: Any) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        per_address = self.limits.max_http_connections_per_address
        cap = self.limits.max_http_connections
        if per_address and self.open_by_address.get(address, 0) >= per_address:
            self._refuse(
                transport,
                "address_cap",
                f"this address has {per_address} connections open, its limit "
                "(--max-http-connections-per-address)",
            )
            return
        if len(self.connections) >= cap:
            self._refuse(
                transport,
                "connection_cap",
                f"the server has {cap} connections open, its limit (--max-http-connections)",
            )
            return
        self._address = address
        self.open_by_address[address] = self.open_by_address.get(address, 0) + 1
        super().connection_made(transport)
        self._watch()

    def _refuse(self, transport: Any, reason: str, text: str) -> None:
        """Answer 503 and close, before reading anything (the caps)."""
        self._refused = True
        self.transport = transport
        self.dropped(reason)
        now = time.monotonic()
        if now - self.last_warned.get(reason, -_WARN_EVERY_S) >= _WARN_EVERY_S:
            self.last_warned[reason] = now
            log.warning("HTTP: refusing connections: %s", text)
        transport.write(_answer(503, text, (("retry-after", "1"),)))
        transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        waiting_for = self._waiting_for
        self._arm(None)
        if self._refused:
            return
        if self._address is not None:
            left = self.open_by_address.pop(self._address, 1) - 1
            if left > 0:
                self.open_by_address[self._address] = left
            self._address = None
        # A request begun and never finished (its client gave up or was cut off).
        if (waiting_for == _BODY and not self._answered()) or (
            waiting_for == _HEAD and self.conn.trailing_data[0]
        ):
            self.dropped("client_left")
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def send_400_response(self, msg: str) -> None:
        """A refused request (uvicorn says only "Invalid HTTP request received.")."""
        error = cast("_StrictConnection", self.conn).refusal
        if error is None:
            self._close_with(400, msg)
            return
        reason = str(error)
        if error.error_status_hint == 431:  # h11 says "Receive buffer too long"
            size = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
            reason = f"its head is over {size} bytes"
        if len(reason) > _REASON_LIMIT:
            reason = reason[:_REASON_LIMIT] + "..."
        self._close_with(error.error_status_hint, f"invalid HTTP request: {reason}")

    def _watch(self) -> None:
        """Arm the timer of what the connection now waits for from its client, if that
        changed (a timer goes on while the wait does: trickling bytes does not reset it)."""
        if self.transport.is_closing():
            self._arm(None)
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._arm(_BODY)
        elif state is not h11.IDLE:  # the request is read (or it is over): answering
            self._arm(None)
        elif self.cycle is None or self.conn.trailing_data[0]:
            self._arm(_HEAD)  # a new connection, or a next request has begun
        else:
            # uvicorn times an idle connection out too, but from the end of the answer, so
            # not one answered before its request's body had all arrived.
            self._arm(_IDLE)

    def _arm(self, waiting_for: str | None) -> None:
        if waiting_for == self._waiting_for:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting_for = waiting_for
        seconds = {
            _HEAD: self.limits.http_header_timeout_s,
            _BODY: self.limits.http_body_timeout_s,
            _IDLE: self.limits.http_keep_alive_s,
            None: None,
        }[waiting_for]
        if seconds is not None:
            self._timer = self.loop.call_later(seconds, self._timed_out)

    def _timed_out(self) -> None:
        self._timer = None
        waiting_for, self._waiting_for = self._waiting_for, None
        if self.transport.is_closing():
            return
        if waiting_for == _IDLE:
            self.transport.close()
        elif waiting_for == _HEAD:
            self.dropped("header_timeout")  # a browser's spare connection too, sent nothing
            if not self.conn.trailing_data[0]:
                self.transport.close()
                return
            seconds = self.limits.http_header_timeout_s
            self._close_with(408, f"the request's head took over {seconds:g} s (--header-timeout)")
        elif self._answered():  # answered without its body (a 401): no call is cut short
            self.transport.close()
        else:
            self.dropped("body_timeout")
            seconds = self.limits.http_body_timeout_s
            self._close_with(408, f"the request's body took over {seconds:g} s (--body-timeout)")

    def _answered(self) -> bool:
        """Whether the request whose body is being read has been answered already (a
        refusal that did not need its body)."""
        return self.cycle is not None and self.cycle.response_started

    def _close_with(self, status: int, text: str) -> None:
        """Answer `status` and close, or only close if an answer has begun already."""
        if self.cycle is not None and not self.cycle.response_complete:
            if self.cycle.response_started:
                self.transport.close()
                return
            # The call still waiting for its body ends (it reads a disconnect), and anything
            # it would send now is dropped rather than written after this answer.
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.transport.write(_answer(status, text))
        self.transport.close()


def guarded_protocol(
    limits: ServerConfig, dropped: Callable[[str], None] = lambda reason: None
) -> type[H11Protocol]:
    """The protocol class (uvicorn.Config's ``http``) of a server with these limits;
    `dropped` is told why each connection that ended without a whole request did (one of
    `DROP_REASONS`), in the server's event loop."""
    _make_room_for(limits.max_http_connections + _SPARE_FILES)
    fields = {"limits": limits, "dropped": staticmethod(dropped)}
    return type(
        "GuardedProtocol", (_GuardedProtocol,), {**fields, "open_by_address": {}, "last_warned": {}}
    )


def _make_room_for(files: int) -> None:
    """Raise the process's open file limit (``ulimit -n``, often 1024) to `files` if it is
    lower and the hard limit allows, as Go's runtime does; warn if it cannot: past it, new
    connections would wait unanswered instead of getting the cap's 503."""
    try:
        import resource
    except ImportError:  # not on Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= files:
        return
    wanted = files if hard == resource.RLIM_INFINITY else min(files, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    if soft < files:
        log.warning(
            "the open file limit (%d, ulimit -n) is under what --max-http-connections needs "
            "(%d): past it, new connections wait unanswered",
            soft,
            files,
        )


class _HostCheck:
    """ASGI middleware: answers 403 to a request whose Host is not an allowed name."""

    def __init__(self, app: Any, names: frozenset[str]):
        self.app = app
        self.names = names

    def admits(self, host: bytes | None) -> bool:
        if host is None:  # HTTP/1.0 (h11 refuses a 1.1 request without it)
            return False
        name = host_name(host.decode("latin-1"))
        return name in self.names or is_loopback_host(name)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = next((value for key, value in scope["headers"] if key == b"host"), None)
        if self.admits(host):
            return await self.app(scope, receive, send)
        shown = "A request without Host"
        if host is not None:
            shown = f"Host {host[:100].decode('latin-1')!r}"
        allowed = ", ".join(("localhost", "127.x.x.x", "[::1]", *sorted(self.names)))
        text = f"{shown} is not served here, only {allowed} (serve --allowed-hosts admits more)"
        kind = next((v for k, v in scope["headers"] if k == b"content-type"), b"").lower()
        headers = [(b"connection", b"close"), (b"x-content-type-options", b"nosniff")]
        if kind.startswith(b"application/grpc-web"):
            # What a gRPC-Web client reads first: PERMISSION_DENIED (its 403 says as much).
            headers += [(b"grpc-status", b"7"), (b"grpc-message", quote(text).encode())]
        if kind.startswith((b"application/json", b"application/proto", b"application/connect")):
            body = json.dumps({"code": "permission_denied", "message": text}).encode()
            headers.append((b"content-type", b"application/json"))
        else:
            body = (text + "\n").encode()
            headers.append((b"content-type", b"text/plain; charset=utf-8"))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def host_check(app: Any, config: ServerConfig) -> Any:
    """`app` behind the Host check of ``config`` (module docstring); `app` itself when any
    Host is allowed."""
    listed = config.allowed_hosts
    loopback = is_loopback_host(host_name(config.http_address or ""))
    if (listed is not None and "*" in listed) or (listed is None and not loopback):
        return app
    # The loopback names stay allowed with a list: this machine's own clients use them.
    return _HostCheck(app, frozenset(host_name(name) for name in listed or ()))
