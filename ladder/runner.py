"""Playing the ladder: the scheduled games not yet stored, serially, in a local process pool
or as Ray tasks, each written to the store as soon as it ends.

Forfeits. A seat whose agent cannot produce a legal action (a remote endpoint's error,
timeout or bad answer; an illegal action from any agent) forfeits the game at once: the
game is stored with status ``forfeit``, the seat and the reason; the forfeiting seat places
last and every other seat shares first place (the game counts as a win shared by the
others, in the ratings and in the win-rate tables). The VP stored are those at the moment of
the forfeit.

Void games. A remote seat whose endpoint cannot be reached at all (nothing listens, no
connection within the deadline, the connection lost: ``entrants.Unreachable``) did not play,
so the game is not its loss: it is stored with status ``void`` and the reason (``seat 1
(bot) at action 0: could not reach HOST:PORT: UNAVAILABLE: ...``), left out of the ratings,
counted in the run's summary and listed by the report. Voids are not results: a later run
of the same ladder plays them again (and replaces them).

Length cap. A game still running when its turn ``max_turns`` begins (300, on the turn
counter of the game's own position: a seat's turn in one game, a hand in another), or after
``max_actions`` actions, is adjudicated there as in the arena (``council.mcts.arena``):
``Position.adjudicated()`` applies final scoring to the position reached, and the game is
stored with status ``finished``, its adjudicated scores, winners and ranks, and a reason
starting ``adjudicated:`` (``GameResult.adjudicated``). Its moves replay to the adjudicated
position. It is rated like any finished game. (Stores written before the cap hold ``void``
games instead: left out of the ratings, and played again, so adjudicated, by the next run.)

Game records. Every finished game (adjudicated ones included) is stored with its game record
(``council.engine.record``, docs/review.md): its full start state, moves, result and players
(the entrants' labels and specs), so it replays and can be reviewed without the ladder's
settings. A forfeited or void game has none: it did not end by the rules, and a record
replays only to a game's end.
"""

from __future__ import annotations

import operator
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from council.engine import Position
from council.engine.games import GameSettings
from council.engine.record import RecordedPlayer, record_of, record_to_json
from council.ladder.entrants import Entrant, Forfeit, Unreachable, parse_entrant
from council.ladder.games import (
    DEFAULT_GAME,
    check_game,
    default_table_size,
    game_config,
    game_layout,
)
from council.ladder.schedule import ScheduledGame, schedule
from council.ladder.store import ADJUDICATED, GameResult, LadderConfig, Store
from council.mcts.arena import MAX_TURNS, cap_reason, ranks_of
from council.mcts.jobs import progress_bar, run_jobs

__all__ = ["RunSummary", "entrants_of", "play_scheduled", "ranks_of", "run_ladder"]

MAX_ACTIONS = 20_000


def _is_legal(state: Position, action) -> bool:
    """Whether an answer (from any entrant: it may not even be an integer) is a legal action.

    >>> from council.engine.games import all_games
    >>> state = all_games()[-1].new_game(seed=1)
    >>> first = state.legal_actions()[0]
    >>> _is_legal(state, first), _is_legal(state, str(first)), _is_legal(state, 10**30)
    (True, False, False)
    """
    try:  # each game's is_legal checks the range of its own action space
        return bool(state.is_legal(operator.index(action)))
    except (TypeError, OverflowError):  # not an integer, or past a C int
        return False


def _move_seed(game_seed: int, actions: int) -> int:
    return (game_seed * 7919 + actions) & 0xFFFFFFFF  # as council.mcts.arena.play_game


def play_scheduled(
    game: ScheduledGame,
    agents: Sequence,
    labels: Sequence[str],
    config: GameSettings,
    max_actions: int = MAX_ACTIONS,
    max_turns: int = MAX_TURNS,
    specs: Sequence[str] = (),
) -> GameResult:
    """Play one scheduled game of ``config``'s game; ``agents[i]`` / ``labels[i]`` (and the
    entrant's spec ``specs[i]``, for the game record) belong to seat ``i``."""
    start = time.perf_counter()
    state = config.new_game(game.deal_seed)
    moves: list[int] = []
    status, forfeit_seat, reason = "finished", None, None
    while not state.is_terminal():
        cap = cap_reason(state, len(moves), max_turns, max_actions)
        if cap is not None:
            state, reason = state.adjudicated(), ADJUDICATED + cap
            break
        seat = state.current_player
        agent = agents[seat]
        observed = state.clone() if agent.sees_true_state else state.view(seat)
        try:
            action = agent.act(observed, seed=_move_seed(game.deal_seed, len(moves)))
            if not _is_legal(state, action):
                raise Forfeit(f"illegal action {action!r}")
        except Forfeit as forfeit:
            status, forfeit_seat = "forfeit", seat
            reason = f"seat {seat} ({labels[seat]}) at action {len(moves)}: {forfeit.reason}"
            break
        except Unreachable as lost:  # not played: void, not a forfeit
            status = "void"
            reason = f"seat {seat} ({labels[seat]}) at action {len(moves)}: {lost.reason}"
            break
        state.apply(int(action))
        moves.append(int(action))
    scores = tuple(state.scores())
    if status == "finished":
        winners = tuple(state.winners())
        ranks = ranks_of(scores, winners)
    elif status == "forfeit":
        winners = tuple(s for s in range(len(scores)) if s != forfeit_seat)
        ranks = tuple(len(scores) if s == forfeit_seat else 1 for s in range(len(scores)))
    else:
        winners, ranks = (), None
    record = None
    if status == "finished":
        players = [
            RecordedPlayer(label, specs[seat] if seat < len(specs) else "")
            for seat, label in enumerate(labels)
        ]
        start_state = config.new_game(game.deal_seed)
        adjudicated = (reason or "").startswith(ADJUDICATED)
        record = record_to_json(record_of(start_state, moves, players, adjudicated=adjudicated))
    return GameResult(
        id=game.id,
        table=game.table,
        deal=game.deal,
        rotation=game.rotation,
        seed=game.deal_seed,
        seats=game.seats,
        labels=tuple(labels),
        status=status,
        scores=scores,
        winners=winners,
        ranks=ranks,
        forfeit_seat=forfeit_seat,
        reason=reason,
        moves=tuple(moves),
        turns=state.turn,
        seconds=time.perf_counter() - start,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        record=record,
    )


