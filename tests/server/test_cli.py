"""The council-ai commands: new-game -> hint against a real server; demo and arena."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest
from server_helpers import played

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import dumps, state_from_proto, state_to_json
from council.mcts.search import SearchLimits, search
from council.server.cli import build_parser, main
from council.v1 import game_pb2 as pb


def test_new_game_prints_a_protobuf_json_state(capsys):
    assert main(["new-game", "--players", "3", "--seed", "7"]) == 0
    from google.protobuf import json_format

    msg = json_format.Parse(capsys.readouterr().out, pb.GameState())
    assert state_from_proto(msg) == CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=3), seed=7
    )


def test_new_game_view(capsys):
    assert main(["new-game", "--players", "2", "--seed", "3", "--view", "1"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj == state_to_json(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3).view(1)
    )


def test_hint_from_new_game_output(server, tmp_path, capsys):
    assert main(["new-game", "--players", "2", "--seed", "5"]) == 0
    path = tmp_path / "state.json"
    path.write_text(capsys.readouterr().out)
    args = ["hint", str(path), "--address", server.address, "--iterations", "300", "--seed", "4"]
    assert main(args + ["--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    expected = search(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=5).view(0),
                      SearchLimits(iterations=300), seed=4)  # fmt: skip
    assert response["result"]["action"]["id"] == expected.action
    assert response["result"]["stats"]["iterations"] == "300"  # int64: a JSON string
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("seat 0: ")
    assert "300 iterations" in text
    # Headed columns; the recommended move first; the chance the bot plays each move (its
    # policy: Council of Four's search plays its most visited move), not raw visit counts;
    # the line without the turns' bare "end" steps.
    lines = text.splitlines()
    assert lines[1].split() == ["move", "plays", "it", "win", "%", "VP"]
    rows = lines[2 : 2 + len(response["result"]["candidates"])]
    assert rows[0].startswith(response["result"]["action"]["text"])
    policy = [round(100 * c.get("policy", 0)) for c in response["result"]["candidates"]]
    assert sorted(int(row.split("%")[0].split()[-1]) for row in rows) == sorted(policy)
    assert int(rows[0].split("%")[0].split()[-1]) == 100
    line = next(line for line in lines if line.startswith("line: "))
    assert "end" not in line.removeprefix("line: ").split(" / ")


def test_hint_reports_shape_errors_locally_and_violations_from_the_server(server, tmp_path, capsys):
    state = played(4, seed=3, actions=60)
    path = tmp_path / "state.json"
    path.write_text(dumps(state))
    args = ["hint", str(path), "--address", server.address, "--preset", "beginner"]
    assert main(args) == 0
    assert "50 iterations" in capsys.readouterr().out
    obj = state_to_json(state)
    obj["players"][2]["coins"] = "many"
    path.write_text(json.dumps(obj))
    assert main(args) == 2  # not a GameState: refused before any call
    assert "players[2].coins: must be an integer" in capsys.readouterr().err
    obj["players"][2]["coins"] = 99
    path.write_text(json.dumps(obj))
    assert main(args) == 1  # the server's answer
    err = capsys.readouterr().err
    assert "INVALID_ARGUMENT" in err
    assert "state.players[2].coins: must be in 0..20, got 99" in err
    # The status message lists the violations the BadRequest details hold: each is printed
    # once.
    obj["players"][1]["coins"] = 98
    path.write_text(json.dumps(obj))
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "council-ai hint: INVALID_ARGUMENT: 2 field violations",
        "  state.players[1].coins: must be in 0..20, got 98",
        "  state.players[2].coins: must be in 0..20, got 99",
    ]


def test_hint_says_when_the_deadline_cut_the_search_short(server, tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text(dumps(CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2)))
    base = ["hint", str(path), "--address", server.address, "--candidates", "1"]
    assert main([*base, "--time", "10", "--timeout", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("stopped by the deadline after ") and "--timeout 1 s" in line, line
    iterations = int(line.split("after ", 1)[1].split(" ", 1)[0])
    assert iterations > 0
    assert main([*base, "--iterations", "40"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("40 iterations in ") and line.endswith("(iteration budget spent)")


def test_demo_and_arena_still_work(capsys):
    assert main(["demo", "--players", "2", "--seed", "3"]) == 0
    assert "final scores" in capsys.readouterr().out
    assert main(["arena", "random", "random", "--deals", "1", "--workers", "1",
                 "--no-progress", "--json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report


def test_arena_names_the_agents_when_there_are_too_few_or_too_many(capsys):
    assert main(["arena", "random"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("council-ai arena: name one agent per seat, 2 to 4 agents")
    assert err.rstrip().endswith("got 1: random") and "players" not in err
    assert main(["arena", *["greedy"] * 5, "--deals", "1"]) == 2
    assert "got 5: greedy greedy greedy greedy greedy" in capsys.readouterr().err


def _subcommands(parser: argparse.ArgumentParser):
    """The parser and every subcommand's parser, by command line."""
    yield [], parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for words, p in _subcommands(sub):
                    yield [name, *words], p


