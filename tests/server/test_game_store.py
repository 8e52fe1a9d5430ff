"""The game store of ``serve --no-rewind`` (council.server.game_store): the same contract over
SQLite and a private Redis server (tests/server/conftest.py), then what is each store's own:
several processes on one SQLite file, a Redis down, paused or restarted; the URLs; the
config, `start_server` and `council-ai serve` flags."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
import redis

from council.server.app import start_server
from council.server.cli import main
from council.server.config import ServerConfig
from council.server.game_store import (
    GameStoreUnavailable,
    RedisGameStore,
    SqliteGameStore,
    StaleBlob,
    check_game_store_url,
    default_game_store_url,
    open_game_store,
)

TTL_S = 3600.0


def new_game_id() -> bytes:
    return os.urandom(16)  # as each test's games are its own on the module's Redis


@pytest.fixture(params=["sqlite", "redis"])
def open_store(request, tmp_path):
    """Opens a store of the test's kind (each call a new store object on the same file or
    server), closed at the end."""
    opened = []

    def open_one(ttl_s: float = TTL_S):
        if request.param == "sqlite":
            store = SqliteGameStore(tmp_path / "games.sqlite3", ttl_s)
        else:
            store = RedisGameStore(request.getfixturevalue("redis_server").url, ttl_s)
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


def test_a_game_never_seen_passes(open_store):
    store = open_store()
    store.check(new_game_id(), 0)
    store.check(new_game_id(), 7)


def test_a_blob_older_than_the_latest_is_refused(open_store):
    store, game = open_store(), new_game_id()
    store.advance(game, 0, 1)
    store.advance(game, 1, 2)  # a move, then a takeback: each issues the next number
    store.advance(game, 2, 3)
    store.check(game, 3)
    with pytest.raises(StaleBlob) as refused:
        store.check(game, 1)
    assert (refused.value.seq, refused.value.latest) == (1, 3)
    assert str(refused.value).startswith(
        "this game has moved on: the blob is of move sequence 1, the game's latest is 3"
    )
    assert "--no-rewind" in str(refused.value)
    store.check(new_game_id(), 1)  # another game's numbers are its own


def test_of_two_moves_from_one_blob_the_second_is_refused(open_store):
    store, game = open_store(), new_game_id()
    store.advance(game, 4, 5)
    with pytest.raises(StaleBlob) as refused:
        store.advance(game, 4, 5)
    assert (refused.value.seq, refused.value.latest) == (4, 5)
    store.advance(game, 5, 6)  # the game goes on from the latest blob
    with pytest.raises(StaleBlob):
        store.check(game, 5)


def race(advances, game: bytes) -> tuple[int, int]:
    """`advances` (callables) all started at once, each a move from blob 0 of `game`: the
    numbers of those that passed and of those refused as stale."""
    start = threading.Barrier(len(advances))
    won, stale = [], []

    def one(advance):
        start.wait()
        try:
            advance(game, 0, 1)
            won.append(1)
        except StaleBlob:
            stale.append(1)

    threads = [threading.Thread(target=one, args=(a,)) for a in advances]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(won), len(stale)


def test_threads_moving_from_one_blob_at_once_only_one_passes(open_store):
    store = open_store()
    for _ in range(5):
        game = new_game_id()
        assert race([store.advance] * 8, game) == (1, 7)
        with pytest.raises(StaleBlob):
            store.check(game, 0)


def test_stores_of_one_file_or_server_share_their_games(open_store):
    first, second = open_store(), open_store()
    game = new_game_id()
    first.advance(game, 0, 1)
    with pytest.raises(StaleBlob):
        second.check(game, 0)
    with pytest.raises(StaleBlob):
        second.advance(game, 0, 1)
    assert race([first.advance, second.advance] * 3, new_game_id()) == (1, 5)


def test_an_entry_expires_after_the_ttl(open_store):
    store, game = open_store(ttl_s=1.0), new_game_id()
    store.advance(game, 0, 9)
    with pytest.raises(StaleBlob):
        store.check(game, 3)
    time.sleep(1.2)  # the game's blobs are all expired now: the entry has no use
    store.check(game, 3)
    store.advance(game, 3, 4)
    with pytest.raises(StaleBlob):
        store.check(game, 3)


def test_bad_arguments_are_refused(open_store):
    store = open_store()
    for game_id, seq, next_seq in ((b"", 0, 1), (bytes(65), 0, 1), (b"g", -1, 0), (b"g", 3, 3)):
        with pytest.raises(ValueError):
            store.advance(game_id, seq, next_seq)


# -- SQLite --------------------------------------------------------------------------------

# One process's move from blob 0 of a game, when told to start (a line on stdin, given to
# every process once all are ready): exit 0 if it passed, 3 if stale.
MOVE_AT = """
import sys
from council.server.game_store import SqliteGameStore, StaleBlob
store = SqliteGameStore(sys.argv[1], 3600.0, timeout_s=10.0)
store.check(bytes.fromhex(sys.argv[2]), 0)  # connected and ready before the start
print("ready", flush=True)
sys.stdin.readline()
try:
    store.advance(bytes.fromhex(sys.argv[2]), 0, 1)
