"""The service over HTTP, for browsers and other front-ends: the Connect protocol and
gRPC-Web (connect-python), served by uvicorn beside the gRPC server and calling the same
servicer.

``council.v1.service_connect`` is generated at build time by connect-python's protoc plugin
(``setup.py``'s ``generate_stubs``, next to the gRPC stubs). Its ASGI application reads a
call, ``POST /council.v1.CouncilService/<Method>``, and picks the protocol by the request's
Content-Type: gRPC-Web for ``application/grpc-web`` and ``application/grpc-web+proto`` or
``+json``, Connect for the others (``application/json``, ``application/proto``,
``application/connect+json|proto``). gRPC-Web's text form (``application/grpc-web-text``,
base64) is the binary form re-encoded by `_GrpcWebText`. Either way this module hands the
request to the very `CouncilServicer` method that gRPC calls, in a thread (a search blocks),
with a `CallContext` in place of the ``grpc.ServicerContext``: the deadline is the
``Connect-Timeout-Ms`` (``grpc-timeout``) header, the peer is the client's connection, the
call is cancelled when its client goes away, and ``abort``/``abort_with_status`` raise a
``ConnectError`` with the code, message and ``google.rpc.BadRequest`` details that a gRPC
client gets (gRPC-Web sends them as gRPC does, ``grpc-status-details-bin``). The bearer
tokens and TLS of the gRPC server apply here too, the token checked from the headers
before any body is read (`_Application`); a request is 1 MiB at most, inflated or not
(`_CappedGzip`); CORS lets browser pages of the allowed origins call it.

>>> import json, urllib.request
>>> from council.server.app import start_server
>>> from council.server.config import ServerConfig
>>> from council.engine.games import default_game
>>> running = start_server(ServerConfig(address="127.0.0.1:0", http_address="127.0.0.1:0"))
>>> call = urllib.request.Request(
...     f"http://{running.http_address}/council.v1.CouncilService/GetEngineInfo",
...     data=b"{}", headers={"Content-Type": "application/json"})
>>> with urllib.request.urlopen(call) as answer:
...     json.load(answer)["stateFormat"] == default_game().state_format
True
>>> running.stop(grace=None)
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import contextvars
import logging
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import grpc
import uvicorn
from connectrpc._compression import IdentityCompression
from connectrpc._protocol import ConnectWireError
from connectrpc._protocol_server import negotiate_server_protocol
from connectrpc.code import Code
from connectrpc.compression.gzip import GzipCompression
from connectrpc.errors import ConnectError
from connectrpc.request import Headers, RequestContext
from google.protobuf import any_pb2, json_format
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from starlette.middleware.cors import CORSMiddleware

from council.server.config import ServerConfig, accepted_token
from council.server.errors import bounded_violations
from council.server.http_guard import guarded_protocol, host_check
from council.server.logs import CallLog, HttpCalls
from council.server.metrics import metrics_endpoint
from council.server.service import SERVICE_NAME, CouncilServicer
from council.v1 import service_pb2 as spb
from council.v1.service_connect import CouncilServiceASGIApplication

if TYPE_CHECKING:
    from council.v1.service_connect import CouncilService

__all__ = ["LOOPBACK_ORIGINS", "CallContext", "HttpServer", "connect_code", "grpc_peer"]

log = logging.getLogger("council.server")

MAX_REQUEST_BYTES = 1 << 20  # as the gRPC server's grpc.max_receive_message_length
# A request refused as too large whose body is at most this is read (and dropped) first, up
# to MAX_REQUEST_BYTES and a last chunk (the calls' reader stops there).
DISCARDED_BODY_BYTES = 2 * MAX_REQUEST_BYTES
# The origins allowed by default (ServerConfig.cors_origins None): pages served from this
# machine, on any port (a front-end's development server).
LOOPBACK_ORIGINS = r"https?://(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?"
# What a browser may send and read across origins: the headers of the Connect protocol
# (and gRPC-Web's, for its clients), and the bearer token.
_CORS_REQUEST_HEADERS = (
    "Authorization",
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Grpc-Timeout",
    "X-Grpc-Web",
    "X-User-Agent",
    "X-Request-Id",  # council.server.logs
)
_CORS_RESPONSE_HEADERS = (
    "Grpc-Status",
    "Grpc-Message",
    "Grpc-Status-Details-Bin",
    "X-Request-Id",
)
_GRPC_WEB_TEXT = b"application/grpc-web-text"
_ECHO_LIMIT = 500  # characters of a decoding error's message (it may quote the input)
_END = object()
_GRPC_DETAILS_KEY = "grpc-status-details-bin"  # where grpc_status.rpc_status puts the Status
# A Connect JSON error reply at most (its message, code and details), and the byte budgets of
# its violations tried in turn to fit it, down to only the one counting those left out.
MAX_JSON_ERROR_BYTES = 4500
_DETAIL_BUDGETS = (1600, 1000, 700, 0)

# The HTTP call being served, set by `_CallTracker` for the handlers below it.
_CURRENT_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("council_http_call")


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same names, bar one spelling).

    >>> connect_code(grpc.StatusCode.INVALID_ARGUMENT), connect_code(grpc.StatusCode.CANCELLED)
    (<Code.INVALID_ARGUMENT: 'invalid_argument'>, <Code.CANCELED: 'canceled'>)
    """
    return Code.CANCELED if code == grpc.StatusCode.CANCELLED else Code[code.name]


