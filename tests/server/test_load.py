"""Load over a real server: cheap calls are never refused while searches fill every slot and
queue place, and search admission is fair between callers (docs/service.md, "Concurrency and
admission"). Behaviour tests: they count refusals and order answers, never time them."""

from __future__ import annotations

import http.client
import json
import struct
import threading
from collections import Counter

import grpc
from google.protobuf import duration_pb2, json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from server_helpers import played, to_proto, wait_until

from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

HOUR = pb.SearchLimits(max_time=duration_pb2.Duration(seconds=3600))


def own_connection(address: str) -> grpc.Channel:
    """A channel with a connection of its own (channels of one process with the same
    arguments share one), hence a caller of its own for the server's admission."""
    return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


def code_of(future) -> grpc.StatusCode:
    try:
        future.result()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def test_cheap_calls_are_not_refused_while_searches_fill_every_slot_and_queue_place():
    slots, queue, callers, calls_each = 2, 2, 32, 12
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            search_slots=slots,
            search_queue=queue,
            max_searches_per_caller=slots + queue,  # one caller fills every place
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    channels = [own_connection(running.address) for _ in range(4)]
    try:
        searcher = service_pb2_grpc.CouncilServiceStub(channels[0])
        searches = [
            searcher.RecommendAction.future(
                spb.RecommendActionRequest(state=state, limits=HOUR), timeout=120
            )
            for _ in range(slots + queue)
        ]
        admission = running.servicer.admission
        wait_until(lambda: admission.admitted == slots + queue)
        # Every slot and queue place is taken: one more search is refused at once...
        with_no_place = searcher.RecommendAction.future(
            spb.RecommendActionRequest(state=state, limits=HOUR), timeout=120
        )
        assert code_of(with_no_place) == grpc.StatusCode.RESOURCE_EXHAUSTED

        # ... while 32 callers at once, four to a connection, get every cheap call answered.
        new_game = spb.NewGameRequest(config=pb.GameConfig(players=3), seed=5)
        listing = spb.ListLegalActionsRequest(state=state)
        codes: Counter[str] = Counter()
        lock = threading.Lock()
        start = threading.Barrier(callers)

        def caller(index: int) -> None:
            channel = channels[index % len(channels)]
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            mine: Counter[str] = Counter()
            start.wait()
            for k in range(calls_each):
                try:
                    kind = (index + k) % 5
                    if kind == 0:
                        health.Check(health_pb2.HealthCheckRequest(), timeout=60)
                    elif kind == 1:
                        stub.ListLegalActions(listing, timeout=60)
                    elif kind == 2:
                        stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=60)
                    elif kind == 3:
                        stub.NewGame(new_game, timeout=60)
                    else:
                        first = stub.ListLegalActions(listing, timeout=60).actions[0].id
                        stub.ApplyAction(
                            spb.ApplyActionRequest(state=state, action_id=first), timeout=60
                        )
                    mine["OK"] += 1
                except grpc.RpcError as error:
                    mine[error.code().name] += 1
            with lock:
                codes.update(mine)

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(callers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert codes == {"OK": callers * calls_each}
        # The searches were busy all along.
        assert admission.admitted == slots + queue
        assert running.servicer.active_searches == slots
        for search in searches:
            search.cancel()
        assert running.servicer.wait_idle(20)
    finally:
        for channel in channels:
            channel.close()
        running.stop(grace=None)


def test_a_greedy_caller_does_not_keep_another_caller_waiting_beyond_one_slot():
    slots, queue, max_time = 2, 4, 1.5
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            search_slots=slots,
            search_queue=queue,
            max_search_time_s=max_time,
            max_searches_per_caller=slots + queue,  # one caller fills every place
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    greedy_channel, other_channel = own_connection(running.address), own_connection(running.address)
    try:
        greedy = service_pb2_grpc.CouncilServiceStub(greedy_channel)
        hour = spb.RecommendActionRequest(state=state, limits=HOUR)
        admission = running.servicer.admission
        greedy_calls = []
        for _ in range(slots + queue):  # in order, so that the last one is the newest queued
            greedy_calls.append(greedy.RecommendAction.future(hour, timeout=120))
            wait_until(lambda: admission.admitted == len(greedy_calls))
        assert admission.queued == queue  # every place taken by one caller

        other = service_pb2_grpc.CouncilServiceStub(other_channel)
        short = spb.RecommendActionRequest(state=state, limits=pb.SearchLimits(iterations=50))
        answer = other.RecommendAction(short, timeout=120)
        # Answered once one of the searches that were running had ended, before any of the
        # greedy caller's queued searches could run to its (capped) end.
        greedy_done = [c for c in greedy_calls[:-1] if c.done()]
        assert answer.result.stats.iterations == 50
        assert len(greedy_done) <= slots
        # To let it in, the greedy caller's newest queued search was refused.
        assert code_of(greedy_calls[-1]) == grpc.StatusCode.RESOURCE_EXHAUSTED
        # A search longer than the server's maximum is capped to it.
        first = greedy_calls[0].result()
        assert first.result.stats.time_budget.ToTimedelta().total_seconds() == max_time
        assert first.result.stats.stop_reason == pb.STOP_REASON_TIME
        for call in greedy_calls:
            call.cancel()
        wait_until(lambda: admission.admitted == 0)  # cancelled ones leave the queue too
    finally:
        greedy_channel.close()
        other_channel.close()
        running.stop(grace=None)


def test_http_clients_are_callers_of_their_own():
    # Over HTTP a caller is the client's connection as well (CallContext.peer, gRPC's
    # ipv4:host:port), for Connect and gRPC-Web calls alike: one HTTP client's running search
    # does not count against another's.
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            search_slots=2,
            search_queue=2,
            max_search_time_s=60,
        )
    )
    state = to_proto(played(3, seed=3, actions=12))
    admission = running.servicer.admission
    host, port = running.http_address.rsplit(":", 1)
    channel = own_connection(running.address)
    over_connect = http.client.HTTPConnection(host, int(port), timeout=20)
    over_grpc_web = http.client.HTTPConnection(host, int(port), timeout=20)
    searches = []
    try:
        # A Connect client's hour-long search runs...
        over_connect.connect()
        connect_peer = "ipv4:{}:{}".format(*over_connect.sock.getsockname())
        hour = {"state": json_format.MessageToDict(state), "limits": {"maxTime": "3600s"}}
        over_connect.request(
            "POST",
            "/council.v1.CouncilService/RecommendAction",
            json.dumps(hour),
            {"Content-Type": "application/json"},
        )
        wait_until(lambda: admission.admitted_of(connect_peer) == 1)
        # ... beside a gRPC caller's.
        grpc_caller = service_pb2_grpc.CouncilServiceStub(channel)
        searches.append(
            grpc_caller.RecommendAction.future(
                spb.RecommendActionRequest(state=state, limits=HOUR), timeout=120
            )
        )
        wait_until(lambda: running.servicer.active_searches == 2)
        # A gRPC-Web client's short search waits, a caller of its own (X-Forwarded-For, which
        # any local client could send, is not believed)...
        over_grpc_web.connect()
        web_peer = "ipv4:{}:{}".format(*over_grpc_web.sock.getsockname())
        short = spb.RecommendActionRequest(state=state, limits=pb.SearchLimits(iterations=50))
        message = short.SerializeToString()
        over_grpc_web.request(
            "POST",
            "/council.v1.CouncilService/RecommendAction",
            struct.pack(">BI", 0, len(message)) + message,
            {"Content-Type": "application/grpc-web+proto", "X-Forwarded-For": "10.9.8.7"},
        )
        wait_until(lambda: admission.admitted_of(web_peer) == 1)
        assert web_peer != connect_peer and admission.admitted_of(connect_peer) == 1
        assert admission.admitted_of("") == 0 and admission.queued == 1
        # ... and then a second search of the gRPC caller.
        searches.append(
            grpc_caller.RecommendAction.future(
                spb.RecommendActionRequest(state=state, limits=HOUR), timeout=120
            )
        )
        wait_until(lambda: admission.queued == 2)
        # The gRPC caller's running search ends. The slot goes to the waiting caller with the
        # fewest searches running: the gRPC-Web client has none (nor has the gRPC caller now,
        # and it came first). Were the two HTTP clients one caller, the Connect client's
        # running search would count against it, and the gRPC caller's hour would go first.
        searches[0].cancel()
        answer = over_grpc_web.getresponse()
        body = answer.read()
        size = struct.unpack(">I", body[1:5])[0]
        result = spb.RecommendActionResponse.FromString(body[5 : 5 + size]).result
        assert answer.status == 200 and body[5 + size :].endswith(b"grpc-status: 0\r\n")
        assert result.stats.iterations == 50
        assert not searches[1].done()
    finally:
        for search in searches:
            search.cancel()
        over_connect.close()  # a client that goes away cancels its search
        over_grpc_web.close()
        channel.close()
        running.stop(grace=None)
