"""The AI-vs-AI ladder: schedule, store, ratings, report, remote entrants and forfeits.

Kill-and-resume is in test_ladder_resume.py, Ray in test_ladder_ray.py.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections import Counter
from concurrent import futures

import grpc
import pytest

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import NUM_ACTIONS
from council.ladder import (
    GameResult,
    LadderConfig,
    LadderMismatch,
    Store,
    load,
    parse_entrant,
    play_scheduled,
    run_ladder,
    schedule,
)
from council.ladder.cli import main
from council.ladder.runner import ranks_of
from council.ladder.schedule import deal_seed, game_count
from council.server.app import start_server
from council.server.service import CouncilServicer, ServerConfig
from council.v1 import service_pb2, service_pb2_grpc

STRENGTH = ["random", "greedy", "ismcts:iterations=200"]


# -- schedule ------------------------------------------------------------------------------


@pytest.mark.parametrize("entrants,size", [(3, 2), (5, 3), (5, 4), (4, 4)])
def test_schedule_rotates_every_entrant_through_every_seat_on_the_same_deals(entrants, size):
    deals = 3
    games = schedule(entrants, size, deals, seed=11)
    assert len(games) == game_count(entrants, size, deals)
    assert len({g.id for g in games}) == len(games)
    assert [g.index for g in games] == list(range(len(games)))
    # Each (table, deal) is the same deal played once per rotation: every member of the
    # table sits in every seat exactly once.
    by_deal: dict = {}
    for g in games:
        assert sorted(g.seats) == list(g.table)
        assert g.deal_seed == deal_seed(11, g.deal)
        by_deal.setdefault((g.table, g.deal), []).append(g.seats)
    for (table, _), seatings in by_deal.items():
        assert len(seatings) == size
        for seat in range(size):
            assert sorted(s[seat] for s in seatings) == list(table)
    # Every entrant plays every seat equally often.
    seat_counts = Counter((e, seat) for g in games for seat, e in enumerate(g.seats))
    assert len(set(seat_counts.values())) == 1
    assert len(seat_counts) == entrants * size


def test_schedule_is_deterministic_and_extending_it_only_adds_games():
    assert schedule(4, 2, 3, seed=5) == schedule(4, 2, 3, seed=5)
    assert schedule(3, 2, 2, seed=1)[0].deal_seed != schedule(3, 2, 2, seed=2)[0].deal_seed
    small = {g.id: (g.seats, g.deal_seed) for g in schedule(3, 2, 2, seed=5)}
    big = {g.id: (g.seats, g.deal_seed) for g in schedule(4, 2, 5, seed=5)}
    assert small.items() <= big.items()
    assert [g.id for g in schedule(3, 2, 1, seed=0)] == [
        "0-1/d0/r0",
        "0-1/d0/r1",
        "0-2/d0/r0",
        "0-2/d0/r1",
        "1-2/d0/r0",
        "1-2/d0/r1",
    ]
    with pytest.raises(ValueError, match="table size"):
        schedule(4, 5, 1, 0)
    with pytest.raises(ValueError, match="at least 3 entrants"):
        schedule(2, 3, 1, 0)


def test_ranks_put_winners_first_and_share_equal_places():
    assert ranks_of([50, 70, 70, 20], [1]) == (3, 1, 2, 4)
    assert ranks_of([60, 60], [0, 1]) == (1, 1)
    assert ranks_of([10, 40, 40], [2]) == (3, 2, 1)
    assert ranks_of([30, 20, 20, 10], [0]) == (1, 2, 2, 4)


# -- entrants ------------------------------------------------------------------------------


def test_entrant_specs(tmp_path):
    assert parse_entrant("greedy").label == "greedy"
    assert parse_entrant("strong@ismcts:iterations=5000").label == "strong"
    remote = parse_entrant("remote:localhost:1234,iterations=50,time_s=0.5")
    assert remote.label == "remote(localhost:1234,iterations=50,time_s=0.5)"
    assert (remote.agent.address, remote.agent.iterations, remote.agent.time_s) == (
        "localhost:1234",
        50,
        0.5,
    )
    assert remote.agent.deadline_s == 10.0 and remote.remote
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    authed = parse_entrant(f"remote:h:1,token_file={token}")
    assert authed.agent.token == "s3cret" and "s3cret" not in repr(authed)
    for bad, message in [
        ("remote:nohost", "remote:HOST:PORT"),
        ("remote:h:1,preset=godlike", "unknown strength preset"),
        ("remote:h:1,deadline_s=0", "bad value"),
        ("remote:h:1,colour=red", "unknown option 'colour'"),
        ("alphazero", "unknown agent"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_entrant(bad)


# -- store ---------------------------------------------------------------------------------


def _game(id_="0-1/d0/r0", labels=("a", "b")) -> GameResult:
    return GameResult(
        id=id_,
        table=(0, 1),
        deal=0,
        rotation=0,
        seed=7,
        seats=(0, 1),
        labels=labels,
        status="finished",
        scores=(40, 30),
        winners=(0,),
        ranks=(1, 2),
        forfeit_seat=None,
        reason=None,
        moves=(1, 2, 3),
        turns=9,
        seconds=0.1,
        worker="test:1",
    )


def test_store_writes_a_game_whole_or_not_at_all(tmp_path):
    with Store(str(tmp_path / "l.sqlite")) as store:
        assert store.add(_game())
        assert not store.add(_game())  # the same id is never stored twice
        # The seats rows fail half-way (one label for two seats): the games row is rolled
        # back with them.
        with pytest.raises(IndexError):
            store.add(_game("0-1/d0/r1", labels=("a",)))
        assert store.stored_ids() == {"0-1/d0/r0"}
        rows = store.conn.execute("SELECT game_id, seat, label, score, rank FROM seats").fetchall()
        assert [tuple(r) for r in rows] == [
            ("0-1/d0/r0", 0, "a", 40, 1),
            ("0-1/d0/r0", 1, "b", 30, 2),
        ]
        assert store.games() == [_game()]


def test_store_accepts_only_settings_that_extend_the_stored_ladder(tmp_path):
    path = str(tmp_path / "l.sqlite")
    base = LadderConfig(entrants=[("a", "random"), ("b", "greedy")], deals=2, seed=3)
    with Store(path) as store:
        store.setup(base)
    with Store(path) as store:
        assert store.config() == base
        bigger = LadderConfig(entrants=[*base.entrants, ("c", "ismcts")], deals=4, seed=3)
        assert store.setup(bigger) == bigger
        for bad, message in [
            (LadderConfig(entrants=bigger.entrants, deals=4, seed=4), "seed is 3"),
            (LadderConfig(entrants=bigger.entrants, deals=3, seed=3), "deals: 3 < 4"),
            (LadderConfig(entrants=bigger.entrants[1:], deals=4, seed=3), "must start with"),
            (LadderConfig(entrants=bigger.entrants, table_size=3, deals=4, seed=3), "table_size"),
            (
                LadderConfig(entrants=[*bigger.entrants, ("a", "pimc")], deals=4, seed=3),
                "same label",
            ),
        ]:
            with pytest.raises(LadderMismatch, match=message):
                store.setup(bad)
        assert store.config() == bigger


# -- the length cap ------------------------------------------------------------------------


class _StallAgent:
    """Never builds (elects, then ends the turn): its games never end by themselves."""

    sees_true_state = False

    def act(self, view, seed):
        actions = view.determinize(seed).legal_actions()
        elect = [a for a in actions if 1 <= a <= 24]  # elect: ids 1..24
        return elect[seed % len(elect)] if elect else 0  # 0: end the turn


def test_a_game_over_the_turn_cap_is_adjudicated_and_stored(tmp_path):
    game = schedule(2, 2, 1, 0)[0]
    result = play_scheduled(
        game,
        [_StallAgent(), _StallAgent()],
        ("s0", "s1"),
        CouncilOfFourConfig(players=2),
        max_turns=30,
    )
    assert result.status == "finished" and result.adjudicated
    assert result.reason.startswith("adjudicated: turn 30 reached the cap of 30 turns")
    assert result.turns == 30 and len(result.moves) == 58
    # Final scoring as at the end: nobility all 0 (5 each), no permit tiles (3 each, RULINGS
    # 8), nothing else.
    assert result.scores == (8, 8) and result.winners and result.ranks
    # The moves replay to the adjudicated position.
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=game.deal_seed)
    for move in result.moves:
        state.apply(move)
    final = state.adjudicated()
    assert (tuple(final.scores()), tuple(final.winners())) == (result.scores, result.winners)
    with Store(str(tmp_path / "l.sqlite")) as store:
        assert store.add(result)
        (back,) = store.games()
    assert back == result and back.adjudicated
    assert not _game().adjudicated


def test_a_ladder_of_capped_games_rates_them_and_reports_them(tmp_path):
    with Store(str(tmp_path / "l.sqlite")) as store:
        # Random players need far more than 30 turns to end a game.
        summary = run_ladder(store, ["r1@random", "r2@random"], deals=1, workers=1, max_turns=30)
        assert (summary.played, summary.adjudicated, summary.voids) == (2, 2, 0)
        report = load(store)
    assert len(report.adjudicated) == 2 and report.ratings.games == 2
    assert all(g.status == "finished" and g.ranks and g.turns == 30 for g in report.games)
    assert report.to_dict()["adjudicated"] == 2
    text = report.to_text()
    assert "2 rated (0 forfeits, 0 void), 2 adjudicated at the length cap" in text
    assert "Adjudicated at the length cap (2):" in text


# -- ratings -------------------------------------------------------------------------------


def test_three_agents_of_clearly_different_strength_are_ranked_in_order(tmp_path):
    with Store(str(tmp_path / "l.sqlite")) as store:
        summary = run_ladder(store, STRENGTH, deals=8, seed=0, workers=2)
        assert (summary.scheduled, summary.played, summary.forfeits) == (48, 48, 0)
        report = load(store)
    labels = ["random", "greedy", "ismcts(iterations=200)"]
    standings = report.ratings.standings()
    assert [s.label for s in standings] == labels[::-1]
    assert [s.games for s in standings] == [32, 32, 32]
    # The gaps are clear: each stronger agent's 95% head-to-head interval lies above 1/2.
    for weaker, stronger in [(0, 1), (1, 2), (0, 2)]:
        pair = report.ratings.pairwise[(labels[stronger], labels[weaker])]
        assert pair.n == 16
        assert pair.interval[0] > 0.5, (labels[stronger], labels[weaker], pair)
        mirror = report.ratings.pairwise[(labels[weaker], labels[stronger])]
        assert mirror.points == pair.n - pair.points
    top, mid, low = standings
    assert top.mu - top.sigma > mid.mu > low.mu + low.sigma
    # Ratings history: one snapshot before any game and one after each game.
    history = report.ratings.history
    assert [n for n, _ in history] == list(range(49))
    assert history[-1][1][labels[2]] == (top.mu, top.sigma)
    # Games come back in schedule order with their deal seeds and full move lists.
    assert [g.id for g in report.games] == [g.id for g in schedule(3, 2, 8, 0)]
    assert all(g.status == "finished" and g.moves and g.ranks for g in report.games)


def test_a_serial_run_and_a_process_pool_store_the_same_games(tmp_path):
    stores = [Store(str(tmp_path / f"{w}.sqlite")) for w in (1, 2)]
    for workers, store in zip((1, 2), stores, strict=True):
        run_ladder(store, ["random", "greedy", "ismcts:iterations=20"], deals=1, workers=workers)

    def key(g):
        return (g.id, g.seats, g.scores, g.winners, g.ranks, g.moves, g.turns)

    serial, pooled = (sorted(map(key, s.games())) for s in stores)
    assert len(serial) == 6 and serial == pooled
    # The pool's games were played in its worker processes.
    assert all(not g.worker.endswith(f":{os.getpid()}") for g in stores[1].games())
    assert all(g.worker.endswith(f":{os.getpid()}") for g in stores[0].games())


# -- report and CLI ------------------------------------------------------------------------


def test_cli_run_extend_report_and_plot(tmp_path, capsys):
    db = str(tmp_path / "ladder.sqlite")
    assert main(["run", "random", "greedy", "--deals", "2", "--db", db, "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "4/4 games stored, 4 rated (0 forfeits, 0 void)" in out.out
    assert "played 4 games" in out.err
    # Rerunning with nothing new to play plays nothing; appending an entrant and raising
    # the deals extends the ladder.
    assert main(["run", "--db", db, "--no-progress"]) == 0
    assert "played 0 games" in capsys.readouterr().err
    args = ["run", "random", "greedy", "ismcts:iterations=10", "--deals", "3"]
    assert main([*args, "--db", db, "--no-progress", "--json"]) == 0
    out = capsys.readouterr()
    assert "played 14 games" in out.err and "(4 were stored already" in out.err
    report = json.loads(out.out)
    assert (report["scheduled"], report["stored"], report["rated"]) == (18, 18, 18)
    assert {s["label"] for s in report["standings"]} == {
        "random",
        "greedy",
        "ismcts(iterations=10)",
    }
    assert [(p["a"], p["b"], p["games"]) for p in report["pairwise"]][0][2] == 6
    # A mismatch is refused without touching the file.
    assert main(["run", "random", "greedy", "--seed", "9", "--db", db]) == 2
    assert "seed is 0 in the file, 9 here" in capsys.readouterr().err
    png = tmp_path / "r.png"
    assert main(["report", "--db", db, "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "18/18 games stored" in text and "Head to head" in text and f"plot: {png}" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["report", "--db", db]) == 0  # default plot path beside the db
    assert (tmp_path / "ladder-ratings.png").stat().st_size > 10_000
    assert main(["report", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert main(["run", "random", "--db", db + "2"]) == 2
    assert "at least 2 entrants" in capsys.readouterr().err


# -- remote entrants -----------------------------------------------------------------------


def test_a_remote_entrant_served_by_the_project_server_plays_like_the_local_agent():
    # Its own server: the session's shared one keeps a bounded record of searches that
    # other tests count on.
    server = start_server(ServerConfig(address="127.0.0.1:0", search_slots=1, search_queue=2))
    remote, local = Store(":memory:"), Store(":memory:")
    try:
        run_ladder(
            remote, [f"bot@remote:{server.address},iterations=50", "greedy"], deals=2, workers=1
        )
    finally:
        server.stop(grace=None)
    run_ladder(local, ["bot@ismcts:iterations=50", "greedy"], deals=2, workers=1)
    by_id = {g.id: g for g in local.games()}
    games = remote.games()
    assert len(games) == 4 and all(g.status == "finished" for g in games)
    # The server searches the seat's view with the same seed and budget: the same moves.
    for g in games:
        assert (g.moves, g.scores, g.winners) == (
            by_id[g.id].moves,
            by_id[g.id].scores,
            by_id[g.id].winners,
        )
    assert any(w for g in games for w in g.winners if g.labels[w] == "bot")
    remote.close()
    local.close()


class _Flaky(CouncilServicer):
    """A real servicer whose fifth RecommendAction fails with INTERNAL."""

    def __init__(self):
        super().__init__(ServerConfig(search_slots=1, search_queue=2))
        self.calls = 0

    def RecommendAction(self, request, context):
        self.calls += 1
        if self.calls == 5:
            context.abort(grpc.StatusCode.INTERNAL, "the bot crashed")
        return super().RecommendAction(request, context)


class _Slow(service_pb2_grpc.CouncilServiceServicer):
    def __init__(self):
        self.release = threading.Event()

    def RecommendAction(self, request, context):
        self.release.wait(5)
        context.abort(grpc.StatusCode.UNAVAILABLE, "too late")


class _Down(service_pb2_grpc.CouncilServiceServicer):
    """Reached, but answers every call UNAVAILABLE itself: its games are forfeits."""

    def RecommendAction(self, request, context):
        context.abort(grpc.StatusCode.UNAVAILABLE, "not serving")


class _Liar(service_pb2_grpc.CouncilServiceServicer):
    def RecommendAction(self, request, context):
        response = service_pb2.RecommendActionResponse()
        response.result.seat = request.seat
        response.result.action.id = NUM_ACTIONS + 3
        return response


def _serve(servicer):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    service_pb2_grpc.add_CouncilServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_failing_endpoints_forfeit_their_games_and_the_ladder_goes_on(tmp_path):
    slow = _Slow()
    servers = [_serve(_Flaky()), _serve(slow), _serve(_Liar()), _serve(_Down())]
    (_, flaky_at), (_, slow_at), (_, liar_at), (_, down_at) = servers
    entrants = [
        f"flaky@remote:{flaky_at},iterations=20",
        "greedy",
        f"down@remote:{down_at},deadline_s=2",
        f"slow@remote:{slow_at},deadline_s=0.3",
        f"liar@remote:{liar_at}",
    ]
    try:
        with Store(str(tmp_path / "l.sqlite")) as store:
            summary = run_ladder(store, entrants, deals=1, workers=1)
            report = load(store)
    finally:
        slow.release.set()
        for server, _ in servers:
            server.stop(None)
    assert summary.complete and summary.played == 20
    games = {g.id: g for g in report.games}
    assert len(games) == 20
    # The first game: flaky (seat 0) against greedy; flaky's fifth call fails mid-game.
    first = games["0-1/d0/r0"]
    assert (first.status, first.forfeit_seat, first.winners, first.ranks) == (
        "forfeit",
        0,
        (1,),
        (2, 1),
    )
    assert "seat 0 (flaky)" in first.reason and "INTERNAL: the bot crashed" in first.reason
    assert len(first.moves) > 4  # greedy's moves and flaky's first four
    # flaky plays on normally after that.
    assert games["0-1/d0/r1"].status == "finished"
    reasons = {label: set() for label in ("down", "slow", "liar", "flaky", "greedy")}
    for g in games.values():
        if g.status == "forfeit":
            reasons[g.labels[g.forfeit_seat]].add(g.reason.split(": ", 1)[1].split(":")[0])
            assert sorted(g.ranks) == [1, 2] and g.ranks[g.forfeit_seat] == 2
        else:
            assert g.status == "finished"
    assert reasons == {
        "down": {"UNAVAILABLE"},  # the endpoint's own answer: not a void
        "slow": {"DEADLINE_EXCEEDED"},
        "liar": {f"illegal action {NUM_ACTIONS + 3}"},
        "flaky": {"INTERNAL"},
        "greedy": set(),
    }
    # Every game with a broken endpoint is forfeited by the first of them to move; only
    # flaky against greedy finished once. A broken bot places first only where the other
    # broken bot had to move first.
    assert summary.forfeits == report.ratings.forfeits == 19
    stats = report.ratings.stats
    assert [stats[b].firsts for b in ("down", "slow", "liar")] == [2, 2, 2]
    assert stats["greedy"].forfeits == 0 and stats["greedy"].firsts >= 7
    text = report.to_text()
    assert "Forfeits (" in text and "UNAVAILABLE: not serving" in text
    assert summary.voids == report.ratings.voids == 0


def test_an_unreachable_endpoint_voids_its_games_and_a_rerun_plays_them(tmp_path, capsys):
    port = _unused_port()  # nothing listens there
    db = str(tmp_path / "l.sqlite")
    entrants = [f"bot@remote:127.0.0.1:{port},iterations=20,deadline_s=2", "greedy", "random"]
    args = ["--db", db, "--workers", "1", "--no-progress"]
    assert main(["run", *entrants, "--deals", "1", *args, "--json"]) == 0
    out = capsys.readouterr()
    # bot's four games are void, not lost; greedy against random is rated.
    assert "played 6 games" in out.err and "0 forfeits, 4 void" in out.err
    assert "4 games void, not rated: an endpoint could not be reached" in out.err
    assert out.err.count(f"could not reach 127.0.0.1:{port}: UNAVAILABLE") == 4
    report = json.loads(out.out)
    assert (report["stored"], report["rated"], report["forfeits"], report["void"]) == (6, 2, 0, 4)
    assert len(report["void_games"]) == 4 and report["forfeit_games"] == []
    for game in report["void_games"]:
        assert "(bot) at action " in game["reason"] and "could not reach" in game["reason"]
    (bot,) = [s for s in report["standings"] if s["label"] == "bot"]
    assert (bot["games"], bot["forfeits"], bot["mu"]) == (0, 0, 25.0)
    with Store(db) as store:
        void = [g for g in store.games() if g.status == "void"]
        assert len(void) == 4 and store.void_ids() == {g.id for g in void}
        assert all(g.ranks is None and g.winners == () and g.forfeit_seat is None for g in void)
        rows = store.conn.execute("SELECT SUM(forfeited), COUNT(rank) FROM seats").fetchone()
        assert tuple(rows) == (0, 4)  # ranks only for the two rated games
    assert main(["report", "--db", db, "--no-plot"]) == 0
    text = capsys.readouterr().out
    assert "6/6 games stored, 2 rated (0 forfeits, 4 void)" in text
    assert "Void, not rated; the next run plays them again (4):" in text
    # The endpoint comes up: the next run plays the void games, and only those.
    server = start_server(ServerConfig(address=f"127.0.0.1:{port}", search_slots=1, search_queue=2))
    try:
        assert main(["run", *args]) == 0
    finally:
        server.stop(grace=None)
    err = capsys.readouterr().err
    assert "played 4 games" in err and "(4 void games played again, 2 were stored" in err
    assert "0 forfeits, 0 void" in err, err
    with Store(db) as store:
        games = store.games()
        assert len(games) == 6 and all(g.status == "finished" for g in games)
        assert store.conn.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 12
