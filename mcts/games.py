"""The search's part of each registered game (``council.engine.games``), by the same name:
its default search settings, the type of its own settings (``search.GameSettings``), its
agents and the table size its players are compared at.

Each game registers its part from its own module of this package, named after it
(``<Game.module_name>_agents.py``), loaded here in the engine registry's order on first use.

>>> from council.engine.games import all_games
>>> [sorted(search_game(g.name).agents)[:3] for g in all_games()[:2]]
[['cheat', 'expert', 'greedy'], ['cheat', 'expert', 'ismcts']]
>>> try:
...     search_game("chess")
... except ValueError as e:
...     print(str(e).split(";")[0])
unknown game 'chess'
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from council.engine.games import Game, all_games, game_named, game_of

if TYPE_CHECKING:
    from council.mcts.search import GameSettings, SearchConfig

__all__ = ["SearchGame", "all_search_games", "register_search", "search_config_of", "search_game"]


@dataclass(frozen=True)
class SearchGame:
    """A game's part in the search layer."""

    game: Game
    config: SearchConfig  # the search's defaults in this game (its settings filled in)
    settings: type[GameSettings]  # the type of its own settings (SearchConfig.game)
    agents: Mapping[str, Any]  # its agents by the names agent specs use (agents.Agent types)
    table_size: int  # the seats its agents are compared at by default (the ladder's tables)
    # The points lost (in the game's points_unit) at or above which a review gives each label
    # ("inaccuracy", "mistake", "blunder"), chosen from data (council.mcts.review's docstring).
    review_thresholds: Mapping[str, float]

    @property
    def name(self) -> str:
        return self.game.name


# A review's labels, from the smallest loss (council.mcts.review.LABELS with "" left out).
REVIEW_LABELS = ("inaccuracy", "mistake", "blunder")

_REGISTERED: dict[str, SearchGame] = {}
_loaded = False
_LOADING = threading.RLock()


def register_search(
    name: str,
    *,
    config: SearchConfig,
    settings: type[GameSettings],
    agents: Mapping[str, Any],
    table_size: int,
    review_thresholds: Mapping[str, float],
) -> SearchGame:
    """Register a game's search settings (its defaults and its own settings' type), agents
    and review thresholds (ValueError if the game is not a registered one, is registered here
    already, seats no `table_size`, `config` holds another game's settings, or its thresholds
    are not the three labels' in rising order)."""
    steps = [review_thresholds[label] for label in REVIEW_LABELS if label in review_thresholds]
    if set(review_thresholds) != set(REVIEW_LABELS) or not 0 < steps[0] < steps[1] < steps[2]:
        raise ValueError(
            f"{name}: review_thresholds must give {', '.join(REVIEW_LABELS)}, rising above 0"
        )
    game = game_named(name)
    if name in _REGISTERED:
        raise ValueError(f"{name}: its search settings are registered already")
    if table_size not in game.players:
        raise ValueError(f"{name}: table_size {table_size} is not one of {game.players}")
    if settings.game != name:
        raise ValueError(f"{name}: {settings.__name__} is {settings.game!r}'s settings type")
    config = config.for_game(settings).validate()
    _REGISTERED[name] = SearchGame(game, config, settings, agents, table_size, review_thresholds)
    return _REGISTERED[name]


def _load() -> None:
    """Import each game's module of this package that registers its part (once). Under a
    lock, and marked loaded only when done: a server's first searches of two games, in two
    threads, once found the mark set before the registrations (INTERNAL)."""
    global _loaded
    if _loaded:
        return
    with _LOADING:  # re-entrant: a module being imported may ask for its game's part
        if _loaded:
            return
        for game in all_games():
            module = f"{__package__}.{game.module_name}_agents"
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
        _loaded = True


def search_game(name: str) -> SearchGame:
    """The search's part of a game, by name (ValueError naming the games otherwise)."""
    _load()
    game_named(name)  # an unknown name: the engine's error
    try:
        return _REGISTERED[name]
    except KeyError:
        raise ValueError(f"{name}: no search settings or agents are registered") from None


def all_search_games() -> tuple[SearchGame, ...]:
    """The search's part of every game that registered one, in the engine's order."""
    _load()
    return tuple(_REGISTERED[g.name] for g in all_games() if g.name in _REGISTERED)


def search_config_of(position: Any) -> SearchConfig:
    """The search's defaults for the game of a position."""
    return search_game(game_of(position).name).config
