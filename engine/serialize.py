"""A position as a ``council.v1.GameState``: message, JSON, text.

The protobuf message ``council.v1.GameState`` is the one schema of a position of every game,
a full state or one seat's view of it. Its protobuf JSON mapping with the proto field names
is the engine's JSON form, documented in ``docs/state-json.md``. Each function asks the
game's registered record (``council.engine.games``: the game of a position, or the one
``config.game`` names) for its reader and writer:

* ``state_to_proto`` / ``state_from_proto``: the message, read and written by compiled code
  straight from and into the core's struct (this is what the service uses);
* ``state_to_json`` / ``state_from_json``: its JSON object, converted with protobuf's own
  ``json_format``; ``dumps`` / ``loads`` for text.

Reading validates everything before it returns a state: the JSON's shape and types against
the schema, every field's range, then the consistency of the whole position
(``problems``, the ``Board.status()`` of python-chess: card, councillor, tile and token
conservation, emporiums, bonus tiles, the turn and its pending decisions). All problems
found are reported together in one ``StateValidationError``.

>>> from council.engine.games import default_game
>>> game = default_game()
>>> s = game.new_game(game.config_class(players=2), seed=1)
>>> obj = state_to_json(s)
>>> obj["format"] == game.state_format, obj["board"]["king_city"], obj["players"][1]["coins"]
(True, 'Juvelar', 11)
>>> state_from_json(obj) == s
True
>>> obj["players"][1]["coins"] = 99
>>> try:
...     state_from_json(obj)
... except StateValidationError as e:
...     print(e)
players[1].coins: must be in 0..20, got 99
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeAlias

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from council.engine import Position
from council.engine._deprecated import moved
from council.engine.council_of_four_messages import DEPRECATED_STATE_FIELDS, OPTION_FIELDS, TO_MOVE
from council.engine.games import Game, GameSettings, all_games, game_of, game_of_proto
from council.engine.members import to_members
from council.v1 import game_pb2 as pb

if TYPE_CHECKING:
    # protobuf's stubs give a message's DESCRIPTOR as the Python implementation's or upb's
    # (the one this protobuf runs), whose fields are upb FieldDescriptors in turn.
    from google._upb._message import Descriptor as _UpbDescriptor
    from google._upb._message import FieldDescriptor as _UpbFieldDescriptor

    MessageDescriptor: TypeAlias = Descriptor | _UpbDescriptor
    AnyFieldDescriptor: TypeAlias = FieldDescriptor | _UpbFieldDescriptor

__all__ = [
    "TO_MOVE",
    "StateValidationError",
    "config_from_json",
    "config_from_proto",
    "dumps",
    "game_of_message",
    "loads",
    "problems",
    "state_from_json",
    "state_from_proto",
    "state_to_json",
    "state_to_proto",
]


# Deprecated (0.4.0 removes it): the default game's position format, re-exported from its
# module; a game's is its Game.state_format.
__getattr__ = moved(__name__, {"FORMAT": "council.engine._council_of_four_document:FORMAT"})


def problems(state: Position) -> list[tuple[str, str]]:
    """Every consistency problem of a position as ``(field path, problem)``, ``[]`` for a
    consistent one: its ``problems()``, the checks its game's reader runs on load."""
    return state.problems()


class StateValidationError(ValueError):
    """A position that is malformed or inconsistent.

    ``violations`` lists every problem found as ``(field, problem)``: ``field`` is a
    GameState field path such as ``players[2].coins`` or ``board.balconies.hills[1]``
    (``(root)`` for the document itself), ``problem`` a sentence. ``field`` and ``problem``
    are the first one.
    """

    def __init__(self, violations: list[tuple[str, str]]):
        if not violations:
            raise ValueError("StateValidationError needs at least one violation")
        self.violations = list(violations)
        self.field, self.problem = self.violations[0]
        super().__init__("; ".join(f"{f}: {p}" for f, p in self.violations))


# ---------------------------------------------------------------------------------------
# The message.


