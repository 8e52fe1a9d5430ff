"""Information Set MCTS from one seat's view, with anytime budgets and root parallelism.

>>> from council.engine.games import default_game
>>> from council.mcts.search import SearchLimits, search
>>> game = default_game()
>>> state = game.new_game(game.config_class(players=2), seed=3)
>>> result = search(state.view(0), SearchLimits(iterations=200), seed=1)
>>> result.action in state.legal_actions(), result.iterations
(True, 200)
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from council.engine import Position
from council.mcts import _search
from council.mcts.value_model import DEFAULT_MODEL_PATH, ValueModel

# How the move is chosen from the root's candidates (SearchConfig.play).
PLAYS = ("most_visited", "sample")


@dataclass(frozen=True)
class GameSettings:
    """A game's own search settings (its evaluation's: weights, rollout policy, the decisions
    made off the tree), read by its compiled search module (``_<game>_search.SETTINGS``).

    Each game subclasses it as a frozen dataclass in its own files and registers the type
    with its game (``council.mcts.games.register_search(settings=...)``); a game with no
    settings of its own registers a subclass with no fields. ``game`` names the game in
    errors.
    """

    game: ClassVar[str] = ""

    @classmethod
    def setting_types(cls) -> dict[str, str]:
        """The ``key=value`` settings it takes (agent specs, presets), by type name."""
        return {f.name: str(f.type) for f in fields(cls)}

    def with_settings(self, settings: Mapping[str, Any]) -> GameSettings:
        """These settings with `settings` (name: value) changed; ValueError naming the game
        and the key for a key it does not have."""
        known = {f.name for f in fields(self)}
        for name in settings:
            if name not in known:
                raise self.unknown(name)
        return replace(self, **settings)

    def unknown(self, name: str) -> ValueError:
        """The error for a setting `name` that neither the search nor this game has."""
        return ValueError(
            f"{self.game}: unknown search setting {name!r}; its settings are "
            f"{sorted(SEARCH_SETTING_TYPES) + sorted(self.setting_types())}"
        )

    def validate(self) -> GameSettings:
        return self

    def changes_from(self, base: GameSettings) -> dict[str, Any]:
        """The settings that differ from `base`'s, by the names ``with_settings`` takes."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }

    def params(self) -> dict:
        """Every setting by name, as the game's compiled module reads them."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class SearchConfig:
    """How the search plays and evaluates: the search's own settings (selection,
    exploration, rollout length, the reward's mix, where iterations start, how the move is
    played: the compiled ``_search.SETTINGS``, and the model files, loaded here) and, in
    ``game``, its game's own (a ``GameSettings`` its game registered; ``None``: its game's
    defaults, filled in when a search starts). The defaults are the default game's, tuned by
    measured strength (the figures are in docs/results.md); each game registers its own
    (``council.mcts.games``).

    ``with_settings`` takes both kinds by name (presets, agents' ``key=value`` specs):

    >>> from council.mcts.games import search_game
    >>> config = search_game("the-council").config.with_settings({"c_uct": 0.5, "tree_secrets": 1})
    >>> config.c_uct, config.game.tree_secrets
    (0.5, 1)
    >>> search_game("kuhn-poker").config.with_settings({"tree_secrets": 1})
    Traceback (most recent call last):
    ...
    ValueError: kuhn-poker: unknown search setting 'tree_secrets'; its settings are [...]
    """

    evaluator: str = "learned"  # leaf win chances: "learned" or "heuristic" (version 0.1)
    value_model: str = ""  # the learned evaluator's model file; "" = the shipped one
    policy: str = "learned"  # selection: "learned" (PUCT with the prior) or "none" (UCB1)
    policy_model: str = ""  # the learned prior's model file; "" = the shipped one
    c_puct: float = 1.0
    fpu_reduction: float = 0.1
    c_uct: float = 0.2
    rollout_actions: int = 0  # rollout length after the tree; -1 plays to the end
    finish_decisions: int = 1  # 1: the rollout also finishes a pending payment or bonus choice
    margin_weight: float = 0.0  # share of the reward given to the VP margin
    margin_scale: float = 15.0
    # Where each iteration starts: "view" (the seat's view, the others' hidden cards dealt
    # uniformly) or "hand" (the start of the hand, every hidden card dealt and each seat's
    # nodes keyed by its own cards: beliefs from the others' actions; the games that keep
    # the record of their hand's actions: Kuhn poker)
    search_root: str = "view"
    # search_root="hand": the share of iterations dealt the seat's own cards and replaying
    # its own past actions (the others' drawn from their searched play; a line that leaves
    # the actual betting is dropped), which update the seat's own choices only
    hand_focus: float = 0.0
    # Smooth UCT (UCB1 selection): an information set plays its average policy with chance
    # 1 - max(smooth_gamma, smooth_eta / (1 + smooth_d * sqrt(visits))); 0 = plain UCB1
    smooth_eta: float = 0.0
    smooth_gamma: float = 0.1
    smooth_d: float = 0.002
    # search_root="hand": how an information set chooses, "uct" (UCB1, with Smooth UCT) or
    # "mccfr" (outcome-sampling Monte Carlo CFR: regret matching, the move drawn from the
    # average strategy, play="sample"); MCCFR's share of uniform play mixed into the
    # updated seat's sampling, and its share of iterations targeted at the seat's own
    # position (Online Outcome Sampling)
    solver: str = "uct"
    mccfr_exploration: float = 0.6
    mccfr_targeting: float = 0.5
    # MCCFR: > 0 corrects the sampled values by a baseline per edge (VR-MCCFR; two seats),
    # moved this share of the way to each new sample; 0: none
    mccfr_baseline: float = 0.0
    # The move played: "most_visited", or "sample" (drawn by the seed from the root's
    # visit shares, the search's mixed policy: for games that reward mixing, as poker's
    # bluffs do)
    play: str = "most_visited"
    # The game's own settings; None: its game's defaults
    game: GameSettings | None = None

    def params(self) -> dict:
        """Every setting by name, as the compiled search and its game's module read them
        (the game's settings: filled in by ``for_game``)."""
        own = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "game"}
        return own | (self.game.params() if self.game is not None else {})

    def with_settings(self, settings: Mapping[str, Any]) -> SearchConfig:
        """This config with `settings` (name: value, the search's own or its game's)
        changed; ValueError naming the game and the key for a key neither has."""
        own = {k: v for k, v in settings.items() if k in SEARCH_SETTING_TYPES}
        theirs = {k: v for k, v in settings.items() if k not in own}
        config = replace(self, **own)
        if theirs:
            if self.game is None:
                raise ValueError(
                    f"unknown search setting {next(iter(theirs))!r} (a game's settings need "
                    "its game's config: council.mcts.games.search_game(name).config)"
                )
            config = replace(config, game=self.game.with_settings(theirs))
        return config

    def changes_from(self, base: SearchConfig) -> dict[str, Any]:
        """The settings (the search's own and its game's) that differ from `base`'s, by the
        names ``with_settings`` takes (both configs of one game, its settings filled in)."""
        own = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "game" and getattr(self, f.name) != getattr(base, f.name)
        }
        if self.game is None or base.game is None:
            return own
        return own | self.game.changes_from(base.game)

    def for_game(self, settings: type[GameSettings]) -> SearchConfig:
        """This config for the game whose settings type is `settings`: its defaults where
        ``game`` is None; ValueError where ``game`` is another game's."""
        if self.game is None:
            return replace(self, game=settings())
        if type(self.game) is not settings:
            raise ValueError(
                f"game: {settings.game} searches with {settings.__name__}, not "
                f"{type(self.game).__name__}"
            )
        return self

    def validate(self) -> SearchConfig:
        if self.evaluator not in _search.EVALUATORS:
            raise ValueError(
                f"evaluator: must be one of {', '.join(_search.EVALUATORS)}, got {self.evaluator!r}"
            )
        if self.policy not in _search.POLICIES:
            raise ValueError(
                f"policy: must be one of {', '.join(_search.POLICIES)}, got {self.policy!r}"
            )
        if not self.c_puct >= 0:
            raise ValueError(f"c_puct: must be >= 0, got {self.c_puct}")
        if not self.c_uct >= 0:
            raise ValueError(f"c_uct: must be >= 0, got {self.c_uct}")
        if self.search_root not in _search.SEARCH_ROOTS:
            raise ValueError(
                f"search_root: must be one of {', '.join(_search.SEARCH_ROOTS)}, "
                f"got {self.search_root!r}"
            )
        if not 0 <= self.hand_focus < 1:
            raise ValueError(f"hand_focus: must be in [0, 1), got {self.hand_focus}")
        if not 0 <= self.smooth_eta <= 1:
            raise ValueError(f"smooth_eta: must be in [0, 1], got {self.smooth_eta}")
        if not 0 <= self.smooth_gamma <= 1:
            raise ValueError(f"smooth_gamma: must be in [0, 1], got {self.smooth_gamma}")
        if not self.smooth_d >= 0:
            raise ValueError(f"smooth_d: must be >= 0, got {self.smooth_d}")
        if self.play not in PLAYS:
            raise ValueError(f"play: must be one of {', '.join(PLAYS)}, got {self.play!r}")
        if self.solver not in _search.SOLVERS:
            raise ValueError(
                f"solver: must be one of {', '.join(_search.SOLVERS)}, got {self.solver!r}"
            )
        if self.solver == "mccfr" and (self.search_root != "hand" or self.play != "sample"):
            raise ValueError(
                "solver: 'mccfr' samples whole hands and plays its average strategy: "
                "set search_root=hand and play=sample"
            )
        if not 0 <= self.mccfr_exploration <= 1:
            raise ValueError(f"mccfr_exploration: must be in [0, 1], got {self.mccfr_exploration}")
        if not 0 <= self.mccfr_targeting < 1:
            raise ValueError(f"mccfr_targeting: must be in [0, 1), got {self.mccfr_targeting}")
        if not 0 <= self.mccfr_baseline <= 1:
            raise ValueError(f"mccfr_baseline: must be in [0, 1], got {self.mccfr_baseline}")
        if self.rollout_actions < -1:
            raise ValueError(f"rollout_actions: must be >= -1, got {self.rollout_actions}")
        if not self.margin_scale > 0:
            raise ValueError("margin_scale: must be > 0")
        if not 0 <= self.margin_weight <= 1:
            raise ValueError(f"margin_weight: must be in [0, 1], got {self.margin_weight}")
        if self.game is not None:
            self.game.validate()
        return self


