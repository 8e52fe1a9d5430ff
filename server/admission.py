"""Admission of searches: a fixed number run at once and a bounded queue waits; a caller
is served fairly next to the others. Beyond the queue a call is refused at once with
RESOURCE_EXHAUSTED; once the server stops, with UNAVAILABLE.

Fairness between callers (a caller is one client connection, see `caller_of`):

* A freed slot goes to the waiting caller with the fewest searches running; among equals,
  to the call that has waited longest. A caller running many searches cannot keep another
  waiting for more than one slot's turn.
* When the queue is full, a newcomer displaces the newest queued call of the caller with the
  most searches admitted (running + queued), provided that caller keeps at least as many
  as the newcomer then has (that call is refused with RESOURCE_EXHAUSTED). One caller
  alone may fill every slot and queue place; it gives them up as others arrive.

>>> admission = Admission(slots=1, queue=0)
>>> with admission.enter(context=None, margin=None, caller="a"):
...     admission.admitted
1
>>> admission.admitted
0
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterator

import grpc

from council.server.errors import RpcError

__all__ = ["Admission", "caller_of"]

# A queued call wakes this often to see whether its client went away or its deadline came
# too close. A freed slot is handed over at once by an event, so this only bounds how long
# a call that can no longer be served sits in the queue; it is short next to any deadline a
# client would set, and at most slots + queue calls poll.
QUEUE_POLL_S = 0.05

FULL = (
    "the server is at capacity (all search slots and queue places are taken, none by a "
    "caller with more searches than yours); retry later"
)


def caller_of(context) -> str:
    """The key fairness counts searches by: the client's connection as gRPC names its peer
    (``ipv4:10.0.0.7:51234``). Every call of one channel shares it; the bearer token cannot
    tell clients apart, since the server has a single one. A client that opens several
    connections counts as several callers; one behind a proxy shares the proxy's."""
    peer = getattr(context, "peer", None)
    return peer() if callable(peer) else ""


class _Turn:
    """A queued call: the event that wakes it and, when it is refused instead of served, why."""

    __slots__ = ("caller", "event", "refusal", "seq")

    def __init__(self, caller: str, seq: int):
        self.caller = caller
        self.seq = seq
        self.event = threading.Event()
        self.refusal: RpcError | None = None


class Admission:
    """At most `slots` searches run; at most `queue` more wait (see the module for the order
    in which they are served and who is refused when the queue is full)."""

    def __init__(self, slots: int, queue: int):
        self.slots = slots
        self.capacity = slots + queue
        self._lock = threading.Lock()
        self._free = slots
        self._running: dict[str, int] = {}  # caller -> searches running
        self._waiting: dict[str, deque[_Turn]] = {}  # caller -> its queued calls, oldest first
        self._n_running = 0
        self._n_queued = 0
        self._seq = itertools.count()
        self._closed: str | None = None

    @property
    def admitted(self) -> int:
        """Calls running or queued."""
        return self._n_running + self._n_queued

    @property
    def queued(self) -> int:
        """Calls waiting for a slot."""
        return self._n_queued

    def admitted_of(self, caller: str) -> int:
        """Calls of `caller` running or queued."""
        with self._lock:
            return self._admitted_of(caller)

    def close(self, message: str, *, queued: bool = False) -> None:
        """Refuse every later call with UNAVAILABLE (`message`), and with `queued` the calls
        waiting in the queue too; running searches keep their slots until they end."""
        with self._lock:
            self._closed = message
            if not queued:
                return
            for turns in self._waiting.values():
                for turn in turns:
                    turn.refusal = RpcError(grpc.StatusCode.UNAVAILABLE, message)
                    turn.event.set()
            self._waiting.clear()
            self._n_queued = 0

    @contextlib.contextmanager
    def enter(self, context, margin: Callable[[float], float], caller: str = "") -> Iterator[None]:
        """Hold a search slot for the block, waiting in the queue if none is free.

        While queued, the call leaves with CANCELLED when its client goes away and with
        RESOURCE_EXHAUSTED when no more than ``margin(time_left)`` seconds of its deadline
        are left (no time would be left to search), or when a caller with fewer searches
        displaces it. `context` is the call's ``grpc.ServicerContext``; it is only read while
        the call is queued. `caller` is the key of `caller_of`."""
        turn = self._join(caller)
        if turn is not None:
            self._wait(turn, context, margin)
        try:
            yield
        finally:
            with self._lock:
                left = self._running[caller] - 1
                if left:
                    self._running[caller] = left
                else:
                    del self._running[caller]
                self._n_running -= 1
                self._hand_over()

    # -- with the lock held ------------------------------------------------------------
    def _admitted_of(self, caller: str) -> int:
        return self._running.get(caller, 0) + len(self._waiting.get(caller, ()))

    def _start(self, caller: str) -> None:
        self._running[caller] = self._running.get(caller, 0) + 1
        self._n_running += 1

    def _hand_over(self) -> None:
        """Give a freed slot to the waiting caller with the fewest searches running (the
        longest waiting call among equals), or back to the pool."""
        if not self._waiting:
            self._free += 1
            return
        caller = min(
            self._waiting, key=lambda c: (self._running.get(c, 0), self._waiting[c][0].seq)
        )
        turns = self._waiting[caller]
        turn = turns.popleft()
        if not turns:
            del self._waiting[caller]
        self._n_queued -= 1
        self._start(caller)
        turn.event.set()

    def _displace_for(self, caller: str) -> bool:
        """Refuse the newest queued call of the caller with the most searches admitted, if
        that caller keeps at least as many as `caller` will have (True); else False."""
        if not self._waiting:
            return False
        victim = max(self._waiting, key=lambda c: (self._admitted_of(c), self._waiting[c][-1].seq))
        if self._admitted_of(victim) < self._admitted_of(caller) + 2:
            return False
        turns = self._waiting[victim]
        turn = turns.pop()
        if not turns:
            del self._waiting[victim]
        self._n_queued -= 1
        turn.refusal = RpcError(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "displaced from the search queue by another caller's search (this connection "
            "has more searches running or queued than any other); retry later",
        )
        turn.event.set()
        return True

    # ----------------------------------------------------------------------------------
    def _join(self, caller: str) -> _Turn | None:
        """Take a free slot (None) or a place in the queue (the turn that a slot or a
        refusal wakes); RESOURCE_EXHAUSTED if neither can be had, UNAVAILABLE once closed."""
        with self._lock:
            if self._closed is not None:
                raise RpcError(grpc.StatusCode.UNAVAILABLE, self._closed)
            if self._free > 0:  # then nobody waits
                self._free -= 1
                self._start(caller)
                return None
            if self.admitted >= self.capacity and not self._displace_for(caller):
                raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, FULL)
            turn = _Turn(caller, next(self._seq))
            self._waiting.setdefault(caller, deque()).append(turn)
            self._n_queued += 1
            return turn

    def _wait(self, turn: _Turn, context, margin) -> None:
        while not turn.event.wait(QUEUE_POLL_S):
            left = context.time_remaining()
            if context.is_active() and (left is None or left > margin(left)):
                continue
            with self._lock:
                if turn.event.is_set():  # a slot or a refusal arrived just now
                    break
                turns = self._waiting[turn.caller]
                turns.remove(turn)
                if not turns:
                    del self._waiting[turn.caller]
                self._n_queued -= 1
            if not context.is_active():
                raise RpcError(grpc.StatusCode.CANCELLED, "cancelled while queued")
            raise RpcError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "no search slot became free before the deadline",
            )
        if turn.refusal is not None:
            raise turn.refusal
