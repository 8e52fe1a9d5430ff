"""Admission: slots, a queue served fairly between callers (fewest running first, then first
come first served), refusal or displacement when full, closing on shutdown, and queued calls
leaving when their client goes away or their deadline comes too close."""

from __future__ import annotations

import threading

import grpc
import pytest
from server_helpers import wait_until

from council.server.admission import Admission
from council.server.errors import RpcError


class Context:
    """The two things Admission reads of a grpc.ServicerContext."""

    def __init__(self, time_left: float | None = None):
        self.active = True
        self.time_left = time_left

    def is_active(self):
        return self.active

    def time_remaining(self):
        return self.time_left


def no_margin(left: float) -> float:
    return 0.0


def test_first_come_first_served_and_bounded():
    admission = Admission(slots=1, queue=2)
    order = []
    first = admission.enter(Context(), no_margin)
    first.__enter__()

    def waiter(name):
        with admission.enter(Context(), no_margin):
            order.append(name)

    threads = []
    for name in ("b", "c"):
        t = threading.Thread(target=waiter, args=(name,))
        t.start()
        threads.append(t)
        wait_until(lambda: admission.queued == len(threads))  # b queued before c starts
    with pytest.raises(RpcError) as info:  # 1 running + 2 queued: full
        admission.enter(Context(), no_margin).__enter__()
    assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert admission.admitted == 3
    first.__exit__(None, None, None)
    for t in threads:
        t.join(10)
    assert order == ["b", "c"]
    assert admission.admitted == 0 and admission.queued == 0
    with admission.enter(Context(), no_margin):  # the slot is free again: no queueing
        assert admission.queued == 0


def test_a_queued_call_whose_client_goes_away_leaves_the_queue():
    admission = Admission(slots=1, queue=1)
    with admission.enter(Context(), no_margin):
        cancelled = Context()
        cancelled.active = False
        with pytest.raises(RpcError) as info:
            admission.enter(cancelled, no_margin).__enter__()
        assert info.value.code == grpc.StatusCode.CANCELLED
        assert admission.queued == 0 and admission.admitted == 1
    assert admission.admitted == 0


def test_a_queued_call_leaves_when_its_deadline_comes_too_close():
    admission = Admission(slots=1, queue=1)
    margins = []

    def margin(left):
        margins.append(left)
        return 0.5  # 0.4 s left is not enough

    with admission.enter(Context(), no_margin):
        with pytest.raises(RpcError) as info:
            admission.enter(Context(time_left=0.4), margin).__enter__()
        assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "deadline" in info.value.message
        assert margins == [0.4]
        assert admission.queued == 0 and admission.admitted == 1


def test_an_error_inside_the_block_frees_the_slot():
    admission = Admission(slots=1, queue=0)
    with pytest.raises(ValueError), admission.enter(Context(), no_margin):
        raise ValueError("the search failed")
    assert admission.admitted == 0
    with admission.enter(Context(), no_margin):
        assert admission.admitted == 1


def hold(admission: Admission, caller: str):
    """Enter a slot (the caller must get one at once) and return the exit."""
    entered = admission.enter(Context(), no_margin, caller)
    entered.__enter__()
    return lambda: entered.__exit__(None, None, None)


class Waiter:
    """A call of `caller` queued on another thread; `outcome` is "ran" or a status code."""

    def __init__(self, admission: Admission, caller: str, log: list | None = None):
        self.outcome: object = None
        self.release = threading.Event()
        before = admission.admitted_of(caller)
        self.thread = threading.Thread(target=self.run, args=(admission, caller, log))
        self.thread.start()
        wait_until(lambda: admission.admitted_of(caller) > before or self.outcome is not None)

    def run(self, admission, caller, log):
        try:
            with admission.enter(Context(), no_margin, caller):
                if log is not None:
                    log.append(caller)
                self.outcome = "ran"
                self.release.wait(10)
        except RpcError as error:
            self.outcome = error.code

    def finish(self):
        self.release.set()
        self.thread.join(10)
        return self.outcome


def test_a_freed_slot_goes_to_the_waiting_caller_with_fewest_running():
    admission = Admission(slots=2, queue=4)
    greedy = [hold(admission, "greedy"), hold(admission, "greedy")]
    order: list[str] = []
    waiters = [Waiter(admission, "greedy", order) for _ in range(3)]
    other = Waiter(admission, "other", order)  # queued last, but runs nothing
    greedy[0]()
    wait_until(lambda: order == ["other"])
    greedy[1]()  # greedy has 0 running now, other 1: greedy's oldest call
    wait_until(lambda: order == ["other", "greedy"])
    assert other.finish() == "ran"
    for w in waiters:
        assert w.finish() == "ran"
    assert order == ["other", "greedy", "greedy", "greedy"]
    assert admission.admitted == 0


def test_a_newcomer_displaces_the_newest_call_of_the_caller_with_most_searches():
    admission = Admission(slots=2, queue=4)
    greedy = [hold(admission, "greedy"), hold(admission, "greedy")]
    waiters = [Waiter(admission, "greedy") for _ in range(4)]  # 6 admitted: full
    assert admission.admitted == admission.capacity == 6
    other = Waiter(admission, "other")
    wait_until(lambda: waiters[-1].outcome is not None)
    assert waiters[-1].outcome == grpc.StatusCode.RESOURCE_EXHAUSTED  # the newest one
    assert admission.admitted_of("greedy") == 5 and admission.admitted_of("other") == 1
    greedy[0]()
    wait_until(lambda: other.outcome == "ran")  # the first slot to free
    assert other.finish() == "ran"
    greedy[1]()
    for w in waiters[:-1]:
        assert w.finish() == "ran"


def test_no_caller_is_displaced_for_one_with_as_many_searches():
    admission = Admission(slots=1, queue=2)
    running = hold(admission, "a")
    waiters = [Waiter(admission, "b"), Waiter(admission, "c")]
    with pytest.raises(RpcError) as info:  # a, b and c have 1 each: nobody to displace
        admission.enter(Context(), no_margin, "d").__enter__()
    assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    more = Waiter(admission, "b")  # nor for b, which would then have 2 (b keeps 1)
    assert more.outcome == grpc.StatusCode.RESOURCE_EXHAUSTED
    running()
    for w in waiters:
        assert w.finish() == "ran"


def test_closing_refuses_new_calls_then_queued_ones_with_unavailable():
    admission = Admission(slots=1, queue=2)
    running = hold(admission, "a")
    queued = Waiter(admission, "b")
    admission.close("stopping")
    with pytest.raises(RpcError) as info:
        admission.enter(Context(), no_margin, "c").__enter__()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
    assert info.value.message == "stopping"
    assert queued.outcome is None and admission.queued == 1  # still waiting for its turn
    admission.close("stopping", queued=True)
    assert queued.finish() == grpc.StatusCode.UNAVAILABLE
    assert admission.admitted == 1
    running()
    assert admission.admitted == 0