# The search's own settings a ``key=value`` spec or a preset may set, by type name (the
# annotations are strings: this module postpones their evaluation).
SEARCH_SETTING_TYPES: dict[str, str] = {
    f.name: str(f.type) for f in fields(SearchConfig) if f.name != "game"
}


def default_config(position: Position) -> SearchConfig:
    """The search's defaults for the game of `position`, as its game registered them
    (``council.mcts.games``)."""
    from council.mcts.games import search_config_of  # it imports the games' modules: late

    return search_config_of(position)


def game_config(config: SearchConfig | None, game: str) -> SearchConfig:
    """`config` (None: the game's defaults) for the registered game `game`, its settings
    filled in where it has none, validated (ValueError naming the setting)."""
    from council.mcts.games import search_game  # it imports the games' modules: late

    registered = search_game(game)
    return (config or registered.config).for_game(registered.settings).validate()


def config_for(config: SearchConfig | None, position: Position) -> SearchConfig:
    """``game_config`` for the game of `position`."""
    from council.engine.games import game_of

    return game_config(config, game_of(position).name)


@dataclass(frozen=True)
class SearchLimits:
    """Budgets: whichever of iterations, time and the stop flag comes first ends the search.

    ``iterations`` counts over all threads. With ``threads > 1`` the trees search in
    parallel (root parallelism) and their root statistics are summed.
    """

    iterations: int | None = None
    time_s: float | None = None
    max_nodes: int = 1_000_000
    threads: int = 1

    def validate(self) -> SearchLimits:
        if self.iterations is None and self.time_s is None:
            raise ValueError("limits: give iterations or time_s (or both)")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations: must be >= 1, got {self.iterations}")
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"time_s: must be > 0, got {self.time_s}")
        if self.max_nodes < 1:
            raise ValueError(f"max_nodes: must be >= 1, got {self.max_nodes}")
        if not 1 <= self.threads <= 64:
            raise ValueError(f"threads: must be in 1..64, got {self.threads}")
        return self


