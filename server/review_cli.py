"""``council-ai review``: the review of a recorded game (``council.mcts.review``) on the
command line.

``council-ai review RECORD.json`` validates the record (a ``council.v1.GameRecord`` in its
JSON form, as ``council-ai arena --record DIR`` writes them), reviews every move of the
seats asked for (``--seats 0,1``; default every seat) from each seat's own view, and prints
a table (move, seat, played, best, win probability before, its loss, points lost, label),
under each labelled move the better move's line with the seats that play it and what it
keeps, and a summary per seat. ``--json`` prints ``council.mcts.review.review_to_json``'s
object instead; ``--plot FILE.png`` also draws each seat's win probability and expected
score margin over the game with its inaccuracies, mistakes and blunders marked, the worst
ones named with the better move (matplotlib: the ``plot`` extra). The budget per decision is a
strength preset's (``--preset``, default casual: its iterations and search settings in the
record's game) or ``--iterations N``; ``--total-time S`` caps the whole review;
``--hindsight`` searches the full states instead (every hand known: an after-game study).

A record that does not replay (an illegal move, a game cut short that is not adjudicated,
scores that are not the replayed ones, a seat named twice in ``players``...) is refused
with each problem's path, exit status 2, as is a file that is no record or a seat the game
does not have.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["INSTALL_PLOT", "add_command", "format_table", "plot_review", "readable_line", "review"]

INSTALL_PLOT = "pip install 'council-ai[plot]'"
_PROG = "council-ai review"


def add_command(sub) -> None:
    """Add the ``review`` subcommand to the ``council-ai`` parser's subparsers (importing
    nothing heavy: the presets are checked when the command runs)."""
    p = sub.add_parser(
        "review",
        help="review a recorded game: each move's loss of win probability, from the "
        "seat's own view",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    p.add_argument("record", help="the game record's JSON file (council-ai arena --record)")
    p.add_argument(
        "--seats", type=_seat_list, help="the seats to review, e.g. 0,1 (default: every seat)"
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--preset",
        default="casual",
        help="the budget per decision: a strength preset's (beginner, casual, strong) "
        "iterations and settings in the record's game (default: %(default)s)",
    )
    budget.add_argument("--iterations", type=int, help="the budget per decision: iterations")
    p.add_argument(
        "--total-time", type=float, metavar="S", help="a cap on the whole review, in seconds"
    )
    p.add_argument(
        "--hindsight",
        action="store_true",
        help="search the full states, every hand known (an after-game study, labelled so)",
    )
    p.add_argument("--seed", type=int, default=0, help="the review's seed (default: 0)")
    p.add_argument("--json", action="store_true", help="print the review as JSON")
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help=f"draw each seat's win probability over the game (needs matplotlib: {INSTALL_PLOT})",
    )
    p.set_defaults(func=review)


def _seat_list(text: str) -> list[int]:
    try:
        seats = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"seats: comma-separated seat numbers, e.g. 0,1; got {text!r}"
        ) from None
    if len(set(seats)) != len(seats):
        raise argparse.ArgumentTypeError(f"seats: a seat is named twice: {text!r}")
    return seats


def _fail(message: str) -> int:
    print(f"{_PROG}: {message}", file=sys.stderr)
    return 2


def _require_matplotlib() -> ModuleType:
    """matplotlib, or ImportError naming the extra that installs it."""
    try:
        return importlib.import_module("matplotlib")
    except ModuleNotFoundError as error:
        raise ImportError(
            f"--plot needs matplotlib (not installed): {INSTALL_PLOT}", name="matplotlib"
        ) from error


def review(args: argparse.Namespace) -> int:
    """Review a record and print the table or JSON (exit 2 for a bad record or flag)."""
    from council.engine.games import game_of
    from council.engine.record import record_from_json, replay
    from council.engine.serialize import StateValidationError
    from council.mcts.review import review_game, review_to_json, summarize
    from council.mcts.search import SearchLimits, default_config
    from council.server.presets import BY_NAME

    if args.plot:
        try:
            _require_matplotlib()
        except ImportError as error:
            return _fail(str(error))
    if args.preset not in BY_NAME:
        return _fail(f"--preset: unknown preset {args.preset!r}; choose from {', '.join(BY_NAME)}")
    if args.iterations is not None and args.iterations < 1:
        return _fail(f"--iterations must be >= 1, got {args.iterations}")
    if args.total_time is not None and not args.total_time > 0:
        return _fail(f"--total-time must be > 0, got {args.total_time}")
    try:
        text = Path(args.record).read_bytes()
    except OSError as error:
        return _fail(f"cannot read {args.record}: {error.strerror or error}")
    try:
        record = record_from_json(text)
        final = replay(record)
    except StateValidationError as error:
        problems = "".join(f"\n  {path}: {problem}" for path, problem in error.violations)
        return _fail(f"{args.record} is not a valid game record:{problems}")
    game = game_of(final)
    if args.seats is not None:
        wrong = [s for s in args.seats if not 0 <= s < final.n_players]
        if wrong:
            last = final.n_players - 1
            return _fail(f"--seats: {wrong} not in this {final.n_players}-seat game (0..{last})")
    config = default_config(final)
    if args.iterations is not None:
        limits = SearchLimits(iterations=args.iterations)
    else:
        budget = BY_NAME[args.preset].budget(game.name)
        limits = SearchLimits(iterations=budget.iterations)
        config = config.with_settings(dict(budget.settings))
    reviews = list(
        review_game(
            record,
            seats=args.seats,
            limits=limits,
            total_time_s=args.total_time,
            hindsight=args.hindsight,
            seed=args.seed,
            config=config,
        )
    )
    summaries = summarize(reviews)
    if args.json:
        print(json.dumps(review_to_json(reviews, summaries, game=game.name), indent=1))
    else:
        print(format_table(reviews, summaries, record, hindsight=args.hindsight, game=game.name))
    if args.plot:
        title = f"{game.display_name}: {Path(args.record).name}"
        plot_review(
            reviews,
            args.plot,
            title=title + (" (hindsight)" if args.hindsight else ""),
            game=game.name,
        )
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def readable_line(review, names: dict[int, str], limit: int = 6) -> str:
    """A move's better line for people: each step with the seat that takes it, the turns'
    bare "end" steps left out, at most ``limit`` steps."""
    steps = [
        text if seat is None else f"{names.get(seat, f'seat {seat}')}: {text}"
        for text, seat in zip(
            review.line, _padded(review.line_seats, len(review.line)), strict=True
        )
        if text != "end"
    ]
    return ", ".join(steps[:limit]) + (" ..." if len(steps) > limit else "")


def _padded(seats, n: int) -> list:
    return list(seats) + [None] * (n - len(seats))


def _points_unit(game: str) -> str:
    """The unit of a game's points ("points" for a game not named)."""
    from council.engine.games import game_named

    return game_named(game).points_unit if game else "points"


