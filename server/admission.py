"""Admission of searches: a fixed number run at once and a bounded queue waits; a caller
is served fairly next to the others and holds a bounded number of searches. Beyond the queue
a call is refused at once with RESOURCE_EXHAUSTED; once the server stops, with UNAVAILABLE.

Fairness between callers (a caller is a bearer token, or without one a client connection,
see `caller_of`):

* A caller has at most `per_caller` searches running or queued; one more is refused at once
  with RESOURCE_EXHAUSTED naming that cap.
* A freed slot goes to the waiting caller with the fewest searches running; among equals,
  to the call that has waited longest.
* A queued call waits behind a hog for a bounded time: each time it has waited
  `max_queue_wait_s`, the newest running search of the caller with the most searches
  running is stopped (it answers with its best action so far), provided that caller has at
  least two more running than the waiting call's caller (with one more, the two would only
  trade places). Its slot then goes to a waiting caller as above. A call waits for a slot
  to free by itself only while no caller runs two more searches than its own.
* When the queue is full, a newcomer displaces the newest queued call of the caller with the
  most searches admitted (running + queued), provided that caller keeps at least as many
  as the newcomer then has (that call is refused with RESOURCE_EXHAUSTED).
* A queued call leaves the queue with RESOURCE_EXHAUSTED once no more of its deadline is
  left than the margin it had on arrival (what a search started then would have kept back
  to send its answer in time): it wakes for that moment, not after it. A call that finds no
  slot free and no more than that margin left is refused at once.

>>> admission = Admission(slots=1, queue=0)
>>> with admission.enter(context=None, margin=None, caller="a"):
...     admission.admitted
1
>>> admission.admitted
0
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator

import grpc

from council.server.errors import RpcError

__all__ = ["Admission", "caller_of"]

# A queued call wakes this often to see whether its client went away (the moments its
# deadline margin is reached or its wait bound passes are waited for exactly). A freed slot
# is handed over at once by an event, so this only bounds how long a call whose client left
# sits in the queue; at most slots + queue calls poll.
QUEUE_POLL_S = 0.05

FULL = (
    "the server is at capacity (all search slots and queue places are taken, none by a "
    "caller with more searches than yours); retry later"
)
NO_TIME = "no search slot became free before the deadline"

# Keys of bearer tokens are hashed with this process's secret: a key may be logged, and a
# plain hash would let a log's reader test guessed tokens against it.
_TOKEN_KEY_SECRET = secrets.token_bytes(16)


def caller_of(context) -> str:
    """The key fairness counts searches by: the call's bearer token when it carries
    ``authorization: Bearer <token>`` (``token:`` and a keyed hash of it, never the token),
    else the client's connection as gRPC names its peer (``ipv4:10.0.0.7:51234``).

    With a token per client, every channel and stub of a client is one caller and the
    clients of one channel are several. Without a token, every call of one channel shares
    its connection; a client that opens several connections counts as several callers, and
    clients behind one proxy connection as one. A token is a caller's name whether or not
    the server checks tokens: a client that makes up names gains no more than one that
    opens connections.

    >>> class Call:
    ...     def __init__(self, *metadata): self.metadata = metadata
    ...     def invocation_metadata(self): return self.metadata
    ...     def peer(self): return "ipv4:127.0.0.1:5000"
    >>> alice = caller_of(Call(("authorization", "Bearer alice")))
    >>> alice.startswith("token:") and "alice" not in alice
    True
    >>> caller_of(Call(("Authorization", "bearer  alice "))) == alice
    True
    >>> caller_of(Call(("authorization", "Bearer bob"))) == alice
    False
    >>> caller_of(Call(("authorization", "Basic YWxpY2U="))), caller_of(Call())
    ('ipv4:127.0.0.1:5000', 'ipv4:127.0.0.1:5000')
    """
    metadata = getattr(context, "invocation_metadata", None)
    for key, value in (metadata() if callable(metadata) else None) or ():
        if key.lower() != "authorization":
            continue
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        # Read as the token check reads it (config.accepted_token): the scheme in any case.
        scheme, _, token = value.strip().partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token:
            digest = hashlib.blake2b(
                token.encode("utf-8", "replace"), key=_TOKEN_KEY_SECRET, digest_size=8
            )
            return f"token:{digest.hexdigest()}"
    peer = getattr(context, "peer", None)
    return peer() if callable(peer) else ""


class _Run:
    """A running search: its caller, when it started (`seq`), how to stop it (None: it cannot
    be stopped early) and whether it was stopped to free its slot."""

    __slots__ = ("caller", "seq", "stop", "stopping")

    def __init__(self, caller: str, seq: int, stop: Callable[[], object] | None):
        self.caller = caller
        self.seq = seq
        self.stop = stop
        self.stopping = False


class _Turn:
    """A call's way through admission: the event that wakes it while queued, its search once
    it runs, and, when it is refused instead of served, why."""

    __slots__ = ("caller", "event", "refusal", "reserve", "run", "seq", "since", "stop")

    def __init__(self, caller: str, seq: int, stop: Callable[[], object] | None):
        self.caller = caller
        self.seq = seq
        self.stop = stop
        self.since = time.monotonic()
        self.reserve = 0.0  # the deadline margin of its arrival: it leaves with that left
        self.event = threading.Event()
        self.refusal: RpcError | None = None
        self.run: _Run | None = None


class Admission:
    """At most `slots` searches run; at most `queue` more wait; a caller has at most
    `per_caller` running or queued (None: no cap), and a queued call waits about
    `max_queue_wait_s` at most behind a caller with two more searches running than its own
    (None: as long as it takes). See the module for the order in which calls are served and
    who is refused or stopped."""

    def __init__(
        self,
        slots: int,
        queue: int,
        *,
        per_caller: int | None = None,
        max_queue_wait_s: float | None = None,
        observe: Callable[[str], object] | None = None,
    ):
        self.slots = slots
        # Told each refusal's reason and each search stopped ("stopped"), lock held: the
        # server's metrics (council.server.metrics.Metrics.admission_event).
        self._observe = observe or (lambda event: None)
        self.capacity = slots + queue
        self.per_caller = per_caller
        self.max_queue_wait_s = max_queue_wait_s
        self._lock = threading.Lock()
        self._free = slots
        self._running: dict[str, list[_Run]] = {}  # caller -> its running searches, oldest first
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
    def running(self) -> int:
        """Calls holding a slot."""
        return self._n_running

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
                    self._observe("closed")
                    turn.refusal = RpcError(grpc.StatusCode.UNAVAILABLE, message)
                    turn.event.set()
            self._waiting.clear()
            self._n_queued = 0

    @contextlib.contextmanager
    def enter(
        self,
        context,
        margin: Callable[[float], float],
        caller: str = "",
        stop: Callable[[], object] | None = None,
    ) -> Iterator[None]:
        """Hold a search slot for the block, waiting in the queue if none is free.

        While queued, the call leaves with CANCELLED when its client goes away, with
        RESOURCE_EXHAUSTED when no more of its deadline is left than ``margin(time_left)``
        of its arrival (no time would be left to search and answer), or when a caller with
        fewer searches displaces it. `context` is the call's ``grpc.ServicerContext``; it
        is only read when no slot is free. `caller` is the key of `caller_of`. `stop` stops
        the block's search early, for a caller with fewer searches (it is called with
        admission's lock held: it must only set a flag); without it the search runs on."""
        turn = self._join(caller, stop, context, margin)
        if turn.run is None:
            self._wait(turn, context)
        try:
            yield
        finally:
            with self._lock:
                self._finish(turn)

    # -- with the lock held ------------------------------------------------------------
    def _admitted_of(self, caller: str) -> int:
        return len(self._running.get(caller, ())) + len(self._waiting.get(caller, ()))

    def _unstopped(self, caller: str) -> int:
        """Searches of `caller` running and not being stopped."""
        return sum(not run.stopping for run in self._running.get(caller, ()))

    def _start(self, turn: _Turn) -> None:
        turn.run = _Run(turn.caller, next(self._seq), turn.stop)
        self._running.setdefault(turn.caller, []).append(turn.run)
        self._n_running += 1

    def _finish(self, turn: _Turn) -> None:
        assert turn.run is not None  # a turn that entered the block has its run
        runs = self._running[turn.caller]
        runs.remove(turn.run)
        if not runs:
            del self._running[turn.caller]
        self._n_running -= 1
        self._hand_over()

    def _hand_over(self) -> None:
        """Give a freed slot to the waiting caller with the fewest searches running (the
        longest waiting call among equals), or back to the pool."""
        if not self._waiting:
            self._free += 1
            return
        caller = min(
            self._waiting, key=lambda c: (len(self._running.get(c, ())), self._waiting[c][0].seq)
        )
        turns = self._waiting[caller]
        turn = turns.popleft()
        if not turns:
            del self._waiting[caller]
        self._n_queued -= 1
        self._start(turn)
        turn.event.set()

    def _dequeue(self, turn: _Turn) -> None:
        turns = self._waiting[turn.caller]
        turns.remove(turn)
        if not turns:
            del self._waiting[turn.caller]
        self._n_queued -= 1

    def _displace_for(self, caller: str) -> bool:
        """Refuse the newest queued call of the caller with the most searches admitted, if
        that caller keeps at least as many as `caller` will have (True); else False."""
        if not self._waiting:
            return False
        victim = max(self._waiting, key=lambda c: (self._admitted_of(c), self._waiting[c][-1].seq))
        if self._admitted_of(victim) < self._admitted_of(caller) + 2:
            return False
        turn = self._waiting[victim][-1]
        self._dequeue(turn)
        self._observe("displaced")
        turn.refusal = RpcError(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "displaced from the search queue by another caller's search (this caller "
            "has more searches running or queued than any other); retry later",
        )
        turn.event.set()
        return True

    def _stop_for(self, caller: str) -> bool:
        """Stop the newest running search of the caller with the most searches running, if
        it has at least two more than `caller` (True); else False. Searches already being
        stopped count for neither: each waiting call stops one search at a time."""
        mine = self._unstopped(caller)
        victims = [
            run
            for runs in self._running.values()
            if sum(not r.stopping for r in runs) >= mine + 2
            for run in runs
            if not run.stopping and run.stop is not None
        ]
        if not victims:
            return False
        run = max(victims, key=lambda r: (self._unstopped(r.caller), r.seq))
        run.stopping = True
        self._observe("stopped")
        assert run.stop is not None
        run.stop()
        return True

    # ----------------------------------------------------------------------------------
    def _join(self, caller: str, stop, context, margin) -> _Turn:
        """Take a free slot (the turn has its run) or a place in the queue (the turn that a
        slot or a refusal wakes); RESOURCE_EXHAUSTED if neither can be had, the caller
        has its cap, or the deadline leaves no time to wait; UNAVAILABLE once closed."""
        with self._lock:
            if self._closed is not None:
                self._observe("closed")
                raise RpcError(grpc.StatusCode.UNAVAILABLE, self._closed)
            held = self._admitted_of(caller)
            if self.per_caller is not None and held >= self.per_caller:
                self._observe("caller_cap")
                raise RpcError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"this caller already has {held} searches running or queued, the most "
                    f"one caller may have (--max-searches-per-caller {self.per_caller}); "
                    "send the next one when one ends (a caller is a bearer token, or a "
                    "connection without one)",
                )
            turn = _Turn(caller, next(self._seq), stop)
            if self._free > 0:  # then nobody waits
                self._free -= 1
                self._start(turn)
                return turn
            left = context.time_remaining()
            if left is not None:
                turn.reserve = margin(left)
                if left <= turn.reserve:
                    self._observe("deadline")
                    raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, NO_TIME)
            if self.admitted >= self.capacity and not self._displace_for(caller):
                self._observe("full")
                raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, FULL)
            self._waiting.setdefault(caller, deque()).append(turn)
            self._n_queued += 1
            return turn

    def _wait(self, turn: _Turn, context) -> None:
        """Wait for the turn's slot or refusal; on the way, leave when the client goes away
        or the deadline margin is reached, and stop a hog's search each time the call has
        waited `max_queue_wait_s` more."""
        bound = math.inf if self.max_queue_wait_s is None else self.max_queue_wait_s
        stop_at = turn.since + bound
        while True:
            left = context.time_remaining()
            slack = math.inf if left is None else left - turn.reserve
            if slack <= 0 or not context.is_active():
                with self._lock:
                    if not turn.event.is_set():  # else a slot or a refusal came just now
                        self._dequeue(turn)
                        if not context.is_active():
                            raise RpcError(grpc.StatusCode.CANCELLED, "cancelled while queued")
                        self._observe("deadline")
                        raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, NO_TIME)
                break
            now = time.monotonic()
            if now >= stop_at:
                with self._lock:
                    if not turn.event.is_set():
                        self._stop_for(turn.caller)
                stop_at = now + bound
            if turn.event.wait(min(QUEUE_POLL_S, slack, stop_at - now)):
                break
        if turn.refusal is not None:
            raise turn.refusal
