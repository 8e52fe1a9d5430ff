"""AnalyzeGame (council.server.analyze_game): the review of a game record as a stream, over
gRPC, Connect (JSON and binary) and gRPC-Web: its messages in order, the seats filter, the
hindsight flag, a bad record's INVALID_ARGUMENT naming the path, the record cap, the slot
held one decision at a time and freed on cancel, the total budget and the deadline."""

from __future__ import annotations

import json
import random
import struct
import threading
import time

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.protobuf import duration_pb2, json_format
from server_helpers import violations, wait_until

from council.engine.games import game_named
from council.engine.record import record_of
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import record_pb2 as rpb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc
from council.v1.service_connect import CouncilServiceClientSync

SERVICE = "council.v1.CouncilService"
QUICK = pb.SearchLimits(iterations=200)


def kuhn_poker_record(seed: int = 2, texts=("pass", "bet", "call")) -> rpb.GameRecord:
    """A finished Kuhn poker game: three decisions, seats 0, 1, 0."""
    start = game_named("kuhn-poker").new_game(seed=seed)
    state, actions = start.clone(), []
    for text in texts:
        actions.append(state.action_from_text(text))
        state.apply(actions[-1])
    return record_of(start, actions)


def long_record(seed: int = 5) -> rpb.GameRecord:
    """A finished Council of Four game of random moves (several hundred decisions)."""
    start = game_named("council-of-four").new_game(seed=seed)
    state, actions, chooser = start.clone(), [], random.Random(seed)
    while not state.is_terminal():
        actions.append(chooser.choice(state.legal_actions()))
        state.apply(actions[-1])
    return record_of(start, actions)


def per_decision(seconds: float) -> pb.SearchLimits:
    return pb.SearchLimits(max_time=duration_pb2.Duration(nanos=int(seconds * 1e9)))


def check_stream(messages, record: rpb.GameRecord, seats=(0, 1), hindsight=False) -> None:
    """The stream's shape: progress alone, one analysis per decision of `seats` in record
    order, then the seats' summaries."""
    first, *moves, last = messages
    reviewed = [i for i, m in enumerate(record.moves) if m.seat in seats]
    assert first.progress.decisions_total == len(reviewed)
    assert first.progress.decisions_done == 0 and not first.HasField("move")
    assert not first.final and not first.seats
    assert [m.move.index for m in moves] == reviewed
    assert [m.progress.decisions_done for m in moves] == list(range(1, len(reviewed) + 1))
    for m in moves:
        played = record.moves[m.move.index]
        assert not m.final and m.move.seat == played.seat
        assert (m.move.played.id, m.move.played.text) == (played.action_id, played.text)
        assert m.move.line[0] == m.move.best.text and m.move.iterations > 0
        assert m.move.loss == pytest.approx(
            max(0.0, m.move.win_probability_best - m.move.win_probability_played)
        )
        # The points beside the win probability, in the game's unit; forced: only moves.
        assert m.move.points_lost == pytest.approx(
            0.0 if m.move.only_move else max(0.0, m.move.points_best - m.move.points_played)
        )
        assert m.move.severity >= m.move.loss and m.move.forced == m.move.only_move
        assert (
            m.move.points_unit in ("VP", "points", "chips") and m.move.line_seats[0] == played.seat
        )
    assert last.final and last.stop_reason == pb.STOP_REASON_UNSPECIFIED
    assert last.progress.decisions_done == len(reviewed) and not last.HasField("move")
    assert [s.seat for s in last.seats] == sorted(set(seats) & {m.seat for m in record.moves})
    for message in messages:
        assert message.hindsight == hindsight
    assert all(m.move.hindsight == hindsight for m in moves)


