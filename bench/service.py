"""Service benchmark: latency and throughput of the gRPC service, and its memory in a soak.

Starts ``council-ai serve`` on 127.0.0.1 (an ephemeral port) in a child process, then
measures from client threads in this process and prints one JSON object:

* ``empty_call``: an (almost) empty unary gRPC call, the health check, at 1/4/16 clients:
  the floor any call pays (HTTP/2, protobuf, the Python server's thread hand-off);
* ``list_legal_actions``: p50/p99 latency and requests per second at 1/4/16 clients over 12
  positions sent again and again, and ``list_legal_actions_over_empty_p50``;
  ``list_legal_actions_distinct_positions``: the same with a new position each call (the
  server keeps no cache: every request's position is read and validated in full, so both
  should cost the same; the target is ``..._over_empty_p50`` at most 1.2 with 1 client);
* ``recommend_action_100ms``: RecommendAction with a 100 ms time budget at 1/4/16 clients
  (more clients than search slots wait in the admission queue);
* ``cheap_calls_while_searching``: the health check and ListLegalActions from 32 clients
  while long searches fill every search slot (and as many wait in the queue): p50/p99 and
  ``refused``, the calls answered RESOURCE_EXHAUSTED (expected: none);
* ``error_reply_for_48kb_value``: the size of the error a client receives for a position
  whose king city is a 48 KB string (status message, details and the whole trailing
  metadata; the target is well under 8 KB, a C-core client's default metadata limit);
* ``soak``: the server's resident memory after warm-up and after a soak of mixed calls
  (60 s by default), and the growth in percent (the target is under 10%).

    python bench/service.py [--quick] [--soak SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time

import grpc
from google.protobuf import duration_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from council.engine import GameConfig, State
from council.engine.serialize import state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

CLIENTS = (1, 4, 16)


def positions(n: int = 12, seed: int = 100) -> list[pb.GameState]:
    """Seeded mid-game positions of 2, 3 and 4 players."""
    out = []
    for i in range(n):
        state = State.new_game(GameConfig(players=2 + i % 3), seed=seed + i)
        chooser = random.Random(i)
        for _ in range(20 + 7 * (i % 12)):
            if state.is_terminal():
                break
            state.apply(chooser.choice(state.legal_actions()))
        if not state.is_terminal():
            out.append(state_to_proto(state))
    return out


def start_server(queue: int) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--queue", str(queue), "--http-address", ""],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ready = json.loads(process.stdout.readline())
    return process, ready["listening"]


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(make_call, clients: int, per_client: int) -> dict:
    """`clients` threads, each making `per_client` calls back to back."""
    latencies: list[float] = []
    codes: dict[str, int] = {}
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def worker(index: int) -> None:
        call = make_call(index)
        mine, my_codes = [], {}
        barrier.wait()
        for k in range(per_client):
            t = time.perf_counter()
            try:
                call(k)
                code = "OK"
            except grpc.RpcError as error:
                code = error.code().name
            mine.append(time.perf_counter() - t)
            my_codes[code] = my_codes.get(code, 0) + 1
        with lock:
            latencies.extend(mine)
            for c, n in my_codes.items():
                codes[c] = codes.get(c, 0) + n

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {
        "clients": clients,
        "calls": len(latencies),
        "p50_ms": round(1000 * statistics.median(latencies), 3),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 3),
        "requests_per_s": round(len(latencies) / wall, 1),
        "codes": codes,
    }


BUSY_CLIENTS = 32


def while_searching(stubs, states, empty, listing, per_client: int) -> dict:
    """Cheap calls from BUSY_CLIENTS clients while searches hold every slot (one streaming
    search per slot, each seen running) and as many more wait in the queue; the searches
    (an hour asked, the server's maximum given) are cancelled afterwards."""
    slots = os.cpu_count() or 1
    hour = pb.SearchLimits(max_time=duration_pb2.Duration(seconds=3600))
    streams = [
        stubs[i % 4].AnalyzePosition(
            spb.AnalyzePositionRequest(state=states[i % len(states)], limits=hour), timeout=120
        )
        for i in range(slots)
    ]
    # A first report that is not the final one: this search holds a slot (a position with a
    # single legal action would be answered at once).
    holding = sum(not next(stream).final for stream in streams)
    queued = [
        stubs[i % 4].RecommendAction.future(
            spb.RecommendActionRequest(state=states[i % len(states)], limits=hour), timeout=120
        )
        for i in range(slots)
    ]
    try:
        out = {
            "search_slots": slots,
            "searches_running": holding,
            "searches_queued": len(queued),
            "empty_call": measure(empty, BUSY_CLIENTS, per_client),
            "list_legal_actions": measure(listing, BUSY_CLIENTS, per_client),
        }
    finally:
        for call in streams + queued:
            call.cancel()
    out["refused"] = sum(
        out[name]["codes"].get("RESOURCE_EXHAUSTED", 0)
        for name in ("empty_call", "list_legal_actions")
    )
    return out


def error_reply_for_bad_value(stub, state: pb.GameState, size: int = 48 * 1024) -> dict:
    """Send a position whose king city is `size` characters long and measure the error."""
    bad = pb.GameState()
    bad.CopyFrom(state)
    bad.board.king_city = "x" * size
    try:
        stub.ListLegalActions(spb.ListLegalActionsRequest(state=bad), timeout=30)
    except grpc.RpcError as error:
        trailers = error.trailing_metadata() or ()
        return {
            "value_bytes": size,
            "code": error.code().name,
            "details_bytes": len((error.details() or "").encode()),
            "trailing_metadata_bytes": sum(
                len(key) + len(value if isinstance(value, bytes) else value.encode())
                for key, value in trailers
            ),
        }
    raise AssertionError("a 48 KB king city was accepted")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and a 10 s soak")
    parser.add_argument("--soak", type=float, default=None, help="soak seconds (default 60)")
    args = parser.parse_args(argv)
    soak_s = args.soak if args.soak is not None else (10.0 if args.quick else 60.0)
    cheap_calls = 100 if args.quick else 400
    search_calls = 4 if args.quick else 10

    states = positions()
    process, address = start_server(queue=32)
    channels = [grpc.insecure_channel(address) for _ in range(4)]
    try:
        for ch in channels:
            grpc.channel_ready_future(ch).result(timeout=30)
        stubs = [service_pb2_grpc.CouncilServiceStub(ch) for ch in channels]
        healths = [health_pb2_grpc.HealthStub(ch) for ch in channels]
        list_requests = [spb.ListLegalActionsRequest(state=s) for s in states]
        # Distinct positions (each validated afresh: no cache hit) for the cold figures.
        fresh = positions(400 if not args.quick else 100, seed=1000)
        cold_requests = [spb.ListLegalActionsRequest(state=s) for s in fresh]
        cold_next = iter(range(10**9))
        budget = pb.SearchLimits(max_time=duration_pb2.Duration(nanos=100_000_000))
        recommend_requests = [spb.RecommendActionRequest(state=s, limits=budget) for s in states]

        def empty(i):
            health, request = healths[i % 4], health_pb2.HealthCheckRequest()
            return lambda k: health.Check(request, timeout=30)

        def listing(i):
            stub = stubs[i % 4]
            return lambda k: stub.ListLegalActions(
                list_requests[(i + k) % len(list_requests)], timeout=30
            )

        def listing_cold(i):
            stub = stubs[i % 4]
            return lambda k: stub.ListLegalActions(
                cold_requests[next(cold_next) % len(cold_requests)], timeout=30
            )

        def recommend(i):
            stub = stubs[i % 4]
            return lambda k: stub.RecommendAction(
                recommend_requests[(i + k) % len(recommend_requests)], timeout=60
            )

        measure(empty, 4, 50)  # warm-up: connections, threads, caches
        measure(listing, 4, 50)
        measure(recommend, 2, 2)
        results: dict = {
            "empty_call": [],
            "list_legal_actions": [],
            "list_legal_actions_distinct_positions": [],
            "recommend_action_100ms": [],
        }
        for clients in CLIENTS:  # interleaved, so they see the same machine load
            per = max(10, cheap_calls // clients)
            results["empty_call"].append(measure(empty, clients, per))
            results["list_legal_actions"].append(measure(listing, clients, per))
            cold = measure(listing_cold, clients, max(10, len(cold_requests) // clients))
            results["list_legal_actions_distinct_positions"].append(cold)
        for clients in CLIENTS:
            results["recommend_action_100ms"].append(measure(recommend, clients, search_calls))
        for name in ("list_legal_actions", "list_legal_actions_distinct_positions"):
            results[f"{name}_over_empty_p50"] = [
                round(lst["p50_ms"] / e["p50_ms"], 2)
                for lst, e in zip(results[name], results["empty_call"], strict=True)
            ]

        results["cheap_calls_while_searching"] = while_searching(
            stubs, states, empty, listing, max(10, cheap_calls // BUSY_CLIENTS)
        )
        results["error_reply_for_48kb_value"] = error_reply_for_bad_value(stubs[0], states[0])

        # Soak: mixed calls from 4 clients for soak_s seconds.
        before = rss_mib(process.pid)
        stop = threading.Event()
        counts = {"calls": 0, "errors": 0}
        lock = threading.Lock()
        quick = pb.SearchLimits(max_time=duration_pb2.Duration(nanos=20_000_000))

        def soak_worker(i: int) -> None:
            stub, rng = stubs[i % 4], random.Random(i)
            n = errors = 0
            while not stop.is_set():
                s = rng.choice(states)
                kind = rng.randrange(5)
                try:
                    if kind == 0:
                        stub.ListLegalActions(spb.ListLegalActionsRequest(state=s), timeout=30)
                    elif kind == 1:
                        stub.RecommendAction(
                            spb.RecommendActionRequest(state=s, limits=quick), timeout=30
                        )
                    elif kind == 2:
                        actions = stub.ListLegalActions(
                            spb.ListLegalActionsRequest(state=s), timeout=30
                        ).actions
                        stub.ApplyAction(
                            spb.ApplyActionRequest(
                                state=s, action_id=rng.choice(actions).id, include_views=True
                            ),
                            timeout=30,
                        )
                    elif kind == 3:
                        bad = pb.GameState()
                        bad.CopyFrom(s)
                        bad.players[0].coins = 999
                        with contextlib.suppress(grpc.RpcError):
                            stub.ListLegalActions(spb.ListLegalActionsRequest(state=bad))
                    else:
                        list(
                            stub.AnalyzePosition(
                                spb.AnalyzePositionRequest(state=s, limits=quick), timeout=30
                            )
                        )
                except grpc.RpcError:
                    errors += 1
                n += 1
            with lock:
                counts["calls"] += n
                counts["errors"] += errors

        workers = [threading.Thread(target=soak_worker, args=(i,)) for i in range(4)]
        for w in workers:
            w.start()
        time.sleep(soak_s)
        stop.set()
        for w in workers:
            w.join()
        after = rss_mib(process.pid)
        results["soak"] = {
            "seconds": soak_s,
            "clients": 4,
            **counts,
            "rss_before_mib": round(before, 1),
            "rss_after_mib": round(after, 1),
            "growth_percent": round(100 * (after - before) / before, 2),
        }
        results["machine"] = {
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "search_slots": os.cpu_count(),
        }
        print(json.dumps(results, indent=2))
    finally:
        for ch in channels:
            ch.close()
        process.terminate()
        process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
