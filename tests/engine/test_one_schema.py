"""One schema for a position: the engine's JSON form is the protobuf JSON mapping of
council.v1.GameState, for new, mid-game and finished states of 2, 3 and 4 players, full
states and every seat's view."""

from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import (
    StateValidationError,
    schema_problems,
    state_from_json,
    state_from_proto,
    state_to_json,
    state_to_proto,
)
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb


def _stages(players: int, seed: int) -> dict[str, CouncilOfFourState]:
    """A new game, a position in the middle of it and its finished position."""
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    rng = random.Random(seed)
    out = {"new": s.clone()}
    while not s.is_terminal():
        if s.action_count == 40 * players:
            out["mid"] = s.clone()
        s.apply(rng.choice(s.legal_actions()))
    out["finished"] = s
    assert set(out) == {"new", "mid", "finished"}
    return out


POSITIONS = [
    pytest.param(state, id=f"{players}p-{stage}-{who}")
    for players in (2, 3, 4)
    for stage, full in _stages(players, seed=players).items()
    for who, state in [("full", full)] + [(f"view{p}", full.view(p)) for p in range(players)]
]


@pytest.mark.parametrize("state", POSITIONS)
def test_the_json_form_is_the_protobuf_json_mapping(state):
    msg = state_to_proto(state)
    assert json_format.ParseDict(state_to_json(state), pb.GameState()) == msg
    # What a protobuf client writes (defaults left out, proto names) loads back exactly.
    written = json_format.MessageToDict(msg, preserving_proto_field_name=True)
    assert state_from_json(json.loads(json.dumps(written))) == state
    # And with the JSON names of the mapping.
    assert state_from_json(json_format.MessageToDict(msg)) == state
    assert state_from_proto(msg) == state
    assert state_to_json(state) == json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def test_a_message_that_is_not_a_position_is_refused_with_its_paths():
    msg = state_to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
    msg.board.face_up.hills.slot1 = 50
    msg.turn.pending.add(kind="pay_king", permit=cof_pb.PermitSlot(region="coast"))
    with pytest.raises(StateValidationError) as info:
        state_from_proto(msg)
    assert info.value.violations == [
        ("board.face_up.hills.slot1", "must be in 0..44, got 50"),
        ("turn.pending[0].permit", "must be absent for pay_king"),
        ("turn.pending[0].city", "required for pay_king"),
    ]


def test_the_shape_check_follows_the_schema():
    assert schema_problems(
        {"players": [{"coins": "7", "emporium": []}]}, pb.GameState.DESCRIPTOR
    ) == [
        ("players[0].coins", "must be an integer"),
        ("players[0].emporium", "unknown field"),
    ]
    assert schema_problems(
        {"rng": "12", "viewer": None, "board": {"city_tokens": {"Arkon": 1.5}}},
        pb.GameState.DESCRIPTOR,
    ) == [("board.city_tokens.Arkon", "must be an integer")]
    assert schema_problems({"rng": "x", "turn": []}, pb.GameState.DESCRIPTOR) == [
        ("rng", "must be an integer (or a decimal string)"),
        ("turn", "must be an object"),
    ]
    assert schema_problems({"turn": {"number": 2**31}}, pb.GameState.DESCRIPTOR) == [
        ("turn.number", f"must be in {-(2**31)}..{2**31 - 1}, got {2**31}")
    ]


def test_a_partial_state_is_read_as_the_view_of_the_given_seat():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    msg = state_to_proto(s)
    msg.players[2].ClearField("hand")
    with pytest.raises(StateValidationError) as info:
        state_from_proto(msg)
    assert info.value.violations == [
        ("players[2].hand", "required in a full state (viewer is absent)")
    ]
    assert state_from_proto(msg, view_of=0) == s.view(0)
    assert state_from_proto(msg, view_of=1) == s.view(1)
    with pytest.raises(StateValidationError) as info:
        state_from_proto(msg, view_of=2)
    assert info.value.violations == [("players[2].hand", "the viewer's own hand must be given")]
    # A full state with every hand stays a full state.
    assert state_from_proto(state_to_proto(s), view_of=1) == s
