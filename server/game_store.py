"""The game store of ``council-ai serve --no-rewind``: each sealed game's latest move
sequence number, so that an older blob of the game (a rewind) is refused.

A sealed blob stays valid for the server's whole seal TTL (council.server.sealing), so its
holder could send an older one again. In strict mode the server keeps, per game id, the
sequence number of the last blob it issued; a blob of a smaller number is stale
(`StaleBlob`, FAILED_PRECONDITION). Two stores, behind one `GameStore` protocol:

* `SqliteGameStore`, the default: a file beside the seal keys
  (``$XDG_STATE_HOME/council-ai/games.sqlite3``), shared by the servers of one machine;
* `RedisGameStore`: a Redis server given by URL, shared by replicas on several machines,
  so that a game moved on one cannot be rewound on another.

`open_game_store` opens either from a URL (``sqlite:///abs/path``, ``sqlite:relative/path``,
``redis://host:port/db``, ``rediss://...``, ``unix:///path.sock``). An entry lives as long
as a blob does, `ttl_s` after the game's last move: a blob older than that is refused as
expired anyway.

>>> import tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> store = open_game_store(f"sqlite://{folder.name}/games.sqlite3", ttl_s=60)
>>> store.check(b"game-1", 0)  # a game never seen passes
>>> store.advance(b"game-1", 0, 1)  # the move from blob 0 issues blob 1
>>> try:
...     store.advance(b"game-1", 0, 1)  # another move from blob 0
... except StaleBlob as error:
...     print(error.seq, error.latest)
0 1
>>> store.close(); folder.cleanup()
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import redis

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "GameStore",
    "GameStoreUnavailable",
    "RedisGameStore",
    "SqliteGameStore",
    "StaleBlob",
    "check_game_store_url",
    "default_game_store_url",
    "open_game_store",
]

# How long a call waits for the store: Redis's socket timeouts (connecting, each reply), and
# SQLite's busy timeout (another process holding the file's write lock). A store call takes
# well under a millisecond at the median (bench/game_store.py, docs/results.md); a second
# means the store is down or stuck, and the call fails (GameStoreUnavailable) rather than
# hold one of the server's threads.
DEFAULT_TIMEOUT_S = 1.0
MAX_GAME_ID_BYTES = 64
REDIS_KEY_PREFIX = "council-ai:game:"
# SQLite rows past their expiry are ignored at once and deleted at most this often, in
# batches of PURGE_BATCH rows (short write transactions: other servers keep moving).
PURGE_EVERY_S = 60.0
PURGE_BATCH = 1000
URL_FORMS = (
    "sqlite:///ABSOLUTE/PATH, sqlite:RELATIVE/PATH, redis://HOST:PORT/DB, rediss://HOST:PORT/DB"
    " or unix:///PATH.sock"
)


class StaleBlob(Exception):
    """A blob older than its game's latest: the game has moved on (FAILED_PRECONDITION)."""

    field = "blob"  # relative to the request's Sealed message, as sealing.SealError's

    def __init__(self, seq: int, latest: int):
        self.seq = seq
        self.latest = latest
        super().__init__(
            f"this game has moved on: the blob is of move sequence {seq}, the game's latest is "
            f"{latest} (the server refuses older blobs: --no-rewind); send the latest blob"
        )


class GameStoreUnavailable(Exception):
    """The game store cannot be reached or used now (UNAVAILABLE: a retry may succeed)."""


class GameStore(Protocol):
    """Each game's latest move sequence number, for ``serve --no-rewind``."""

    def check(self, game_id: bytes, seq: int) -> None:
        """Refuse (StaleBlob) a blob of sequence `seq` if the game's latest is greater; a
        game never seen, or not moved within the TTL, passes."""
        ...

    def advance(self, game_id: bytes, seq: int, next_seq: int) -> None:
        """Atomically: refuse (StaleBlob) as `check` does, else make `next_seq` the game's
        latest. So of two moves from one blob, the second is refused."""
        ...

    def close(self) -> None:
        """Release the store's connections."""
        ...


