"""The two forms of the messages that hold one game's fields (docs/state-json.md, "Two forms").

``GameState``, ``GameConfig``, ``Action``, ``SeatEffects`` and ``GameInfo`` each have a
``oneof`` whose members are named after the games (``council_of_four``, ``the_council``, ...;
a game's ``Game.module_name``), each its game's own message (in its own ``.proto``). Before the
members, the same fields sat at the top of the shared message; they are deprecated, read
and written for one more version. Each member is numbered as the deprecated fields it
replaces, so a member's bytes are those fields' bytes, and converting between the forms
needs nothing but the descriptors.

>>> from council.v1 import game_pb2 as pb
>>> action = pb.Action(id=30, kind=pb.ACTION_KIND_ACQUIRE, region=2, slot=1)
>>> moved = to_members(action, "council_of_four")
>>> moved.HasField("region"), moved.council_of_four.region, moved.council_of_four.slot
(False, 2, 1)
>>> from_members(moved) == pb.Action(id=30, kind=pb.ACTION_KIND_ACQUIRE, region=2, slot=1)
True
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from council.v1 import game_pb2 as pb

__all__ = ["GAME_ONEOFS", "both_forms_problems", "from_members", "others_fields", "to_members"]

# Message full name -> its oneof of games' members.
GAME_ONEOFS = {
    pb.GameState.DESCRIPTOR.full_name: "position",
    pb.GameConfig.DESCRIPTOR.full_name: "options",
    pb.Action.DESCRIPTOR.full_name: "structured",
    pb.SeatEffects.DESCRIPTOR.full_name: "game",
    "council.v1.GameInfo": "facts",  # (service.proto's: no layer below the server imports it)
}


def others_fields(msg: Any, member: str) -> list[str]:
    """The fields set in `msg` that are another game's, for the game whose member is `member`
    and whose fields have no deprecated form (every game after the first): the deprecated
    top-level fields, and another game's member.

    >>> others_fields(pb.Action(kind=pb.ACTION_KIND_BET, colour=2, reveal=["x"]), "its_member")
    ['colour', 'reveal']
    """
    found = [f.name for f, _ in msg.ListFields() if f.GetOptions().deprecated]
    present = msg.WhichOneof(GAME_ONEOFS[msg.DESCRIPTOR.full_name])
    return found + [present] if present not in (None, member) else found


def to_members(msg: Any, member: str) -> Any:
    """`msg` with every message inside it (itself included) that has game members written in
    the member form: the deprecated fields that `member` (a game's module name) has moved
    into it. In place; returned. A message without such a member is left as it is."""
    fields = msg.ListFields()
    for field, value in fields:
        if field.message_type is None or not _may_hold_members(field.message_type):
            continue
        for item in value if field.is_repeated else (value,):
            to_members(item, member)
    own = _own_fields(msg.DESCRIPTOR, member)
    moved = [(f, v) for f, v in fields if own.get(f.name) == f.number] if own else ()
    if moved:
        part = getattr(msg, member)
        part.SetInParent()
        for field, value in moved:
            if field.is_repeated:
                getattr(part, field.name).extend(value)
            elif field.message_type is not None:
                getattr(part, field.name).CopyFrom(value)
            else:
                setattr(part, field.name, value)
            msg.ClearField(field.name)
    return msg


# Message full name -> whether it or a message inside it has games' members (the walk of
# to_members skips the others: a position's board, a search's statistics).
_MAY_HOLD: dict[str, bool] = {}


def _may_hold_members(descriptor: Any) -> bool:
    name = descriptor.full_name
    if name not in _MAY_HOLD:
        _MAY_HOLD[name] = False  # (while it is being found: a message inside itself)
        _MAY_HOLD[name] = name in GAME_ONEOFS or any(
            _may_hold_members(f.message_type)
            for f in descriptor.fields
            if f.message_type is not None
        )
    return _MAY_HOLD[name]


# (message full name, member) -> the member's fields by name and number ({}: no such member).
_OWN: dict[tuple[str, str], dict[str, int]] = {}


def _own_fields(descriptor: Any, member: str) -> dict[str, int]:
    key = (descriptor.full_name, member)
    if key not in _OWN:
        oneof = GAME_ONEOFS.get(descriptor.full_name)
        members = () if oneof is None else descriptor.oneofs_by_name[oneof].fields
        _OWN[key] = {
            f.name: f.number for m in members if m.name == member for f in m.message_type.fields
        }
    return _OWN[key]


def _has_deprecated_form(descriptor: Any, member: str) -> bool:
    """Whether every field of the member is a deprecated top-level field of its message (its
    name and number): a member that replaced them, not one of a game added since."""
    top = descriptor.fields_by_name
    own = _own_fields(descriptor, member)
    return all(name in top and top[name].number == number for name, number in own.items())


def _member_fields(msg: Any, member: str) -> Any:
    """The fields of a member's message, by name."""
    return msg.DESCRIPTOR.fields_by_name[member].message_type.fields_by_name


def both_forms_problems(msg: Message, path: str = "") -> list[tuple[str, str]]:
    """A deprecated field set beside the member that replaces it (``config.layout`` beside
    ``config.council_of_four``): refused, named by its path under `path`."""
    oneof = GAME_ONEOFS.get(msg.DESCRIPTOR.full_name)
    member = None if oneof is None else msg.WhichOneof(oneof)
    if member is None:
        return []
    own = _member_fields(msg, member)
    return [
        (f"{path}{f.name}", f"deprecated form of {path}{member}.{f.name}: give only the member")
        for f, _ in msg.ListFields()
        if f.name in own and own[f.name].number == f.number
    ]


def from_members(msg: Any) -> Any:
    """A copy of `msg` with its own member (not those of messages inside it) written in the
    deprecated form: what the readers written for that form read."""
    oneof = GAME_ONEOFS.get(msg.DESCRIPTOR.full_name)
    member = None if oneof is None else msg.WhichOneof(oneof)
    if member is None or not _has_deprecated_form(msg.DESCRIPTOR, member):
        return msg  # a member added after the deprecated fields is read as a member
    out = type(msg)()
    out.CopyFrom(msg)
    out.ClearField(member)
    out.MergeFromString(getattr(msg, member).SerializeToString())  # numbered alike
    return out
