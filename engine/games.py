"""The registered games: one ``Game`` record per game, the one list of the games.

Each game registers itself as its module is imported (OpenSpiel's ``REGISTER_SPIEL_GAME``):
``council.engine.council_of_four`` and ``council.engine.the_council``, loaded at the end of
this module. A record holds everything code above the rules needs to serve a game without
asking which one it is: its names, its ``council.v1.Game`` value, its configuration, seat
counts and state format, its action space (kinds and id ranges), reading and writing its
``GameState`` messages, its action codec (id <-> structured ``Action`` message <-> text, a
description, the public form of a secret move) and its text and SVG rendering. The search's
settings and agents (``council.mcts.games``) and the service's preset budgets
(``council.server.presets``) are registered beside it in their own layers, under the same
name.

>>> [g.name for g in all_games()][:2]  # the first two (the default game first)
['council-of-four', 'the-council']
>>> game = game_named("the-council")
>>> game.display_name, game.players, game_of_proto(game.proto) is game
('The Council', (3, 4, 5), True)
>>> state = game.new_game(game.config_class(players=3), seed=1)
>>> game_of(state) is game, game.action_to_proto(state, state.legal_actions()[0]).text
(True, 'pick The Battle')
>>> game_of_proto(0).name  # GAME_UNSPECIFIED: the default game
'council-of-four'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from council.engine.position import Position
from council.v1 import game_pb2 as pb

__all__ = [
    "DEFAULT_GAME",
    "Game",
    "GameSettings",
    "all_games",
    "default_game",
    "game_named",
    "game_of",
    "game_of_proto",
    "own_part_problems",
    "played_line",
    "register",
    "use_content_file",
]

# A configuration of a registered game (its Game.config_class: a frozen dataclass with
# ``players``, ``validate()`` and ``new_game(seed)``).
GameSettings = Any
# (kind, first id, number of ids) of one kind of a game's action space.
ActionRange = tuple[int, int, int]
# What a reader finds: the position (None when it found a problem) and every problem as
# (field path, problem).
Problems = list[tuple[str, str]]
# Load a content file (a map and cards) and play it from now on: its id and digest
# (ValueError naming the file's bad value, OSError if it cannot be read).
ContentLoader = Callable[[str], tuple[str, str]]


@dataclass(frozen=True, eq=False)
class Game:
    """One game, as the layers above the rules see it (see the module's docstring).

    Positions are the game's ``state_class`` (a ``Position``); actions are ids of its fixed
    action space, ``0..num_actions - 1``. Their text is the position's own
    ``action_to_text`` / ``action_from_text``.
    """

    name: str  # "council-of-four": the command line's --game, GameInfo.name, every layer's key
    display_name: str  # "Council of Four": what a page or a report shows
    proto: pb.Game  # its council.v1.Game value (config.game of its messages)
    config_class: type  # a frozen dataclass with players, validate() and new_game(seed)
    state_class: type  # its Position class
    players: tuple[int, ...]  # the seat counts it is played with
    state_format: str  # GameState.format of its positions
    num_actions: int
    action_ranges: tuple[ActionRange, ...]  # in id order: (pb.ActionKind, first id, count)
    # Message <-> position: read(msg, view_of) -> (position | None, problems), view_of -1, or
    # the seat whose view a full state lacking other seats' hidden cards is read as (-2,
    # serialize.TO_MOVE: the seat to move, as the message says). Another game's part of the
    # message is refused before (serialize.game_of_message). write(position) writes its
    # member of GameState.position (Council of Four: the deprecated top-level fields).
    read: Callable[[pb.GameState, int], tuple[Any, Problems]]
    write: Callable[[Any], pb.GameState]
    # A GameConfig message's fields (by name, set ones only, ``game`` left out) -> (config |
    # None, problems naming "<path>.<field>"); complete: every field must be given.
    read_config: Callable[[dict[str, Any], str, bool], tuple[Any, Problems]]
    # The action codec. to_proto(position, id): the Action message of an action of the seat
    # to move; from_proto(position, msg): its id (StructuredActionError naming the fields).
    action_to_proto: Callable[[Any, int], pb.Action]
    action_from_proto: Callable[[Any, pb.Action], int]
    # (message, secret): the move as the other seats see it when it is taken.
    public_action: Callable[[Any, int], tuple[pb.Action, bool]]
    # The Action messages of a line of actions from a view (a search's principal variation,
    # the seed the search sampled with): each named as well as the view allows.
    line_to_protos: Callable[[Any, Sequence[int], int], list[pb.Action]]
    describe: Callable[[Any, int], str]  # what an action does (ListLegalActions)
    render_text: Callable[[Any], str]
    render_svg: Callable[[Any], str]
    # GameInfo's facts of this game beyond the common ones (its cards, ...) by field name:
    # GameInfo's deprecated top-level names, which name its member's fields too (.facts).
    info: Callable[[], dict[str, Any]]
    # The command line's demo: the label of where a game stands ("turn  12"), and whether an
    # action is routine (printed only with --verbose).
    progress: Callable[[Any], str]
    routine: Callable[[Any, int], bool]
    # What an action did (council.v1.ActionEffects; council.engine.effects):
    # effects(before, after, action, seat, known_only), `before` and `after` full states
    # (`after` made by applying `action` to `before`: told from its events, the rules'
    # trace), as `seat` may know it (None: everything); known_only: only what no hidden
    # card decides (ListLegalActions), with `partial` set where more follows.
    effects: Callable[[Any, Any, int, int | None, bool], pb.ActionEffects]
    # Whether an action's message is the same in every position (then it can be built once).
    fixed_action_protos: bool = False
    # The pb.ActionKind values of its consequence steps: what an earlier choice obliges the
    # seat to settle (a payment, a bonus or token to take), which a game review marks as
    # forced and never labels a mistake.
    consequence_kinds: frozenset[int] = frozenset()
    # Its points in a hint or a review: their unit; the points of a seat per unit of the
    # search's vp_margin (the seat's score less the best other seat's: a two-seat zero-sum
    # count's margin is twice the seat's own); whether the search's reward is those points
    # rescaled (then it is no chance of winning: a hint or a review says the points alone).
    points_unit: str = "points"
    points_per_margin: float = 1.0
    reward_is_points: bool = False
    # A game played on content read from a file (its map, its cards: `--content FILE` on the
    # commands, ServerConfig.content): its loader; None for a game with no content files.
    use_content: ContentLoader | None = None

    def __repr__(self) -> str:
        return f"<Game {self.name}>"

    @property
    def module_name(self) -> str:
        """The name of its modules in each layer (``the_council`` for ``the-council``: engine/
        the_council.py, mcts/the_council_agents.py, server/the_council_presets.py)."""
        return self.name.replace("-", "_")

    @property
    def action_kinds(self) -> tuple[int, ...]:
        """Its pb.ActionKind values, in id order."""
        return tuple(kind for kind, _, _ in self.action_ranges)

    @property
    def min_players(self) -> int:
        return min(self.players)

    @property
    def max_players(self) -> int:
        return max(self.players)

    def new_game(self, config: Any = None, seed: int = 0) -> Position:
        """A new game from a configuration of this game (its defaults if None)."""
        config = self.config_class() if config is None else config
        if not isinstance(config, self.config_class):
            raise TypeError(f"{self.name} takes a {self.config_class.__name__}")
        checked: Any = config  # a config class's (the record's contract)
        return checked.validate().new_game(seed=seed)


_BY_NAME: dict[str, Game] = {}
_BY_PROTO: dict[int, Game] = {}
_BY_CLASS: dict[type, Game] = {}


def players_only_config(
    config_class: type, display_name: str
) -> Callable[[dict[str, Any], str, bool], tuple[Any, Problems]]:
    """The ``Game.read_config`` of a game whose configuration is its seat count alone
    (``config_class(players=...)``). Another game's options are refused before it
    (``serialize.config_from_json``)."""

    def read(fields: dict[str, Any], path: str, complete: bool) -> tuple[Any, Problems]:
        alone = f"{display_name}'s configuration is game and players only"
        found = [(f"{path}.{f}", alone) for f in fields if f != "players"]
        if complete and "players" not in fields:
            found.append((f"{path}.players", "required field is missing"))
        if found:
            return None, found
        try:
            return config_class(**fields).validate(), []
        except ValueError as e:
            _, _, problem = str(e).partition(": ")
            return None, [(f"{path}.players", problem)]

    return read


def played_line(
    action_to_proto: Callable[[Any, int], pb.Action], action_kinds: Sequence[pb.ActionKind]
) -> Callable[[Any, Sequence[int], int], list[pb.Action]]:
    """A game's ``line_to_protos``: each action of a line named in the position it is taken
    in, played in one world sampled from the view (a full state as it is); an action that
    world does not allow (or one past its end) by its id and kind alone (`action_kinds`, by
    action id)."""

    def line_to_protos(view: Any, line: Sequence[int], seed: int) -> list[pb.Action]:
        world = view.determinize(seed) if view.is_view else view.clone()
        out = []
        for a in line:
            if world.is_terminal() or not world.is_legal(a):
                out.append(pb.Action(id=a, kind=action_kinds[a], text=f"action {a}"))
                continue
            out.append(action_to_proto(world, a))
            world.apply(a)
        return out

    return line_to_protos


def own_part_problems(
    msg: pb.GameState, *, display_name: str, part: str, state_format: str, players: int
) -> Problems:
    """The problems of a GameState outside the game's own part, for a game whose position is
    its member of ``GameState.position`` (`part`, e.g. ``kuhn_poker``) and whose
    configuration is its seat count (`players`, fixed): the format, the seat count, the
    member missing, and the viewer with the rng (a view has no rng, a full state has one).
    Another game's part is refused before (``serialize.game_of_message``)."""
    found: Problems = []
    bad = found.append
    if msg.format not in ("", state_format):
        bad(("format", f"must be {state_format!r} for {display_name}, got {msg.format!r}"))
    if not msg.config.HasField("players"):
        bad(("config.players", "required field is missing"))
    elif msg.config.players != players:
        bad(("config.players", f"{display_name} seats {players}, got {msg.config.players}"))
    if not msg.HasField(part):
        bad((part, "required field is missing"))
    if msg.HasField("viewer"):
        if not 0 <= msg.viewer < players:
            bad(("viewer", f"must be in 0..{players - 1}, got {msg.viewer}"))
        if msg.HasField("rng"):
            bad(("rng", "must be absent in a view (a view carries no chance state)"))
    elif not msg.HasField("rng"):
        bad(("rng", "required in a full state (viewer is absent)"))
    return found


def use_content_file(entry: str, game_name: str | None = None) -> tuple[Game, str, str]:
    """Load a content file, ``FILE`` or ``GAME=FILE`` (the commands' and the service's
    ``--content``), for the game it names, else `game_name`, else the one game played on
    content: that game and the content's id and digest. ValueError naming the problem (the
    file's bad value by its path in the file)."""
    name, sep, path = entry.partition("=")
    if not sep or name not in _BY_NAME:
        name, path = game_name or "", entry
    if not name:
        takers = [g.name for g in _BY_NAME.values() if g.use_content is not None]
        if len(takers) != 1:
            raise ValueError(f"--content: name the game, GAME=FILE (one of {', '.join(takers)})")
        name = takers[0]
    game = game_named(name)
    if game.use_content is None:
        raise ValueError(f"--content: {game.display_name} is played without a content file")
    try:
        content_id, digest = game.use_content(path)
    except OSError as e:
        raise ValueError(f"--content: {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise ValueError(f"--content: {path}: {e}") from None
    return game, content_id, digest


def register(game: Game) -> Game:
    """Add a game to the registry (ValueError if its name, Game value, state or config
    class is taken, or it is GAME_UNSPECIFIED)."""
    checks: list[tuple[dict[Any, Game], Any, str]] = [
        (_BY_NAME, game.name, "name"),
        (_BY_PROTO, game.proto, "council.v1.Game value"),
        (_BY_CLASS, game.state_class, "state class"),
    ]
    for taken, key, what in checks:
        if key in taken:
            raise ValueError(f"game {game.name!r}: its {what} {key!r} is {taken[key].name}'s")
    if game.proto == pb.GAME_UNSPECIFIED:
        raise ValueError(f"game {game.name!r}: GAME_UNSPECIFIED names no game")
    if not game.players or game.num_actions < 1:
        raise ValueError(f"game {game.name!r}: it needs seat counts and actions")
    _BY_NAME[game.name] = game
    _BY_PROTO[game.proto] = game
    _BY_CLASS[game.state_class] = game
    _BY_CLASS[game.config_class] = game
    return game


def all_games() -> tuple[Game, ...]:
    """Every registered game, in registration order (the default game first)."""
    return tuple(_BY_NAME.values())


def game_named(name: str) -> Game:
    """The game of a name (ValueError listing the names otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(_BY_NAME)}") from None


def game_of_proto(value: int) -> Game:
    """The game of a council.v1.Game value; GAME_UNSPECIFIED is the default game (ValueError
    for a value no game has)."""
    if value == pb.GAME_UNSPECIFIED:
        return default_game()
    try:
        return _BY_PROTO[value]
    except KeyError:
        known = ", ".join(pb.Game.Name(g.proto) for g in _BY_PROTO.values())
        raise ValueError(f"unknown game {value}; one of GAME_UNSPECIFIED, {known}") from None


def game_of(position_or_config: Any) -> Game:
    """The game of a position or a configuration (TypeError for anything else)."""
    game = _BY_CLASS.get(type(position_or_config))
    if game is None:
        what = type(position_or_config).__name__
        raise TypeError(f"not a position or configuration of a registered game: {what}")
    return game


def default_game() -> Game:
    """The game played where none is named (GAME_UNSPECIFIED, the commands' --game): the
    first registered."""
    return _BY_NAME[DEFAULT_GAME]


# The games register themselves as they are imported; the default game first.
from council.engine import council_of_four  # noqa: E402, F401

# The name of the default game.
DEFAULT_GAME: str = next(iter(_BY_NAME))

from council.engine import the_council  # noqa: E402, F401

# isort: split
# Games added later register after them, in the order GetEngineInfo lists them.
from council.engine import kuhn_poker  # noqa: E402, F401

# isort: split
from council.engine import leduc_poker  # noqa: E402, F401

# isort: split
from council.engine import a_war_of_whispers  # noqa: E402, F401
