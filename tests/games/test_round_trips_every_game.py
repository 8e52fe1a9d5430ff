"""Message and action-codec round trips of every registered game, at every position of
seeded random games.

Messages: a full state and its views, written and read back through the game's record
(``Game.write`` / ``Game.read``) by the wire bytes, give the position back (one seat's view
at each step, the seats in turn, and every seat's at the end); at a sample of positions also
through the generic ``council.engine.serialize`` and JSON text. Actions: every legal
action's id goes to its structured ``Action`` message and back (by the message's structured
fields alone, too), and to its text and back; its kind is the one the game's action ranges
give its id.
"""

from __future__ import annotations

import json
import random

import pytest
from every_game import EVERY_GAME, EVERY_SEAT_COUNT, GAMES, SEEDS, every_position, random_play

from council.engine.games import game_of_proto
from council.engine.serialize import (
    StateValidationError,
    state_from_json,
    state_from_proto,
    state_to_json,
    state_to_proto,
)
from council.v1 import game_pb2 as pb

JSON_SAMPLE_RATE = 0.05  # share of positions also sent through JSON text (protobuf's is slow)


def check_message_round_trip(game, position, json_too: bool) -> None:
    msg = game.write(position)
    assert msg.format == game.state_format and game_of_proto(msg.config.game) is game
    back, problems = game.read(pb.GameState.FromString(msg.SerializeToString()), -1)
    assert problems == [] and back == position, f"{game.name}: the message changed {position!r}"
    if json_too:  # the generic serializer, and JSON text
        assert state_to_proto(position) == msg
        text = json.dumps(state_to_json(position))
        assert state_from_json(json.loads(text)) == position


def kind_of_id(game, action: int) -> int:
    (kind,) = [k for k, first, n in game.action_ranges if first <= action < first + n]
    return kind


def check_action_codec(game, state) -> None:
    legal = state.legal_actions()
    for action in legal:
        msg = game.action_to_proto(state, action)
        assert msg.id == action and msg.kind == kind_of_id(game, action)
        assert game.action_from_proto(state, msg) == action
        structured = pb.Action()
        structured.CopyFrom(msg)
        structured.ClearField("id")
        structured.ClearField("text")
        assert game.action_from_proto(state, structured) == action, (
            f"{game.name}: the fields of {msg} name another action"
        )
        text = state.action_to_text(action)
        assert text and state.action_from_text(text) == action
        assert game.describe(state, action)
        public, secret = game.public_action(state, action)
        assert public.text and (secret or public == msg)
    # A line of actions from the view of the seat to move (a search's principal variation).
    view = state.view(state.current_player)
    (first,) = game.line_to_protos(view, legal[:1], 1)
    assert first.id == legal[0]


@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_messages_round_trip_at_every_step(game, players):
    rng = random.Random(players)
    for state in every_position(game, players):
        json_too = rng.random() < JSON_SAMPLE_RATE
        check_message_round_trip(game, state, json_too)
        # One seat's view at each step, the seats in turn; every seat's at the end.
        seats = range(players) if state.is_terminal() else [state.action_count % players]
        for seat in seats:
            check_message_round_trip(game, state.view(seat), json_too or state.is_terminal())


@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_actions_round_trip_at_every_step(game, players):
    steps = 0
    for seed in SEEDS[:2]:
        for state in random_play(game, players, seed):
            if not state.is_terminal():
                check_action_codec(game, state)
                steps += 1
    assert steps > 0


@pytest.mark.parametrize("game", EVERY_GAME)
def test_an_action_message_is_the_callers_own(game):
    # A game may build its messages once; changing the one it gave must not change the next.
    state = game.new_game(seed=1)
    action = state.legal_actions()[0]
    given = game.action_to_proto(state, action)
    expected = pb.Action()
    expected.CopyFrom(given)
    given.id, given.text = action + 1, "changed"
    assert game.action_to_proto(state, action) == expected


POSITION_PARTS = {f.name for f in pb.GameState.DESCRIPTOR.fields}


@pytest.mark.parametrize("game", EVERY_GAME)
def test_another_games_part_of_the_message_is_refused_by_name(game):
    msg = game.write(game.new_game(seed=1))
    for other in GAMES:
        part = other.module_name
        if other is game or part not in POSITION_PARTS:
            continue
        mixed = pb.GameState()
        mixed.CopyFrom(msg)
        getattr(mixed, part).SetInParent()
        with pytest.raises(StateValidationError) as refused:
            state_from_proto(mixed)
        ((path, problem),) = refused.value.violations
        assert path == part and f"a part of {other.display_name}'s position" in problem