def _check_arguments(game_id: bytes, seq: int, next_seq: int | None = None) -> None:
    if not isinstance(game_id, bytes) or not 0 < len(game_id) <= MAX_GAME_ID_BYTES:
        raise ValueError(f"game_id: 1 to {MAX_GAME_ID_BYTES} bytes expected, got {game_id!r}")
    if seq < 0:
        raise ValueError(f"seq: expected >= 0, got {seq}")
    if next_seq is not None and next_seq <= seq:
        raise ValueError(f"next_seq: expected more than seq {seq}, got {next_seq}")


def _check_ttl(ttl_s: float, timeout_s: float) -> None:
    if not ttl_s > 0:
        raise ValueError(f"ttl_s: expected > 0, got {ttl_s}")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s: expected > 0, got {timeout_s}")


# -- SQLite --------------------------------------------------------------------------------


class SqliteGameStore:
    """The store in an SQLite file: safe for the server's threads (a connection each) and for
    several processes on one machine sharing the file (WAL; the compare-and-set in a
    ``BEGIN IMMEDIATE`` transaction, waiting up to `timeout_s` for another's).

    A row holds a game's latest sequence number and when it expires (wall-clock seconds, so
    that it holds across processes and restarts); an expired row counts as absent and is
    deleted now and then (`purge_expired`)."""

    def __init__(
        self, path: str | os.PathLike[str], ttl_s: float, timeout_s: float = DEFAULT_TIMEOUT_S
    ):
        _check_ttl(ttl_s, timeout_s)
        self.path = Path(path)
        self.ttl_s = float(ttl_s)
        self.timeout_s = float(timeout_s)
        self._local = threading.local()
        self._lock = threading.Lock()  # guards _connections and _closed
        self._write_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._next_purge = 0.0
        try:
            # Its folder as the seal keys' (sealing.load_or_create_key_file): the owner's only.
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            connection = self._connection()
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS games (id BLOB PRIMARY KEY,"
                " seq INTEGER NOT NULL, expires REAL NOT NULL) WITHOUT ROWID"
            )
            connection.execute("CREATE INDEX IF NOT EXISTS games_expires ON games (expires)")
        except (OSError, sqlite3.Error) as error:
            self.close()
            raise GameStoreUnavailable(
                f"cannot open the game store {self.path}: {error}"
            ) from error

    def __repr__(self) -> str:
        return f"SqliteGameStore({str(self.path)!r}, ttl_s={self.ttl_s})"

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections are not shared between threads)."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            with self._lock:
                if self._closed:
                    raise GameStoreUnavailable(f"the game store {self.path} is closed")
                # isolation_level None: no implicit transactions, ours are explicit;
                # check_same_thread off only so that close() may close every thread's.
                connection = sqlite3.connect(
                    self.path,
                    timeout=self.timeout_s,
                    isolation_level=None,
                    check_same_thread=False,
                )
                # WAL survives a crash of the process; a power cut may lose the last moves'
                # entries, which only reopens those moves' older blobs.
                connection.execute("PRAGMA synchronous=NORMAL")
                self._connections.append(connection)
            self._local.connection = connection
        return connection

    def _latest(self, connection: sqlite3.Connection, game_id: bytes, now: float) -> int | None:
        row = connection.execute(
            "SELECT seq FROM games WHERE id = ? AND expires > ?", (game_id, now)
        ).fetchone()
        return None if row is None else row[0]

    def check(self, game_id: bytes, seq: int) -> None:
        _check_arguments(game_id, seq)
        try:
            latest = self._latest(self._connection(), game_id, time.time())
        except sqlite3.Error as error:
            raise GameStoreUnavailable(f"the game store {self.path}: {error}") from error
        if latest is not None and latest > seq:
            raise StaleBlob(seq, latest)

    def advance(self, game_id: bytes, seq: int, next_seq: int) -> None:
        _check_arguments(game_id, seq, next_seq)
        connection = self._connection()
        # This process's writers queue here, woken at once, rather than poll SQLite's lock
        # (its busy handler sleeps up to 100 ms a try); other processes' wait in SQLite.
        if not self._write_lock.acquire(timeout=self.timeout_s):
            raise GameStoreUnavailable(f"the game store {self.path}: busy for {self.timeout_s} s")
        now = time.time()
        try:
            # IMMEDIATE takes the file's write lock first: no other connection, of this
            # process or another, can write between our read and our write.
            connection.execute("BEGIN IMMEDIATE")
            try:
                latest = self._latest(connection, game_id, now)
                if latest is not None and latest > seq:
                    raise StaleBlob(seq, latest)
                connection.execute(
                    "INSERT OR REPLACE INTO games (id, seq, expires) VALUES (?, ?, ?)",
                    (game_id, next_seq, now + self.ttl_s),
                )
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            raise GameStoreUnavailable(f"the game store {self.path}: {error}") from error
        finally:
            self._write_lock.release()
        if now >= self._next_purge:
            self._next_purge = now + PURGE_EVERY_S
            try:
                self.purge_expired(now)
            except GameStoreUnavailable as error:  # the move is stored: only tidying failed
                log.warning("%s", error)

    def purge_expired(self, now: float | None = None) -> int:
        """Delete the expired rows (an index on the expiry finds them); their number."""
        now = time.time() if now is None else now
        connection = self._connection()
        deleted = 0
        try:
            while True:
                cursor = connection.execute(
                    "DELETE FROM games WHERE id IN"
                    " (SELECT id FROM games WHERE expires <= ? LIMIT ?)",
                    (now, PURGE_BATCH),
                )
                deleted += cursor.rowcount
                if cursor.rowcount < PURGE_BATCH:
                    return deleted
        except sqlite3.Error as error:
            raise GameStoreUnavailable(f"the game store {self.path}: {error}") from error

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()


