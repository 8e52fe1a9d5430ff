"""Self-play data for the learned models: seeded, resumable, sharded ``.npz`` files.

``run_selfplay`` plays ``games`` seeded games between agents (``council.mcts.agents``
specs) and records every decision where the seat to move has more than one legal action:
the full state, the per-seat features (``council.mcts.features``), the game's outcome, and
for search agents the root value of the chosen move and the root visit distribution.

Games follow the arena's conventions (``council.mcts.arena.play_game``): each seat sees
only its view, and move ``k`` of a game with seed ``g`` is asked with seed
``(g * 7919 + k) & 0xFFFFFFFF``. Game ``i``'s seed depends only on ``--seed`` and ``i``.
Games are grouped into shards of ``shard_size`` games; shard ``k`` is written atomically to
``DIR/shard-0000k.npz`` and a rerun skips the shards already there. ``DIR/manifest.json``
holds the settings (checked on resume) and per-shard counts. A game still running at
``max_turns`` is dropped and counted. The file format: docs/learning.md.

With ``record_dir``, every game is also written there as a game record
(``council.engine.record``, docs/review.md): ``<game name>-<game index>.json``, its players
named by their agent specs; a dropped game is recorded adjudicated at the cap
(``Position.adjudicated()``), as the arena records its capped games.

>>> cfg = SelfPlayConfig(agents=("greedy",), players=(2, 3), games=5, shard_size=2, seed=1)
>>> cfg.n_shards, cfg.game_players(0), cfg.game_players(1), list(cfg.shard_games(2))
(3, 2, 3, [4])
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from council.engine.games import default_game
from council.engine.position import Position
from council.mcts.jobs import progress_bar, run_jobs

FORMAT = "council-selfplay"
FORMAT_VERSION = 1
MAX_SEATS = 4
MAX_CANDIDATES = 64  # root candidates kept per position (most visited first)
MAX_ACTIONS = 20_000  # a game past this many actions is dropped like a capped one
MANIFEST = "manifest.json"


def shard_name(k: int) -> str:
    return f"shard-{k:05d}.npz"


@dataclass(frozen=True)
class SelfPlayConfig:
    """What defines a self-play data set (everything but how it is run)."""

    agents: tuple[str, ...]  # one spec for every seat, or one per seat (rotated by game)
    players: tuple[int, ...]  # seats per game, cycled by game index
    games: int
    shard_size: int = 100
    seed: int = 0
    max_turns: int = 300
    layout: str = "ABA"

    def __post_init__(self):
        object.__setattr__(self, "agents", tuple(str(a).strip() for a in self.agents))
        object.__setattr__(self, "players", tuple(int(p) for p in self.players))

    def validate(self) -> SelfPlayConfig:
        from council.mcts.agents import parse_agent

        if not self.agents:
            raise ValueError("name at least one agent")
        if not self.players or any(not 2 <= p <= MAX_SEATS for p in self.players):
            raise ValueError(f"players: each must be in 2..{MAX_SEATS}, got {self.players}")
        if len(self.agents) > 1 and any(p != len(self.agents) for p in self.players):
            raise ValueError(
                f"{len(self.agents)} agents name one per seat, so every game needs "
                f"{len(self.agents)} players (got players {self.players}); "
                "or give one agent for all seats"
            )
        if self.games < 1:
            raise ValueError(f"games: must be >= 1, got {self.games}")
        if self.shard_size < 1:
            raise ValueError(f"shard-size: must be >= 1, got {self.shard_size}")
        if self.max_turns < 1:
            raise ValueError(f"max-turns: must be >= 1, got {self.max_turns}")
        for spec in self.agents:
            parse_agent(spec)  # a bad spec fails now, not in a worker
        for n in set(self.players):
            default_game().config_class(players=n, layout=self.layout).validate()
        return self

    def to_dict(self) -> dict:
        d = asdict(self)
        d["agents"] = list(self.agents)
        d["players"] = list(self.players)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> SelfPlayConfig:
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
        return cls(**values)

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_games(self, k: int) -> range:
        return range(k * self.shard_size, min(self.games, (k + 1) * self.shard_size))

    def game_seed(self, index: int) -> int:
        """The deal of game ``index``: a function of the seed and the index only."""
        return int(np.random.SeedSequence([self.seed & 0xFFFFFFFF, index]).generate_state(1)[0])

    def game_players(self, index: int) -> int:
        return self.players[index % len(self.players)]

    def lineup(self, index: int) -> tuple[str, ...]:
        """The agent spec of each seat of game ``index``."""
        n = self.game_players(index)
        if len(self.agents) == 1:
            return self.agents * n
        return tuple(self.agents[(s + index) % n] for s in range(n))


# -- one game ------------------------------------------------------------------------------


def encode_state(state: Position) -> bytes:
    """A full state as bytes (JSON of its ``to_raw()``; no pickle)."""
    return json.dumps(state.to_raw(), separators=(",", ":")).encode()


def decode_state(blob: bytes | np.ndarray) -> Position:
    if isinstance(blob, np.ndarray):
        blob = blob.tobytes()
    state_class: Any = default_game().state_class
    return state_class.from_raw(json.loads(blob))


def _move_seed(game_seed: int, action_index: int) -> int:
    return (game_seed * 7919 + action_index) & 0xFFFFFFFF


def play_selfplay_game(config: SelfPlayConfig, index: int, game_record: bool = False) -> dict:
    """Play game ``index`` of ``config`` and return its record (see ``_empty_positions``);
    ``record["dropped"]`` is True when it hit ``max_turns`` (then no positions). With
    ``game_record``, ``record["game_record"]`` is the game's record in the JSON form of
    ``council.engine.record``."""
    from council.mcts.agents import parse_agent
    from council.mcts.features import FEATURE_NAMES, seat_features

    seed = config.game_seed(index)
    n = config.game_players(index)
    lineup = config.lineup(index)
    agents = [parse_agent(spec) for spec in lineup]
    rules = default_game()
    state = rules.new_game(rules.config_class(players=n, layout=config.layout), seed=seed)
    start = state.clone() if game_record else None
    played: list[int] = []
    f = len(FEATURE_NAMES)
    rows: list[tuple] = []
    k = 0
    dropped = False
    while not state.is_terminal():
        if state.turn >= config.max_turns or k >= MAX_ACTIONS:
            dropped = True
            break
        seat = state.current_player
        agent = agents[seat]
        legal = state.legal_actions()
        observed = state.clone() if agent.sees_true_state else state.view(seat)
        move_seed = _move_seed(seed, k)
        decision = len(legal) > 1
        candidates: Sequence = ()
        if decision and hasattr(agent, "analyse"):
            result = agent.analyse(observed, move_seed)
            action = result.action
            candidates = result.candidates
        else:
            action = agent.act(observed, move_seed)
        if decision:
            x = np.zeros((MAX_SEATS, f), dtype=np.float32)
            x[:n] = seat_features(state)
            root = next((c.win_probability for c in candidates if c.action == action), np.nan)
            rows.append(
                (encode_state(state), x, seat, state.turn, k, action, len(legal), root, candidates)
            )
        state.apply(action)
        played.append(action)
        k += 1
    game = {
        "game_id": index,
        "game_seed": seed,
        "players": n,
        "lineup": lineup,
        "dropped": dropped,
        "turns": state.turn,
        "actions": k,
    }
    if start is not None:
        game["game_record"] = _game_record_json(start, played, agents, lineup, dropped)
    if dropped:
        return game | {"positions": _empty_positions(0, f)}
    outcome = np.zeros(MAX_SEATS, dtype=np.float32)
    outcome[:n] = state.returns()
    final_vp = np.zeros(MAX_SEATS, dtype=np.int16)
    final_vp[:n] = state.scores()
    pos = _empty_positions(len(rows), f)
    blobs = []
    for i, (blob, x, seat, turn, k_, action, n_legal, root, candidates) in enumerate(rows):
        blobs.append(blob)
        pos["features"][i] = x
        pos["seat"][i] = seat
        pos["turn"][i] = turn
        pos["action_index"][i] = k_
        pos["action"][i] = action
        pos["n_legal"][i] = n_legal
        pos["root_value"][i] = root
        for j, c in enumerate(candidates[:MAX_CANDIDATES]):
            pos["visit_action"][i, j] = c.action
            pos["visit_count"][i, j] = c.visits
            pos["visit_value"][i, j] = c.win_probability
    pos["game"][:] = index
    pos["n_players"][:] = n
    pos["outcome"][:] = outcome
    pos["final_vp"][:] = final_vp
    pos["final_turn"][:] = state.turn
    pos["state_offsets"] = np.cumsum([0] + [len(b) for b in blobs], dtype=np.int64)
    pos["state_bytes"] = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    return game | {"positions": pos, "outcome": outcome, "final_vp": final_vp}


def _game_record_json(
    start: Position, played: list[int], agents: Sequence, lineup: Sequence[str], dropped: bool
) -> str:
    """The game record (JSON) of a self-play game: players named by label and spec."""
    from council.engine.record import RecordedPlayer, record_of, record_to_json
    from council.mcts.agents import agent_label

    players = [
        RecordedPlayer(agent_label(agent), spec) for agent, spec in zip(agents, lineup, strict=True)
    ]
    return record_to_json(record_of(start, played, players, adjudicated=dropped))


def record_name(index: int) -> str:
    """The file name of game ``index``'s record in a ``record_dir``."""
    return f"{default_game().name}-{index:06d}.json"