def _play_job(job) -> GameResult:
    return play_scheduled(*job)


def entrants_of(config: LadderConfig) -> list[Entrant]:
    """The entrants of stored settings, rebuilt from their specs (and stored labels) as
    agents of the stored game."""
    out = []
    for label, spec in config.entrants:
        entrant = parse_entrant(spec, config.game)
        out.append(Entrant(label, spec, entrant.agent))
    return out


@dataclass
class RunSummary:
    scheduled: int
    already_stored: int
    played: int
    forfeits: int
    voids: int  # games played this run that are void (an endpoint could not be reached)
    seconds: float
    adjudicated: int = 0  # games stopped at the length cap and scored as they stood
    void_games: list[GameResult] = field(default_factory=list)  # this run's voids
    replayed: int = 0  # games stored void by an earlier run, played again by this one

    @property
    def complete(self) -> bool:
        return self.already_stored + self.played == self.scheduled


def run_ladder(
    store: Store,
    entrants: Sequence[str] | None = None,
    *,
    game: str | None = None,
    table_size: int | None = None,
    deals: int | None = None,
    seed: int = 0,
    layout: str | None = None,
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool = False,
    max_actions: int = MAX_ACTIONS,
    on_game: Callable[[GameResult], None] | None = None,
    max_turns: int = MAX_TURNS,
) -> RunSummary:
    """Play every scheduled game of the ladder that ``store`` does not hold yet.

    ``entrants`` (specs, see ``entrants.parse_entrant``) with ``game`` (a registered game's
    name, ``ladder.games.GAMES``; default the default game), ``table_size`` (default the
    game's, ``ladder.games.default_table_size``), ``deals`` (default 10), ``seed`` and
    ``layout`` (a board game's board sides, default its config's) define a new ladder or
    extend the stored one (more entrants appended, more deals); ``entrants=None`` resumes
    the stored ladder (with more deals if ``deals`` says so). A file holds one game's
    ladder: another ``game`` is refused (``LadderMismatch``).
    Games run in-process (``workers=1``), in a pool of ``workers`` processes (default: every
    core), or as Ray tasks with ``ray_address`` (``"local"`` starts a private local Ray
    instance with ``workers`` CPUs; ``"auto"`` or ``host:port`` joins a running cluster). A
    game still running when turn ``max_turns`` begins, or after ``max_actions`` actions, is
    adjudicated, and a game whose remote entrant could not be reached is stored void; the
    void games of earlier runs are played again (see the module's docstring).
    """
    stored = store.config()
    if entrants is None:
        if stored is None:
            raise ValueError(f"{store.path}: no ladder stored yet; name the entrants")
        if game is not None:
            store.require_game(game, stored)
        config = stored
        if deals is not None and deals > config.deals:
            config.deals = deals
    else:
        game = check_game(game or DEFAULT_GAME)
        store.require_game(game, stored)  # before the specs are read as the game's agents
        if deals is None:  # rerunning the same command must not change the schedule
            deals = stored.deals if stored is not None else 10
        built = [parse_entrant(spec, game) for spec in entrants]
        config = LadderConfig(
            entrants=[(e.label, e.spec) for e in built],
            table_size=default_table_size(game) if table_size is None else table_size,
            deals=deals,
            seed=seed,
            layout=game_layout(game, layout),
            game=game,
        )
    start_config = game_config(config.game, config.table_size, config.layout)
    games = schedule(
        len(config.entrants), config.table_size, config.deals, config.seed, config.game
    )
    config = store.setup(config)
    roster = entrants_of(config)
    void = store.void_ids()  # not results: played again
    done = store.stored_ids() - void
    pending = [g for g in games if g.id not in done]
    jobs = [
        (
            g,
            tuple(roster[i].agent for i in g.seats),
            tuple(roster[i].label for i in g.seats),
            start_config,
            max_actions,
            max_turns,
            tuple(roster[i].spec for i in g.seats),
        )
        for g in pending
    ]
    summary = RunSummary(len(games), len(games) - len(pending), 0, 0, 0, 0.0)
    summary.replayed = sum(g.id in void for g in pending)
    start = time.perf_counter()

    with progress_bar(len(games), summary.already_stored, "ladder", progress) as bar:

        def record(result: GameResult) -> None:
            if store.add(result):
                summary.played += 1
                summary.forfeits += result.status == "forfeit"
                summary.voids += result.status == "void"
                summary.adjudicated += result.adjudicated
                if result.status == "void":
                    summary.void_games.append(result)
            if bar is not None:
                bar.update(1)
                if summary.forfeits or summary.voids or summary.adjudicated:
                    bar.set_postfix(
                        forfeits=summary.forfeits,
                        void=summary.voids,
                        adjudicated=summary.adjudicated,
                        refresh=False,
                    )
            if on_game is not None:
                on_game(result)

        try:
            run_jobs(_play_job, jobs, record, workers, ray_address)
        finally:
            summary.seconds = time.perf_counter() - start
    return summary
