"""The ladder's SQLite store: its settings and every finished game.

One file holds one ladder of one game. Table ``meta`` keeps the settings (the game,
entrants with their specs, table size, deals, seed, game rules) as JSON; table ``games`` one
row per finished game (seed, seats, moves, scores, winners, ranks, status, forfeit reason,
timing, and a finished game's record: a ``council.v1.GameRecord`` in its JSON form,
``council.engine.record``); table ``seats`` the same game seat by seat, for SQL queries.
Files written before records had no ``record`` column: opening one adds it, and
``records`` rebuilds their games' records from the deal seed and moves. A game is written in
a single transaction (its ``games`` row and all its ``seats`` rows, or nothing), in WAL mode
with ``synchronous=FULL``, so a ladder killed at any moment loses at most the games still
being played and never stores half a game. ``games.id`` is the primary key: a game is stored once,
except that a ``void`` game (not played: an endpoint could not be reached) is replaced when
it is played again.

>>> store = Store(":memory:")
>>> store.setup(LadderConfig(entrants=[("random", "random"), ("greedy", "greedy")]))
LadderConfig(entrants=[('random', 'random'), ('greedy', 'greedy')], table_size=2, deals=10, seed=0, layout='ABA', game='...')
>>> store.stored_ids()
set()
"""  # noqa: E501

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from council.ladder.games import DEFAULT_GAME

if TYPE_CHECKING:
    from council.v1.record_pb2 import GameRecord

__all__ = ["ADJUDICATED", "FORMAT", "GameResult", "LadderConfig", "LadderMismatch", "Store"]

FORMAT = "council-ladder/1"
# The reason of a finished game stopped at the length cap and scored as it stood starts so.
ADJUDICATED = "adjudicated: "

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,            -- table/deal/rotation, e.g. '0-2/d3/r1'
    table_key TEXT NOT NULL,        -- entrant indices at the table, e.g. '0-2'
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,          -- the deal's game seed
    seats TEXT NOT NULL,            -- JSON: entrant index per seat
    labels TEXT NOT NULL,           -- JSON: entrant label per seat
    status TEXT NOT NULL CHECK (status IN ('finished', 'forfeit', 'void')),
    scores TEXT NOT NULL,           -- JSON: VP per seat (provisional unless finished)
    winners TEXT NOT NULL,          -- JSON: winning seats
    ranks TEXT,                     -- JSON: place per seat (1 = first), NULL when void
    forfeit_seat INTEGER,
    reason TEXT,                    -- why the game was forfeited, voided or adjudicated
    moves TEXT NOT NULL,            -- JSON: action ids in order
    actions INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    seconds REAL NOT NULL,
    worker TEXT NOT NULL,           -- host:pid that played it
    finished_at REAL NOT NULL,      -- unix time of the write
    record TEXT                     -- JSON: council.v1.GameRecord; NULL if forfeit or void
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    entrant INTEGER NOT NULL,
    label TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER,
    forfeited INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
