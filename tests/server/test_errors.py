"""The `rpc` handler decorator and the statuses it answers with, unary and streaming."""

from __future__ import annotations

import functools
import inspect
import logging
import random

import grpc
import pytest
from google.protobuf import descriptor_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_reflection.v1alpha import reflection_pb2
from server_helpers import to_proto, violations

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import Action, ActionKind
from council.engine.council_of_four_board import CARD_KINDS
from council.server import convert
from council.server.errors import (
    MAX_DETAILS_BYTES,
    MAX_TEXT_CHARS,
    MAX_VIOLATIONS,
    SHOWN_CHARS,
    RpcError,
    bounded_violations,
    failed_precondition,
    invalid,
    rpc,
    shorten,
    to_status,
)
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb


class Aborted(Exception):
    """What grpc's context.abort raises, here."""


class Context:
    def __init__(self):
        self.status = None
        self.code = None
        self.details = None

    def abort_with_status(self, status):
        self.status = status
        raise Aborted

    def abort(self, code, details):
        self.code, self.details = code, details
        raise Aborted


def rich(status: grpc.Status) -> status_pb2.Status:
    """The google.rpc.Status a grpc.Status carries in its trailing metadata."""
    return status_pb2.Status.FromString(dict(status.trailing_metadata)["grpc-status-details-bin"])


def bad_request(status: grpc.Status) -> list[tuple[str, str]]:
    out = []
    for detail in rich(status).details:
        bad = error_details_pb2.BadRequest()
        assert detail.Unpack(bad)
        out += [(v.field, v.description) for v in bad.field_violations]
    return out


class Servicer:
    @rpc
    def Unary(self, request, context):
        if request == "invalid":
            raise invalid([("seat", "must be a seat number, got -1")])
        if request == "bug":
            raise KeyError("oops")
        return f"answer to {request}"

    @rpc
    def Stream(self, request, context):
        yield 1
        yield 2
        if request == "invalid":
            raise invalid([("report_interval", "must be a positive duration")])
        if request == "precondition":
            raise failed_precondition("the game is over")
        if request == "bug":
            raise KeyError("oops")
        yield 3


def test_invalid_message_names_the_first_five_violations():
    error = invalid([(f"f{i}", "bad") for i in range(7)])
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.message == "f0: bad; f1: bad; f2: bad; f3: bad; f4: bad; and 2 more"
    assert len(error.violations) == 7
    assert invalid([("a", "b")], "custom").message == "custom"


def test_to_status_carries_code_message_and_bad_request():
    status = to_status(invalid([("state.players[2].coins", "must be in 0..20, got 99")]))
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT
    assert status.details == "state.players[2].coins: must be in 0..20, got 99"
    assert rich(status).code == code_pb2.INVALID_ARGUMENT
    assert bad_request(status) == [("state.players[2].coins", "must be in 0..20, got 99")]
    plain = to_status(failed_precondition("over"))
    assert plain.code == grpc.StatusCode.FAILED_PRECONDITION
    assert rich(plain).details == []


def test_unary_handler():
    servicer, context = Servicer(), Context()
    assert not inspect.isgeneratorfunction(Servicer.Unary)
    assert Servicer.Unary.__name__ == "Unary"
    assert servicer.Unary("x", context) == "answer to x"
    with pytest.raises(Aborted):
        servicer.Unary("invalid", context)
    assert context.status.code == grpc.StatusCode.INVALID_ARGUMENT
    assert bad_request(context.status) == [("seat", "must be a seat number, got -1")]


def test_streaming_handler_maps_rpc_error_after_the_messages_sent():
    assert inspect.isgeneratorfunction(Servicer.Stream)
    assert list(Servicer().Stream("x", Context())) == [1, 2, 3]
    for request, code, fields in (
        ("invalid", grpc.StatusCode.INVALID_ARGUMENT, ["report_interval"]),
        ("precondition", grpc.StatusCode.FAILED_PRECONDITION, []),
    ):
        context, sent = Context(), []
        with pytest.raises(Aborted):
            for message in Servicer().Stream(request, context):
                sent.append(message)
        assert sent == [1, 2]
        assert context.status.code == code
        assert [f for f, _ in bad_request(context.status)] == fields


