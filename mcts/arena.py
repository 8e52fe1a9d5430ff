"""Seeded matches between agents with seat rotation, and their statistics.

A *lineup* names one agent per seat. Each deal (a game seed) is played once per rotation
of the lineup, so every agent plays every seat on the same deals and seat luck cancels.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

from council.engine import GameConfig, State
from council.mcts.agents import agent_label


@dataclass(frozen=True)
class GameRecord:
    seed: int
    rotation: int
    seats: tuple[str, ...]  # agent label per seat
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    actions: int
    turns: int


def play_game(agents: Sequence, config: GameConfig, seed: int, max_actions: int = 20_000):
    """Play one game; each agent sees only its seat's view unless it is a cheating yardstick.

    Returns (final state, number of actions). ``max_actions`` guards against an agent
    that never ends its turn; reaching it raises RuntimeError.
    """
    state = State.new_game(config, seed=seed)
    actions = 0
    while not state.is_terminal():
        seat = state.current_player
        agent = agents[seat]
        observed = state.clone() if agent.sees_true_state else state.view(seat)
        action = agent.act(observed, seed=(seed * 7919 + actions) & 0xFFFFFFFF)
        state.apply(action)
        actions += 1
        if actions >= max_actions:
            raise RuntimeError(f"game with seed {seed} passed {max_actions} actions")
    return state, actions


def _play(job) -> GameRecord:
    lineup, config, seed, rotation = job
    seats = [lineup[(s + rotation) % len(lineup)] for s in range(len(lineup))]
    state, actions = play_game(seats, config, seed)
    return GameRecord(
        seed=seed,
        rotation=rotation,
        seats=tuple(agent_label(a) for a in seats),
        scores=tuple(state.scores()),
        winners=tuple(state.winners()),
        actions=actions,
        turns=state.turn,
    )


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (shared wins count fractionally)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class AgentStats:
    seats_played: int = 0
    wins: float = 0.0  # a shared win of k players counts 1/k
    vp_total: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats_played if self.seats_played else 0.0

    def to_dict(self) -> dict:
        low, high = wilson_interval(self.wins, self.seats_played)
        return {
            "seats_played": self.seats_played,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "win_rate_95ci": [round(low, 4), round(high, 4)],
            "mean_vp": round(self.vp_total / self.seats_played, 2) if self.seats_played else 0,
        }


@dataclass
class ArenaReport:
    players: int
    games: int = 0
    total_actions: int = 0
    total_turns: int = 0
    agents: dict[str, AgentStats] = field(default_factory=lambda: defaultdict(AgentStats))
    records: list[GameRecord] = field(default_factory=list)

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.total_actions += record.actions
        self.total_turns += record.turns
        self.records.append(record)
        for seat, label in enumerate(record.seats):
            stats = self.agents[label]
            stats.seats_played += 1
            stats.vp_total += record.scores[seat]
            if seat in record.winners:
                stats.wins += 1 / len(record.winners)

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "games": self.games,
            "mean_game_length_actions": round(self.total_actions / max(1, self.games), 1),
            "mean_game_length_turns": round(self.total_turns / max(1, self.games), 1),
            "agents": {label: s.to_dict() for label, s in sorted(self.agents.items())},
        }

    def to_text(self) -> str:
        d = self.to_dict()
        lines = [
            f"{d['games']} games, {self.players} players, "
            f"mean length {d['mean_game_length_actions']} actions / "
            f"{d['mean_game_length_turns']} turns",
            f"{'agent':40s} {'seats':>6s} {'win rate':>9s} {'95% CI':>15s} {'mean VP':>8s}",
        ]
        for label, s in d["agents"].items():
            low, high = s["win_rate_95ci"]
            lines.append(
                f"{label:40s} {s['seats_played']:6d} {s['win_rate']:9.3f} "
                f"{f'[{low:.3f}, {high:.3f}]':>15s} {s['mean_vp']:8.2f}"
            )
        return "\n".join(lines)


def run_arena(
    lineup: Sequence,
    deals: int,
    seed: int = 0,
    config: GameConfig | None = None,
    workers: int | None = None,
    progress: bool = False,
) -> ArenaReport:
    """Play ``deals`` seeded deals, each once per rotation of ``lineup`` (one agent per seat).

    ``config.players`` defaults to the lineup's length. Games run in ``workers``
    processes (default: every core).
    """
    players = len(lineup)
    config = config or GameConfig(players=players)
    if config.players != players:
        raise ValueError(f"lineup has {players} agents but the game has {config.players} seats")
    config.validate()
    jobs = [(tuple(lineup), config, seed + d, r) for d in range(deals) for r in range(players)]
    report = ArenaReport(players=players)
    bar = _progress_bar(len(jobs)) if progress else None
    workers = workers or multiprocessing.cpu_count()
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