except StaleBlob:
    sys.exit(3)
"""


def test_processes_sharing_one_file_move_from_one_blob_once(tmp_path):
    path, game = tmp_path / "games.sqlite3", new_game_id()
    SqliteGameStore(path, TTL_S).close()  # the file and its table, made once
    children = [
        subprocess.Popen(
            [sys.executable, "-c", MOVE_AT, str(path), game.hex()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    # Started together once every child has connected and checked blob 0 (a start at a set
    # time was missed by a child that took longer to start on a loaded machine).
    assert [child.stdout.readline() for child in children] == ["ready\n"] * 4
    for child in children:
        child.stdin.write("go\n")
        child.stdin.close()
    codes = sorted(child.wait(60) for child in children)
    for child in children:
        child.stdout.close()
    assert codes == [0, 3, 3, 3]
    store = SqliteGameStore(path, TTL_S)
    with pytest.raises(StaleBlob):
        store.check(game, 0)
    store.close()


def test_a_file_locked_too_long_makes_the_store_unavailable(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = SqliteGameStore(path, TTL_S, timeout_s=0.1)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write, never ending
    with pytest.raises(GameStoreUnavailable, match="locked"):
        store.advance(new_game_id(), 0, 1)
    store.check(new_game_id(), 0)  # reading goes on beside a writer (WAL)
    holder.execute("ROLLBACK")
    store.advance(new_game_id(), 0, 1)
    holder.close()
    store.close()


def test_expired_rows_are_purged(tmp_path):
    store = SqliteGameStore(tmp_path / "games.sqlite3", ttl_s=TTL_S)
    old, recent = new_game_id(), new_game_id()
    store.advance(old, 0, 1)
    store.advance(recent, 0, 1)
    # As if `old` had last moved a TTL ago.
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE games SET expires = ? WHERE id = ?", (time.time() - 1, old))
    assert store.purge_expired() == 1
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT id FROM games").fetchall() == [(recent,)]
    store.close()


def test_a_file_that_cannot_be_opened_is_unavailable(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(GameStoreUnavailable, match="a-file"):
        SqliteGameStore(tmp_path / "a-file" / "games.sqlite3", TTL_S)


# -- Redis ---------------------------------------------------------------------------------


def test_redis_keys_are_namespaced_and_expire(redis_server):
    store, game = RedisGameStore(redis_server.url, ttl_s=100.0), new_game_id()
    store.advance(game, 0, 1)
    client = redis.Redis.from_url(redis_server.url)
    key = "council-ai:game:" + game.hex()
    assert client.get(key) == b"1"
    assert 99_000 < client.pttl(key) <= 100_000
    client.close()
    store.close()


def call_within(seconds: float, call) -> BaseException | None:
    """What `call` raised (None: nothing), failing the test if it has not returned within
    `seconds` (a generous bound: a hung call is the failure, not a slow one)."""
    raised: list[BaseException | None] = [None]

    def run():
        try:
            call()
        except BaseException as error:  # handed to the test
            raised[0] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the call still waits after {seconds} s"
    return raised[0]


def test_a_redis_down_makes_calls_unavailable_and_it_back_serves_them(own_redis_server):
    store, game = RedisGameStore(own_redis_server.url, TTL_S), new_game_id()
    store.advance(game, 0, 1)
    own_redis_server.stop()
    for call in (lambda: store.check(game, 0), lambda: store.advance(game, 1, 2)):
        assert isinstance(call_within(10, call), GameStoreUnavailable)
    assert isinstance(
        call_within(10, lambda: RedisGameStore(own_redis_server.url, TTL_S)),
        GameStoreUnavailable,
    )
    own_redis_server.start()  # the same port; in memory only, so the entry is gone
    store.check(game, 0)  # the same store object reconnects
    store.advance(game, 1, 2)
    with pytest.raises(StaleBlob):
        store.check(game, 1)
    store.close()


def test_a_redis_that_does_not_answer_times_out(own_redis_server):
    store = RedisGameStore(own_redis_server.url, TTL_S, timeout_s=0.2)
    store.check(new_game_id(), 0)  # connected
    assert own_redis_server.process is not None
    own_redis_server.process.send_signal(signal.SIGSTOP)  # a Redis that hangs
    try:
        raised = call_within(10, lambda: store.advance(new_game_id(), 0, 1))
        assert isinstance(raised, GameStoreUnavailable)
        assert "Timeout" in str(raised) or "timed out" in str(raised)
    finally:
        own_redis_server.process.send_signal(signal.SIGCONT)
    store.close()


# -- URLs ----------------------------------------------------------------------------------


def test_every_url_form_opens_its_store(tmp_path, monkeypatch, redis_server):
    game = new_game_id()
    absolute = open_game_store(f"sqlite://{tmp_path}/abs.sqlite3", TTL_S)
    assert isinstance(absolute, SqliteGameStore)
    absolute.advance(game, 0, 1)
    absolute.close()
    assert (tmp_path / "abs.sqlite3").exists()
    monkeypatch.chdir(tmp_path)
    relative = open_game_store("sqlite:state/rel.sqlite3", TTL_S)
    relative.close()
    assert (tmp_path / "state" / "rel.sqlite3").exists()
    by_port = open_game_store(redis_server.url, TTL_S)
    by_socket = open_game_store(redis_server.unix_url, TTL_S)
    by_port.advance(game, 0, 1)
    with pytest.raises(StaleBlob):  # one server, two ways in
        by_socket.check(game, 0)
    by_port.close()
    by_socket.close()


def test_the_default_store_is_a_file_beside_the_seal_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_game_store_url() == f"sqlite://{tmp_path}/council-ai/games.sqlite3"


@pytest.mark.parametrize(
    "url",
    [
        "",
        "games.sqlite3",
        "mysql://db/games",
        "sqlite:",
        "sqlite://host/games.sqlite3",
        "sqlite:///games.sqlite3?mode=ro",
        "redis://",
        "redis://cache:port/0",
        "redis://cache:6379/zero",
        "unix://relative.sock",
        "unix:relative.sock",
    ],
)
def test_a_bad_url_is_refused_naming_it(url):
    with pytest.raises(ValueError, match=re.escape(f"game store {url!r}: ")):
        open_game_store(url, TTL_S)


def test_a_url_s_password_is_never_shown():
    with pytest.raises(ValueError) as refused:
        check_game_store_url("redis://:s3cret@cache:port/0")
    assert "s3cret" not in str(refused.value) and "redis://:***@cache:port/0" in str(refused.value)


# -- the server's settings and start --------------------------------------------------------


def test_the_config_checks_the_store_url_without_opening_it():
    config = ServerConfig(no_rewind=True, game_store="redis://unreachable.invalid:6379/0")
    assert config.resolved().game_store == "redis://unreachable.invalid:6379/0"
    with pytest.raises(ValueError, match="no_rewind"):
        ServerConfig(game_store="sqlite:games.sqlite3").resolved()
    with pytest.raises(ValueError, match="game store 'mysql://db'"):
        ServerConfig(no_rewind=True, game_store="mysql://db").resolved()


def test_start_server_opens_the_store_and_closes_it_on_stop(tmp_path):
    url = f"sqlite://{tmp_path}/games.sqlite3"
    running = start_server(ServerConfig(address="127.0.0.1:0", no_rewind=True, game_store=url))
    store = running.servicer.config.game_store_instance
    assert isinstance(store, SqliteGameStore) and store.path == tmp_path / "games.sqlite3"
    store.advance(b"game", 0, 1)
    running.stop(grace=None)
    with pytest.raises(GameStoreUnavailable, match="closed"):
        store.check(b"game", 0)
    plain = start_server(ServerConfig(address="127.0.0.1:0"))
    assert plain.servicer.config.game_store_instance is None  # no store without no_rewind
    plain.stop(grace=None)


def test_serve_refuses_to_start_without_its_store(own_redis_server, monkeypatch, capsys):
    url = own_redis_server.url
    own_redis_server.stop()
    monkeypatch.delenv("COUNCIL_SEAL_KEYS", raising=False)
    assert main(["serve", "--address", "127.0.0.1:0", "--http-address", "",
                 "--no-rewind", "--game-store", url]) == 2  # fmt: skip
    error = capsys.readouterr().err
    assert f"council-ai serve: --no-rewind: the game store {url}: " in error
    assert main(["serve", "--game-store", url]) == 2  # a store without --no-rewind
    assert "no_rewind" in capsys.readouterr().err


def test_serve_passes_its_store_flags(monkeypatch, tmp_path):
    from council.server import app

    started = []
    monkeypatch.setattr(
        app, "serve", lambda config, ready=None, exit_process=False: started.append(config) or 0
    )
    url = f"sqlite://{tmp_path}/games.sqlite3"
    assert main(["serve", "--no-rewind", "--game-store", url]) == 0
    assert (started[-1].no_rewind, started[-1].game_store) == (True, url)
    assert main(["serve", "--no-rewind"]) == 0
    assert (started[-1].no_rewind, started[-1].game_store) == (True, None)  # the default file