@dataclass(frozen=True)
class Candidate:
    """One root action with the evidence the search gathered for it."""

    action: int
    visits: int
    mean_reward: float
    win_probability: float
    vp_margin: float  # expected VP lead over the best opponent (negative: behind)
    # The chance the search plays it: its visit share with play="sample", else 1 for the
    # most visited and 0 for the others
    policy: float = 0.0


@dataclass(frozen=True)
class SearchResult:
    action: int  # the move played: the most visited, or drawn from the policy (play="sample")
    candidates: tuple[Candidate, ...]  # most visited first
    principal_variation: tuple[int, ...]  # the most visited line
    iterations: int
    elapsed_s: float
    tree_nodes: int
    seed: int
    forced: bool = False  # only one action was legal (answered without spending the budget)

    @property
    def policy(self) -> dict[int, float]:
        """The chance the search plays each candidate, by action (``Candidate.policy``)."""
        return {c.action: c.policy for c in self.candidates}


StopFlag = _search.StopFlag

# Iterations spent on a position with a single legal action, whatever the budget.
FORCED_MOVE_ITERATIONS = 32
# A search from the start of the hand reaches the seat's own position only in the
# iterations whose line is the actual one: at most this many more iterations while it has
# not, then as many as it takes, each playing the actual history, until it has this many
# visits (a line the searched play hardly ever takes: its beliefs are then uniform ones).
MAX_EXTRA_ITERATIONS = 1_000
MIN_OWN_VISITS = 32


