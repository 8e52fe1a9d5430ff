"""The expert agent of The Council (Decktet): a hand-written planner, the baseline the search
is measured against (``council-ai arena --game the-council ismcts expert expert expert``).

It follows the protocol of ``council.mcts.agents.Agent``: a frozen dataclass whose
``act(view, seed)`` picks an action for the seat to act from that seat's view only (the
rules and rulings are in docs/the-council.md). It is a one-ply planner:

- **Draft**: each card of the pack is valued by the chips it gives (more in the suits where
  a rank is worth most to the seat) plus what revealing it could do in this hand's event (a
  Crown's rank, an Ace's won suit, a Court's traitor chip on a failure, a Pawn's chips).
- **Event**: the whole bid (chips per event suit and the cards to reveal) is planned at once
  by coordinate search over candidate bids, each scored by resolving the event in sampled
  scenarios of what the view cannot see (the other seats' secret card choices and the bids
  still to come, drawn as a random seat would make them) and evaluating the result from the
  seat's perspective: the final score if the game ends, else a projected score (traitor
  chips, ranks weighted by how likely their suit is to collapse in the hands left, doubled
  for the leader of a suit, chips) against the best other seat's. The plan depends only on
  public facts and the seat's own cards, so the chip-by-chip actions of one bid follow it.

>>> from council.engine.the_council import TheCouncilState
>>> state = TheCouncilState.new_game(players=4, seed=3)
>>> action = TheCouncilExpertAgent().act(state.view(0), seed=1)
>>> action in state.legal_actions()
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from council.engine._the_council import (
    ACTION_OFFSETS,
    CARDS,
    LOCATIONS,
    MAX_HANDS,
    MAX_RANK,
    NO_CARD,
    SUITS,
)
from council.engine.the_council import TheCouncilState
from council.mcts.agents import (
    STRONG_V3,
    CheatingMCTS,
    ISMCTSAgent,
    PIMCAgent,
    RandomAgent,
    StrongV3Agent,
)
from council.mcts.games import register_search
from council.mcts.search import GameSettings, SearchConfig

__all__ = ["THE_COUNCIL_CONFIG", "TheCouncilExpertAgent", "TheCouncilSettings"]


@dataclass(frozen=True)
class TheCouncilSettings(GameSettings):
    """The Council's own search settings, read by ``_the_council_search``."""

    game = "the-council"

    # 1: secret choices (picks, reveals) below the root are searched; 0: the cheap policy's
    tree_secrets: int = 0
    uniform_rollout: int = 0  # 1: uniformly random rollouts (for comparison)
    # the heuristic's score scale turning estimates into chances: its scores run to a few
    # tens
    temperature: float = 3.0
    # 1: each determinization is weighted by the others' actions under an opponent model
    # (the cheap policy): `belief_samples` deals drawn, one kept by how likely it makes the
    # others' picks this hand; their secret choices drawn from the model; every chance mixed
    # with a uniform one at `belief_floor` (> 0: no deal the view allows is excluded). Off:
    # 0.505 [0.476, 0.534] at casual over 600 games, no gain (docs/results.md, "Beliefs").
    beliefs: int = 0
    belief_samples: int = 8
    belief_floor: float = 0.1

    def validate(self) -> TheCouncilSettings:
        for name in ("tree_secrets", "beliefs"):
            if getattr(self, name) not in (0, 1):
                raise ValueError(f"{name}: must be 0 or 1, got {getattr(self, name)}")
        if not self.temperature > 0:
            raise ValueError("temperature: must be > 0")
        if not (isinstance(self.belief_samples, int) and self.belief_samples >= 1):
            raise ValueError(f"belief_samples: must be an integer >= 1, got {self.belief_samples}")
        if not 0 < self.belief_floor <= 1:
            raise ValueError(f"belief_floor: must be in (0, 1], got {self.belief_floor}")
        return self


