"""Strength presets: named search budgets a front-end can ask for instead of raw limits.

The single table of the service's strengths, weakest first. Iteration budgets keep a
preset's answers reproducible (same view and seed, same action) and independent of the
machine's speed; the RPC deadline and the server's ``max_search_time`` still cap them.
Each preset beats the one below it in each game (two-seat games head to head, four-seat
games one seat against three of the preset below; seats rotated, 200 games each,
``python bench/strength.py``); the figures are in docs/results.md.

A client builds the request's ``SearchLimits`` with ``search_limits``; the server turns them
into a budget with ``search_budget``, its own caps applied last:

    >>> from council.server.presets import PRESETS, search_budget, search_limits
    >>> [p.name for p in PRESETS]
    ['beginner', 'casual', 'strong']
    >>> search_budget(search_limits(), "casual", max_iterations=100_000, max_time_s=10.0)
    (300, 10.0)
    >>> limits = search_limits("strong", time_s=0.5)  # explicit limits only shorten a preset
    >>> search_budget(limits, "casual", max_iterations=1000, max_time_s=10.0)
    (1000, 0.5)

Each game has its own budgets, registered by the game's own module of this package
(``register_budgets`` in ``<game>_presets.py``; GetEngineInfo lists them in
``games[i].presets``), by the game's name (or its council.v1.Game value):

    >>> from council.engine.games import all_games
    >>> strong = search_limits("strong")
    >>> [search_budget(strong, "casual", max_iterations=100_000, max_time_s=10.0, game=g.name)
    ...  for g in all_games()[:2]]
    [(5000, 10.0), (10000, 10.0)]
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from dataclasses import dataclass, field
from typing import Any

from council.engine.games import all_games, game_named, game_of_proto
from council.mcts.search import game_config
from council.server.errors import invalid
from council.v1 import game_pb2 as pb

# A game: its name (council.engine.games), or its council.v1.Game value.
GameKey = str | int


@dataclass(frozen=True)
class Budget:
    """A preset's budget in one game: an iteration count, so that its answers are
    reproducible."""

    iterations: int
    timing: str  # about how long a move takes, e.g. "about 5 ms"
    ranking: str  # how it ranks against the expert and the other presets (no figures)
    # Search settings measured best at this budget (the search's own or its game's, as
    # SearchConfig.with_settings takes them), applied over the server's whenever the preset
    # sets the budget.
    settings: tuple[tuple[str, Any], ...] = ()

    @property
    def description(self) -> str:
        """What a player can expect of it (GetEngineInfo's PresetInfo.description)."""
        settings = "".join(f", {name}={value}" for name, value in self.settings)
        return f"{self.iterations} iterations{settings} ({self.timing}): {self.ranking}"


@dataclass(frozen=True)
class Preset:
    name: str
    value: pb.StrengthPreset
    # By game name: every registered game's (register_budgets).
    budgets: dict[str, Budget] = field(default_factory=dict)

    def budget(self, game: GameKey = 0) -> Budget:
        """The budget in `game`, a name or a council.v1.Game value (GAME_UNSPECIFIED, the
        default: the default game)."""
        name = game if isinstance(game, str) else game_of_proto(game).name
        return self.budgets[name]


# The measured figures (win rates between presets and against each game's expert) are in
# docs/results.md, from bench/strength.py; a ranking only says how the presets rank, so it
# cannot go stale.
PRESETS: tuple[Preset, ...] = (
    Preset("beginner", pb.STRENGTH_PRESET_BEGINNER),
    Preset("casual", pb.STRENGTH_PRESET_CASUAL),
    Preset("strong", pb.STRENGTH_PRESET_STRONG),
)

BY_NAME: dict[str, Preset] = {p.name: p for p in PRESETS}
BY_VALUE: dict[int, Preset] = {p.value: p for p in PRESETS}
DEFAULT_PRESET = "casual"


def register_budgets(game: str, budgets: dict[str, Budget]) -> None:
    """Register a game's budget for every preset, by preset name (ValueError if the game is
    not a registered one, has budgets already, a preset is missing or unknown, or a budget's
    search settings are not the game's)."""
    game_named(game)
    if set(budgets) != set(BY_NAME):
        raise ValueError(f"{game}: give a budget for each preset: {', '.join(BY_NAME)}")
    for name, budget in budgets.items():
        try:
            game_config(None, game).with_settings(dict(budget.settings)).validate()
        except ValueError as e:
            raise ValueError(f"{name} preset: {e}") from None
    if any(game in p.budgets for p in PRESETS):
        raise ValueError(f"{game}: its preset budgets are registered already")
    for name, budget in budgets.items():
        BY_NAME[name].budgets[game] = budget


def preset_value(name: str) -> pb.StrengthPreset:
    """The StrengthPreset enum value of a preset name (ValueError if unknown)."""
    try:
        return BY_NAME[name.lower()].value
    except KeyError:
        raise ValueError(
            f"unknown strength preset {name!r} (choose from {', '.join(BY_NAME)})"
        ) from None


def search_limits(
    preset: str | None = None, iterations: int | None = None, time_s: float | None = None
) -> pb.SearchLimits:
    """The SearchLimits message for a preset name and/or explicit limits (ValueError if the
    preset is unknown)."""
    limits = pb.SearchLimits()
    if preset:
        limits.preset = preset_value(preset)
    if iterations is not None:
        limits.iterations = iterations
    if time_s is not None:
        limits.max_time.FromNanoseconds(int(time_s * 1e9))
    return limits


def search_budget(
    limits: pb.SearchLimits,
    default_preset: str,
    *,
    max_iterations: int,
    max_time_s: float,
    game: GameKey = 0,
) -> tuple[int | None, float]:
    """The (iterations, seconds) a request's `limits` allow in `game`, capped by the server's
    limits.

    A preset gives the budget and explicit limits can only shorten it; with neither, the
    `default_preset` applies; explicit limits alone are used as given. No iteration limit is
    None; the time is always finite. INVALID_ARGUMENT (``RpcError``) names every bad field.
    """
    violations = []
    if limits.preset != pb.STRENGTH_PRESET_UNSPECIFIED and limits.preset not in BY_VALUE:
        violations.append(("limits.preset", f"unknown preset {limits.preset}"))
    preset = _deciding_preset(limits, default_preset)
    iterations = None if preset is None else preset.budget(game).iterations
    time_s: float | None = None
    if limits.HasField("iterations"):
        if limits.iterations < 1:
            violations.append(("limits.iterations", f"must be at least 1, got {limits.iterations}"))
        else:
            iterations = min(iterations or limits.iterations, limits.iterations)
    if limits.HasField("max_time"):
        d = limits.max_time
        t = d.seconds + d.nanos / 1e9
        if not (t > 0 and -1e9 < d.nanos < 1e9 and (d.seconds >= 0) == (d.nanos >= 0)):
            violations.append(("limits.max_time", "must be a positive duration"))
        else:
            time_s = t
    if violations:
        raise invalid(violations)
    if iterations is not None:
        iterations = min(iterations, max_iterations)
    return iterations, min(time_s if time_s is not None else math.inf, max_time_s)


def search_settings(
    limits: pb.SearchLimits, default_preset: str, game: GameKey = 0
) -> dict[str, Any]:
    """The search settings of the preset that sets the budget of `limits` in `game` (see
    ``search_budget``), as SearchConfig overrides; none when explicit limits alone decide.

    >>> search_settings(search_limits("strong"), "casual")
    {'fpu_reduction': 0.3}
    >>> search_settings(search_limits(iterations=5000), "casual")
    {}
    """
    preset = _deciding_preset(limits, default_preset)
    return {} if preset is None else dict(preset.budget(game).settings)


def _deciding_preset(limits: pb.SearchLimits, default_preset: str) -> Preset | None:
    """The preset named by `limits` (the default in place of an unknown one), else the
    default when no explicit limit is given; None when explicit limits alone decide."""
    if limits.preset != pb.STRENGTH_PRESET_UNSPECIFIED:
        return BY_VALUE.get(limits.preset, BY_NAME[default_preset])
    if limits.HasField("iterations") or limits.HasField("max_time"):
        return None
    return BY_NAME[default_preset]


# Each game's budgets, registered by its own module of this package, named after it
# (``Game.module_name``): loaded here, in the registry's order. A game without one has no
# budgets (tests/test_games.py names it).
def _load_budgets() -> None:
    for game in all_games():
        module = f"{__package__}.{game.module_name}_presets"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


_load_budgets()
