"""The games a ladder plays, by the names ``--game`` takes (``council.engine.config.GAME_CONFIGS``:
``council-of-four``, ``the-council``), and what the ladder needs to know of each: its table
sizes, its default table size and the configuration its games start from.

>>> game_config("the-council", 5)
TheCouncilConfig(players=5)
>>> game_config("council-of-four", 3).layout
'ABA'
>>> game_config("the-council", 2)
Traceback (most recent call last):
...
ValueError: table size must be 3, 4 or 5 for the-council, got 2
"""

from __future__ import annotations

from council.engine.board import DEFAULT_LAYOUT
from council.engine.config import DEFAULT_GAME, GAME_PLAYERS, GameConfig, TheCouncilConfig

__all__ = [
    "DEFAULT_GAME",
    "DEFAULT_TABLE_SIZE",
    "GAMES",
    "TABLE_SIZES",
    "check_game",
    "check_table_size",
    "game_config",
    "game_layout",
]

GAMES = tuple(GAME_PLAYERS)
# Every ladder before The Council played Council of Four (DEFAULT_GAME): a file that names no
# game holds it.
TABLE_SIZES = GAME_PLAYERS
# Council of Four's ladders have always been head to head by default; The Council is a game
# of 3-5 seats, measured at 4 (docs/the-council.md).
DEFAULT_TABLE_SIZE = {"council-of-four": 2, "the-council": 4}


def check_game(game: str) -> str:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    return game


def check_table_size(game: str, table_size: int) -> int:
    """``table_size`` if the game seats that many, else a ValueError naming the sizes."""
    sizes = TABLE_SIZES[check_game(game)]
    if table_size not in sizes:
        listed = ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]}"
        raise ValueError(f"table size must be {listed} for {game}, got {table_size}")
    return table_size


def game_layout(game: str, layout: str | None) -> str | None:
    """The layout a ladder of ``game`` records: Council of Four's board sides (default ABA);
    None for The Council, which has no board (a layout given for it is refused)."""
    if check_game(game) == "the-council":
        if layout is not None:
            raise ValueError(f"layout: The Council has no board layout, got {layout!r}")
        return None
    return layout or DEFAULT_LAYOUT


def game_config(
    game: str, table_size: int, layout: str | None = None
) -> GameConfig | TheCouncilConfig:
    """The validated configuration every game of a ladder starts from."""
    check_table_size(game, table_size)
    layout = game_layout(game, layout)
    if layout is None:
        return TheCouncilConfig(players=table_size).validate()
    return GameConfig(players=table_size, layout=layout).validate()