# The Council (the Decktet game) has no learned models yet: UCB1 with c_uct 0.4, 40 actions
# of its cheap hand-set policy after the tree (_the_council_search.pyx), then its heuristic
# at temperature 3; secret choices below the root are made by that policy, not searched
# (tree_secrets): 0.378 against 0.269 with them searched, one seat against three experts.
# Every setting tried and its figure: docs/the-council.md, "Settings tried".
THE_COUNCIL_CONFIG = SearchConfig(
    evaluator="heuristic",
    policy="none",
    c_uct=0.4,
    rollout_actions=40,
    game=TheCouncilSettings(temperature=3.0),
)
# Its strong preset before mixed play and beliefs (issue #36), frozen as ``strong-v3``
# (the settings above are today's: none of the new ones is on in this game).
STRONG_V3["the-council"] = (
    SearchConfig(
        evaluator="heuristic",
        policy="none",
        c_uct=0.4,
        rollout_actions=40,
        search_root="view",
        smooth_eta=0.0,
        play="most_visited",
        game=TheCouncilSettings(tree_secrets=0, uniform_rollout=0, temperature=3.0, beliefs=0),
    ),
    10000,
)

# ---------------------------------------------------------------------------------------
# Card tables (the core's, derived once from the package's card list).

N_SUITS = len(SUITS)
N_CARDS = len(CARDS)

PICK = ACTION_OFFSETS["pick"]
BID = ACTION_OFFSETS["bid"]
END_BID = ACTION_OFFSETS["end_bid"]
REVEAL = ACTION_OFFSETS["reveal"]
LOC_DECK = LOCATIONS["deck"]
LOC_DRAFTED = LOCATIONS["drafted"]
LOC_UNKNOWN = LOCATIONS["unknown"]

# Each card's kind, its rank as an event, its order (TC12: Ace lowest) and its suits.
KIND: tuple[str, ...] = tuple(c.kind for c in CARDS)
VALUE: tuple[int, ...] = tuple(c.value for c in CARDS)
ORDER: tuple[int, ...] = tuple(c.order for c in CARDS)
CARD_SUITS: tuple[tuple[int, ...], ...] = tuple(c.suits for c in CARDS)

# ---------------------------------------------------------------------------------------
# Tuning of the expert's evaluation.

# The chance that a suit takes one step towards collapse in a hand (an event in the suit
# that fails, or that raises its leader).
STEP_CHANCE = 0.15
CHIP_VALUE = 0.08  # a chip in hand, in points
WIN_BONUS = 4.0  # points for winning a finished game (spread over the tied winners)
FAIL_CHANCE = 0.4  # a rough prior that a hand's event fails (a Court's worth when drafted)
SCENARIOS = 8  # sampled worlds per candidate bid
MAX_CHIPS_TRIED = 6  # the most chips of one suit a bid considers
SEARCH_ROUNDS = 2