# -- Redis ---------------------------------------------------------------------------------

# The compare-and-set, run by Redis as one atomic step: KEYS[1] the game's key, ARGV the
# blob's sequence number, the next one and the entry's lifetime in ms. Answers -1 when it
# stored the next number, else the game's latest (greater than the blob's).
_ADVANCE = """
local latest = tonumber(redis.call('GET', KEYS[1]))
if latest and latest > tonumber(ARGV[1]) then
    return latest
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return -1
"""


class RedisGameStore:
    """The store in Redis (redis-py): a key ``council-ai:game:<hex id>`` per game, holding its
    latest sequence number and expiring `ttl_s` after its last move; the compare-and-set is
    one Lua script (EVALSHA, atomic). Calls fail within about `timeout_s` when Redis is down
    or stuck (GameStoreUnavailable), never retried here: a lost reply to a compare-and-set
    that did happen would, retried, refuse the move that made it."""

    def __init__(self, url: str, ttl_s: float, timeout_s: float = DEFAULT_TIMEOUT_S):
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        _check_ttl(ttl_s, timeout_s)
        check_game_store_url(url)
        self.url = _redacted(url)
        self.ttl_s = float(ttl_s)
        self._ttl_ms = max(1, round(self.ttl_s * 1000))
        # The URL's own options (?socket_timeout=...) override these keywords.
        self._redis: redis.Redis = redis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),
        )
        self._advance = self._redis.register_script(_ADVANCE)
        try:
            self._redis.ping()  # a store that cannot be reached fails the server's start
        except redis.RedisError as error:
            self._redis.close()
            raise self._unavailable(error) from error

    def __repr__(self) -> str:
        return f"RedisGameStore({self.url!r}, ttl_s={self.ttl_s})"

    def _unavailable(self, error: Exception) -> GameStoreUnavailable:
        return GameStoreUnavailable(f"the game store {self.url}: {error}")

    @staticmethod
    def key(game_id: bytes) -> str:
        """The Redis key of a game."""
        return REDIS_KEY_PREFIX + game_id.hex()

    def check(self, game_id: bytes, seq: int) -> None:
        import redis

        _check_arguments(game_id, seq)
        try:
            value = self._redis.get(self.key(game_id))
        except redis.RedisError as error:
            raise self._unavailable(error) from error
        if value is not None and int(value) > seq:
            raise StaleBlob(seq, int(value))

    def advance(self, game_id: bytes, seq: int, next_seq: int) -> None:
        import redis

        _check_arguments(game_id, seq, next_seq)
        try:
            latest = self._advance(keys=[self.key(game_id)], args=[seq, next_seq, self._ttl_ms])
        except redis.RedisError as error:
            raise self._unavailable(error) from error
        if latest != -1:
            raise StaleBlob(seq, int(latest))

    def close(self) -> None:
        self._redis.close()


