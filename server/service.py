"""The CouncilService servicer: validate -> convert -> engine / search -> convert.

Every handler is stateless: the request carries the whole position. Searches see only the
requesting seat's view (``State.view``); whatever the request says about other seats'
hidden cards is discarded before the search starts.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from council.engine import GameConfig, State
from council.engine import board as _board
from council.engine.actions import NUM_ACTIONS, ActionKind, describe
from council.engine.actions import Action as EngineAction
from council.engine.serialize import (
    FORMAT,
    StateValidationError,
    config_from_json,
    state_from_json,
    state_to_json,
)
from council.mcts.search import Search, SearchConfig, SearchLimits, StopFlag, search
from council.server import convert, presets
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

log = logging.getLogger("council.server")

STATE_CACHE_SIZE = 512
SERVICE_NAME = spb.DESCRIPTOR.services_by_name["CouncilService"].full_name


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server (``council-ai serve`` flags)."""

    address: str = "127.0.0.1:50051"
    search_slots: int = 0  # searches running at once; 0 = one per CPU core
    search_queue: int = -1  # admitted searches waiting for a slot; -1 = 2 x slots
    cheap_workers: int = 8  # threads for the calls that do not search
    max_iterations: int = 2_000_000
    max_search_time_s: float = 30.0
    max_nodes: int = 2_000_000
    default_preset: str = presets.DEFAULT_PRESET
    deadline_margin_s: float = 0.02  # plus 10% of the remaining time
    grace_s: float = 5.0  # SIGTERM: in-flight calls get this long, then are cancelled
    auth_token: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    search_config: SearchConfig = field(default_factory=SearchConfig)

    def resolved(self) -> ServerConfig:
        import os

        slots = self.search_slots or (os.cpu_count() or 1)
        queue = 2 * slots if self.search_queue < 0 else self.search_queue
        if self.default_preset not in presets.BY_NAME:
            raise ValueError(f"default_preset: unknown preset {self.default_preset!r}")
        if not self.max_search_time_s > 0 or self.max_iterations < 1 or self.max_nodes < 1:
            raise ValueError("max_search_time_s, max_iterations and max_nodes must be positive")
        return _replace(self, search_slots=slots, search_queue=queue)

    @property
    def max_concurrent_rpcs(self) -> int:
        return self.search_slots + self.search_queue + self.cheap_workers


def _replace(cfg, **changes):
    from dataclasses import replace

    return replace(cfg, **changes)


# -- errors --------------------------------------------------------------------------------


class RpcError(Exception):
    """A call's failure: a status code, a message and field violations (BadRequest)."""

    def __init__(self, code: grpc.StatusCode, message: str, violations=()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.violations = list(violations)


def invalid(violations, message: str | None = None) -> RpcError:
    violations = list(violations)
    if message is None:
        message = "; ".join(f"{f}: {p}" for f, p in violations[:5])
        if len(violations) > 5:
            message += f"; and {len(violations) - 5} more"
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, violations)


def failed_precondition(message: str) -> RpcError:
    return RpcError(grpc.StatusCode.FAILED_PRECONDITION, message)


def _status(error: RpcError):
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message)
    if error.violations:
        detail = any_pb2.Any()
        detail.Pack(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                    for f, d in error.violations
                ]
            )
        )
        status.details.append(detail)
    return rpc_status.to_status(status)


def _unary(fn):
    @functools.wraps(fn)
    def handler(self, request, context):
        try:
            return fn(self, request, context)
        except RpcError as error:
            context.abort_with_status(_status(error))
        except Exception:  # a bug: log it, answer INTERNAL, keep serving
            log.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"{fn.__name__}: internal error")

    return handler


def _stream(fn):
    @functools.wraps(fn)
    def handler(self, request, context):
        try:
            yield from fn(self, request, context)
        except RpcError as error:
            context.abort_with_status(_status(error))
        except Exception:
            log.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"{fn.__name__}: internal error")

    return handler


# -- admission -----------------------------------------------------------------------------