def _empty_positions(n: int, f: int) -> dict:
    """The per-position arrays of a shard (docs/learning.md), ``n`` rows."""
    return {
        "game": np.zeros(n, np.int64),  # game index in the data set
        "n_players": np.zeros(n, np.int8),
        "seat": np.zeros(n, np.int8),  # the seat to move
        "turn": np.zeros(n, np.int16),
        "action_index": np.zeros(n, np.int32),  # actions played before this one
        "action": np.zeros(n, np.int16),  # the action played
        "n_legal": np.zeros(n, np.int16),
        "features": np.zeros((n, MAX_SEATS, f), np.float32),  # seats >= n_players: 0
        "outcome": np.zeros((n, MAX_SEATS), np.float32),  # 1/k for each of k winners
        "final_vp": np.zeros((n, MAX_SEATS), np.int16),
        "final_turn": np.zeros(n, np.int16),
        "root_value": np.full(n, np.nan, np.float32),  # NaN: the agent has no search
        "visit_action": np.full((n, MAX_CANDIDATES), -1, np.int16),
        "visit_count": np.zeros((n, MAX_CANDIDATES), np.int32),
        "visit_value": np.full((n, MAX_CANDIDATES), np.nan, np.float32),
        "state_offsets": np.zeros(n + 1, np.int64),
        "state_bytes": np.zeros(0, np.uint8),
    }


