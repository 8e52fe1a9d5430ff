"""Error replies stay small whatever the request (server/errors.py, issue #10).

Echoing a bad request in full once gave 2.4 MB of trailers: a C-core client (this test's)
then gets RESOURCE_EXHAUSTED instead of the error, grpc-js stalls the connection. Each reply
here is checked on the wire: the trailers are measured as they travel (grpc-message
percent-encoded, grpc-status-details-bin in base64), and the first violations still name
their fields.
"""

from __future__ import annotations

import base64
import time

import grpc
import pytest
from server_helpers import to_proto, violations

from council.engine._council_of_four_document import read_state
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.server.errors import MAX_VIOLATIONS, SHOWN_CHARS
from council.v1 import service_pb2 as spb

TRAILERS_LIMIT = 8 * 1024  # what every client accepts (C-core's default soft limit)
WELL_UNDER = 6 * 1024


def trailers_bytes(error: grpc.RpcError) -> int:
    """The size of the reply's trailers on the wire (names and values)."""
    size = len("grpc-status") + 1
    for key, value in error.trailing_metadata() or ():
        size += len(key) + (len(base64.b64encode(value)) if key.endswith("-bin") else len(value))
    message = (error.details() or "").encode()
    size += len("grpc-message") + len(message)
    size += 2 * sum(1 for b in message if not 0x20 <= b <= 0x7E or b == 0x25)
    return size


def fail(call, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=30)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
    return info.value


@pytest.fixture(scope="module")
def state():
    return CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)


def test_a_48_kb_bad_city_name_is_shown_by_its_first_characters(stub, state):
    msg = to_proto(state)
    msg.board.king_city = "x" * 48_000
    error = fail(stub.ListLegalActions, spb.ListLegalActionsRequest(state=msg))
    size = trailers_bytes(error)
    assert size < WELL_UNDER, size
    shown = f"'{'x' * SHOWN_CHARS}… (48000 characters)'"
    [(field, problem)] = violations(error)
    assert field == "state.board.king_city"
    assert problem.startswith(f"unknown city {shown}; one of Arkon, ")
    assert error.details().startswith(f"state.board.king_city: unknown city {shown}; one of ")


def test_50000_bogus_city_tokens_keys(stub, state):
    msg = to_proto(state)
    for i in range(50_000):
        msg.board.city_tokens[f"bogus{i}"] = 1
    start = time.perf_counter()
    error = fail(stub.ListLegalActions, spb.ListLegalActionsRequest(state=msg))
    elapsed = time.perf_counter() - start
    size = trailers_bytes(error)
    assert size < WELL_UNDER, size
    found = violations(error)
    *listed, (under, summary) = found
    assert 10 <= len(listed) <= MAX_VIOLATIONS
    assert all(
        f.startswith("state.board.city_tokens.bogus") and p == "unknown field" for f, p in listed
    )
    assert under == "state"  # what the listed and the unlisted have in common
    assert summary == f"and {50_000 - len(listed)} more violations not listed"
    assert error.details().endswith(f"; and {50_000 - 5} more")
    assert elapsed < 10  # measured 0.04 s (it was 0.4 s, and 2.6 MB of trailers)


def test_a_huge_action_text(stub, state):
    def problem_of(text):
        request = spb.ApplyActionRequest(state=to_proto(state), action_text=text)
        error = fail(stub.ApplyAction, request)
        size = trailers_bytes(error)
        assert size < WELL_UNDER, size
        [(field, problem)] = violations(error)
        assert field == "action_text"
        return problem

    # Without spaces the text is one run, cut where it is echoed (as the verb, as the text).
    problem = problem_of("z" * 200_000)
    assert problem.startswith(f"unknown action '{'z' * SHOWN_CHARS}… (200000 characters)' in ")
    # With spaces the sentence is cut: its first 240 characters.
    problem = problem_of("fly to mars " * 20_000)
    assert problem.startswith("unknown action 'fly' in 'fly to mars fly to mars ")
    assert problem.endswith(" characters)") and len(problem) < 300


def test_many_long_problems_stay_under_the_limit(stub, state):
    """The worst kinds: long sentences (an unknown name lists the known ones), non-ASCII
    values (three times their length once percent-encoded), long map keys."""
    requests = []
    msg = to_proto(state)
    msg.board.neutral_emporiums.extend(["a"] * 100_000)
    requests.append(msg)
    msg = to_proto(state)
    msg.board.king_city = "日本" * 24_000
    msg.board.balconies.king[0] = "é" * 70
    requests.append(msg)
    msg = to_proto(state)
    for i in range(3_000):
        msg.board.city_tokens[f"{i}" + "€" * 75] = 1
    requests.append(msg)
    for msg in requests:
        error = fail(stub.ListLegalActions, spb.ListLegalActionsRequest(state=msg))
        size = trailers_bytes(error)
        assert size < WELL_UNDER, size
        found = violations(error)
        assert found[0][0].startswith("state.board.")
        assert len(found) <= MAX_VIOLATIONS + 1


def test_the_engine_lists_at_most_50_problems_and_counts_the_rest(state):
    """Reading stops building sentences past 50 problems: 150,000 repeated names once took
    seconds (each duplicate searched the list for the first one)."""
    for extend in (
        lambda m: m.board.neutral_emporiums.extend(["Arkon"] * 150_000),
        lambda m: m.board.neutral_emporiums.extend(["nowhere"] * 100_000),
        lambda m: m.players[0].king_tiles.extend([5] * 150_000),
    ):
        msg = to_proto(state)
        extend(msg)
        start = time.perf_counter()
        st, problems = read_state(msg)
        elapsed = time.perf_counter() - start
        assert st is None
        assert len(problems) == 51
        field, summary = problems[-1]
        assert field == "(root)"
        assert summary.startswith("and ") and summary.endswith(" more problems not listed")
        assert elapsed < 5  # measured 0.03 s at most
