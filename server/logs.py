"""Each call's request id, access log line and metrics, and the process's log format.

Every call of the service, over gRPC (`CallInterceptor`) or the HTTP port (`HttpCalls`:
Connect and gRPC-Web), is timed from its arrival to its answer and ends in
`CallLog.end`: the server's metrics count it (`council.server.metrics`) and, with
``access_log`` (``council-ai serve``'s default), one line is logged on
``council.server.access``: the RPC, the transport, the status code, the milliseconds taken,
the caller (admission's key: a keyed hash of the bearer token, else the client's
connection; never the token) and the request id. Nothing of the request's content is
logged: no position, hand, seed or token.

The request id is the call's ``x-request-id`` (gRPC metadata or HTTP header) when it is
printable ASCII without spaces of at most `MAX_REQUEST_ID_CHARS` characters, else a fresh
random one; the answer carries it back in its ``x-request-id`` header (gRPC: initial
metadata, sent as the call starts). Lines logged while a call is handled carry its fields
too (`CallFields`).

``serve --log-format json`` writes one JSON object per line (`JsonFormatter`), ``text``
(the default) the lines as before, an access line's fields after its message:

>>> import logging
>>> record = logging.LogRecord("council.server.access", logging.INFO, "", 0,
...     "GetEngineInfo OK", None, None)
>>> record.created = 0.0
>>> record.__dict__.update(rpc="GetEngineInfo", transport="grpc", status="OK",
...     duration_ms=1.25, caller="token:0a1b", request_id="r-1")
>>> print(JsonFormatter().format(record))  # doctest: +NORMALIZE_WHITESPACE
{"time": "1970-01-01T00:00:00.000Z", "level": "INFO", "logger": "council.server.access",
 "message": "GetEngineInfo OK", "rpc": "GetEngineInfo", "transport": "grpc",
 "status": "OK", "duration_ms": 1.25, "caller": "token:0a1b", "request_id": "r-1"}
>>> valid_request_id("abc-123"), len(valid_request_id("has space")), len(valid_request_id(None))
('abc-123', 32, 32)
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import sys
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import grpc

from council.server.admission import caller_of
from council.server.metrics import RPCS, Metrics

__all__ = [
    "ACCESS_LOGGER",
    "LOG_FORMATS",
    "REQUEST_ID_HEADER",
    "CallInterceptor",
    "CallLog",
    "HttpCalls",
    "JsonFormatter",
    "configure",
    "log_handler",
    "valid_request_id",
]

ACCESS_LOGGER = "council.server.access"
REQUEST_ID_HEADER = "x-request-id"
MAX_REQUEST_ID_CHARS = 128
LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(name)s %(message)s"  # the process's lines before --log-format
# What a client's request id may hold: printable ASCII without spaces (a log line's field).
_REQUEST_ID = re.compile(rf"[!-~]{{1,{MAX_REQUEST_ID_CHARS}}}")
# A call's fields, in a JSON line's order after time, level, logger and message.
FIELDS = ("rpc", "transport", "status", "duration_ms", "caller", "request_id")
_ERROR_BODY_BYTES = 1 << 16  # of a failed Connect call's body, read for its code

access_log = logging.getLogger(ACCESS_LOGGER)


def valid_request_id(given: str | bytes | None) -> str:
    """`given` if it is a valid request id, else a fresh random one (32 hex digits)."""
    if isinstance(given, bytes):
        given = given.decode("latin-1")
    if given is not None and _REQUEST_ID.fullmatch(given):
        return given
    return secrets.token_hex(16)


@dataclass
class _Call:
    rpc: str
    transport: str
    request_id: str
    caller: str
    start: float  # time.perf_counter()


# The call being handled (its thread's, or its asyncio task's and the threads it runs in).
_CURRENT: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "council_call", default=None
)


class CallLog:
    """One server's ending of calls: its metrics, and its access log if `access` is set."""

    def __init__(self, metrics: Metrics, access: bool):
        self.metrics = metrics
        self.access = access

    def begin(self, rpc: str, transport: str, request_id: str, caller: str) -> _Call:
        call = _Call(rpc, transport, request_id, caller, time.perf_counter())
        _CURRENT.set(call)
        return call

    def forget(self, call: _Call) -> None:
        """Drop a call begun that turned out to be none (its request never arrived whole)."""
        _CURRENT.set(None)

    def end(self, call: _Call, code: str) -> None:
        seconds = time.perf_counter() - call.start
        _CURRENT.set(None)
        self.metrics.record_call(call.rpc, call.transport, code, seconds)
        if self.access:
            access_log.info(
                "%s %s %s %.1f ms",
                call.rpc,
                call.transport,
                code,
                seconds * 1000,
                extra={
                    "rpc": call.rpc,
                    "transport": call.transport,
                    "status": code,
                    "duration_ms": round(seconds * 1000, 3),
                    "caller": call.caller,
                    "request_id": call.request_id,
                },
            )