def _play_job(job) -> dict:
    config_dict, index, game_record = job
    return play_selfplay_game(SelfPlayConfig.from_dict(config_dict), index, game_record)


# -- shards --------------------------------------------------------------------------------


def build_shard(config: SelfPlayConfig, k: int, games: Iterable[dict]) -> dict:
    """The arrays of shard ``k`` from its games' records (any order)."""
    from council.mcts.features import FEATURE_NAMES

    games = sorted(games, key=lambda g: g["game_id"])
    kept = [g for g in games if not g["dropped"]]
    f = len(FEATURE_NAMES)
    parts = [g["positions"] for g in kept] or [_empty_positions(0, f)]
    out = {}
    for key in parts[0]:
        if key == "state_offsets":
            ends = [p[key][1:] for p in parts]
            base = np.cumsum([0] + [len(p["state_bytes"]) for p in parts[:-1]])
            out[key] = np.concatenate([[0]] + [e + b for e, b in zip(ends, base, strict=True)])
            out[key] = out[key].astype(np.int64)
        else:
            out[key] = np.concatenate([p[key] for p in parts])
    g_players = np.array([g["players"] for g in kept], np.int8)
    out.update(
        format_version=np.array(FORMAT_VERSION),
        settings=np.array(json.dumps(config.to_dict(), sort_keys=True)),
        shard=np.array(k),
        feature_names=np.array(FEATURE_NAMES, dtype=str),
        game_id=np.array([g["game_id"] for g in kept], np.int64),
        game_seed=np.array([g["game_seed"] for g in kept], np.int64),
        game_players=g_players,
        game_final_turn=np.array([g["turns"] for g in kept], np.int16),
        game_actions=np.array([g["actions"] for g in kept], np.int32),
        game_outcome=np.array([g["outcome"] for g in kept], np.float32).reshape(-1, MAX_SEATS),
        game_final_vp=np.array([g["final_vp"] for g in kept], np.int16).reshape(-1, MAX_SEATS),
        game_agents=np.array(
            [list(g["lineup"]) + [""] * (MAX_SEATS - g["players"]) for g in kept], dtype=str
        ).reshape(-1, MAX_SEATS),
        dropped_game_id=np.array([g["game_id"] for g in games if g["dropped"]], np.int64),
        dropped_turns=np.array([g["turns"] for g in games if g["dropped"]], np.int32),
    )
    return out