def _binomial_tail(n: int, k: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    if k <= 0:
        return 1.0
    total = 0.0
    coef = 1.0
    for i in range(n + 1):
        if i >= k:
            total += coef * p**i * (1 - p) ** (n - i)
        coef = coef * (n - i) / (i + 1)
    return total


# COLLAPSE[hands_left][steps]: the chance that a suit `steps` steps from collapse falls in
# the hands left.
COLLAPSE: tuple[tuple[float, ...], ...] = tuple(
    tuple(_binomial_tail(h, k, STEP_CHANCE) for k in range(MAX_RANK + 3))
    for h in range(MAX_HANDS + 1)
)


def _mix(*values: int) -> int:
    """A 64-bit hash of integers (splitmix64 steps), stable across runs."""
    x = 0x9E3779B97F4A7C15
    for v in values:
        x = (x ^ (v & 0xFFFFFFFFFFFFFFFF)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        x = (x ^ (x >> 31)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 29
    return x


# ---------------------------------------------------------------------------------------
# Evaluation of a position from one seat's perspective.


def _winners(scores: list[int], low: list[int], starter: int) -> list[int]:
    """TC13: the highest score; among tied seats the lowest revealed card, the earlier
    bidder at equal cards; shared if none of them revealed a card."""
    n = len(scores)
    top = max(scores)
    tied = [p for p in range(n) if scores[p] == top]
    pick = -1
    for pos in range(n):
        p = (starter + pos) % n
        if p in tied and low[p] != NO_CARD and (pick < 0 or low[p] < low[pick]):
            pick = p
    return [pick] if pick >= 0 else tied


def _final_scores(ranks: list[list[int]], empire: list[int], traitors: list[int]) -> list[int]:
    n = len(ranks)
    scores = list(traitors)
    for x in range(N_SUITS):
        e = empire[x]
        if any(ranks[p][x] > e for p in range(n)):
            for p in range(n):
                r = ranks[p][x]
                scores[p] += r * (2 if r > e else 1)
    return scores


def _projected(
    ranks: list[list[int]], empire: list[int], traitors: list[int], chips: list[int], hand: int
) -> list[float]:
    """Each seat's projected score after the event of `hand`, the game going on."""
    n = len(ranks)
    table = COLLAPSE[max(0, MAX_HANDS - hand)]
    proj = [traitors[p] + CHIP_VALUE * chips[p] for p in range(n)]
    for x in range(N_SUITS):
        top = max(ranks[p][x] for p in range(n))
        if top == 0:
            continue
        w = table[min(len(table) - 1, max(1, empire[x] - top + 1))]
        for p in range(n):
            r = ranks[p][x]
            if r:
                proj[p] += r * w * (2 if r == top else 1)
    return proj


def _utility(
    me: int,
    ranks: list[list[int]],
    empire: list[int],
    traitors: list[int],
    chips: list[int],
    hand: int,
    low: list[int],
    starter: int,
) -> float:
    """The seat's margin over the best other seat, in points (plus the win, if over)."""
    n = len(ranks)
    over = hand >= MAX_HANDS or any(
        ranks[p][x] > empire[x] for x in range(N_SUITS) for p in range(n)
    )
    if over:
        scores: list[float] = list(map(float, _final_scores(ranks, empire, traitors)))
        win = _winners([int(s) for s in scores], low, starter)
        bonus = WIN_BONUS * ((1.0 / len(win) if me in win else 0.0) - 1.0 / n)
        return scores[me] - max(scores[q] for q in range(n) if q != me) + bonus
    proj = _projected(ranks, empire, traitors, chips, hand)
    return proj[me] - max(proj[q] for q in range(n) if q != me)


# ---------------------------------------------------------------------------------------
# What the view shows.


@dataclass(frozen=True)
class _Public:
    """The facts a view shows, as plain tuples."""

    n: int
    me: int
    phase: int
    hand: int
    event: int
    starter: int
    bids_done: int
    bid_floor: int
    card_loc: tuple[int, ...]
    ranks: tuple[tuple[int, ...], ...]
    empire: tuple[int, ...]
    chips: tuple[tuple[int, ...], ...]
    bid: tuple[tuple[int, ...], ...]
    traitors: tuple[int, ...]

    @staticmethod
    def of(view: TheCouncilState) -> _Public:
        raw = view.to_raw()
        n = raw["n_players"]
        return _Public(
            n=n,
            me=raw["current"],
            phase=raw["phase"],
            hand=raw["hand"],
            event=raw["event"],
            starter=raw["starter"],
            bids_done=raw["bids_done"],
            bid_floor=raw["bid_floor"],
            card_loc=tuple(raw["card_loc"]),
            ranks=tuple(tuple(r) for r in raw["ranks"][:n]),
            empire=tuple(raw["empire"]),
            chips=tuple(tuple(c) for c in raw["chips"][:n]),
            bid=tuple(tuple(b) for b in raw["bid"][:n]),
            traitors=tuple(raw["traitors"][:n]),
        )

    def drafted(self, seat: int) -> list[int]:
        return [c for c in range(N_CARDS) if self.card_loc[c] == LOC_DRAFTED + seat]


# ---------------------------------------------------------------------------------------
# The draft.


def _rank_gains(pub: _Public) -> list[float]:
    """What one more rank in each suit is worth to the seat (its utility change)."""
    ranks = [list(r) for r in pub.ranks]
    chips = [sum(c) for c in pub.chips]
    low = [NO_CARD] * pub.n
    # Valued as at the end of this hand, the game going on.
    base = _utility(
        pub.me, ranks, list(pub.empire), list(pub.traitors), chips, pub.hand, low, pub.starter
    )
    gains = []
    for x in range(N_SUITS):
        old = ranks[pub.me][x]
        ranks[pub.me][x] = min(MAX_RANK, old + 1)
        u = _utility(
            pub.me, ranks, list(pub.empire), list(pub.traitors), chips, pub.hand, low, pub.starter
        )
        ranks[pub.me][x] = old
        gains.append(u - base)
    return gains


def _pick_value(card: int, gains: list[float], suit_chance: list[float]) -> float:
    suits = CARD_SUITS[card]
    pos = [max(0.0, gains[x]) for x in range(N_SUITS)]
    value = sum(CHIP_VALUE + 0.15 * pos[x] for x in suits)
    kind = KIND[card]
    if kind == "crown":
        value += pos[suits[0]]
    elif kind == "court":
        value += FAIL_CHANCE
    elif kind == "ace":
        value += suit_chance[suits[0]] * pos[suits[0]]
    elif kind == "pawn":
        value += sum(suit_chance[x] * 0.3 * pos[x] for x in suits)
    else:
        value += sum(suit_chance[x] * 0.1 * pos[x] for x in suits) * (10 - VALUE[card]) / 8
    return value


def _draft_pick(pub: _Public, actions: list[int]) -> int:
    gains = _rank_gains(pub)
    # The event is one of the cards the seat cannot see.
    unseen = [c for c in range(N_CARDS) if pub.card_loc[c] in (LOC_UNKNOWN, LOC_DECK)]
    suit_chance = [
        sum(1 for c in unseen if x in CARD_SUITS[c]) / max(1, len(unseen)) for x in range(N_SUITS)
    ]
    return max(actions, key=lambda a: (_pick_value(a - PICK, gains, suit_chance), -a))


# ---------------------------------------------------------------------------------------
# The event: plan the whole bid.


@dataclass(frozen=True)
class _Side:
    """One seat's part of an event: its bid per event suit (Aces and Pawns included), its
    tie-breaking number per suit, its Crowns' suits, Courts, lowest card and chips left."""

    amount: tuple[int, ...]
    tie: tuple[int, ...]
    crowns: tuple[int, ...]
    courts: int
    low: int
    chips_left: int


def _side(
    pub: _Public, seat: int, bids: list[int], revealed: list[int], esuits: list[int]
) -> _Side:
    amount = list(bids)
    tie = [0] * len(esuits)
    crowns: list[int] = []
    courts = 0
    low = NO_CARD
    for c in revealed:
        low = min(low, ORDER[c])
        kind = KIND[c]
        if kind == "crown":
            crowns.append(CARD_SUITS[c][0])
        elif kind == "court":
            courts += 1
        for i, x in enumerate(esuits):
            if x not in CARD_SUITS[c]:
                continue
            if kind == "ace":
                amount[i] += 1000
            elif kind == "pawn":
                amount[i] += 1
            elif kind == "number":
                tie[i] = max(tie[i], 16 - VALUE[c])
    total = sum(pub.chips[seat]) + sum(pub.bid[seat]) - sum(bids)
    return _Side(tuple(amount), tuple(tie), tuple(crowns), courts, low, total)


def _resolve_value(pub: _Public, sides: list[_Side], esuits: list[int]) -> float:
    """Resolve the event with these sides (TC8-TC12) and evaluate the result for pub.me."""
    ranks = [list(r) for r in pub.ranks]
    empire = list(pub.empire)
    traitors = list(pub.traitors)
    for p, side in enumerate(sides):
        for x in side.crowns:
            if ranks[p][x] < MAX_RANK:
                ranks[p][x] += 1
    total = sum(sum(side.amount) for side in sides)
    success = total >= VALUE[pub.event]
    for i, x in enumerate(esuits):
        keys = [side.amount[i] * 16 + side.tie[i] for side in sides]
        if success:
            k = max(keys)
            if keys.count(k) == 1:
                best = keys.index(k)
                if sides[best].amount[i] > 0 and ranks[best][x] < MAX_RANK:
                    ranks[best][x] += 1
        else:
            k = min(keys)
            if keys.count(k) == 1:
                worst = keys.index(k)
                if ranks[worst][x] > 0:
                    ranks[worst][x] -= 1
                    traitors[worst] += 1
            if empire[x] > 0:
                empire[x] -= 1
    if not success:
        for p, side in enumerate(sides):
            traitors[p] += side.courts
    low = [side.low for side in sides]
    chips = [side.chips_left for side in sides]
    return _utility(pub.me, ranks, empire, traitors, chips, pub.hand, low, pub.starter)


def _random_bid(rng: random.Random, chips: tuple[int, ...], esuits: list[int]) -> list[int]:
    """Chips offered as a uniformly random seat offers them (one chip or the end at each
    step, chips in suit order)."""
    bids = [0] * len(esuits)
    floor = 0
    while True:
        options = [i for i in range(floor, len(esuits)) if chips[esuits[i]] > bids[i]]
        choice = rng.randrange(len(options) + 1)
        if choice == len(options):
            return bids
        floor = options[choice]
        bids[floor] += 1


@lru_cache(maxsize=512)
def _plan(pub: _Public) -> tuple[tuple[int, ...], int]:
    """The seat's whole bid in this event: chips per event suit and the reveal mask.

    `pub` must not carry what changes while the seat bids (see _plan_key)."""
    me, n = pub.me, pub.n
    esuits = list(CARD_SUITS[pub.event])
    mine = pub.drafted(me)
    budget = [pub.chips[me][x] + pub.bid[me][x] for x in esuits]
    rng = random.Random(_mix(pub.hand, pub.event, me, n, *pub.chips[me], *pub.traitors))
    order = [(pub.starter + pos) % n for pos in range(n)]
    my_pos = order.index(me)
    others: list[list[_Side]] = []
    for _ in range(SCENARIOS):
        world: list[_Side] = []
        for p in range(n):
            if p == me:
                world.append(_Side((), (), (), 0, NO_CARD, 0))
                continue
            if order.index(p) < my_pos:
                offered = [pub.bid[p][x] for x in esuits]
            else:
                offered = _random_bid(rng, pub.chips[p], esuits)
            revealed = [c for c in pub.drafted(p) if rng.random() < 0.5]
            world.append(_side(pub, p, offered, revealed, esuits))
        others.append(world)

    # Reveal groups the search toggles; everything else (Courts, cards that act in no
    # event suit) is always revealed: it can only help (a traitor chip, the low card).
    def group(c: int) -> int:
        kind = KIND[c]
        if kind == "crown":
            return 0
        if not set(CARD_SUITS[c]) & set(esuits) or kind == "court":
            return -1
        return {"ace": 1, "pawn": 2, "number": 3}[kind]

    groups = [group(c) for c in mine]
    present = sorted({g for g in groups if g >= 0})
    cache: dict[tuple[tuple[int, ...], frozenset[int]], float] = {}

    def value(bids: tuple[int, ...], hidden: frozenset[int]) -> float:
        key = (bids, hidden)
        if key not in cache:
            revealed = [c for c, g in zip(mine, groups, strict=True) if g not in hidden]
            side = _side(pub, me, list(bids), revealed, esuits)
            total = 0.0
            for world in others:
                world[me] = side
                total += _resolve_value(pub, world, esuits)
            cache[key] = total / SCENARIOS
        return cache[key]

    bids = tuple(0 for _ in esuits)
    hidden: frozenset[int] = frozenset()
    best = value(bids, hidden)
    for _ in range(SEARCH_ROUNDS):
        improved = False
        for i in range(len(esuits)):
            for k in range(min(budget[i], MAX_CHIPS_TRIED) + 1):
                trial = bids[:i] + (k,) + bids[i + 1 :]
                v = value(trial, hidden)
                if v > best + 1e-9:
                    best, bids, improved = v, trial, True
        for g in present:
            trial_hidden = hidden ^ {g}
            v = value(bids, trial_hidden)
            if v > best + 1e-9:
                best, hidden, improved = v, trial_hidden, True
        if not improved:
            break
    chips_plan = [0] * N_SUITS
    for i, x in enumerate(esuits):
        chips_plan[x] = bids[i]
    mask = sum(1 << i for i, g in enumerate(groups) if g not in hidden)
    return tuple(chips_plan), mask


def _plan_key(pub: _Public) -> _Public:
    """The view's facts with the seat's own offered chips put back in its hand and the
    bid's progress erased, so every action of one bid finds the same plan."""
    me = pub.me
    chips = list(pub.chips)
    bid = list(pub.bid)
    chips[me] = tuple(c + b for c, b in zip(pub.chips[me], pub.bid[me], strict=True))
    bid[me] = (0,) * N_SUITS
    return _Public(
        n=pub.n,
        me=me,
        phase=0,
        hand=pub.hand,
        event=pub.event,
        starter=pub.starter,
        bids_done=pub.bids_done,
        bid_floor=0,
        card_loc=pub.card_loc,
        ranks=pub.ranks,
        empire=pub.empire,
        chips=tuple(chips),
        bid=tuple(bid),
        traitors=pub.traitors,
    )


# ---------------------------------------------------------------------------------------
# The agents.


@dataclass(frozen=True)
class TheCouncilExpertAgent:
    """The hand-written planner of this module's docstring (deterministic; it ignores the
    seed but for the legal actions, and sees only the view)."""

    sees_true_state: ClassVar[bool] = False

    def act(self, view: TheCouncilState, seed: int) -> int:
        # The seat's legal actions depend only on what it knows: any determinization of its
        # view gives them (and a full state is refused).
        actions = view.determinize(seed).legal_actions()
        if len(actions) == 1:
            return actions[0]
        pub = _Public.of(view)
        if view.phase == "draft":
            return _draft_pick(pub, actions)
        chips_plan, mask = _plan(_plan_key(pub))
        if view.phase == "bid":
            for x in range(pub.bid_floor, N_SUITS):
                if pub.bid[pub.me][x] < chips_plan[x] and BID + x in actions:
                    return BID + x
            return END_BID
        return REVEAL + mask if REVEAL + mask in actions else actions[-1]


# ---------------------------------------------------------------------------------------
# The Council's part of the search layer (council.mcts.games): the search and the random
# player play it too; 4 seats, where its strength figures are measured (docs/the-council.md).

register_search(
    "the-council",
    config=THE_COUNCIL_CONFIG,
    settings=TheCouncilSettings,
    agents={
        "random": RandomAgent,
        "expert": TheCouncilExpertAgent,
        "ismcts": ISMCTSAgent,
        "strong-v3": StrongV3Agent,
        "pimc": PIMCAgent,
        "cheat": CheatingMCTS,
    },
    table_size=4,
    review_thresholds={"inaccuracy": 0.7, "mistake": 1.2, "blunder": 2.0},  # points
)
