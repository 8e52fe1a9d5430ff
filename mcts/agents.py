"""Agents that pick an action for the seat to move: the IS-MCTS bot and its baselines.

Every agent but ``CheatingMCTS`` is handed the seat's *view* only. Agents are small
frozen dataclasses, so they pickle into worker processes and print as their settings.

>>> from council.engine.games import default_game
>>> game = default_game()
>>> state = game.new_game(game.config_class(players=2), seed=5)
>>> action = GreedyAgent().act(state.view(0), seed=1)
>>> action in state.legal_actions()
True
>>> parse_agent("ismcts:iterations=500,c_uct=0.5")
ISMCTSAgent(iterations=500, time_s=None, threads=1, settings=(('c_uct', 0.5),))
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import Field, dataclass, fields, replace
from functools import cached_property
from typing import Any, ClassVar, Protocol

from council.engine.games import DEFAULT_GAME
from council.engine.position import Position
from council.mcts import _search
from council.mcts.council_of_four_settings import STRONG_V3_CONFIG, V1_CONFIG
from council.mcts.features import FEATURE_NAMES, expert_choice
from council.mcts.search import (
    SEARCH_SETTING_TYPES,
    SearchConfig,
    SearchLimits,
    SearchResult,
    config_for,
    default_config,
    game_config,
    search,
    search_full_state,
)


def _own_legal_actions(view: Position, seed: int) -> tuple[Position, list[int]]:
    """A determinization of the view and the seat's legal actions in it.

    The legal actions of the seat to move depend only on what that seat knows (its own
    hand and public facts), so any determinization gives the same list.
    """
    world = view.determinize(seed)
    return world, world.legal_actions()


# The ``key=value`` settings a search agent takes besides its fields (parse_agent), by type
# name: the search's own, and those of its game's settings type (GameSettings).
SEARCH_SETTINGS: dict[str, str] = SEARCH_SETTING_TYPES


class Agent(Protocol):
    """What the arena, self-play and the ladder use of an agent: a (frozen) dataclass whose
    ``act`` picks an action for the seat to move from its view (the true state if
    ``sees_true_state``). The view is a position of the agent's game (typed Any, as an
    agent of one game takes only its own)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    sees_true_state: ClassVar[bool]

    def act(self, view: Any, seed: int, /) -> int: ...


@dataclass(frozen=True)
class RandomAgent:
    """Uniformly random legal actions."""

    sees_true_state: ClassVar[bool] = False

    def act(self, view: Position, seed: int) -> int:
        _, actions = _own_legal_actions(view, seed)
        return random.Random(seed).choice(actions)


@dataclass(frozen=True)
class GreedyAgent:
    """One ply: the action whose resulting position the evaluation likes best.

    A choice that opens a follow-up decision of the same seat (acquire then pay, a bonus
    choice) is valued by its best follow-up, so the ply covers the whole decision.
    """

    sees_true_state: ClassVar[bool] = False

    def act(self, view: Position, seed: int) -> int:
        world, actions = _own_legal_actions(view, seed)
        params = default_config(view).params()
        return max(
            actions, key=lambda a: self._value(world.child(a), view.current_player, params, seed)
        )

    def _value(self, state: Position, seat: int, params: dict, seed: int) -> tuple:
        if state.current_player == seat and state.decision_name != "turn":
            return max(
                self._value(state.child(a), seat, params, seed) for a in state.legal_actions()
            )
        state.reseed(seed)
        win, margin = _search.evaluate_state(state, params)
        return (win[seat], margin[seat])


@dataclass(frozen=True)
class ISMCTSAgent:
    """Information Set MCTS from the seat's view (the product's bot)."""

    iterations: int | None = 2000
    time_s: float | None = None
    threads: int = 1
    # SearchConfig overrides (the search's own or its game's) as sorted (name, value) pairs
    settings: tuple = ()

    sees_true_state: ClassVar[bool] = False
    setting_types: ClassVar[dict[str, str]] = SEARCH_SETTINGS
    base_config: ClassVar[SearchConfig | None] = None  # None: its game's defaults

    def act(self, view: Position, seed: int) -> int:
        return self.analyse(view, seed).action

    def analyse(self, view: Position, seed: int) -> SearchResult:
        """The whole search result behind ``act`` (root visits and values, for self-play)."""
        limits = SearchLimits(iterations=self.iterations, time_s=self.time_s, threads=self.threads)
        return search(view, limits, _config(self.settings, self.base_config, view), seed=seed)


