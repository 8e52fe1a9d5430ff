"""Council of Four's registration (``council.engine.games``): its record's parts.

Its rules are the compiled core (``CouncilOfFourState``, ``_council_of_four.pyx``), its
configuration ``CouncilOfFourConfig`` (``council_of_four_config.py``), its messages are read and
written by compiled code (``_council_of_four_document.pyx``), its actions are
``council.engine.council_of_four_actions.Action`` values: an action's message is the same in every
position. The heavier modules (the action codec, the SVG drawing) load on first use, so that
registering costs little.

>>> from council.engine.games import game_named
>>> game = game_named("council-of-four")
>>> state = game.new_game(seed=1)
>>> game.action_to_proto(state, 0).text, game.public_action(state, 0)[1]
('end', False)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

from council.engine import council_of_four_messages as messages
from council.engine._council_of_four import NUM_ACTIONS, CouncilOfFourState, Decision
from council.engine._council_of_four_document import FORMAT, _check_config
from council.engine.council_of_four_config import COUNCIL_OF_FOUR_PLAYERS, CouncilOfFourConfig
from council.engine.games import Game, Problems, register
from council.v1 import game_pb2 as pb

__all__ = ["GAME", "CouncilOfFourConfig", "CouncilOfFourState", "Decision"]

CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(CouncilOfFourConfig))


@functools.cache
def _action_protos() -> tuple[pb.Action, ...]:
    """The Action message of every id (council.engine.council_of_four_actions' codec), built
    once."""
    from council.engine.council_of_four_actions import Action, action_to_proto

    return tuple(action_to_proto(Action.from_id(i)) for i in range(NUM_ACTIONS))


def action_proto(state: Any, action_id: int) -> pb.Action:
    """The Action message of an id, the caller's own (a copy of the one built once: a
    caller that changed a shared one would change every later answer)."""
    message = pb.Action()
    message.CopyFrom(_action_protos()[action_id])
    return message


def _action_from_proto(state: Any, msg: pb.Action) -> int:
    from council.engine.council_of_four_actions import action_from_proto

    return action_from_proto(msg).id


def _public_action(state: Any, action_id: int) -> tuple[pb.Action, bool]:
    return action_proto(state, action_id), False  # no secret move


def _line(view: Any, line: Sequence[int], seed: int) -> list[pb.Action]:
    return [action_proto(view, a) for a in line]


def _describe(state: Any, action_id: int) -> str:
    from council.engine.council_of_four_actions import describe

    return describe(state, action_id)


def _effects(
    before: Any, after: Any, action_id: int, seat: int | None, known_only: bool
) -> pb.ActionEffects:
    from council.engine.council_of_four_effects import effects

    return effects(before, after, action_id, seat, known_only)


def _read_config(fields: dict[str, Any], path: str, complete: bool) -> tuple[Any, Problems]:
    if complete:
        missing = [f for f in CONFIG_FIELDS if f not in fields]
        if missing:
            return None, [(f"{path}.{f}", "required field is missing") for f in missing]
    checked = _check_config(fields)
    if isinstance(checked, list):
        return None, [(f"{path}.{f}", problem) for f, problem in checked]
    return checked, []


def _render_text(state: Any) -> str:
    from council.engine.render_council_of_four import render_state

    return render_state(state)


def _render_svg(state: Any) -> str:
    from council.engine.council_of_four_svg import render_svg

    return render_svg(state)


def _info() -> dict[str, Any]:
    """Its facts (GameInfo's member ``council_of_four``): the names its actions' numbers
    stand for, the names of its SVG's pieces too, and the colours that SVG draws the cards in."""
    from council.engine import council_of_four_board as board
    from council.engine.council_of_four_actions import BALCONY_NAMES
    from council.engine.council_of_four_svg import CARD_FILL

    return {
        "council_of_four": {
            "regions": list(board.REGIONS),
            "balconies": list(BALCONY_NAMES),
            "cities": list(board.CITY_NAMES),
            "colours": list(board.COUNCILLOR_COLOURS),
            "card_fills": {colour: CARD_FILL[colour] for colour in board.COUNCILLOR_COLOURS},
        }
    }


def _action_ranges() -> tuple[tuple[int, int, int], ...]:
    from council.engine.council_of_four_actions import ACTION_KIND_TO_PROTO, ActionKind

    return tuple(
        (ACTION_KIND_TO_PROTO[k], k.offset, k.size)
        for k in sorted(ActionKind, key=lambda k: k.offset)
    )


GAME = register(
    Game(
        name="council-of-four",
        display_name="Council of Four",
        proto=pb.GAME_COUNCIL_OF_FOUR,
        config_class=CouncilOfFourConfig,
        state_class=CouncilOfFourState,
        players=COUNCIL_OF_FOUR_PLAYERS,
        state_format=FORMAT,
        num_actions=NUM_ACTIONS,
        action_ranges=_action_ranges(),
        read=messages.read,  # either form of its position (council_of_four_messages)
        write=messages.write_state,
        read_config=_read_config,
        action_to_proto=action_proto,
        action_from_proto=_action_from_proto,
        public_action=_public_action,
        line_to_protos=_line,
        describe=_describe,
        render_text=_render_text,
        render_svg=_render_svg,
        info=_info,
        progress=lambda state: f"turn {state.turn:3d}",
        routine=lambda state, action: action == 0,  # the end of a turn
        effects=_effects,
        fixed_action_protos=True,
        points_unit="VP",
        consequence_kinds=frozenset(
            (
                pb.ACTION_KIND_PAY,
                pb.ACTION_KIND_CHOOSE_TOKEN,
                pb.ACTION_KIND_CHOOSE_FREE_PERMIT,
                pb.ACTION_KIND_CHOOSE_PERMIT_BONUS,
            )
        ),
    )
)
