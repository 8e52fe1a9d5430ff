"""The ladder's own command (``council-ladder``) and its optional extra.

* ``council-ladder run`` / ``report`` take the flags the ``council-ai ladder`` group took, and
  ``council-ai`` no longer has a ``ladder`` command.
* Without OpenSkill, importing ``council.ladder`` (the command included) fails with the
  install command in the message; without matplotlib, a plot does, and the command asked for
  one exits 2 saying so before it plays a game.
* Every help text shows a % once; a reader closing stdout early ends a command quietly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from council.ladder import Store, load, plot, run_ladder
from council.ladder._extra import INSTALL
from council.ladder.cli import build_parser, main

RUN_FLAGS = {
    "--db",
    "--game",
    "--table-size",
    "--deals",
    "--seed",
    "--layout",
    "--workers",
    "--ray-address",
    "--max-turns",
    "--max-actions",
    "--plot",
    "--json",
    "--no-progress",
}
REPORT_FLAGS = {"--db", "--plot", "--no-plot", "--json"}


def _flags(parser, command: str) -> set[str]:
    (sub,) = [a for a in parser._actions if a.dest == "ladder_command"]
    return {o for a in sub.choices[command]._actions for o in a.option_strings} - {"-h", "--help"}


def test_the_command_has_run_and_report_with_their_flags(capsys):
    parser = build_parser()
    assert parser.prog == "council-ladder"
    assert _flags(parser, "run") == RUN_FLAGS
    assert _flags(parser, "report") == REPORT_FLAGS
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "usage: council-ladder" in out and "{run,report,records}" in out
    assert _flags(parser, "records") == {"--db"}
    args = parser.parse_args(["run", "random", "greedy", "--table-size", "3"])
    assert (args.entrants, args.table_size, args.db, args.max_turns) == (
        ["random", "greedy"],
        3,
        "ladder.sqlite",
        300,
    )


def test_council_ai_has_no_ladder_command(capsys):
    from council.server.cli import build_parser as server_parser

    (sub,) = [a for a in server_parser()._actions if a.dest == "command"]
    assert "ladder" not in sub.choices
    assert {"serve", "hint", "arena"} <= set(sub.choices)


def test_the_console_script_runs():
    # The script `pip install` (make build) writes beside the interpreter. (Not looked up
    # through importlib.metadata: a stale council_ai.egg-info in the source tree, on
    # sys.path as the working directory, would shadow the installed entry points.)
    script = Path(sysconfig.get_path("scripts")) / "council-ladder"
    assert script.is_file(), f"{script}: reinstall (make build) to get the console script"
    done = subprocess.run(
        [str(script), "run", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: council-ladder run") and "--ray-address" in done.stdout


MISSING = """
import sys
import runpy
sys.modules[sys.argv[1]] = None  # as if the ladder extra were not installed
sys.argv = sys.argv[2:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _without(module: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", MISSING, module, *command],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_openskill_the_import_fails_naming_the_extra():
    message = f"ImportError: the ladder needs openskill (not installed): {INSTALL}"
    assert INSTALL == "pip install 'council-ai[ladder]'"
    done = _without("openskill", "council.ladder")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == message
    assert "council/ladder/ratings.py" in done.stderr or "ladder/ratings.py" in done.stderr
    # The command line stops the same way, before anything runs.
    done = _without("openskill", "council.ladder.cli", "run", "random", "greedy")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == message


def test_without_matplotlib_a_plot_is_refused_before_any_game(tmp_path):
    db = tmp_path / "l.sqlite"
    png = tmp_path / "p.png"
    run = ["council.ladder.cli", "run", "random", "greedy", "--deals", "1", "--db", str(db)]
    done = _without("matplotlib", *run, "--plot", str(png), "--no-progress")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"council-ladder run: the ladder needs matplotlib (not installed): {INSTALL}"
    )
    assert not db.exists() and not png.exists()
    # Without a plot the ladder needs no matplotlib.
    done = _without("matplotlib", *run, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "2/2 games stored" in done.stdout
    done = _without("matplotlib", "council.ladder.cli", "report", "--db", str(db))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"council-ladder report: the ladder needs matplotlib (not installed): {INSTALL}"
    )
    done = _without("matplotlib", "council.ladder.cli", "report", "--db", str(db), "--no-plot")
    assert done.returncode == 0 and "2/2 games stored" in done.stdout


def test_the_plot_function_names_the_extra(tmp_path, monkeypatch):
    with Store(":memory:") as store:
        run_ladder(store, ["random", "greedy"], deals=1, workers=1)
        report = load(store)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"needs matplotlib .*council-ai\[ladder\]"):
        plot(report, str(tmp_path / "p.png"))


def test_every_help_shows_its_percent_signs_once(capsys):
    # argparse %-formats help= strings (a literal % is %% there) but a description only when
    # it holds %(prog): the old `ladder` description, written with %%, showed "95%%".
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "ladder_command"]
    for words, p in [([], parser), *(([name], p) for name, p in sub.choices.items())]:
        with pytest.raises(SystemExit):
            main([*words, "--help"])
        text = capsys.readouterr().out
        assert text == p.format_help()
        assert "%%" not in text and "%(" not in text, words
    assert "with 95% intervals" in " ".join(parser.format_help().split())


def test_a_reader_closing_stdout_early_ends_the_command_quietly(tmp_path):
    # stdout is a pipe whose reader has gone (`council-ladder report | head`, head done).
    db = str(tmp_path / "l.sqlite")
    read, write = os.pipe()
    os.close(read)
    try:
        for args, err in [
            (["run", "random", "greedy", "--deals", "1", "--no-progress"], "played 2 games"),
            (["report", "--no-plot"], ""),
        ]:
            done = subprocess.run(
                [sys.executable, "-m", "council.ladder.cli", *args, "--db", db],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
            assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.startswith(err) and done.stderr.count("\n") <= 1
    finally:
        os.close(write)
    with Store(db) as store:
        assert store.count() == 2  # the games were stored before the report was printed
