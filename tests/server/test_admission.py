"""Admission: slots, a queue served fairly between callers (fewest running first, then first
come first served), refusal or displacement when full, closing on shutdown, and queued calls
leaving when their client goes away or their deadline comes too close; a cap per caller,
callers told apart by their bearer tokens, and a hog's search stopped for a call that has
waited too long behind it (also over gRPC and HTTP)."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.request

import grpc
import pytest
from google.protobuf import duration_pb2, json_format
from server_helpers import played, to_proto, wait_until

from council.server.admission import Admission, caller_of
from council.server.app import start_server
from council.server.config import ServerConfig
from council.server.errors import RpcError
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc


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


def test_a_caller_at_its_cap_is_refused_at_once_naming_the_cap():
    admission = Admission(slots=1, queue=4, per_caller=2)
    running = hold(admission, "hog")
    queued = Waiter(admission, "hog")
    with pytest.raises(RpcError) as info:  # running + queued = 2: the cap
        admission.enter(Context(), no_margin, "hog").__enter__()
    assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "--max-searches-per-caller 2" in info.value.message
    assert admission.admitted_of("hog") == 2
    other = Waiter(admission, "other")  # another caller still gets a place
    assert admission.queued == 2 and other.outcome is None
    running()
    assert queued.finish() == "ran"
    assert other.finish() == "ran"
    assert admission.admitted == 0


def test_by_default_one_caller_can_fill_every_slot_but_not_every_place():
    def cap(**sizes) -> int:
        return ServerConfig(**sizes).resolved().searches_per_caller

    assert cap(search_slots=2) == 2  # the slots; the queue (4) stays for the others
    assert cap(search_slots=3, search_queue=0) == 2  # no queue: a slot stays for the others
    assert cap(search_slots=1, search_queue=0) == 1
    assert cap(search_slots=2, max_searches_per_caller=5) == 5
    with pytest.raises(ValueError, match="max_searches_per_caller"):
        ServerConfig(max_searches_per_caller=-1).resolved()
    with pytest.raises(ValueError, match="max_queue_wait_s"):
        ServerConfig(max_queue_wait_s=0).resolved()


def held_search(admission: Admission, caller: str, stopped: list, name: str):
    """Enter a slot (the caller must get one at once) with a search that admission may stop
    (`name` goes to `stopped`); return the exit."""
    entered = admission.enter(Context(), no_margin, caller, stop=lambda: stopped.append(name))
    entered.__enter__()
    return lambda: entered.__exit__(None, None, None)


def test_a_call_waiting_behind_a_hog_stops_its_newest_search_after_the_bound():
    admission = Admission(slots=2, queue=2, max_queue_wait_s=0.05)
    stopped: list[str] = []
    first = held_search(admission, "hog", stopped, "first")
    second = held_search(admission, "hog", stopped, "second")
    polite = Waiter(admission, "polite")
    wait_until(lambda: stopped == ["second"])
    assert polite.outcome is None  # the slot is the stopped search's until it answers
    second()
    wait_until(lambda: polite.outcome == "ran")
    time.sleep(0.2)  # four bounds more: the hog's other search runs on
    assert stopped == ["second"]
    assert polite.finish() == "ran"
    first()
    assert admission.admitted == 0


def test_no_search_is_stopped_for_a_caller_that_would_only_trade_places():
    admission = Admission(slots=2, queue=4, max_queue_wait_s=0.02)
    stopped: list[str] = []
    a = held_search(admission, "a", stopped, "a")
    b = held_search(admission, "b", stopped, "b")
    waiters = [Waiter(admission, "c"), Waiter(admission, "a")]  # c: 0 running, a: 1 of its own
    time.sleep(0.3)  # 15 bounds: stopping a or b for c would leave one caller with 0 again
    assert stopped == [] and all(w.outcome is None for w in waiters)
    a()
    b()
    for w in waiters:
        assert w.finish() == "ran"


class DeadlineContext(Context):
    """A call with a real deadline `timeout` seconds from now."""

    def __init__(self, timeout: float):
        super().__init__()
        self.deadline = time.monotonic() + timeout

    def time_remaining(self):
        return max(self.deadline - time.monotonic(), 0.0)


def server_margin(left: float) -> float:
    return ServerConfig().deadline_margin(left)  # 20 ms + 10% of the time left


def test_a_queued_call_leaves_when_its_margin_is_reached_before_its_deadline():
    admission = Admission(slots=1, queue=8)
    running = hold(admission, "a")
    left_when_refused: list[tuple[grpc.StatusCode, float]] = []

    def waiter(index: int, timeout: float) -> None:
        context = DeadlineContext(timeout)
        try:
            admission.enter(context, server_margin, f"w{index}").__enter__()
        except RpcError as error:
            left_when_refused.append((error.code, context.time_remaining()))

    # Deadlines spread over 50 ms: whatever the moment a call would look at its deadline
    # next, some of them reach their margin just after it.
    threads = [
        threading.Thread(target=waiter, args=(i, 0.2 + deadline - SPREAD_DEADLINES_S[0]))
        for i, deadline in enumerate(SPREAD_DEADLINES_S)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert [code for code, _ in left_when_refused] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 5
    # Each leaves with the margin of its arrival left (about 40 ms), time for the refusal
    # to reach the client; a call that looked at its deadline only now and then would see
    # some of them too late (after the deadline: none left).
    assert min(left for _, left in left_when_refused) > 0.01, left_when_refused
    running()


# -- over the real transports ----------------------------------------------------------
HOUR = pb.SearchLimits(max_time=duration_pb2.Duration(seconds=3600))
BEGINNER = pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER)
# Deadlines spread over 50 ms: a queued call that wakes only now and then to look at its
# deadline misses some of them (it answers after the deadline: DEADLINE_EXCEEDED).
SPREAD_DEADLINES_S = [0.60, 0.61, 0.62, 0.63, 0.64]


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def code_of(future) -> grpc.StatusCode:
    try:
        future.result()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def own_connection(address: str) -> grpc.Channel:
    """A channel with a connection of its own (channels of one process with the same
    arguments share one)."""
    return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


@pytest.fixture
def busy_server():
    """A server with one slot, taken by an hour-long search (capped at 20 s) of a caller
    with one search: none waiting behind it has a caller with two more, so nobody's search
    is stopped for another's, and a queued call waits until its deadline comes too close."""
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=1,
            search_queue=8,
            max_search_time_s=20,
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    channel = grpc.insecure_channel(running.address)
    stub = service_pb2_grpc.CouncilServiceStub(channel)
    holder = stub.RecommendAction.future(
        spb.RecommendActionRequest(state=state, limits=HOUR), timeout=60, metadata=bearer("holder")
    )
    wait_until(lambda: running.servicer.active_searches == 1)
    try:
        yield running, stub, state
    finally:
        holder.cancel()
        channel.close()
        running.stop(grace=None)


