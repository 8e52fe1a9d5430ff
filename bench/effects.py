"""What ListLegalActions' ``include_effects`` costs (issue #30): the handler's time with and
without it, in-process (the servicer called directly: no network, the same for both), for
each registered game over positions of seeded random games, and the most legal actions
seen (a Council of Four payment decision lists up to a few hundred). Prints one JSON object:
per game, the median and the slowest milliseconds per call without and with effects, and
the median per legal action with effects.

    .venv/bin/python bench/effects.py [--positions 40] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from council.engine.games import all_games
from council.engine.serialize import state_to_proto
from council.server.service import CouncilServicer
from council.v1 import service_pb2 as spb


def positions(game, count: int, seed: int):
    """`count` full states of seeded random games (a new game each time one ends), the seat
    to move's view of each."""
    chooser = random.Random(seed)
    state = game.new_game(seed=seed)
    out = []
    while len(out) < count:
        if state.is_terminal():
            state = game.new_game(seed=chooser.randrange(1 << 30))
            continue
        out.append(state.view(state.current_player))
        state.apply(chooser.choice(state.legal_actions()))
        for _ in range(chooser.randrange(4)):
            if not state.is_terminal():
                state.apply(chooser.choice(state.legal_actions()))
    return out


def timed(servicer, request, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        servicer.ListLegalActions(request, None)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    servicer = CouncilServicer()
    result = {}
    for game in all_games():
        plain, effects, per_action, sizes = [], [], [], []
        for view in positions(game, args.positions, seed=1):
            msg = state_to_proto(view)
            n = len(view.determinize(0).legal_actions())
            request = spb.ListLegalActionsRequest(state=msg)
            plain.append(timed(servicer, request, args.repeat))
            asked = spb.ListLegalActionsRequest(state=msg, include_effects=True)
            effects.append(timed(servicer, asked, args.repeat))
            per_action.append(effects[-1] / n)
            sizes.append(n)
        result[game.name] = {
            "positions": len(plain),
            "legal_actions_median": statistics.median(sizes),
            "legal_actions_max": max(sizes),
            "without_effects_ms_median": round(statistics.median(plain), 3),
            "without_effects_ms_max": round(max(plain), 3),
            "with_effects_ms_median": round(statistics.median(effects), 3),
            "with_effects_ms_max": round(max(effects), 3),
            "with_effects_ms_per_action_median": round(statistics.median(per_action), 4),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
