"""The CouncilService servicer: each handler reads its request, delegates to the engine, the
search, `presets` and `admission`, and builds its answer with `convert`; `errors.rpc` turns
what it raises into the call's status.

Every handler is stateless: the request carries the whole position, of Council of Four
(``State``) or of The Council (``TheCouncilState``, ``config.game`` = GAME_THE_COUNCIL);
each handler serves both. Searches see only the requesting seat's view (``view``); whatever
the request says about other seats' hidden cards is discarded before the search starts.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from council.engine import IllegalActionError, Position, State, TheCouncilState
from council.engine import _the_council as the_council
from council.engine.actions import NUM_ACTIONS, describe
from council.engine.actions import Action as EngineAction
from council.engine.render_the_council import render_the_council_svg
from council.engine.serialize import (
    StateValidationError,
    config_from_proto,
    state_from_proto,
    state_to_proto,
)
from council.engine.svg import render_svg
from council.mcts.search import (
    Search,
    SearchConfig,
    SearchLimits,
    SearchResult,
    StopFlag,
    default_config,
    search,
)
from council.server import convert, presets
from council.server.admission import Admission, caller_of
from council.server.config import ServerConfig
from council.server.errors import failed_precondition, invalid, rpc
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

# ServerConfig is re-exported: callers that build a servicer name its config from here.
__all__ = ["SERVICE_NAME", "CouncilServicer", "SearchRecord", "ServerConfig"]

SERVICE_NAME = spb.DESCRIPTOR.services_by_name["CouncilService"].full_name
RECENT_SEARCHES = 256  # finished searches kept (see CouncilServicer.recent_searches)

# AnalyzePosition reports every 0.2 s unless the request asks otherwise, and never more often
# than every 20 ms. Each report pauses the search, ranks its candidates, walks its principal
# variation and sends a message: five a second keeps a display live at a negligible cost,
# while below 20 ms that work would take a noticeable share of the search's time to send
# updates faster than any display shows them.
REPORT_INTERVAL_S = 0.2
MIN_REPORT_INTERVAL_S = 0.02


@dataclass(frozen=True)
class _Plan:
    """A validated search request."""

    view: Position
    seat: int
    iterations: int | None
    time_s: float
    seed: int
    max_candidates: int
    search_config: SearchConfig  # the server's for Council of Four, The Council's defaults

    def result_proto(
        self, result: SearchResult, time_s: float, reason: pb.StopReason
    ) -> pb.SearchResult:
        """The SearchResult message of this request's search, run with `time_s` seconds."""
        return convert.search_result_proto(
            result,
            view=self.view,
            seat=self.seat,
            max_candidates=self.max_candidates,
            iteration_budget=self.iterations,
            time_budget_s=time_s,
            stop_reason=reason,
        )


@dataclass(frozen=True)
class SearchRecord:
    """How one finished search ended (see `CouncilServicer.recent_searches`)."""

    method: str
    stop_reason: int
    iterations: int
    elapsed_s: float
    time_budget_s: float


