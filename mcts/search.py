"""Information Set MCTS from one seat's view, with anytime budgets and root parallelism.

>>> from council.engine import GameConfig, State
>>> from council.mcts.search import SearchLimits, search
>>> state = State.new_game(GameConfig(players=2), seed=3)
>>> result = search(state.view(0), SearchLimits(iterations=200), seed=1)
>>> result.action in state.legal_actions(), result.iterations
(True, 200)
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import asdict, dataclass, field

from council.engine import Position, State, TheCouncilState
from council.mcts import _evaluation, _search
from council.mcts.value_model import DEFAULT_MODEL_PATH, ValueModel

DEFAULT_KIND_WEIGHTS = {
    "end_turn": 4.0,
    "elect": 1.0,
    "acquire": 3.0,
    "build_permit": 8.0,
    "build_king": 4.0,
    "engage": 0.2,
    "change": 0.1,
    "quick_elect": 0.2,
    "extra_main": 1.0,
    "pay": 1.0,
    "choose_token": 1.0,
    "choose_free_permit": 1.0,
    "choose_permit_bonus": 1.0,
}


@dataclass(frozen=True)
class SearchConfig:
    """How the search plays and evaluates (defaults tuned by measured strength, see README)."""

    evaluator: str = "learned"  # leaf win chances: "learned" or "heuristic" (version 0.1)
    value_model: str = ""  # the learned evaluator's model file; "" = the shipped one
    policy: str = "learned"  # selection: "learned" (PUCT with the prior) or "none" (UCB1)
    policy_model: str = ""  # the learned prior's model file; "" = the shipped one
    c_puct: float = 1.0
    fpu_reduction: float = 0.1
    c_uct: float = 0.2
    tree_payments: int = 0  # 1: payments below the root are searched; 0: the prior's choice
    # The Council: 1: secret choices (picks, reveals) below the root are searched; 0: the
    # cheap policy's
    tree_secrets: int = 0
    rollout_actions: int = 0  # rollout length after the tree; -1 plays to the end
    finish_decisions: int = 1  # 1: the rollout also finishes a pending payment or bonus choice
    uniform_rollout: int = 0  # 1: uniformly random rollouts (for comparison)
    temperature: float = 12.0  # heuristic evaluator: score scale turning estimates into chances
    margin_weight: float = 0.0  # share of the reward given to the VP margin
    margin_scale: float = 15.0
    # Council of Four, learned evaluator: > 0 values a leaf by the mean over this many fresh
    # deals of the cards the searching seat cannot see (0: by the sampled world alone)
    leaf_redeals: int = 0
    pay_decay: float = 0.3
    w_coins: float = 0.15
    w_assistants: float = 0.3
    w_cards: float = 0.3
    w_emporium: float = 4.0
    w_permit_unused: float = 1.5
    w_nobility: float = 0.3
    kind_weights: dict = field(default_factory=lambda: dict(DEFAULT_KIND_WEIGHTS))

    def params(self) -> dict:
        return asdict(self)

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
        for name in ("tree_payments", "tree_secrets"):
            if getattr(self, name) not in (0, 1):
                raise ValueError(f"{name}: must be 0 or 1, got {getattr(self, name)}")
        most = _evaluation.MAX_LEAF_REDEALS
        if not (isinstance(self.leaf_redeals, int) and 0 <= self.leaf_redeals <= most):
            raise ValueError(
                f"leaf_redeals: must be an integer in 0..{most}, got {self.leaf_redeals}"
            )
        if self.rollout_actions < -1:
            raise ValueError(f"rollout_actions: must be >= -1, got {self.rollout_actions}")
        for name in ("temperature", "margin_scale"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be > 0")
        if not 0 <= self.margin_weight <= 1:
            raise ValueError(f"margin_weight: must be in [0, 1], got {self.margin_weight}")
        if set(self.kind_weights) != set(DEFAULT_KIND_WEIGHTS):
            raise ValueError(f"kind_weights: needs exactly {sorted(DEFAULT_KIND_WEIGHTS)}")
        if any(not w >= 0 for w in self.kind_weights.values()):
            raise ValueError("kind_weights: weights must be >= 0")
        return self


# Version 0.1's search, frozen as the baseline every change is measured against (the agent
# ``ismcts-v1``): the hand-set heuristic evaluation with its tuned settings, written out so
# that changing the defaults above never changes it.
V1_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.35,
    tree_payments=1,
    rollout_actions=10,
    finish_decisions=0,
    uniform_rollout=0,
    temperature=12.0,
    margin_weight=0.5,
    margin_scale=15.0,
    pay_decay=0.3,
    w_coins=0.15,
    w_assistants=0.3,
    w_cards=0.3,
    w_emporium=4.0,
    w_permit_unused=1.5,
    w_nobility=0.3,
    kind_weights={
        "end_turn": 4.0,
        "elect": 1.0,
        "acquire": 3.0,
        "build_permit": 8.0,
        "build_king": 4.0,
        "engage": 0.2,
        "change": 0.1,
        "quick_elect": 0.2,
        "extra_main": 1.0,
        "pay": 1.0,
        "choose_token": 1.0,
        "choose_free_permit": 1.0,
        "choose_permit_bonus": 1.0,
    },
)


# The Council (the Decktet game) has no learned models yet: UCB1, 40 actions of its cheap
# hand-set policy after the tree (_search.pyx, tc_policy_pick), then its heuristic
# (evaluate_the_council); secret choices below the root are made by that policy, not
# searched (tree_secrets). Measured with one seat against three expert seats, 200 four-seat
# games each on deals 100-149, at 1,000 iterations with the policy's bidder going on at 0.7
# unless said: uniformly random rollouts with secrets searched 0.269 [0.213, 0.335], the
# cheap policy's rollouts 0.325, and secrets out of the tree 0.378 [0.313, 0.446] (only the
# other seats' secrets out: 0.283); c_uct 0.2 / 0.4 / 0.7 / 1.0: 0.378 / 0.458 / 0.428 /
# 0.428, and at 3,000 iterations (going on at 0.85) 0.4 against 0.7: 0.473 against 0.423.
# Going on at 0.5 / 0.7 / 0.85 (TC_BID_ON; c_uct 0.2): 0.320 / 0.378 / 0.395, and at 3,000
# iterations (c_uct 0.4) 0.7 / 0.85 / 0.95 / 1.0: 0.378 / 0.473 / 0.550 / 0.413; 0.95
# against 0.85 on two more sets of 50 deals (0-49, 200-249): 0.512 / 0.485 against 0.475 /
# 0.505, +0.032 over 600 games, no gain shown: 0.85 kept. Not adopted (c_uct 0.5,
# going on at 0.85: 0.420): rollouts of 20 / 80 / 120 actions 0.390 / 0.475 / 0.445, to the
# end of the event being bid 0.453, of the hand 0.455, of the game 0.235 (c_uct 0.2);
# temperature 1.5 / 6: 0.408 / 0.400; (c_uct 0.4: 0.415) chips in the heuristic (0.1 each)
# 0.305, drafted cards (0.5 each) 0.290, the other seats' bids below the root made by the
# policy too 0.400; at 3,000 iterations (0.473) the policy's bidder also pushing an event
# short of its rank 0.440, the other seats' hidden reveals drawn from the policy instead of
# TC15's coins 0.427. A linear evaluation fitted (conditional logit) to the outcomes of 3,000
# games of a 300-iteration seat against three experts (83,898 positions; ranks by the
# empire's distance above their suit's leader, the leaders' ranks, traitor chips, chips,
# drafted cards) predicts better (held-out cross-entropy 1.235, ranks and traitor chips only
# 1.258, this heuristic 1.266, uniform 1.386) but plays worse at 1,000 iterations: 0.353,
# ranks and traitor chips only 0.440 (0.415), and at 3,000 0.475 (0.473) with beats others
# 0.657 (0.706): not adopted. A reward with 0.3 of it for the score margin (margin_scale 3)
# at 3,000: 0.405, beats others 0.670 (0.475, 0.706). The expert making one kind of this
# search's decisions (3,000 iterations, deals 0-49): drafts 0.428, bids 0.450, reveals 0.202,
# so the search is the better player at each. A reward for the share of the other seats
# finished ahead of (the arena's beats others; before the end, the mean over the other seats
# of a logistic of the heuristic's score gap at this temperature): all of it 0.480 / beats
# others 0.727 and on deals 1-50 0.475 / 0.724 (this: 0.485 / 0.713), half of it 0.490 /
# 0.713, and at 10,000 iterations all of it 0.473 / 0.728 (this: 0.497 / 0.718): beats others
# +0.01 to +0.02, no gain shown. UCB1's c_uct at the other seats' nodes halved 0.453 / 0.703,
# doubled 0.422 / 0.683. The heuristic doubling every rank above the empire (as the scoring
# does), not only the leader's: 0.458 / 0.702. Nodes below the root split by the event card
# turned (a closed loop on that chance, so bids are no longer averaged over the events to
# come): 0.4425 / 0.686.
THE_COUNCIL_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.4,
    rollout_actions=40,
    temperature=3.0,  # its scores run to a few tens: the scale of the heuristic's softmax
)


def default_config(position: Position) -> SearchConfig:
    """The search's defaults for the game of `position`."""
    return THE_COUNCIL_CONFIG if isinstance(position, TheCouncilState) else SearchConfig()


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