def test_a_queued_call_whose_deadline_cannot_be_met_gets_resource_exhausted_over_grpc(
    busy_server,
):
    running, stub, state = busy_server
    short = spb.RecommendActionRequest(state=state, limits=BEGINNER)
    calls = [
        stub.RecommendAction.future(short, timeout=deadline, metadata=bearer(f"waiter-{i}"))
        for i, deadline in enumerate(SPREAD_DEADLINES_S)
    ]
    codes = [code_of(call) for call in calls]
    assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * len(calls)
    for call in calls:
        assert "deadline" in call.exception().details()
    assert running.servicer.admission.queued == 0


def test_a_queued_call_whose_deadline_cannot_be_met_gets_resource_exhausted_over_http(
    busy_server,
):
    running, _, state = busy_server
    host, port = running.http_address.rsplit(":", 1)
    body = json.dumps(
        {
            "state": json_format.MessageToDict(state),
            "limits": {"preset": "STRENGTH_PRESET_BEGINNER"},
        }
    )
    connections = [
        http.client.HTTPConnection(host, int(port), timeout=20) for _ in SPREAD_DEADLINES_S
    ]
    try:
        for connection, deadline in zip(connections, SPREAD_DEADLINES_S, strict=True):
            connection.request(
                "POST",
                "/council.v1.CouncilService/RecommendAction",
                body,
                {
                    "Content-Type": "application/json",
                    "Connect-Timeout-Ms": str(round(deadline * 1000)),
                },
            )
        answers = []
        for connection in connections:
            answer = connection.getresponse()
            answers.append((answer.status, json.loads(answer.read())["code"]))
    finally:
        for connection in connections:
            connection.close()
    assert answers == [(429, "resource_exhausted")] * len(connections)


class Call:
    """What `caller_of` reads of a call: its metadata and its peer."""

    def __init__(self, token: str, peer: str = "ipv4:127.0.0.1:1"):
        self.metadata = bearer(token)
        self._peer = peer

    def invocation_metadata(self):
        return self.metadata

    def peer(self):
        return self._peer


def test_callers_are_told_apart_by_their_bearer_tokens_over_grpc():
    running = start_server(
        ServerConfig(address="127.0.0.1:0", search_slots=2, search_queue=2, max_search_time_s=20)
    )
    state = to_proto(played(3, seed=3, actions=12))
    hour = spb.RecommendActionRequest(state=state, limits=HOUR)
    # Two channels of one process with the same arguments share one connection.
    first, second = grpc.insecure_channel(running.address), grpc.insecure_channel(running.address)
    calls = []
    try:
        # Two stubs of one channel with distinct tokens, and a second channel with a third.
        for channel, token in ((first, "alice"), (first, "carol"), (second, "bob")):
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            calls.append(stub.RecommendAction.future(hour, timeout=60, metadata=bearer(token)))
        admission = running.servicer.admission
        wait_until(lambda: admission.admitted == 3)
        for token in ("alice", "carol", "bob"):  # three callers of a search each
            assert admission.admitted_of(caller_of(Call(token))) == 1
    finally:
        for call in calls:
            call.cancel()
        first.close()
        second.close()
        running.stop(grace=None)