def test_progress_then_each_decision_then_the_summaries(stub, server):
    record = kuhn_poker_record()
    server.servicer.recent_searches.clear()  # (the shared server's may be full: it keeps 256)
    before = len(server.servicer.recent_searches)
    counted_before = kuhn_searches(server)
    messages = list(
        stub.AnalyzeGame(spb.AnalyzeGameRequest(record=record, limits=QUICK, seed=4), timeout=30)
    )
    check_stream(messages, record)
    assert len(messages) == 5
    summary = {s.seat: s for s in messages[-1].seats}
    assert summary[0].decisions == 2 and summary[1].decisions == 1
    assert summary[1].average_loss == pytest.approx(messages[2].move.loss)
    assert summary[1].average_points_lost == pytest.approx(messages[2].move.points_lost)
    assert messages[1].move.points_unit == "chips"
    # Each decision is recorded as the servicer records every search (recent searches and
    # metrics: a custom budget's searches of Kuhn poker that spent their iterations).
    recorded = list(server.servicer.recent_searches)[before:]
    assert [r.method for r in recorded] == ["AnalyzeGame"] * 3
    assert all(r.stop_reason == pb.STOP_REASON_ITERATIONS for r in recorded)
    assert kuhn_searches(server) == counted_before + 3


def kuhn_searches(server) -> float:
    """The server's metric of Kuhn poker's searches of a custom budget that spent it."""
    counted = server.servicer.metrics.registry.get_sample_value(
        "council_searches_total",
        {"game": "kuhn-poker", "preset": "custom", "stop_reason": "iterations"},
    )
    return counted or 0.0


def test_the_seats_filter(stub):
    record = kuhn_poker_record()
    request = spb.AnalyzeGameRequest(record=record, seats=[1], limits=QUICK)
    messages = list(stub.AnalyzeGame(request, timeout=30))
    check_stream(messages, record, seats=(1,))
    assert [m.move.seat for m in messages[1:-1]] == [1]


def test_hindsight_is_flagged_on_every_message(stub):
    record = kuhn_poker_record()
    request = spb.AnalyzeGameRequest(record=record, limits=QUICK, hindsight=True)
    hindsight = list(stub.AnalyzeGame(request, timeout=30))
    check_stream(hindsight, record, hindsight=True)
    # Seat 1's queen against seat 0's king, seen: a hand its view rates even, not in hindsight.
    request.hindsight = False
    seen = list(stub.AnalyzeGame(request, timeout=30))
    check_stream(seen, record)
    assert hindsight[2].move.win_probability_before < 0.35 < seen[2].move.win_probability_before


def bad_records() -> list[tuple[spb.AnalyzeGameRequest, str, str]]:
    """(request, path, words of the problem) of requests AnalyzeGame refuses."""
    illegal = kuhn_poker_record()
    illegal.moves[1].action_id = 7
    wrong_text = kuhn_poker_record()
    wrong_text.moves[2].text = "fold"
    bad_start = kuhn_poker_record()
    bad_start.start.kuhn_poker.cards[:] = ["K", "K"]
    result = kuhn_poker_record()
    result.scores[:] = [-2, 2]
    too_long = kuhn_poker_record()
    for _ in range(ServerConfig().max_record_moves):
        too_long.moves.add().CopyFrom(too_long.moves[0])
    good = kuhn_poker_record()
    return [
        (spb.AnalyzeGameRequest(), "record", "required"),
        (spb.AnalyzeGameRequest(record=illegal), "record.moves[1].action_id", "not a legal"),
        (spb.AnalyzeGameRequest(record=wrong_text), "record.moves[2].text", "does not name"),
        (spb.AnalyzeGameRequest(record=bad_start), "record.start.kuhn_poker", ""),
        (spb.AnalyzeGameRequest(record=result), "record.scores", "replayed"),
        (spb.AnalyzeGameRequest(record=too_long), "record.moves", "max_record_moves"),
        (spb.AnalyzeGameRequest(record=good, seats=[0, 2]), "seats[1]", "must be in 0..1"),
        (spb.AnalyzeGameRequest(record=good, seats=[1, 1]), "seats[1]", "named twice"),
        (
            spb.AnalyzeGameRequest(record=good, limits=pb.SearchLimits(iterations=0)),
            "limits.iterations",
            "at least 1",
        ),
        (
            spb.AnalyzeGameRequest(record=good, total_time=duration_pb2.Duration(seconds=-1)),
            "total_time",
            "positive",
        ),
    ]


@pytest.mark.parametrize("case", range(len(bad_records())))
def test_a_bad_request_is_invalid_argument_naming_the_path(stub, case):
    request, path, words = bad_records()[case]
    with pytest.raises(grpc.RpcError) as refused:
        next(stub.AnalyzeGame(request, timeout=30))  # before any message
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    found = violations(refused.value)
    assert any(f.startswith(path) and words in p for f, p in found), found
    assert refused.value.details().startswith(found[0][0])