@pytest.mark.parametrize("method", ["Unary", "Stream"])
def test_any_other_exception_is_logged_and_answered_internal(method, caplog):
    context = Context()
    with caplog.at_level(logging.ERROR, logger="council.server"), pytest.raises(Aborted):
        result = getattr(Servicer(), method)("bug", context)
        if method == "Stream":
            list(result)
    assert context.code == grpc.StatusCode.INTERNAL
    assert context.details == f"{method}: internal error"
    assert f"{method} failed" in caplog.text and "KeyError" in caplog.text


def test_rpc_error_keeps_its_fields():
    error = RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "full")
    assert (error.code, error.message, error.violations, str(error)) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "full",
        [],
        "full",
    )


def test_streaming_rpc_error_on_the_wire(stub):
    state = to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
    request = spb.AnalyzePositionRequest(
        state=state,
        limits=pb.SearchLimits(iterations=10),
        report_interval=duration_pb2.Duration(seconds=-1),
    )
    with pytest.raises(grpc.RpcError) as info:
        list(stub.AnalyzePosition(request))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(info.value) == [("report_interval", "must be a positive duration")]


# -- replies stay small (issue #10; on the wire: test_error_size.py) -----------------------


def test_shorten_cuts_long_runs_and_long_sentences():
    assert shorten("seat: must be in 0..1, got 7") == "seat: must be in 0..1, got 7"
    known = "unknown city 'a'; one of " + ", ".join(["Arkon"] * 20)
    assert shorten(known) == known  # a long sentence of short words is kept
    name = "unknown city " + repr("x" * 48_000) + "; one of Arkon"
    assert shorten(name) == f"unknown city '{'x' * SHOWN_CHARS}… (48000 characters)'; one of Arkon"
    path = "board.city_tokens." + "k" * 1_000
    assert shorten(path) == f"{path[:SHOWN_CHARS]}… (1018 characters)"
    words = "fly to mars " * 1_000
    assert shorten(words) == f"{words[:MAX_TEXT_CHARS]}… (12000 characters)"


def test_bounded_violations_lists_the_first_50_and_counts_the_rest():
    few = [("seat", "bad"), ("limits.iterations", "bad")]
    assert bounded_violations(few) == few
    many = [(f"players[{i % 4}].coins", "bad") for i in range(1_000)]
    listed = bounded_violations(many)
    assert listed[:-1] == many[:MAX_VIOLATIONS]
    assert listed[-1] == ("players", "and 950 more violations not listed")


def test_bounded_violations_keeps_to_its_byte_budget():
    long = [
        (f"state.board.neutral_emporiums[{i}]", "unknown city 'a'; " + "x " * 70) for i in range(60)
    ]
    listed = bounded_violations(long)
    size = sum(len(f) + len(p) for f, p in listed)
    assert size <= MAX_DETAILS_BYTES
    assert listed[:-1] == long[: len(listed) - 1]
    assert listed[-1] == (
        "state.board.neutral_emporiums",
        f"and {61 - len(listed)} more violations not listed",
    )


def test_a_summary_violation_counts_as_what_it_stands_for():
    # The engine lists 50 problems and one "and N more problems not listed" at "(root)",
    # which the service reports at "state".
    engine = [(f"state.board.city_tokens.k{i}", "unknown field") for i in range(50)]
    engine.append(("state", "and 49950 more problems not listed"))
    listed = bounded_violations(engine)
    assert listed[-1] == ("state", f"and {50_000 - len(listed) + 1} more violations not listed")
    error = invalid(engine)
    assert error.message.endswith("; and 49995 more")


