"""The council.v1 messages the server builds: actions, search results, views, engine info.

Positions need no conversion here: ``council.v1.GameState`` is the engine's own schema
(``council.engine.serialize.state_from_proto`` / ``state_to_proto``), for every game. Each
game's actions are built by its registered codec (``council.engine.games``): a game whose
action messages are the same in every position (``Game.fixed_action_protos``) has them built
and encoded once here.
"""

from __future__ import annotations

import dataclasses
import functools
from importlib import metadata

from google.protobuf import duration_pb2, json_format

from council.engine import Position
from council.engine.council_of_four_actions import ACTION_KIND_TO_PROTO, action_from_proto
from council.engine.council_of_four_board import LAYOUT_CODES
from council.engine.games import Game, all_games, default_game, game_of
from council.engine.position import StructuredActionError
from council.engine.serialize import state_to_proto
from council.server import presets
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

__all__ = [
    "ACTION_KIND_TO_PROTO",
    "RULE_VARIANTS",
    "StructuredActionError",
    "action_from_proto",
    "add_views",
    "duration",
    "engine_info_proto",
    "legal_actions_response",
    "public_action_proto",
    "search_result_proto",
]

# -- actions -------------------------------------------------------------------------------


@functools.cache
def _list_entries(game: Game) -> tuple[bytes, ...] | None:
    """Each action of a game with fixed action messages as one entry of
    ListLegalActionsResponse.actions, encoded once (None for the other games): a response is
    the parse of its entries joined (one C call), where copying the messages one by one cost
    more than reading the request's position."""
    if not game.fixed_action_protos:
        return None
    return tuple(
        spb.ListLegalActionsResponse(actions=[game.action_to_proto(None, a)]).SerializeToString()
        for a in range(game.num_actions)
    )


def legal_actions_response(seat: int, state: Position) -> spb.ListLegalActionsResponse:
    """The ListLegalActionsResponse of a full state: its decision and its legal actions in
    id order (descriptions not filled in)."""
    game = game_of(state)
    legal = state.legal_actions()
    entries = _list_entries(game)
    if entries is None:
        response = spb.ListLegalActionsResponse(
            actions=[game.action_to_proto(state, a) for a in legal]
        )
    else:
        response = spb.ListLegalActionsResponse.FromString(b"".join([entries[a] for a in legal]))
    response.seat = seat
    response.decision = state.decision_name
    return response


def public_action_proto(state: Position, action_id: int) -> tuple[pb.Action, bool]:
    """The action `action_id` of the seat to move in `state` (taken now) as the other seats
    see it, and whether it is secret: the usual Action message for a public move; for a
    secret one only its kind and a text, no id, card or reveal list.

    >>> from council.engine.games import all_games
    >>> starts = [g.new_game(seed=1) for g in all_games()]
    >>> action, secret = public_action_proto(starts[1], starts[1].legal_actions()[0])
    >>> action.text, action.id, secret  # a secret pick: no card, no id
    ('picks a card', 0, True)
    >>> public_action_proto(starts[0], 0)[0].text  # the default game has no secret move
    'end'
    """
    return game_of(state).public_action(state, action_id)


# -- search results and engine info --------------------------------------------------------