class _Call:
    """One HTTP call's life: it ends when its answer is sent, its client goes away or its
    deadline passes; then the callbacks run (as gRPC runs them when a call ends)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], Any]] | None = []

    @property
    def active(self) -> bool:
        return self._callbacks is not None

    def add_callback(self, callback: Callable[[], Any]) -> bool:
        with self._lock:
            if self._callbacks is None:
                return False
            self._callbacks.append(callback)
            return True

    def end(self) -> None:
        with self._lock:
            callbacks, self._callbacks = self._callbacks or [], None
        for callback in callbacks:
            try:
                callback()
            except Exception:
                log.exception("a callback of an HTTP call failed")


class CallContext:
    """What the servicer uses of a ``grpc.ServicerContext``, for a call over HTTP."""

    def __init__(self, request: RequestContext, call: _Call):
        self._request = request
        self._call = call

    def time_remaining(self) -> float | None:
        """Seconds left before the call's deadline (``Connect-Timeout-Ms``), None without."""
        left_ms = self._request.timeout_ms()
        return None if left_ms is None else max(left_ms / 1000.0, 0.0)

    def is_active(self) -> bool:
        return self._call.active

    def add_callback(self, callback: Callable[[], Any]) -> bool:
        """Run `callback` when the call ends; False (and not run) if it has ended already."""
        return self._call.add_callback(callback)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._request.request_headers().allitems())

    def peer(self) -> str:
        """The client's connection as gRPC names a peer (``ipv4:127.0.0.1:54321``): the
        key search admission is fair by (`council.server.admission.caller_of`)."""
        return grpc_peer(self._request.client_address())

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        """None set here: the HTTP answer's request id is a header (`logs.HttpCalls`)."""
        return ()

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        raise ConnectError(connect_code(code), details)

    def abort_with_status(self, status: grpc.Status) -> NoReturn:
        """Raise the Connect error of a rich gRPC status: its google.rpc.Status details
        (the BadRequest) become the error's details."""
        rich = status_pb2.Status()
        for key, value in status.trailing_metadata or ():
            if key == _GRPC_DETAILS_KEY and isinstance(value, bytes):
                rich.ParseFromString(value)
        code = connect_code(status.code)
        raise ConnectError(code, *_fitting(code, status.details, list(rich.details)))


