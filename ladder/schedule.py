"""The ladder's schedule: every game it will play, fixed by its settings alone.

Round robin over tables: every combination of ``table_size`` entrants (in the order they
were entered) sits at one table. Each table plays ``deals`` seeded deals, and each deal
once per rotation of the seats (duplicate deals: the same cards, every entrant in every
seat), so the luck of the deal and of the seat order cancels. Deal ``d`` has the same
seed at every table.

A game's id names its table (entrant indices), deal and rotation, e.g. ``0-2/d3/r1``; it
depends only on (entrants, table size, deals, seed), so a ladder that stopped resumes by
playing the scheduled ids not yet stored. Appending entrants or raising ``deals`` only adds
ids. Games are ordered deal by deal (every table plays deal 0, then deal 1...), so a
ladder stopped half-way has met every pairing about equally often.

>>> games = schedule(4, table_size=2, deals=3, seed=7)
>>> len(games), games[0].id, games[1].id, games[0].seats, games[1].seats
(36, '0-1/d0/r0', '0-1/d0/r1', (0, 1), (1, 0))
>>> games[0].deal_seed == games[2].deal_seed == deal_seed(7, 0)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from council.ladder.games import DEFAULT_GAME, check_table_size

__all__ = ["ScheduledGame", "deal_seed", "game_count", "schedule"]

_MASK64 = (1 << 64) - 1


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of deal ``deal`` of a ladder seeded ``seed`` (splitmix64, 63 bits)."""
    z = (seed * 0x9E3779B97F4A7C15 + (deal + 1) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) >> 1


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # position in the schedule (the order ratings are computed in)
    id: str
    table: tuple[int, ...]  # entrant indices at the table, increasing
    deal: int
    rotation: int
    deal_seed: int
    seats: tuple[int, ...]  # entrant index per seat (seat 0 moves first)


def game_id(table: tuple[int, ...], deal: int, rotation: int) -> str:
    return f"{'-'.join(map(str, table))}/d{deal}/r{rotation}"


def schedule(
    entrants: int, table_size: int, deals: int, seed: int, game: str = DEFAULT_GAME
) -> list[ScheduledGame]:
    """Every game of a ladder of ``entrants`` entrants, in playing order; ``game`` sets the
    table sizes allowed (its seat counts)."""
    check_table_size(game, table_size)
    if entrants < table_size:
        raise ValueError(f"a table of {table_size} needs at least {table_size} entrants")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    tables = list(combinations(range(entrants), table_size))
    games: list[ScheduledGame] = []
    for deal in range(deals):
        game_seed = deal_seed(seed, deal)
        for table in tables:
            for rotation in range(table_size):
                seats = tuple(table[(s + rotation) % table_size] for s in range(table_size))
                games.append(
                    ScheduledGame(
                        index=len(games),
                        id=game_id(table, deal, rotation),
                        table=table,
                        deal=deal,
                        rotation=rotation,
                        deal_seed=game_seed,
                        seats=seats,
                    )
                )
    return games


def game_count(entrants: int, table_size: int, deals: int) -> int:
    """The number of scheduled games: C(entrants, table_size) x deals x table_size."""
    from math import comb

    return comb(entrants, table_size) * deals * table_size