def duration(seconds: float) -> duration_pb2.Duration:
    """The Duration message of a number of seconds (to the nearest nanosecond)."""
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def search_result_proto(
    result,
    *,
    view: Position,
    seat: int,
    max_candidates: int,
    iteration_budget: int | None,
    time_budget_s: float,
    stop_reason: pb.StopReason,
) -> pb.SearchResult:
    """The SearchResult message of a ``council.mcts.search.SearchResult`` searched from
    `view`: its action, its first `max_candidates` candidates (0: all), principal variation
    and stats."""
    out = pb.SearchResult(seed=result.seed, seat=seat)
    game = game_of(view)
    root_action = functools.partial(game.action_to_proto, view)
    line = game.line_to_protos(view, result.principal_variation, result.seed)
    out.action.CopyFrom(root_action(result.action))
    candidates = result.candidates[:max_candidates] if max_candidates else result.candidates
    for c in candidates:
        m = out.candidates.add(
            visits=c.visits,
            mean_reward=c.mean_reward,
            win_probability=c.win_probability,
            vp_margin=c.vp_margin,
            policy=c.policy,
        )
        m.action.CopyFrom(root_action(c.action))
    for a in line:
        out.principal_variation.add().CopyFrom(a)
    stats = out.stats
    stats.iterations = result.iterations
    stats.elapsed.CopyFrom(duration(result.elapsed_s))
    stats.tree_nodes = result.tree_nodes
    stats.stop_reason = stop_reason
    stats.iteration_budget = iteration_budget or 0
    stats.time_budget.CopyFrom(duration(time_budget_s))
    return out


def add_views(field, state: Position, *, member_form: bool = False) -> None:
    """Append every seat's view of the full `state` to a repeated SeatView field, in the
    form `member_form` says (``serialize.state_to_proto``)."""
    for seat in range(state.n_players):
        view = state.view(seat)
        field.add(seat=seat, state=state_to_proto(view, member_form=member_form))


# What a GameConfig can change besides the player count: every other field of the default
# game's config, so that a new rule variant is listed without being named here.
RULE_VARIANTS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(default_game().config_class) if f.name != "players"
)


def engine_info_proto(
    *, max_iterations: int, max_search_time_s: float, search_slots: int, no_rewind: bool = False
) -> spb.GetEngineInfoResponse:
    """The GetEngineInfo answer: the engine's facts and the server's search limits. Its
    top-level game facts are the default game's, from before ``games`` listed every game."""
    try:
        version = metadata.version("council-ai")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        version = "unknown"
    game = default_game()
    response = spb.GetEngineInfoResponse(
        version=version,
        state_format=game.state_format,
        layouts=list(LAYOUT_CODES),
        rule_variants=list(RULE_VARIANTS),
        num_actions=game.num_actions,
        max_iterations=max_iterations,
        search_slots=search_slots,
        no_rewind=no_rewind,
    )
    for name, value in dataclasses.asdict(game.config_class()).items():
        setattr(response.default_config, name, value)
    for kind, offset, size in game.action_ranges:
        response.action_ranges.add(kind=kind, offset=offset, size=size)
    for each in all_games():
        _add_game_info(response.games.add(), each)
    _add_presets(response.presets, game)
    response.max_search_time.CopyFrom(duration(max_search_time_s))
    return response


def _add_presets(field, game: Game) -> None:
    """Append each preset's budget in `game`, weakest first (iterations only: no max_time)."""
    for p in presets.PRESETS:
        budget = p.budget(game.name)
        field.add(
            preset=p.value,
            name=p.name,
            iterations=budget.iterations,
            description=budget.description,
        )


def _add_game_info(info: spb.GameInfo, game: Game) -> None:
    """A game's GameInfo: the common facts, then the game's own (``Game.info``)."""
    info.game = game.proto
    info.name = game.name
    info.display_name = game.display_name
    info.min_players = game.min_players
    info.max_players = game.max_players
    info.state_format = game.state_format
    info.num_actions = game.num_actions
    for kind, offset, size in game.action_ranges:
        info.action_ranges.add(kind=kind, offset=offset, size=size)
    # A game's options are GameConfig's top-level fields of their name (the deprecated form
    # of the default game's, kept as is), else fields of its member of GameConfig.options.
    top = pb.GameConfig.DESCRIPTOR.fields_by_name
    for f, value in dataclasses.asdict(game.config_class()).items():
        setattr(
            info.default_config if f in top else getattr(info.default_config, game.module_name),
            f,
            value,
        )
    if game is not default_game():  # absent, `game` is the default game
        info.default_config.game = game.proto
    _add_presets(info.presets, game)
    json_format.ParseDict(game.info(), info)