def _fitting(code: Code, message: str, details: list) -> tuple[str, list]:
    """An error's message and details, cut so that its Connect JSON reply stays within
    `MAX_JSON_ERROR_BYTES` (docs/service.md promises under 5 KB): that reply carries each
    detail twice (base64 and its JSON ``debug`` form, non-ASCII escaped six bytes a
    character), so its BadRequest lists fewer violations when needed (`bounded_violations`
    with a smaller budget, the last one counting those left out), and last, the message
    is shortened."""

    def size() -> int:
        return len(ConnectWireError(code, message, details).to_json_bytes())

    bad = [i for i, d in enumerate(details) if d.Is(error_details_pb2.BadRequest.DESCRIPTOR)]
    if bad and size() > MAX_JSON_ERROR_BYTES:
        request = error_details_pb2.BadRequest()
        details[bad[0]].Unpack(request)
        pairs = [(v.field, v.description) for v in request.field_violations]
        for budget in _DETAIL_BUDGETS:
            fitted = error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                    for f, d in bounded_violations(pairs, budget)
                ]
            )
            details[bad[0]] = any_pb2.Any()
            details[bad[0]].Pack(fitted)
            if size() <= MAX_JSON_ERROR_BYTES:
                break
    while size() > MAX_JSON_ERROR_BYTES and len(message) > 40:
        message = message[: len(message) * 3 // 4] + "…"
    return message, details


class _Bridge:
    """connect-python's service protocol (a coroutine or async generator per method,
    snake_case) over a CouncilServicer: every method of the service descriptor, each run in
    `executor`'s threads."""

    def __init__(self, servicer: CouncilServicer, executor: ThreadPoolExecutor):
        self._executor = executor
        for method in spb.DESCRIPTOR.services_by_name["CouncilService"].methods:
            handler = getattr(servicer, method.name)
            wrap = self._streaming if method.server_streaming else self._unary
            setattr(self, _snake(method.name), wrap(handler))

    def _context(self, request: RequestContext) -> tuple[CallContext, asyncio.TimerHandle | None]:
        # The bearer token was checked before the request was read (`_Application._refusal`).
        call = _CURRENT_CALL.get(None) or _Call()
        context = CallContext(request, call)
        left = context.time_remaining()
        timer = None if left is None else asyncio.get_running_loop().call_later(left, call.end)
        return context, timer

    def _unary(self, handler):
        async def unary(request, ctx: RequestContext):
            context, timer = self._context(ctx)
            with _call_scope(context, timer):
                loop = asyncio.get_running_loop()
                # In the call's context: its lines carry its request id (council.server.logs).
                run = contextvars.copy_context().run
                return await loop.run_in_executor(self._executor, run, handler, request, context)

        return unary

    def _streaming(self, handler):
        async def streaming(request, ctx: RequestContext):
            context, timer = self._context(ctx)
            responses: Iterator = handler(request, context)
            try:
                # Ending the call also stops the search of a stream its client left.
                with _call_scope(context, timer):
                    loop = asyncio.get_running_loop()
                    context_ = contextvars.copy_context()  # as `_unary`'s

                    def step() -> Any:
                        return context_.run(next, responses, _END)

                    while True:
                        response = await loop.run_in_executor(self._executor, step)
                        if response is _END:
                            break
                        yield response
            finally:
                with contextlib.suppress(ValueError):  # ValueError: a thread still runs it
                    cast("Any", responses).close()

        return streaming


def grpc_peer(address: str | None) -> str:
    """gRPC's name of a peer for connect-python's client address (``host:port``); ``""``
    when there is none (the key every call without one shares).

    >>> grpc_peer("127.0.0.1:54321"), grpc_peer("::1:54321"), grpc_peer(None)
    ('ipv4:127.0.0.1:54321', 'ipv6:%5B::1%5D:54321', '')
    """
    if not address:
        return ""
    host, _, port = address.rpartition(":")
    return f"ipv6:%5B{host}%5D:{port}" if ":" in host else f"ipv4:{host}:{port}"


def _check_deadline(context: CallContext) -> None:
    if context.time_remaining() == 0.0:
        raise ConnectError(Code.DEADLINE_EXCEEDED, "the call's deadline passed")


@contextlib.contextmanager
def _call_scope(context: CallContext, timer: asyncio.TimerHandle | None) -> Iterator[None]:
    """One call's handling: a call that ends (normally or with an error reply) after its
    deadline answers DEADLINE_EXCEEDED; the deadline timer is cancelled and the call ended
    (which stops its search) however it ends."""
    try:
        yield
        _check_deadline(context)
    except ConnectError:
        _check_deadline(context)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        context._call.end()


def _snake(name: str) -> str:
    """connect-python's method attribute name: ``GetEngineInfo`` -> ``get_engine_info``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# What a JSON text that is not an object is, by its first character.
_JSON_KINDS = {
    b"[": "an array",
    b'"': "a string",
    b"n": "null",
    b"t": "true",
    b"f": "false",
    **{bytes([c]): "a number" for c in b"-0123456789"},
}


class _StrictCodec:
    """A codec of connect-python's whose decoding errors are INVALID_ARGUMENT (connect-python
    answers UNKNOWN), their message cut to `_ECHO_LIMIT` characters (it may quote input)."""

    def __init__(self, codec):
        self._codec = codec

    def name(self) -> str:
        return self._codec.name()

    def encode(self, message) -> bytes:
        return self._codec.encode(message)

    def decode(self, data, message):
        name = message.DESCRIPTOR.full_name
        if self._codec.name() == "json":
            # protobuf's JSON parser takes `[]` (or `""`) for an empty message.
            start = bytes(data[:64]).lstrip(b" \t\r\n")[:1]
            if start != b"{":
                kind = _JSON_KINDS.get(start, "not JSON") if start else "empty"
                raise ConnectError(
                    Code.INVALID_ARGUMENT,
                    f"not a valid {name}: a JSON request must be an object ({{...}}), got {kind}",
                )
        try:
            return self._codec.decode(data, message)
        except (json_format.ParseError, DecodeError, UnicodeDecodeError) as error:
            problem = str(error)
            if len(problem) > _ECHO_LIMIT:
                problem = (
                    f"{problem[:_ECHO_LIMIT]}... ({len(problem) - _ECHO_LIMIT} more characters)"
                )
            raise ConnectError(Code.INVALID_ARGUMENT, f"not a valid {name}: {problem}") from None


class _CappedGzip(GzipCompression):
    """connect-python's gzip, whose inflating stops at `limit` bytes. Everything
    connect-python 0.9 inflates goes through `decompress`: a unary body by its
    Content-Encoding (`_read_post_request`), a GET's ``compression`` parameter
    (`_read_get_request`), and each message of a stream (Connect's, gRPC-Web's) by its
    Connect-Content-Encoding or grpc-encoding (``EnvelopeReader``). Its own gzip inflates a
    message whole before its size check, 1 GiB for a 1 MB body of zeros; this one refuses
    (RESOURCE_EXHAUSTED) on the byte past the limit, and corrupt data is INVALID_ARGUMENT.

    >>> gzip = _CappedGzip(limit=1000)
    >>> gzip.decompress(gzip.compress(b"x" * 1000) + gzip.compress(b"")) == b"x" * 1000
    True
    >>> gzip.decompress(gzip.compress(b"x" * 1001))
    Traceback (most recent call last):
    connectrpc.errors.ConnectError: the request's message is larger than 1000 bytes once inflated
    >>> gzip.decompress(b"plain")
    Traceback (most recent call last):
    connectrpc.errors.ConnectError: the request's gzip data is not valid: ...
    """

    def __init__(self, limit: int = MAX_REQUEST_BYTES):
        super().__init__()
        self._limit = limit

    def decompress(self, data: bytes | bytearray | memoryview) -> bytes:
        pieces: list[bytes] = []
        size = 0
        rest = bytes(data)
        try:
            while True:  # a gzip member each turn (a body may hold several, one after another)
                inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # 16: gzip's header
                while not inflater.eof:
                    piece = inflater.decompress(rest, self._limit + 1 - size)
                    moved = bool(piece) or len(inflater.unconsumed_tail) < len(rest)
                    rest = inflater.unconsumed_tail
                    pieces.append(piece)
                    size += len(piece)
                    if size > self._limit:
                        problem = f"larger than {self._limit} bytes once inflated"
                        raise ConnectError(
                            Code.RESOURCE_EXHAUSTED, f"the request's message is {problem}"
                        )
                    if not moved:
                        raise zlib.error("the data ends before its gzip stream does")
                rest = inflater.unused_data
                if not rest:
                    return b"".join(pieces)
        except zlib.error as error:
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the request's gzip data is not valid: {error}"
            ) from None


class _NamedStreamCompression:
    """A stream protocol of connect-python's (Connect's, gRPC-Web's) whose request
    compression must be named: an unknown one is UNIMPLEMENTED, as gRPC-Web's already is
    (connect-python's Connect streams read it as none), and a compressed message in a call
    that names none is INVALID_ARGUMENT (connect-python: INTERNAL, a 5xx)."""

    def __init__(self, protocol):
        self._protocol = protocol

    def __getattr__(self, name: str):
        return getattr(self._protocol, name)

    def negotiate_stream_compression(self, headers, compressions):
        request, response = self._protocol.negotiate_stream_compression(headers, compressions)
        named = headers.get(self._protocol.compression_header_name(), "identity")
        if named not in compressions:
            return None, response  # connect-python answers UNIMPLEMENTED
        if isinstance(request, IdentityCompression):
            return _NoCompression(self._protocol.compression_header_name()), response
        return request, response


class _NoCompression:
    """The request compression of a stream that names none: a message flagged as
    compressed is a client's mistake (connect-python's own identity answers INTERNAL)."""

    def __init__(self, header: str):
        self._header = header

    def name(self) -> str:
        return "identity"

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        return bytes(data)

    def decompress(self, data: bytes | bytearray | memoryview) -> bytes:
        raise ConnectError(
            Code.INVALID_ARGUMENT, f"a message is flagged compressed but no {self._header} is given"
        )


# gRPC-Web's timeout (its gRPC spec: at most 8 digits and a unit) and Connect's (10 digits).
_GRPC_TIMEOUT = re.compile(r"\d{1,8}[HMSmun]")
_CONNECT_TIMEOUT = re.compile(r"\d{1,10}")


def _is_grpc_web(content_type: str) -> bool:
    """Whether connect-python reads a call of this (lowercase) Content-Type as gRPC-Web."""
    return content_type.partition("+")[0] == "application/grpc-web"


class _Application(CouncilServiceASGIApplication):
    """The generated application, with what is checked before connect-python reads a
    request, in `_refusal` (the bearer token of `tokens`, headers it would fail on with a
    500), its inflating capped (`_CappedGzip`) and its request decoding through
    `_StrictCodec`: the three methods of connect-python 0.9 that decode a request (unary by
    POST or GET, and a stream), given the codec in place of theirs
    (tests/server/test_http.py checks that malformed requests of each kind get
    INVALID_ARGUMENT)."""

    def __init__(self, service, tokens: tuple[str, ...] = ()):
        super().__init__(service, read_max_bytes=MAX_REQUEST_BYTES, compressions=(_CappedGzip(),))
        self._tokens = tokens

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        headers = [(k, v) for k, v in scope.get("headers", ()) if k != b"content-type"]
        given = next((v for k, v in scope.get("headers", ()) if k == b"content-type"), None)
        if given is not None:
            # Media types are case-insensitive (RFC 9110); connect-python compares them as given.
            media_type, semicolon, parameters = given.partition(b";")
            media_type = media_type.strip().lower()
            headers.append((b"content-type", media_type + semicolon + parameters))
            scope = {**scope, "headers": headers}
        content_type = (given or b"").partition(b";")[0].strip().lower().decode("latin-1")
        if content_type == "application/grpc" or content_type.startswith("application/grpc+"):
            # connect-python needs HTTP/2's trailers for it, which uvicorn's HTTP/1.1 lacks.
            problem = ConnectWireError(
                Code.UNIMPLEMENTED,
                "gRPC (application/grpc) needs HTTP/2: call the gRPC port; this HTTP port "
                "serves Connect and gRPC-Web",
                (),
            )
            await _send_json(send, 415, problem.to_json_bytes())
            return None
        refusal = self._refusal(scope, content_type)
        if refusal is not None:
            if refusal.code is Code.RESOURCE_EXHAUSTED:  # too large: see _discard_body
                await _discard_body(scope, receive)
            return await self._refuse(send, content_type, refusal)
        unary = not (content_type.startswith("application/connect+") or _is_grpc_web(content_type))
        encoding = dict(scope["headers"]).get(b"content-encoding", b"identity").strip().lower()
        if unary and encoding not in (b"gzip", b"identity"):
            # RFC 9110's status for a content coding not supported (connect-python: 501).
            named = encoding.decode()[:40]
            problem = ConnectWireError(
                Code.UNIMPLEMENTED,
                f"Content-Encoding {named!r} is not supported: gzip or identity",
                (),
            )
            await _send_json(send, 415, problem.to_json_bytes())
            return None
        return await super().__call__(scope, receive, send)

    def _refusal(self, scope, content_type: str) -> ConnectError | None:
        """What refuses a call from its headers alone, before its body is read: the bearer
        token first (so that a 401 says nothing of the rest), then a Content-Length over
        `MAX_REQUEST_BYTES` (after its body up to `DISCARDED_BODY_BYTES`, at once for a larger
        one: never after the body timeout), then what connect-python
        would answer with a 500 or in the wrong shape."""
        headers = scope.get("headers", ())
        if self._tokens:
            given = (v for k, v in headers if k == b"authorization")
            if all(accepted_token(value, self._tokens) is None for value in given):
                return ConnectError(Code.UNAUTHENTICATED, "missing or wrong bearer token")
        for key, value in headers:
            try:
                value.decode()
            except UnicodeDecodeError:
                name = key.decode("latin-1")[:100]
                return ConnectError(Code.INVALID_ARGUMENT, f"header {name}: not UTF-8 text")
        header = dict(headers)
        length = header.get(b"content-length")  # a plain decimal (the HTTP port's guard)
        if length is not None and length.isdigit() and int(length) > MAX_REQUEST_BYTES:
            return ConnectError(
                Code.RESOURCE_EXHAUSTED,
                f"the request is larger than {MAX_REQUEST_BYTES} bytes "
                f"(Content-Length {length.decode()[:20]})",
            )
        if _is_grpc_web(content_type):
            timeout, pattern = header.get(b"grpc-timeout"), _GRPC_TIMEOUT
            what = "grpc-timeout: expected at most 8 digits and a unit (H, M, S, m, u, n)"
        else:
            timeout, pattern = header.get(b"connect-timeout-ms"), _CONNECT_TIMEOUT
            what = "connect-timeout-ms: expected at most 10 digits"
        if timeout and not pattern.fullmatch(timeout.decode()):
            return ConnectError(Code.INVALID_ARGUMENT, f"{what}, got {timeout.decode()[:40]!r}")
        return None

    async def _refuse(self, send, content_type: str, error: ConnectError) -> None:
        """Answer `error` as the call's protocol answers one: a stream's (Connect's
        ``application/connect+*``, gRPC-Web's) in its last message, with HTTP 200; a
        unary Connect call's as JSON, its HTTP status the code's."""
        if not (content_type.startswith("application/connect+") or _is_grpc_web(content_type)):
            return await self._handle_error(error, None, send)
        protocol = negotiate_server_protocol(content_type)
        end = protocol.create_envelope_writer(None, None).end(  # type: ignore[arg-type]
            Headers(), ConnectWireError.from_exception(error)
        )
        assert isinstance(end, bytes)  # the streams over HTTP/1.1 end in a message
        start = [(b"content-type", content_type.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": start})
        await send({"type": "http.response.body", "body": end})
        return None

    async def _read_post_request(self, endpoint, receive, codec, headers):
        return await super()._read_post_request(endpoint, receive, _StrictCodec(codec), headers)

    async def _read_get_request(self, endpoint, codec, params):
        return await super()._read_get_request(endpoint, _StrictCodec(codec), params)

    async def _handle_stream(self, receive, send, protocol, endpoint, codec, headers, ctx):
        codec = _StrictCodec(codec)
        protocol = _NamedStreamCompression(protocol)
        return await super()._handle_stream(receive, send, protocol, endpoint, codec, headers, ctx)


async def _discard_body(scope, receive) -> None:
    """Read and drop the body of a request refused as too large when it is of a size a
    client may well be sending (at most `DISCARDED_BODY_BYTES`; read up to the request
    limit): the server closes the connection once it answers, and a client still sending
    would get a reset in place of the answer. A larger Content-Length is refused at once
    (no client sends 2^64 bytes); the port's body timeout bounds a slow sender."""
    length = dict(scope.get("headers", ())).get(b"content-length")
    if length is None or not length.isdigit() or int(length) > DISCARDED_BODY_BYTES:
        return
    try:
        while (await receive()).get("more_body"):
            pass
    except ConnectError:  # (the calls' own reader stops past MAX_REQUEST_BYTES)
        return


async def _send_json(send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _CallTracker:
    """ASGI middleware: makes each HTTP call's `_Call` (ended when the client disconnects,
    which it watches once the request's body is read, or when the answer is sent) and
    refuses a body larger than `MAX_REQUEST_BYTES` as soon as it is."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        call = _Call()
        gone = asyncio.Event()
        watcher: asyncio.Task | None = None
        size = 0

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            call.end()

        async def tracked_receive():
            nonlocal watcher, size
            if watcher is not None:  # the body has been read: only a disconnect can follow
                await gone.wait()
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.disconnect":
                call.end()
            else:
                size += len(message.get("body", b""))
                if size > MAX_REQUEST_BYTES:
                    raise ConnectError(
                        Code.RESOURCE_EXHAUSTED,
                        f"the request is larger than {MAX_REQUEST_BYTES} bytes",
                    )
                if not message.get("more_body", False):
                    watcher = asyncio.create_task(watch())
            return message

        token = _CURRENT_CALL.set(call)
        try:
            await self.app(scope, tracked_receive, send)
        finally:
            _CURRENT_CALL.reset(token)
            if watcher is not None:
                watcher.cancel()
            call.end()


class _GrpcWebText:
    """ASGI middleware for gRPC-Web's text form (``application/grpc-web-text``, what the
    grpc-web package's default ``mode=grpcwebtext`` sends): the binary form in base64, which
    connect-python does not read. It decodes the request's body as it comes, hands the call
    on as ``application/grpc-web+proto``, and sends each piece of the answer's body
    base64-encoded (padded, as Envoy's grpc_web filter does: a text client decodes 4
    characters at a time) as ``application/grpc-web-text+proto``. Framing, status and
    trailers stay connect-python's."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        content_type = next((v for k, v in scope.get("headers", ()) if k == b"content-type"), b"")
        if scope["type"] != "http" or not content_type.lower().startswith(_GRPC_WEB_TEXT):
            await self.app(scope, receive, send)
            return
        # Its Content-Length is the base64's: the decoded body is shorter.
        headers = [
            (k, v) for k, v in scope["headers"] if k not in (b"content-type", b"content-length")
        ]
        scope = {**scope, "headers": [*headers, (b"content-type", b"application/grpc-web+proto")]}
        left = b""  # the characters of an incomplete 4-character group
        encoding = False

        async def decoding_receive():
            nonlocal left
            message = await receive()
            if message["type"] != "http.request":
                return message
            data = left + b"".join(message.get("body", b"").split())
            whole = len(data) if not message.get("more_body", False) else len(data) & ~3
            data, left = data[:whole], data[whole:]
            try:
                # Pieces a client encoded apart are padded in the middle: decode each.
                body = b"".join(
                    base64.b64decode(piece, validate=True)
                    for piece in re.findall(rb"[^=]*=*", data)
                    if piece
                )
            except binascii.Error:
                raise ConnectError(
                    Code.INVALID_ARGUMENT, "an application/grpc-web-text body must be base64"
                ) from None
            return {**message, "body": body}

        async def encoding_send(message):
            nonlocal encoding
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k != b"content-type"]
                answered = dict(message.get("headers", ())).get(b"content-type", b"")
                encoding = answered.startswith(b"application/grpc-web")  # not an HTTP error
                if encoding:
                    headers.append((b"content-type", b"application/grpc-web-text+proto"))
                    message = {**message, "headers": headers}
            elif message["type"] == "http.response.body" and encoding and message.get("body"):
                message = {**message, "body": base64.b64encode(message["body"])}
            await send(message)

        await self.app(scope, decoding_receive, encoding_send)


# The page (server/web/, package data): GET / is index.html, GET /web/<name> the others.
_WEB_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


class _WebPage:
    """Serves the page's static files (GET or HEAD of ``/`` and ``/web/<name>``), the probes
    ``/healthz`` (200 while the process serves) and ``/readyz`` (200, or 503 once `draining`:
    for load balancers that check HTTP), and hands every other request to the service's
    application."""

    def __init__(self, app: Any, draining: Callable[[], bool] = lambda: False):
        self.app = app
        self.draining = draining
        self.files: dict[str, tuple[bytes, str]] = {}
        # The page's files and its folders' (games/: each game's view module), as ES modules
        # import them: by their path under /web/.
        folders = [("/web", resources.files("council.server") / "web")]
        while folders:
            path, folder = folders.pop()
            for entry in folder.iterdir():
                kind = _WEB_TYPES.get(Path(entry.name).suffix)
                if entry.is_dir() and not entry.name.startswith((".", "_")):
                    folders.append((f"{path}/{entry.name}", entry))
                elif kind is not None and entry.is_file():
                    self.files[f"{path}/{entry.name}"] = (entry.read_bytes(), kind)
        if "/web/index.html" in self.files:
            self.files["/"] = self.files["/web/index.html"]

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "HEAD")
            or not (path in ("/", "/healthz", "/readyz") or path.startswith("/web/"))
        ):
            return await self.app(scope, receive, send)
        found = self.files.get(path)
        status, (body, kind) = (200, found) if found else (404, (b"not found\n", "text/plain"))
        if path == "/healthz" or (path == "/readyz" and not self.draining()):
            status, body, kind = 200, b"ok\n", "text/plain"
        elif path == "/readyz":
            status, body, kind = 503, b"draining\n", "text/plain"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        head = scope["method"] == "HEAD"
        await send({"type": "http.response.body", "body": b"" if head else body})


