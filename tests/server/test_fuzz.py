"""Random and mutated requests: the server answers every one with a proper status and
stays up (no crash, no hang, no INTERNAL error)."""

from __future__ import annotations

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import finished, played, to_proto

from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

BASES = [
    played(4, seed=3, actions=60),
    played(2, seed=4, actions=30),
    played(3, seed=5, actions=90),
    played(2, seed=6, actions=0),
]
BASES.append(BASES[0].view(BASES[0].current_player))
BASES.append(finished(3, seed=2))
BASE_DICTS = [
    json_format.MessageToDict(to_proto(s), preserving_proto_field_name=True) for s in BASES
]
ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
}
METHODS = (
    "ListLegalActions",
    "RecommendAction",
    "ApplyAction",
    "AnalyzePosition",
    "GetView",
    "RenderPosition",
)

values = st.one_of(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-3, 50),
    st.text(max_size=8),
    st.sampled_from(["Arkon", "Juvelar", "white", "joker", "coast", "king", "gold", "pay_king"]),
    st.booleans(),
    st.none(),
    st.just([]),
    st.just({}),
)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


@st.composite
def mutated_states(draw):
    import copy

    obj = copy.deepcopy(draw(st.sampled_from(BASE_DICTS)))
    for _ in range(draw(st.integers(1, 4))):
        paths = [p for p in _paths(obj) if p]
        path = draw(st.sampled_from(paths))
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["set", "delete", "duplicate"]))
        key = path[-1]
        if action == "delete" or (action == "duplicate" and not isinstance(parent, list)):
            del parent[key]
        elif action == "duplicate":
            parent.append(parent[key])
        else:
            parent[key] = draw(values)
    try:
        return json_format.ParseDict(obj, pb.GameState())
    except (json_format.ParseError, TypeError, ValueError):
        return draw(st.sampled_from([to_proto(s) for s in BASES]))


def _request(method, state, draw_int, seat):
    if method == "ListLegalActions":
        request = spb.ListLegalActionsRequest(state=state, include_descriptions=True)
    elif method == "ApplyAction":
        request = spb.ApplyActionRequest(state=state, action_id=draw_int, seed=draw_int % 7)
    elif method == "GetView":
        request = spb.GetViewRequest(state=state)
    elif method == "RenderPosition":
        request = spb.RenderPositionRequest(state=state)
    elif method == "RecommendAction":
        request = spb.RecommendActionRequest(
            state=state, limits=pb.SearchLimits(iterations=20), seed=abs(draw_int)
        )
    else:
        request = spb.AnalyzePositionRequest(state=state, limits=pb.SearchLimits(iterations=20))
    if seat is not None and method != "ApplyAction":
        request.seat = seat
    return request


def _call(stub, method, request):
    try:
        if method == "AnalyzePosition":
            messages = list(stub.AnalyzePosition(request, timeout=30))
            assert messages[-1].final
        else:
            getattr(stub, method)(request, timeout=30)
        return grpc.StatusCode.OK
    except grpc.RpcError as error:
        return error.code()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    state=mutated_states(),
    method=st.sampled_from(METHODS),
    number=st.integers(-5, 700),
    seat=st.one_of(st.none(), st.integers(-2, 5)),
)
def test_mutated_states(stub, state, method, number, seat):
    code = _call(stub, method, _request(method, state, number, seat))
    assert code in ALLOWED


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(payload=st.binary(max_size=300), method=st.sampled_from(METHODS))
def test_random_bytes(channel, payload, method):
    """Arbitrary bytes as the request: if they decode, the answer is a proper status; if
    not, gRPC itself refuses them. Either way the server keeps serving."""
    request_type = getattr(spb, f"{method}Request")
    path = f"/council.v1.CouncilService/{method}"
    stream = method == "AnalyzePosition"
    call = (channel.unary_stream if stream else channel.unary_unary)(path)
    try:
        decoded = request_type.FromString(payload)
    except Exception:
        decoded = None
    if decoded is not None and method in ("RecommendAction", "AnalyzePosition"):
        # Keep searches short: a random budget could ask for the server's maximum.
        decoded.limits.Clear()
        decoded.limits.iterations = 10
        payload = decoded.SerializeToString()
    try:
        result = call(payload, timeout=30)
        if method == "AnalyzePosition":
            list(result)
        code = grpc.StatusCode.OK
    except grpc.RpcError as error:
        code = error.code()
    if decoded is not None:
        assert code in ALLOWED
    else:
        assert code in ALLOWED | {grpc.StatusCode.INTERNAL}
    health = health_pb2_grpc.HealthStub(channel)
    status = health.Check(health_pb2.HealthCheckRequest(), timeout=10).status
    assert status == health_pb2.HealthCheckResponse.SERVING
