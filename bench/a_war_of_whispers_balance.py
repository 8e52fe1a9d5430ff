"""Balance of A War of Whispers' content: which empire ends with the most cities, and which
opening seat wins, over many games (issue #40). Prints JSON.

    .venv/bin/python bench/a_war_of_whispers_balance.py --random-games 4000 \
        --agent expert --agent-games 200 --players 2 3 4

For each player count: ``random`` (uniformly random play, the core's C loop, many games) and
``--agent`` (every seat the same agent spec, e.g. ``expert`` or ``ismcts:iterations=100``,
fewer games). ``empire_leads``: per empire, the share of games in which it controls the
most cities at the end (ties split between the empires tied; fair 0.2); ``seat_wins``: per
opening seat, the share of games it won (shared wins split; fair 1/players); each with its
95% Wilson interval. ``flags`` names an empire that never leads and a seat whose interval
lies wholly above or below its fair share. ``--content FILE`` measures another content
file (a candidate) instead of the bundled one.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Iterable

from council.engine._a_war_of_whispers import AWarOfWhispersState, current_content
from council.engine.a_war_of_whispers import AWarOfWhispersConfig, use_content_file
from council.mcts.agents import parse_agent
from council.mcts.arena import play_capped, wilson_interval

EMPIRES = ("bear", "lion", "horse", "elephant", "eagle")


def leading_empires(state: AWarOfWhispersState) -> list[int]:
    """The empires controlling the most cities (the map's cities; agents on the map aside)."""
    cities = [0] * len(EMPIRES)
    for region, (owner, _) in zip(current_content().regions, state.regions(), strict=True):
        if owner >= 0:
            cities[owner] += region.cities
    top = max(cities)
    return [e for e, c in enumerate(cities) if c == top]


def tally(finals: Iterable[AWarOfWhispersState], players: int) -> dict:
    """Empire leads and seat wins (ties split) over finished games, with intervals."""
    leads = [0.0] * len(EMPIRES)
    wins = [0.0] * players
    games = 0
    for state in finals:
        games += 1
        top = leading_empires(state)
        for e in top:
            leads[e] += 1 / len(top)
        winners = state.winners()
        for p in winners:
            wins[p] += 1 / len(winners)

    def share(successes: float, fair: float) -> dict:
        low, high = wilson_interval(successes, games)
        return {
            "share": round(successes / games, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "fair": round(fair, 4),
        }

    empire_leads = {name: share(leads[e], 1 / len(EMPIRES)) for e, name in enumerate(EMPIRES)}
    seat_wins = {str(p): share(wins[p], 1 / players) for p in range(players)}
    flags = [f"empire {name} never leads" for name, s in empire_leads.items() if s["share"] == 0]
    for p, s in seat_wins.items():
        if s["ci95"][0] > s["fair"]:
            flags.append(f"seat {p} above its share")
        elif s["ci95"][1] < s["fair"]:
            flags.append(f"seat {p} below its share")
    return {"games": games, "empire_leads": empire_leads, "seat_wins": seat_wins, "flags": flags}


def random_games(players: int, games: int, seed: int) -> Iterable[AWarOfWhispersState]:
    config = AWarOfWhispersConfig(players=players)
    for g in range(games):
        state = config.new_game(seed + g)
        state.random_playout(seed + g)
        yield state


def agent_games(spec: str, players: int, games: int, seed: int) -> Iterable[AWarOfWhispersState]:
    config = AWarOfWhispersConfig(players=players)
    seats = [parse_agent(spec, "a-war-of-whispers") for _ in range(players)]
    for g in range(games):
        state, _, _ = play_capped(seats, config, seed + g)
        yield state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--random-games", type=int, default=4000)
    parser.add_argument("--agent", default="expert", help="agent spec for every seat")
    parser.add_argument("--agent-games", type=int, default=200, help="0: random play only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--content", help="a content file to measure instead of the bundled")
    args = parser.parse_args()
    if args.content:
        use_content_file(args.content)
    content = current_content()
    results: dict[str, dict] = {}
    for players in args.players:
        row: dict[str, dict] = {}
        start = time.perf_counter()
        row["random"] = tally(random_games(players, args.random_games, args.seed), players)
        row["random"]["seconds"] = round(time.perf_counter() - start, 1)
        if args.agent_games:
            start = time.perf_counter()
            finals = agent_games(args.agent, players, args.agent_games, args.seed)
            row[args.agent] = tally(finals, players)
            row[args.agent]["seconds"] = round(time.perf_counter() - start, 1)
        results[str(players)] = row
    print(
        json.dumps(
            {
                "benchmark": "a-war-of-whispers balance",
                "content": {"id": content.id, "digest": content.digest},
                "seed": args.seed,
                "players": results,
                "machine": platform.machine(),
                "python": platform.python_version(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
