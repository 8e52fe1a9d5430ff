"""The ``council-ladder`` command line.

``council-ladder run`` plays a resumable AI-vs-AI ladder stored in SQLite and prints its
ratings; ``council-ladder report`` prints a stored ladder's standings and writes its ratings
plot (docs/ladder.md); ``council-ladder records`` writes its finished games' records, one
JSON file each (docs/review.md). Needs the ``ladder`` extra: ``pip install 'council-ai[ladder]'``;
without OpenSkill the ladder does not import (the error names the install); without
matplotlib a command asked for a plot exits 2 saying so, before playing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from council.engine.games import all_games
from council.ladder import Store, load, plot, run_ladder
from council.ladder._extra import require
from council.ladder.games import DEFAULT_GAME, GAMES, default_table_size, table_sizes
from council.server.cli import run_command

PROG = "council-ladder"


def _default_plot(db: str) -> str:
    from pathlib import Path

    path = Path(db)
    return str(path.with_name(path.stem + "-ratings.png"))


def _can_plot(command: str) -> bool:
    """Whether matplotlib is there, checked before any game is played; without it, a
    one-line error naming the extra."""
    try:
        require("matplotlib")
    except ImportError as error:
        print(f"{PROG} {command}: {error}", file=sys.stderr)
        return False
    return True


def ladder_run(args: argparse.Namespace) -> int:
    """Play the ladder's scheduled games not yet stored, then print its report."""
    if args.db == ":memory:" and not args.entrants:
        print(f"{PROG} run: name the entrants", file=sys.stderr)
        return 2
    if args.plot and not _can_plot("run"):
        return 2
    try:
        store = Store(args.db)
    except Exception as error:
        print(f"{PROG} run: {args.db}: {error}", file=sys.stderr)
        return 2
    with store:
        try:
            summary = run_ladder(
                store,
                args.entrants or None,
                game=args.game,
                table_size=args.table_size,
                deals=args.deals,
                seed=args.seed,
                layout=args.layout,
                workers=args.workers,
                ray_address=args.ray_address,
                progress=not args.no_progress,
                max_actions=args.max_actions,
                max_turns=args.max_turns,
            )
        except ValueError as error:
            print(f"{PROG} run: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(
                f"{PROG} run: interrupted with {store.count()} games stored; "
                "run it again to resume",
                file=sys.stderr,
            )
            return 130
        replayed = f"{summary.replayed} void games played again, " if summary.replayed else ""
        print(
            f"played {summary.played} games in {summary.seconds:.1f} s "
            f"({replayed}{summary.already_stored} were stored already, {summary.forfeits} "
            f"forfeits, {summary.voids} void, {summary.adjudicated} adjudicated at the length "
            f"cap); {summary.already_stored + summary.played}/"
            f"{summary.scheduled} scheduled games stored",
            file=sys.stderr,
        )
        _print_voids(summary.void_games)
        report = load(store)
        if args.plot:
            plot(report, args.plot)
        print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


def _print_voids(games, shown: int = 5) -> None:
    """The games voided because an endpoint could not be reached, on stderr after the
    run's summary line."""
    if not games:
        return
    print(
        f"{len(games)} games void, not rated: an endpoint could not be reached "
        "(run the ladder again to play them):",
        file=sys.stderr,
    )
    for game in games[:shown]:
        print(f"  {game.id}: {game.reason}", file=sys.stderr)
    if len(games) > shown:
        print(f"  ... and {len(games) - shown} more", file=sys.stderr)


def ladder_report(args: argparse.Namespace) -> int:
    """Print a stored ladder's standings and write its ratings plot."""
    if args.db != ":memory:" and not os.path.exists(args.db):
        print(f"{PROG} report: {args.db}: no such file", file=sys.stderr)
        return 2
    plot_path = None if args.no_plot else (args.plot or _default_plot(args.db))
    if plot_path and not _can_plot("report"):
        return 2
    with Store(args.db) as store:
        try:
            report = load(store)
        except ValueError as error:
            print(f"{PROG} report: {error}", file=sys.stderr)
            return 2
        if plot_path:
            plot(report, plot_path)
        print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
        if plot_path and not args.json:
            print(f"\nplot: {plot_path}")
    return 0