def test_the_server_limits_are_checked():
    for wrong in ({"max_record_moves": 0}, {"max_review_time_s": 0.0}):
        with pytest.raises(ValueError, match="max_record_moves and max_review_time_s"):
            ServerConfig(**wrong).resolved()


# -- over HTTP -----------------------------------------------------------------------------

HTTP_CLIENTS = {
    "connect-json": (ProtocolType.CONNECT, True),
    "connect-proto": (ProtocolType.CONNECT, False),
    "grpc-web": (ProtocolType.GRPC_WEB, False),
}


@pytest.fixture(scope="module", params=list(HTTP_CLIENTS))
def web(http_server, request):
    protocol, as_json = HTTP_CLIENTS[request.param]
    with CouncilServiceClientSync(
        f"http://{http_server.http_address}", protocol=protocol, proto_json=as_json
    ) as client:
        yield client


def test_the_same_stream_over_http(web, grpc_stub):
    record = kuhn_poker_record(seed=9, texts=("bet", "fold"))
    request = spb.AnalyzeGameRequest(record=record, limits=QUICK, seed=3, hindsight=True)
    over_http = list(web.analyze_game(request))
    check_stream(over_http, record, hindsight=True)
    assert over_http == list(grpc_stub.AnalyzeGame(request, timeout=30))


def test_a_bad_record_over_http_names_the_path(web, grpc_stub):
    request, path, _ = bad_records()[1]
    with pytest.raises(ConnectError) as over_http:
        list(web.analyze_game(request))
    with pytest.raises(grpc.RpcError) as over_grpc:
        list(grpc_stub.AnalyzeGame(request, timeout=30))
    assert over_http.value.code == Code.INVALID_ARGUMENT
    assert over_http.value.message == over_grpc.value.details()
    assert path in over_http.value.message


def test_the_connect_json_wire(http_server):
    """What a browser's Connect client reads: enveloped JSON messages, then the end message
    (with the error of a bad record, and its BadRequest detail)."""
    import urllib.request

    def post(request: spb.AnalyzeGameRequest) -> list[tuple[int, dict]]:
        body = json_format.MessageToJson(request).encode()
        call = urllib.request.Request(
            f"http://{http_server.http_address}/{SERVICE}/AnalyzeGame",
            data=struct.pack(">BI", 0, len(body)) + body,
            headers={"Content-Type": "application/connect+json"},
        )
        with urllib.request.urlopen(call, timeout=30) as answer:
            assert answer.status == 200
            data = answer.read()
        frames, at = [], 0
        while at < len(data):
            flags, size = struct.unpack(">BI", data[at : at + 5])
            frames.append((flags, json.loads(data[at + 5 : at + 5 + size])))
            at += 5 + size
        return frames

    *messages, (end_flags, end) = post(spb.AnalyzeGameRequest(record=kuhn_poker_record()))
    assert end_flags == 2 and "error" not in end
    assert messages[0][1]["progress"] == {"decisionsTotal": 3}
    assert messages[-1][1]["final"] is True and len(messages) == 5
    request, path, _ = bad_records()[1]
    [(end_flags, end)] = post(request)
    assert end_flags == 2 and end["error"]["code"] == "invalid_argument"
    (detail,) = end["error"]["details"]
    assert detail["debug"]["fieldViolations"][0]["field"] == path


# -- slots, cancellation, budgets ----------------------------------------------------------


@pytest.fixture
def one_slot():
    """A server of one search slot and one queue place."""
    running = start_server(
        ServerConfig(address="127.0.0.1:0", search_slots=1, search_queue=1, max_search_time_s=20)
    )
    with grpc.insecure_channel(running.address) as channel:
        yield running, service_pb2_grpc.CouncilServiceStub(channel)
    running.stop(grace=None)


