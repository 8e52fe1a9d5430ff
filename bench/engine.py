"""Engine speed figures, printed as one JSON object.

    python bench/engine.py            # full run (about half a minute)
    python bench/engine.py --quick    # a few seconds, for a smoke check

The compiled loops of ``council.engine._bench`` (``bench_random_games``, ``bench_clone``,
``bench_legal_actions``, ``bench_determinize``) run on one core without the GIL; the Python-level
figures (``CouncilOfFourState.clone()``, ``CouncilOfFourState.legal_actions()``, ...) are given for
comparison. ``position`` times a position's forms on mid-game states and views:
``validate_new_position_us`` reads a ``council.v1.GameState`` message and validates it in full (what
the service does for every request), ``problems_us`` the consistency query alone, and the message
and JSON conversions both ways. Every figure is the median of several repetitions timed with
``time.perf_counter``. Nothing here asserts anything about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

from council.engine import _bench
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import (
    problems,
    state_from_json,
    state_from_proto,
    state_to_json,
    state_to_proto,
)
from council.engine.the_council import TheCouncilState

DEFAULT_LAYOUT = CouncilOfFourConfig().layout_index


def median_time(fn, repeats: int) -> float:
    """Median wall time of fn() in seconds over `repeats` runs (after one warm-up run)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mid_game_positions(players: int, n: int, seed: int) -> list[CouncilOfFourState]:
    """Positions from random games between 15% and 85% of their length (typical mid-game)."""
    out: list[CouncilOfFourState] = []
    g = 0
    while len(out) < n:
        config = CouncilOfFourConfig(players=players)
        state = CouncilOfFourState.new_game(config, seed=seed + g)
        rng = random.Random(seed + g)
        actions = []
        while not state.is_terminal():
            actions.append(rng.choice(state.legal_actions()))
            state.apply(actions[-1])
        stop = rng.randint(int(0.15 * len(actions)), int(0.85 * len(actions)))
        state = CouncilOfFourState.new_game(config, seed=seed + g)
        for action in actions[:stop]:
            state.apply(action)
        out.append(state)
        g += 1
    return out


def bench_games(players: int, n_games: int, repeats: int, seed: int) -> dict:
    """Random games played entirely in the compiled loop: legal actions + apply."""
    result = {}

    def run():
        result["actions"], result["games"] = _bench.bench_random_games(
            players, n_games, seed, DEFAULT_LAYOUT
        )

    t = median_time(run, repeats)
    return {
        "games": result["games"],
        "actions": result["actions"],
        "seconds": t,
        "actions_per_s": result["actions"] / t,
        "games_per_s": result["games"] / t,
        "mean_game_length_actions": result["actions"] / result["games"],
    }


def the_council(n_games: int, n_views: int, det_n: int, repeats: int, seed: int) -> dict:
    """The Council (the Decktet game): random games and determinize, compiled loops."""
    per_players = {}
    for players in (3, 4, 5):
        result = {}

        def run(players=players, result=result):
            result["actions"], result["games"] = _bench.bench_the_council_games(
                players, n_games, seed + players
            )

        t = median_time(run, repeats)
        per_players[str(players)] = {
            "actions_per_s": result["actions"] / t,
            "games_per_s": result["games"] / t,
            "mean_game_length_actions": result["actions"] / result["games"],
        }
    rng = random.Random(seed)
    views = []
    for g in range(n_views):  # a view of the seat to act, a third into a random game
        state = TheCouncilState.new_game(4, seed=seed + g)
        for _ in range(60 + 10 * g):
            state.apply(rng.choice(state.legal_actions()))
        views.append(state.view(state.current_player))
    determinize_us = statistics.median(
        per_call(lambda v=v: _bench.bench_the_council_determinize(v, det_n, seed), det_n, repeats)
        * 1e6
        for v in views
    )
    return {
        "players": 4,
        "random_actions_per_s": per_players["4"]["actions_per_s"],
        "determinize_us": determinize_us,
        "per_player_count": per_players,
    }


