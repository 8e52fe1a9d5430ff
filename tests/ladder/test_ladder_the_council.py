"""The ladder playing The Council (``--game the-council``): its built-in agents on 3-5 seat
tables, stored, reported and resumed; a remote entrant sent The Council's views by a real
in-process server; and one game per ladder file, the other refused naming both."""

from __future__ import annotations

import json
from concurrent import futures

import grpc
import pytest

from council.engine.the_council import TheCouncilConfig
from council.ladder import LadderConfig, LadderMismatch, Store, load, run_ladder, schedule
from council.ladder.cli import main
from council.server.service import CouncilServicer, ServerConfig
from council.v1 import game_pb2, service_pb2_grpc

GAME = "the-council"
# Four entrants for one 4-seat table: one deal is four games, one per seat rotation.
ENTRANTS = ["random", "ismcts:iterations=50", "expert", "bot@ismcts:iterations=10"]
LABELS = ["random", "ismcts(iterations=50)", "expert", "bot"]


def _replays(game, table_size: int) -> bool:
    """Whether the stored moves are legal from the deal's seed and end the game with the
    stored scores and winners."""
    state = TheCouncilConfig(players=table_size).new_game(game.seed)
    for move in game.moves:
        if not state.is_legal(move):
            return False
        state.apply(move)
    return state.is_terminal() and (tuple(state.scores()), tuple(state.winners())) == (
        game.scores,
        game.winners,
    )


def _key(game):
    return (game.id, game.seats, game.moves, game.scores, game.winners, game.ranks)


class _Stop(Exception):
    pass


def test_a_ladder_of_the_council_is_played_stored_reported_and_resumed(tmp_path):
    # An uninterrupted run in a pool of processes: the reference.
    with Store(str(tmp_path / "whole.sqlite")) as store:
        summary = run_ladder(store, ENTRANTS, game=GAME, deals=2, seed=3, workers=2)
        assert (summary.scheduled, summary.played, summary.forfeits) == (8, 8, 0)
        whole = load(store)
    assert whole.config.game == GAME and whole.config.table_size == 4  # The Council's default
    assert whole.config.layout is None
    games = whole.games
    assert [g.id for g in games] == [g.id for g in schedule(4, 4, 2, 3, GAME)]
    for g in games:
        assert g.status == "finished" and not g.adjudicated, g.reason
        assert sorted(g.seats) == [0, 1, 2, 3] and sorted(g.ranks)[0] == 1
        assert 1 <= g.turns <= 20  # hands played; TC14 ends a game after the 20th
        assert _replays(g, 4), g.id
    # Every entrant sat at every game, once in each seat.
    standings = whole.ratings.standings()
    assert sorted(s.label for s in standings) == sorted(LABELS)
    assert all(s.games == 8 and s.forfeits == 0 for s in standings)
    assert sum(s.wins for s in standings) == pytest.approx(8)
    text = whole.to_text()
    assert "4 entrants, tables of 4, 2 deals x 4 seat rotations, seed 3, game the-council" in text
    assert "8/8 games stored, 8 rated (0 forfeits, 0 void)" in text
    assert "ismcts(iterations=50) vs" in text or "vs ismcts(iterations=50)" in text
    report = whole.to_dict()
    assert (report["game"], report["layout"], report["rated"]) == (GAME, None, 8)

    # The same ladder stopped after its third game, then resumed with no entrants named.
    stopped = str(tmp_path / "stopped.sqlite")

    def stop_after_three(result):  # called once the game is stored
        played.append(result.id)
        if len(played) == 3:
            raise _Stop

    played: list[str] = []
    with Store(stopped) as store, pytest.raises(_Stop):
        run_ladder(store, ENTRANTS, game=GAME, deals=2, seed=3, workers=1, on_game=stop_after_three)
    with Store(stopped) as store:
        assert store.count() == 3
        before = {g.id: g for g in store.games()}
        summary = run_ladder(store, None, workers=1)
        assert (summary.already_stored, summary.played) == (3, 5)
        after = {g.id: g for g in store.games()}
        assert all(after[i] == game for i, game in before.items())  # not played again
        assert run_ladder(store, None, workers=1).played == 0
        resumed = load(store)
    # Seeded moves: the stopped-and-resumed ladder holds the same games as the whole one.
    assert sorted(map(_key, resumed.games)) == sorted(map(_key, games))


