"""Council of Four's position in its two forms (docs/state-json.md, "Two forms"): its member
``GameState.council_of_four`` / ``GameConfig.council_of_four``, and the deprecated top-level
fields. Both read to the same state; a part in both forms, another game's member, and
Council of Four's fields in another game are refused by name."""

from __future__ import annotations

import random

import pytest
from google.protobuf import json_format

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_messages import DEPRECATED_STATE_FIELDS, OPTION_FIELDS
from council.engine.games import game_named
from council.engine.members import both_forms_problems, from_members, others_fields, to_members
from council.engine.serialize import (
    TO_MOVE,
    StateValidationError,
    config_from_json,
    config_from_proto,
    state_from_json,
    state_from_proto,
    state_to_json,
    state_to_proto,
)
from council.v1 import game_pb2 as pb


def _mid_game(players: int = 3, seed: int = 5, actions: int = 40) -> CouncilOfFourState:
    state = CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=players, layout="BAB", max_coins=25), seed=seed
    )
    chooser = random.Random(seed)
    for _ in range(actions):
        state.apply(chooser.choice(state.legal_actions()))
    return state


def _problems(msg: pb.GameState, **kwargs) -> list[tuple[str, str]]:
    with pytest.raises(StateValidationError) as refused:
        state_from_proto(msg, **kwargs)
    return refused.value.violations


@pytest.mark.parametrize("view", [None, 0, 2])
def test_both_forms_read_to_the_same_position(view):
    state = _mid_game()
    shown = state if view is None else state.view(view)
    old, new = state_to_proto(shown), state_to_proto(shown, member_form=True)
    assert not new.HasField("board") and not new.players and not new.HasField("turn")
    assert not old.HasField("council_of_four") and not old.config.HasField("council_of_four")
    assert new.config.council_of_four.layout == "BAB" and new.config.council_of_four.max_coins == 25
    assert not any(new.config.HasField(f) for f in OPTION_FIELDS)
    assert state_from_proto(old) == state_from_proto(new) == shown
    # The members are numbered as the deprecated fields: the same bytes inside.
    spliced = pb.GameState.FromString(new.council_of_four.SerializeToString())
    spliced.config.MergeFromString(new.config.council_of_four.SerializeToString())
    spliced.config.players = 3
    assert [getattr(spliced, f) for f in DEPRECATED_STATE_FIELDS] == [
        getattr(old, f) for f in DEPRECATED_STATE_FIELDS
    ]
    assert spliced.config == old.config


def test_json_of_the_member_form_round_trips_without_the_deprecated_keys():
    state = _mid_game()
    obj = state_to_json(state, member_form=True)
    assert list(obj) == ["format", "config", "rng", "council_of_four"]
    assert list(obj["council_of_four"]) == ["board", "players", "turn"]
    assert obj["config"] == {
        "players": 3,
        "council_of_four": {
            "layout": "BAB",
            "max_coins": 25,
            "assistant_supply": 0,
            "permit_tie_all_score": True,
            "nobility_bonus_on_pass": False,
        },
    }
    assert state_from_json(obj) == state
    assert list(state_to_json(state)) == ["format", "config", "rng", "board", "players", "turn"]


def test_problems_are_named_by_the_form_the_message_used():
    msg = state_to_proto(_mid_game(), member_form=True)
    msg.council_of_four.players[1].coins = 99
    msg.config.council_of_four.max_coins = 5
    assert _problems(msg) == [
        ("config.council_of_four.max_coins", "must be an integer in 13..30000, got 5")
    ]
    msg.config.council_of_four.max_coins = 25
    assert _problems(msg) == [("council_of_four.players[1].coins", "must be in 0..25, got 99")]
    msg.council_of_four.ClearField("turn")
    msg.council_of_four.players[1].coins = 3
    assert ("council_of_four.turn", "required field is missing") in _problems(msg)


def test_a_part_in_both_forms_is_refused_naming_the_deprecated_field():
    state = _mid_game()
    msg = state_to_proto(state, member_form=True)
    msg.board.CopyFrom(msg.council_of_four.board)
    msg.players.add()
    msg.config.layout = "BAB"
    assert _problems(msg) == [
        ("config.layout", "deprecated form of config.council_of_four.layout: give only the member"),
        ("board", "deprecated form of council_of_four.board: give only the member"),
        ("players", "deprecated form of council_of_four.players: give only the member"),
    ]


def test_either_form_alone_may_be_the_member_one():
    state = _mid_game()
    position_only = state_to_proto(state, member_form=True)
    old = state_to_proto(state)
    position_only.config.CopyFrom(old.config)  # the rule variants in the deprecated form
    options_only = state_to_proto(state)
    options_only.config.CopyFrom(state_to_proto(state, member_form=True).config)
    assert state_from_proto(position_only) == state_from_proto(options_only) == state