def format_table(reviews, summaries, record, *, hindsight: bool = False, game: str = "") -> str:
    """The review as text: one line per move (a labelled one followed by the better move's
    line and points), then one per seat."""
    unit = _points_unit(game)
    names = {p.seat: p.agent or p.name for p in record.players}
    lines = []
    if hindsight:
        lines.append("hindsight: every hand known (an after-game study, not the seats' view)")
    meaning = (
        "the seat's expected winnings"
        if unit == "chips"
        else "the seat's expected final score less the best other seat's"
    )
    lines.append(f"points: {unit}, {meaning}")
    lines.append(
        f"{'move':>4}  {'seat':>4}  {'played':<28}  {'best':<28}  {'win%':>5}  {'win loss':>8}  "
        f"{'pts lost':>8}  label"
    )
    for r in reviews:
        mark = r.label or ("only move" if r.only_move else "")
        lines.append(
            f"{r.index:>4}  {r.seat:>4}  {_cut(r.played_text):<28}  {_cut(r.best_text):<28}  "
            f"{100 * r.win_probability_before:>5.1f}  {r.loss:>8.3f}  {r.points_lost:>8.2f}  "
            f"{mark}"
        )
        if r.label:
            lines.append(
                f"{'':>12}better: {r.best_text} ({r.points_best:+.1f} {unit}, "
                f"{100 * r.win_probability_best:.0f}% to win; played: {r.points_played:+.1f} "
                f"{unit}, {100 * r.win_probability_played:.0f}%); line: "
                f"{readable_line(r, {})}"
            )
    lines.append("")
    lines.append(
        f"{'seat':>4}  {'player':<24}  {'decisions':>9}  {'avg loss':>8}  {'avg pts':>8}  "
        f"{'accuracy':>8}  inaccuracies  mistakes  blunders"
    )
    for s in summaries:
        lines.append(
            f"{s.seat:>4}  {_cut(names.get(s.seat, ''), 24):<24}  {s.decisions:>9}  "
            f"{s.average_loss:>8.4f}  {s.average_points_lost:>8.2f}  {s.accuracy:>8.1f}  "
            f"{s.counts['inaccuracy']:>12}  {s.counts['mistake']:>8}  {s.counts['blunder']:>8}"
        )
    return "\n".join(lines)