def _write_atomic(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_shard(path: Path, arrays: dict) -> None:
    _write_atomic(path, lambda f: np.savez_compressed(f, **arrays))


def read_shard(path: str | os.PathLike) -> dict:
    """All arrays of one shard (no pickle involved)."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def shard_state(shard: dict, i: int) -> Position:
    """The full state of position ``i`` of a shard."""
    lo, hi = shard["state_offsets"][i], shard["state_offsets"][i + 1]
    return decode_state(shard["state_bytes"][lo:hi])


def shard_paths(directory: str | os.PathLike) -> list[Path]:
    return sorted(Path(directory).glob("shard-*.npz"))


def _shard_summary(arrays: dict) -> dict:
    return {
        "games": int(len(arrays["game_id"])),
        "positions": int(len(arrays["game"])),
        "dropped": [int(i) for i in arrays["dropped_game_id"]],
    }


# -- the manifest --------------------------------------------------------------------------


def read_manifest(directory: str | os.PathLike) -> dict | None:
    path = Path(directory) / MANIFEST
    if not path.exists():
        return None
    with open(path) as f:
        return json.load(f)


def _write_manifest(directory: Path, manifest: dict) -> None:
    shards = manifest["shards"]
    manifest["totals"] = {
        "shards_written": len(shards),
        "games": sum(s["games"] for s in shards.values()),
        "positions": sum(s["positions"] for s in shards.values()),
        "dropped_games": sum(len(s["dropped"]) for s in shards.values()),
    }
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    _write_atomic(directory / MANIFEST, lambda f: f.write(text.encode()))


def _open_manifest(directory: Path, config: SelfPlayConfig) -> dict:
    """The directory's manifest, created for ``config`` or checked against it."""
    from council.mcts.features import FEATURE_NAMES

    manifest = read_manifest(directory)
    settings = config.to_dict()
    if manifest is None:
        if shard_paths(directory):
            raise ValueError(f"{directory}: holds shards but no {MANIFEST}; use another --out")
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "settings": settings,
            "feature_names": list(FEATURE_NAMES),
            "shards": {},
        }
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{directory}/{MANIFEST}: not a {FORMAT} v{FORMAT_VERSION} manifest")
    stored = manifest["settings"]
    if stored != settings:
        diffs = [
            f"{k}: stored {stored.get(k)!r}, now {settings.get(k)!r}"
            for k in sorted(set(stored) | set(settings))
            if stored.get(k) != settings.get(k)
        ]
        raise ValueError(
            f"{directory} holds self-play data made with other settings ({'; '.join(diffs)}); "
            "rerun with the stored settings to resume, or write to another --out"
        )
    return manifest


