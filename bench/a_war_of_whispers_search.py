"""Search speed of A War of Whispers: IS-MCTS iterations per second at the opening, one core.

Prints one JSON object: for 2, 3 and 4 players, the opening (seat 0's view), the game's
default SearchConfig (``council.mcts.a_war_of_whispers_agents``), one thread:
``iterations_per_s`` (wall clock) and ``iterations_per_cpu_s`` (per second of this process's
CPU time, for a machine shared with other jobs), medians of ``--repeats`` runs.

    .venv/bin/python bench/a_war_of_whispers_search.py --seconds 2 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from council.engine.a_war_of_whispers import AWarOfWhispersConfig
from council.mcts.a_war_of_whispers_agents import A_WAR_OF_WHISPERS_CONFIG
from council.mcts.search import SearchLimits, search


def speed(players: int, seconds: float, repeats: int) -> dict:
    view = AWarOfWhispersConfig(players=players).new_game(seed=1).view(0)
    wall, cpu, nodes = [], [], 0
    for r in range(repeats):
        start = time.process_time()
        result = search(
            view, SearchLimits(time_s=seconds, threads=1), A_WAR_OF_WHISPERS_CONFIG, seed=r
        )
        used = time.process_time() - start
        wall.append(result.iterations / result.elapsed_s)
        cpu.append(result.iterations / used)
        nodes = result.tree_nodes
    return {
        "iterations_per_s": round(statistics.median(wall)),
        "iterations_per_cpu_s": round(statistics.median(cpu)),
        "tree_nodes_after_run": nodes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    config = A_WAR_OF_WHISPERS_CONFIG
    out = {
        "benchmark": "a-war-of-whispers search speed at the opening",
        "config": {
            "evaluator": config.evaluator,
            "policy": config.policy,
            "c_uct": config.c_uct,
            "rollout_actions": config.rollout_actions,
        },
        "seconds": args.seconds,
        "repeats": args.repeats,
        **{f"players_{n}": speed(n, args.seconds, args.repeats) for n in (2, 3, 4)},
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
