"""Search speed: IS-MCTS iterations per second and the 2-core parallel speedup.

Prints one JSON object. ``iterations_per_s``: the opening of a 4-player game (seat 0's
view), one core, the default SearchConfig (``iterations_per_cpu_s``: per second of the
search's CPU time, for a machine shared with other jobs). ``parallel_speedup``: iterations
of two root-parallel trees over one tree in the same wall time, measured side by side in this
run.
``the_council``: the same figures for The Council (a 4-seat opening, its default config);
``kuhn_poker`` and ``leduc_poker``: for the pokers (the opening, seat 0's view, each game's
default config: Kuhn poker's searches from the start of the hand), and ``kuhn_poker_view``
for Kuhn poker searched over the view (strong-v3's config).

    python bench/search.py [--seconds 2] [--repeats 3]

``speed(config, view, seconds, repeats)`` measures one SearchConfig; another variant (a
different evaluator, say) is one more call in ``main`` with its figures under its own key.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

from council.engine import Position
from council.engine._kuhn_poker import KuhnPokerState
from council.engine._leduc_poker import LeducPokerState
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.the_council import TheCouncilConfig
from council.mcts.council_of_four_settings import V1_CONFIG
from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG, KUHN_POKER_V3_CONFIG
from council.mcts.leduc_poker_agents import LEDUC_POKER_CONFIG
from council.mcts.search import (
    SearchConfig,
    SearchLimits,
    search,
)
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG


def rate(
    view: Position,
    seconds: float,
    threads: int,
    seed: int,
    config: SearchConfig | None = None,
) -> tuple[float, int, float]:
    """Iterations per second of one timed search, the nodes of its tree, and iterations per
    second of this thread's CPU time (one thread: its search runs in this thread; less moved
    by other jobs than the wall clock on a shared machine)."""
    cpu = time.thread_time()
    result = search(view, SearchLimits(time_s=seconds, threads=threads), config, seed=seed)
    cpu = time.thread_time() - cpu
    return result.iterations / result.elapsed_s, result.tree_nodes, result.iterations / cpu


def speed(config: SearchConfig, view: Position, seconds: float, repeats: int) -> dict:
    """Median iterations/s of ``config`` on one thread and on two, and the speed-up.

    One- and two-thread runs alternate, so both see the same machine load.
    """
    one, two, cpu, nodes = [], [], [], 0
    for r in range(repeats):
        single, nodes, single_cpu = rate(view, seconds, 1, seed=r, config=config)
        one.append(single)
        cpu.append(single_cpu)
        two.append(rate(view, seconds, 2, seed=r, config=config)[0])
    return {
        "iterations_per_s": round(statistics.median(one)),
        "iterations_per_cpu_s": round(statistics.median(cpu)),
        "iterations_per_s_2_threads": round(statistics.median(two)),
        "parallel_speedup": round(statistics.median(two) / statistics.median(one), 3),
        "tree_nodes_after_run": nodes,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    opening = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=1).view(0)
    figures = speed(SearchConfig(), opening, args.seconds, args.repeats)
    # Version 0.1's search (heuristic evaluation, 10-action rollouts), in the same run.
    figures["ismcts_v1"] = speed(V1_CONFIG, opening, args.seconds, args.repeats)
    # The same compiled search on The Council (its defaults: 40-action rollouts, heuristic).
    council = TheCouncilConfig(players=4).new_game(seed=1).view(0)
    figures["the_council"] = speed(THE_COUNCIL_CONFIG, council, args.seconds, args.repeats)
    kuhn = KuhnPokerState.new_game(seed=1).view(0)
    figures["kuhn_poker"] = speed(KUHN_POKER_CONFIG, kuhn, args.seconds, args.repeats)
    figures["kuhn_poker_view"] = speed(KUHN_POKER_V3_CONFIG, kuhn, args.seconds, args.repeats)
    leduc = LeducPokerState.new_game(seed=1).view(0)
    figures["leduc_poker"] = speed(LEDUC_POKER_CONFIG, leduc, args.seconds, args.repeats)
    figures |= {
        "seconds_per_measurement": args.seconds,
        "repeats": args.repeats,
        "position": "4-player opening, seat 0's view, default SearchConfig (learned models); "
        "the_council: a 4-seat opening of The Council, seat 0's view; kuhn_poker, "
        "kuhn_poker_view, leduc_poker: the opening, seat 0's view",
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