@dataclass(frozen=True)
class SearchResult:
    action: int
    candidates: tuple[Candidate, ...]  # most visited first
    principal_variation: tuple[int, ...]
    iterations: int
    elapsed_s: float
    tree_nodes: int
    seed: int
    forced: bool = False  # only one action was legal (answered without spending the budget)


StopFlag = _search.StopFlag

# Iterations spent on a position with a single legal action, whatever the budget.
FORCED_MOVE_ITERATIONS = 32


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

    def __init__(self, root, mode, config, seed, max_nodes, threads, stop):
        if max_nodes < 1:
            raise ValueError(f"max_nodes: must be >= 1, got {max_nodes}")
        if not 1 <= threads <= 64:
            raise ValueError(f"threads: must be in 1..64, got {threads}")
        config = (config or default_config(root)).validate()
        params = config.params()
        model = value_model(config.value_model) if config.evaluator == "learned" else None
        prior = policy_model(config.policy_model) if config.policy == "learned" else None
        self.seed = seed
        self.stop = stop if stop is not None else StopFlag()
        self.elapsed_s = 0.0
        # With one legal action there is nothing to choose: a few iterations still estimate
        # its value, but no budget is spent thinking (the legal actions of the seat to move
        # are the same in every determinization of its view).
        world = root.determinize(seed) if root.is_view else root
        self.forced = len(world.legal_actions()) == 1
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
    ) -> Search:
        """Information Set MCTS for the seat to move, from that seat's view only."""
        if not view.is_view:
            raise ValueError("search takes a view: call state.view(seat) first")
        if view.is_terminal():
            raise ValueError("the game is over")
        if view.viewer != view.current_player:
            raise ValueError(f"seat {view.viewer} is not to move (seat {view.current_player} is)")
        return cls(view, _search.INFOSET, config, seed, max_nodes, threads, stop)

    @classmethod
    def from_full_state(
        cls,
        state: State,
        config: SearchConfig | None = None,
        seed: int = 0,
        max_nodes: int = 1_000_000,
        threads: int = 1,
        stop: StopFlag | None = None,
    ) -> Search:
        """Perfect-information UCT on a full state (hidden cards visible): a yardstick and
        the inner search of PIMC; the service never builds one from a true state. The
        compiled tree refuses a view or a finished game."""
        return cls(state, _search.FIXED, config, seed, max_nodes, threads, stop)

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
        candidates = sorted(
            (Candidate(a, v, r / v, w / v, m / v) for a, (v, r, w, m) in totals.items() if v > 0),
            key=lambda c: (-c.visits, -c.mean_reward, c.action),
        )
        best = candidates[0].action
        # The line of the tree that spent the most visits on the chosen action.
        pv_tree = max(
            self._trees,
            key=lambda t: next((v for a, v, *_ in t.root_children() if a == best), 0),
        )
        return SearchResult(
            action=best,
            candidates=tuple(candidates),
            principal_variation=tuple(pv_tree.principal_variation(first=best)),
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
    state: State,
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