@dataclass(frozen=True)
class ISMCTSv1Agent(ISMCTSAgent):
    """Version 0.1's IS-MCTS, frozen (``V1_CONFIG``): the baseline of every strength figure."""

    base_config: ClassVar[SearchConfig | None] = V1_CONFIG


# Each game's strong preset as it played before mixed play and beliefs (issue #36): its
# search settings and iterations, by game name (each game's agents module adds its own).
STRONG_V3: dict[str, tuple[SearchConfig, int]] = {"council-of-four": (STRONG_V3_CONFIG, 5000)}


@dataclass(frozen=True)
class StrongV3Agent(ISMCTSAgent):
    """The strong preset's search before mixed play and beliefs (issue #36), frozen
    (``STRONG_V3``): the baseline of their strength matches. With neither ``iterations``
    nor ``time_s`` it searches its game's frozen budget (``strong-v3:time_s=0.05`` for
    equal time)."""

    iterations: int | None = None

    def analyse(self, view: Position, seed: int) -> SearchResult:
        from council.engine.games import game_of

        config, budget = STRONG_V3[game_of(view).name]
        iterations = budget if self.iterations is None and self.time_s is None else self.iterations
        limits = SearchLimits(iterations=iterations, time_s=self.time_s, threads=self.threads)
        return search(view, limits, _config(self.settings, config, view), seed=seed)


@dataclass(frozen=True)
class PIMCAgent:
    """Perfect-information Monte Carlo: UCT in each of `worlds` sampled determinizations,
    the budget split evenly; the action with the most visits over all worlds wins."""

    worlds: int = 8
    iterations: int | None = 2000
    time_s: float | None = None
    settings: tuple = ()

    sees_true_state: ClassVar[bool] = False
    setting_types: ClassVar[dict[str, str]] = SEARCH_SETTINGS

    def act(self, view: Position, seed: int) -> int:
        votes: Counter[int] = Counter()
        config = _config(self.settings, None, view)
        per_world = SearchLimits(
            iterations=None if self.iterations is None else max(1, self.iterations // self.worlds),
            time_s=None if self.time_s is None else self.time_s / self.worlds,
        )
        for w in range(self.worlds):
            world = view.determinize(seed * 1000003 + w)
            result = search_full_state(world, per_world, config, seed=seed + w)
            for c in result.candidates:
                votes[c.action] += c.visits
        return max(sorted(votes), key=lambda a: votes[a])


@dataclass(frozen=True)
class CheatingMCTS:
    """UCT on the true state, hidden cards included: a yardstick for the price of hidden
    information. Only the arena can seat it; the service never hands out a true state."""

    iterations: int | None = 2000
    time_s: float | None = None
    settings: tuple = ()

    sees_true_state: ClassVar[bool] = True
    setting_types: ClassVar[dict[str, str]] = SEARCH_SETTINGS

    def act(self, state: Position, seed: int) -> int:
        limits = SearchLimits(iterations=self.iterations, time_s=self.time_s)
        config = _config(self.settings, None, state)
        return search_full_state(state, limits, config, seed=seed).action


# The expert's weights (VP-equivalents per unit of each feature; FEATURE_NAMES), set by
# hand, then refined by hill-climbing in expert-vs-expert matches (docs/learning.md).
EXPERT_WEIGHTS: dict[str, float] = {
    "vp": 0.0,
    "awards": 0.6,
    "coins": 0.56,
    "assistants": 0.9,
    "cards": 1.536,
    "emporia": 5.0,
    "permits_unused": 1.0,
    "nobility": 0.6,
    "permit_cities": 1.0,
    "permit_cities_affordable": 0.0,
    "group_progress": 0.0,
    "groups_one_short": 2.0,
    "token_reach": 1.2288,
    "region_councils_payable": 0.25,
    "king_council_payable": 0.5,
    "faceup_affordable": 0.15,
    "king_reachable": 0.1,
    "council_matched": 0.3,
    "to_move": 0.0,
    "main_left_now": 2.0,
    "vp_x_prog": 0.5,
    "emporia_x_prog": 3.0,
    "permit_cities_x_prog": -1.5,
    "coins_x_prog": -0.2,
    "cards_x_prog": -0.3,
    "assistants_x_prog": -0.4,
    "group_progress_x_prog": 0.25,
    "nobility_x_prog": 0.0,
    "permits_unused_x_prog": -0.5,
    "emporia_lead_x_prog": 2.0,
    "vp_x_ending": 3.0,
    "emporia_x_ending": 0.0,
}


@dataclass(frozen=True)
class ExpertAgent:
    """A hand-written planner: every legal action (with the seat's own follow-up decisions
    at their best) is valued by hand-set weights over the position features of
    ``council.mcts.features`` (the race to the 10th emporium, bonus races, open cities,
    linked tokens, council fit...), relative to the best opponent. The sparring partner and
    the teacher of the learned models; about a millisecond a decision."""

    settings: tuple = ()  # weight overrides as sorted (feature name, value) pairs

    sees_true_state: ClassVar[bool] = False
    setting_types: ClassVar[dict[str, str]] = {name: "float" for name in FEATURE_NAMES}

    @cached_property
    def weights(self) -> list[float]:
        """The weights in FEATURE_NAMES order: EXPERT_WEIGHTS with the overrides."""
        weights = EXPERT_WEIGHTS | dict(self.settings)
        return [weights[name] for name in FEATURE_NAMES]

    def act(self, view: Position, seed: int) -> int:
        return expert_choice(view.determinize(seed), self.weights)


# The default game's agents (its <module_name>_agents.py registers them); the search and the
# random player play every game, each game's own module names its table.
AGENTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
    "ismcts": ISMCTSAgent,
    "ismcts-v1": ISMCTSv1Agent,
    "strong-v3": StrongV3Agent,
    "pimc": PIMCAgent,
    "cheat": CheatingMCTS,
}