def asgi_application(servicer: CouncilServicer, config: ServerConfig, executor: ThreadPoolExecutor):
    """The ASGI application of the service: Connect and gRPC-Web over `servicer`, with CORS
    for ``config.cors_origins`` (None: `LOOPBACK_ORIGINS`; empty: none; ``"*"``: any)."""
    bridge = cast("CouncilService", _Bridge(servicer, executor))
    app: Any = _CallTracker(_Application(bridge, config.tokens))
    # Each call timed, counted and logged, its request id answered (council.server.logs).
    app = HttpCalls(app, SERVICE_NAME, CallLog(servicer.metrics, config.access_log))
    app = _GrpcWebText(app)  # outside the tracker, which counts the decoded bytes
    # the page: GET / and /web/*, and the probes; the calls are POSTs
    app = _WebPage(app, draining=lambda: servicer.draining)
    app = metrics_endpoint(app, servicer.metrics, config)  # GET /metrics
    origins = config.cors_origins
    if origins is None or origins:
        app = CORSMiddleware(
            app,
            allow_origins=origins or (),
            allow_origin_regex=LOOPBACK_ORIGINS if origins is None else None,
            allow_methods=("GET", "POST"),
            allow_headers=_CORS_REQUEST_HEADERS,
            expose_headers=_CORS_RESPONSE_HEADERS,
            max_age=7200,
        )
    return host_check(app, config)  # outermost: a refused Host reaches nothing else