def state_to_proto(state: Position, *, member_form: bool = False) -> pb.GameState:
    """The GameState message of a state or view of any registered game. Council of Four's is
    written in the deprecated form (GameState's top-level ``board``, ``players``, ``turn``
    and GameConfig's rule variants) unless ``member_form``: then in its members
    ``council_of_four`` (docs/state-json.md, "Two forms"). Every other game's is always in
    its member."""
    game = game_of(state)
    msg = game.write(state)
    return to_members(msg, game.module_name) if member_form else msg


def game_of_message(msg: pb.GameState) -> Game:
    """The game of a GameState message: the one its ``config.game`` names (absent: the
    default game). A part of another game's is refused, naming its field: another game's
    position member (``GameState.position``) or options member (``GameConfig.options``),
    and in a game other than Council of Four, Council of Four's deprecated top-level fields.
    Raises StateValidationError."""
    try:
        game = game_of_proto(msg.config.game)
    except ValueError as e:
        raise StateValidationError([("config.game", str(e))]) from None
    found = _member_problems(msg.WhichOneof("position"), game, "", "position")
    found += _member_problems(msg.config.WhichOneof("options"), game, "config.", "options")
    if found:  # which game is meant is unclear: nothing else is checked
        raise StateValidationError(found)
    cof = _council_of_four()
    if game is not cof:
        found = [
            (
                name,
                f"a part of {cof.display_name}'s position: {game.display_name}'s is "
                f"{game.module_name}",
            )
            for name in DEPRECATED_STATE_FIELDS
            if (len(msg.players) if name == "players" else msg.HasField(name))
        ]
        found += _rule_variants(game, [f for f in OPTION_FIELDS if msg.config.HasField(f)])
        if found:
            raise StateValidationError(found)
    return game


def _council_of_four() -> Game:
    """The game whose position had GameState's deprecated top-level fields."""
    return game_of_proto(pb.GAME_COUNCIL_OF_FOUR)


def _member_problems(member: str | None, game: Game, path: str, what: str) -> list:
    """A member of a oneof of games' parts (GameState.position, GameConfig.options: named
    after their games) that is not `game`'s, as a problem naming it; `what` the oneof."""
    if member is None or member == game.module_name:
        return []
    other = next(g for g in all_games() if g.module_name == member)
    default = game_of_proto(pb.GAME_UNSPECIFIED).display_name
    problem = (
        f"a part of {other.display_name}'s {what}: config.game must then be "
        f"{pb.Game.Name(other.proto)} (absent means {default})"
    )
    return [(path + member, problem)]


def _rule_variants(game: Game, names: list[str], path: str = "config") -> list:
    """Council of Four's deprecated top-level rule variants given to another game."""
    return [
        (
            f"{path}.{name}",
            f"a rule variant of Council of Four: {game.display_name}'s configuration is game "
            "and players only",
        )
        for name in names
    ]


def state_from_proto(
    msg: pb.GameState, *, view_of: int | None = None, game: Game | None = None
) -> Position:
    """Validate a GameState message and build the position it describes, of the game its
    ``config.game`` names (``council.engine.games``; absent: the default game): `game` when
    the caller looked it up already (``game_of_message``).

    With ``view_of`` (a seat, or ``TO_MOVE``: the seat to move), a state without a viewer
    whose other seats' hidden cards are (partly) absent is read as that seat's view where
    the game has such partial states (Council of Four: what the seat cannot know is dropped
    first). Raises StateValidationError listing every violation found.
    """
    if game is None:
        game = game_of_message(msg)
    state, found = game.read(msg, -1 if view_of is None else view_of)
    if state is None:  # a reader gives a position exactly when it found no problem
        raise StateValidationError(found)
    return state


def config_from_proto(
    msg: pb.GameConfig, path: str = "config", *, complete: bool = False
) -> GameSettings:
    """The configuration of a GameConfig message, of the game its ``game`` names (absent:
    the default game). Absent fields take the defaults unless ``complete``. Raises
    StateValidationError naming ``<path>.<field>`` for every problem."""
    obj: dict[str, Any] = {
        f.name: getattr(msg, f.name) for f in msg.DESCRIPTOR.fields if msg.HasField(f.name)
    }
    member = msg.WhichOneof("options")
    if member is not None:  # a game's options: their fields by name, as in JSON
        options = getattr(msg, member)
        obj[member] = {f.name: getattr(options, f.name) for f, _ in options.ListFields()}
    return config_from_json(obj, path, complete=complete)