# -- gRPC ----------------------------------------------------------------------------------
class CallInterceptor(grpc.ServerInterceptor):
    """Times and ends (`CallLog`) every call of the methods of `service`, and sends its
    request id back in the call's trailers; first of the server's interceptors, so that calls
    refused by the token check count too."""

    def __init__(self, service: str, calls: CallLog):
        self._prefix = f"/{service}/"
        self._calls = calls
        self._handlers: dict[str, tuple[Any, Any]] = {}

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        method = details.method
        if handler is None or not method.startswith(self._prefix):
            return handler
        rpc = method[len(self._prefix) :]
        if rpc not in RPCS or handler.stream_unary or handler.stream_stream:
            return handler  # the service has no client streams
        cached = self._handlers.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        kwargs = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_stream:
            wrapped = grpc.unary_stream_rpc_method_handler(
                self._streaming(rpc, handler.unary_stream), **kwargs
            )
        else:
            wrapped = grpc.unary_unary_rpc_method_handler(
                self._unary(rpc, handler.unary_unary), **kwargs
            )
        self._handlers[method] = (handler, wrapped)
        return wrapped

    def _begin(self, rpc: str, context) -> _Call:
        given = next(
            (v for k, v in context.invocation_metadata() or () if k == REQUEST_ID_HEADER), None
        )
        request_id = valid_request_id(given)
        # A trailer, not a header: a client that has received headers takes the call as
        # begun and never retries it (gRFC A6), so a draining replica's UNAVAILABLE must
        # come back trailers-only. `errors.rpc` keeps it when it sets an error's trailers.
        context.set_trailing_metadata(((REQUEST_ID_HEADER, request_id),))
        return self._calls.begin(rpc, "grpc", request_id, caller_of(context))

    def _unary(self, rpc: str, behavior):
        def unary(request, context):
            call = self._begin(rpc, context)
            failed = True
            try:
                response = behavior(request, context)
                failed = False
                return response
            finally:
                self._calls.end(call, _grpc_code(context, failed))

        return unary

    def _streaming(self, rpc: str, behavior):
        def streaming(request, context):
            call = self._begin(rpc, context)
            failed = True
            try:
                yield from behavior(request, context)
                failed = False
            finally:  # a client that leaves closes the stream (GeneratorExit)
                self._calls.end(call, _grpc_code(context, failed))

        return streaming


def _grpc_code(context, failed: bool) -> str:
    """The status code of a gRPC call whose handler has just ended (`failed`: raising)."""
    code = context.code()  # set by abort()
    if code is not None and code != grpc.StatusCode.OK:
        return code.name
    if not context.is_active():  # its client left, or its deadline passed
        left = context.time_remaining()
        return "DEADLINE_EXCEEDED" if left is not None and left <= 0 else "CANCELLED"
    return "UNKNOWN" if failed else "OK"


# -- HTTP ----------------------------------------------------------------------------------
class _HeaderContext:
    """What `caller_of` reads of a call, for an HTTP request."""

    def __init__(self, headers, client: tuple[str, int] | None):
        self._headers = headers
        self._client = client

    def invocation_metadata(self):
        return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in self._headers]

    def peer(self) -> str:
        from council.server.connect import grpc_peer  # connect imports this module

        return grpc_peer(f"{self._client[0]}:{self._client[1]}" if self._client else None)


class HttpCalls:
    """ASGI middleware of the HTTP port: times and ends (`CallLog`) every call of the
    methods of `service`, Connect's and gRPC-Web's (binary: it sits inside the text form's
    decoding), its code read from the answer, and adds its request id to the answer's
    headers. A request whose body was being read when its connection ended is no call: the
    HTTP port's guard counts it (`council.server.http_guard`)."""

    def __init__(self, app: Any, service: str, calls: CallLog):
        self.app = app
        self._prefix = f"/{service}/"
        self._calls = calls

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        rpc = path[len(self._prefix) :] if path.startswith(self._prefix) else None
        if rpc not in RPCS:
            return await self.app(scope, receive, send)
        headers = scope.get("headers", ())
        content_type = next((v for k, v in headers if k == b"content-type"), b"").lower()
        transport = "grpc-web" if content_type.startswith(b"application/grpc-web") else "connect"
        given = next((v for k, v in headers if k == REQUEST_ID_HEADER.encode()), None)
        request_id = valid_request_id(given)
        caller = caller_of(_HeaderContext(headers, scope.get("client")))
        call = self._calls.begin(rpc, transport, request_id, caller)
        answer = _Answer()
        ended = received = cut_off = False

        def end() -> None:
            nonlocal ended
            if not ended:
                ended = True
                if cut_off:
                    # Its request never arrived whole (its client left, or the guard cut it
                    # off): no call, counted by the guard (council_http_connections_dropped).
                    self._calls.forget(call)
                else:
                    self._calls.end(call, answer.code())

        async def observed_receive():
            nonlocal received, cut_off
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                received = True
            elif message["type"] == "http.disconnect" and not received:
                cut_off = True
            return message

        async def observed_send(message):
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", ()),
                        (REQUEST_ID_HEADER.encode(), request_id.encode()),
                    ],
                }
                answer.start(message)
            elif message["type"] == "http.response.body":
                answer.body(message.get("body", b""))
                if not message.get("more_body", False):
                    end()  # before the client has the answer's end: it sees the call counted
            await send(message)

        try:
            await self.app(scope, observed_receive, observed_send)
        finally:
            end()


