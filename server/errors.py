"""How a call fails: `RpcError`, its ``google.rpc.Status`` and the handler decorator.

Handlers raise `RpcError` (usually through `invalid` or `failed_precondition`); the `rpc`
decorator answers it with a rich status whose ``BadRequest`` detail names every offending
field, and answers any other exception with INTERNAL after logging it, so that a bug fails
one call and the server keeps serving.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

__all__ = ["RpcError", "failed_precondition", "invalid", "rpc", "to_status"]

log = logging.getLogger("council.server")

# The message of an INVALID_ARGUMENT names this many violations; the BadRequest has them all.
_VIOLATIONS_IN_MESSAGE = 5


class RpcError(Exception):
    """A call's failure: a status code, a message and field violations (BadRequest)."""

    def __init__(self, code: grpc.StatusCode, message: str, violations=()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.violations: list[tuple[str, str]] = list(violations)


def invalid(violations, message: str | None = None) -> RpcError:
    """INVALID_ARGUMENT with (field path, problem) violations; the message lists the first
    few unless given."""
    violations = list(violations)
    if message is None:
        shown = violations[:_VIOLATIONS_IN_MESSAGE]
        message = "; ".join(f"{f}: {p}" for f, p in shown)
        if len(violations) > len(shown):
            message += f"; and {len(violations) - len(shown)} more"
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, violations)


def failed_precondition(message: str) -> RpcError:
    """FAILED_PRECONDITION: the request is well formed but the position does not allow it."""
    return RpcError(grpc.StatusCode.FAILED_PRECONDITION, message)


def to_status(error: RpcError) -> grpc.Status:
    """The gRPC status of `error`: a ``google.rpc.Status`` with a ``BadRequest`` detail when
    it has field violations."""
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message)
    if error.violations:
        bad_request = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                for f, d in error.violations
            ]
        )
        detail = any_pb2.Any()
        detail.Pack(bad_request)
        status.details.append(detail)
    return rpc_status.to_status(status)


@contextlib.contextmanager
def _answering(context, method: str):
    """Turn what the body raises into the call's status (`context.abort*` raises in turn)."""
    try:
        yield
    except RpcError as error:
        context.abort_with_status(to_status(error))
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
                yield from handler(self, request, context)

        return streaming

    @functools.wraps(handler)
    def unary(self, request, context):
        with _answering(context, name):
            return handler(self, request, context)

    return unary
