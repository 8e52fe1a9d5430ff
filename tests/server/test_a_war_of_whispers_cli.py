"""A War of Whispers through the commands: ``council-ai arena`` at 2, 3 and 4 players, its
records reviewed by ``council-ai review``, ``council-ladder`` rating it (tiny budgets: one
deal, a few iterations a move), and a content file given to the service (``--content``)."""

from __future__ import annotations

import json

import grpc
import pytest

from council.engine._a_war_of_whispers import current_content
from council.ladder.cli import main as ladder_main
from council.server.app import start_server
from council.server.cli import main
from council.server.config import ServerConfig
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

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


def test_serve_refuses_a_bad_content_file_before_listening(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"schema": 1}')
    assert main(["serve", "--address", "127.0.0.1:0", "--content", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"council-ai serve: --content: {bad}: ")


def test_a_server_loads_its_content_file_and_names_it_in_engine_info(tmp_path):
    path = tmp_path / "content.json"
    path.write_text(json.dumps(current_content().to_json(), indent=1))  # the same, laid out
    config = ServerConfig(address="127.0.0.1:0", content=(f"a-war-of-whispers={path}",))
    running = start_server(config)
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    finally:
        running.stop(grace=None)
    (facts,) = [g.a_war_of_whispers for g in info.games if g.name == "a-war-of-whispers"]
    assert (facts.content_id, facts.content_digest) == (
        current_content().id,
        current_content().digest,
    )
