"""AnalyzeGame: the review of a recorded game (``council.mcts.review``) as a server stream.

`plan` reads and checks the request before anything is sent: the record must replay
(``council.engine.record.replay``; its errors become INVALID_ARGUMENT with their paths under
``record.``), hold at most ``max_record_moves`` moves, and the seats, limits and total time
must be valid. `stream` then reviews one decision at a time, each holding one search slot of
the servicer's admission only while it is searched (the caller's cap counts it as one search;
between decisions the slot is free for others), and yields:

* first the progress alone (0 of N decisions done), so a client knows the size of the review
  before the first search ends;
* then one MoveAnalysis per decision, with the progress, as each completes;
* last the seats' summaries (``final``), with why the review ended early, if it did.

The review ends early, still with its final message, when the total time (the request's,
capped by ``max_review_time_s`` and by the call's deadline less its margin) is spent, or when
the server stops. A client that cancels (or whose deadline passes) stops it after the
decision being searched, which frees the slot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import grpc

from council.engine import Position
from council.engine.games import game_of
from council.engine.record import play_move, replay
from council.engine.serialize import StateValidationError, state_from_proto
from council.mcts.review import MoveReview, SeatSummary, review_game, summarize
from council.mcts.search import SearchConfig, SearchLimits
from council.server import presets
from council.server.admission import NO_TIME, caller_of
from council.server.config import ServerConfig
from council.server.errors import RpcError, invalid
from council.server.metrics import preset_label
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

if TYPE_CHECKING:
    from council.server.service import CouncilServicer

__all__ = ["GameReview", "plan", "stream"]

METHOD = "AnalyzeGame"
LABEL_VALUES = {
    "": spb.MOVE_LABEL_UNSPECIFIED,
    "inaccuracy": spb.MOVE_LABEL_INACCURACY,
    "mistake": spb.MOVE_LABEL_MISTAKE,
    "blunder": spb.MOVE_LABEL_BLUNDER,
}


@dataclass(frozen=True)
class GameReview:
    """A checked AnalyzeGame request."""

    record: object  # council.v1.GameRecord
    start: Position
    seats: tuple[int, ...] | None  # None: every seat
    decisions: int  # the moves of the record taken by those seats
    limits: SearchLimits  # each decision's
    total_time_s: float  # the review's, before the call's deadline cuts it
    hindsight: bool
    seed: int
    search_config: SearchConfig
    game: str  # its name
    preset: str  # the metrics' name of its budget (council.server.metrics.preset_label)


def plan(request: spb.AnalyzeGameRequest, config: ServerConfig) -> GameReview:
    """The checked review of `request` (INVALID_ARGUMENT naming each bad field)."""
    if not request.HasField("record"):
        raise invalid([("record", "required field is missing")])
    record = request.record
    if len(record.moves) > config.max_record_moves:
        problem = (
            f"{len(record.moves)} moves, more than the {config.max_record_moves} a record "
            "may have on this server (max_record_moves)"
        )
        raise invalid([("record.moves", problem)])
    try:
        replay(record)
    except StateValidationError as e:
        raise invalid([(_record_path(f), p) for f, p in e.violations]) from None
    start = state_from_proto(record.start)
    seats = _seats(request, start.n_players)
    wanted = range(start.n_players) if seats is None else seats
    game = game_of(start).name
    iterations, time_s = presets.search_budget(
        request.limits,
        config.default_preset,
        max_iterations=config.max_iterations,
        max_time_s=config.max_search_time_s,
        game=game,
    )
    total_s = config.max_review_time_s
    if request.HasField("total_time"):
        d = request.total_time
        given = d.seconds + d.nanos / 1e9
        if not (given > 0 and -1e9 < d.nanos < 1e9 and (d.seconds >= 0) == (d.nanos >= 0)):
            raise invalid([("total_time", "must be a positive duration")])
        total_s = min(given, total_s)
    # As the other searches: the game's defaults with the server's settings, tuned by the
    # preset that sets the budget.
    search_config = config.game_search_config(game).with_settings(
        presets.search_settings(request.limits, config.default_preset, game)
    )
    return GameReview(
        record=record,
        start=start,
        seats=seats,
        decisions=sum(move.seat in wanted for move in record.moves),
        limits=SearchLimits(iterations=iterations, time_s=time_s, max_nodes=config.max_nodes),
        total_time_s=total_s,
        hindsight=request.hindsight,
        seed=request.seed,
        search_config=search_config,
        game=game,
        preset=preset_label(request.limits, config.default_preset),
    )


def _record_path(field: str) -> str:
    """A replay error's path as a path of the request: under ``record``."""
    return "record" + "".join(f".{part}" for part in field.split(".") if part != "(root)")


def _seats(request: spb.AnalyzeGameRequest, n_players: int) -> tuple[int, ...] | None:
    violations = []
    for i, seat in enumerate(request.seats):
        if not 0 <= seat < n_players:
            violations.append((f"seats[{i}]", f"must be in 0..{n_players - 1}, got {seat}"))
        elif seat in request.seats[:i]:
            violations.append((f"seats[{i}]", f"seat {seat} is named twice"))
    if violations:
        raise invalid(violations)
    return tuple(request.seats) or None


