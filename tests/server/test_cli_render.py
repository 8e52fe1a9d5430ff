"""council-ai render: a JSON position drawn as SVG or PNG, from a file or stdin."""

from __future__ import annotations

import io
import json
import sys
import xml.etree.ElementTree as ET

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_svg import render_svg
from council.engine.serialize import dumps, state_to_json
from council.server.cli import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _state() -> CouncilOfFourState:
    return CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=5)


def test_render_a_file_to_svg(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(dumps(_state(), indent=2))
    out = tmp_path / "board.svg"
    assert main(["render", str(path), "-o", str(out)]) == 0
    assert out.read_text() == render_svg(_state())
    root = ET.fromstring(out.read_text())
    assert root.get("data-players") == "3"


def test_render_a_seat_s_view_from_stdin(tmp_path, monkeypatch, capsysbinary):
    monkeypatch.setattr(sys, "stdin", io.StringIO(dumps(_state())))
    assert main(["render", "-", "--seat", "1"]) == 0
    assert capsysbinary.readouterr().out.decode() == render_svg(_state().view(1))


def test_render_a_whole_response_and_a_view(tmp_path):
    # A NewGame / ApplyAction response's {"state": ...}, holding seat 2's view.
    path = tmp_path / "response.json"
    path.write_text(json.dumps({"state": state_to_json(_state().view(2))}))
    out = tmp_path / "board.svg"
    assert main(["render", str(path), "-o", str(out), "--seat", "2"]) == 0
    assert out.read_text() == render_svg(_state().view(2))


def test_render_png(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(dumps(_state()))
    for args, out in (
        (["--png", "-o"], tmp_path / "board.img"),
        (["-o"], tmp_path / "board.png"),  # the name says PNG
    ):
        assert main(["render", str(path), *args, str(out), "--scale", "0.5"]) == 0
        assert out.read_bytes()[:8] == PNG_MAGIC


def test_render_errors(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text(dumps(_state().view(0)))
    assert main(["render", str(path), "--seat", "1"]) == 2
    assert "seat 0's view, not seat 1's" in capsys.readouterr().err
    path.write_text(dumps(_state()))
    assert main(["render", str(path), "--seat", "3"]) == 2
    assert "--seat must be in 0..2" in capsys.readouterr().err
    obj = state_to_json(_state())
    obj["players"][1]["coins"] = 99
    path.write_text(json.dumps(obj))
    assert main(["render", str(path)]) == 2
    assert "players[1].coins: must be in 0..20, got 99" in capsys.readouterr().err
    path.write_text("<svg/>")
    assert main(["render", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert main(["render", str(tmp_path / "missing.json")]) == 2
    assert "No such file" in capsys.readouterr().err
