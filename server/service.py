"""The CouncilService servicer: each handler reads its request, delegates to the engine, the
search, `presets` and `admission`, and builds its answer with `convert`; `errors.rpc` turns
what it raises into the call's status.

Every handler is stateless: the request carries the whole position, of any registered game
(``config.game``; ``council.engine.games``), whose record each handler asks for what
differs between games (its action codec, its drawing); a sealed game's requests carry it
sealed (``sealed``: the blob and a seat's ticket, ``council.server.sealing``), opened by
`_resolve` with the seat checks.
Searches see only the requesting seat's view (``view``); whatever the request says about
other seats' hidden cards is discarded before the search starts.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import grpc

from council.engine import IllegalActionError, Position
from council.engine.council_of_four_messages import asks_member_form
from council.engine.effects import action_effects, known_effects, public_effects
from council.engine.games import Game, default_game, game_of, game_of_proto
from council.engine.members import both_forms_problems, from_members, to_members
from council.engine.position import StructuredActionError
from council.engine.record import record_of
from council.engine.serialize import (
    TO_MOVE,
    StateValidationError,
    config_from_proto,
    game_of_message,
    state_from_proto,
    state_to_proto,
)
from council.mcts.search import (
    Search,
    SearchConfig,
    SearchLimits,
    SearchResult,
    StopFlag,
    default_config,
    search,
)
from council.server import analyze_game, convert, presets, sealed_games, sealing
from council.server.admission import Admission, caller_of
from council.server.config import ServerConfig
from council.server.errors import RpcError, failed_precondition, invalid, rpc
from council.server.game_store import GameStore, GameStoreUnavailable, StaleBlob
from council.server.metrics import Metrics, preset_label
from council.v1 import game_pb2 as pb
from council.v1 import record_pb2 as rpb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

# ServerConfig is re-exported: callers that build a servicer name its config from here.
__all__ = ["SERVICE_NAME", "CouncilServicer", "SearchRecord", "ServerConfig"]

SERVICE_NAME = spb.DESCRIPTOR.services_by_name["CouncilService"].full_name
log = logging.getLogger(__name__)
# The roles of the tickets a sealed request may carry: most calls show the seat's hand.
PLAYER_ONLY = frozenset({spb.SEAT_ROLE_PLAYER})
PLAYER_OR_BOT = frozenset({spb.SEAT_ROLE_PLAYER, spb.SEAT_ROLE_BOT})
# A sealed game's players as its record names them (a bot's name gains its preset).
PERSON_NAME, BOT_NAME = "player", "bot"
RECENT_SEARCHES = 256  # finished searches kept (see CouncilServicer.recent_searches)
# A NewGame seed below this is found from one seat's view by trying seeds (about 1,200
# NewGame calls found one, or a short loop over the engine): NewGame says so in its reply.
SMALL_SEED_LIMIT = 1 << 32
SMALL_SEED_WARNING = (
    "seed {seed} is below 2^32: anyone holding one seat's view can find it by trying seeds, "
    "and with it every hidden card; leave the seed out of a real game's NewGame (the server "
    "then draws a secret random one), or use a secret random 64-bit value"
)

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
    search_config: SearchConfig  # the game's defaults with the server's and the preset's settings
    # A bot ticket's call: the full state its move is played on, and its game.
    bot_game: tuple[Position, _Unsealed] | None = None
    preset: str = ""  # the metrics' name of its budget (council.server.metrics.preset_label)
    # The request's position in its game's member: the name of the members its answer's
    # actions are written in (to_members); "" for the deprecated form.
    members: str = ""

    def result_proto(
        self, result: SearchResult, time_s: float, reason: pb.StopReason
    ) -> pb.SearchResult:
        """The SearchResult message of this request's search, run with `time_s` seconds."""
        if self.bot_game is not None:  # nothing of the seat's hand: RecommendAction adds
            return pb.SearchResult(seat=self.seat)  # the move played, in its public form
        proto = convert.search_result_proto(
            result,
            view=self.view,
            seat=self.seat,
            max_candidates=self.max_candidates,
            iteration_budget=self.iterations,
            time_budget_s=time_s,
            stop_reason=reason,
        )
        return to_members(proto, self.members) if self.members else proto


@dataclass(frozen=True)
class SearchRecord:
    """How one finished search ended (see `CouncilServicer.recent_searches`)."""

    method: str
    stop_reason: int
    iterations: int
    elapsed_s: float
    time_budget_s: float


@dataclass(frozen=True)
class _Unsealed:
    """What a sealed request's blob and ticket hold."""

    ticket: sealing.Ticket
    game_secret: bytes
    content: spb.SealedContent  # its history too (start, actions, players): the record's


