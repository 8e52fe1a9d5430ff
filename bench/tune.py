"""Tune search settings by measured strength: each variant plays the base agent head to head.

Each variant is the base spec plus extra settings, e.g. ``rollout_actions=20``. Every pair
plays ``--deals`` seeded deals with the seats rotated, on the same deals. Prints one JSON
object with each variant's win rate against the base and its 95% Wilson interval.

    python bench/tune.py --base "ismcts:time_s=0.01" --deals 30 \\
        rollout_actions=0 rollout_actions=20 c_uct=0.4
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from council.engine.council_of_four import CouncilOfFourConfig
from council.mcts.agents import agent_label, parse_agent
from council.mcts.arena import run_arena


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+", help="settings added to the base spec")
    parser.add_argument("--base", default="ismcts:time_s=0.01")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)

    base = parse_agent(args.base)
    sep = "," if ":" in args.base else ":"
    out = {"base": agent_label(base), "players": args.players, "deals": args.deals, "variants": []}
    for variant in args.variants:
        challenger = parse_agent(args.base + sep + variant)
        # The challenger in one seat, the base in the others; rotation covers every seat.
        lineup = [challenger] + [base] * (args.players - 1)
        started = time.perf_counter()
        report = run_arena(
            lineup,
            deals=args.deals,
            seed=args.seed,
            config=CouncilOfFourConfig(players=args.players),
            workers=args.workers,
        )
        stats = report.to_dict()["agents"][agent_label(challenger)]
        out["variants"].append(
            {
                "variant": variant,
                "games": report.games,
                "win_rate": stats["win_rate"],
                "win_rate_95ci": stats["win_rate_95ci"],
                "fair_share": round(1 / args.players, 3),
                "mean_vp": stats["mean_vp"],
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        print(json.dumps(out["variants"][-1]), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