def record_file_name(game_id: str) -> str:
    """A ladder game's record file: its id with ``/`` made ``_``.

    >>> record_file_name("0-2/d3/r1")
    '0-2_d3_r1.json'
    """
    return game_id.replace("/", "_") + ".json"


def ladder_records(args: argparse.Namespace) -> int:
    """Write the record of every finished game of a stored ladder to a directory."""
    from pathlib import Path

    from council.engine.record import record_to_json

    if args.db != ":memory:" and not os.path.exists(args.db):
        print(f"{PROG} records: {args.db}: no such file", file=sys.stderr)
        return 2
    with Store(args.db) as store:
        try:
            records = store.records()
        except ValueError as error:
            print(f"{PROG} records: {error}", file=sys.stderr)
            return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for game_id, record in records.items():
        (out / record_file_name(game_id)).write_text(record_to_json(record) + "\n")
    print(f"wrote {len(records)} game records to {out}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A resumable AI-vs-AI ladder of any registered game (--game): round "
        "robin over tables (the game's seat counts) with seat rotation and duplicate "
        "seeded deals, stored in SQLite (resumable), rated with "
        "OpenSkill (Plackett-Luce) and pairwise win rates with 95% intervals. "
        "See docs/ladder.md.",
    )
    sub = parser.add_subparsers(dest="ladder_command", required=True)
    p = sub.add_parser(
        "run",
        help="play the scheduled games not yet stored (a new ladder, or resume one)",
        description="Entrants: agent specs as in 'council-ai arena' (random, greedy, "
        "ismcts:iterations=200, ...; another --game has its own: a name it lacks lists them) "
        "or remote:HOST:PORT[,preset=NAME|iterations=N|time_s=S"
        "|deadline_s=S|token_file=PATH] for any council.v1 endpoint; NAME@spec sets the "
        "label. With no entrants, the ladder stored in --db resumes. Rerunning the same "
        "command resumes a stopped ladder; more entrants (appended) or more deals extend it.",
    )
    p.add_argument("entrants", nargs="*", help="entrant specs (none: resume the stored ladder)")
    p.add_argument("--db", default="ladder.sqlite", help="SQLite file (default ladder.sqlite)")
    p.add_argument(
        "--game",
        choices=GAMES,
        help="the game: "
        + ", ".join(f"{g.name} ({g.display_name})" for g in all_games())
        + f"; default {DEFAULT_GAME}. A file holds one game's ladder: with no entrants the "
        "stored game goes on; another game is refused",
    )
    p.add_argument(
        "--table-size",
        type=int,
        choices=sorted({n for game in GAMES for n in table_sizes(game)}),
        help="seats a table: "
        + ", ".join(
            f"{min(table_sizes(game))}-{max(table_sizes(game))} for {game} "
            f"(default {default_table_size(game)})"
            for game in GAMES
        ),
    )
    p.add_argument("--deals", type=int, default=None, help="seeded deals per table (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--layout",
        help="board sides, for a game whose configuration has a layout (default: its own)",
    )
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument(
        "--ray-address",
        help="run games as Ray tasks: 'auto' or HOST:PORT of a running cluster, "
        "'local' for a private local instance (needs the 'ladder-ray' extra)",
    )
    p.add_argument(
        "--max-turns", type=int, default=300, help="adjudicate a game on its scores at this turn"
    )
    p.add_argument(
        "--max-actions", type=int, default=20_000, help="adjudicate a game past this many actions"
    )
    p.add_argument("--plot", help="also write the ratings plot (PNG) here")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=ladder_run)

    p = sub.add_parser("report", help="print a ladder's standings and write its ratings plot")
    p.add_argument("--db", default="ladder.sqlite")
    p.add_argument("--plot", help="PNG path (default: <db stem>-ratings.png beside the db)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=ladder_report)

    p = sub.add_parser(
        "records",
        help="write each finished game's record (JSON) to a directory",
        description="One council.v1.GameRecord per finished game (adjudicated ones "
        "included; forfeited and void games have none), named after the game's id "
        "(0-1/d3/r0 -> 0-1_d3_r0.json), its players the entrants' labels and specs; "
        "'council-ai review FILE' reviews one. See docs/review.md.",
    )
    p.add_argument("out", metavar="DIR", help="directory to write the records to")
    p.add_argument("--db", default="ladder.sqlite")
    p.set_defaults(func=ladder_records)
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
