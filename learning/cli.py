"""The learning commands of ``council-ai``: ``selfplay`` plays seeded self-play games into
resumable ``.npz`` shards, ``train`` fits the learned value model and ``train-policy`` the
learned policy prior to them, each printing its held-out report (JSON). See
docs/learning.md.

``council-ai`` (``council.server.cli``) registers them with ``add_commands``: this module is
the one door from the service's package into training, and it imports the training modules
only when a command runs, so that ``council-ai --help`` answers at once.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="council-ai")
>>> add_commands(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["train", "data", "--out", "value.npz", "--hidden", "8"])
>>> args.func is train, args.data, args.hidden, args.holdout
(True, ['data'], 8, 0.2)
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from council.engine.games import default_game

__all__ = ["add_commands", "selfplay", "train", "train_policy"]

PROG = "council-ai"
_DEFAULT_CONFIG = default_game().config_class()


def selfplay(args: argparse.Namespace) -> int:
    """Play seeded self-play games into resumable .npz shards (docs/learning.md)."""
    from council.learning.selfplay import SelfPlayConfig, parse_players, run_selfplay

    try:
        config = SelfPlayConfig(
            agents=tuple(args.agent or ["ismcts:iterations=300"]),
            players=parse_players(args.players),
            games=args.games,
            shard_size=args.shard_size,
            seed=args.seed,
            max_turns=args.max_turns,
            layout=args.layout,
        ).validate()
        summary = run_selfplay(
            config,
            args.out,
            workers=args.workers,
            ray_address=args.ray_address,
            progress=not args.no_progress,
            record_dir=args.record,
        )
    except ValueError as error:
        print(f"{PROG} selfplay: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"{PROG} selfplay: interrupted; the finished shards are kept, "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    print(json.dumps(summary.to_dict(), indent=2))
    return 0


def _fit(command: str, module: str, function: str, args: argparse.Namespace, **options) -> int:
    """Run a training function of ``council.learning.<module>`` on the shared fit options
    and print its report (JSON); a missing training extra or bad data is a clear error."""
    fit_options = dict(
        l2=args.l2,
        seed=args.seed,
        holdout=args.holdout,
        max_iter=args.max_iter,
        positions_per_game=args.positions_per_game,
    )
    try:
        trainer = importlib.import_module(f"council.learning.{module}")
        report = getattr(trainer, function)(args.data, args.out, **fit_options, **options)
    except ImportError as error:
        print(f"{PROG} {command}: {error} (pip install 'council-ai[train]')", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"{PROG} {command}: {error}", file=sys.stderr)
        return 2
    text = trainer.report_json(report)
    if args.json_out:
        with open(args.json_out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


def train(args: argparse.Namespace) -> int:
    """Fit the value model to self-play data and print the held-out report (JSON)."""
    return _fit(
        "train",
        "train",
        "train",
        args,
        hidden=args.hidden,
        root_value_weight=args.root_value_weight,
        report_png=args.report,
    )


def train_policy(args: argparse.Namespace) -> int:
    """Fit the policy prior to the search's choices and print the held-out report (JSON)."""
    return _fit("train-policy", "train_policy", "train_policy", args)


def add_commands(sub) -> None:
    """Add ``selfplay``, ``train`` and ``train-policy`` to the subcommands ``sub`` (what
    ``argparse.ArgumentParser.add_subparsers`` returns)."""
    p = sub.add_parser(
        "selfplay",
        help="play seeded self-play games into resumable .npz shards (value-model data)",
        description="Records every decision with more than one legal action: the full state, "
        "per-seat features, outcomes, root values and visit distributions. Rerunning the "
        "same command skips the shards already written. See docs/learning.md.",
    )
    p.add_argument(
        "--agent",
        action="append",
        help="agent spec (as in 'council-ai arena'); once for all seats or once per seat, "
        "rotated by game (default ismcts:iterations=300)",
    )
    p.add_argument("--players", default="2", help="seats per game: N or a list like 2,3,4")
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--shard-size", type=int, default=100, help="games per shard file")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-turns", type=int, default=300, help="drop a game still going here")
    p.add_argument("--layout", default=_DEFAULT_CONFIG.layout)
    p.add_argument("--out", required=True, help="data directory (shards and manifest.json)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument(
        "--ray-address",
        help="run games as Ray tasks: 'auto' or HOST:PORT of a running cluster, "
        "'local' for a private local instance",
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        help="also write each game's record to DIR/<game name>-<game index>.json "
        "(council.engine.record; docs/review.md)",
    )
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=selfplay)

    p = sub.add_parser(
        "train",
        help="fit the learned value model to self-play data (needs the 'train' extra)",
        description="Splits the games into training and held-out sets (seeded), fits by "
        "L-BFGS-B, writes the model (.npz) and prints held-out log loss and Brier by game "
        "phase against the 1/n and hand-made-evaluator baselines. See docs/learning.md.",
    )
    _add_fit_options(p)
    p.add_argument("--hidden", type=int, default=0, help="hidden tanh units (0: linear)")
    p.add_argument(
        "--root-value-weight",
        type=float,
        default=0.0,
        help="blend the search's root value into each training target at this weight "
        "(0: outcomes only)",
    )
    p.add_argument("--report", help="write the reliability plot (PNG) here")
    p.set_defaults(func=train)

    p = sub.add_parser(
        "train-policy",
        help="fit the learned policy prior to the search's choices (needs the 'train' extra)",
        description="Targets are the search's choices (the most visited root action) "
        "recorded in self-play shards (positions without visits are skipped). Splits the "
        "games into training and held-out sets (seeded), fits a softmax over the legal "
        "actions' features by L-BFGS-B, writes the model (.npz) and prints held-out "
        "cross-entropy and top-1 agreement by kind of decision against the uniform prior. "
        "See docs/learning.md.",
    )
    _add_fit_options(p)
    p.set_defaults(func=train_policy)


def _add_fit_options(p) -> None:
    """The options `train` and `train-policy` share."""
    p.add_argument("data", nargs="+", help="self-play directories")
    p.add_argument("--out", required=True, help="model file (.npz)")
    p.add_argument("--l2", type=float, default=1e-4, help="L2 penalty on the weights")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--holdout", type=float, default=0.2, help="share of games held out")
    p.add_argument("--max-iter", type=int, default=1000, help="L-BFGS-B iterations")
    p.add_argument(
        "--positions-per-game",
        type=int,
        default=0,
        help="keep a seeded sample of this many positions of each game (0: all)",
    )
    p.add_argument("--json-out", help="also write the report (JSON) here")