def test_a_cancelled_review_frees_its_slot(one_slot):
    running, stub = one_slot
    servicer = running.servicer
    request = spb.AnalyzeGameRequest(record=long_record(), limits=per_decision(0.2))
    stream = stub.AnalyzeGame(request, timeout=60)
    next(stream), next(stream)  # the progress, the first decision's analysis
    assert servicer.active_searches == 1
    stream.cancel()
    wait_until(lambda: servicer.active_searches == 0 and servicer.admission.admitted == 0, 5)
    reviewed = len(servicer.recent_searches)
    assert reviewed <= 3  # the decision under way when the call ended, and no more
    time.sleep(0.5)
    assert len(servicer.recent_searches) == reviewed
    # The slot serves the next call.
    answer = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=long_record().start, limits=pb.SearchLimits(iterations=50)
        ),
        timeout=10,
    )
    assert answer.result.stats.iterations == 50


def test_a_review_holds_a_slot_only_while_a_decision_is_searched(one_slot):
    running, stub = one_slot
    request = spb.AnalyzeGameRequest(
        record=long_record(), limits=per_decision(0.1), total_time=duration_pb2.Duration(seconds=3)
    )
    stream = stub.AnalyzeGame(request, timeout=60)
    next(stream), next(stream)
    # Another caller's hint (a token names the caller), queued behind the review's decision,
    # is served once that decision ends, while the review goes on: the review holds the one
    # slot only while it searches, and its caller's cap (one search) lets it take the slot
    # again for each decision.
    started = time.monotonic()
    answer = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=long_record().start, limits=pb.SearchLimits(iterations=100)
        ),
        timeout=10,
        metadata=[("authorization", "Bearer another-caller")],
    )
    assert answer.result.stats.iterations == 100
    assert time.monotonic() - started < 1.0
    rest = list(stream)
    assert rest[-1].final and len(rest) >= 3


def test_the_total_time_ends_the_review(one_slot):
    _, stub = one_slot
    record = long_record()
    request = spb.AnalyzeGameRequest(
        record=record,
        limits=per_decision(0.05),
        total_time=duration_pb2.Duration(nanos=500_000_000),
    )
    started = time.monotonic()
    messages = list(stub.AnalyzeGame(request, timeout=30))
    assert time.monotonic() - started < 2.0
    last = messages[-1]
    assert last.final and last.stop_reason == pb.STOP_REASON_TIME
    assert 1 <= last.progress.decisions_done < last.progress.decisions_total == len(record.moves)
    assert len(messages) == last.progress.decisions_done + 2
    assert sum(s.decisions for s in last.seats) <= last.progress.decisions_done


def test_the_deadline_ends_the_review_with_its_summary(one_slot):
    _, stub = one_slot
    request = spb.AnalyzeGameRequest(record=long_record(), limits=per_decision(0.05))
    messages = list(stub.AnalyzeGame(request, timeout=1.0))  # not DEADLINE_EXCEEDED
    assert messages[-1].final and messages[-1].stop_reason == pb.STOP_REASON_DEADLINE
    assert messages[-1].progress.decisions_done >= 1


def test_a_stopping_server_ends_the_review_with_its_summary(one_slot):
    running, stub = one_slot
    request = spb.AnalyzeGameRequest(record=long_record(), limits=per_decision(0.2))
    stream = stub.AnalyzeGame(request, timeout=30)
    next(stream), next(stream)
    running.servicer.cancel_all()  # what a server's shutdown does once its grace is spent
    *moves, last = list(stream)
    assert last.final and last.stop_reason == pb.STOP_REASON_CANCELLED
    assert len(moves) <= 1 and last.progress.decisions_done < last.progress.decisions_total


def test_a_client_gone_over_http_frees_the_slot(http_server):
    servicer = http_server.servicer
    wait_until(lambda: servicer.active_searches == 0, 10)
    request = spb.AnalyzeGameRequest(record=long_record(), limits=per_decision(0.2))
    done = threading.Event()

    def read_two_then_leave():
        with CouncilServiceClientSync(
            f"http://{http_server.http_address}", protocol=ProtocolType.GRPC_WEB
        ) as client:
            stream = client.analyze_game(request)
            next(stream), next(stream)
            assert servicer.active_searches == 1
            stream.close()
        done.set()

    reader = threading.Thread(target=read_two_then_leave)
    reader.start()
    reader.join(20)
    assert done.is_set()
    wait_until(lambda: servicer.active_searches == 0 and servicer.admission.admitted == 0, 5)
