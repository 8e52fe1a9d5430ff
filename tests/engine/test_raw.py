"""The raw form, equality and pickling of CouncilOfFourState, all read off the C struct.

``STATE_DTYPE`` is derived from the struct's declaration, ``to_raw``/``from_raw`` go
through it, ``==`` compares the structs' bytes and a pickle carries them.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from positions import play_random

from council.engine import _council_of_four
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState


def _positions():
    out = []
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
        out.append(state.clone())
        play_random(state, seed, 60)
        out.append(state.clone())
        out.append(state.view(1))
    return out


def _shape(value) -> tuple[int, ...]:
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0]
    return tuple(shape)


def test_the_dtype_is_the_struct():
    dtype = _council_of_four.STATE_DTYPE
    raw = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0).to_raw()
    assert list(raw) == list(dtype.names)
    offsets = [dtype.fields[name][1] for name in dtype.names]
    assert offsets == sorted(offsets) and offsets[0] == 0
    for name, value in raw.items():
        field = dtype.fields[name][0]
        assert _shape(value) == field.shape, name
        assert field.base.kind in "iu", name
    # The members the rules tests rely on, with their C types.
    assert dtype.fields["rng"][0] == np.dtype("<u8")
    assert dtype.fields["hand"][0] == np.dtype(("<i2", (4, 7)))
    assert dtype.fields["balcony"][0] == np.dtype(("i1", (4, 4)))
    assert dtype.fields["pending_kind"][0] == np.dtype(("i1", (16,)))


def test_to_raw_gives_plain_python_values():
    for state in _positions():
        for name, value in state.to_raw().items():
            flat = [value]
            while flat and isinstance(flat[0], list):
                flat = [x for row in flat for x in row]
            assert all(type(x) is int for x in flat), name


def test_raw_round_trip():
    for state in _positions():
        back = CouncilOfFourState.from_raw(state.to_raw())
        assert back == state and back.to_raw() == state.to_raw()
        if not state.is_view:
            assert back.legal_actions() == state.legal_actions()


def test_from_raw_wants_exactly_the_struct_members():
    raw = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0).to_raw()
    missing = dict(raw)
    del missing["coins"]
    with pytest.raises(ValueError, match=r"missing fields \['coins'\]"):
        CouncilOfFourState.from_raw(missing)
    extra = dict(raw, hand_size=[0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"unknown fields \['hand_size'\]"):
        CouncilOfFourState.from_raw(extra)


@pytest.mark.parametrize(
    "name, value",
    [
        ("coins", 5),  # a scalar for a 4-entry member (NumPy would broadcast it)
        ("coins", [5]),  # one entry for four
        ("coins", [1, 2, 3]),
        ("coins", [1, 2, 3, 4, 5]),
        ("hand", [[0] * 7] * 3),
        ("hand", [[0] * 6] * 4),
        ("n_players", 1.5),
        ("coins", [1.5, 0, 0, 0]),
        ("n_players", [3]),
        ("n_players", None),
        ("n_players", "3"),
        ("n_players", 128),  # int8
        ("rng", -1),  # uint64
        ("rng", 2**64),
        ("neutral", 1 << 16),  # uint16
        ("pending_kind", [300] + [0] * 15),
    ],
)
def test_from_raw_refuses_what_the_struct_cannot_hold(name, value):
    raw = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0).to_raw()
    raw[name] = value
    with pytest.raises((ValueError, TypeError, OverflowError), match=name):
        CouncilOfFourState.from_raw(raw)


def test_from_raw_takes_the_full_range_of_each_member():
    raw = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0).to_raw()
    raw.update(rng=2**64 - 1, neutral=0xFFFF, turn=-(2**31), n_players=-128, current=127)
    assert CouncilOfFourState.from_raw(raw).to_raw() == raw


def test_equality_sees_every_member():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    play_random(state, 4, 40)
    raw = state.to_raw()
    assert CouncilOfFourState.from_raw(raw) == state
    for name in raw:
        changed = copy.deepcopy(raw)
        value = changed[name]
        if isinstance(value, list):
            inner = value
            while isinstance(inner[-1], list):
                inner = inner[-1]
            inner[-1] = inner[-1] + 1 if inner[-1] < 100 else inner[-1] - 1
        else:
            changed[name] = value + 1 if value < 100 else value - 1
        other = CouncilOfFourState.from_raw(changed)
        assert (other == state) is False and other != state, name


def test_equality_with_other_types():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0)
    assert state != "state" and state != state.to_raw()
    assert state.__eq__(0) is NotImplemented
    with pytest.raises(TypeError):
        hash(state)


def test_pickle_carries_the_struct_bytes():
    for state in _positions():
        data = pickle.dumps(state)
        back = pickle.loads(data)
        assert back == state and back.to_raw() == state.to_raw()
        assert copy.deepcopy(state) == state and copy.copy(state) == state
    function, args = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=0).__reduce__()
    assert function is _council_of_four._state_from_struct
    layout, data = args
    assert isinstance(data, bytes) and len(data) == _council_of_four.STATE_DTYPE.itemsize


def test_a_pickle_of_another_layout_is_refused():
    function, (layout, data) = CouncilOfFourState.new_game(
        CouncilOfFourConfig(), seed=0
    ).__reduce__()
    with pytest.raises(ValueError, match="layout"):
        function(layout + "x", data)
    with pytest.raises(ValueError, match="layout"):
        function(layout, data[:-1])
