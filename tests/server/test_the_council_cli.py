"""The council-ai commands on The Council: new-game --game the-council, then hint against a
real server and render."""

from __future__ import annotations

import json

from council.engine.serialize import loads, state_to_json
from council.engine.the_council import TheCouncilState
from council.mcts.search import SearchLimits, search
from council.server.cli import main


def test_new_game_of_the_council(capsys):
    assert main(["new-game", "--game", "the-council", "--players", "5", "--seed", "7"]) == 0
    text = capsys.readouterr().out
    assert loads(text) == TheCouncilState.new_game(5, seed=7)
    assert json.loads(text)["config"] == {"players": 5, "game": "GAME_THE_COUNCIL"}
    assert main(["new-game", "--game", "the-council", "--seed", "7", "--view", "2"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj == state_to_json(TheCouncilState.new_game(4, seed=7).view(2))


def test_new_game_of_the_council_refuses_council_of_four_options(capsys):
    assert main(["new-game", "--game", "the-council", "--layout", "BBA"]) == 2
    assert "--layout is a rule variant of Council of Four" in capsys.readouterr().err
    assert main(["new-game", "--game", "the-council", "--players", "2"]) == 2
    assert "The Council seats 3, 4 or 5, got 2" in capsys.readouterr().err


def test_hint_and_render_a_position_of_the_council(server, tmp_path, capsys):
    assert main(["new-game", "--game", "the-council", "--players", "3", "--seed", "5"]) == 0
    path = tmp_path / "state.json"
    path.write_text(capsys.readouterr().out)
    args = ["hint", str(path), "--address", server.address, "--iterations", "300", "--seed", "4"]
    assert main([*args, "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    expected = search(
        TheCouncilState.new_game(3, seed=5).view(0), SearchLimits(iterations=300), seed=4
    )
    assert response["result"]["action"]["id"] == expected.action
    assert response["result"]["action"]["kind"] == "ACTION_KIND_PICK"
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("seat 0: pick ")
    out = tmp_path / "state.svg"
    assert main(["render", str(path), "--seat", "1", "-o", str(out)]) == 0
    svg = out.read_text()
    assert svg.startswith("<svg") and "the view of seat 1" in svg
