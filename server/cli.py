"""The ``council-ai`` command line.

``council-ai demo`` plays and prints a seeded demo game between random players;
``council-ai arena`` plays seeded matches between agents and prints their win rates.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from council.engine import GameConfig, State


def _action_text(action: int) -> str:
    from council.engine.actions import Action

    return Action.from_id(action).to_text()


def demo(args: argparse.Namespace) -> int:
    """Play one seeded game with uniformly random legal actions and print it."""
    config = GameConfig(players=args.players, layout=args.layout)
    state = State.new_game(config, seed=args.seed)
    chooser = random.Random(args.seed)
    print(
        f"Council of Four demo: {args.players} random players, layout {args.layout}, "
        f"seed {args.seed}"
    )
    print(state)
    while not state.is_terminal():
        player, turn = state.current_player, state.turn
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        if args.verbose or action != 0:
            print(f"turn {turn:3d}  seat {player}  {_action_text(action)}")
    print()
    print(state)
    print(f"final scores: {state.scores()}  winners: {state.winners()}")
    return 0


def arena(args: argparse.Namespace) -> int:
    """Play seeded deals between agents with seat rotation and print the statistics."""
    from council.mcts.agents import parse_agent
    from council.mcts.arena import run_arena

    try:
        lineup = [parse_agent(spec) for spec in args.agents]
        config = GameConfig(players=len(lineup), layout=args.layout).validate()
    except ValueError as error:
        print(f"council-ai arena: {error}", file=sys.stderr)
        return 2
    report = run_arena(
        lineup, deals=args.deals, seed=args.seed, config=config, workers=args.workers,
        progress=not args.no_progress,
    )
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="council-ai", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and print a seeded demo game")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--layout", default="ABA", help="board sides for coast, hills, mountains")
    p.add_argument("--verbose", action="store_true", help="also print every end of turn")
    p.set_defaults(func=demo)

    p = sub.add_parser(
        "arena",
        help="play seeded matches between agents (one per seat, rotated over the seats)",
        description="Agents: random, greedy, ismcts, pimc, cheat, with options after a colon, "
        "e.g. ismcts:iterations=1000 or pimc:worlds=4,time_s=0.2. Name one per seat; "
        "each deal is played once per rotation of the seats.",
    )
    p.add_argument("agents", nargs="+", help="one agent spec per seat (2 to 4)")
    p.add_argument("--deals", type=int, default=10, help="seeded deals (games = deals x seats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--layout", default="ABA")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=arena)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