def test_a_partial_state_in_the_member_form_is_read_as_the_seat_to_moves_view():
    state = _mid_game()
    mover = state.current_player
    msg = state_to_proto(state, member_form=True)
    for seat, player in enumerate(msg.council_of_four.players):
        if seat != mover:
            player.ClearField("hand")
    assert state_from_proto(msg, view_of=TO_MOVE) == state.view(mover)
    other = (mover + 1) % state.n_players
    assert _problems(msg, view_of=other) == [
        (f"council_of_four.players[{other}].hand", "the viewer's own hand must be given")
    ]


def test_another_games_member_and_council_of_fours_fields_in_another_game_are_refused():
    kuhn = game_named("kuhn-poker")
    msg = kuhn.write(kuhn.new_game(seed=1))
    for edit, field, words in [
        (lambda m: m.board.SetInParent(), "board", "a part of Council of Four's position"),
        (lambda m: m.players.add(), "players", "a part of Council of Four's position"),
        (lambda m: setattr(m.config, "max_coins", 20), "config.max_coins", "a rule variant"),
        (
            lambda m: m.config.council_of_four.SetInParent(),
            "config.council_of_four",
            "a part of Council of Four's options: config.game must then be GAME_COUNCIL_OF_FOUR",
        ),
    ]:
        mixed = pb.GameState()
        mixed.CopyFrom(msg)
        edit(mixed)
        found = _problems(mixed)
        assert any(f == field and words in p for f, p in found), (field, found)
    # A Council of Four member in a Kuhn poker message replaces its own: named as such.
    mixed = pb.GameState()
    mixed.CopyFrom(msg)
    mixed.council_of_four.SetInParent()
    assert _problems(mixed) == [
        (
            "council_of_four",
            "a part of Council of Four's position: config.game must then be "
            "GAME_COUNCIL_OF_FOUR (absent means Council of Four)",
        )
    ]


def test_a_config_reads_in_either_form_and_not_in_both():
    deprecated = pb.GameConfig(players=2, layout="BBA", max_coins=30)
    member = pb.GameConfig(players=2)
    member.council_of_four.layout, member.council_of_four.max_coins = "BBA", 30
    assert config_from_proto(deprecated) == config_from_proto(member)
    assert config_from_proto(member) == CouncilOfFourConfig(players=2, layout="BBA", max_coins=30)
    obj = json_format.MessageToDict(member)  # the JSON names: "councilOfFour", "maxCoins"
    assert config_from_json(obj, complete=False) == config_from_proto(member)
    both = pb.GameConfig()
    both.CopyFrom(member)
    both.layout = "AAA"
    with pytest.raises(StateValidationError) as refused:
        config_from_proto(both)
    assert refused.value.violations == [
        ("config.layout", "deprecated form of config.council_of_four.layout: give only the member")
    ]
    member.council_of_four.max_coins = 5
    with pytest.raises(StateValidationError) as refused:
        config_from_proto(member)
    assert [f for f, _ in refused.value.violations] == ["config.council_of_four.max_coins"]
    kuhn = pb.GameConfig(game=pb.GAME_KUHN_POKER, players=2)
    kuhn.council_of_four.SetInParent()
    with pytest.raises(StateValidationError) as refused:
        config_from_proto(kuhn)
    assert [f for f, _ in refused.value.violations] == ["config.council_of_four"]


@pytest.mark.parametrize("name", ["council-of-four", "the-council", "kuhn-poker", "leduc-poker"])
def test_every_games_actions_and_effects_convert_to_their_members_and_back(name):
    game = game_named(name)
    member = game.module_name
    chooser = random.Random(3)
    own_changes = 0
    state = game.new_game(seed=0)
    for step in range(40):  # a new deal whenever a game ends (the pokers' are short)
        if state.is_terminal():
            state = game.new_game(seed=step)
        action = chooser.choice(state.legal_actions())
        message = game.action_to_proto(state, action)
        before = state.clone()
        state.apply(action)
        effects = game.effects(before, state, action, None, False)
        converted = to_members(_copy(message), member)
        assert converted.WhichOneof("structured") in (None, member)
        assert from_members(converted) == message and both_forms_problems(converted) == []
        converted = to_members(_copy(effects), member)
        for old, new in zip(effects.seats, converted.seats, strict=True):
            assert new.WhichOneof("game") in (None, member) and both_forms_problems(new) == []
            assert from_members(new) == old
            own_changes += new.HasField(member)
    assert own_changes > 0  # some seat's changes were the game's own


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def test_another_games_fields_in_an_action_are_named_by_the_game_that_has_no_deprecated_form():
    action = pb.Action(kind=pb.ACTION_KIND_BET)
    assert others_fields(action, "kuhn_poker") == []
    action.reveal.append("The Author")  # The Council's deprecated field
    action.the_council.card = "The Author"  # its member
    action.colour = 2  # Council of Four's deprecated field
    assert others_fields(action, "kuhn_poker") == ["colour", "reveal", "the_council"]
    assert others_fields(action, "the_council") == ["colour", "reveal"]