def test_the_council_s_table_sizes_and_its_lack_of_a_layout(tmp_path, capsys):
    db = str(tmp_path / "l.sqlite")
    args = ["--game", GAME, "--deals", "1", "--db", db, "--workers", "1", "--no-progress"]
    assert main(["run", "random", "expert", "--table-size", "2", *args]) == 2
    assert "table size must be 3, 4 or 5 for the-council, got 2" in capsys.readouterr().err
    assert main(["run", "random", "expert", "random2@random", "--layout", "BBB", *args]) == 2
    assert "The Council has no board layout" in capsys.readouterr().err
    # Three entrants do not fill the default table of four.
    assert main(["run", "random", "expert", "random2@random", *args]) == 2
    assert "a table of 4 needs at least 4 entrants" in capsys.readouterr().err
    # Five seats: one table, five rotations.
    five = ["r1@random", "r2@random", "r3@random", "e1@expert", "e2@expert"]
    assert main(["run", *five, "--table-size", "5", *args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["game"], report["table_size"], report["rated"]) == (GAME, 5, 5)
    with Store(db) as store:
        assert all(_replays(g, 5) for g in store.games())
    # Council of Four keeps its sizes.
    assert main(["run", "random", "greedy", "--table-size", "5", "--db", str(tmp_path / "c")]) == 2
    assert "table size must be 2, 3 or 4 for council-of-four, got 5" in capsys.readouterr().err


def test_one_file_holds_one_game_and_the_other_is_refused_naming_both(tmp_path, capsys):
    council = str(tmp_path / "council.sqlite")
    four = str(tmp_path / "four.sqlite")
    quiet = ["--deals", "1", "--workers", "1", "--no-progress"]
    assert main(["run", "--game", GAME, *ENTRANTS, "--db", council, *quiet]) == 0
    assert main(["run", "random", "expert", "--db", four, *quiet]) == 0
    capsys.readouterr()
    refusals = [
        # Council of Four's entrants (the default game) on The Council's file...
        (["run", *ENTRANTS, "--db", council], council, GAME, "council-of-four"),
        # ... resuming it as Council of Four...
        (["run", "--game", "council-of-four", "--db", council], council, GAME, "council-of-four"),
        # ... and the other way round.
        (["run", "--game", GAME, "--db", four], four, "council-of-four", GAME),
        (["run", "--game", GAME, "random", "expert", "--db", four], four, "council-of-four", GAME),
    ]
    for args, path, stored, asked in refusals:
        assert main([*args, *quiet]) == 2, args
        assert capsys.readouterr().err.strip() == (
            f"council-ladder run: {path} holds a ladder of {stored}, not {asked}: one file "
            f"holds one game's ladder (--game {stored} to go on with it, or another --db)"
        )
    # Nothing was written by the refused runs; each file resumes and reports as its own game.
    with Store(council) as store:
        assert store.count() == 4 and store.config().game == GAME
        with pytest.raises(LadderMismatch, match="holds a ladder of the-council, not council"):
            store.setup(LadderConfig(entrants=store.config().entrants, table_size=4))
    with Store(four) as store:
        assert store.count() == 2 and store.config().game == "council-of-four"
    assert main(["run", "--db", council, *quiet]) == 0
    assert "played 0 games" in capsys.readouterr().err
    assert main(["report", "--db", council, "--no-plot"]) == 0
    assert "seed 0, game the-council" in capsys.readouterr().out
    assert main(["report", "--db", four, "--no-plot"]) == 0
    assert "seed 0, layout ABA\n" in capsys.readouterr().out


def test_a_file_written_before_the_second_game_holds_council_of_four(tmp_path):
    # The settings as ladders stored them before The Council: no "game".
    path = str(tmp_path / "old.sqlite")
    with Store(path) as store:
        store.setup(LadderConfig(entrants=[("random", "random"), ("greedy", "greedy")], deals=1))
        settings = json.loads(store.conn.execute("SELECT value FROM meta").fetchone()[0])
        del settings["game"]
        store.conn.execute("UPDATE meta SET value = ?", (json.dumps(settings),))
    with Store(path) as store:
        assert store.config().game == "council-of-four"
        assert run_ladder(store, None, workers=1).played == 2
        with pytest.raises(LadderMismatch, match="council-of-four, not the-council"):
            run_ladder(store, None, game=GAME)


class _Recording(CouncilServicer):
    """The project's servicer, keeping every RecommendAction request it answers."""

    def __init__(self):
        super().__init__(ServerConfig(search_slots=1, search_queue=2))
        self.requests: list = []

    def RecommendAction(self, request, context):
        self.requests.append(request)
        return super().RecommendAction(request, context)


def test_a_remote_entrant_of_the_council_is_sent_its_views_and_plays_legal_games():
    servicer = _Recording()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    service_pb2_grpc.add_CouncilServiceServicer_to_server(servicer, server)
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    entrants = [f"bot@remote:{address},iterations=50", "random", "expert"]
    remote, local = Store(":memory:"), Store(":memory:")
    try:
        summary = run_ladder(remote, entrants, game=GAME, table_size=3, deals=1, workers=1)
    finally:
        server.stop(grace=None)
    assert (summary.played, summary.forfeits, summary.voids) == (3, 0, 0)
    games = remote.games()
    assert all(g.status == "finished" and _replays(g, 3) for g in games)
    # Each of bot's moves was one call carrying its own seat's view of The Council.
    bot_moves = sum(_moves_of(g, g.labels.index("bot")) for g in games)
    assert len(servicer.requests) == bot_moves > 0
    for request in servicer.requests:
        assert request.state.config.game == game_pb2.GAME_THE_COUNCIL
        assert request.state.HasField("the_council")
        assert request.state.HasField("viewer") and request.state.viewer == request.seat
        assert request.limits.iterations == 50
    # The server searched those views with the same seed and budget as the local search.
    run_ladder(
        local,
        ["bot@ismcts:iterations=50", "random", "expert"],
        game=GAME,
        table_size=3,
        deals=1,
        workers=1,
    )
    by_id = {g.id: g for g in local.games()}
    assert [_key(g) for g in sorted(games, key=lambda g: g.id)] == [
        _key(by_id[g.id]) for g in sorted(games, key=lambda g: g.id)
    ]
    remote.close()
    local.close()


def _moves_of(game, seat: int) -> int:
    """How many of the game's moves were ``seat``'s."""
    state = TheCouncilConfig(players=len(game.seats)).new_game(game.seed)
    count = 0
    for move in game.moves:
        count += state.current_player == seat
        state.apply(move)
    return count