@dataclass(frozen=True)
class _Position:
    """A request's position, read once: the state, its game (looked up once, from the
    message's config and position member), the form the replies write positions in, and a
    sealed request's blob and ticket."""

    state: Position
    game: Game
    # Replies write Council of Four's position, actions and effects in their members
    # (council_of_four) rather than the deprecated fields: the request did (a sealed game's:
    # its blob, the form its NewGame was asked in). docs/state-json.md, "Two forms".
    member_form: bool
    unsealed: _Unsealed | None = None

    @property
    def members(self) -> str:
        """The member its replies write the game's fields in ("": the deprecated form)."""
        return self.game.module_name if self.member_form else ""

    def answer(self, response):
        """A reply, written in the deprecated form, in the request's: its game's fields
        (positions, actions, effects) moved into their members where the request used them."""
        return to_members(response, self.game.module_name) if self.member_form else response


class CouncilServicer(service_pb2_grpc.CouncilServiceServicer):
    def __init__(self, config: ServerConfig | None = None):
        self.config = (config or ServerConfig()).resolved()
        # Each sealed game's latest blob number, when the server refuses rewinds
        # (--no-rewind); None: any blob of a game within its TTL is played on.
        self.game_store: GameStore | None = (
            self.config.game_store_instance if self.config.no_rewind else None
        )
        # No key given: one of this process only (its games end with it).
        self.seal_keys = self.config.seal_keys or sealing.SealKeys.generate(
            "process-" + secrets.token_hex(4)
        )
        self.metrics = Metrics()  # this server's (council.server.metrics)
        self.admission = Admission(
            self.config.search_slots,
            self.config.search_queue,
            per_caller=self.config.searches_per_caller,
            max_queue_wait_s=self.config.max_queue_wait_s,
            observe=self.metrics.admission_event,
        )
        self.metrics.watch_admission(self.admission)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._stops: set[StopFlag | threading.Event] = set()  # (AnalyzeGame's: an Event)
        self._active = 0
        self._stopping = False  # cancel_all was called: a search starting now stops at once
        self._retry_at: float | None = None  # set once admission closes (close_admission)
        # How the last searches ended. A cancelled call gets no answer, so this is the one
        # place that shows its search stopped early (the cancellation test reads it, and an
        # operator can from a debugger); bounded, it costs a few kilobytes.
        self.recent_searches: deque[SearchRecord] = deque(maxlen=RECENT_SEARCHES)

    # -- shutdown support --------------------------------------------------------------
    @property
    def active_searches(self) -> int:
        """Searches running now."""
        return self._active

    @property
    def draining(self) -> bool:
        """Whether the server is stopping (admission closed): not ready for new calls (the
        HTTP port's ``/readyz`` answers 503, gRPC health NOT_SERVING)."""
        return self._retry_at is not None

    def close_admission(self, *, queued: bool = False, retry_at: float | None = None) -> None:
        """Refuse new searches with UNAVAILABLE (the server is stopping), and with `queued`
        the queued ones too; running searches go on. `retry_at` (time.monotonic) is when
        the ports will be closed: a refusal tells a gRPC client to retry then (its retry
        pushback), when a proxy can no longer send the retry here."""
        if self._retry_at is None or retry_at is not None:
            self._retry_at = retry_at if retry_at is not None else time.monotonic()
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
    def _tracked(self, stop: StopFlag | threading.Event) -> Iterator[None]:
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
    def _resolve(
        self, request, *, requesting_seat: int | None, roles: frozenset[int] = PLAYER_ONLY
    ) -> _Position:
        """The validated position of `request.state`, read by the engine (about 30 µs, so
        nothing is cached), of the game the message names. A state without a viewer whose
        other seats' hidden cards are (partly) absent is read as the view of the requesting
        seat (default: the seat to move), in a game that has such states. A sealed request's
        (`sealed`) is the full state in its blob, with its checked ticket: one of `roles`, of
        this game, for the requesting seat if one is named."""
        if request.HasField("sealed"):
            if request.HasField("state"):
                both = "give the position as `state` or as `sealed`, not both"
                raise invalid([("state", both), ("sealed", both)])
            return self._unseal(request.sealed, requesting_seat, roles)
        if not request.HasField("state"):
            raise invalid([("state", "required field is missing")])
        msg = request.state
        try:
            game = game_of_message(msg)
            view_of = TO_MOVE if requesting_seat is None else requesting_seat
            state = state_from_proto(msg, view_of=view_of, game=game)
        except StateValidationError as e:
            raise invalid(
                [("state" if f == "(root)" else f"state.{f}", p) for f, p in e.violations]
            ) from None
        return _Position(state, game, asks_member_form(msg))

    def _unseal(
        self, sealed: spb.Sealed, requesting_seat: int | None, roles: frozenset[int]
    ) -> _Position:
        """The full state of a sealed request and its ticket, checked: the errors say which
        part of `sealed` is wrong (sealing's exceptions, mapped to their statuses)."""
        if not sealed.ticket:
            raise invalid([("sealed.ticket", "required: the ticket of the seat asking")])
        if not sealed.blob:
            raise invalid([("sealed.blob", "required: the game's last sealed_state")])
        try:
            claimed = sealing.parse_ticket(sealed.ticket)
            if claimed.role not in roles:
                role = sealing.ROLE_NAMES[claimed.role]
                raise _denied("sealed.ticket", f"a {role} ticket cannot make this call")
            if requesting_seat is not None and requesting_seat != claimed.seat:
                raise _denied(
                    "seat", f"the ticket is seat {claimed.seat}'s, not seat {requesting_seat}'s"
                )
            content = self.seal_keys.open(sealed.blob, ttl_s=self.config.seal_ttl_s)
            ticket = sealing.check_ticket(content.game_secret, sealed.ticket)
        except sealing.WrongTicket as e:
            raise _denied("sealed.ticket", str(e)) from None
        except (sealing.RetiredKey, sealing.ExpiredBlob) as e:
            raise failed_precondition(f"sealed.blob: {e}") from None
        except sealing.SealError as e:
            raise invalid([(f"sealed.{e.field}", str(e))]) from None
        try:
            game = game_of_message(content.state)
            state = state_from_proto(content.state, game=game)
        except StateValidationError:  # sealed by this server: it must read
            log.exception("a sealed state of this server does not read")
            raise RpcError(grpc.StatusCode.INTERNAL, "sealed.blob: unreadable state") from None
        if self.game_store is not None:
            with _store_errors():
                self.game_store.check(sealed_games.game_id(content.game_secret), content.sequence)
        unsealed = _Unsealed(ticket, content.game_secret, content)
        return _Position(state, game, asks_member_form(content.state), unsealed)

    def _sealed_state(
        self,
        state: Position,
        unsealed: _Unsealed,
        action: int,
        chance_seed: int,
        player: rpb.RecordedPlayer | None = None,
    ) -> bytes:
        """The blob of `state`, reached by `action` with the draws of `chance_seed`, in the
        game of `unsealed`: its history gains the move (and `player`, the bot that chose it,
        replaces its seat's)."""
        history = sealed_games.next_history(unsealed.content, action, chance_seed, player)
        return self._seal_next(state, unsealed, history)

    def _seal_next(self, state: Position, unsealed: _Unsealed, history: spb.SealedContent) -> bytes:
        """The blob of `state` with `history`, the game's next: a server that refuses
        rewinds first records its number as the game's latest, which fails if another call
        already went on from the same blob (two moves from one blob: one is refused)."""
        if self.game_store is not None:
            with _store_errors():
                self.game_store.advance(
                    sealed_games.game_id(unsealed.game_secret),
                    unsealed.content.sequence,
                    history.sequence,
                )
        blob_state = state_to_proto(state, member_form=asks_member_form(unsealed.content.state))
        return self.seal_keys.seal(blob_state, unsealed.game_secret, history=history)

    def _seat(self, request, state: Position, default: int | None = None) -> int:
        """The requesting seat: it must be the seat to move and see its own hand."""
        if state.is_terminal():
            raise failed_precondition("the game is over: there is no action to take")
        current = state.current_player
        if request.HasField("seat"):
            seat = request.seat
            if not 0 <= seat < state.n_players:
                raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
        elif default is not None:
            seat = default
        else:
            seat = state.viewer if state.is_view else current
        if state.is_view and seat != state.viewer:
            raise invalid(
                [("seat", f"the state is seat {state.viewer}'s view; seat {seat} cannot use it")]
            )
        if seat != current:
            raise failed_precondition(f"seat {seat} is not to move (seat {current} is)")
        return seat

    def _mover_state(self, request, roles: frozenset[int] = PLAYER_ONLY) -> tuple[_Position, int]:
        """The validated position of a request made on behalf of a seat, and that seat (a
        sealed request's ticket's seat is the requesting one)."""
        requesting = request.seat if request.HasField("seat") else None
        if requesting is not None and requesting < 0:
            raise invalid([("seat", f"must be a seat number, got {requesting}")])
        position = self._resolve(request, requesting_seat=requesting, roles=roles)
        unsealed = position.unsealed
        ticket_seat = None if unsealed is None else unsealed.ticket.seat
        return position, self._seat(request, position.state, ticket_seat)

    def _plan(self, request, roles: frozenset[int] = PLAYER_ONLY) -> _Plan:
        position, seat = self._mover_state(request, roles)
        state, unsealed, game = position.state, position.unsealed, position.game.name
        cfg = self.config
        limits, seed = request.limits, request.seed
        bot_game = None  # a bot ticket's call plays the move (RecommendAction)
        if unsealed is not None and unsealed.ticket.role == spb.SEAT_ROLE_BOT:
            bot_game = (state, unsealed)
            limits, seed = _bot_search(request, unsealed)
        iterations, time_s = presets.search_budget(
            limits,
            cfg.default_preset,
            max_iterations=cfg.max_iterations,
            max_time_s=cfg.max_search_time_s,
            game=game,
        )
        if request.max_candidates < 0:
            raise invalid([("max_candidates", "must be >= 0")])
        view = state if state.is_view else state.view(seat)
        # Each game's search defaults (council.mcts.games) with the server's search settings
        # (every game's), tuned by the preset that sets the budget (presets.Budget.settings).
        config = cfg.game_search_config(game).with_settings(
            presets.search_settings(limits, cfg.default_preset, game)
        )
        preset = preset_label(limits, cfg.default_preset)
        return _Plan(
            view,
            seat,
            iterations,
            time_s,
            seed,
            request.max_candidates,
            config,
            bot_game,
            preset,
            position.members,
        )

    def _action(self, request, state: Position, game: Game) -> tuple[int, str]:
        """The action id of an ApplyAction request in `state`, a position of `game` (its
        action space, text form and structured form), and the field that gave it."""
        which = request.WhichOneof("action")
        if which is None:
            raise invalid([("action", "required: give action_id, action_text or structured")])
        num_actions = game.num_actions
        if which == "action_id":
            if not 0 <= request.action_id < num_actions:
                raise invalid(
                    [("action_id", f"must be in 0..{num_actions - 1}, got {request.action_id}")]
                )
            return request.action_id, "action_id"
        if which == "action_text":
            try:
                return state.action_from_text(request.action_text), "action_text"
            except ValueError as e:
                raise invalid([("action_text", str(e))]) from None
        structured = request.structured  # its game's fields in either form (engine.members)
        member = structured.WhichOneof("structured")
        found = both_forms_problems(structured, "structured.")
        if member is not None and member != game.module_name:
            problem = f"another game's fields: the position is {game.display_name}'s"
            found.append((f"structured.{member}", problem))
        if found:
            raise invalid(found)
        try:
            return game.action_from_proto(state, from_members(structured)), "structured"
        except StructuredActionError as e:
            own = () if member is None else getattr(structured, member).DESCRIPTOR.fields_by_name
            raise invalid(
                [
                    (
                        f"structured.{member}.{f}"
                        if f.split(".")[0] in own
                        else (f"structured.{f}" if f else "structured"),
                        p,
                    )
                    for f, p in e.violations
                ]
            ) from None

    # -- running searches --------------------------------------------------------------
    @contextlib.contextmanager
    def _searching(self, plan: _Plan, context) -> Iterator[tuple[StopFlag, float, bool]]:
        """Hold a search slot for the block and yield the search's stop flag, its time budget
        and whether the call's deadline cut that budget. The flag is set when the call ends
        (cancelled, or past its deadline), the server stops, or admission stops the search
        for a caller with fewer searches (`council.server.admission`)."""
        stop = StopFlag()
        admitted = self.admission.enter(
            context, self.config.deadline_margin, caller_of(context), stop=stop.set
        )
        try:
            with admitted, self._tracked(stop):
                if not context.add_callback(stop.set):  # the call has ended already
                    stop.set()
                time_s, by_deadline = self._time_budget(plan, context)
                yield stop, time_s, by_deadline
        except RpcError as error:  # refused by a stopping server: say when to retry
            if error.code == grpc.StatusCode.UNAVAILABLE and self._retry_at is not None:
                wait = max(self._retry_at - time.monotonic(), 0.0)
                left = context.time_remaining()
                # Only when the retry keeps half the call's time to search; else the
                # client's own backoff (another replica may take it at once).
                if left is None or wait <= left / 2:
                    error.retry_after_s = wait
            raise

    def _time_budget(self, plan: _Plan, context) -> tuple[float, bool]:
        left = context.time_remaining()
        if left is None:
            return plan.time_s, False
        available = left - self.config.deadline_margin(left)
        if available < plan.time_s:
            return max(available, 0.001), True
        return plan.time_s, False

    def _record(
        self, method: str, reason: int, result: SearchResult, time_s: float, plan: _Plan
    ) -> None:
        self.recent_searches.append(
            SearchRecord(method, reason, result.iterations, result.elapsed_s, time_s)
        )
        game = game_of(plan.view).name
        self.metrics.record_search(game, plan.preset, reason, result.iterations, result.elapsed_s)

    # -- RPCs --------------------------------------------------------------------------
    @rpc
    def NewGame(self, request, context):
        if request.HasField("start_position"):  # (sealed: _start_position checks it)
            state, member_form = self._start_position(request)
            response = self._new_sealed_game(request, state, member_form)
        else:
            state, member_form, response = self._new_deal(request)
        return to_members(response, game_of(state).module_name) if member_form else response

    def _new_deal(self, request) -> tuple[Position, bool, spb.NewGameResponse]:
        """A NewGame from a configuration and a seed: the state dealt, whether the request's
        configuration used its game's member, and the answer (in the deprecated form)."""
        try:
            config = config_from_proto(request.config)
        except StateValidationError as e:
            raise invalid(e.violations) from None
        # No seed: a secret random one (a small or guessable seed lets anyone holding a
        # view find every hidden card by trying seeds; docs/service.md, "Seeds").
        seed = request.seed if request.HasField("seed") else secrets.randbits(64)
        state = config.new_game(seed=seed)
        # The member form when the configuration's options were in their member.
        member_form = request.config.HasField("council_of_four")
        if request.sealed:
            response = self._new_sealed_game(request, state, member_form)
        elif request.bot_seats:
            raise invalid([("bot_seats", "only a sealed game has tickets: set `sealed`")])
        else:
            response = spb.NewGameResponse(state=state_to_proto(state))
            if request.include_views:
                convert.add_views(response.views, state)
        if request.HasField("seed") and seed < SMALL_SEED_LIMIT:
            response.warnings.append(SMALL_SEED_WARNING.format(seed=seed))
        return state, member_form, response

    def _start_position(self, request) -> tuple[Position, bool]:
        """NewGame's `start_position`, checked: the full state its sealed game starts at (only
        what the seat may know of the position kept, the rest dealt afresh: sealed_games), and
        whether its position was in its game's member. Everything a new deal would take from
        `config` or `seed` comes from the position and the server, so those are refused."""
        start = request.start_position
        problems = []
        if not request.sealed:
            problems.append(("sealed", "a game from a start position is sealed: set `sealed`"))
        if request.HasField("config"):
            problem = "the start position's own config is the game's: leave it out"
            problems.append(("config", problem))
        if request.HasField("seed"):
            problem = "a start position's hidden cards are dealt by the server: leave the seed out"
            problems.append(("seed", problem))
        if not start.HasField("state"):
            problems.append(("start_position.state", "required field is missing"))
        if problems:
            raise invalid(problems)
        msg = start.state
        viewer = msg.viewer if msg.HasField("viewer") else None
        seat = start.seat if start.HasField("seat") else viewer
        if seat is None:
            problem = "required with a full state: the seat whose view the game keeps"
            raise invalid([("start_position.seat", problem)])
        if viewer is not None and seat != viewer:
            problem = f"the state is seat {viewer}'s view, not seat {seat}'s"
            raise invalid([("start_position.seat", problem)])
        try:
            game = game_of_message(msg)
            players = config_from_proto(msg.config).players
            if not 0 <= seat < players:
                problem = f"must be in 0..{players - 1}, got {seat}"
                raise invalid([("start_position.seat", problem)])
            # (A state whose other seats' hands are absent reads as `seat`'s view.)
            position = state_from_proto(msg, view_of=seat, game=game)
        except StateValidationError as e:
            raise invalid(
                [
                    ("start_position.state" + ("" if f == "(root)" else f".{f}"), p)
                    for f, p in e.violations
                ]
            ) from None
        if position.is_terminal():
            problem = "the game is over: there is nothing to play from it"
            raise invalid([("start_position.state", problem)])
        return sealed_games.dealt_from(position, seat), asks_member_form(msg)

    def _new_sealed_game(self, request, state: Position, member_form: bool) -> spb.NewGameResponse:
        """A sealed NewGame's answer: the sealed state, a ticket per seat (bot tickets for
        `bot_seats`), and the player seats' views if asked; never the full state. The sealed
        state in the form `member_form` says: the game's replies' from then on."""
        bots = set(request.bot_seats)
        for i, seat in enumerate(request.bot_seats):
            if not 0 <= seat < state.n_players:
                problem = f"must be in 0..{state.n_players - 1}, got {seat}"
                raise invalid([(f"bot_seats[{i}]", problem)])
        problems = [
            (f"bot_presets[{seat}]", problem)
            for seat, preset in sorted(request.bot_presets.items())
            for problem in (
                "not a seat of `bot_seats`" if seat not in bots else None,
                f"unknown preset {preset}" if preset not in presets.BY_VALUE else None,
            )
            if problem
        ]
        if problems:
            raise invalid(problems)
        secret = sealing.new_game_secret()
        start = state_to_proto(state, member_form=member_form)
        history = spb.SealedContent(start=start)  # the record's start; each move adds its id
        for seat in range(state.n_players):  # a bot's agent is its searches' (_bot_player)
            history.players.add(seat=seat, name=BOT_NAME if seat in bots else PERSON_NAME)
            history.bot_presets.append(request.bot_presets.get(seat, 0))
        response = spb.NewGameResponse(
            sealed_state=self.seal_keys.seal(start, secret, history=history)
        )
        for seat in range(state.n_players):
            role = spb.SEAT_ROLE_BOT if seat in bots else spb.SEAT_ROLE_PLAYER
            ticket = sealing.mint_ticket(secret, seat, role)
            response.tickets.add(seat=seat, role=role, ticket=ticket)
            if request.include_views and role == spb.SEAT_ROLE_PLAYER:
                response.views.add(seat=seat, state=state_to_proto(state.view(seat)))
        return response

    @rpc
    def ListLegalActions(self, request, context):
        position, seat = self._mover_state(request)
        state = position.state
        full = state.determinize(0) if state.is_view else state
        response = convert.legal_actions_response(seat, full)
        if request.include_descriptions:
            describe = position.game.describe
            for m in response.actions:
                m.description = describe(full, m.id)
        if request.include_effects:  # what each action surely does: from the seat's view
            known = known_effects(state, seat)
            for m in response.actions:
                m.effects.CopyFrom(known[m.id])
        return position.answer(response)

    @rpc
    def ApplyAction(self, request, context):
        position = self._resolve(request, requesting_seat=None, roles=PLAYER_OR_BOT)
        given, unsealed, game = position.state, position.unsealed, position.game
        if unsealed is not None:
            # A bot's move is played by the server (RecommendAction), so that its holder
            # never sees a secret move nor learns from refusals which moves are legal.
            if unsealed.ticket.role == spb.SEAT_ROLE_BOT:
                raise _denied("sealed.ticket", "a bot ticket plays through RecommendAction")
            # The sealed rng draws: a chosen seed would let a player pick the cards drawn.
            if request.HasField("seed"):
                raise invalid([("seed", "a sealed state draws from its own rng: leave it out")])
            mover = given.current_player
            if not given.is_terminal() and unsealed.ticket.seat != mover:
                raise failed_precondition(
                    f"seat {unsealed.ticket.seat} is not to move (seat {mover} is)"
                )
        # A view is answered with the same seat's view of the sampled next state: the cards
        # dealt to play it must not come back looking like the game's (`sampled`).
        viewer = given.viewer if given.is_view else None
        state = _world_to_play(given, request)
        action, where = self._action(request, state, game)
        # An action's message may name cards of the position it is taken in: built before.
        applied = game.action_to_proto(state, action)
        before = state.clone()  # for the effects: what the action changed
        chance = 0
        try:  # (apply checks legality itself, and leaves the rules' state as it was if not)
            if unsealed is None:
                state.apply(action)
            else:  # the draws decided now, from fresh randomness (sealed_games)
                chance = sealed_games.play(state, action)
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
        if unsealed is not None:
            response = self._sealed_apply_response(
                state, action, chance, applied, position, request.include_views
            )
            seat = unsealed.ticket.seat  # the effects as the ticket's seat may know them
            response.effects.CopyFrom(action_effects(before, state, action, seat))
            return position.answer(response)
        shown = state if viewer is None else state.view(viewer)
        response = spb.ApplyActionResponse(
            state=state_to_proto(shown),
            game_over=over,
            scores=shown.scores(),
            winners=shown.winners() if over else [],
            sampled=viewer is not None,
        )
        response.applied.CopyFrom(applied)
        response.effects.CopyFrom(action_effects(before, state, action, viewer))
        if request.include_views:
            if viewer is None:
                convert.add_views(response.views, state)
            else:
                response.views.add(seat=viewer).state.CopyFrom(response.state)
        return position.answer(response)

    def _sealed_apply_response(
        self,
        state: Position,
        action: int,
        chance: int,
        applied: pb.Action,
        position: _Position,
        include_views: bool,
    ) -> spb.ApplyActionResponse:
        """A sealed ApplyAction's answer (a player ticket's): the next state sealed, what is
        public (the action, scores, the end) and that seat's view."""
        unsealed = position.unsealed
        assert unsealed is not None
        seat = unsealed.ticket.seat
        response = spb.ApplyActionResponse(
            sealed_state=self._sealed_state(state, unsealed, action, chance),
            **_public_outcome(state, seat),
        )
        response.applied.CopyFrom(applied)
        response.state.CopyFrom(state_to_proto(state.view(seat)))
        if include_views:
            response.views.add(seat=seat).state.CopyFrom(response.state)
        return response

    @rpc
    def RecommendAction(self, request, context):
        plan = self._plan(request, PLAYER_OR_BOT)
        with self._searching(plan, context) as (stop, time_s, by_deadline):
            limits = SearchLimits(
                iterations=plan.iterations, time_s=time_s, max_nodes=self.config.max_nodes
            )
            result = search(plan.view, limits, plan.search_config, plan.seed, stop)
            reason = _stop_reason(result, plan, stop, by_deadline)
            self._record("RecommendAction", reason, result, time_s, plan)
        proto = plan.result_proto(result, time_s, reason)
        if plan.bot_game is None:
            return spb.RecommendActionResponse(result=proto)
        player = _bot_player(plan, timed=False)  # (a bot's budget is its preset's)
        response = self._play_bot_move(plan.bot_game, proto, result.action, player)
        return to_members(response, plan.members) if plan.members else response

    def _play_bot_move(
        self,
        bot_game: tuple[Position, _Unsealed],
        result: pb.SearchResult,
        action: int,
        player: rpb.RecordedPlayer,
    ) -> spb.RecommendActionResponse:
        """A bot ticket's RecommendAction: its chosen `action` played on the sealed full
        state, answered with the next blob and what the other seats see (the move in its
        public form, scores, the end), so the bot's holder learns no more than they do."""
        state, unsealed = bot_game
        played, secret = convert.public_action_proto(state, action)  # named before it is taken
        before = state.clone()  # for the effects
        chance = sealed_games.play(state, action)  # legal: the search chose it
        result.action.CopyFrom(played)
        return spb.RecommendActionResponse(
            result=result,
            sealed_state=self._sealed_state(state, unsealed, action, chance, player),
            secret=secret,
            effects=public_effects(before, state, action),
            **_public_outcome(state, unsealed.ticket.seat),
        )

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
            self._record("AnalyzePosition", reason, result, time_s, plan)
        yield spb.AnalyzePositionResponse(
            result=plan.result_proto(result, time_s, reason), final=True
        )

    @rpc
    def AnalyzeGame(self, request, context):
        # Checked before the first message: a bad request gets no stream (analyze_game).
        review = analyze_game.plan(request, self.config)
        yield from analyze_game.stream(self, review, context)

    @rpc
    def GetGameRecord(self, request, context):
        if not request.HasField("sealed"):
            raise invalid([("sealed", "required: the finished game's last blob and a ticket")])
        position = self._unseal(request.sealed, None, PLAYER_ONLY)
        state, unsealed = position.state, position.unsealed
        assert unsealed is not None
        if not state.is_terminal():
            raise failed_precondition(
                "the game is not over: its record holds every hand and the deck, so it is "
                "given once the game has ended"
            )
        history = unsealed.content
        if not history.HasField("start"):
            raise failed_precondition(
                "sealed.blob: this game was sealed by a server that kept no history in its "
                "blobs, so it has no record"
            )
        try:
            start = state_from_proto(history.start)
            record = record_of(start, history.actions, chance=history.chance)
        except (StateValidationError, IllegalActionError):  # sealed by this server: it plays
            log.exception("a sealed game's history does not replay")
            raise RpcError(grpc.StatusCode.INTERNAL, "sealed.blob: unplayable history") from None
        if list(record.scores) != state.scores():  # the history must end in the blob's state
            log.error("a sealed game's history ends in other scores than its state's")
            raise RpcError(grpc.StatusCode.INTERNAL, "sealed.blob: inconsistent history")
        record.players.extend(history.players)
        return spb.GetGameRecordResponse(record=record)

    @rpc
    def TakeBack(self, request, context):
        if not request.HasField("sealed"):
            raise invalid([("sealed", "required: the game's last blob and a player's ticket")])
        if self.game_store is not None:
            raise failed_precondition(
                "this server refuses takebacks (--no-rewind): a sealed game only goes forward"
            )
        position = self._unseal(request.sealed, None, PLAYER_ONLY)
        unsealed = position.unsealed
        assert unsealed is not None
        seat = unsealed.ticket.seat
        if not unsealed.content.HasField("start"):
            raise failed_precondition(
                "sealed.blob: this game was sealed by a server that kept no history in its "
                "blobs, so it cannot be taken back"
            )
        try:
            state, history = sealed_games.take_back(unsealed.content, request.to_move, seat)
        except ValueError as e:
            raise invalid([("to_move", str(e))]) from None
        except (StateValidationError, IllegalActionError):  # sealed by this server: it plays
            log.exception("a sealed game's history does not replay")
            raise RpcError(grpc.StatusCode.INTERNAL, "sealed.blob: unplayable history") from None
        return position.answer(
            spb.TakeBackResponse(
                sealed_state=self._seal_next(state, unsealed, history),
                state=state_to_proto(state.view(seat)),
                takebacks=[p.takebacks for p in history.players],
            )
        )

    @rpc
    def GetView(self, request, context):
        if request.HasField("sealed"):  # the ticket's seat (`seat`, if given, must be it)
            position = self._resolve(request, requesting_seat=_sealed_seat(request))
            assert position.unsealed is not None
            view = position.state.view(position.unsealed.ticket.seat)
            return position.answer(spb.GetViewResponse(state=state_to_proto(view)))
        if not request.HasField("seat"):
            raise invalid([("seat", "required: the seat whose view is wanted")])
        seat = request.seat
        position = self._resolve(request, requesting_seat=seat if seat >= 0 else None)
        state = position.state
        if not 0 <= seat < state.n_players:
            raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
        if state.is_view and state.viewer != seat:
            raise invalid(
                [("seat", f"the state is seat {state.viewer}'s view; seat {seat}'s is not in it")]
            )
        return position.answer(spb.GetViewResponse(state=state_to_proto(state.view(seat))))

    @rpc
    def RenderPosition(self, request, context):
        seat = request.seat if request.HasField("seat") else None
        if request.HasField("sealed"):  # the ticket's seat's view
            state = self._sealed_view(request)
            seat = None
        else:
            requesting = seat if seat is None or seat >= 0 else None
            state = self._resolve(request, requesting_seat=requesting).state
        if seat is not None:
            if not 0 <= seat < state.n_players:
                raise invalid([("seat", f"must be in 0..{state.n_players - 1}, got {seat}")])
            if state.is_view and state.viewer != seat:
                problem = f"the state is seat {state.viewer}'s view; seat {seat}'s is not in it"
                raise invalid([("seat", problem)])
            if not state.is_view:
                state = state.view(seat)
        return spb.RenderPositionResponse(svg=game_of(state).render_svg(state))

    def _sealed_view(self, request) -> Position:
        """The view of a sealed request's ticket's seat (a player ticket's)."""
        position = self._resolve(request, requesting_seat=_sealed_seat(request))
        assert position.unsealed is not None
        return position.state.view(position.unsealed.ticket.seat)

    @rpc
    def GetEngineInfo(self, request, context):
        cfg = self.config
        response = convert.engine_info_proto(
            max_iterations=cfg.max_iterations,
            max_search_time_s=cfg.max_search_time_s,
            search_slots=cfg.search_slots,
            no_rewind=self.game_store is not None,
        )
        if request.member_form:  # each game's facts and options in its own members
            to_members(response.default_config, default_game().module_name)
            for info in response.games:
                to_members(info, game_of_proto(info.game).module_name)
        return response


