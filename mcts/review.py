"""The review of a whole recorded game: for each move of the chosen seats, how much win
probability and how many points of final score margin it gave away, judged from what that
seat knew when it chose.

``review_game`` replays a ``council.v1.GameRecord`` (validated by
``council.engine.record.replay``) and yields one ``MoveReview`` per move of the seats asked
for; ``summarize`` turns them into a ``SeatSummary`` per seat; ``review_to_json`` is the
``council-ai review --json`` object.

**Honest for hidden information.** A record holds every hand, but a seat choosing a move saw
only its own. Each move is therefore searched from the mover's view at that moment,
``state.view(seat)``: Information Set MCTS (``council.mcts.search``) samples the hidden cards
from that view, never from the record, so two records that differ only in cards the seat
could not see give the same review of that seat's moves (the tests check this). With
``hindsight=True`` the full state is searched instead (perfect-information UCT,
``search_full_state``), an after-game study of what each move was worth knowing every hand;
those reviews carry ``hindsight=True`` and are not a judgement of the decision as it was.

**The method, per move** (seat ``s`` to move, ``N`` the iterations of ``limits``):

1. *Only move*: a single legal action. There is nothing to choose: loss 0, no label
   (``only_move``; ``forced`` is the same flag, its older name); its win probabilities are
   those of the search's short look at it (the search spends
   ``council.mcts.search.FORCED_MOVE_ITERATIONS`` on such a position, whatever the budget).
   Every other move is a decision and is judged, payments and bonus or token choices
   included (a payment among 13 ways to pay is a choice of which cards to keep).
2. *Search*: the position from ``s``'s view, with ``limits``. ``win_probability_before`` is
   the search's value of the position for ``s``: the visit-weighted mean of its root
   candidates' win probabilities (the Monte Carlo estimate of the root). The best move is
   the search's choice (the most visited action), ``win_probability_best`` its candidate's
   win probability and ``points_best`` its expected final score margin (``vp_margin``: the
   seat's score less the best other seat's, in the game's ``points_unit``,
   council.engine.games), ``line`` the principal variation's texts as ``s``'s view names
   them.
3. *The played move*, if it is not the best: its win probability and points are read from
   the root candidates when the search gave it at least ``READ_VISITS`` visits and at least
   ``READ_SHARE`` of the best move's visits (an estimate from comparable evidence).
   Otherwise (a move the search hardly or never tried, as a poor move usually is) a second
   search of the same view is *forced through the played move*: every iteration takes it at
   the root (``Search.from_view(..., root_action=played)``), with as many iterations as the
   best move got (at least ``MIN_FORCED_ITERATIONS``), so both moves are valued on the same
   amount of evidence, from the same view with the same seed (the hidden cards and the
   draws after the move are sampled, never read from the record).
4. ``loss = max(0, win_probability_best - win_probability_played)`` and ``points_lost =
   max(0, points_best - points_played)``; a played move that scores above the best found
   has lost nothing.
5. The label: the most severe that ``severity`` reaches on ``THRESHOLDS``. While the game
   is open (the seat's win probability before the move in ``OPEN``) ``severity`` is
   ``loss``; once it is decided, the larger of ``loss`` and ``points_lost`` read as the
   win-probability loss of the same label (``points_as_loss``, through each game's
   ``review_thresholds``, council.mcts.games), so whichever says more labels the move. Win
   probability saturates once a game is decided (a seat with no chance left has none to lose), the
   score margin does not: a random payment in a lost game still throws away cards, and
   the points say so (as KaTrain and KataGo judge go moves by points lost as well as by
   win rate). In an open game the points are shown but not judged: there the search plays
   for the win, and strong play's points differences between its moves are several VP
   (its 95th percentile in Council of Four, docs/review.md) where a random move's median
   is under one, so points would blame sound moves; win probability tells them apart.
   The review's searches give the score margin a share ``REVIEW_MARGIN_WEIGHT`` of their
   reward (KataGo's score utility): with none, a search in a decided game, where every
   move's chance is near 0 or 1, picks its best move among them by chance, not by points.

A review is seeded: each decision's searches use a seed derived from ``seed`` and the move's
index, so the same record, seats, limits (iterations, no time limit) and seed give the same
review, whichever other seats are reviewed with it.

**Thresholds** (loss in win probability, 0..1, at or above which a label applies:
inaccuracy 0.05, mistake 0.10, blunder 0.15) were chosen from data with
``bench/review_thresholds.py``: it plays seeded Council of Four games of
``ismcts:iterations=300`` against itself and against ``random``, reviews every seat and
prints the percentiles of each kind of seat's decision losses. Reviewed at 1000 iterations
per decision (``--deals 8 --review-iterations 1000``: 16 games per lineup), strong play's
1070 decisions lost 0.052 at the 95th percentile, 0.077 at the 97.5th, 0.111 at the 99th and
0.119 at the 99.5th (mean 0.0073; 5.0% of them at or above 0.05, 1.5% at or above 0.10, 0.37%
at or above 0.15); the random seats' 574 decisions lost 0.051 at the 90th, 0.088 at the 95th and
0.150 at the 99th percentile (mean 0.0144, the search seats' 0.0010 in the same games;
10.1% at or above 0.05, 3.7% at or above 0.10, 1.05% at or above 0.15). At the casual budget (300
iterations) strong play's 95th and 99th percentiles were 0.035 and 0.108. So an
*inaccuracy* starts at strong play's 95th percentile (one strong decision in twenty or
fewer), a *mistake* at about its 99th, and a *blunder* past its 99.5th, a loss strong play
showed in fewer than four decisions in a thousand and random play nearly three times as
often. The same thresholds serve every game: in The Council (four seats, same settings,
4 deals) strong play's 95th and 99th percentiles were 0.023 and 0.049, so it is labelled
more rarely still; Kuhn poker's few decisions each weigh much more (a wrong fold or call
costs 0.2 and more). A loss in win probability is small where the game is already decided
(a seat with no chance left has little to lose), as in chess reviews.

**Points thresholds** (each game's ``review_thresholds``, in its unit) were chosen the same way,
from strong play's decisions in decided positions, where points are judged
(``bench/review_thresholds.py`` prints the percentiles of ``points_lost`` beside those of
``loss``, over decided positions too), reviewed at the casual budget: an inaccuracy at or
past strong play's 95th percentile, a mistake at about its 99th, a blunder at about its
99.5th. Kuhn poker's are the win-probability thresholds in chips (its win probability is
``(chips + 2) / 4``). The figures are in docs/review.md.

**Accuracy** (``SeatSummary.accuracy``, 0..100) is lichess's move accuracy curve taken over
``severity`` (0..1) instead of chess's win percentage, made steeper: a decision scores
``clamp(103.1668 * exp(-ACCURACY_SLOPE * severity) - 3.1668, 0, 100)``, the slope set so
that a decision at the inaccuracy threshold scores 50 (``ACCURACY_SLOPE`` = ln(103.1668 /
53.1668) / 0.05, about 13.26; 24 for a mistake's 0.10, 11 for a blunder's 0.15, about 0
past 0.25). lichess's own slope (4.354 per unit of win probability) gave an inaccuracy 80, so a
seat playing one random move in three scored only about 5 points below strong play; half
credit at the inaccuracy threshold (strong play's 95th percentile) doubles that gap while
strong play loses under two points (the figures: docs/review.md). A seat's accuracy is
the mean over its decisions (moves that are not only moves); a seat with no such decision
scores 100.
``average_loss`` is the mean loss over the same decisions, ``average_points_lost`` the mean
points lost, ``counts`` the labels among them.

>>> from council.engine.games import game_named
>>> from council.engine.record import record_of
>>> from council.mcts.search import SearchLimits
>>> start = game_named("kuhn-poker").new_game(seed=3)
>>> state, actions = start.clone(), []
>>> while not state.is_terminal():
...     actions.append(state.legal_actions()[0])
...     state.apply(actions[-1])
>>> reviews = list(review_game(record_of(start, actions), limits=SearchLimits(iterations=200)))
>>> [(r.index, r.seat, r.played_text) for r in reviews]
[(0, 0, 'pass'), (1, 1, 'pass')]
>>> all(0 <= r.loss <= 1 and r.label in LABELS for r in reviews)
True
>>> [s.seat for s in summarize(reviews)]
[0, 1]
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from council.engine.games import Game, game_named, game_of
from council.engine.record import play_move, replay
from council.engine.serialize import state_from_proto
from council.mcts.games import REVIEW_LABELS, search_game
from council.mcts.search import (
    Search,
    SearchConfig,
    SearchLimits,
    SearchResult,
    StopFlag,
    default_config,
)

__all__ = [
    "ACCURACY_SLOPE",
    "LABELS",
    "MIN_FORCED_ITERATIONS",
    "OPEN",
    "READ_SHARE",
    "READ_VISITS",
    "REVIEW_MARGIN_WEIGHT",
    "THRESHOLDS",
    "MoveReview",
    "SeatSummary",
    "accuracy_of_loss",
    "label_of",
    "points_as_loss",
    "review_game",
    "review_to_json",
    "summarize",
]

LABELS = ("", *REVIEW_LABELS)  # "" = no label

# Loss (in win probability, 0..1) at or above which each label applies: how they were
# chosen is in the module's docstring.
THRESHOLDS: dict[str, float] = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.15}

# The accuracy curve's slope: a decision at the inaccuracy threshold scores 50 (the
# module's docstring says why).
ACCURACY_SLOPE = math.log(103.1668 / 53.1668) / THRESHOLDS["inaccuracy"]

# A game is open while the seat's win probability before its move is in this range, and
# decided outside it: there win probability has saturated and only points tell moves apart.
OPEN = (0.1, 0.9)

# The least share of the review's search reward given to the score margin (SearchConfig.
# margin_weight): with none, a search in a decided game (every move's win probability near 0
# or 1) picks among the moves by chance and its best move keeps no more points than another.
REVIEW_MARGIN_WEIGHT = 0.25

# The played move's win probability is read from the search's root candidates when it got
# at least this many visits and this share of the best move's; otherwise it is searched on
# its own (see the module's docstring).
READ_VISITS = 32
READ_SHARE = 0.25
# The least a search forced through the played move spends.
MIN_FORCED_ITERATIONS = 64

# A decided position's search runs this many times the budget (1: the budget alone).
DECIDED_BUDGET_FACTOR = 1

# Iterations (or seconds) a search runs between two looks at the stop event.
_SLICE_ITERATIONS = 256
_SLICE_S = 0.05


@dataclass(frozen=True)
class MoveReview:
    """The review of one move of a record (see the module's docstring for the method)."""

    index: int  # the move's index in record.moves
    seat: int
    played: int  # action id
    played_text: str
    best: int  # action id of the best move found
    best_text: str
    line: tuple[str, ...]  # the best line's action texts, starting with best
    win_probability_before: float  # the seat's, from what it knew then (or hindsight)
    win_probability_best: float
    win_probability_played: float
    loss: float  # in win probability: max(0, best - played)
    label: str  # one of LABELS, by severity
    only_move: bool  # a single legal action: not a decision, never labelled
    iterations: int  # search iterations spent on this decision
    hindsight: bool  # True: searched knowing every hand (after-game study)
    # Expected final score margin (the seat's score less the best other seat's, in the
    # game's points_unit) after the best move and after the move played, and the points
    # the move gave away: max(0, best - played).
    points_best: float
    points_played: float
    points_lost: float
    line_seats: tuple[int, ...]  # the seat taking each action of line (as far as known)
    # What labels and accuracy read: loss where the game is open, where it is decided
    # max(loss, points_as_loss(points_lost)) (the module's docstring).
    severity: float

    @property
    def decided(self) -> bool:
        """Whether the game was decided before the move (its win probability outside
        ``OPEN``): then points are judged beside win probability."""
        return not OPEN[0] <= self.win_probability_before <= OPEN[1]

    @property
    def forced(self) -> bool:
        """The older name of ``only_move`` (a move with a single legal action)."""
        return self.only_move


@dataclass(frozen=True)
class SeatSummary:
    """One seat's figures over its decisions: the reviewed moves that were not only
    moves."""

    seat: int
    decisions: int
    average_loss: float  # mean loss over the decisions (0 with none)
    counts: dict[str, int]  # per label name (no "" key)
    accuracy: float  # 0..100: the mean of accuracy_of_loss(severity) (100 with none)
    average_points_lost: float = 0.0  # mean points lost over the decisions (0 with none)


def label_of(loss: float) -> str:
    """The label of a loss: the most severe whose threshold it reaches ("" for none).

    >>> label_of(0.0), label_of(THRESHOLDS["mistake"]), label_of(1.0)
    ('', 'mistake', 'blunder')
    """
    found = ""
    for name in LABELS[1:]:
        if loss >= THRESHOLDS[name]:
            found = name
    return found


def accuracy_of_loss(loss: float) -> float:
    """One decision's accuracy, 0..100, from its ``severity`` (its loss in win probability,
    or its points read as one; lichess's curve with ``ACCURACY_SLOPE``, the module's
    docstring).

    >>> accuracy_of_loss(0.0), round(accuracy_of_loss(THRESHOLDS["inaccuracy"]), 6)
    (100.0, 50.0)
    >>> round(accuracy_of_loss(THRESHOLDS["mistake"]), 2), accuracy_of_loss(1.0)
    (24.23, 0.0)
    """
    value = 103.1668 * math.exp(-ACCURACY_SLOPE * loss) - 3.1668
    return min(100.0, max(0.0, value))


def points_as_loss(points_lost: float, game: str) -> float:
    """Points lost in ``game`` as the loss in win probability of the same label: the
    straight line through (0, 0) and each label's pair of thresholds (the game's
    ``review_thresholds``, council.mcts.games; ``THRESHOLDS``), on past the last with its slope.

    >>> from council.engine.games import DEFAULT_GAME
    >>> points_as_loss(0.0, DEFAULT_GAME)
    0.0
    >>> steps = search_game(DEFAULT_GAME).review_thresholds
    >>> [points_as_loss(steps[n], DEFAULT_GAME) == t for n, t in THRESHOLDS.items()]
    [True, True, True]
    """
    points = search_game(game).review_thresholds
    knots = [(0.0, 0.0)] + [(points[name], THRESHOLDS[name]) for name in LABELS[1:]]
    # The segment that starts at or below the points (a threshold maps exactly to its
    # label's loss); past the last threshold, the last segment's slope from it.
    at = max(i for i, (x, _) in enumerate(knots) if x <= max(0.0, points_lost))
    if at == len(knots) - 1:
        (x0, y0), (x1, y1) = knots[-2], knots[-1]
        return y1 + (y1 - y0) / (x1 - x0) * (points_lost - x1)
    (x0, y0), (x1, y1) = knots[at], knots[at + 1]
    return y0 + (y1 - y0) * (points_lost - x0) / (x1 - x0)


def _decision_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + (index + 1) * 0x9E3779B1) & 0x7FFFFFFFFFFFFFFF


