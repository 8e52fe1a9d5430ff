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
* ``decompression_bomb``: the HTTP port refusing a gzip bomb (1 GiB of zeros in 1 MB, as
  Connect's Content-Encoding and a gRPC-Web message): the server's peak resident memory
  growth (target: under 50 MB) and GetEngineInfo's latency meanwhile (under 100 ms);
* ``sealing``: what a sealed game (docs/service.md, "Sealed games") adds to each of its calls,
  in-process: opening its blob and checking its ticket, then sealing the next state, for a
  4-player state in mid-game (median µs over many; the target is under 100 µs);
* ``slowloris``: the HTTP port under 500 and then 1200 connections that never finish a
  request (a third idle, a third half a head, a third 9 bytes of a 1000-byte body), with
  2 s request timeouts and the default cap of 1000 connections (no per-address cap: all
  come from 127.0.0.1): how many are open 0.2 s in and after the timeouts, what the
  server answered them (503 past the cap, 408, or a quiet close), and GetEngineInfo on a
  new connection meanwhile and after (HTTP status or error, milliseconds: past the cap new
  connections are refused until the timeouts free the held ones);
* ``one_address``: 1000 connections from 127.0.0.2 that send a request's head and no body
  (issue #35), against the default caps (100 per address, 1000 in all): how soon a call
  from 127.0.0.1 gets its 200, what the held ones were answered (503 past the per-address
  cap at once, 408 at the body timeout) and what /metrics counts: no call for them, each a
  dropped connection by reason;
* ``hog``: a caller (one bearer token) holding its cap of hour-long searches, every slot
  by default, and sending another each time one ends, while a polite caller (another
  token) asks for a beginner search: how long that waits for a slot (its latency less its
  search's own time; p50 and max over the tries; the bound is --max-queue-wait, 1 s), and
  how the hog's stopped searches ended (``python bench/service.py --only hog``);
* ``soak``: the server's resident memory after warm-up and after a soak of mixed calls
  (60 s by default), and the growth in percent (the target is under 10%).

    python bench/service.py [--quick] [--soak SECONDS] [--only hog|security]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import random
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import zlib

import grpc
from google.protobuf import duration_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

CLIENTS = (1, 4, 16)
JSON = "application/json"


def positions(n: int = 12, seed: int = 100) -> list[pb.GameState]:
    """Seeded mid-game positions of 2, 3 and 4 players."""
    out = []
    for i in range(n):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2 + i % 3), seed=seed + i)
        chooser = random.Random(i)
        for _ in range(20 + 7 * (i % 12)):
            if state.is_terminal():
                break
            state.apply(chooser.choice(state.legal_actions()))
        if not state.is_terminal():
            out.append(state_to_proto(state))
    return out


def start_server(queue: int, *flags: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--queue", str(queue), "--http-address", "", *flags],
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


def decompression_bomb(rounds: int = 3, server: tuple[str, ...] = ()) -> dict:
    """A gzip bomb (1 GiB of zeros, 1 MB gzipped) sent `rounds` times to the HTTP port of a
    ``council-ai serve`` child of its own (`server`: the command, else this checkout's), as a
    unary Connect call (Content-Encoding) and a gRPC-Web message, while a client calls
    GetEngineInfo over HTTP back to back: the child's peak resident memory over its
    resident memory before (targets: under 50 MB), how long each bomb took to be refused,
    and how long the GetEngineInfo calls took meanwhile against before (under 100 ms)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip
    zeros = bytes(1 << 20)
    bomb = b"".join(deflate.compress(zeros) for _ in range(1024)) + deflate.flush()
    command = list(server) or [sys.executable, "-m", "council.server.cli"]
    process = subprocess.Popen(
        [*command, "serve", "--address", "127.0.0.1:0", "--http-address", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    host, _, port = json.loads(process.stdout.readline())["http"].rpartition(":")
    service = "/council.v1.CouncilService"

    def post(connection, method: str, body: bytes, headers: dict) -> tuple[str, float]:
        """(the answer: HTTP status, and gRPC-Web's grpc-status, milliseconds)."""
        start = time.perf_counter()
        connection.request("POST", f"{service}/{method}", body, headers)
        answer = connection.getresponse()
        data = answer.read()
        took = (time.perf_counter() - start) * 1000
        _, found, rest = data.partition(b"grpc-status:")
        return f"{answer.status}" + (f" grpc-status {int(rest.split()[0])}" if found else ""), took

    def others(stop: threading.Event, took: list[float]) -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=120)
        while not stop.is_set():
            took.append(post(connection, "GetEngineInfo", b"{}", {"Content-Type": JSON})[1])
        connection.close()

    def while_others(work) -> list[float]:
        stop, took = threading.Event(), []
        thread = threading.Thread(target=others, args=(stop, took))
        thread.start()
        try:
            work()
        finally:
            stop.set()
            thread.join()
        return took

    web_bomb = struct.pack(">BI", 1, len(bomb)) + bomb
    sends = {
        "connect": ({"Content-Type": "application/proto", "Content-Encoding": "gzip"}, bomb),
        "grpc_web": (
            {"Content-Type": "application/grpc-web+proto", "Grpc-Encoding": "gzip"},
            web_bomb,
        ),
    }
    refused: dict = {name: {"statuses": [], "ms": []} for name in sends}

    def send_bombs() -> None:
        for _ in range(rounds):
            for name, (headers, body) in sends.items():
                connection = http.client.HTTPConnection(host, int(port), timeout=120)
                status, ms = post(connection, "GetEngineInfo", body, headers)
                connection.close()
                refused[name]["statuses"].append(status)
                refused[name]["ms"].append(round(ms, 1))

    try:
        baseline = while_others(lambda: time.sleep(1.0))
        with open(f"/proc/{process.pid}/clear_refs", "w") as f:
            f.write("5")  # resets the peak (VmHWM) to the present resident memory
        before = rss_mib(process.pid)
        during = while_others(send_bombs)
        with open(f"/proc/{process.pid}/status") as f:
            peak = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {
        "bomb_bytes": len(bomb),
        "inflated_bytes": 1 << 30,
        "rounds": rounds,
        "refused": refused,
        "rss_before_mib": round(before, 1),
        "peak_rss_growth_mb": round((peak - before) * 1.048576, 1),
        "other_calls_before_ms": {
            "p50": round(statistics.median(baseline), 2),
            "max": round(max(baseline), 2),
        },
        "other_calls_during_ms": {
            "calls": len(during),
            "p50": round(statistics.median(during), 2),
            "max": round(max(during), 2),
        },
    }


def sealing_cost(rounds: int = 3000) -> dict:
    """The per-call cost of a sealed game: open + ticket check + seal of a 4-player state."""
    from council.server import sealing

    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=5)
    chooser = random.Random(5)
    for _ in range(40):
        state.apply(chooser.choice(state.legal_actions()))
    message = state_to_proto(state)
    keys, secret = sealing.SealKeys.generate("bench"), sealing.new_game_secret()
    ticket = sealing.mint_ticket(secret, 0, spb.SEAT_ROLE_PLAYER)
    blob = keys.seal(message, secret)
    opens, seals, both = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        content = keys.open(blob, ttl_s=60)
        sealing.check_ticket(content.game_secret, ticket)
        t1 = time.perf_counter()
        blob = keys.seal(content.state, content.game_secret)
        t2 = time.perf_counter()
        opens.append(t1 - t0)
        seals.append(t2 - t1)
        both.append(t2 - t0)
    return {
        "state_bytes": message.ByteSize(),
        "blob_bytes": len(blob),
        "open_and_check_us": round(statistics.median(opens) * 1e6, 1),
        "seal_us": round(statistics.median(seals) * 1e6, 1),
        "per_call_us": round(statistics.median(both) * 1e6, 1),
        "rounds": rounds,
    }


def slowloris(counts: tuple[int, ...] = (500, 1200), timeout_s: float = 2.0) -> list[dict]:
    """For each of `counts`, that many connections to the HTTP port of a ``council-ai serve``
    child with `timeout_s` head, body and keep-alive timeouts, none finishing its request:
    how many the server refused at once, how many are open 0.2 s later and after the
    timeouts, and new connections' GetEngineInfo calls meanwhile and after."""
    seconds = str(timeout_s)
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "127.0.0.1:0", "--header-timeout", seconds]
        + ["--body-timeout", seconds, "--keep-alive-timeout", seconds]
        # All from 127.0.0.1: the global cap's figure, without the per-address one.
        + ["--max-http-connections-per-address", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    host, _, port = json.loads(process.stdout.readline())["http"].rpartition(":")
    head = f"POST /council.v1.CouncilService/GetEngineInfo HTTP/1.1\r\nHost: {host}\r\n"
    body_head = f"{head}Content-Type: {JSON}\r\nContent-Length: 1000\r\n\r\n"
    starts = [b"", head.encode()[:60], f"{body_head}{{}}       ".encode()]  # 9 of 1000

    def call() -> tuple[str, float]:
        start = time.perf_counter()
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            connection.request("POST", head.split()[1], b"{}", {"Content-Type": JSON})
            answer = connection.getresponse()
            answer.read()
            status = str(answer.status)
        except (OSError, http.client.HTTPException) as error:
            status = type(error).__name__
        finally:
            connection.close()
        return status, round((time.perf_counter() - start) * 1000, 2)

    def still_open(socks: list[socket.socket], heard: list[bytes]) -> int:
        """How many of `socks` the server holds open; what it sent each goes to `heard`."""
        count = 0
        for i, sock in enumerate(socks):
            sock.setblocking(False)
            try:
                while piece := sock.recv(65536):  # an answer (408, 503) before the close
                    heard[i] += piece
            except BlockingIOError:
                count += 1
            except OSError:
                pass
        return count

    results = []
    try:
        for count in counts:
            socks = []
            for i in range(count):
                sock = socket.create_connection((host, int(port)), timeout=10)
                if starts[i % 3]:
                    sock.sendall(starts[i % 3])
                socks.append(sock)
            opened, heard = time.perf_counter(), [b""] * count
            time.sleep(0.2)
            open_at_first = still_open(socks, heard)
            during = [call() for _ in range(5)]
            time.sleep(max(opened + timeout_s + 1.0 - time.perf_counter(), 0.0))
            open_at_last = still_open(socks, heard)
            answers: dict[str, int] = {}
            for answer in heard:
                status = answer[9:12].decode() if answer else "none (closed)"
                answers[status] = answers.get(status, 0) + 1
            results.append(
                {
                    "connections": count,
                    "open_after_0.2_s": open_at_first,
                    "calls_meanwhile": during,
                    f"open_after_{timeout_s + 1:g}_s": open_at_last,
                    "answers": answers,
                    "calls_after": [call() for _ in range(3)],
                }
            )
            for sock in socks:
                sock.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return results


def one_address(count: int = 1000, body_timeout_s: float = 5.0) -> dict:
    """Issue #35's attack: `count` connections from 127.0.0.2, each sending a request's head
    and no body, to the HTTP port of a ``council-ai serve`` child with the default caps
    (``--max-http-connections-per-address`` 100, ``--max-http-connections`` 1000) and a
    `body_timeout_s` body timeout: how long after they are open a GetEngineInfo from
    127.0.0.1 waits for its 200, what the held connections were answered, and what
    /metrics counts once the timeouts have passed (calls and dropped connections)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "council.server.cli", "serve", "--address", "127.0.0.1:0"]
        + ["--http-address", "127.0.0.1:0", "--body-timeout", str(body_timeout_s)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    host, _, port = json.loads(process.stdout.readline())["http"].rpartition(":")
    head = (
        f"POST /council.v1.CouncilService/GetEngineInfo HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: {JSON}\r\nContent-Length: 1000\r\n\r\n"
    ).encode()

    def call(path: str = "/council.v1.CouncilService/GetEngineInfo") -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            if path == "/metrics":
                connection.request("GET", path)
            else:
                connection.request("POST", path, b"{}", {"Content-Type": JSON})
            answer = connection.getresponse()
            return answer.status, answer.read()
        finally:
            connection.close()

    socks = []
    try:
        started = time.perf_counter()
        for _ in range(count):
            sock = socket.create_connection(
                (host, int(port)), timeout=10, source_address=("127.0.0.2", 0)
            )
            with contextlib.suppress(OSError):  # refused already: a reset
                sock.sendall(head)
            socks.append(sock)
        opened = time.perf_counter()
        tries = []
        while True:
            try:
                status = call()[0]
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
            tries.append(status)
            if status == 200 or time.perf_counter() - opened > 60:
                break
            time.sleep(0.1)
        to_200_ms = round((time.perf_counter() - opened) * 1000, 1)
        time.sleep(max(opened + body_timeout_s + 1.0 - time.perf_counter(), 0.0))
        answers: dict[str, int] = {}
        for sock in socks:
            sock.settimeout(0.5)
            try:
                answer = sock.recv(65536)
            except OSError:
                answer = b""
            status = answer[9:12].decode() if answer else "none (reset or closed)"
            answers[status] = answers.get(status, 0) + 1
        _, text = call("/metrics")
        counted = {"calls": {}, "dropped_connections": {}}
        for line in text.decode().splitlines():
            if line.startswith("council_calls_total{"):
                labels = dict(
                    pair.split("=", 1) for pair in line.split("{", 1)[1].split("}")[0].split(",")
                )
                name = " ".join(labels[k].strip('"') for k in ("rpc", "transport", "code"))
                counted["calls"][name] = float(line.split()[-1])
            if line.startswith("council_http_connections_dropped_total{"):
                reason = line.split('reason="', 1)[1].split('"')[0]
                counted["dropped_connections"][reason] = float(line.split()[-1])
        return {
            "connections": count,
            "from": "127.0.0.2",
            "opening_them_ms": round((opened - started) * 1000, 1),
            "body_timeout_s": body_timeout_s,
            "first_200_from_127.0.0.1_after_ms": to_200_ms,
            "tries_before_it": tries[:-1],
            "answers": answers,
            "metrics_after": counted,
        }
    finally:
        for sock in socks:
            sock.close()
        process.terminate()
        process.wait(timeout=30)


def hog_wait(tries: int) -> dict:
    """A hog (bearer token "hog") keeps its cap of hour-long searches running on a server
    of its own with the default cap and wait bound, topping it up as they end; a polite
    caller (token "polite") then asks for a beginner search, `tries` times. Its wait is its
    latency less its search's elapsed time."""
    process, address = start_server(2 * (os.cpu_count() or 1))
    channel = grpc.insecure_channel(address)
    hour = pb.SearchLimits(max_time=duration_pb2.Duration(seconds=3600))
    beginner = pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER)
    state = positions(1)[0]
    hog: list = []
    waits = []
    try:
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        cap = os.cpu_count() or 1  # the default: the slots
        for _ in range(tries):
            while sum(not call.done() for call in hog) < cap:
                hog.append(
                    stub.RecommendAction.future(
                        spb.RecommendActionRequest(state=state, limits=hour),
                        timeout=120,
                        metadata=[("authorization", "Bearer hog")],
                    )
                )
            time.sleep(0.3)  # the hog's new searches have their slots
            start = time.perf_counter()
            answer = stub.RecommendAction(
                spb.RecommendActionRequest(state=state, limits=beginner),
                timeout=60,
                metadata=[("authorization", "Bearer polite")],
            )
            took = time.perf_counter() - start
            waits.append(took - answer.result.stats.elapsed.ToTimedelta().total_seconds())
            # The stopped search's answer, sent after its slot was handed over (the hog's
            # next search follows it).
            end = time.perf_counter() + 10
            while sum(call.done() for call in hog) < len(waits) and time.perf_counter() < end:
                time.sleep(0.01)
        stopped = [call.result().result.stats for call in hog if call.done()]
    finally:
        for call in hog:
            call.cancel()
        channel.close()
        process.terminate()
        process.wait(timeout=30)
    return {
        "search_slots": os.cpu_count(),
        "hog_searches": cap,
        "tries": tries,
        "polite_wait_s": {
            "p50": round(statistics.median(waits), 3),
            "max": round(max(waits), 3),
        },
        "hog_searches_stopped": len(stopped),
        "stopped_after_s": [round(s.elapsed.ToTimedelta().total_seconds(), 2) for s in stopped],
        "stop_reasons": sorted({pb.StopReason.Name(s.stop_reason) for s in stopped}),
    }


