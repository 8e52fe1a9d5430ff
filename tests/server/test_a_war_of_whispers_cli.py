"""A War of Whispers through the commands: ``council-ai arena`` at 2, 3 and 4 players, its
records reviewed by ``council-ai review``, and ``council-ladder`` rating it (tiny budgets:
one deal, a few iterations a move)."""

from __future__ import annotations

import json

import pytest

from council.ladder.cli import main as ladder_main
from council.server.cli import main

GAME = ["--game", "a-war-of-whispers"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_arena_plays_every_seat_count(players, capsys):
    lineup = ["ismcts:iterations=4", *["random"] * (players - 1)]
    args = ["arena", *GAME, *lineup, "--deals", "1", "--workers", "1", "--json", "--no-progress"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == players and report["players"] == players
    assert report["adjudicated"] == 0


def test_a_recorded_game_is_reviewed(tmp_path, capsys):
    lineup = ["expert", "random"]
    args = ["arena", *GAME, *lineup, "--deals", "1", "--workers", "1", "--no-progress"]
    assert main([*args, "--record", str(tmp_path)]) == 0
    record = sorted(tmp_path.glob("a-war-of-whispers-*.json"))[0]
    capsys.readouterr()
    assert main(["review", str(record), "--iterations", "4", "--seats", "0", "--json"]) == 0
    review = json.loads(capsys.readouterr().out)
    assert review["game"] == "a-war-of-whispers" and review["seats"][0]["decisions"] > 50


def test_the_ladder_rates_it(tmp_path, capsys):
    db = tmp_path / "ladder.sqlite"
    args = ["run", "--db", str(db), *GAME, "--table-size", "2", "--deals", "1"]
    assert ladder_main([*args, "--workers", "1", "--no-progress", "random", "expert"]) == 0
    out = capsys.readouterr().out
    assert "2/2 games stored, 2 rated" in out and "expert" in out