def test_a_search_beyond_the_callers_cap_is_refused_at_once_naming_the_cap():
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=2,
            search_queue=2,
            max_search_time_s=20,
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    hour = spb.RecommendActionRequest(state=state, limits=HOUR)
    channel, other_connection = (
        grpc.insecure_channel(running.address),
        own_connection(running.address),
    )
    stub = service_pb2_grpc.CouncilServiceStub(channel)
    calls = [stub.RecommendAction.future(hour, timeout=60, metadata=bearer("hog")) for _ in "ab"]
    try:
        wait_until(lambda: running.servicer.active_searches == 2)
        # The third, over another connection with the same token: the same caller.
        with pytest.raises(grpc.RpcError) as info:
            service_pb2_grpc.CouncilServiceStub(other_connection).RecommendAction(
                hour, timeout=2, metadata=bearer("hog")
            )
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max-searches-per-caller 2" in info.value.details()
        # Over HTTP (Connect JSON) with that token, the same.
        call = urllib.request.Request(
            f"http://{running.http_address}/council.v1.CouncilService/RecommendAction",
            data=json.dumps(
                {"state": json_format.MessageToDict(state), "limits": {"maxTime": "3600s"}}
            ).encode(),
            headers={
                "Content-Type": "application/json",
                "Authorization": "Bearer hog",
                "Connect-Timeout-Ms": "2000",
            },
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(call, timeout=20)
        error = json.loads(refused.value.read())
        assert refused.value.code == 429 and error["code"] == "resource_exhausted"
        assert "--max-searches-per-caller 2" in error["message"]
        # Another token on the same channel is another caller: it gets the queue place.
        calls.append(stub.RecommendAction.future(hour, timeout=60, metadata=bearer("polite")))
        wait_until(lambda: running.servicer.admission.queued == 1)
    finally:
        for call in calls:
            call.cancel()
        channel.close()
        other_connection.close()
        running.stop(grace=None)


def test_a_hog_keeps_another_callers_search_waiting_about_the_bound_at_most():
    # The hog holds its cap, every slot, with hour-long searches (capped at 20 s) and sends
    # another each time one ends; a polite caller's beginner search is answered after about
    # max_queue_wait_s (1 s), over gRPC and over HTTP, long before any hog search's end.
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=2,
            search_queue=2,
            max_search_time_s=20,
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    hour = spb.RecommendActionRequest(state=state, limits=HOUR)
    channel = grpc.insecure_channel(running.address)
    stub = service_pb2_grpc.CouncilServiceStub(channel)
    hog: list = []

    def hog_holds_every_slot() -> None:
        while sum(not call.done() for call in hog) < 2:
            hog.append(stub.RecommendAction.future(hour, timeout=60, metadata=bearer("hog")))
        wait_until(lambda: running.servicer.active_searches == 2)

    def stopped_hog_searches(count: int) -> list:
        # Its slot is handed over before its answer is sent: that comes a moment later.
        wait_until(lambda: sum(call.done() for call in hog) >= count)
        return [call.result().result.stats for call in hog if call.done()]

    try:
        hog_holds_every_slot()
        start = time.monotonic()
        answer = stub.RecommendAction(
            spb.RecommendActionRequest(state=state, limits=BEGINNER),
            timeout=6,
            metadata=bearer("polite"),
        )
        grpc_wait = time.monotonic() - start
        assert answer.result.stats.iterations > 0
        # The hog's newest search was stopped and answered with its best action so far.
        (stopped,) = stopped_hog_searches(1)
        assert stopped.stop_reason == pb.STOP_REASON_CANCELLED and stopped.iterations > 0

        hog_holds_every_slot()
        call = urllib.request.Request(
            f"http://{running.http_address}/council.v1.CouncilService/RecommendAction",
            data=json.dumps(
                {
                    "state": json_format.MessageToDict(state),
                    "limits": {"preset": "STRENGTH_PRESET_BEGINNER"},
                }
            ).encode(),
            headers={"Content-Type": "application/json", "Connect-Timeout-Ms": "6000"},
        )
        start = time.monotonic()
        with urllib.request.urlopen(call, timeout=20) as reply:
            assert int(json.load(reply)["result"]["stats"]["iterations"]) > 0
        http_wait = time.monotonic() - start
        assert len(stopped_hog_searches(2)) == 2
        # Generous: the bound is 1 s; a hog search would have held its slot for 20 s.
        assert grpc_wait < 5 and http_wait < 5
    finally:
        for call in hog:
            call.cancel()
        channel.close()
        running.stop(grace=None)