def _root_value(result: SearchResult) -> float:
    """The search's value of its root for the seat to move: the visit-weighted mean of its
    candidates' win probabilities."""
    visits = sum(c.visits for c in result.candidates)
    return sum(c.win_probability * c.visits for c in result.candidates) / max(1, visits)


class _Budget:
    """The review's clock and stop event, and the searches' slices between looks at them."""

    def __init__(self, total_time_s: float | None, stop: threading.Event | None):
        self.deadline = None if total_time_s is None else time.perf_counter() + total_time_s
        self.stop = stop

    def cancelled(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def spent(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def run(self, searcher: Search, iterations: int | None, time_s: float | None) -> None:
        """Run a search to its limits in slices, ending early on cancel or at the deadline
        (at least one slice). The same iteration budget gives the same tree however it is
        sliced with one thread."""
        end = None if time_s is None else time.perf_counter() + time_s
        if self.deadline is not None:
            end = self.deadline if end is None else min(end, self.deadline)
        done = 0
        while True:
            left = None if iterations is None else iterations - done
            if left is not None and left <= 0:
                return
            now = time.perf_counter()
            if end is not None and now >= end and done > 0:
                return
            step = _SLICE_ITERATIONS if left is None else min(left, _SLICE_ITERATIONS)
            slice_s = None if end is None else max(0.0, min(_SLICE_S, end - now))
            ran = searcher.run(step, slice_s)
            if ran == 0:  # a position with one legal action: its short look is done
                return
            done += ran
            if self.cancelled():
                searcher.stop.set()
                return


def review_game(
    record: Any,
    *,
    seats: Sequence[int] | None = None,
    limits: SearchLimits,
    total_time_s: float | None = None,
    hindsight: bool = False,
    seed: int = 0,
    config: SearchConfig | None = None,
    stop: threading.Event | None = None,
) -> Iterator[MoveReview]:
    """Review the moves of ``seats`` (None: every seat) of a ``council.v1.GameRecord``, one
    ``MoveReview`` per move, in the record's order (the method: the module's docstring).

    The arguments are checked at the call, before the first review: the record is
    validated (``replay``: ``StateValidationError`` listing every problem with its path),
    ``seats`` must be seats of its game and ``total_time_s`` positive (ValueError).
    ``limits`` is each decision's budget; ``total_time_s`` the whole review's, counted from
    the first review: once spent, the decision under way is cut short (and still yielded,
    its ``iterations`` telling how far it got) and no later move is reviewed. ``config``:
    the search's settings (None: the game's defaults). Setting ``stop`` cancels: the search
    under way stops and the iterator ends without yielding its decision.
    """
    replay(record)
    limits.validate()
    if total_time_s is not None and not total_time_s > 0:
        raise ValueError(f"total_time_s: must be > 0, got {total_time_s}")
    state = state_from_proto(record.start)
    game = game_of(state)
    wanted = set(range(state.n_players)) if seats is None else set(seats)
    unknown = sorted(s for s in wanted if not 0 <= s < state.n_players)
    if unknown:
        raise ValueError(f"seats: {unknown} are not seats of this {state.n_players}-seat game")
    config = config or default_config(state)
    if config.margin_weight < REVIEW_MARGIN_WEIGHT:
        config = dataclasses.replace(config, margin_weight=REVIEW_MARGIN_WEIGHT)
    config = config.validate()
    return _reviews(
        record, game, state, wanted, limits, config, hindsight, seed, total_time_s, stop
    )


def _reviews(
    record: Any,
    game: Game,
    state: Any,
    wanted: set[int],
    limits: SearchLimits,
    config: SearchConfig,
    hindsight: bool,
    seed: int,
    total_time_s: float | None,
    stop: threading.Event | None,
) -> Iterator[MoveReview]:
    budget = _Budget(total_time_s, stop)  # the clock starts with the first review
    for index, move in enumerate(record.moves):
        if move.seat in wanted:
            if budget.cancelled() or budget.spent():
                return
            review = _review_move(
                game, state, index, move.action_id, limits, config, hindsight, seed, budget
            )
            if budget.cancelled():
                return
            yield review
        play_move(state, move)


def _searcher(
    state: Any,
    seat: int,
    hindsight: bool,
    limits: SearchLimits,
    config: SearchConfig,
    seed: int,
    root_action: int = -1,
) -> Search:
    """A search of the position before a move: from the mover's view (its hidden
    information only) or, with hindsight, of the full state."""
    build = Search.from_full_state if hindsight else Search.from_view
    root = state if hindsight else state.view(seat)
    return build(
        root, config, seed, limits.max_nodes, limits.threads, StopFlag(), root_action=root_action
    )


def _review_move(
    game: Game,
    state: Any,
    index: int,
    played: int,
    limits: SearchLimits,
    config: SearchConfig,
    hindsight: bool,
    seed: int,
    budget: _Budget,
) -> MoveReview:
    seat = state.current_player
    decision_seed = _decision_seed(seed, index)
    free = _searcher(state, seat, hindsight, limits, config, decision_seed)
    budget.run(free, limits.iterations, limits.time_s)
    result = free.result()
    if DECIDED_BUDGET_FACTOR > 1 and not OPEN[0] <= _root_value(result) <= OPEN[1]:
        # A decided position: the same search runs on, to tell the moves' points apart.
        more = DECIDED_BUDGET_FACTOR - 1
        budget.run(
            free,
            None if limits.iterations is None else more * limits.iterations,
            None if limits.time_s is None else more * limits.time_s,
        )
        result = free.result()
    iterations = result.iterations
    by_action = {c.action: c for c in result.candidates}
    # The most visited (the search plays another where its game's search mixes its play).
    best = result.candidates[0]
    only_move = len(state.legal_actions()) == 1
    if played == best.action:
        played_c = best
    elif (c := by_action.get(played)) is not None and (
        c.visits >= READ_VISITS and c.visits >= READ_SHARE * best.visits
    ):
        played_c = c
    else:
        forced_search = _searcher(
            state, seat, hindsight, limits, config, decision_seed, root_action=played
        )
        spend = max(MIN_FORCED_ITERATIONS, best.visits)
        share = best.visits / max(1, result.iterations)
        budget.run(
            forced_search,
            spend if limits.iterations is not None else None,
            None if limits.time_s is None else max(_SLICE_S, limits.time_s * share),
        )
        played_c = forced_search.result().candidates[0]
        iterations += forced_search.iterations
    factor = game.points_per_margin
    points_best, points_played = factor * best.vp_margin, factor * played_c.vp_margin
    loss = 0.0 if only_move else max(0.0, best.win_probability - played_c.win_probability)
    points_lost = 0.0 if only_move else max(0.0, points_best - points_played)
    before = _root_value(result)
    decided = not OPEN[0] <= before <= OPEN[1]
    severity = max(loss, points_as_loss(points_lost, game.name)) if decided else loss
    root = state if hindsight else state.view(seat)
    line = game.line_to_protos(root, result.principal_variation, result.seed)
    return MoveReview(
        index=index,
        seat=seat,
        played=played,
        played_text=state.action_to_text(played),
        best=best.action,
        best_text=state.action_to_text(best.action),
        line=tuple(m.text for m in line),
        win_probability_before=before,
        win_probability_best=best.win_probability,
        win_probability_played=played_c.win_probability,
        loss=loss,
        label="" if only_move else label_of(severity),
        only_move=only_move,
        iterations=iterations,
        hindsight=hindsight,
        points_best=points_best,
        points_played=points_played,
        points_lost=points_lost,
        line_seats=_line_seats(root, result.principal_variation, result.seed),
        severity=severity,
    )


# Steps a line may leave out before its next action (Council of Four's payment after an
# action: the search settles it without searching it, so the line does not name it).
_UNNAMED_STEPS = 3


def _line_seats(root: Any, line: Sequence[int], seed: int) -> tuple[int, ...]:
    """The seat taking each action of a line from ``root`` (a view or a full state), as far
    as a determinization drawn with the search's seed plays it: a step of the same seat's
    that the line leaves out (a payment) is settled by the first legal action, so that the
    next action's seat is found."""
    world = root.determinize(seed) if root.is_view else root.clone()
    seats: list[int] = []
    for action in line:
        for _ in range(_UNNAMED_STEPS):
            if world.is_terminal() or world.is_legal(action):
                break
            mover = world.current_player
            world.apply(world.legal_actions()[0])
            if world.current_player != mover:  # not a step of the same seat's: lost track
                return tuple(seats)
        if world.is_terminal() or not world.is_legal(action):
            break
        seats.append(world.current_player)
        world.apply(action)
    return tuple(seats)


def summarize(reviews: Iterable[MoveReview]) -> list[SeatSummary]:
    """One SeatSummary per seat reviewed, in seat order (the module's docstring defines
    the figures).

    >>> from council.engine.games import DEFAULT_GAME
    >>> def move(seat, loss, points=0.0, only=False):
    ...     severity = max(loss, points_as_loss(points, DEFAULT_GAME))
    ...     return MoveReview(0, seat, 1, "a", 2, "b", ("b",), 0.5, 0.5, 0.5 - loss, loss,
    ...                       label_of(severity), only, 10, False, 3.0, 3.0 - points, points,
    ...                       (seat,), severity)
    >>> moves = [move(0, 0.0), move(0, 0.1), move(0, 0.0, points=20.0), move(0, 0.5, only=True)]
    >>> [s] = summarize(moves)
    >>> s.decisions, round(s.average_loss, 3), s.counts["mistake"], s.counts["blunder"]
    (3, 0.033, 1, 1)
    >>> s.average_points_lost, round(s.accuracy, 2)
    (6.666666666666667, 43.61)
    """
    by_seat: dict[int, list[MoveReview]] = {}
    for r in reviews:
        decided = by_seat.setdefault(r.seat, [])
        if not r.only_move:
            decided.append(r)
    out = []
    for seat in sorted(by_seat):
        decided = by_seat[seat]
        n = len(decided)
        out.append(
            SeatSummary(
                seat=seat,
                decisions=n,
                average_loss=sum(r.loss for r in decided) / n if n else 0.0,
                counts={name: sum(r.label == name for r in decided) for name in LABELS[1:]},
                accuracy=sum(accuracy_of_loss(r.severity) for r in decided) / n if n else 100.0,
                average_points_lost=sum(r.points_lost for r in decided) / n if n else 0.0,
            )
        )
    return out


def review_to_json(
    reviews: Iterable[MoveReview], summaries: Iterable[SeatSummary], *, game: str = ""
) -> dict:
    """The ``council-ai review --json`` object: ``game`` (the game's name, as given),
    ``points_unit`` (its unit of points, "" for a game not named), ``hindsight``, ``moves``
    (one entry per MoveReview: ``move`` is its index in the record, ``played`` and ``best``
    the actions' texts, ``played_id`` and ``best_id`` their ids, ``line_seats`` the seat of
    each action of ``line``, ``win_probability_loss`` the loss in win probability) and
    ``seats`` (one entry per SeatSummary)."""
    reviews = list(reviews)
    return {
        "game": game,
        "points_unit": game_named(game).points_unit if game else "",
        "hindsight": any(r.hindsight for r in reviews),
        "moves": [
            {
                "seat": r.seat,
                "move": r.index,
                "played": r.played_text,
                "played_id": r.played,
                "best": r.best_text,
                "best_id": r.best,
                "line": list(r.line),
                "line_seats": list(r.line_seats),
                "win_probability_before": r.win_probability_before,
                "win_probability_best": r.win_probability_best,
                "win_probability_played": r.win_probability_played,
                "win_probability_loss": r.loss,
                "points_best": r.points_best,
                "points_played": r.points_played,
                "points_lost": r.points_lost,
                "severity": r.severity,
                "label": r.label,
                "only_move": r.only_move,
                "forced": r.forced,
                "iterations": r.iterations,
            }
            for r in reviews
        ],
        "seats": [
            {
                "seat": s.seat,
                "decisions": s.decisions,
                "average_loss": s.average_loss,
                "average_points_lost": s.average_points_lost,
                "counts": dict(s.counts),
                "accuracy": s.accuracy,
            }
            for s in summaries
        ],
    }