class Admission:
    """At most `slots` searches run; at most `queue` more wait, first come first served.
    Beyond that a call is refused at once with RESOURCE_EXHAUSTED."""

    def __init__(self, slots: int, queue: int):
        self.slots = slots
        self.capacity = slots + queue
        self._lock = threading.Lock()
        self._free = slots
        self._admitted = 0
        self._waiting: deque[threading.Event] = deque()

    def _hand_over(self) -> None:
        """Give a freed slot to the longest waiting call, or back to the pool (lock held)."""
        if self._waiting:
            self._waiting.popleft().set()
        else:
            self._free += 1

    @contextlib.contextmanager
    def enter(self, context, margin):
        with self._lock:
            if self._admitted >= self.capacity:
                raise RpcError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "the server is at capacity (all search slots and queue places are "
                    "taken); retry later",
                )
            self._admitted += 1
            turn = None
            if self._free > 0:
                self._free -= 1
            else:
                turn = threading.Event()
                self._waiting.append(turn)
        try:
            while turn is not None and not turn.wait(0.05):
                left = context.time_remaining()
                if context.is_active() and (left is None or left > margin(left)):
                    continue
                with self._lock:
                    if turn.is_set():  # the slot arrived just now: take it
                        break
                    self._waiting.remove(turn)
                if not context.is_active():
                    raise RpcError(grpc.StatusCode.CANCELLED, "cancelled while queued")
                raise RpcError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "no search slot became free before the deadline",
                )
        except BaseException:
            with self._lock:
                self._admitted -= 1
            raise
        try:
            yield
        finally:
            with self._lock:
                self._admitted -= 1
                self._hand_over()


# -- the servicer --------------------------------------------------------------------------


@dataclass
class _Plan:
    """A validated search request."""

    view: State
    seat: int
    iterations: int | None
    time_s: float
    seed: int
    max_candidates: int


@dataclass(frozen=True)
class SearchRecord:
    """What a finished search did (kept for tests and diagnostics)."""

    method: str
    stop_reason: int
    iterations: int
    elapsed_s: float
    time_budget_s: float


