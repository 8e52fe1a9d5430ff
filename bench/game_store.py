"""What the game store of ``serve --no-rewind`` (council.server.game_store) adds to a sealed
game's call: the latency of `check` and `advance` on each store, from 1 and from 8 threads
of one process (the server's thread pool).

SQLite: a file in a temporary folder (a local disk). Redis: Debian's redis-server (`make
redis`), started here on a free port of 127.0.0.1, in memory only, and stopped at the end.
Each thread moves games of its own: `advance(game, 0, 1)` then `check(game, 1)`. Prints one
JSON object: per store and thread count, the calls made and each call's p50 / p99 in µs,
and the advances per second all threads together.

    .venv/bin/python bench/game_store.py [--games 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import redis

from council.server.game_store import GameStore, RedisGameStore, SqliteGameStore

TTL_S = 3600.0


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def measure(store: GameStore, threads: int, games: int) -> dict:
    """`games` games split over `threads` threads started at once."""
    advances: list[float] = []
    checks: list[float] = []
    start = threading.Barrier(threads + 1)

    def run(count: int) -> None:
        mine_a, mine_c = [], []
        ids = [os.urandom(16) for _ in range(count)]
        start.wait()
        for game in ids:
            t0 = time.perf_counter()
            store.advance(game, 0, 1)
            t1 = time.perf_counter()
            store.check(game, 1)
            mine_a.append(t1 - t0)
            mine_c.append(time.perf_counter() - t1)
        advances.extend(mine_a)
        checks.extend(mine_c)

    workers = [threading.Thread(target=run, args=(games // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    start.wait()
    began = time.perf_counter()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - began
    return {
        "threads": threads,
        "games": len(advances),
        "advance_p50_us": round(statistics.median(advances) * 1e6, 1),
        "advance_p99_us": round(percentile(advances, 99) * 1e6, 1),
        "check_p50_us": round(statistics.median(checks) * 1e6, 1),
        "check_p99_us": round(percentile(checks, 99) * 1e6, 1),
        "games_per_s": round(len(advances) / elapsed),
    }


def start_redis(folder: Path) -> tuple[subprocess.Popen, str]:
    program = shutil.which("redis-server")
    if program is None:
        raise SystemExit("redis-server is missing: run `make redis`")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no", "--dir", str(folder), "--logfile", str(folder / "redis.log")],
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    for _ in range(500):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.01)
    client.close()
    return process, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games moved per run")
    args = parser.parse_args()
    report: dict = {"games": args.games, "cpus": os.cpu_count(), "stores": {}}
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_redis(Path(folder))
        try:
            for name, open_store in (
                ("sqlite", lambda: SqliteGameStore(Path(folder) / "games.sqlite3", TTL_S)),
                ("redis", lambda: RedisGameStore(url, TTL_S)),
            ):
                store = open_store()
                measure(store, 1, min(200, args.games))  # warm-up: connections, caches
                report["stores"][name] = [measure(store, n, args.games) for n in (1, 8)]
                store.close()
        finally:
            process.terminate()
            process.wait()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