class CouncilServicer(service_pb2_grpc.CouncilServiceServicer):
    def __init__(self, config: ServerConfig | None = None):
        self.config = (config or ServerConfig()).resolved()
        self.admission = Admission(self.config.search_slots, self.config.search_queue)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._stops: set[StopFlag] = set()
        self._active = 0
        self._stopping = False  # cancel_all was called: a search starting now stops at once
        # How the last searches ended. A cancelled call gets no answer, so this is the one
        # place that shows its search stopped early (the cancellation test reads it, and an
        # operator can from a debugger); bounded, it costs a few kilobytes.
        self.recent_searches: deque[SearchRecord] = deque(maxlen=RECENT_SEARCHES)

    # -- shutdown support --------------------------------------------------------------
    @property
    def active_searches(self) -> int:
        """Searches running now."""
        return self._active

    def close_admission(self, *, queued: bool = False) -> None:
        """Refuse new searches with UNAVAILABLE (the server is stopping), and with `queued`
        the queued ones too; running searches go on."""
        self.admission.close("the server is shutting down; retry on another server", queued=queued)

    def cancel_all(self) -> None:
        """Stop every running search, and any that starts later (they answer with their best
        action so far)."""
        with self._lock:
            self._stopping = True
            for stop in self._stops:
                stop.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no search is running (True) or the timeout passes (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)

    @contextlib.contextmanager
    def _tracked(self, stop: StopFlag) -> Iterator[None]:
        with self._lock:
            self._stops.add(stop)
            self._active += 1
            if self._stopping:
                stop.set()
        try:
            yield
        finally:
            with self._idle:
                self._stops.discard(stop)
                self._active -= 1
                self._idle.notify_all()

    # -- reading requests --------------------------------------------------------------
    def _load(self, request, *, requesting_seat: int | None) -> Position:
        """The validated position of `request.state`, read by the engine (about 30 µs, so
        nothing is cached). A Council of Four state without a viewer whose other seats' hands
        are (partly) absent is read as the view of the requesting seat (default: the seat to
        move)."""
        if not request.HasField("state"):
            raise invalid([("state", "required field is missing")])
        msg = request.state
        seat = msg.turn.current if requesting_seat is None else requesting_seat
        try:
            return state_from_proto(msg, view_of=seat if 0 <= seat < len(msg.players) else None)
        except StateValidationError as e:
            raise invalid(
                [("state" if f == "(root)" else f"state.{f}", p) for f, p in e.violations]
            ) from None

    def _seat(self, request, state: Position) -> int:
        """The requesting seat: it must be the seat to move and see its own hand."""
        if state.is_terminal():
            raise failed_precondition("the game is over: there is no action to take")
        current = state.current_player
        if request.HasField("seat"):
            seat = request.seat
            if not 0 <= seat < state.n_players:
                raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
        else:
            seat = state.viewer if state.is_view else current
        if state.is_view and seat != state.viewer:
            raise invalid(
                [("seat", f"the state is seat {state.viewer}'s view; seat {seat} cannot use it")]
            )
        if seat != current:
            raise failed_precondition(f"seat {seat} is not to move (seat {current} is)")
        return seat

    def _mover_state(self, request) -> tuple[Position, int]:
        """The validated state of a request made on behalf of a seat, and that seat."""
        requesting = request.seat if request.HasField("seat") else None
        if requesting is not None and requesting < 0:
            raise invalid([("seat", f"must be a seat number, got {requesting}")])
        state = self._load(request, requesting_seat=requesting)
        return state, self._seat(request, state)

    def _plan(self, request) -> _Plan:
        state, seat = self._mover_state(request)
        cfg = self.config
        iterations, time_s = presets.search_budget(
            request.limits,
            cfg.default_preset,
            max_iterations=cfg.max_iterations,
            max_time_s=cfg.max_search_time_s,
            game=request.state.config.game,
        )
        if request.max_candidates < 0:
            raise invalid([("max_candidates", "must be >= 0")])
        view = state if state.is_view else state.view(seat)
        # The server's search settings are Council of Four's; The Council has its own. The
        # preset that sets the budget may tune them (presets.Budget.settings).
        config = self.config.search_config if isinstance(view, State) else default_config(view)
        settings = presets.search_settings(
            request.limits, cfg.default_preset, request.state.config.game
        )
        if settings:
            config = replace(config, **settings)
        return _Plan(view, seat, iterations, time_s, request.seed, request.max_candidates, config)

    def _action(self, request, state: Position) -> tuple[int, str]:
        """The action id of an ApplyAction request in `state` and the field that gave it."""
        which = request.WhichOneof("action")
        if which is None:
            raise invalid([("action", "required: give action_id, action_text or structured")])
        # The game's action space, text form and structured form; the checks are the same.
        num_actions: int
        from_text: Callable[[str], int]
        from_structured: Callable[[pb.Action], int]
        if isinstance(state, TheCouncilState):
            num_actions, from_text, from_structured = (
                the_council.NUM_ACTIONS,
                state.action_from_text,
                functools.partial(convert.the_council_action_from_proto, state),
            )
        else:
            num_actions, from_text, from_structured = (
                NUM_ACTIONS,
                lambda text: EngineAction.from_text(text).id,
                lambda msg: convert.action_from_proto(msg).id,
            )
        if which == "action_id":
            if not 0 <= request.action_id < num_actions:
                raise invalid(
                    [("action_id", f"must be in 0..{num_actions - 1}, got {request.action_id}")]
                )
            return request.action_id, "action_id"
        if which == "action_text":
            try:
                return from_text(request.action_text), "action_text"
            except ValueError as e:
                raise invalid([("action_text", str(e))]) from None
        try:
            return from_structured(request.structured), "structured"
        except convert.StructuredActionError as e:
            raise invalid(
                [(f"structured.{f}" if f else "structured", p) for f, p in e.violations]
            ) from None

    # -- running searches --------------------------------------------------------------
    @contextlib.contextmanager
    def _searching(self, plan: _Plan, context) -> Iterator[tuple[StopFlag, float, bool]]:
        """Hold a search slot for the block and yield the search's stop flag, its time budget
        and whether the call's deadline cut that budget. The flag is set when the call ends
        (cancelled, or past its deadline) or the server stops."""
        stop = StopFlag()
        admitted = self.admission.enter(context, self.config.deadline_margin, caller_of(context))
        with admitted, self._tracked(stop):
            if not context.add_callback(stop.set):  # the call has ended already
                stop.set()
            time_s, by_deadline = self._time_budget(plan, context)
            yield stop, time_s, by_deadline

    def _time_budget(self, plan: _Plan, context) -> tuple[float, bool]:
        left = context.time_remaining()
        if left is None:
            return plan.time_s, False
        available = left - self.config.deadline_margin(left)
        if available < plan.time_s:
            return max(available, 0.001), True
        return plan.time_s, False

    def _record(self, method: str, reason: int, result: SearchResult, time_s: float) -> None:
        self.recent_searches.append(
            SearchRecord(method, reason, result.iterations, result.elapsed_s, time_s)
        )

    # -- RPCs --------------------------------------------------------------------------
    @rpc
    def NewGame(self, request, context):
        try:
            config = config_from_proto(request.config)
        except StateValidationError as e:
            raise invalid(e.violations) from None
        # No seed: a secret random one (a small or guessable seed lets anyone holding a
        # view find every hidden card by trying seeds; docs/service.md, "Seeds").
        seed = request.seed if request.HasField("seed") else secrets.randbits(64)
        state = config.new_game(seed=seed)
        response = spb.NewGameResponse(state=state_to_proto(state))
        if request.include_views:
            convert.add_views(response.views, state)
        return response

    @rpc
    def ListLegalActions(self, request, context):
        state, seat = self._mover_state(request)
        full = state.determinize(0) if state.is_view else state
        if isinstance(full, TheCouncilState):
            response = convert.the_council_legal_actions_response(seat, full)
            if request.include_descriptions:
                for m in response.actions:
                    m.description = convert.describe_the_council(full, m.id)
            return response
        assert isinstance(state, State)
        response = convert.legal_actions_response(seat, state.decision()[0], full.legal_actions())
        if request.include_descriptions:
            for m in response.actions:
                m.description = describe(state, m.id)
        return response

    @rpc
    def ApplyAction(self, request, context):
        given = self._load(request, requesting_seat=None)
        # A view is answered with the same seat's view of the sampled next state: the cards
        # dealt to play it must not come back looking like the game's (`sampled`).
        viewer = given.viewer if given.is_view else None
        state = _world_to_play(given, request)
        action, where = self._action(request, state)
        # The Council's reveal names cards of the position it is taken in: built before.
        applied = (
            convert.the_council_action_proto(state, action)
            if isinstance(state, TheCouncilState)
            else convert.action_proto(action)
        )
        try:
            state.apply(action)  # checks legality itself, and leaves the state as it was if not
        except IllegalActionError:
            raise invalid(
                [
                    (
                        where,
                        f"{applied.text!r} (id {action}) is not legal here (seat "
                        f"{state.current_player} to move, decision {_decision(state)!r})",
                    )
                ]
            ) from None
        over = state.is_terminal()
        shown = state if viewer is None else state.view(viewer)
        response = spb.ApplyActionResponse(
            state=state_to_proto(shown),
            game_over=over,
            scores=shown.scores(),
            winners=shown.winners() if over else [],
            sampled=viewer is not None,
        )
        response.applied.CopyFrom(applied)
        if request.include_views:
            if viewer is None:
                convert.add_views(response.views, state)
            else:
                response.views.add(seat=viewer).state.CopyFrom(response.state)
        return response

    @rpc
    def RecommendAction(self, request, context):
        plan = self._plan(request)
        with self._searching(plan, context) as (stop, time_s, by_deadline):
            limits = SearchLimits(
                iterations=plan.iterations, time_s=time_s, max_nodes=self.config.max_nodes
            )
            result = search(plan.view, limits, plan.search_config, plan.seed, stop)
            reason = _stop_reason(result, plan, stop, by_deadline)
            self._record("RecommendAction", reason, result, time_s)
        return spb.RecommendActionResponse(result=plan.result_proto(result, time_s, reason))

    @rpc
    def AnalyzePosition(self, request, context):
        plan = self._plan(request)
        interval = _report_interval(request)
        with self._searching(plan, context) as (stop, time_s, by_deadline):
            analysis = Search.from_view(
                plan.view, plan.search_config, plan.seed, self.config.max_nodes, 1, stop
            )
            while True:
                left_time = time_s - analysis.elapsed_s
                left_iterations = (
                    None if plan.iterations is None else plan.iterations - analysis.iterations
                )
                analysis.run(left_iterations, max(min(interval, left_time), 0.0))
                done = (
                    stop.is_set()
                    or analysis.forced
                    or analysis.elapsed_s >= time_s
                    or (plan.iterations is not None and analysis.iterations >= plan.iterations)
                )
                result = analysis.result()
                if done:
                    break
                yield spb.AnalyzePositionResponse(
                    result=plan.result_proto(result, time_s, pb.STOP_REASON_UNSPECIFIED),
                    final=False,
                )
            reason = _stop_reason(result, plan, stop, by_deadline)
            self._record("AnalyzePosition", reason, result, time_s)
        yield spb.AnalyzePositionResponse(
            result=plan.result_proto(result, time_s, reason), final=True
        )

    @rpc
    def GetView(self, request, context):
        if not request.HasField("seat"):
            raise invalid([("seat", "required: the seat whose view is wanted")])
        seat = request.seat
        state = self._load(request, requesting_seat=seat if seat >= 0 else None)
        if not 0 <= seat < state.n_players:
            raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
        if state.is_view and state.viewer != seat:
            raise invalid(
                [("seat", f"the state is seat {state.viewer}'s view; seat {seat}'s is not in it")]
            )
        return spb.GetViewResponse(state=state_to_proto(state.view(seat)))

    @rpc
    def RenderPosition(self, request, context):
        seat = request.seat if request.HasField("seat") else None
        state = self._load(request, requesting_seat=seat if seat is None or seat >= 0 else None)
        if seat is not None:
            if not 0 <= seat < state.n_players:
                raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
            if state.is_view and state.viewer != seat:
                problem = f"the state is seat {state.viewer}'s view; seat {seat}'s is not in it"
                raise invalid([("seat", problem)])
            if not state.is_view:
                state = state.view(seat)
        if isinstance(state, TheCouncilState):
            return spb.RenderPositionResponse(svg=render_the_council_svg(state))
        return spb.RenderPositionResponse(svg=render_svg(state))

    @rpc
    def GetEngineInfo(self, request, context):
        cfg = self.config
        return convert.engine_info_proto(
            max_iterations=cfg.max_iterations,
            max_search_time_s=cfg.max_search_time_s,
            search_slots=cfg.search_slots,
        )


