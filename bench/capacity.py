"""Capacity benchmark: how many concurrent games a core serves, and what nginx costs.

Starts ``council-ai serve`` children on 127.0.0.1 (and Debian's nginx in front, as
``make deploy-local`` does: deploy/local.py), drives them from client threads over gRPC and
prints one JSON object (also written to bench/results/capacity.json unless --no-save):

* ``moves``: for each game (its default seats) and preset, bot moves per second per core:
  RecommendAction from mid-game positions, ``2 x cores`` clients back to back against one
  replica with a search slot per core (``--workers``, the default), for ``--seconds``;
  with the latency of a move under that load (p50/p99) and ``games_per_core``, the
  concurrent games a core keeps up with at one bot move per ``--move-interval`` seconds (a
  person's game: 10 s): moves/s/core x interval;
* ``replicas``: Council of Four's casual preset through two replicas behind nginx (half the
  cores each) against one replica reached directly (every core), side by side in one run:
  moves per second and their ratio;
* ``proxy_latency``: a cheap call (ListLegalActions; one client, sequential) straight to a
  replica and through nginx, over gRPC and over Connect (JSON, a kept-alive connection):
  p50/p99 and nginx's added p50.

    python bench/capacity.py [--quick] [--seconds S] [--games a,b] [--presets a,b]

``--quick`` (a few seconds per figure) proves the script runs; the sizing table of
docs/deploy.md wants the full run on a quiet machine.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import platform
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from google.protobuf import json_format

from council.engine.games import all_games
from council.engine.serialize import state_to_proto
from council.server import presets
from council.server.client import channel_options, recommend_request
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "capacity.json"
_spec = importlib.util.spec_from_file_location("deploy_local", ROOT / "deploy" / "local.py")
assert _spec is not None and _spec.loader is not None
local = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(local)


def positions(game, n: int = 12, seed: int = 300) -> list[pb.GameState]:
    """Seeded mid-game positions of `game` (its default seats), a bot's decision each."""
    out: list[pb.GameState] = []
    for i in range(n):
        chooser = random.Random(seed + i)
        moves = chooser.randrange(0, 40)
        # Replayed from the start up to the last move that leaves the game going (a short
        # game such as Kuhn poker ends within a few).
        line: list[int] = []
        state = game.new_game(seed=seed + i)
        while len(line) < moves and not state.is_terminal():
            line.append(chooser.choice(state.legal_actions()))
            state.apply(line[-1])
        if state.is_terminal():
            state = game.new_game(seed=seed + i)
            for action in line[:-1]:
                state.apply(action)
        out.append(state_to_proto(state))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def drive(call, clients: int, seconds: float) -> dict:
    """`clients` threads calling `call(client, k)` back to back for `seconds`."""
    latencies: list[float] = []
    failed: dict[str, int] = {}
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    end = [0.0]

    def client(index: int) -> None:
        mine: list[float] = []
        start.wait()
        k = 0
        while time.perf_counter() < end[0]:
            t = time.perf_counter()
            try:
                call(index, k)
                mine.append(time.perf_counter() - t)
            except grpc.RpcError as error:
                with lock:
                    failed[error.code().name] = failed.get(error.code().name, 0) + 1
            k += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    end[0] = time.perf_counter() + seconds
    began = time.perf_counter()
    start.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return {
        "clients": clients,
        "moves": len(latencies),
        "moves_per_s": round(len(latencies) / wall, 2),
        "p50_ms": round(1000 * statistics.median(latencies), 2) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 0.99), 2) if latencies else None,
        "failed": failed,
    }


