"""Admission: slots, a first-come-first-served queue, refusal when full, and queued calls
leaving when their client goes away or their deadline comes too close."""

from __future__ import annotations

import threading

import grpc
import pytest

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


def wait_until(condition, timeout: float = 10.0) -> None:
    done = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("condition not reached")


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
