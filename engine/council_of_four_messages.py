"""Council of Four's messages: its position in a ``council.v1.GameState`` in either form.

Its position is ``GameState.council_of_four`` (``CouncilOfFourPosition``) and its rule
variants ``GameConfig.council_of_four`` (``CouncilOfFourOptions``): the member form, like
every other game's. Before them it was GameState's top-level fields ``board``, ``players``
and ``turn`` and GameConfig's ``layout`` .. ``nobility_bonus_on_pass``: the deprecated form,
still read and written for one version (docs/state-json.md, "Two forms"). The members are
numbered as the deprecated fields, so a member's bytes are those fields' bytes.

The compiled reader and writer (``_council_of_four_document.pyx``) work on the deprecated form; this
module reads the member form through it (``council.engine.members`` converts), naming a problem by
the field the message used (``council_of_four.players[1].coins`` in the member form,
``players[1].coins`` in the other).

>>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
>>> state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
>>> from council.engine.members import to_members
>>> msg = to_members(write_state(state), "council_of_four")
>>> msg.HasField("board"), msg.council_of_four.players[1].coins, msg.config.council_of_four.layout
(False, 11, 'ABA')
>>> read(msg, -1)[0] == state
True
>>> msg.council_of_four.players[1].coins = 99
>>> read(msg, -1)[1]
[('council_of_four.players[1].coins', 'must be in 0..20, got 99')]
"""

from __future__ import annotations

from typing import Any

from council.engine._council_of_four_document import read_state, write_state
from council.engine.members import both_forms_problems, from_members
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb

__all__ = [
    "DEPRECATED_STATE_FIELDS",
    "OPTION_FIELDS",
    "TO_MOVE",
    "asks_member_form",
    "read",
    "write_state",
]

# GameState's deprecated top-level fields, now CouncilOfFourPosition's (same names, numbers).
DEPRECATED_STATE_FIELDS = tuple(f.name for f in cof_pb.CouncilOfFourPosition.DESCRIPTOR.fields)
# The rule variants: CouncilOfFourOptions' fields, and GameConfig's deprecated ones.
OPTION_FIELDS = tuple(f.name for f in cof_pb.CouncilOfFourOptions.DESCRIPTOR.fields)
MEMBER = "council_of_four"  # the member's name in GameState.position and GameConfig.options
# Game.read's view_of: the seat to move, as the position names it (a request with no seat).
TO_MOVE = -2


def asks_member_form(msg: pb.GameState) -> bool:
    """Whether a message gives Council of Four's position or options in their members
    (``council_of_four``) rather than the deprecated fields: the service then answers in the
    member form, its actions and effects included (docs/state-json.md, "Two forms")."""
    return msg.HasField(MEMBER) or msg.config.HasField(MEMBER)


def read(msg: pb.GameState, view_of: int) -> tuple[Any, list[tuple[str, str]]]:
    """Game.read of Council of Four: the position of a message in either form (a part in
    both is refused), and its problems named by the fields the message used. ``view_of``:
    -1, a seat, or TO_MOVE; a full state whose other seats' hands are absent is read as that
    seat's view (a seat the position does not have reads it as it is)."""
    found = both_forms_problems(msg.config, "config.") + both_forms_problems(msg)
    if found:
        return None, found
    member, options = msg.HasField(MEMBER), msg.config.HasField(MEMBER)
    legacy = from_members(msg)  # the compiled reader reads the deprecated form
    if options:
        legacy.config.CopyFrom(from_members(msg.config))
    seat = legacy.turn.current if view_of == TO_MOVE else view_of
    state, found = read_state(legacy, seat if 0 <= seat < len(legacy.players) else -1)
    if member or options:
        found = [(_member_path(path, member, options), problem) for path, problem in found]
    return state, found


def _member_path(path: str, member: bool, options: bool) -> str:
    """The path of a problem the compiled reader names in the deprecated form, in the form
    the message used."""
    root = path.split(".", 1)[0].split("[", 1)[0]
    if member and root in DEPRECATED_STATE_FIELDS:
        return f"{MEMBER}.{path}"
    if options and root == "config":
        _, _, rest = path.partition(".")
        if rest.split(".", 1)[0] in OPTION_FIELDS:
            return f"config.{MEMBER}.{rest}"
    return path
