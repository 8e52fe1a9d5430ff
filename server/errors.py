"""How a call fails: `RpcError`, its ``google.rpc.Status`` and the handler decorator.

Handlers raise `RpcError` (usually through `invalid` or `failed_precondition`); the `rpc`
decorator answers it with a rich status whose ``BadRequest`` detail names the offending
fields, and answers any other exception with INTERNAL after logging it, so that a bug fails
one call and the server keeps serving.

Whatever the request, the reply stays small (`to_status`): echoed values are cut
(`shorten`), at most `MAX_VIOLATIONS` violations are listed plus one saying how many more
there were, and the status message and details fit in a few kilobytes of trailers, which
every gRPC client accepts. A request that cannot be decoded (`DecodeRequests`) is answered
INVALID_ARGUMENT by the same decorator.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import re

import grpc
from google.protobuf import any_pb2, descriptor
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

__all__ = [
    "MAX_VIOLATIONS",
    "DecodeRequests",
    "RpcError",
    "Undecodable",
    "bounded_violations",
    "duration_words",
    "failed_precondition",
    "invalid",
    "rpc",
    "shorten",
    "to_status",
]

log = logging.getLogger("council.server")

# The message of an INVALID_ARGUMENT names this many violations; the BadRequest lists more.
_VIOLATIONS_IN_MESSAGE = 5


# (unit, its seconds, the duration from which the next unit is used)
_UNITS = (("second", 1, 120), ("minute", 60, 7200), ("hour", 3600, 172800))


def duration_words(seconds: float) -> str:
    """A duration in the unit that fits it, for a message: seconds under two minutes,
    minutes under two hours, hours under two days, else days (to a tenth).

    >>> [duration_words(s) for s in (1, 25.4, 150, 7200, 86400 * 30, 20)]
    ['1 second', '25 seconds', '2.5 minutes', '2 hours', '30 days', '20 seconds']
    """
    unit, size = next(
        ((unit, size) for unit, size, below in _UNITS if seconds < below), ("day", 86400)
    )
    value = seconds / size
    shown = f"{value:.0f}" if unit == "second" else f"{value:.1f}".removesuffix(".0")
    return f"{shown} {unit}{'' if shown == '1' else 's'}"


# -- the size of an error reply ------------------------------------------------------------
# The status travels in trailers: grpc-message (the message, percent-encoded) and
# grpc-status-details-bin (the google.rpc.Status, message included, base64). Echoing a bad
# request in full broke clients: from ~6 KB of trailers a C-core client gets
# RESOURCE_EXHAUSTED instead of the error, from ~40 KB grpc-js stalls the connection. With
# these caps a reply's trailers stay near 5 KB at most whatever the request
# (tests/server/test_error_size.py measures them).
MAX_VIOLATIONS = 50  # field violations listed; one more says how many were left out
SHOWN_CHARS = 60  # a run of text without spaces longer than this + 20 shows its first 60
MAX_TEXT_CHARS = 240  # a field path or problem longer than this shows its first 240
MAX_MESSAGE_CHARS = 600  # the status message (its "; and N more" aside)
MAX_MESSAGE_BYTES = 700  # the status message as grpc-message (percent-encoded)
MAX_DETAILS_BYTES = 2400  # the listed violations, serialized

_SUMMARY_BYTES = 400  # kept for the violation saying how many were left out
_LONG_RUN = re.compile(rf"\S{{{SHOWN_CHARS + 21},}}")
_CLOSING = "\"'),;:]"
# The sentence of the violation that counts the ones left out (the engine's is the same
# with "problems", the compiled position readers').
_UNLISTED = re.compile(r"and (\d+) more (?:problems|violations) not listed")


def _cut_run(match: re.Match) -> str:
    run = match.group()
    end = len(run)
    while end > len(run) - 3 and run[end - 1] in _CLOSING:
        end -= 1
    body, tail = run[:end], run[end:]
    quote = body[0] if body[0] in "'\"" and body[0] in tail else ""
    value = body[len(quote) :]
    return f"{quote}{value[:SHOWN_CHARS]}… ({len(value)} characters){tail}"


def shorten(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """`text` with each run of more than 80 characters without a space (an echoed value, a
    path with one in it) cut to its first 60 plus "… (N characters)", and the whole cut to
    its first `limit` characters the same way.

    >>> text = shorten("unknown city " + repr("x" * 48000) + "; one of Arkon, Burgen")
    >>> text.replace("x" * SHOWN_CHARS, "<60 x>")
    "unknown city '<60 x>… (48000 characters)'; one of Arkon, Burgen"
    >>> shorten("seat: must be in 0..1, got 7")
    'seat: must be in 0..1, got 7'
    """
    if len(text) <= SHOWN_CHARS + 20:
        return text
    out = _LONG_RUN.sub(_cut_run, text)
    if len(out) > limit:
        out = f"{out[:limit]}… ({len(text)} characters)"
    return out


def _wire_bytes(text: str) -> int:
    """The length of `text` as grpc-message: UTF-8, bytes outside printable ASCII and "%"
    percent-encoded."""
    data = text.encode("utf-8", "replace")
    return len(data) + 2 * sum(1 for b in data if not 0x20 <= b <= 0x7E or b == 0x25)


def _fit(text: str, budget: int) -> str:
    """`text`, cut (ending with "…") to at most `budget` bytes as grpc-message."""
    if _wire_bytes(text) <= budget:
        return text
    used = 0
    for end, ch in enumerate(text):
        used += _wire_bytes(ch)
        if used > budget - 9:  # "…" is 9 bytes percent-encoded
            return text[:end] + "…"
    return text  # pragma: no cover - the loop returns


def _unlisted(problem: str) -> int | None:
    """How many violations a summary violation stands for (None: it is a real one)."""
    match = _UNLISTED.fullmatch(problem)
    return int(match.group(1)) if match else None


def _common_path(a: str, b: str) -> str:
    """The longest field path that `a` and `b` both lie under ("" if none)."""
    prefix = os.path.commonprefix([a, b])
    if all(len(s) == len(prefix) or s[len(prefix)] in ".[" for s in (a, b)):
        return prefix
    cut = max(prefix.rfind("."), prefix.rfind("["))
    return prefix[:cut] if cut > 0 else ""


def bounded_violations(violations, budget: int = MAX_DETAILS_BYTES) -> list[tuple[str, str]]:
    """The (field, problem) violations a reply lists: the first ones, shortened, while
    there are at most `MAX_VIOLATIONS` and they fit in `budget` bytes, then one under
    the fields the others share saying how many were left out ("and N more violations not
    listed"; such a violation in `violations`, e.g. the engine's, counts as its N).

    >>> bounded_violations([(f"tokens.c{i}", "unknown") for i in range(60)])[-2:]
    [('tokens.c49', 'unknown'), ('tokens', 'and 10 more violations not listed')]
    """
    listed: list[tuple[str, str]] = []
    size, left_out, under, full = 0, 0, None, False
    for field, problem in violations:
        more = _unlisted(problem)
        if more is None:
            if not full and len(listed) < MAX_VIOLATIONS:
                f, p = shorten(field), shorten(problem)
                cost = len(f.encode("utf-8", "replace")) + len(p.encode("utf-8", "replace")) + 8
                if size + cost <= budget - _SUMMARY_BYTES:
                    listed.append((f, p))
                    size += cost
                    continue
            full = True
            more = 1
        left_out += more
        under = field if under is None else _common_path(under, field)
    if left_out:
        under = shorten(under or "", _SUMMARY_BYTES // 4)
        listed.append((under, f"and {left_out} more violations not listed"))
    return listed


def _count(violations) -> int:
    """How many violations `violations` stands for (a summary counts as its N)."""
    return sum(_unlisted(p) or 1 for _, p in violations)


class RpcError(Exception):
    """A call's failure: a status code, a message and field violations (BadRequest)."""

    def __init__(self, code: grpc.StatusCode, message: str, violations=()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.violations: list[tuple[str, str]] = list(violations)
        # Seconds after which a retry should come (UNAVAILABLE from a draining server: by
        # then its ports are closed, so a proxy sends the retry to another replica); sent
        # as gRPC's retry pushback. None: the client's own backoff.
        self.retry_after_s: float | None = None


def invalid(violations, message: str | None = None) -> RpcError:
    """INVALID_ARGUMENT with (field path, problem) violations; the message lists the first
    few unless given."""
    violations = list(violations)
    if message is None:
        pieces: list[str] = []
        for f, p in violations:
            piece = shorten(f"{f}: {p}")
            if (
                len(pieces) == _VIOLATIONS_IN_MESSAGE
                or _unlisted(p) is not None
                or sum(len(x) + 2 for x in pieces) + len(piece) > MAX_MESSAGE_CHARS - 40
            ):
                break
            pieces.append(piece)
        message = "; ".join(pieces)
        total = _count(violations) if len(violations) > len(pieces) else len(pieces)
        if total > len(pieces):
            message += f"; and {total - len(pieces)} more" if pieces else f"{total} violations"
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, violations)


def failed_precondition(message: str) -> RpcError:
    """FAILED_PRECONDITION: the request is well formed but the position does not allow it."""
    return RpcError(grpc.StatusCode.FAILED_PRECONDITION, message)


# The trailer that tells a gRPC client with a retry policy when to retry (gRFC A6).
RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"


def to_status(error: RpcError) -> grpc.Status:
    """The gRPC status of `error`: a ``google.rpc.Status`` with a ``BadRequest`` detail when
    it has field violations, kept small (`shorten`, `bounded_violations`)."""
    message = _fit(shorten(error.message, MAX_MESSAGE_CHARS), MAX_MESSAGE_BYTES)
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=message)
    if error.violations:
        bad_request = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                for f, d in bounded_violations(error.violations)
            ]
        )
        detail = any_pb2.Any()
        detail.Pack(bad_request)
        status.details.append(detail)
    answer = rpc_status.to_status(status)
    if error.retry_after_s is None:
        return answer
    pushback = (RETRY_PUSHBACK_KEY, str(max(0, round(error.retry_after_s * 1000))))
    return answer._replace(trailing_metadata=(*answer.trailing_metadata, pushback))  # type: ignore[attr-defined]