def _listen(address: str) -> socket.socket:
    """A listening socket on ``host:port`` (``[v6]:port`` for IPv6; port 0: any free)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"http_address: expected host:port, got {address!r}")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets
    # that say so, and with it on, each answer on a kept-alive connection waited ~40 ms for
    # the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, int(port)))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


class HttpServer:
    """The HTTP (Connect) server of a running service: uvicorn on a thread of its own, the
    calls on a thread pool of the gRPC server's size, searches sharing its admission."""

    def __init__(self, servicer: CouncilServicer, config: ServerConfig):
        assert config.http_address
        # A thread per search slot and queue place (admission refuses searches beyond those),
        # and cheap_workers threads for the other calls, as the gRPC server has.
        threads = config.search_slots + config.search_queue + config.cheap_workers
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="council-http")
        app = asgi_application(servicer, config, self._executor)
        self._uvicorn_config = uvicorn.Config(
            app,
            # uvicorn's h11 protocol with request timeouts, a connection cap and refusals.
            http=guarded_protocol(config, servicer.metrics.connection_dropped),
            timeout_keep_alive=config.http_keep_alive_s,  # type: ignore[arg-type]
            loop="asyncio",
            lifespan="off",
            ws="none",
            log_config=None,  # the process's logging stays as it is
            access_log=False,
            ssl_certfile=config.tls_cert,
            ssl_keyfile=config.tls_key,
            timeout_graceful_shutdown=None,
            # The peer (CallContext.peer, the key of search fairness) is the connection's,
            # as over gRPC: no X-Forwarded-For, which any local client could set.
            proxy_headers=False,
        )
        self._uvicorn_config.load()  # a bad certificate fails here, not in the thread
        # uvicorn's own lines ("Started server process") say nothing the ready line does not.
        uvicorn_log = logging.getLogger("uvicorn.error")
        if uvicorn_log.level == logging.NOTSET:
            uvicorn_log.setLevel(logging.WARNING)
        self._socket = _listen(config.http_address)
        self.port: int = self._socket.getsockname()[1]
        host = config.http_address.rpartition(":")[0]
        self.address = f"{host}:{self.port}"
        self._server = uvicorn.Server(self._uvicorn_config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="council-http"
        )
        self._thread.daemon = True

    def start(self, timeout: float = 10.0) -> None:
        self._thread.start()
        for _ in range(int(timeout / 0.01)):
            if self._server.started or not self._thread.is_alive():
                break
            time.sleep(0.01)
        if not self._server.started:
            self._socket.close()
            raise OSError(f"the HTTP server on {self.address} did not start")

    def shutdown(self, grace: float | None) -> None:
        """Stop accepting calls; those in flight get `grace` seconds (None: none) before
        they are cancelled. Returns at once (see `wait`)."""
        self._uvicorn_config.timeout_graceful_shutdown = grace  # type: ignore[assignment]
        self._server.force_exit = grace is None
        self._server.should_exit = True

    def wait(self, timeout: float = 10.0) -> None:
        """Wait for the server's thread to end (after `shutdown`)."""
        self._thread.join(timeout)
        if self._thread.is_alive():  # past the grace: cancel what is left
            self._server.force_exit = True
            self._thread.join(1.0)
        if self._thread.is_alive():
            log.warning("the HTTP server did not stop within %.1f s", timeout + 1.0)
        self._executor.shutdown(wait=False, cancel_futures=True)


def start_http(servicer: CouncilServicer, config: ServerConfig) -> HttpServer:
    """Start the HTTP server of `config.http_address` over `servicer`."""
    server = HttpServer(servicer, config)
    server.start()
    log.debug("serving %s over HTTP on %s", SERVICE_NAME, server.address)
    return server
