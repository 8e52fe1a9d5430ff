"""The engine reads a GameState message as protobuf reads it.

The Council of Four reader scans the message's serialized bytes
(council.engine._council_of_four_document), and protobuf re-serializes what it kept as unknown
fields verbatim: a field of an undeclared number, a declared one sent with another wire type, a
group, a map entry with an extra field. The engine must ignore exactly those, so that it and
protobuf's accessors never see two positions in one message.

Each check here starts from the bytes of a real GameState (Council of Four full states and
views at several points of seeded games, 2 to 4 players, and The Council states), mutates
them and parses the mutant with protobuf. A mutant protobuf refuses never reaches the
engine (the service parses a request before reading its position), and only DecodeError
may refuse it. For one it parses, the engine's reading (the position, or the
StateValidationError's violations) must equal its reading of the canonical message:
parse, DiscardUnknownFields, serialize, parse.

What CI tries, every run the same (the suite's hypothesis profile derandomizes):
- a sweep inserting every wire type (0, 1, 2, 3 as a group, 5; 1 to 3 values each) under
  every declared field number and three undeclared ones into every sub-message of four
  positions, map entries included: 9,630 mutants (all parsed), 12 that protobuf refuses (a
  lone end-group key, wire types 6 and 7), and every truncation of two positions (1,408);
- MUTANT_EXAMPLES (1,500) random mutants: 1 to 4 insertions, wire type changes, repeats of
  a (non-repeated) field, overlong keys, varints and lengths, packed fields sent unpacked,
  deletions, at any depth, then a truncation or a byte flip for half of them (about 900
  parsed, most with unknown fields).
7 to 10 s on one core in all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from google.protobuf import descriptor as _descriptor
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from council.engine import _council_of_four_document
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import StateValidationError, state_from_proto, state_to_proto
from council.engine.the_council import TheCouncilState
from council.v1 import game_pb2 as pb

MUTANT_EXAMPLES = 1500
TYPE_MESSAGE = _descriptor.FieldDescriptor.TYPE_MESSAGE
# Field numbers no message of the position declares: the largest the scan keeps a slot for
# (31; declared nowhere), the first above it, and the largest protobuf allows.
UNDECLARED = (31, 32, 2**29 - 1)


# -- the wire form, as a tree ----------------------------------------------------------------


@dataclass
class Field:
    """One field on the wire. `value`: an int (wire type 0), bytes (1, 5, and 2 when not a
    message), a list of Fields (2 for a message, 3 for a group). `key_pad`/`value_pad`: extra
    bytes that make the key or the varint value (length, for wire type 2) overlong."""

    number: int
    wire: int
    value: object
    message: object = None  # the descriptor of a wire type 2 message value
    key_pad: int = 0
    value_pad: int = 0


def varint(value: int, pad: int = 0) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            break
    if pad:  # the same value in more bytes: continuation bits over zero groups
        out[-1] |= 0x80
        out += b"\x80" * (pad - 1) + b"\x00"
    return bytes(out)


def encode(fields: list[Field]) -> bytes:
    out = bytearray()
    for f in fields:
        out += varint(f.number << 3 | f.wire, f.key_pad)
        if f.wire == 0:
            out += varint(f.value, f.value_pad)
        elif f.wire in (1, 5):
            out += f.value
        elif f.wire == 2:
            body = encode(f.value) if isinstance(f.value, list) else f.value
            out += varint(len(body), f.value_pad) + body
        elif f.wire == 3:
            out += encode(f.value) + varint(f.number << 3 | 4)
    return bytes(out)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7


def decode(data: bytes, message) -> list[Field]:
    """The fields of canonical bytes (as protobuf writes them) of a `message` descriptor."""
    fields, pos = [], 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
            fields.append(Field(number, 0, value))
            continue
        assert wire == 2, "protobuf writes no other wire type for our fields"
        size, pos = _read_varint(data, pos)
        body, pos = data[pos : pos + size], pos + size
        declared = message.fields_by_number.get(number)
        if declared is not None and declared.type == TYPE_MESSAGE:
            sub = declared.message_type
            fields.append(Field(number, 2, decode(body, sub), message=sub))
        else:
            fields.append(Field(number, 2, body))
    return fields


def nodes(fields: list[Field], message) -> list[tuple[list[Field], object]]:
    out = [(fields, message)]
    for f in fields:
        if isinstance(f.value, list):
            out += nodes(f.value, f.message)
    return out


# -- the two readings ----------------------------------------------------------------------


def reading(msg: pb.GameState, view_of: int | None):
    """What the engine makes of a message: its position, or its violations."""
    try:
        return "position", state_from_proto(msg, view_of=view_of)
    except StateValidationError as error:
        return "violations", error.violations


def canonical(msg: pb.GameState) -> pb.GameState:
    copy = pb.GameState()
    copy.CopyFrom(msg)
    copy.DiscardUnknownFields()
    return pb.GameState.FromString(copy.SerializeToString())


def check(data: bytes, view_of: int | None = None) -> bool:
    """Whether protobuf parsed `data`; if it did, the engine read it as its canonical form."""
    try:
        msg = pb.GameState.FromString(data)
    except DecodeError:
        return False
    assert reading(msg, view_of) == reading(canonical(msg), view_of)
    return True


# -- the positions -------------------------------------------------------------------------


def council_of_four_positions() -> list[tuple[bytes, int | None]]:
    """(bytes, view_of) of full states and views along seeded games of 2, 3 and 4."""
    out = []
    for players in (2, 3, 4):
        rng = random.Random(players)
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=players)
        step = 0
        while not state.is_terminal() and step <= 150:
            if step % 50 == 0:
                out.append((state_to_proto(state).SerializeToString(), None))
                view = state.view(state.current_player)
                out.append((state_to_proto(view).SerializeToString(), None))
                # A full state without the other seats' hands, read as one seat's view.
                partial = state_to_proto(state)
                for p, seat in enumerate(partial.players):
                    if p != state.current_player:
                        seat.ClearField("hand")
                out.append((partial.SerializeToString(), state.current_player))
            state.apply(rng.choice(state.legal_actions()))
            step += 1
    return out


def the_council_positions() -> list[tuple[bytes, int | None]]:
    out = []
    for players in (3, 5):
        rng = random.Random(players)
        state = TheCouncilState.new_game(players, seed=players)
        for step in range(60):
            if step % 20 == 0:
                out.append((state_to_proto(state).SerializeToString(), None))
                view = state.view(state.current_player)
                out.append((state_to_proto(view).SerializeToString(), None))
            state.apply(rng.choice(state.legal_actions()))
    return out


POSITIONS = council_of_four_positions() + the_council_positions()
# A value of each wire type (several for the types of our fields).
PAYLOADS = {
    0: (3, 2**32 + 3, 2**64 - 1),
    1: (b"\x03\x00\x00\x00\x00\x00\x00\x00",),
    2: (b"xx", b"\x10\x01", b""),
    3: ([Field(1, 0, 3)],),
    5: (b"\x03\x00\x00\x00",),
}


def test_the_positions_are_read_before_any_mutation():
    # Mutants of a position the engine refused anyway would test little: every one is read.
    readings = [reading(pb.GameState.FromString(data), v)[0] for data, v in POSITIONS]
    assert readings == ["position"] * len(POSITIONS)


@pytest.mark.parametrize(
    "position",
    [POSITIONS[18], POSITIONS[31], POSITIONS[35], POSITIONS[44]],
    ids=["cof-3p-state", "cof-4p-view", "cof-4p-state-read-as-view", "the-council-5p-state"],
)
def test_every_wire_type_of_every_field_number_in_every_message(position):
    data, view_of = position
    root = decode(data, pb.GameState.DESCRIPTOR)
    parsed = 0
    tried = 0
    for fields, message in nodes(root, pb.GameState.DESCRIPTOR):
        numbers = sorted(message.fields_by_number) + list(UNDECLARED)
        for number in numbers:
            for wire, payloads in PAYLOADS.items():
                for payload in payloads:
                    fields.append(Field(number, wire, payload))
                    parsed += check(encode(root), view_of)
                    tried += 1
                    fields.pop()
    # An end-group key alone, and the wire types 6 and 7, are refused.
    for wire in (4, 6, 7):
        assert not check(data + varint(1 << 3 | wire))
    assert parsed > tried * 0.9


# -- random mutants ------------------------------------------------------------------------

wire_values = {
    0: st.one_of(st.integers(0, 2**64 - 1), st.sampled_from(PAYLOADS[0] + (0, 1, 2, 120))),
    1: st.binary(min_size=8, max_size=8),
    2: st.one_of(st.binary(max_size=6), st.sampled_from(PAYLOADS[2] + (b"Arkon", b"\x08\x03"))),
    5: st.binary(min_size=4, max_size=4),
}


@st.composite
def a_field(draw, numbers: list[int], depth: int = 0) -> Field:
    number = draw(st.sampled_from(numbers))
    wire = draw(st.sampled_from((0, 1, 2, 3, 5) if depth < 2 else (0, 1, 2, 5)))
    if wire == 3:
        inner = draw(st.lists(a_field([1, 2, 7, 31, 1000], depth + 1), max_size=2))
        return Field(number, 3, inner)
    return Field(number, wire, draw(wire_values[wire]))


def numbers_of(message) -> list[int]:
    return sorted(message.fields_by_number) + list(UNDECLARED) if message else [1, 2, 3, 4]


@st.composite
def mutants(draw):
    data, view_of = draw(st.sampled_from(POSITIONS))
    root = decode(data, pb.GameState.DESCRIPTOR)
    for _ in range(draw(st.integers(1, 4))):
        tree = nodes(root, pb.GameState.DESCRIPTOR)
        fields, message = draw(st.sampled_from(tree))
        kind = draw(st.sampled_from(["insert", "retype", "repeat", "overlong", "unpack", "delete"]))
        at = draw(st.integers(0, len(fields)))
        if kind == "insert" or not fields:
            fields.insert(at, draw(a_field(numbers_of(message))))
            continue
        i = draw(st.integers(0, len(fields) - 1))
        f = fields[i]
        if kind == "retype":  # the same number with another wire type
            new = draw(a_field([f.number]))
            fields[i] = new
        elif kind == "repeat":  # a non-repeated field twice; a message is merged
            fields.insert(at, draw(st.sampled_from([f, Field(f.number, f.wire, f.value)])))
        elif kind == "overlong":  # up to 10 bytes is a varint; 11 is refused
            if draw(st.booleans()):
                f.key_pad = draw(st.integers(1, 10))
            elif f.wire in (0, 2):
                f.value_pad = draw(st.integers(1, 10))
        elif kind == "unpack" and f.wire == 2 and isinstance(f.value, bytes) and f.value:
            # A packed repeated int32 as separate varints (or a string's bytes as varints).
            values, pos = [], 0
            try:
                while pos < len(f.value):
                    value, pos = _read_varint(f.value, pos)
                    values.append(Field(f.number, 0, value))
            except IndexError:
                continue
            fields[i : i + 1] = values
        elif kind == "delete":
            del fields[i]
    mutant = encode(root)
    cut = draw(st.sampled_from(["none", "none", "truncate", "flip"]))
    if cut == "truncate":
        mutant = mutant[: draw(st.integers(0, len(mutant)))]
    elif cut == "flip" and mutant:
        at = draw(st.integers(0, len(mutant) - 1))
        mutant = mutant[:at] + bytes([mutant[at] ^ draw(st.integers(1, 255))]) + mutant[at + 1 :]
    return mutant, view_of


@settings(max_examples=MUTANT_EXAMPLES, suppress_health_check=list(HealthCheck))
@given(mutants())
def test_a_mutant_is_read_as_protobuf_reads_it(mutant):
    data, view_of = mutant
    check(data, view_of)


def test_every_truncation_is_refused_or_read_as_protobuf_reads_it():
    for data, view_of in (POSITIONS[18], POSITIONS[44]):
        parsed = sum(check(data[:cut], view_of) for cut in range(len(data)))
        assert 0 < parsed < len(data)


class _Unparsed:
    """Bytes protobuf never wrote, handed to the reader as a message's serialization."""

    def __init__(self, data: bytes):
        self.data = data

    def SerializeToString(self) -> bytes:  # noqa: N802 (protobuf's name)
        return self.data


@pytest.mark.parametrize("data", [b"\x0a\x05ab", b"\x2a\x02\x08", b"\x0c", b"\x2a\x01\x0e"])
def test_bytes_the_scan_cannot_read_are_a_problem_not_an_error(data):
    # Unreachable from a request (protobuf refuses them first); still no ValueError.
    state, problems = _council_of_four_document.read_state(_Unparsed(data))
    assert state is None
    [(path, problem)] = problems
    assert path == "(root)" and problem.startswith("malformed council.v1.")


def test_unknown_map_keys_are_listed_in_name_order():
    # upb writes a map's entries in its hash table's order, which differs from process to
    # process: the problems of one map must not.
    msg = pb.GameState.FromString(POSITIONS[18][0])
    keys = ["Zed", "Atlantis", "Mu", "El Dorado", "Avalon", "Shangri-La", "Lemuria"]
    for i, key in enumerate(keys):
        msg.board.city_tokens[key] = i
    _, violations = reading(msg, None)
    listed = [path for path, problem in violations if problem == "unknown field"]
    assert listed == [f"board.city_tokens.{key}" for key in sorted(keys)]