class CouncilServicer(service_pb2_grpc.CouncilServiceServicer):
    def __init__(self, config: ServerConfig | None = None):
        self.config = (config or ServerConfig()).resolved()
        self.admission = Admission(self.config.search_slots, self.config.search_queue)
        self._stops: set = set()
        self._lock = threading.Lock()
        self.finished: deque[SearchRecord] = deque(maxlen=256)
        self._idle = threading.Condition(self._lock)
        # Validated positions by their serialized message: front-ends send the same position
        # several times (list, recommend, apply); only valid ones are kept.
        self._states: OrderedDict[tuple, State] = OrderedDict()
        self._active = 0

    # -- shutdown support --------------------------------------------------------------
    def cancel_all(self) -> None:
        """Stop every running search (they answer with their best action so far)."""
        with self._lock:
            for stop in self._stops:
                stop.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no search is running (True) or the timeout passes (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)

    @contextlib.contextmanager
    def _tracked(self, stop):
        with self._lock:
            self._stops.add(stop)
            self._active += 1
        try:
            yield
        finally:
            with self._idle:
                self._stops.discard(stop)
                self._active -= 1
                self._idle.notify_all()

    # -- validation helpers ------------------------------------------------------------
    def _margin(self, remaining: float) -> float:
        return self.config.deadline_margin_s + 0.1 * remaining

    def _load(self, request, *, requesting_seat: int | None) -> State:
        """The validated State of `request.state`. A state without a viewer whose other
        seats' hands are (partly) absent is read as the view of the requesting seat."""
        if not request.HasField("state"):
            raise invalid([("state", "required field is missing")])
        msg = request.state
        key = (msg.SerializeToString(deterministic=True), requesting_seat)
        with self._lock:
            cached = self._states.get(key)
            if cached is not None:
                self._states.move_to_end(key)
                return cached.clone()
        state = self._validate(msg, requesting_seat)
        with self._lock:
            self._states[key] = state.clone()
            if len(self._states) > STATE_CACHE_SIZE:
                self._states.popitem(last=False)
        return state

    def _validate(self, msg, requesting_seat: int | None) -> State:
        obj = convert.state_json_from_proto(msg)
        players = obj["players"]
        if obj["viewer"] is None and any(p["hand"] is None for p in players):
            seat = requesting_seat
            if seat is None:
                current = obj.get("turn", {}).get("current")
                seat = current if isinstance(current, int) else 0
            if 0 <= seat < len(players):
                obj["viewer"] = seat
                obj["rng"] = None
                board = obj.get("board")
                if board is not None:
                    board["politics_deck"] = None
                    for deck in board.get("permit_decks", {}).values():
                        deck["unknown"] = sorted(deck["unknown"])
                for p, player in enumerate(players):
                    if p != seat:
                        player["hand"] = None
        try:
            return state_from_json(obj)
        except StateValidationError as e:
            raise invalid(
                [(convert.map_violation_path(f, msg), problem) for f, problem in e.violations]
            ) from None

    def _seat(self, request, state: State) -> int:
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

    def _limits(self, request) -> tuple[int | None, float]:
        cfg = self.config
        limits = request.limits
        violations = []
        if limits.preset != pb.STRENGTH_PRESET_UNSPECIFIED:
            if limits.preset not in presets.BY_VALUE:
                violations.append(("limits.preset", f"unknown preset {limits.preset}"))
                preset = presets.BY_NAME[cfg.default_preset]
            else:
                preset = presets.BY_VALUE[limits.preset]
            iterations, time_s = preset.iterations, preset.time_s
        elif limits.HasField("iterations") or limits.HasField("max_time"):
            iterations, time_s = None, None
        else:
            preset = presets.BY_NAME[cfg.default_preset]
            iterations, time_s = preset.iterations, preset.time_s
        if limits.HasField("iterations"):
            if limits.iterations < 1:
                violations.append(
                    ("limits.iterations", f"must be at least 1, got {limits.iterations}")
                )
            else:
                iterations = min(iterations or limits.iterations, limits.iterations)
        if limits.HasField("max_time"):
            d = limits.max_time
            t = d.seconds + d.nanos / 1e9
            if not (t > 0 and -1e9 < d.nanos < 1e9 and (d.seconds >= 0) == (d.nanos >= 0)):
                violations.append(("limits.max_time", "must be a positive duration"))
            else:
                time_s = min(time_s or t, t)
        if violations:
            raise invalid(violations)
        if iterations is not None:
            iterations = min(iterations, cfg.max_iterations)
        time_s = min(time_s if time_s is not None else math.inf, cfg.max_search_time_s)
        return iterations, time_s

    def _plan(self, request) -> _Plan:
        requesting = request.seat if request.HasField("seat") else None
        if requesting is not None and requesting < 0:
            raise invalid([("seat", f"must be a seat number, got {requesting}")])
        state = self._load(request, requesting_seat=requesting)
        seat = self._seat(request, state)
        iterations, time_s = self._limits(request)
        if request.max_candidates < 0:
            raise invalid([("max_candidates", "must be >= 0")])
        view = state if state.is_view else state.view(seat)
        return _Plan(view, seat, iterations, time_s, request.seed, request.max_candidates)

    def _time_budget(self, plan: _Plan, context) -> tuple[float, bool]:
        left = context.time_remaining()
        if left is None:
            return plan.time_s, False
        available = left - self._margin(left)
        if available < plan.time_s:
            return max(available, 0.001), True
        return plan.time_s, False

    # -- result conversion -------------------------------------------------------------
    def _result_proto(self, result, plan: _Plan, time_s, reason) -> pb.SearchResult:
        out = pb.SearchResult(seed=result.seed, seat=plan.seat)
        out.action.CopyFrom(convert.action_proto(result.action))
        candidates = result.candidates
        if plan.max_candidates:
            candidates = candidates[: plan.max_candidates]
        for c in candidates:
            m = out.candidates.add(
                visits=c.visits,
                mean_reward=c.mean_reward,
                win_probability=c.win_probability,
                vp_margin=c.vp_margin,
            )
            m.action.CopyFrom(convert.action_proto(c.action))
        for a in result.principal_variation:
            out.principal_variation.add().CopyFrom(convert.action_proto(a))
        stats = out.stats
        stats.iterations = result.iterations
        stats.elapsed.CopyFrom(_duration(result.elapsed_s))
        stats.tree_nodes = result.tree_nodes
        stats.stop_reason = reason
        stats.iteration_budget = plan.iterations or 0
        stats.time_budget.CopyFrom(_duration(time_s))
        return out

    def _reason(self, result, plan, stop, context, by_deadline) -> int:
        if stop.is_set():  # the call was cancelled (or timed out), or the server is stopping
            return pb.STOP_REASON_CANCELLED
        if result.forced:
            return pb.STOP_REASON_ONLY_MOVE
        if plan.iterations is not None and result.iterations >= plan.iterations:
            return pb.STOP_REASON_ITERATIONS
        return pb.STOP_REASON_DEADLINE if by_deadline else pb.STOP_REASON_TIME

    def _record(self, method, reason, iterations, elapsed, time_s):
        self.finished.append(SearchRecord(method, reason, iterations, elapsed, time_s))

    # -- RPCs --------------------------------------------------------------------------
    @_unary
    def NewGame(self, request, context):
        try:
            config = config_from_json(
                convert.config_to_json(request.config), "config", complete=False
            )
        except StateValidationError as e:
            raise invalid(e.violations) from None
        state = State.new_game(config, seed=request.seed)
        response = spb.NewGameResponse(state=convert.state_proto_from_json(state_to_json(state)))
        if request.include_views:
            _add_views(response.views, state)
        return response

    @_unary
    def ListLegalActions(self, request, context):
        requesting = request.seat if request.HasField("seat") else None
        if requesting is not None and requesting < 0:
            raise invalid([("seat", f"must be a seat number, got {requesting}")])
        state = self._load(request, requesting_seat=requesting)
        seat = self._seat(request, state)
        full = state.determinize(0) if state.is_view else state
        response = spb.ListLegalActionsResponse(seat=seat, decision=state.decision()[0])
        actions = full.legal_actions()
        response.actions.extend([convert.action_proto(a) for a in actions])
        if request.include_descriptions:
            for m in response.actions:
                m.description = describe(state, m.id)
        return response

    @_unary
    def ApplyAction(self, request, context):
        state = self._load(request, requesting_seat=None)
        if state.is_terminal():
            raise failed_precondition("the game is over: no action can be applied")
        if state.is_view:
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
            state = state.determinize(request.seed)
        elif request.HasField("seed"):
            state.reseed(request.seed)
        action, where = self._action(request)
        if not state.is_legal(action):
            decision = state.decision()[0]
            raise invalid(
                [
                    (
                        where,
                        f"{EngineAction.from_id(action).to_text()!r} (id {action}) is not legal "
                        f"here (seat {state.current_player} to move, decision {decision!r})",
                    )
                ]
            )
        state.apply(action)
        obj = state_to_json(state)
        response = spb.ApplyActionResponse(
            state=convert.state_proto_from_json(obj),
            game_over=state.is_terminal(),
            scores=state.scores(),
            winners=state.winners() if state.is_terminal() else [],
        )
        response.applied.CopyFrom(convert.action_proto(action))
        if request.include_views:
            _add_views(response.views, state)
        return response

    def _action(self, request) -> tuple[int, str]:
        which = request.WhichOneof("action")
        if which is None:
            raise invalid([("action", "required: give action_id, action_text or structured")])
        if which == "action_id":
            if not 0 <= request.action_id < NUM_ACTIONS:
                raise invalid(
                    [("action_id", f"must be in 0..{NUM_ACTIONS - 1}, got {request.action_id}")]
                )
            return request.action_id, "action_id"
        if which == "action_text":
            try:
                return EngineAction.from_text(request.action_text).id, "action_text"
            except ValueError as e:
                raise invalid([("action_text", str(e))]) from None
        try:
            return convert.action_from_proto(request.structured).id, "structured"
        except ValueError as e:
            raise invalid([("structured", str(e))]) from None

    @_unary
    def RecommendAction(self, request, context):
        plan = self._plan(request)
        stop = StopFlag()
        with self.admission.enter(context, self._margin), self._tracked(stop):
            if not context.add_callback(stop.set):
                stop.set()
            time_s, by_deadline = self._time_budget(plan, context)
            limits = SearchLimits(
                iterations=plan.iterations, time_s=time_s, max_nodes=self.config.max_nodes
            )
            result = search(plan.view, limits, self.config.search_config, plan.seed, stop)
            reason = self._reason(result, plan, stop, context, by_deadline)
            self._record("RecommendAction", reason, result.iterations, result.elapsed_s, time_s)
        return spb.RecommendActionResponse(result=self._result_proto(result, plan, time_s, reason))

    @_stream
    def AnalyzePosition(self, request, context):
        plan = self._plan(request)
        interval = 0.2
        if request.HasField("report_interval"):
            d = request.report_interval
            interval = d.seconds + d.nanos / 1e9
            if not interval > 0:
                raise invalid([("report_interval", "must be a positive duration")])
            interval = max(interval, 0.02)
        stop = StopFlag()
        with self.admission.enter(context, self._margin), self._tracked(stop):
            if not context.add_callback(stop.set):
                stop.set()
            time_s, by_deadline = self._time_budget(plan, context)
            analysis = Search.from_view(
                plan.view, self.config.search_config, plan.seed, self.config.max_nodes, 1, stop
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
                reason = pb.STOP_REASON_UNSPECIFIED
                yield spb.AnalyzePositionResponse(
                    result=self._result_proto(result, plan, time_s, reason), final=False
                )
            reason = self._reason(result, plan, stop, context, by_deadline)
            self._record("AnalyzePosition", reason, result.iterations, result.elapsed_s, time_s)
        yield spb.AnalyzePositionResponse(
            result=self._result_proto(result, plan, time_s, reason), final=True
        )

    @_unary
    def GetEngineInfo(self, request, context):
        from importlib import metadata

        try:
            version = metadata.version("council-ai")
        except metadata.PackageNotFoundError:  # pragma: no cover - not installed
            version = "unknown"
        cfg = self.config
        response = spb.GetEngineInfoResponse(
            version=version,
            state_format=FORMAT,
            layouts=list(_board.LAYOUT_CODES),
            rule_variants=[
                "layout",
                "max_coins",
                "assistant_supply",
                "permit_tie_all_score",
                "nobility_bonus_on_pass",
            ],
            num_actions=NUM_ACTIONS,
            max_iterations=cfg.max_iterations,
            search_slots=cfg.search_slots,
        )
        default = GameConfig()
        for name, value in default.to_dict().items():
            setattr(response.default_config, name, value)
        for kind in sorted(ActionKind, key=lambda k: k.offset):
            response.action_ranges.add(
                kind=convert.ACTION_KIND_TO_PROTO[kind], offset=kind.offset, size=kind.size
            )
        for p in presets.PRESETS:
            info = response.presets.add(
                preset=p.value, name=p.name, iterations=p.iterations or 0, description=p.description
            )
            if p.time_s is not None:
                info.max_time.CopyFrom(_duration(min(p.time_s, cfg.max_search_time_s)))
        response.max_search_time.CopyFrom(_duration(cfg.max_search_time_s))
        return response


def _duration(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def _add_views(field, state: State) -> None:
    for seat in range(state.n_players):
        view = state.view(seat)
        field.add(seat=seat, state=convert.state_proto_from_json(state_to_json(view)))