# -- running -------------------------------------------------------------------------------


@dataclass
class SelfPlaySummary:
    shards: int  # shards in the data set
    shards_skipped: int  # already on disk
    shards_written: int = 0
    games_played: int = 0
    games_dropped: int = 0
    positions: int = 0
    seconds: float = 0.0
    written: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def run_selfplay(
    config: SelfPlayConfig,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool = False,
    record_dir: str | os.PathLike | None = None,
) -> SelfPlaySummary:
    """Play the games of every shard of ``config`` not yet in ``out`` and write them; with
    ``record_dir``, each game played also as a game record there (``record_name``; the
    games of shards already written are not played again, so not recorded again).

    Games run in-process (``workers=1``), in a pool of ``workers`` forked processes
    (default: every core), or as Ray tasks with ``ray_address`` (``"local"`` starts a
    private local Ray instance with ``workers`` CPUs; ``"auto"`` or ``host:port`` joins a
    running cluster). The data do not depend on how the games were run.
    """
    config.validate()
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    manifest = _open_manifest(directory, config)
    for stale in directory.glob(".shard-*.tmp-*"):
        stale.unlink()  # a shard whose writer was killed mid-write
    pending: list[int] = []
    for k in range(config.n_shards):
        name = shard_name(k)
        if (directory / name).exists():
            if name not in manifest["shards"]:  # written, then stopped before the manifest
                manifest["shards"][name] = _shard_summary(read_shard(directory / name))
        else:
            pending.append(k)
    _write_manifest(directory, manifest)
    summary = SelfPlaySummary(config.n_shards, config.n_shards - len(pending))
    records = None if record_dir is None else Path(record_dir)
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    jobs = [
        (config.to_dict(), i, records is not None) for k in pending for i in config.shard_games(k)
    ]
    waiting: dict[int, list[dict]] = {k: [] for k in pending}
    start = time.perf_counter()

    with progress_bar(config.games, config.games - len(jobs), "selfplay", progress) as bar:

        def record(game: dict) -> None:
            if records is not None:  # written here: a Ray task's disk is not this one's
                path = records / record_name(game["game_id"])
                text = game.pop("game_record") + "\n"
                _write_atomic(path, lambda f: f.write(text.encode()))
            k = game["game_id"] // config.shard_size
            waiting[k].append(game)
            summary.games_played += 1
            summary.games_dropped += game["dropped"]
            if bar is not None:
                bar.update(1)
                if summary.games_dropped:
                    bar.set_postfix(dropped=summary.games_dropped, refresh=False)
            if len(waiting[k]) == len(config.shard_games(k)):
                arrays = build_shard(config, k, waiting.pop(k))
                name = shard_name(k)
                write_shard(directory / name, arrays)
                manifest["shards"][name] = _shard_summary(arrays)
                _write_manifest(directory, manifest)
                summary.shards_written += 1
                summary.positions += len(arrays["game"])
                summary.written.append(name)

        try:
            run_jobs(_play_job, jobs, record, workers, ray_address)
        finally:
            summary.seconds = time.perf_counter() - start
    return summary


def parse_players(text: str) -> tuple[int, ...]:
    """``"3"`` or ``"2,3,4"`` (cycled by game)."""
    try:
        players = tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise ValueError(f"players: expected N or a list like 2,3,4, got {text!r}") from None
    if not players:
        raise ValueError("players: give at least one player count")
    return players
