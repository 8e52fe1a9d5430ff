"""Seeded matches between agents with seat rotation, and their statistics.

A *lineup* names one agent per seat. Each deal (a game seed) is played once per rotation
of the lineup, so every agent plays every seat on the same deals and seat luck cancels.

Games have a length cap: one still running when its turn ``max_turns`` begins (the turn
counter counts every seat's turns), or after ``max_actions`` actions, is adjudicated
(``Position.adjudicated()``: final scoring as if it ended there) instead of played on, so a
stalling agent cannot hang a match. Adjudicated games count like the others and are
flagged in the records and counted in the report.

>>> from council.mcts.agents import GreedyAgent, RandomAgent
>>> report = run_arena([GreedyAgent(), RandomAgent()], deals=2, seed=1, workers=1)
>>> report.games, sorted(report.agents)
(4, ['greedy', 'random'])
"""

from __future__ import annotations

import math
import multiprocessing
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from council.engine import Position
from council.engine.games import GameSettings, default_game, game_of
from council.engine.record import RecordedPlayer, record_of, record_to_json
from council.mcts.agents import agent_label

MAX_TURNS = 300  # every seat's turns together; real games end far sooner
MAX_ACTIONS = 20_000  # also stops an agent that never ends its turn


@dataclass(frozen=True)
class GameRecord:
    seed: int
    rotation: int
    seats: tuple[str, ...]  # agent label per seat
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    actions: int
    turns: int
    adjudicated: bool = False  # stopped at the length cap and scored as it stood


def cap_reason(state: Position, actions: int, max_turns: int, max_actions: int) -> str | None:
    """Why an unfinished game stops here to be adjudicated, or None if it plays on."""
    if state.turn >= max_turns:
        return f"turn {state.turn} reached the cap of {max_turns} turns"
    if actions >= max_actions:
        return f"{actions} actions reached the cap of {max_actions} actions"
    return None


def play_game(
    agents: Sequence,
    config: GameSettings,
    seed: int,
    max_actions: int = MAX_ACTIONS,
    max_turns: int = MAX_TURNS,
):
    """Play one game; each agent sees only its seat's view unless it is a cheating yardstick.

    Returns (final state, number of actions). A game still running when turn ``max_turns``
    begins, or after ``max_actions`` actions, is adjudicated there: the state returned is
    ``Position.adjudicated()`` of the position reached (``play_capped`` also says whether).
    """
    state, actions, _ = play_capped(agents, config, seed, max_actions, max_turns)
    return state, actions


def play_capped(
    agents: Sequence,
    config: GameSettings,
    seed: int,
    max_actions: int = MAX_ACTIONS,
    max_turns: int = MAX_TURNS,
    played: list[int] | None = None,
) -> tuple[Position, int, bool]:
    """``play_game``, returning (final state, number of actions, adjudicated); each action
    taken is appended to ``played`` if given (a game record's moves)."""
    state = config.new_game(seed)
    actions = 0
    while not state.is_terminal():
        if cap_reason(state, actions, max_turns, max_actions) is not None:
            return state.adjudicated(), actions, True
        seat = state.current_player
        agent = agents[seat]
        observed = state.clone() if agent.sees_true_state else state.view(seat)
        action = agent.act(observed, seed=(seed * 7919 + actions) & 0xFFFFFFFF)
        state.apply(action)
        if played is not None:
            played.append(action)
        actions += 1
    return state, actions, False


def _play(job) -> GameRecord:
    lineup, config, seed, rotation, max_turns, recording = job
    seats = [lineup[(s + rotation) % len(lineup)] for s in range(len(lineup))]
    played: list[int] | None = None if recording is None else []
    state, actions, adjudicated = play_capped(
        seats, config, seed, max_turns=max_turns, played=played
    )
    if recording is not None and played is not None:
        directory, specs = recording
        game = game_of(config)
        seat_specs = [specs[(s + rotation) % len(specs)] for s in range(len(specs))]
        players = [
            RecordedPlayer(agent_label(a), spec) for a, spec in zip(seats, seat_specs, strict=True)
        ]
        record = record_of(config.new_game(seed), played, players, adjudicated=adjudicated)
        path = Path(directory) / f"{game.name}-{seed}-{rotation}.json"
        path.write_text(record_to_json(record) + "\n", encoding="utf-8")
    return GameRecord(
        seed=seed,
        rotation=rotation,
        seats=tuple(agent_label(a) for a in seats),
        scores=tuple(state.scores()),
        winners=tuple(state.winners()),
        actions=actions,
        turns=state.turn,
        adjudicated=adjudicated,
    )


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (shared wins count fractionally)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def ranks_of(scores: Sequence[int], winners: Sequence[int]) -> tuple[int, ...]:
    """Place per seat (1 = first): the winners share first place (the engine's tie-break
    already chose them); the others follow by VP, equal VP sharing a place.

    >>> ranks_of([50, 70, 70, 20], [1])
    (3, 1, 2, 4)
    """
    keys = [(seat in winners, score) for seat, score in enumerate(scores)]
    return tuple(1 + sum(other > key for other in keys) for key in keys)