def _cut(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# Each label's marker on the plot (no label: none).
_MARKS = {"inaccuracy": ("o", "gold"), "mistake": ("s", "darkorange"), "blunder": ("X", "red")}


# The worst moves named on the plot with the better move.
_NAMED_ON_PLOT = 3


def plot_review(reviews, path: str, *, title: str = "", game: str = "") -> None:
    """Draw each seat's win probability before each of its reviewed moves over the game
    (above) and its expected score margin after the best move (below), its labelled moves
    marked and the worst few named with the better move, to ``path`` (PNG; matplotlib
    imported here: ImportError naming the ``plot`` extra without it)."""
    matplotlib = _require_matplotlib()
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    unit = _points_unit(game)
    reviews = list(reviews)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    try:
        panels = (
            (top, lambda r: r.win_probability_before, "win probability (the seat's view)"),
            (bottom, lambda r: r.points_best, f"expected margin, {unit} (best move)"),
        )
        for axes, value, ylabel in panels:
            for seat in sorted({r.seat for r in reviews}):
                own = [r for r in reviews if r.seat == seat]
                axes.plot(
                    [r.index for r in own],
                    [value(r) for r in own],
                    label=f"seat {seat}",
                    linewidth=1.2,
                )
            for label, (marker, colour) in _MARKS.items():
                marked = [r for r in reviews if r.label == label]
                if marked:
                    axes.scatter(
                        [r.index for r in marked],
                        [value(r) for r in marked],
                        marker=marker,
                        color=colour,
                        s=40,
                        zorder=3,
                        label=label,
                    )
            axes.set_ylabel(ylabel)
            axes.grid(alpha=0.3)
        worst = sorted((r for r in reviews if r.label), key=lambda r: -r.severity)
        named = []
        for rank, r in enumerate(worst[:_NAMED_ON_PLOT], start=1):  # numbered, told below
            bottom.annotate(
                str(rank),
                (r.index, r.points_best),
                xytext=(4, 4),
                textcoords="offset points",
                fontsize="small",
                weight="bold",
            )
            named.append(
                f"{rank}: move {r.index}, {_cut(r.played_text, 24)}; better "
                f"{_cut(r.best_text, 24)} ({r.points_lost:.1f} {unit} lost)"
            )
        if named:
            bottom.text(
                0.01,
                0.03,
                "\n".join(named),
                transform=bottom.transAxes,
                fontsize="x-small",
                va="bottom",
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "grey"},
            )
        top.set_ylim(0, 1)
        bottom.axhline(0, color="grey", linewidth=0.8)
        bottom.set_xlabel("move (index in the record)")
        top.set_title(title)
        top.legend(loc="best", fontsize="small")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        plt.close(figure)
