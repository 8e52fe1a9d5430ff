"""What the generic tests of tests/games/ share: the registered games as pytest parameters
and seeded random play of any of them.

Every test here is parametrized over ``council.engine.games.all_games()``, so a game that
registers itself is tested by all of them with no edit here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from council.engine.games import Game, all_games

GAMES = all_games()
# One parameter per game: the tests that play one seat count of each.
EVERY_GAME = [pytest.param(game, id=game.name) for game in GAMES]
# One parameter per game and seat count.
EVERY_SEAT_COUNT = [
    pytest.param(game, players, id=f"{game.name}-{players}p")
    for game in GAMES
    for players in game.players
]
SEEDS = (1, 2, 3)  # the seeded random games played at each seat count
MAX_ACTIONS = 20_000  # a hang guard: the longest random games take a few thousand actions


def random_play(game: Game, players: int, seed: int) -> Iterator[Any]:
    """Play one seeded random game: yield the position before every action, then the final
    one. The position is the one object, played on after each yield: copy what you keep."""
    state = game.new_game(game.config_class(players=players), seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        yield state
        assert state.action_count < MAX_ACTIONS, (
            f"{game.name}: a {players}-seat random game (seed {seed}) runs past "
            f"{MAX_ACTIONS} actions"
        )
        state.apply(rng.choice(state.legal_actions()))
    yield state


def every_position(game: Game, players: int) -> Iterator[Any]:
    """The positions of the seeded random games of a seat count (SEEDS), ends included."""
    for seed in SEEDS:
        yield from random_play(game, players, seed)
