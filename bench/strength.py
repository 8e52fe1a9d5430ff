"""Playing strength of IS-MCTS against the baselines, with 95% confidence intervals.

Prints one JSON object with four match-ups (seats rotated over the same seeded deals):
- IS-MCTS vs three Random players (4 players);
- IS-MCTS vs Greedy (2 players);
- IS-MCTS vs PIMC at equal time per move (2 players);
- Cheating MCTS (sees all cards) vs IS-MCTS at equal iterations: the price of hidden
  information (2 players).

    python bench/strength.py            # the README's figures (several minutes on 2 cores)
    python bench/strength.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from council.engine import GameConfig
from council.mcts.agents import agent_label, parse_agent
from council.mcts.arena import run_arena

MATCHUPS = [
    # (name, lineup specs, deals, quick deals)
    ("ismcts_vs_random_4p", ["ismcts:iterations=300", "random", "random", "random"], 25, 2),
    ("ismcts_vs_greedy_2p", ["ismcts:iterations=300", "greedy"], 100, 3),
    ("ismcts_vs_pimc_equal_time_2p", ["ismcts:time_s=0.01", "pimc:worlds=4,time_s=0.01"], 50, 2),
    ("cheating_vs_ismcts_2p", ["cheat:iterations=300", "ismcts:iterations=300"], 50, 2),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few deals per match-up")
    parser.add_argument("--only", help="run only the match-up of this name")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)

    results = {}
    for name, specs, deals, quick_deals in MATCHUPS:
        if args.only and name != args.only:
            continue
        lineup = [parse_agent(s) for s in specs]
        started = time.perf_counter()
        report = run_arena(
            lineup,
            deals=quick_deals if args.quick else deals,
            seed=args.seed,
            config=GameConfig(players=len(lineup)),
            workers=args.workers,
        )
        summary = report.to_dict()
        summary["focus"] = agent_label(lineup[0])
        summary["seconds"] = round(time.perf_counter() - started, 1)
        results[name] = summary
        focus = summary["agents"][summary["focus"]]
        print(
            f"{name}: {summary['focus']} wins {focus['win_rate']:.3f} "
            f"{focus['win_rate_95ci']} over {focus['seats_played']} games",
            file=sys.stderr,
            flush=True,
        )
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