def _decision(state: Position) -> str:
    """The decision being taken: Council of Four's "turn" or pending decision, The
    Council's phase."""
    return state.phase if isinstance(state, TheCouncilState) else state.decision()[0]


def _world_to_play(state: Position, request) -> Position:
    """The full state an ApplyAction request plays in: a full state as it is (reseeded when
    the request has a seed), the mover's view with its hidden cards dealt from the seed."""
    if state.is_terminal():
        raise failed_precondition("the game is over: no action can be applied")
    if not state.is_view:
        if request.HasField("seed"):
            state.reseed(request.seed)
        return state
    if not request.HasField("seed"):
        raise invalid(
            [
                (
                    "seed",
                    "required: the state hides cards, which are dealt from this seed "
                    "before the action is applied",
                )
            ]
        )
    if state.viewer != state.current_player:
        raise failed_precondition(
            f"the state is seat {state.viewer}'s view but seat {state.current_player} "
            "is to move: send a full state or the mover's view"
        )
    return state.determinize(request.seed)


def _report_interval(request) -> float:
    """AnalyzePosition's seconds between reports (see REPORT_INTERVAL_S)."""
    if not request.HasField("report_interval"):
        return REPORT_INTERVAL_S
    d = request.report_interval
    interval = d.seconds + d.nanos / 1e9
    if not interval > 0:
        raise invalid([("report_interval", "must be a positive duration")])
    return max(interval, MIN_REPORT_INTERVAL_S)


def _stop_reason(
    result: SearchResult, plan: _Plan, stop: StopFlag, by_deadline: bool
) -> pb.StopReason:
    """Why a finished search stopped (a StopReason value)."""
    if stop.is_set():  # the call was cancelled (or timed out), or the server is stopping
        return pb.STOP_REASON_CANCELLED
    if result.forced:
        return pb.STOP_REASON_ONLY_MOVE
    if plan.iterations is not None and result.iterations >= plan.iterations:
        return pb.STOP_REASON_ITERATIONS
    return pb.STOP_REASON_DEADLINE if by_deadline else pb.STOP_REASON_TIME