def machine() -> dict:
    """What ran the bench (the server's search slots are one per core)."""
    return {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "search_slots": os.cpu_count(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and a 10 s soak")
    parser.add_argument("--soak", type=float, default=None, help="soak seconds (default 60)")
    parser.add_argument(
        "--only",
        choices=["hog", "security"],
        help="measure only this: the hog test, or the five figures of the edge (the hog, "
        "the decompression bomb, slowloris, one address's 1000 connections and sealing's "
        "cost)",
    )
    args = parser.parse_args(argv)
    if args.only is not None:
        results = {"hog": hog_wait(5 if args.quick else 10)}
        if args.only == "security":
            results["decompression_bomb"] = decompression_bomb()
            results["slowloris"] = slowloris()
            results["one_address"] = one_address()
            results["sealing"] = sealing_cost()
        print(json.dumps({"machine": machine(), **results}, indent=2))
        return 0
    soak_s = args.soak if args.soak is not None else (10.0 if args.quick else 60.0)
    cheap_calls = 100 if args.quick else 400
    search_calls = 4 if args.quick else 10

    states = positions()
    # The clients stand for many callers, but their four channels share one connection.
    process, address = start_server(32, "--max-searches-per-caller", "64")
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
        results["hog"] = hog_wait(5 if args.quick else 10)
        results["decompression_bomb"] = decompression_bomb()
        results["slowloris"] = slowloris()
        results["one_address"] = one_address()
        results["sealing"] = sealing_cost()

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
        results["machine"] = machine()
        print(json.dumps(results, indent=2))
    finally:
        for ch in channels:
            ch.close()
        process.terminate()
        process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