def stream(
    servicer: CouncilServicer, review: GameReview, context
) -> Iterator[spb.AnalyzeGameResponse]:
    """The AnalyzeGame stream of a checked request (see the module)."""
    from council.server.service import SearchRecord  # the servicer's module imports this one

    config = servicer.config
    started = time.monotonic()
    total_s, by_deadline = _total_time(review.total_time_s, context, config)
    decision_s = min(review.limits.time_s or total_s, total_s)
    limits = replace(review.limits, time_s=decision_s)
    # Set when the call ends or the server stops: the decision under way stops at once
    # (unreviewed) and so does the review.
    stop = threading.Event()
    progress = spb.AnalyzeGameProgress(decisions_total=review.decisions)
    yield spb.AnalyzeGameResponse(progress=progress, hindsight=review.hindsight)
    reviews: list[MoveReview] = []
    reason: pb.StopReason = pb.STOP_REASON_UNSPECIFIED
    # Each decision's Action messages are built in the position it was taken in.
    board = _Board(review.start.clone(), review.record)
    with servicer._tracked(stop):
        if not context.add_callback(stop.set):  # the call has ended already
            stop.set()
        moves = review_game(
            review.record,
            seats=review.seats,
            limits=limits,
            total_time_s=max(total_s - (time.monotonic() - started), 0.001),
            hindsight=review.hindsight,
            seed=review.seed,
            config=review.search_config,
            stop=stop,
        )
        while len(reviews) < review.decisions:
            if stop.is_set():
                reason = pb.STOP_REASON_CANCELLED
                break
            if time.monotonic() - started >= total_s:
                reason = pb.STOP_REASON_DEADLINE if by_deadline else pb.STOP_REASON_TIME
                break
            try:
                with servicer.admission.enter(
                    context, config.deadline_margin, caller_of(context), stop=None
                ):
                    searched = time.perf_counter()
                    move = next(moves, None)
                    elapsed = time.perf_counter() - searched
            except RpcError as refusal:
                ended = _ended_by(refusal) if reviews else None
                if ended is None:
                    raise
                reason = ended
                break
            if move is None:  # the review's own clock ran out first, or it was stopped
                reason = (
                    pb.STOP_REASON_CANCELLED
                    if stop.is_set()
                    else pb.STOP_REASON_DEADLINE
                    if by_deadline
                    else pb.STOP_REASON_TIME
                )
                break
            reviews.append(move)
            # What the servicer records of every search (recent_searches, metrics).
            searched_reason = _search_reason(move, limits)
            servicer.recent_searches.append(
                SearchRecord(METHOD, searched_reason, move.iterations, elapsed, decision_s)
            )
            servicer.metrics.record_search(
                review.game, review.preset, searched_reason, move.iterations, elapsed
            )
            progress.decisions_done = len(reviews)
            yield spb.AnalyzeGameResponse(
                progress=progress,
                move=_move_proto(move, board),
                hindsight=review.hindsight,
            )
    yield spb.AnalyzeGameResponse(
        progress=progress,
        final=True,
        seats=[_seat_proto(s) for s in summarize(reviews)],
        stop_reason=reason,
        hindsight=review.hindsight,
    )


def _total_time(total_s: float, context, config: ServerConfig) -> tuple[float, bool]:
    """The review's seconds: `total_s`, cut by the call's deadline less its margin (so the
    final message is sent in time), and whether the deadline cut it."""
    left = context.time_remaining()
    if left is None:
        return total_s, False
    available = max(left - config.deadline_margin(left), 0.001)
    return (available, True) if available < total_s else (total_s, False)


def _ended_by(refusal: RpcError) -> pb.StopReason | None:
    """The stop reason of a refused decision after the first (the review ends with what it
    has), or None for a refusal the client should get as the call's error."""
    if refusal.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return pb.STOP_REASON_CANCELLED  # the server is stopping, or the client left
    if refusal.code == grpc.StatusCode.RESOURCE_EXHAUSTED and refusal.message == NO_TIME:
        return pb.STOP_REASON_DEADLINE
    return None


def _search_reason(move: MoveReview, limits: SearchLimits) -> pb.StopReason:
    """How one decision's search ended, for the servicer's record of searches."""
    if move.only_move:
        return pb.STOP_REASON_ONLY_MOVE
    if limits.iterations is not None and move.iterations >= limits.iterations:
        return pb.STOP_REASON_ITERATIONS
    return pb.STOP_REASON_TIME


class _Board:
    """The record's positions, walked forwards: the position before a given move."""

    def __init__(self, start: Position, record):
        self.state = start
        self.moves = record.moves
        self.index = 0

    def before(self, index: int) -> Position:
        while self.index < index:
            play_move(self.state, self.moves[self.index])
            self.index += 1
        return self.state


def _move_proto(move: MoveReview, board: _Board) -> spb.MoveAnalysis:
    state = board.before(move.index)
    game = game_of(state)
    return spb.MoveAnalysis(
        index=move.index,
        seat=move.seat,
        played=game.action_to_proto(state, move.played),
        best=game.action_to_proto(state, move.best),
        line=move.line,
        win_probability_before=move.win_probability_before,
        win_probability_best=move.win_probability_best,
        win_probability_played=move.win_probability_played,
        loss=move.loss,
        label=LABEL_VALUES[move.label],
        only_move=move.only_move,
        forced=move.forced,
        iterations=move.iterations,
        hindsight=move.hindsight,
        points_best=move.points_best,
        points_played=move.points_played,
        points_lost=move.points_lost,
        line_seats=move.line_seats,
        severity=move.severity,
        points_unit=game.points_unit,
    )


def _seat_proto(summary: SeatSummary) -> spb.SeatReview:
    return spb.SeatReview(
        seat=summary.seat,
        decisions=summary.decisions,
        average_loss=summary.average_loss,
        inaccuracies=summary.counts.get("inaccuracy", 0),
        mistakes=summary.counts.get("mistake", 0),
        blunders=summary.counts.get("blunder", 0),
        accuracy=summary.accuracy,
        average_points_lost=summary.average_points_lost,
    )