# -- URLs ----------------------------------------------------------------------------------


def default_game_store_url() -> str:
    """The store of ``serve --no-rewind`` without ``--game-store``: an SQLite file in the
    seal keys' folder (`council.server.sealing.default_key_file`)."""
    from council.server.sealing import default_key_file

    path = default_key_file().parent / "games.sqlite3"
    return ("sqlite://" if path.is_absolute() else "sqlite:") + path.as_posix()


def _redacted(url: str) -> str:
    """The URL without its password, to name in messages and logs.

    >>> _redacted("redis://:s3cret@cache:6379/0"), _redacted("redis://app:s3cret@cache/1")
    ('redis://:***@cache:6379/0', 'redis://app:***@cache/1')
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user, _, host = parts.netloc.rpartition("@")
    name = user.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{name}:***@{host}"))


def check_game_store_url(url: str) -> str:
    """The kind of store a URL names, "sqlite" or "redis", without opening it; ValueError,
    naming the URL (its password hidden), if it is not one of `URL_FORMS`.

    >>> check_game_store_url("sqlite:///var/lib/council/games.sqlite3")
    'sqlite'
    >>> check_game_store_url("redis://cache:6379/0"), check_game_store_url("unix:///run/r.sock")
    ('redis', 'redis')
    >>> check_game_store_url("mysql://db/games")
    Traceback (most recent call last):
    ...
    ValueError: game store 'mysql://db/games': expected sqlite:///ABSOLUTE/PATH, \
sqlite:RELATIVE/PATH, redis://HOST:PORT/DB, rediss://HOST:PORT/DB or unix:///PATH.sock
    """
    problem = _url_problem(url)
    if problem is not None:
        raise ValueError(f"game store {_redacted(url)!r}: {problem}")
    return "sqlite" if url.startswith("sqlite:") else "redis"


def _url_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is not a number raises here
    except ValueError as error:
        return f"{error}; expected {URL_FORMS}"
    if parts.scheme == "sqlite":
        if parts.netloc or parts.query or parts.fragment or not parts.path:
            return "expected sqlite:///ABSOLUTE/PATH or sqlite:RELATIVE/PATH"
        return None
    if parts.scheme in ("redis", "rediss"):
        if not parts.hostname:
            return "no host: expected redis://HOST:PORT/DB"
        if port == 0:
            return "port 0"
        db = parts.path.strip("/")
        if db and not db.isdigit():
            return f"the database {db!r} is not a number: expected redis://HOST:PORT/DB"
        return None
    if parts.scheme == "unix":
        if parts.netloc or not parts.path.startswith("/"):
            return "expected unix:///ABSOLUTE/PATH.sock"
        return None
    return f"expected {URL_FORMS}"


def open_game_store(url: str, ttl_s: float, timeout_s: float = DEFAULT_TIMEOUT_S) -> GameStore:
    """The store a URL names (`URL_FORMS`), opened: ValueError for a URL of no store,
    GameStoreUnavailable for one that cannot be opened or reached now."""
    if check_game_store_url(url) == "sqlite":
        # sqlite:///abs/path -> /abs/path, sqlite:relative/path -> relative/path
        return SqliteGameStore(urlsplit(url).path, ttl_s, timeout_s)
    return RedisGameStore(url, ttl_s, timeout_s)
