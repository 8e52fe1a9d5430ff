"""Self-play's game records (issue #29): ``council-ai selfplay --record DIR`` writes one
``council.v1.GameRecord`` per game, players named by their agent specs, replaying
(``council.engine.record.replay``) to the game the shards hold."""

from __future__ import annotations

import json

from council.engine.record import record_from_json, replay
from council.learning.selfplay import (
    SelfPlayConfig,
    read_shard,
    record_name,
    run_selfplay,
    shard_paths,
)
from council.server.cli import main

SEARCH = "ismcts:iterations=10"


def test_every_game_is_recorded_and_replays_to_the_shards_game(tmp_path):
    config = SelfPlayConfig(agents=(SEARCH, "greedy"), players=(2,), games=3, shard_size=2)
    records = tmp_path / "records"
    run_selfplay(config, tmp_path / "data", workers=1, record_dir=records)
    assert sorted(p.name for p in records.iterdir()) == [record_name(i) for i in range(3)]
    shards = [read_shard(p) for p in shard_paths(tmp_path / "data")]
    games = {
        int(g): (tuple(s["game_final_vp"][i][:2]), s["game_agents"][i][:2].tolist())
        for s in shards
        for i, g in enumerate(s["game_id"])
    }
    for index, (final_vp, lineup) in games.items():
        record = record_from_json((records / record_name(index)).read_text())
        final = replay(record)
        assert tuple(final.scores()) == final_vp and not record.adjudicated
        assert [p.agent for p in record.players] == lineup == list(config.lineup(index))
        assert [p.name for p in record.players] == [
            "ismcts(iterations=10)" if spec == SEARCH else spec for spec in lineup
        ]
        # The shard's decisions are the record's moves where more than one action was legal.
        shard = next(s for s in shards if index in s["game_id"])
        at = shard["action_index"][shard["game"] == index]
        played = shard["action"][shard["game"] == index]
        assert [record.moves[k].action_id for k in at] == played.tolist()


def test_a_game_dropped_at_the_cap_is_recorded_adjudicated(tmp_path):
    config = SelfPlayConfig(("greedy",), (2,), games=1, max_turns=3)
    run_selfplay(config, tmp_path / "data", workers=1, record_dir=tmp_path / "records")
    record = record_from_json((tmp_path / "records" / record_name(0)).read_text())
    assert record.adjudicated and replay(record).turn == 3


def test_command_line_record_option(tmp_path, capsys):
    args = ["selfplay", "--agent", "random", "--games", "2", "--workers", "2", "--no-progress"]
    args += ["--out", str(tmp_path / "data"), "--record", str(tmp_path / "records")]
    assert main(args) == 0  # a process pool: the records are written by this process
    assert json.loads(capsys.readouterr().out)["games_played"] == 2
    for i in range(2):
        record = record_from_json((tmp_path / "records" / record_name(i)).read_text())
        replay(record)
        assert [(p.name, p.agent) for p in record.players] == [("random", "random")] * 2
