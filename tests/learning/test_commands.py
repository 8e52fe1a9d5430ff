"""The learning commands: ``council-ai selfplay``, ``train`` and ``train-policy`` keep their
names (docs/learning.md) and are implemented in ``council.learning.cli``, which the command
line loads without the training modules themselves."""

from __future__ import annotations

import subprocess
import sys

import pytest

from council.learning import cli as learning_cli
from council.server.cli import build_parser, main

COMMANDS = {
    "selfplay": learning_cli.selfplay,
    "train": learning_cli.train,
    "train-policy": learning_cli.train_policy,
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_council_ai_runs_the_learning_packages_command(command):
    args = {"selfplay": ["--games", "1", "--out", "d"]}.get(command, ["d", "--out", "m.npz"])
    parsed = build_parser().parse_args([command, *args])
    assert parsed.func is COMMANDS[command]
    assert parsed.func.__module__ == "council.learning.cli"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert f"usage: council-ai {command}" in capsys.readouterr().out


def test_the_command_line_loads_no_training_until_a_command_runs():
    # `council-ai --help` answers at once: of council.learning only its command table loads,
    # not self-play, the trainers or SciPy.
    probe = (
        "import sys, council.server.cli as c; c.build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith(('council.learning', 'scipy'))))"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert run.stdout.split() == ["['council.learning',", "'council.learning.cli']"]


def test_a_missing_data_directory_is_a_clear_error(tmp_path, capsys):
    for command in ("train", "train-policy"):
        assert main([command, str(tmp_path / "none"), "--out", str(tmp_path / "m.npz")]) == 2
        assert f"council-ai {command}: " in capsys.readouterr().err