def searches(address: str, states: list[pb.GameState], preset: str, clients: int, seconds: float):
    """Bot moves at `preset` on `address` (a replica or nginx), each client a channel."""
    requests = [recommend_request(s, preset=preset, seed=i) for i, s in enumerate(states)]
    # A connection each, as each game's client has: the service is fair between callers
    # (connections), and channels of one process would share one.
    options = [*channel_options(), ("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.insecure_channel(address, options) for _ in range(clients)]
    stubs = [service_pb2_grpc.CouncilServiceStub(c) for c in channels]
    for stub in stubs:  # connected before the clock starts
        stub.GetEngineInfo(spb.GetEngineInfoRequest(), timeout=30)

    def call(index: int, k: int) -> None:
        stubs[index].RecommendAction(requests[(index + k) % len(requests)], timeout=60)

    try:
        return drive(call, clients, seconds)
    finally:
        for channel in channels:
            channel.close()


def cluster(folder: Path, count: int, workers: int, proxy: bool):
    """`count` replicas with `workers` search slots each, and nginx in front if `proxy`."""
    flags = ["--workers", str(workers), "--max-search-time", "60"]
    folder.mkdir(parents=True, exist_ok=True)
    log = (folder / "replicas.log").open("a")
    replicas = local.start_replicas(count, folder / "state", flags, stderr=log)
    nginx = None
    if proxy:
        listen = [f"127.0.0.1:{local.free_port()}" for _ in range(2)]
        try:
            nginx = local.Nginx(folder, replicas, *listen)
        except BaseException:
            close(replicas, None, log)
            raise
    return replicas, nginx, log


def close(replicas, nginx, log) -> None:
    for replica in replicas:
        replica.close()
    if nginx is not None:
        nginx.close()
    log.close()


def moves_per_core(folder: Path, cores: int, args) -> list[dict]:
    out = []
    replicas, nginx, log = cluster(folder, 1, cores, proxy=False)
    try:
        for game in all_games():
            if args.games and game.name not in args.games:
                continue
            states = positions(game)
            for preset in presets.PRESETS:
                if args.presets and preset.name not in args.presets:
                    continue
                figures = searches(
                    replicas[0].address, states, preset.name, 2 * cores, args.seconds
                )
                per_core = figures["moves_per_s"] / cores
                out.append(
                    {
                        "game": game.name,
                        "seats": game.new_game(seed=0).n_players,
                        "preset": preset.name,
                        "iterations": presets.search_budget(
                            presets.search_limits(preset.name),
                            preset.name,
                            max_iterations=10**9,
                            max_time_s=60.0,
                            game=game.name,
                        )[0],
                        **figures,
                        "moves_per_s_per_core": round(per_core, 2),
                        "games_per_core": int(per_core * args.move_interval),
                    }
                )
                print(json.dumps(out[-1]), file=sys.stderr, flush=True)
    finally:
        close(replicas, nginx, log)
    return out


def replicas_vs_one(folder: Path, cores: int, args) -> dict:
    game = all_games()[0]
    states = positions(game)
    clients = 2 * cores
    one = cluster(folder / "one", 1, cores, proxy=False)
    try:
        single = searches(one[0][0].address, states, "casual", clients, args.seconds)
    finally:
        close(*one)
    two = cluster(folder / "two", 2, max(1, cores // 2), proxy=True)
    try:
        assert two[1] is not None
        behind = searches(two[1].grpc_listen, states, "casual", clients, args.seconds)
    finally:
        close(*two)
    return {
        "game": game.name,
        "preset": "casual",
        "one_replica_direct": {"workers": cores, **single},
        "two_replicas_behind_nginx": {"workers_each": max(1, cores // 2), **behind},
        "ratio": round(behind["moves_per_s"] / single["moves_per_s"], 3),
    }


def latency(call, calls: int) -> dict:
    for _ in range(20):  # warm: connections open, code paths hot
        call()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return {
        "calls": calls,
        "p50_ms": round(1000 * statistics.median(times), 3),
        "p99_ms": round(1000 * percentile(times, 0.99), 3),
    }


def proxy_latency(folder: Path, args) -> dict:
    state = positions(all_games()[0], n=1)[0]
    request = spb.ListLegalActionsRequest(state=state)
    body = json.dumps(json_format.MessageToDict(request)).encode()
    replicas, nginx, log = cluster(folder / "latency", 1, 1, proxy=True)
    assert nginx is not None
    out: dict = {"call": "ListLegalActions"}
    try:
        for name, address in (("direct", replicas[0].address), ("nginx", nginx.grpc_listen)):
            with grpc.insecure_channel(address, channel_options()) as channel:
                stub = service_pb2_grpc.CouncilServiceStub(channel)
                out[f"grpc_{name}"] = latency(
                    lambda stub=stub: stub.ListLegalActions(request, timeout=10), args.calls
                )
        for name, address in (("direct", replicas[0].http_address), ("nginx", nginx.http_listen)):
            host, _, port = address.rpartition(":")
            connection = http.client.HTTPConnection(host, int(port), timeout=10)

            def connect_call(connection=connection) -> None:
                connection.request(
                    "POST",
                    "/council.v1.CouncilService/ListLegalActions",
                    body,
                    {"Content-Type": "application/json"},
                )
                answer = connection.getresponse()
                answer.read()
                assert answer.status == 200, answer.status

            out[f"connect_{name}"] = latency(connect_call, args.calls)
            connection.close()
    finally:
        close(replicas, nginx, log)
    for protocol in ("grpc", "connect"):
        added = out[f"{protocol}_nginx"]["p50_ms"] - out[f"{protocol}_direct"]["p50_ms"]
        out[f"{protocol}_added_p50_ms"] = round(added, 3)
    return out


def machine() -> dict:
    return {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds per figure")
    parser.add_argument("--seconds", type=float, default=None, help="per figure (default 20)")
    parser.add_argument("--calls", type=int, default=None, help="latency calls (default 2000)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--move-interval", type=float, default=10.0, help="s between bot moves")
    parser.add_argument("--games", type=lambda s: s.split(","), default=None)
    parser.add_argument("--presets", type=lambda s: s.split(","), default=None)
    parser.add_argument("--no-save", action="store_true", help="print only")
    args = parser.parse_args(argv)
    # Stopped by SIGTERM too, the finally blocks stop the replicas and nginx it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    args.seconds = args.seconds or (3.0 if args.quick else 20.0)
    args.calls = args.calls or (300 if args.quick else 2000)
    local.find_nginx()  # fails early, naming `make nginx`
    with tempfile.TemporaryDirectory(prefix="council-capacity-") as tmp:
        folder = Path(tmp)
        results = {
            "machine": machine(),
            "command": "python bench/capacity.py " + " ".join(argv or sys.argv[1:]),
            "quick": args.quick,
            "seconds_per_figure": args.seconds,
            "cores": args.cores,
            "move_interval_s": args.move_interval,
            "proxy_latency": proxy_latency(folder, args),
            "replicas": replicas_vs_one(folder, args.cores, args),
            "moves": moves_per_core(folder, args.cores, args),
        }
    text = json.dumps(results, indent=2)
    print(text)
    if not args.no_save:
        RESULTS.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