def _reach_own_position(tree: _search.Tree) -> None:
    extra = 0
    while not tree.root_children() and extra < MAX_EXTRA_ITERATIONS:
        extra += tree.run(16)
    if tree.root_children():
        return
    tree.follow_history = True
    while sum(visits for _a, visits, *_ in tree.root_children()) < MIN_OWN_VISITS:
        tree.run(16)
    tree.follow_history = False


@functools.cache
def policy_model(path: str = ""):
    """The learned policy prior at ``path`` ("" = the one shipped in the package), loaded
    once per process."""
    from council.mcts.policy_model import DEFAULT_POLICY_PATH, PolicyModel

    return PolicyModel.load(path or DEFAULT_POLICY_PATH)


@functools.cache
def value_model(path: str = "") -> ValueModel:
    """The learned value model at ``path`` ("" = the one shipped in the package), loaded
    once per process."""
    return ValueModel.load(path or DEFAULT_MODEL_PATH)


def _thread_seed(seed: int, thread: int) -> int:
    return (seed * 0x9E3779B1 + thread * 0x85EBCA77) & 0xFFFFFFFFFFFFFFFF


class Search:
    """An anytime search: advance it with ``run`` as often as wanted, read ``result()``
    at any time (the best action so far). ``search`` is one ``run`` of it.

    With ``threads > 1`` it grows one tree per thread (root parallelism); ``run`` splits
    its iterations between them and the results sum their root statistics.
    """

    def __init__(self, root, mode, config, seed, max_nodes, threads, stop, root_action=-1):
        if max_nodes < 1:
            raise ValueError(f"max_nodes: must be >= 1, got {max_nodes}")
        if not 1 <= threads <= 64:
            raise ValueError(f"threads: must be in 1..64, got {threads}")
        config = config_for(config, root)
        if mode == _search.FIXED and config.search_root == "hand":
            # A full state hides no card: there is nothing to believe, and its search
            # starts where it is (by UCT: MCCFR's information sets are the hand's).
            config = replace(config, search_root="view", solver="uct")
        params = config.params()
        model = value_model(config.value_model) if config.evaluator == "learned" else None
        prior = policy_model(config.policy_model) if config.policy == "learned" else None
        self.seed = seed
        self.play = config.play
        self.from_hand_start = config.search_root == "hand"
        self.average_strategy = config.solver == "mccfr"
        self.stop = stop if stop is not None else StopFlag()
        self.elapsed_s = 0.0
        # With one legal action there is nothing to choose: a few iterations still estimate
        # its value, but no budget is spent thinking (the legal actions of the seat to move
        # are the same in every determinization of its view).
        world = root.determinize(seed) if root.is_view else root
        self.forced = len(world.legal_actions()) == 1
        if root_action != -1 and root_action not in world.legal_actions():
            raise ValueError(f"root_action: {root_action} is not a legal action here")
        self._trees = [
            _search.Tree(
                root,
                mode,
                params,
                _thread_seed(seed, t),
                max(1, max_nodes // threads),
                self.stop,
                model,
                prior,
                root_action,
            )
            for t in range(threads)
        ]

    @classmethod
    def from_view(
        cls,
        view: Position,
        config: SearchConfig | None = None,
        seed: int = 0,
        max_nodes: int = 1_000_000,
        threads: int = 1,
        stop: StopFlag | None = None,
        root_action: int = -1,
    ) -> Search:
        """Information Set MCTS for the seat to move, from that seat's view only. With
        ``root_action`` (a legal action) every iteration takes it first: the value of that
        one move (a game review's estimate of a move the free search hardly tried)."""
        if not view.is_view:
            raise ValueError("search takes a view: call state.view(seat) first")
        if view.is_terminal():
            raise ValueError("the game is over")
        if view.viewer != view.current_player:
            raise ValueError(f"seat {view.viewer} is not to move (seat {view.current_player} is)")
        return cls(view, _search.INFOSET, config, seed, max_nodes, threads, stop, root_action)

    @classmethod
    def from_full_state(
        cls,
        state: Position,
        config: SearchConfig | None = None,
        seed: int = 0,
        max_nodes: int = 1_000_000,
        threads: int = 1,
        stop: StopFlag | None = None,
        root_action: int = -1,
    ) -> Search:
        """Perfect-information UCT on a full state (hidden cards visible): a yardstick and
        the inner search of PIMC; the service never builds one from a true state. The
        compiled tree refuses a view or a finished game. ``root_action``: as in
        ``from_view``."""
        return cls(state, _search.FIXED, config, seed, max_nodes, threads, stop, root_action)

    @property
    def iterations(self) -> int:
        return sum(t.iterations for t in self._trees)

    def run(self, iterations: int | None = None, time_s: float | None = None) -> int:
        """Search until ``iterations`` more iterations, ``time_s`` seconds or the stop flag,
        whichever comes first (at least one iteration); returns the iterations done."""
        if iterations is None and time_s is None:
            raise ValueError("limits: give iterations or time_s (or both)")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations: must be >= 1, got {iterations}")
        if time_s is not None and not time_s >= 0:
            raise ValueError(f"time_s: must be >= 0, got {time_s}")
        if self.forced:
            if self.iterations >= FORCED_MOVE_ITERATIONS:
                return 0
            iterations = min(iterations or FORCED_MOVE_ITERATIONS, FORCED_MOVE_ITERATIONS)
            time_s = None
        n = len(self._trees)
        if iterations is None:
            shares = [-1] * n
        else:
            shares = [iterations // n + (t < iterations % n) for t in range(n)]
        time_limit = -1.0 if time_s is None else time_s
        before = self.iterations
        start = time.perf_counter()
        if n == 1:
            self._trees[0].run(shares[0], time_limit)
        else:
            workers = [
                threading.Thread(target=tree.run, args=(k, time_limit), daemon=True)
                for tree, k in zip(self._trees, shares, strict=True)
                if k != 0
            ]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
        if self.from_hand_start:
            for tree in self._trees:
                _reach_own_position(tree)
        self.elapsed_s += time.perf_counter() - start
        return self.iterations - before

    def result(self) -> SearchResult:
        totals: dict[int, list] = {}
        for tree in self._trees:
            for action, visits, _avail, reward, win, margin in tree.root_children():
                t = totals.setdefault(action, [0, 0.0, 0.0, 0.0])
                t[0] += visits
                t[1] += reward
                t[2] += win
                t[3] += margin
        visited = sorted(
            (Candidate(a, v, r / v, w / v, m / v) for a, (v, r, w, m) in totals.items() if v > 0),
            key=lambda c: (-c.visits, -c.mean_reward, c.action),
        )
        if not visited:
            raise RuntimeError(
                "the search never reached the seat's position: give it more iterations"
            )
        # The mixed policy: the visit shares, or MCCFR's average strategy (the trees'
        # mean; its visits are the sampler's, uniform play mixed in)
        weights = {c.action: float(c.visits) for c in visited}
        if self.average_strategy:
            averaged = [t.average_policy() for t in self._trees]
            weights = {a: sum(p.get(a, 0.0) for p in averaged) for a in weights}
        total = sum(weights.values())
        if self.play == "sample" and total > 0:
            candidates = [replace(c, policy=weights[c.action] / total) for c in visited]
            # The seed draws the move from the mixed policy (its own stream: the trees'
            # streams are untouched).
            draw = random.Random(f"play:{self.seed}").random() * total
            best = candidates[-1].action
            for c in candidates:
                draw -= weights[c.action]
                if draw < 0:
                    best = c.action
                    break
        else:
            candidates = [replace(c, policy=float(i == 0)) for i, c in enumerate(visited)]
            best = candidates[0].action
        # The most visited line (from the most visited action, which a mixed play may not
        # have drawn), of the tree that spent the most visits on that action.
        first = candidates[0].action
        pv_tree = max(
            self._trees,
            key=lambda t: next((v for a, v, *_ in t.root_children() if a == first), 0),
        )
        return SearchResult(
            action=best,
            candidates=tuple(candidates),
            principal_variation=tuple(pv_tree.principal_variation(first=first)),
            iterations=self.iterations,
            elapsed_s=self.elapsed_s,
            tree_nodes=sum(t.size for t in self._trees),
            seed=self.seed,
            forced=self.forced,
        )


def _run(search_: Search, limits: SearchLimits) -> SearchResult:
    search_.run(limits.iterations, limits.time_s)
    return search_.result()


def search(
    view: Position,
    limits: SearchLimits,
    config: SearchConfig | None = None,
    seed: int = 0,
    stop: StopFlag | None = None,
) -> SearchResult:
    """Recommend an action for the seat to move, from that seat's view only.

    Same view, seed and iteration budget (any thread count fixed) give the same result.
    """
    limits.validate()
    return _run(
        Search.from_view(view, config, seed, limits.max_nodes, limits.threads, stop), limits
    )


def search_full_state(
    state: Position,
    limits: SearchLimits,
    config: SearchConfig | None = None,
    seed: int = 0,
    stop: StopFlag | None = None,
) -> SearchResult:
    """Perfect-information UCT on a full state (see ``Search.from_full_state``)."""
    limits.validate()
    return _run(
        Search.from_full_state(state, config, seed, limits.max_nodes, limits.threads, stop),
        limits,
    )