class _Answer:
    """What an HTTP call's answer says of its status code: its HTTP status and headers, and
    the body's last piece (a stream's end message) or, for a failed unary call, its JSON."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[bytes, bytes] = {}
        self.last = b""
        self.error_body = bytearray()

    def start(self, message) -> None:
        self.status = message["status"]
        self.headers = {k.lower(): v for k, v in message.get("headers", ())}

    def body(self, data: bytes) -> None:
        if data:
            self.last = data
        if self.status != 200 and len(self.error_body) < _ERROR_BODY_BYTES:
            self.error_body += data[: _ERROR_BODY_BYTES - len(self.error_body)]

    def code(self) -> str:
        if self.status is None:  # nothing was answered: the client left
            return "CANCELLED"
        if b"grpc-status" in self.headers:  # gRPC-Web's trailers-only answer
            return _code_of_number(self.headers[b"grpc-status"])
        kind = self.headers.get(b"content-type", b"").lower()
        if kind.startswith(b"application/grpc-web"):
            trailers = _envelope(self.last, 0x80)
            match = re.search(rb"(?im)^grpc-status:\s*(\d+)", trailers or b"")
            return _code_of_number(match.group(1)) if match else "UNKNOWN"
        if kind.startswith(b"application/connect+"):
            end = _envelope(self.last, 0x02)
            if end is None:
                return "UNKNOWN"
            return _code_of_connect(_json(end).get("error"))
        if self.status == 200:
            return "OK"
        return _code_of_connect(_json(bytes(self.error_body)), self.status)


def _json(data: bytes) -> dict:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _envelope(data: bytes, flag: int) -> bytes | None:
    """The payload of the last message of `data` (enveloped: a flags byte, a 4-byte length)
    whose flags have `flag` (a stream's end), inflated if compressed (gzip, the only
    compression the server has), or None."""
    found, pos = None, 0
    while pos + 5 <= len(data):
        size = int.from_bytes(data[pos + 1 : pos + 5], "big")
        if data[pos] & flag:
            found = data[pos + 5 : pos + 5 + size]
            if data[pos] & 0x01:
                try:
                    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    found = inflater.decompress(found, _ERROR_BODY_BYTES)
                except zlib.error:
                    found = None
        pos += 5 + size
    return found


_CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


def _code_of_number(number: bytes) -> str:
    """The name of a gRPC status code's number (grpc-status)."""
    try:
        return _CODE_NAMES.get(int(number), "UNKNOWN")
    except ValueError:
        return "UNKNOWN"


# The code of an HTTP answer without a Connect error in its body.
_HTTP_CODES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "UNIMPLEMENTED",
    405: "UNIMPLEMENTED",
    408: "DEADLINE_EXCEEDED",
    413: "RESOURCE_EXHAUSTED",
    415: "UNIMPLEMENTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _code_of_connect(error: Any, status: int | None = None) -> str:
    """The gRPC code name of a Connect error ({"code": "invalid_argument", ...}); a stream's
    end without one is OK, an HTTP error without one is read from its `status`."""
    name = error.get("code") if isinstance(error, dict) else None
    if isinstance(name, str) and name:
        name = "CANCELLED" if name == "canceled" else name.upper()
        return name if name in grpc.StatusCode.__members__ else "UNKNOWN"
    if status is None:
        return "OK" if error is None else "UNKNOWN"
    return _HTTP_CODES.get(status, "INTERNAL" if status >= 500 else "UNKNOWN")


# -- the process's log lines ---------------------------------------------------------------
class CallFields(logging.Filter):
    """Adds the fields of the call being handled to a record that has none."""

    def filter(self, record: logging.LogRecord) -> bool:
        call = _CURRENT.get()
        if call is not None and not hasattr(record, "request_id"):
            record.rpc = call.rpc
            record.transport = call.transport
            record.caller = call.caller
            record.request_id = call.request_id
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (RFC 3339, UTC), level, logger, message, the call's
    fields it has (`FIELDS`), and an exception's traceback."""

    def format(self, record: logging.LogRecord) -> str:
        time_ = datetime.fromtimestamp(record.created, timezone.utc)
        line: dict[str, Any] = {
            "time": time_.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            if hasattr(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=True)


class TextFormatter(logging.Formatter):
    """The process's text lines (`TEXT_FORMAT`), a call's caller and request id after the
    message of a line logged while it is handled."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if hasattr(record, "request_id"):
            text += f" (caller {getattr(record, 'caller', '')}, request {record.request_id})"
        return text


def log_handler(log_format: str = "text", stream=None) -> logging.Handler:
    """A handler writing `stream` (stderr) in `log_format` (`LOG_FORMATS`)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format: {log_format!r}, expected one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler.addFilter(CallFields())
    return handler


def configure(log_format: str = "text") -> None:
    """The process's logging for ``council-ai serve``: INFO and above to stderr, in
    `log_format` (as `logging.basicConfig`: nothing changes if the root logger has a
    handler already)."""
    logging.basicConfig(level=logging.INFO, handlers=[log_handler(log_format)])