def mean_interval(total: float, squares: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% normal interval of a mean from the sum and the sum of squares of n values."""
    if n < 2:
        return (0.0, 1.0)
    mean = total / n
    var = max(0.0, (squares - n * mean * mean) / (n - 1))
    half = z * math.sqrt(var / n)
    return (max(0.0, mean - half), min(1.0, mean + half))


@dataclass
class AgentStats:
    seats_played: int = 0
    wins: float = 0.0  # a shared win of k players counts 1/k
    vp_total: int = 0
    # Per seat played: the share of the other agents' seats it finished ahead of (what
    # "beats" means with more than two players, where a fair win rate is 1/players).
    beats_total: float = 0.0
    beats_squares: float = 0.0
    beats_n: int = 0
    # An agent holding several seats of a game plays as a team: its wins over the games it
    # sat in are the games one of its seats won (the team reading of "beats", fair share
    # seats / players).
    games_played: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats_played if self.seats_played else 0.0

    def to_dict(self) -> dict:
        low, high = wilson_interval(self.wins, self.seats_played)
        out = {
            "seats_played": self.seats_played,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "win_rate_95ci": [round(low, 4), round(high, 4)],
            "mean_vp": round(self.vp_total / self.seats_played, 2) if self.seats_played else 0,
        }
        if self.beats_n:
            low, high = mean_interval(self.beats_total, self.beats_squares, self.beats_n)
            out["beats_others"] = round(self.beats_total / self.beats_n, 4)
            out["beats_others_95ci"] = [round(low, 4), round(high, 4)]
        if self.seats_played > self.games_played:
            low, high = wilson_interval(self.wins, self.games_played)
            out["games_won"] = round(self.wins / self.games_played, 4)
            out["games_won_95ci"] = [round(low, 4), round(high, 4)]
        return out


@dataclass
class ArenaReport:
    players: int
    games: int = 0
    total_actions: int = 0
    total_turns: int = 0
    adjudicated: int = 0  # games stopped at the length cap and scored as they stood
    agents: dict[str, AgentStats] = field(default_factory=lambda: defaultdict(AgentStats))
    records: list[GameRecord] = field(default_factory=list)

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.total_actions += record.actions
        self.total_turns += record.turns
        self.adjudicated += record.adjudicated
        self.records.append(record)
        ranks = ranks_of(record.scores, record.winners)
        for label in set(record.seats):
            self.agents[label].games_played += 1
        for seat, label in enumerate(record.seats):
            stats = self.agents[label]
            stats.seats_played += 1
            stats.vp_total += record.scores[seat]
            if seat in record.winners:
                stats.wins += 1 / len(record.winners)
            others = [o for o, other in enumerate(record.seats) if other != label]
            if others:
                # Ahead of another seat (a better place, ranks_of): 1; level: 1/2.
                mine = ranks[seat]
                ahead = [(ranks[o] > mine) + 0.5 * (ranks[o] == mine) for o in others]
                share = sum(ahead) / len(others)
                stats.beats_total += share
                stats.beats_squares += share * share
                stats.beats_n += 1

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "games": self.games,
            "mean_game_length_actions": round(self.total_actions / max(1, self.games), 1),
            "mean_game_length_turns": round(self.total_turns / max(1, self.games), 1),
            "adjudicated": self.adjudicated,
            "agents": {label: s.to_dict() for label, s in sorted(self.agents.items())},
        }

    def to_text(self) -> str:
        d = self.to_dict()
        lines = [
            f"{d['games']} games, {self.players} players, "
            f"mean length {d['mean_game_length_actions']} actions / "
            f"{d['mean_game_length_turns']} turns, "
            f"{d['adjudicated']} adjudicated at the length cap",
            f"{'agent':40s} {'seats':>6s} {'win rate':>9s} {'95% CI':>15s} {'mean VP':>8s}"
            f" {'beats others':>12s}",
        ]
        for label, s in d["agents"].items():
            low, high = s["win_rate_95ci"]
            lines.append(
                f"{label:40s} {s['seats_played']:6d} {s['win_rate']:9.3f} "
                f"{f'[{low:.3f}, {high:.3f}]':>15s} {s['mean_vp']:8.2f}"
                f" {s.get('beats_others', float('nan')):12.3f}"
            )
            if "games_won" in s:
                low, high = s["games_won_95ci"]
                lines[-1] += f"  games won {s['games_won']:.3f} [{low:.3f}, {high:.3f}]"
        return "\n".join(lines)


def run_arena(
    lineup: Sequence,
    deals: int,
    seed: int = 0,
    config: GameSettings | None = None,
    workers: int | None = None,
    progress: bool = False,
    max_turns: int = MAX_TURNS,
    record_dir: str | Path | None = None,
    specs: Sequence[str] | None = None,
) -> ArenaReport:
    """Play ``deals`` seeded deals, each once per rotation of ``lineup`` (one agent per seat).

    ``config`` is a configuration of any registered game (default: the default game's
    with the lineup's length as ``players``). Games run in ``workers``
    processes (default: every core). A game still running when turn ``max_turns`` begins
    is adjudicated there (``play_game``). With ``record_dir``, each game's record
    (``council.engine.record``) is written there as ``<game>-<deal seed>-<rotation>.json``,
    its players named by ``specs`` (the lineup's agent specs; default their labels).
    """
    players = len(lineup)
    config = config or default_game().config_class(players=players)
    if config.players != players:
        raise ValueError(f"lineup has {players} agents but the game has {config.players} seats")
    config.validate()
    recording = None
    if record_dir is not None:
        Path(record_dir).mkdir(parents=True, exist_ok=True)
        recording = (str(record_dir), tuple(specs or (agent_label(a) for a in lineup)))
    jobs = [
        (tuple(lineup), config, seed + d, r, max_turns, recording)
        for d in range(deals)
        for r in range(players)
    ]
    report = ArenaReport(players=players)
    bar = _progress_bar(len(jobs)) if progress else None
    workers = workers or multiprocessing.cpu_count()
    results: Iterator[GameRecord]
    if workers <= 1:
        results = map(_play, jobs)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(workers)
        results = pool.imap_unordered(_play, jobs)
    try:
        for record in results:
            report.add(record)
            if bar is not None:
                bar.update(1)
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    report.records.sort(key=lambda r: (r.seed, r.rotation))
    return report


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True)
