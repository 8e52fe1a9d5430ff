"""Admission of searches: a fixed number run at once, a bounded queue waits, first come first
served; beyond that a call is refused at once with RESOURCE_EXHAUSTED.

>>> admission = Admission(slots=1, queue=0)
>>> with admission.enter(context=None, margin=None):
...     admission.admitted
1
>>> admission.admitted
0
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator

import grpc

from council.server.errors import RpcError

__all__ = ["Admission"]

# A queued call wakes this often to see whether its client went away or its deadline came
# too close. A freed slot is handed over at once by an event, so this only bounds how long
# a call that can no longer be served sits in the queue; it is short next to any deadline a
# client would set, and at most 2 x slots calls poll.
QUEUE_POLL_S = 0.05


class Admission:
    """At most `slots` searches run; at most `queue` more wait, first come first served.
    Beyond that a call is refused at once with RESOURCE_EXHAUSTED."""

    def __init__(self, slots: int, queue: int):
        self.slots = slots
        self.capacity = slots + queue
        self._lock = threading.Lock()
        self._free = slots
        self._admitted = 0
        self._waiting: deque[threading.Event] = deque()

    @property
    def admitted(self) -> int:
        """Calls running or queued."""
        return self._admitted

    @property
    def queued(self) -> int:
        """Calls waiting for a slot."""
        return len(self._waiting)

    @contextlib.contextmanager
    def enter(self, context, margin: Callable[[float], float]) -> Iterator[None]:
        """Hold a search slot for the block, waiting in the queue if none is free.

        While queued, the call leaves with CANCELLED when its client goes away and with
        RESOURCE_EXHAUSTED when no more than ``margin(time_left)`` seconds of its deadline
        are left (no time would be left to search). `context` is the call's
        ``grpc.ServicerContext``; it is only read while the call is queued."""
        turn = self._join()
        try:
            if turn is not None:
                self._wait(turn, context, margin)
        except BaseException:
            with self._lock:
                self._admitted -= 1
            raise
        try:
            yield
        finally:
            with self._lock:
                self._admitted -= 1
                self._hand_over()

    def _join(self) -> threading.Event | None:
        """Take a free slot (None) or a place in the queue (the event that hands a slot over);
        RESOURCE_EXHAUSTED if both are full."""
        with self._lock:
            if self._admitted >= self.capacity:
                raise RpcError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "the server is at capacity (all search slots and queue places are "
                    "taken); retry later",
                )
            self._admitted += 1
            if self._free > 0:
                self._free -= 1
                return None
            turn = threading.Event()
            self._waiting.append(turn)
            return turn

    def _wait(self, turn: threading.Event, context, margin) -> None:
        while not turn.wait(QUEUE_POLL_S):
            left = context.time_remaining()
            if context.is_active() and (left is None or left > margin(left)):
                continue
            with self._lock:
                if turn.is_set():  # the slot arrived just now: take it
                    return
                self._waiting.remove(turn)
            if not context.is_active():
                raise RpcError(grpc.StatusCode.CANCELLED, "cancelled while queued")
            raise RpcError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "no search slot became free before the deadline",
            )

    def _hand_over(self) -> None:
        """Give a freed slot to the longest waiting call, or back to the pool (lock held)."""
        if self._waiting:
            self._waiting.popleft().set()
        else:
            self._free += 1