def test_demo_plays_the_council(capsys):
    assert main(["demo", "--game", "the-council", "--players", "5", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The Council demo: 5 random players, seed 2")
    assert "hand  1  draft   seat 0  pick " in out and "final scores: [" in out
    assert main(["demo", "--game", "the-council", "--players", "2"]) == 2
    assert "The Council seats 3 to 5, got 2" in capsys.readouterr().err
    assert main(["demo", "--players", "5"]) == 2
    assert "Council of Four seats 2 to 4, got 5" in capsys.readouterr().err


def test_arena_plays_the_council(capsys):
    args = ["arena", "--game", "the-council", "ismcts:iterations=20", "expert", "random"]
    assert main([*args, "--deals", "1", "--workers", "1", "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 3 and report["players"] == 3
    assert sorted(report["agents"]) == ["expert", "ismcts(iterations=20)", "random"]
    assert main(["arena", "--game", "the-council", "random", "random"]) == 2
    assert "3 to 5 agents" in capsys.readouterr().err
    assert main(["arena", "--game", "the-council", "greedy", "random", "random"]) == 2
    assert "unknown agent 'greedy'; choose from random, expert" in capsys.readouterr().err


def test_every_help_renders_its_percent_signs_once(capsys):
    # argparse %-formats help= strings (so a literal % is %%), but a description only when
    # it holds %(prog): a description written with %% shows it doubled.
    for words, parser in _subcommands(build_parser()):
        text = parser.format_help()
        assert "%%" not in text and "%(" not in text, words
        with pytest.raises(SystemExit):
            main([*words, "--help"])
        assert capsys.readouterr().out == text


def _closed_pipe_run(*args: str) -> subprocess.CompletedProcess:
    """Run council-ai with its stdout a pipe whose reader has already closed it: every
    write fails (EPIPE), as in `council-ai demo | head` once head has exited."""
    read, write = os.pipe()
    os.close(read)
    try:
        command = [sys.executable, "-m", "council.server.cli", *args]
        return subprocess.run(command, stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "args,code",
    # argparse itself ignores a failed write of --help, and exits 0.
    [(["demo", "--verbose"], 1), (["new-game", "--players", "3"], 1), (["demo", "--help"], 0)],
)
def test_a_reader_closing_stdout_early_ends_a_command_quietly(args, code):
    done = _closed_pipe_run(*args)
    assert (done.returncode, done.stderr.decode()) == (code, "")


def test_demo_into_head_prints_no_traceback():
    # The reader takes the first line and goes away while the demo is still printing.
    command = [sys.executable, "-m", "council.server.cli", "demo", "--verbose", "--seed", "4"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout.readline().startswith(b"Council of Four demo: 4 random players")
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) in (0, 1)  # 0 if it had written everything already
    assert err == ""


def test_arena_help_names_every_agent(capsys):
    from council.mcts.agents import AGENTS

    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    named = text.split("Agents: ", 1)[1].split(", with options", 1)[0]
    assert named.split(", ") == list(AGENTS)


def test_new_game_offers_every_config_field(capsys):
    import dataclasses

    args = ["new-game", "--players", "2", "--layout", "BBA", "--max-coins", "25",
            "--assistant-supply", "12", "--no-permit-tie-all-score",
            "--nobility-bonus-on-pass"]  # fmt: skip
    assert main(args) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    expected = CouncilOfFourConfig(2, "BBA", 25, 12, False, True)
    assert config == expected.to_dict()
    assert {f.name for f in dataclasses.fields(CouncilOfFourConfig)} == set(config)
    assert main(["new-game"]) == 0  # the defaults are GameConfig's
    assert json.loads(capsys.readouterr().out)["config"] == CouncilOfFourConfig().to_dict()
    assert main(["new-game", "--max-coins", "5"]) == 2
    assert "max_coins" in capsys.readouterr().err


def test_serve_flags_default_to_server_config(monkeypatch, capsys, tmp_path):
    import pytest

    from council.server import app
    from council.server.config import DEFAULT_HTTP_ADDRESS, ServerConfig

    started = []
    monkeypatch.setattr(
        app, "serve", lambda config, ready=None, exit_process=False: started.append(config) or 0
    )
    monkeypatch.delenv("COUNCIL_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("COUNCIL_SEAL_KEYS", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert main(["serve"]) == 0
    # The serve defaults that are not ServerConfig's: a library user gets no HTTP port, no
    # log line per call, and a key of its process only where serve keeps one in a file
    # (docs/service.md, docs/metrics.md).
    keys = started[-1].seal_keys
    assert (
        (tmp_path / "council-ai" / "seal-keys")
        .read_text()
        .splitlines()[-1]
        .startswith(keys.current + " ")
    )
    expected = ServerConfig(http_address=DEFAULT_HTTP_ADDRESS, seal_keys=keys)
    assert started[-1] == expected.resolved()
    assert main(["serve", "--workers", "3", "--queue", "1", "--max-search-time", "2.5",
                 "--default-preset", "strong", "--grace", "0.5"]) == 0  # fmt: skip
    assert started[-1] == ServerConfig(
        search_slots=3,
        search_queue=1,
        max_search_time_s=2.5,
        default_preset="strong",
        grace_s=0.5,
        http_address=DEFAULT_HTTP_ADDRESS,
        seal_keys=started[-1].seal_keys,
    )
    assert started[-1].seal_keys.ids == keys.ids  # the same file, read again
    (tmp_path / "bad-keys").write_text("k1 not-base64!\n")
    assert main(["serve", "--seal-key-file", str(tmp_path / "bad-keys")]) == 2
    assert "seal keys, line 1: the key is not base64" in capsys.readouterr().err
    assert main(["serve", "--default-preset", "godlike"]) == 2
    assert "default_preset" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    defaults = ServerConfig()
    for shown in (defaults.address, defaults.max_iterations, defaults.default_preset):
        assert f"(default: {shown})" in text
