"""The position contract (council.engine.position.Position): both games' positions meet it
with the same methods, the shared wrapper code behaves the same for both, The Council's
consistency is its position's ``problems()`` (the reader only reads), and both games'
structured action codecs are the engine's."""

from __future__ import annotations

import inspect
import pickle
import random

import pytest

from council.engine import Position, _the_council, the_council_actions
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import (
    NUM_ACTIONS,
    Action,
    StructuredActionError,
    action_from_proto,
    action_to_proto,
)
from council.engine.serialize import StateValidationError, state_from_proto, state_to_proto
from council.engine.the_council import TheCouncilConfig, TheCouncilState
from council.v1 import game_pb2 as pb

CONFIGS = [CouncilOfFourConfig(players=3), TheCouncilConfig(players=4)]
# The protocol's members: its methods and properties, not typing's machinery.
MEMBERS = sorted(
    name
    for name, value in vars(Position).items()
    if not name.startswith("_") and (callable(value) or isinstance(value, property))
) + ["__copy__", "__deepcopy__"]


def _positions(config, games: int = 3, seed: int = 0):
    """Full states and views along random games, the final position included."""
    rng = random.Random(seed)
    for g in range(games):
        state = type(config.new_game()).new_game(config, seed=seed + g)
        while True:
            yield state
            yield state.view(rng.randrange(state.n_players))
            if state.is_terminal():
                break
            state = state.child(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("cls", [CouncilOfFourState, TheCouncilState])
def test_both_position_classes_meet_the_contract(cls):
    position = cls.new_game()
    assert isinstance(position, Position)
    missing = [name for name in MEMBERS if not hasattr(cls, name)]
    assert missing == []
    # new_game takes the game's configuration and a seed, as a class method of both.
    assert isinstance(inspect.getattr_static(cls, "new_game"), classmethod)
    assert list(inspect.signature(cls.new_game).parameters)[:2] == ["config", "seed"]


@pytest.mark.parametrize("name", ["view", "determinize", "reseed", "apply", "is_legal"])
def test_the_methods_take_the_same_arguments(name):
    def parameters(cls):
        return list(inspect.signature(getattr(cls, name)).parameters)

    assert parameters(CouncilOfFourState) == parameters(TheCouncilState)


def test_new_game_from_a_configuration_for_both_games():
    for config in CONFIGS:
        cls = type(config.new_game())
        assert cls.new_game(config, seed=5) == config.new_game(seed=5)
        assert cls.new_game(config, seed=5) != cls.new_game(config, seed=6)
    # The Council's older forms (a seat count) stay for their callers.
    five = TheCouncilState.new_game(TheCouncilConfig(players=5), seed=3)
    assert (
        five == TheCouncilState.new_game(5, seed=3) == TheCouncilState.new_game(players=5, seed=3)
    )
    assert TheCouncilState.new_game() == TheCouncilState.new_game(TheCouncilConfig())
    with pytest.raises(ValueError, match="players"):
        TheCouncilState.new_game(TheCouncilConfig(players=6))


@pytest.mark.parametrize("config", CONFIGS, ids=["council-of-four", "the-council"])
def test_decision_name_and_action_text(config):
    for position in _positions(config):
        if isinstance(position, CouncilOfFourState):
            assert position.decision_name == position.decision()[0]
        else:
            assert position.decision_name == position.phase
        if position.is_view or position.is_terminal():
            continue
        for action in position.legal_actions():
            text = position.action_to_text(action)
            assert position.action_from_text(text) == action
            if isinstance(position, CouncilOfFourState):
                assert text == Action.from_id(action).to_text()


@pytest.mark.parametrize("config", CONFIGS, ids=["council-of-four", "the-council"])
def test_the_shared_wrapper_behaves_the_same_for_both_games(config):
    state = config.new_game(seed=1)
    n = state.n_players
    with pytest.raises(ValueError, match=f"seat must be in 0..{n - 1}, got {n}"):
        state.view(n)
    with pytest.raises(ValueError, match=r"determinize needs a view \(call view\(seat\) first\)"):
        state.determinize(1)
    with pytest.raises(ValueError, match="reseed needs a full state; this is the view of seat 1"):
        state.view(1).reseed(1)
    with pytest.raises(TypeError, match="mutable and unhashable"):
        hash(state)
    view = state.view(1)
    assert view.view(1) == view and view.determinize(4) == view.determinize(4)
    assert pickle.loads(pickle.dumps(view)) == view
    assert type(state).from_raw(state.to_raw()) == state
    assert state.scores() == [0] * n and state.winners() == [] and state.returns() == [0.0] * n
    assert type(state).clone.__name__ == "clone"  # the shared functions carry their names


def test_a_the_council_pickle_of_an_earlier_build_still_loads():
    state = TheCouncilState.new_game(3, seed=2)
    function, args = state.__reduce__()
    assert function is _the_council._state_from_struct
    assert _the_council._state_from_bytes(*args) == state


def _bid_position() -> TheCouncilState:
    state = TheCouncilState.new_game(4, seed=9)
    while state.phase == "draft":
        state.apply(state.legal_actions()[0])
    return state


@pytest.mark.parametrize(
    ("edit", "path", "words"),
    [
        (lambda raw: raw.update(deck_n=raw["deck_n"] + 1), "the_council.deck", "holds"),
        (
            lambda raw: raw.update(current=(raw["current"] + 1) % 4),
            "the_council.current",
            "must be",
        ),
        (
            lambda raw: raw.update(events_done=_the_council.EVENTS_PER_HAND),
            "the_council.events_done",
            "while an event is being bid on",
        ),
        (lambda raw: raw["pack_seen"].__setitem__(0, 1), "the_council.packs[0].held_by", "seats"),
    ],
)
def test_the_council_consistency_is_its_positions_problems(edit, path, words):
    # The reader fills the state from the message and reports what problems() finds, with
    # the same paths and sentences.
    raw = _bid_position().to_raw()
    edit(raw)
    bad = TheCouncilState.from_raw(raw)
    found = bad.problems()
    assert any(f == path and words in p for f, p in found), found
    with pytest.raises(StateValidationError) as e:
        state_from_proto(state_to_proto(bad))
    assert e.value.violations == found


def test_a_view_naming_the_deck_is_a_problem_of_the_position():
    view = _bid_position().view(2)
    raw = view.to_raw()
    card = raw["card_loc"].index(_the_council.LOCATIONS["unknown"])
    raw["card_loc"][card] = _the_council.LOCATIONS["deck"]
    found = TheCouncilState.from_raw(raw).problems()
    assert (
        "the_council.deck",
        "a view does not name the deck's cards (deck_size gives their number)",
    ) in found


def test_council_of_four_action_messages_round_trip():
    for action_id in range(NUM_ACTIONS):
        msg = action_to_proto(Action.from_id(action_id))
        assert msg.id == action_id and msg.text == Action.from_id(action_id).to_text()
        assert action_from_proto(msg).id == action_id
    with pytest.raises(StructuredActionError) as e:
        action_from_proto(pb.Action())
    assert e.value.violations == [("kind", "must be set to an action kind")]


def test_the_council_action_messages_round_trip():
    for position in _positions(TheCouncilConfig(players=3), games=2):
        if position.is_view or position.is_terminal():
            continue
        protos = the_council_actions.legal_action_protos(position)
        assert [m.id for m in protos] == position.legal_actions()
        for msg in protos:
            assert msg.text == position.action_to_text(msg.id)
            assert the_council_actions.action_from_proto(position, msg) == msg.id
            assert the_council_actions.describe(position, msg.id)
            public, secret = the_council_actions.public_action_proto(position, msg.id)
            kind = the_council_actions.kind_of(msg.id)
            assert secret == (kind in the_council_actions.SECRET_MOVES)
            assert public == (pb.Action(kind=msg.kind, text=public.text) if secret else msg)
    with pytest.raises(StructuredActionError) as e:
        the_council_actions.action_from_proto(
            TheCouncilState.new_game(3), pb.Action(kind=pb.ACTION_KIND_BID, suit="Stars")
        )
    assert e.value.violations[0][0] == "suit" and "unknown suit 'Stars'" in e.value.violations[0][1]


def test_the_service_converter_uses_the_engines_codecs():
    from council.server import convert

    assert convert.StructuredActionError is StructuredActionError
    assert convert.action_from_proto is action_from_proto
    # The Council's codec is the engine's, reached through its registered record.
    from council.engine.games import game_of

    game = game_of(TheCouncilConfig())
    assert game.action_to_proto is the_council_actions.action_to_proto
    assert game.action_from_proto is the_council_actions.action_from_proto
    assert game.describe is the_council_actions.describe