"""


# The columns of ``games`` that ``Store.games`` reads (the record only when asked for).
_GAME_COLUMNS = (
    "id, table_key, deal, rotation, seed, seats, labels, status, scores, winners, ranks, "
    "forfeit_seat, reason, moves, turns, seconds, worker"
)


class LadderMismatch(ValueError):
    """The settings given do not extend the ladder stored in the file."""


@dataclass
class LadderConfig:
    entrants: list[tuple[str, str]] = field(default_factory=list)  # (label, spec)
    table_size: int = 2
    deals: int = 10
    seed: int = 0
    layout: str | None = "ABA"  # the game's board sides; None for a game without a layout
    game: str = DEFAULT_GAME  # a name of council.ladder.games.GAMES; absent in older files

    def to_json(self) -> str:
        d = asdict(self)
        d["entrants"] = [{"label": label, "spec": spec} for label, spec in self.entrants]
        return json.dumps({"format": FORMAT, **d}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LadderConfig:
        d = json.loads(text)
        if d.pop("format", None) != FORMAT:
            raise ValueError(f"not a {FORMAT} ladder")
        d["entrants"] = [(e["label"], e["spec"]) for e in d["entrants"]]
        return cls(**d)

    @property
    def labels(self) -> list[str]:
        return [label for label, _ in self.entrants]


@dataclass(frozen=True)
class GameResult:
    """One played game, as a worker hands it back."""

    id: str
    table: tuple[int, ...]
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]
    labels: tuple[str, ...]
    status: str  # finished (adjudicated ones included) | forfeit | void
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    ranks: tuple[int, ...] | None
    forfeit_seat: int | None
    reason: str | None
    moves: tuple[int, ...]
    turns: int
    seconds: float
    worker: str
    # A finished game's GameRecord (JSON; None if forfeit or void): some 10 KB a game, so
    # not part of a game's equality or repr, and read back only when asked for.
    record: str | None = field(default=None, compare=False, repr=False)

    @property
    def adjudicated(self) -> bool:
        """Stopped at the length cap and scored as it stood: a finished game whose reason
        says so (stored in the existing columns, so ladder files keep their schema)."""
        return self.status == "finished" and (self.reason or "").startswith(ADJUDICATED)


class Store:
    """A ladder file (or ``:memory:``)."""

    def __init__(self, path: str):
        self.path = path
        self.conn = sqlite3.connect(path, timeout=60, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        if path != ":memory:":
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.executescript(_SCHEMA)  # idempotent; executescript commits by itself
        columns = {row["name"] for row in self.conn.execute("PRAGMA table_info(games)")}
        if "record" not in columns:  # a file written before game records
            self.conn.execute("ALTER TABLE games ADD COLUMN record TEXT")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    class _Tx:
        def __init__(self, conn):
            self.conn = conn

        def __enter__(self):
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, kind, value, tb):
            self.conn.execute("COMMIT" if kind is None else "ROLLBACK")

    def _transaction(self):
        return Store._Tx(self.conn)

    # -- settings ------------------------------------------------------------------------
    def config(self) -> LadderConfig | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'ladder'").fetchone()
        return None if row is None else LadderConfig.from_json(row["value"])

    def setup(self, config: LadderConfig) -> LadderConfig:
        """Store the settings of a new ladder, or check that `config` extends the stored
        one: the same game, table size, seed and layout, the stored entrants first and in
        the same order (new ones may follow), and at least as many deals. Returns the
        settings now in force."""
        with self._transaction():
            stored = self.config()
            if stored is not None:
                self.require_game(config.game, stored)
                problems = []
                for name in ("table_size", "seed", "layout"):
                    if getattr(stored, name) != getattr(config, name):
                        problems.append(
                            f"{name} is {getattr(stored, name)!r} in the file, "
                            f"{getattr(config, name)!r} here"
                        )
                if config.entrants[: len(stored.entrants)] != stored.entrants:
                    problems.append(
                        "the entrants must start with the stored ones, in order: "
                        + ", ".join(spec for _, spec in stored.entrants)
                    )
                if config.deals < stored.deals:
                    problems.append(f"deals: {config.deals} < {stored.deals} already scheduled")
                if problems:
                    raise LadderMismatch(f"{self.path}: " + "; ".join(problems))
            labels = config.labels
            if len(set(labels)) != len(labels):
                raise LadderMismatch(
                    "two entrants have the same label; name them apart with NAME@spec"
                )
            self.conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('ladder', ?)",
                (config.to_json(),),
            )
        return config

    def require_game(self, game: str, stored: LadderConfig | None = None) -> None:
        """Refuse (LadderMismatch) to play or extend the stored ladder as another game."""
        stored = stored or self.config()
        if stored is not None and stored.game != game:
            raise LadderMismatch(
                f"{self.path} holds a ladder of {stored.game}, not {game}: one file holds "
                f"one game's ladder (--game {stored.game} to go on with it, or another --db)"
            )

    # -- games ---------------------------------------------------------------------------
    def stored_ids(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT id FROM games")}

    def void_ids(self) -> set[str]:
        """The stored games that are void (not played: an endpoint could not be reached);
        ``add`` replaces them."""
        return {row[0] for row in self.conn.execute("SELECT id FROM games WHERE status = 'void'")}

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def add(self, game: GameResult) -> bool:
        """Write one game (one transaction), replacing a void game of that id. False if that
        id was already stored (and not void)."""
        with self._transaction() as conn:
            void = (game.id,)
            conn.execute(
                "DELETE FROM seats WHERE game_id IN "
                "(SELECT id FROM games WHERE id = ? AND status = 'void')",
                void,
            )
            conn.execute("DELETE FROM games WHERE id = ? AND status = 'void'", void)
            cursor = conn.execute(
                "INSERT OR IGNORE INTO games (id, table_key, deal, rotation, seed, seats, "
                "labels, status, scores, winners, ranks, forfeit_seat, reason, moves, actions, "
                "turns, seconds, worker, finished_at, record) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.id,
                    "-".join(map(str, game.table)),
                    game.deal,
                    game.rotation,
                    game.seed,
                    json.dumps(list(game.seats)),
                    json.dumps(list(game.labels)),
                    game.status,
                    json.dumps(list(game.scores)),
                    json.dumps(list(game.winners)),
                    None if game.ranks is None else json.dumps(list(game.ranks)),
                    game.forfeit_seat,
                    game.reason,
                    json.dumps(list(game.moves)),
                    len(game.moves),
                    game.turns,
                    game.seconds,
                    game.worker,
                    time.time(),
                    game.record,
                ),
            )
            if cursor.rowcount != 1:
                return False
            conn.executemany(
                "INSERT INTO seats (game_id, seat, entrant, label, score, rank, forfeited) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game.id,
                        seat,
                        entrant,
                        game.labels[seat],
                        game.scores[seat],
                        None if game.ranks is None else game.ranks[seat],
                        int(seat == game.forfeit_seat),
                    )
                    for seat, entrant in enumerate(game.seats)
                ],
            )
        return True

    def games(self, records: bool = False) -> list[GameResult]:
        """Every stored game (in no particular order); with ``records``, each with its
        record (else ``record`` is None: a report needs none)."""
        out = []
        columns = _GAME_COLUMNS + (", record" if records else ", NULL AS record")
        for row in self.conn.execute(f"SELECT {columns} FROM games"):
            out.append(
                GameResult(
                    id=row["id"],
                    table=tuple(int(x) for x in row["table_key"].split("-")),
                    deal=row["deal"],
                    rotation=row["rotation"],
                    seed=row["seed"],
                    seats=tuple(json.loads(row["seats"])),
                    labels=tuple(json.loads(row["labels"])),
                    status=row["status"],
                    scores=tuple(json.loads(row["scores"])),
                    winners=tuple(json.loads(row["winners"])),
                    ranks=None if row["ranks"] is None else tuple(json.loads(row["ranks"])),
                    forfeit_seat=row["forfeit_seat"],
                    reason=row["reason"],
                    moves=tuple(json.loads(row["moves"])),
                    turns=row["turns"],
                    seconds=row["seconds"],
                    worker=row["worker"],
                    record=row["record"],
                )
            )
        return out

    def records(self) -> dict[str, GameRecord]:
        """The game record of every finished game (adjudicated ones included), by game id in
        id order. A game stored before records were (its ``record`` NULL) gets one rebuilt
        from its deal seed and moves under the stored settings, its players the entrants'
        labels and specs."""
        from council.engine.record import RecordedPlayer, record_from_json, record_of
        from council.ladder.games import game_config

        config = self.config()
        out: dict[str, GameRecord] = {}
        for game in sorted(self.games(records=True), key=lambda g: g.id):
            if game.status != "finished":
                continue
            if game.record is not None:
                out[game.id] = record_from_json(game.record)
                continue
            if config is None:
                raise ValueError(f"{self.path}: games but no ladder settings")
            start = game_config(config.game, config.table_size, config.layout).new_game(game.seed)
            players = [RecordedPlayer(*config.entrants[e]) for e in game.seats]
            out[game.id] = record_of(start, game.moves, players, adjudicated=game.adjudicated)
        return out