def test_messages_and_details_stay_small():
    huge = "x" * 100_000
    for error in (
        invalid([("action_text", f"unknown action {huge!r}")]),
        invalid([("seat", "bad")], message=f"the request says {huge}"),
        failed_precondition(f"the game {huge} is over " * 5),
        failed_precondition("é" * 5_000),
        invalid([(f"f{i}" + "€" * 60, "€" * 200) for i in range(1_000)]),
    ):
        status = to_status(error)
        assert len(status.details.encode()) <= 700
        details = dict(status.trailing_metadata)["grpc-status-details-bin"]
        assert len(details) < 4_000
        assert rich(status).message == status.details


# -- undecodable requests ------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(message, name: str, payload: bytes) -> bytes:
    """One length-delimited field of `message` (a message class) on the wire."""
    number = message.DESCRIPTOR.fields_by_name[name].number
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _raw_call(channel, method: str, data: bytes, streaming: bool = False):
    path = f"/council.v1.CouncilService/{method}"
    if streaming:
        call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
        return list(call(data, timeout=10))
    call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
    return call(data, timeout=10)


def test_undecodable_requests_are_invalid_argument_with_one_log_line(channel, caplog):
    """grpc answered these INTERNAL "Exception deserializing request!" with a traceback."""
    bad = b"\xff\xfe"
    utf8 = "must be valid UTF-8"
    state = functools.partial(_field, spb.ListLegalActionsRequest, "state")
    board = functools.partial(_field, pb.GameState, "board")
    cases = [
        ("ApplyAction", _field(spb.ApplyActionRequest, "action_text", bad), "action_text", utf8),
        ("ListLegalActions", state(_field(pb.GameState, "format", bad)), "state.format", utf8),
        (
            "ListLegalActions",
            # A map entry: key (field 1) not UTF-8, value (field 2) 1.
            state(board(_field(cof_pb.Board, "city_tokens", b"\x0a\x02" + bad + b"\x10\x01"))),
            "state.board.city_tokens",
            "each key must be valid UTF-8",
        ),
        (
            "ListLegalActions",
            state(
                board(
                    _field(cof_pb.Board, "neutral_emporiums", b"Arkon")
                    + _field(cof_pb.Board, "neutral_emporiums", bad)
                )
            ),
            "state.board.neutral_emporiums[1]",
            utf8,
        ),
        ("ApplyAction", b"\xff\xff\xff\xff", None, None),
        ("AnalyzePosition", b"\x0a\x05\x01", None, None),
    ]
    for method, data, field, problem in cases:
        caplog.clear()
        with caplog.at_level(logging.INFO), pytest.raises(grpc.RpcError) as info:
            _raw_call(channel, method, data, streaming=method == "AnalyzePosition")
        error = info.value
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
        if field is None:
            assert violations(error) == []
            assert error.details().startswith("the request is not a valid council.v1.")
        else:
            assert violations(error) == [(field, problem)]
            assert error.details() == f"{field}: {problem}"
        records = [r for r in caplog.records if r.levelno >= logging.INFO]
        assert [r.name for r in records] == ["council.server"], caplog.text
        assert records[0].exc_info is None
        assert records[0].getMessage().startswith(f"{method}: undecodable request")


# -- structured actions --------------------------------------------------------------------


def _pay_position() -> CouncilOfFourState:
    """A position where the seat to move pays for a council."""
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3)
    chooser = random.Random(3)
    while not any(Action.from_id(a).kind is ActionKind.PAY for a in state.legal_actions()):
        state.apply(chooser.choice(state.legal_actions()))
    return state


