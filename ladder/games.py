"""The games a ladder plays: every registered game (``council.engine.games``), by the names
``--game`` takes, and what the ladder needs to know of each: its table sizes (its seat
counts), its default table size (the one its agents are compared at, ``council.mcts.games``)
and the configuration its games start from.

>>> [game_config(game, default_table_size(game)).players for game in GAMES[:2]]
[2, 4]
>>> game_config(DEFAULT_GAME, 3).layout
'ABA'
>>> game_config(DEFAULT_GAME, 5)
Traceback (most recent call last):
...
ValueError: table size must be 2, 3 or 4 for ..., got 5
"""

from __future__ import annotations

import dataclasses
from typing import Any

from council.engine.games import DEFAULT_GAME, all_games, game_named
from council.mcts.games import search_game

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "check_game",
    "check_table_size",
    "default_table_size",
    "game_config",
    "game_layout",
    "table_sizes",
]

# Every ladder before a second game was registered played the default game: a file that
# names no game holds it.
GAMES = tuple(g.name for g in all_games())


def check_game(game: str) -> str:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    return game


def table_sizes(game: str) -> tuple[int, ...]:
    """The table sizes of a game: its seat counts."""
    return game_named(check_game(game)).players


def default_table_size(game: str) -> int:
    """The table size of a ladder that names none: the one the game's agents are compared at
    (the default game's ladders have always been head to head)."""
    return search_game(check_game(game)).table_size


def check_table_size(game: str, table_size: int) -> int:
    """``table_size`` if the game seats that many, else a ValueError naming the sizes."""
    sizes = table_sizes(game)
    if table_size not in sizes:
        listed = ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]}"
        raise ValueError(f"table size must be {listed} for {game}, got {table_size}")
    return table_size


def _has_layout(game: str) -> bool:
    return any(f.name == "layout" for f in dataclasses.fields(game_named(game).config_class))


def game_layout(game: str, layout: str | None) -> str | None:
    """The layout a ladder of ``game`` records: a board game's board sides (its config's
    default when none is given); None for a game without a board layout (a layout given for
    it is refused)."""
    if not _has_layout(check_game(game)):
        if layout is not None:
            name = game_named(game).display_name
            raise ValueError(f"layout: {name} has no board layout, got {layout!r}")
        return None
    return layout or game_named(game).config_class().layout


def game_config(game: str, table_size: int, layout: str | None = None) -> Any:
    """The validated configuration every game of a ladder starts from."""
    check_table_size(game, table_size)
    layout = game_layout(game, layout)
    extra = {} if layout is None else {"layout": layout}
    return game_named(game).config_class(players=table_size, **extra).validate()