# -- requests that cannot be decoded -------------------------------------------------------
# grpc decodes a request before the handler runs; when that fails (bytes that are not the
# message, a string field that is not UTF-8) it logs a traceback and answers INTERNAL
# "Exception deserializing request!". `DecodeRequests` hands the handler an `Undecodable`
# instead, which `rpc` answers INVALID_ARGUMENT naming the field when it can, logging one line.


class Undecodable:
    """A request whose bytes its message class could not decode."""

    __slots__ = ("data", "message_class", "reason")

    def __init__(self, data: bytes, message_class, reason: str):
        self.data, self.message_class, self.reason = data, message_class, reason

    def error(self) -> RpcError:
        desc = getattr(self.message_class, "DESCRIPTOR", None)
        name = desc.full_name if desc is not None else "request"
        found = _bad_utf8(desc, memoryview(self.data), "") if desc is not None else None
        if found is not None:
            return invalid([found])
        return RpcError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is not a valid {name} message ({self.reason})",
        )


def _varint(data, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        b = data[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return value, pos
        shift += 7


def _bad_utf8(desc, data, prefix: str, depth: int = 0) -> tuple[str, str] | None:
    """(path, problem) of the first string of a `desc` message in `data` that is not UTF-8
    (in a map: the map's path). None if there is none or the bytes are not the message."""
    counts: dict[int, int] = {}
    pos = 0
    try:
        while pos < len(data):
            key, pos = _varint(data, pos)
            wire = key & 7
            if wire == 0:
                _, pos = _varint(data, pos)
            elif wire in (1, 5):
                pos += 8 if wire == 1 else 4
            elif wire == 2:
                size, pos = _varint(data, pos)
                chunk, pos = data[pos : pos + size], pos + size
                field = desc.fields_by_number.get(key >> 3)
                if field is None or pos > len(data):
                    continue
                i = counts[field.number] = counts.get(field.number, -1) + 1
                path = prefix + field.name
                if field.type == descriptor.FieldDescriptor.TYPE_STRING:
                    if field.is_repeated:
                        path += f"[{i}]"
                    try:
                        bytes(chunk).decode("utf-8")
                    except UnicodeDecodeError:
                        return path, "must be valid UTF-8"
                elif field.type == descriptor.FieldDescriptor.TYPE_MESSAGE and depth < 64:
                    sub = field.message_type
                    if sub.GetOptions().map_entry:
                        found = _bad_utf8(sub, chunk, "", depth + 1)
                        if found is not None:
                            part = "key" if found[0] == "key" else "value"
                            return path, f"each {part} must be valid UTF-8"
                        continue
                    if field.is_repeated:
                        path += f"[{i}]"
                    found = _bad_utf8(sub, chunk, path + ".", depth + 1)
                    if found is not None:
                        return found
            else:
                return None
    except ValueError:
        return None
    return None


def _tolerant(deserializer):
    """`deserializer`, returning an `Undecodable` instead of raising."""
    message_class = getattr(deserializer, "__self__", None)

    def deserialize(data: bytes):
        try:
            return deserializer(data)
        except Exception as e:  # DecodeError, or whatever a deserializer raises
            reason = str(e).rpartition("': ")[2] or type(e).__name__
            return Undecodable(data, message_class, reason)

    return deserialize


class DecodeRequests(grpc.ServerInterceptor):
    """Gives the methods of `service` (handlers decorated with `rpc`) an `Undecodable` for
    a request that cannot be decoded, instead of grpc's logged traceback and INTERNAL."""

    def __init__(self, service: str):
        self._prefix = f"/{service}/"
        self._handlers: dict[str, tuple[object, object]] = {}

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        if (
            handler is None
            or handler.request_deserializer is None
            or not details.method.startswith(self._prefix)
        ):
            return handler
        cached = self._handlers.get(details.method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        kwargs = {
            "request_deserializer": _tolerant(handler.request_deserializer),
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_stream:
            wrapped = grpc.unary_stream_rpc_method_handler(handler.unary_stream, **kwargs)
        elif handler.stream_unary:
            wrapped = grpc.stream_unary_rpc_method_handler(handler.stream_unary, **kwargs)
        elif handler.stream_stream:
            wrapped = grpc.stream_stream_rpc_method_handler(handler.stream_stream, **kwargs)
        else:
            wrapped = grpc.unary_unary_rpc_method_handler(handler.unary_unary, **kwargs)
        self._handlers[details.method] = (handler, wrapped)
        return wrapped


def _undecodable(request, method: str) -> None:
    """Raise INVALID_ARGUMENT for an `Undecodable` request, logging one line."""
    if isinstance(request, Undecodable):
        error = request.error()
        log.info("%s: undecodable request (%d bytes): %s", method, len(request.data), error.message)
        raise error


@contextlib.contextmanager
def _answering(context, method: str):
    """Turn what the body raises into the call's status (`context.abort*` raises in turn)."""
    try:
        yield
    except RpcError as error:
        status = to_status(error)
        # abort_with_status replaces the trailers: keep those already set (the request id).
        # (grpc's ServicerContext has trailing_metadata(); a test's stand-in may not.)
        kept = tuple(getattr(context, "trailing_metadata", tuple)() or ())
        context.abort_with_status(
            status._replace(trailing_metadata=(*kept, *status.trailing_metadata))  # type: ignore[attr-defined]
        )
    except Exception:  # a bug: log it, answer INTERNAL, keep serving
        log.exception("%s failed", method)
        context.abort(grpc.StatusCode.INTERNAL, f"{method}: internal error")


def rpc(handler):
    """Decorate a servicer method, unary (returns its response) or server-streaming (a
    generator of responses), so that an `RpcError` it raises becomes the call's status and
    any other exception becomes INTERNAL. A stream keeps the messages it already sent."""
    name = handler.__name__
    if inspect.isgeneratorfunction(handler):

        @functools.wraps(handler)
        def streaming(self, request, context):
            with _answering(context, name):
                _undecodable(request, name)
                yield from handler(self, request, context)

        return streaming

    @functools.wraps(handler)
    def unary(self, request, context):
        with _answering(context, name):
            _undecodable(request, name)
            return handler(self, request, context)

    return unary
