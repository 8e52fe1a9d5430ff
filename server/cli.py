"""The ``council-ai`` command line.

``council-ai demo`` plays and prints a seeded demo game between random players.
"""

from __future__ import annotations

import argparse
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="council-ai", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and print a seeded demo game")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--layout", default="ABA", help="board sides for coast, hills, mountains")
    p.add_argument("--verbose", action="store_true", help="also print every end of turn")
    p.set_defaults(func=demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
