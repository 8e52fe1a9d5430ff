"""Speed of A War of Whispers' compiled core: uniformly random play from the opening (the
core's own C loop, ``random_playout``), on one core. Prints JSON.

    .venv/bin/python bench/a_war_of_whispers.py --games 2000 --players 4

``actions_per_s``: actions applied per second, legal-action listing included, over whole
games from the opening (the best of ``--repeats`` runs); ``actions_per_game``: their mean.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

from council.engine._a_war_of_whispers import AWarOfWhispersState, current_content


def run(games: int, players: int, seed: int) -> tuple[int, float]:
    openings = [AWarOfWhispersState.new_game(players, seed=seed + g) for g in range(games)]
    start = time.perf_counter()
    actions = sum(state.random_playout(seed + g) for g, state in enumerate(openings))
    return actions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs = [run(args.games, args.players, args.seed) for _ in range(args.repeats)]
    actions, seconds = min(runs, key=lambda r: r[1])
    content = current_content()
    print(
        json.dumps(
            {
                "benchmark": "a-war-of-whispers random play",
                "content": {"id": content.id, "digest": content.digest},
                "players": args.players,
                "games": args.games,
                "actions": actions,
                "seconds": round(seconds, 4),
                "actions_per_s": round(actions / seconds),
                "actions_per_game": round(actions / args.games, 1),
                "machine": platform.machine(),
                "python": platform.python_version(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