def _sealed_seat(request) -> int | None:
    """The seat a sealed request names (its ticket's must be it), if any."""
    seat = request.seat if request.HasField("seat") else None
    if seat is not None and seat < 0:
        raise invalid([("seat", f"must be a seat number, got {seat}")])
    return seat


def _bot_search(request, unsealed: _Unsealed) -> tuple[pb.SearchLimits, int]:
    """A bot ticket's search limits and seed: the game's (the seat's preset kept in the blob,
    a seed from the game's secret and the move number), never the caller's, so that asking
    again gives the same move and the ticket's holder can re-roll nothing."""
    refused = [
        (name, f"a bot ticket's {what} is the game's (its preset, chosen at NewGame): leave it out")
        for name, what, given in (
            ("seed", "search seed", request.seed != 0),
            ("limits", "budget", request.HasField("limits")),
        )
        if given
    ]
    if refused:
        raise invalid(refused)
    content, seat = unsealed.content, unsealed.ticket.seat
    limits = pb.SearchLimits()  # its preset unspecified: the server's default preset
    if seat < len(content.bot_presets):
        limits.preset = content.bot_presets[seat]
    return limits, sealed_games.bot_search_seed(unsealed.game_secret, len(content.actions))


@contextlib.contextmanager
def _store_errors() -> Iterator[None]:
    """A game store's refusals as statuses: an older blob FAILED_PRECONDITION, a store out
    of reach UNAVAILABLE (the call can be retried)."""
    try:
        yield
    except StaleBlob as e:
        raise failed_precondition(f"sealed.blob: {e}") from None
    except GameStoreUnavailable as e:
        log.warning("the game store is out of reach: %s", e)
        raise RpcError(
            grpc.StatusCode.UNAVAILABLE,
            "the store of games' latest moves is out of reach (--no-rewind): retry later",
        ) from None