def per_call(fn, calls: int, repeats: int) -> float:
    """Median seconds per call of a loop that makes `calls` calls."""
    return median_time(fn, repeats) / calls


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short run for a smoke check")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)

    quick = args.quick
    repeats = 3 if quick else 7
    games = {2: 40, 3: 30, 4: 25} if quick else {2: 300, 3: 200, 4: 150}
    n_positions = 4 if quick else 16
    loop_n = 20_000 if quick else 200_000
    py_n = 2_000 if quick else 20_000

    started = time.perf_counter()
    per_players = {
        str(p): bench_games(p, games[p], repeats, args.seed + 1000 * p) for p in (2, 3, 4)
    }
    four = per_players["4"]

    positions = mid_game_positions(4, n_positions, args.seed)
    views = [s.view(s.current_player) for s in positions]

    clone_ns = statistics.median(
        per_call(lambda s=s: _bench.bench_clone(s, loop_n), loop_n, repeats) * 1e9
        for s in positions
    )
    legal_us = statistics.median(
        per_call(lambda s=s: _bench.bench_legal_actions(s, loop_n), loop_n, repeats) * 1e6
        for s in positions
    )
    det_n = loop_n // 4
    determinize_us = statistics.median(
        per_call(lambda v=v: _bench.bench_determinize(v, det_n, args.seed), det_n, repeats) * 1e6
        for v in views
    )
    n_legal = statistics.median(len(s.legal_actions()) for s in positions)

    def py_loop(method, s, n=py_n):
        def run():
            for _ in range(n):
                method(s)

        return run

    py_clone_ns = statistics.median(
        per_call(py_loop(CouncilOfFourState.clone, s), py_n, repeats) * 1e9 for s in positions
    )
    py_legal_us = statistics.median(
        per_call(py_loop(CouncilOfFourState.legal_actions, s), py_n, repeats) * 1e6
        for s in positions
    )
    py_child_us = statistics.median(
        per_call(py_loop(lambda x: x.child(x.legal_actions()[0]), s), py_n, repeats) * 1e6
        for s in positions
    )
    seeds = iter(range(10**12))  # a new seed each call, as the compiled loop does

    py_determinize_us = statistics.median(
        per_call(py_loop(lambda v: v.determinize(next(seeds)), v), py_n, repeats) * 1e6
        for v in views
    )
    py_view_us = statistics.median(
        per_call(py_loop(lambda s: s.view(0), s), py_n, repeats) * 1e6 for s in positions
    )

    # A position as the service receives it: a GameState message, read and validated in full
    # (every call a message of another position; the engine caches nothing).
    documents = positions + views
    messages = [state_to_proto(s) for s in documents]
    objects = [state_to_json(s) for s in documents]

    def each(fn, items, n):
        def run():
            for i in range(n):
                fn(items[i % len(items)])

        return run

    doc_n = py_n // 10
    position = {
        "validate_new_position_us": per_call(
            each(state_from_proto, messages, doc_n), doc_n, repeats
        )
        * 1e6,
        "problems_us": per_call(each(problems, documents, doc_n), doc_n, repeats) * 1e6,
        "state_to_proto_us": per_call(each(state_to_proto, documents, doc_n), doc_n, repeats) * 1e6,
        "state_to_json_us": per_call(
            each(state_to_json, documents, doc_n // 10), doc_n // 10, repeats
        )
        * 1e6,
        "state_from_json_us": per_call(
            each(state_from_json, objects, doc_n // 10), doc_n // 10, repeats
        )
        * 1e6,
    }

    report = {
        "benchmark": "council.engine",
        "quick": quick,
        "repeats": repeats,
        "players": 4,
        "layout": CouncilOfFourConfig().layout,
        "random_actions_per_s": four["actions_per_s"],
        "random_games_per_s": four["games_per_s"],
        "mean_game_length_actions": four["mean_game_length_actions"],
        "clone_ns": clone_ns,
        "legal_actions_us": legal_us,
        "determinize_us": determinize_us,
        "mid_game_positions": len(positions),
        "mid_game_median_legal_actions": n_legal,
        "per_player_count": per_players,
        "position": position,
        "the_council": the_council(games[3], n_positions // 2, loop_n // 4, repeats, args.seed),
        "python": {
            "state_clone_ns": py_clone_ns,
            "legal_actions_us": py_legal_us,
            "child_us": py_child_us,
            "view_us": py_view_us,
            "determinize_us": py_determinize_us,
        },
        "machine": {
            "python": sys.version.split()[0],
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else None,
        },
        "bench_seconds": time.perf_counter() - started,
    }
    if clone_ns < 1.0:
        # A struct of several hundred bytes cannot be copied in under a nanosecond: the C
        # compiler has dropped the unused copies in bench_clone's loop.
        report["clone_ns_note"] = (
            "implausibly low: bench_clone's copies are optimized away; "
            "see python.state_clone_ns for a real clone"
        )
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