def test_a_payment_given_by_its_cards_is_accepted(stub):
    state = _pay_position()
    listed = stub.ListLegalActions(spb.ListLegalActionsRequest(state=to_proto(state))).actions
    payments = [m for m in listed if m.kind == pb.ACTION_KIND_PAY]
    assert payments
    for m in payments:
        by_cards = pb.Action(kind=pb.ACTION_KIND_PAY)
        by_cards.cards.CopyFrom(m.cards)
        for structured in (by_cards, m):  # by its cards; as listed (payment and cards)
            request = spb.ApplyActionRequest(state=to_proto(state), structured=structured)
            assert stub.ApplyAction(request).applied.id == m.id
    action = Action.from_id(payments[0].id)
    cards = cof_pb.CardCounts(**dict(zip(CARD_KINDS, action.cards or (), strict=True)))
    assert convert.action_from_proto(pb.Action(kind=pb.ACTION_KIND_PAY, cards=cards)) == action


@pytest.mark.parametrize(
    ("structured", "expected"),
    [
        (pb.Action(), [("structured.kind", "must be set to an action kind")]),
        (
            pb.Action(kind=pb.ACTION_KIND_ELECT, colour=0, balcony=9),
            [("structured.balcony", "elect: balcony must be an integer in 0..3, got 9")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_ELECT, colour=0),
            [("structured.balcony", "required for ACTION_KIND_ELECT")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_END_TURN, colour=1),
            [("structured.colour", "end_turn: field colour does not apply")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_BUILD_PERMIT, tile=3, city=14),
            [("structured.city", "build_permit: city 14 is not on permit tile 3 (Dorful)")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY, payment=999),
            [("structured.payment", "pay: payment must be an integer in 0..328, got 999")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY, cards=cof_pb.CardCounts(white=-1, black=7)),
            [
                ("structured.cards.white", "must be in 0..4, got -1"),
                ("structured.cards.black", "must be in 0..4, got 7"),
            ],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY, cards=cof_pb.CardCounts()),
            [("structured.cards", "a payment spends 1 to 4 cards, got 0")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY, cards=cof_pb.CardCounts(white=3, joker=2)),
            [("structured.cards", "a payment spends 1 to 4 cards, got 5")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY),
            [
                (
                    "structured.cards",
                    "required for ACTION_KIND_PAY: the cards paid (or payment, their index)",
                )
            ],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_PAY, payment=0, cards=cof_pb.CardCounts(black=1)),
            [("structured.cards", "are not the cards of payment 0; give one of them")],
        ),
        (
            pb.Action(
                kind=pb.ACTION_KIND_ELECT, colour=0, balcony=3, cards=cof_pb.CardCounts(white=1)
            ),
            [
                (
                    "structured.cards",
                    "does not apply to ACTION_KIND_ELECT: only a payment spends cards",
                )
            ],
        ),
    ],
)
def test_errors_inside_a_structured_action_name_the_sub_field(stub, structured, expected):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    request = spb.ApplyActionRequest(state=to_proto(state), structured=structured)
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyAction(request)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(info.value) == expected


# -- server reflection v1 ------------------------------------------------------------------


def test_reflection_v1_lists_the_services(channel):
    """grpc.reflection.v1 (grpcio-reflection serves only v1alpha): the same messages in
    another package, so v1alpha's message classes encode a v1 client's requests."""
    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="council.v1.CouncilService"),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="grpc.reflection.v1.ServerReflection"
        ),
    ]
    listed, council, v1 = list(call(iter(requests), timeout=10))
    assert {s.name for s in listed.list_services_response.service} >= {
        "council.v1.CouncilService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(f)
        for f in council.file_descriptor_response.file_descriptor_proto
    ]
    assert "CouncilService" in [s.name for f in files for s in f.service]
    [v1_file] = [
        descriptor_pb2.FileDescriptorProto.FromString(f)
        for f in v1.file_descriptor_response.file_descriptor_proto
    ]
    assert (v1_file.name, v1_file.package) == (
        "grpc/reflection/v1/reflection.proto",
        "grpc.reflection.v1",
    )
    assert v1_file.service[0].method[0].input_type == ".grpc.reflection.v1.ServerReflectionRequest"