# ---------------------------------------------------------------------------------------
# JSON: the protobuf JSON mapping of the message.


def state_to_json(state: Position, *, member_form: bool = False) -> dict:
    """The JSON object of a state or view: ``MessageToDict`` of its message
    (``state_to_proto``, in the form ``member_form`` says) with the proto field names, every
    field without presence written (zeros and empty lists included), keys in schema order
    (map keys sorted) so that a state always gives the same text. A position in a member
    leaves out the deprecated top-level ``players`` (an empty list, no part of it)."""
    msg = state_to_proto(state, member_form=member_form)
    obj = json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    if msg.WhichOneof("position") is not None:
        obj.pop("players", None)
    return _in_schema_order(obj, pb.GameState.DESCRIPTOR)


def _in_schema_order(obj: dict, descriptor: MessageDescriptor) -> dict:
    out = {}
    for field in descriptor.fields:
        if field.name not in obj:
            continue
        value = obj[field.name]
        if field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                value = dict(sorted(value.items()))
            elif field.is_repeated:
                value = [_in_schema_order(v, field.message_type) for v in value]
            else:
                value = _in_schema_order(value, field.message_type)
        out[field.name] = value
    return out


def state_from_json(obj: Any) -> Position:
    """Validate a JSON object and build the position it describes.

    Any protobuf JSON mapping of a GameState is accepted (absent fields take their
    defaults; ``null`` is an absent field). Raises StateValidationError listing every
    violation found.
    """
    found = schema_problems(obj, pb.GameState.DESCRIPTOR)
    if found:
        raise StateValidationError(found)
    try:
        msg = json_format.ParseDict(obj, pb.GameState())
    except json_format.ParseError as e:  # anything the schema walk let through
        raise StateValidationError([("(root)", str(e))]) from None
    return state_from_proto(msg)


def dumps(state: Position, **kwargs) -> str:
    """The JSON text of a state; keyword arguments go to ``json.dumps`` (e.g. indent=2)."""
    return json.dumps(state_to_json(state), **kwargs)


def loads(text: str | bytes) -> Position:
    """Parse and validate JSON text into a position (StateValidationError if invalid)."""
    try:
        obj = json.loads(text)
    except ValueError as e:  # json.JSONDecodeError and bad UTF-8 both derive from it
        raise StateValidationError([("(root)", f"is not valid JSON: {e}")]) from None
    return state_from_json(obj)


def config_from_json(obj: Any, path: str = "config", *, complete: bool = True) -> GameSettings:
    """The configuration of a GameConfig JSON object (the field names of GameConfig), of
    the game its ``game`` names (absent: the default game; ``Game.read_config``).

    With ``complete=False`` missing fields take the defaults. Raises StateValidationError
    naming ``<path>.<field>`` for every problem.
    """
    found = schema_problems(obj, pb.GameConfig.DESCRIPTOR, path)
    if found:
        raise StateValidationError(found)
    obj = {k: v for k, v in obj.items() if v is not None}
    value = obj.pop("game", pb.GAME_UNSPECIFIED)
    try:
        game = game_of_proto(pb.Game.Value(value) if isinstance(value, str) else value)
    except ValueError as e:
        raise StateValidationError([(f"{path}.game", str(e))]) from None
    member, options = _options_member(obj)
    found = _member_problems(member, game, f"{path}.", "options")
    if game is not _council_of_four():
        found += _rule_variants(game, [f for f in OPTION_FIELDS if f in obj], path)
    if not found and member is not None:  # the member and the deprecated form: not both
        found = [
            (f"{path}.{k}", f"deprecated form of {path}.{member}.{k}: give only the member")
            for k in OPTION_FIELDS
            if k in obj
        ]
    if found:
        raise StateValidationError(found)
    config, found = game.read_config({**obj, **options}, path, complete)
    if config is None:  # a problem of an option given in the member is named there
        prefix = f"{path}."
        found = [
            (f"{path}.{member}.{f[len(prefix) :]}" if f[len(prefix) :] in options else f, p)
            for f, p in found
        ]
        raise StateValidationError(found)
    return config


