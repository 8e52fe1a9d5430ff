"""The ladder's game records (issue #29): every finished game stored with a
``council.v1.GameRecord`` that replays (``council.engine.record.replay``), its players the
entrants' labels and specs; files written before records get theirs rebuilt; ``council-ladder
records`` writes them out."""

from __future__ import annotations

import pytest

from council.engine.record import record_from_json, replay
from council.engine.serialize import state_to_proto
from council.ladder import Store, play_scheduled, run_ladder, schedule
from council.ladder.cli import main
from council.ladder.games import GAMES, game_config, table_sizes
from council.mcts.agents import RandomAgent


@pytest.mark.parametrize("game", GAMES)
def test_every_finished_game_is_stored_with_a_record_that_replays(tmp_path, game):
    size = min(table_sizes(game))
    entrants = ["r@random", "e@expert", "r2@random"][:size]
    with Store(str(tmp_path / "l.sqlite")) as store:
        run_ladder(store, entrants, game=game, table_size=size, deals=1, workers=1)
        results = {g.id: g for g in store.games(records=True)}
        records = store.records()
        assert all(g.record is None for g in store.games())  # a report reads no record
    assert sorted(records) == sorted(results) and len(records) >= 2
    specs = {e.split("@")[0]: e.split("@")[1] for e in entrants}
    for game_id, record in records.items():
        result = results[game_id]
        assert record_from_json(result.record) == record  # what the store holds
        final = replay(record)
        assert (tuple(final.scores()), tuple(final.winners())) == (result.scores, result.winners)
        assert tuple(m.action_id for m in record.moves) == result.moves
        assert [(p.seat, p.name, p.agent) for p in record.players] == [
            (seat, label, specs[label]) for seat, label in enumerate(result.labels)
        ]
        # The deal is stored whole: the start state is the deal seed's.
        config = game_config(game, len(result.seats), None)
        assert record.start == state_to_proto(config.new_game(result.seed))
        assert not record.adjudicated


def test_a_capped_game_is_recorded_adjudicated(tmp_path):
    with Store(str(tmp_path / "l.sqlite")) as store:
        run_ladder(store, ["r1@random", "r2@random"], deals=1, workers=1, max_turns=30)
        records = store.records()
    assert len(records) == 2
    for record in records.values():
        assert record.adjudicated
        assert replay(record).turn == 30


class _Illegal:
    sees_true_state = False

    def act(self, view, seed):
        return -1


def test_a_forfeited_game_has_no_record():
    game = schedule(2, 2, 1, 0)[0]
    result = play_scheduled(
        game, [RandomAgent(), _Illegal()], ("r", "x"), game_config(GAMES[0], 2), specs=("a", "b")
    )
    assert result.status == "forfeit" and result.record is None
    with Store(":memory:") as store:
        assert store.add(result)
        assert store.records() == {}


def test_a_file_written_before_records_gets_its_records_rebuilt(tmp_path):
    path = str(tmp_path / "old.sqlite")
    with Store(path) as store:
        run_ladder(store, ["random", "greedy"], deals=1, workers=1)
        written = store.records()
        # As a file of the earlier schema: no record column.
        store.conn.execute("ALTER TABLE games DROP COLUMN record")
    with Store(path) as store:  # opening it adds the column back, empty
        assert all(g.record is None for g in store.games(records=True))
        rebuilt = store.records()
        assert rebuilt == written
        for record in rebuilt.values():
            replay(record)
        # The ladder goes on in the old file, its new games recorded.
        run_ladder(store, None, deals=2, workers=1)
        assert sum(g.record is not None for g in store.games(records=True)) == 2
        assert len(store.records()) == 4


def test_cli_writes_the_records_of_a_stored_ladder(tmp_path, capsys):
    db = str(tmp_path / "l.sqlite")
    assert main(["run", "random", "greedy", "--deals", "1", "--db", db, "--no-progress"]) == 0
    out = tmp_path / "records"
    assert main(["records", str(out), "--db", db]) == 0
    assert "wrote 2 game records" in capsys.readouterr().err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["0-1_d0_r0.json", "0-1_d0_r1.json"]
    for name in names:
        record = record_from_json((out / name).read_text())
        replay(record)
        assert {p.agent for p in record.players} == {"random", "greedy"}
    assert main(["records", str(out), "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "no such file" in capsys.readouterr().err