def _denied(field: str, problem: str) -> RpcError:
    """PERMISSION_DENIED naming the request field at fault (a sealed game's ticket)."""
    return RpcError(grpc.StatusCode.PERMISSION_DENIED, f"{field}: {problem}", [(field, problem)])


def _bot_player(plan: _Plan, timed: bool) -> rpb.RecordedPlayer:
    """A bot seat's player in its game's record: its agent the spec of the search `plan`
    runs (``council.mcts.agents.parse_agent`` builds the same search from it), with its
    time budget if the request gave one (`timed`), else only the server's cap."""
    options = [f"iterations={'none' if plan.iterations is None else plan.iterations}"]
    if timed:
        options.append(f"time_s={plan.time_s:g}")
    # the settings that differ from the game's defaults
    changed = plan.search_config.changes_from(default_config(plan.view))
    options += [f"{name}={value}" for name, value in changed.items()]
    name = f"{BOT_NAME} ({plan.preset})"
    return rpb.RecordedPlayer(seat=plan.seat, name=name, agent="ismcts:" + ",".join(options))


def _public_outcome(state: Position, seat: int) -> dict:
    """What every seat sees of a sealed game's state after a move: whether it is over, the
    scores (as `seat` sees them: all public) and the winners; the fields of the same names
    of ApplyActionResponse and RecommendActionResponse."""
    over = state.is_terminal()
    winners = state.winners() if over else []
    return {"game_over": over, "scores": state.view(seat).scores(), "winners": winners}


def _decision(state: Position) -> str:
    """The decision being taken: Council of Four's "turn" or pending decision, The
    Council's phase."""
    return state.decision_name


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