def _config(settings: tuple, base: SearchConfig | None, position) -> SearchConfig:
    """``base`` (None: the defaults of the game of `position`) with (name, value)
    overrides, the search's own or its game's."""
    return config_for(base, position).with_settings(dict(settings)).validate()


def parse_agent(spec: str, game: str = DEFAULT_GAME) -> Agent:
    """Build an agent of ``game`` (a registered game's name: ``council.mcts.games``) from
    ``name[:key=value,...]``,
    e.g. ``pimc:worlds=4,time_s=0.1``.

    Search agents also take the search's settings (``c_uct=0.5``, ``rollout_actions=20``...)
    and their game's own (``tree_payments=1``, ``kind_build_permit=6``... of the default
    game: its ``GameSettings`` type); an option the agent and its game lack is an error naming
    both. The expert takes feature weights (``emporia=6``).

    >>> parse_agent("ismcts:tree_payments=1", "kuhn-poker")
    Traceback (most recent call last):
    ...
    ValueError: ismcts: unknown option 'tree_payments=1' in kuhn-poker; options are [...]
    """
    from council.mcts.games import search_game  # it loads the games' agent modules

    agents = search_game(game).agents
    name, _, options = spec.strip().partition(":")
    if name not in agents:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(agents)}")
    cls = agents[name]
    types = {f.name: f.type for f in fields(cls) if f.name != "settings"}
    setting_types = getattr(cls, "setting_types", {})
    searches = setting_types is SEARCH_SETTINGS
    if searches:
        setting_types = SEARCH_SETTINGS | search_game(game).settings.setting_types()
    kwargs: dict[str, object] = {}
    settings: dict[str, object] = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if sep and key in types:
            if value.lower() == "none":
                kwargs[key] = None
            else:
                kwargs[key] = float(value) if "float" in str(types[key]) else int(value)
        elif sep and key in setting_types:
            kind = setting_types[key]
            settings[key] = (
                int(value) if kind == "int" else value if kind == "str" else float(value)
            )
        else:
            known = sorted(types) + sorted(setting_types)
            raise ValueError(f"{name}: unknown option {item!r} in {game}; options are {known}")
    if "time_s" in types and "time_s" in kwargs and "iterations" not in kwargs:
        kwargs["iterations"] = None  # a time budget alone replaces the default iterations
    if settings:
        if searches:
            base = game_config(getattr(cls, "base_config", None), game)
            base.with_settings(settings).validate()
        kwargs["settings"] = tuple(sorted(settings.items()))
    return replace(cls(), **kwargs)


def agent_label(agent: Agent) -> str:
    """Short stable label, e.g. ``ismcts(iterations=500)`` (non-default settings only)."""
    from council.mcts.games import all_search_games

    name = next(k for g in all_search_games() for k, v in g.agents.items() if type(agent) is v)
    default = type(agent)()
    changed = []
    for f in fields(agent):
        value = getattr(agent, f.name)
        if value == getattr(default, f.name):
            continue
        if f.name == "settings":
            changed += [f"{k}={v}" for k, v in value]
        else:
            changed.append(f"{f.name}={value}")
    return f"{name}({','.join(changed)})" if changed else name