def _options_member(obj: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The member of GameConfig's ``options`` a config's JSON object gives (taken out of
    `obj`), and its set fields by their proto names (None and {} if none)."""
    for field in pb.GameConfig.DESCRIPTOR.oneofs_by_name["options"].fields:
        for key in (field.name, field.json_name):
            if key in obj:
                inner = field.message_type
                assert inner is not None  # a oneof of messages
                given = obj.pop(key)
                return field.name, {
                    (inner.fields_by_name.get(k) or inner.fields_by_camelcase_name[k]).name: v
                    for k, v in given.items()
                    if v is not None
                }
    return None, {}


# ---------------------------------------------------------------------------------------
# The shape of a JSON document, checked against the message descriptor.

_INTEGER_BITS = {
    FieldDescriptor.TYPE_INT32: (True, 32),
    FieldDescriptor.TYPE_SINT32: (True, 32),
    FieldDescriptor.TYPE_SFIXED32: (True, 32),
    FieldDescriptor.TYPE_UINT32: (False, 32),
    FieldDescriptor.TYPE_FIXED32: (False, 32),
    FieldDescriptor.TYPE_INT64: (True, 64),
    FieldDescriptor.TYPE_SINT64: (True, 64),
    FieldDescriptor.TYPE_SFIXED64: (True, 64),
    FieldDescriptor.TYPE_UINT64: (False, 64),
    FieldDescriptor.TYPE_FIXED64: (False, 64),
}


def _join(path: str, key: str) -> str:
    return key if path in ("", "(root)") else f"{path}.{key}"


def schema_problems(obj: Any, descriptor: MessageDescriptor, path: str = "(root)") -> list:
    """Every place where ``obj`` does not fit the message ``descriptor`` in the protobuf
    JSON mapping, as ``(field path, problem)``: unknown fields, wrong types, integers out of
    their type's range. Field names are the proto names (the JSON names are accepted too).
    Integers are JSON integers; 64-bit ones may also be decimal strings, as the mapping
    writes them."""
    if not isinstance(obj, dict):
        return [(path, "must be an object")]
    found: list[tuple[str, str]] = []
    for key, value in obj.items():
        field = descriptor.fields_by_name.get(key) or descriptor.fields_by_camelcase_name.get(key)
        if field is None:
            found.append((_join(path, str(key)), "unknown field"))
            continue
        where = _join(path, field.name)
        if value is None:  # null is an absent field
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if not isinstance(value, dict):
                found.append((where, "must be an object"))
                continue
            value_field = field.message_type.fields_by_name["value"]
            for k, v in value.items():
                found += _value_problems(v, value_field, f"{where}.{k}")
        elif field.is_repeated:
            if not isinstance(value, list):
                found.append((where, "must be a list"))
                continue
            for i, item in enumerate(value):
                found += _value_problems(item, field, f"{where}[{i}]")
        else:
            found += _value_problems(value, field, where)
    return found


def _value_problems(value: Any, field: AnyFieldDescriptor, path: str) -> list:
    if field.message_type is not None:
        return schema_problems(value, field.message_type, path)
    kind = field.type
    if kind == FieldDescriptor.TYPE_BOOL:
        return [] if isinstance(value, bool) else [(path, "must be true or false")]
    if kind == FieldDescriptor.TYPE_STRING:
        return [] if isinstance(value, str) else [(path, "must be a string")]
    if kind == FieldDescriptor.TYPE_ENUM:  # a value's name, or its number
        assert field.enum_type is not None
        names = field.enum_type.values_by_name
        if isinstance(value, str):
            return (
                []
                if value in names
                else [(path, f"unknown value {value!r}; one of {', '.join(names)}")]
            )
        if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31:
            return []
        return [(path, "must be an enum value's name (or its number)")]
    if kind in _INTEGER_BITS:
        signed, bits = _INTEGER_BITS[kind]
        if bits == 64 and isinstance(value, str) and value.isascii() and value.isdigit():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            what = "an integer (or a decimal string)" if bits == 64 else "an integer"
            return [(path, f"must be {what}")]
        lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
        if not lo <= value <= hi:
            return [(path, f"must be in {lo}..{hi}, got {value}")]
        return []
    return [(path, f"has a type this schema check does not know: {kind}")]
