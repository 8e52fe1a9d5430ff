"""Every RPC's happy path against a real server, plus health, reflection, deadlines,
cancellation and the hidden-card guarantee."""

from __future__ import annotations

import dataclasses
import random
import re
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from server_helpers import finished, played, to_proto, violations

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import Action
from council.engine.serialize import state_from_json, state_from_proto, state_to_json
from council.mcts.search import SearchConfig, SearchLimits, search
from council.server import presets
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb


def engine_state(msg) -> CouncilOfFourState:
    return state_from_proto(msg)


def without_timing(result: pb.SearchResult) -> pb.SearchResult:
    out = pb.SearchResult()
    out.CopyFrom(result)
    out.stats.ClearField("elapsed")
    return out


# -- NewGame -------------------------------------------------------------------------------


def test_new_game_is_the_engine_setup(stub):
    response = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(players=3, layout="BAB"), seed=11)
    )
    expected = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3, layout="BAB"), seed=11)
    assert engine_state(response.state) == expected
    assert response.state.config.max_coins == 20  # defaults filled in
    assert response.state.config.permit_tie_all_score is True
    assert len(response.views) == 0


@pytest.mark.parametrize(
    ("seed", "warned"), [(7, True), ((1 << 32) - 1, True), (1 << 32, False), (None, False)]
)
def test_new_game_warns_of_a_seed_small_enough_to_guess(stub, seed, warned):
    request = spb.NewGameRequest(config=pb.GameConfig(players=2))
    if seed is not None:
        request.seed = seed
    warnings = list(stub.NewGame(request).warnings)
    if warned:
        (warning,) = warnings
        assert f"seed {seed} is below 2^32" in warning
        assert "leave the seed out" in warning
    else:
        assert warnings == []


def test_new_game_views(stub):
    response = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(players=2), seed=4, include_views=True)
    )
    full = engine_state(response.state)
    assert [v.seat for v in response.views] == [0, 1]
    for v in response.views:
        assert v.state.viewer == v.seat
        assert engine_state(v.state) == full.view(v.seat)
        other = 1 - v.seat
        assert not v.state.players[other].HasField("hand")
        assert v.state.players[v.seat].HasField("hand")
        assert not v.state.HasField("rng")


def test_new_game_rejects_bad_config(stub):
    with pytest.raises(grpc.RpcError) as info:
        stub.NewGame(spb.NewGameRequest(config=pb.GameConfig(players=5, layout="XYZ")))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    fields = [f for f, _ in violations(info.value)]
    assert fields == ["config.players", "config.layout"]


# -- ListLegalActions ----------------------------------------------------------------------


def test_list_legal_actions_structured_form(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    response = stub.ListLegalActions(spb.ListLegalActionsRequest(state=to_proto(state)))
    by_id = {a.id: a for a in response.actions}
    elect = by_id[Action.from_text("elect white king").id]
    assert (elect.kind, elect.balcony, elect.colour, elect.text) == (
        pb.ACTION_KIND_ELECT,
        3,
        0,
        "elect white king",
    )
    assert not elect.HasField("city")


# -- ApplyAction ---------------------------------------------------------------------------


def test_apply_action_by_id_text_and_structured(stub):
    state = played(3, seed=8, actions=10)
    action = state.legal_actions()[-1]
    expected = state.child(action)
    a = Action.from_id(action)
    structured = pb.Action(kind=pb.ActionKind.Value(f"ACTION_KIND_{a.kind.name}"))
    for name in ("balcony", "colour", "region", "slot", "tile", "position", "city", "payment"):
        if getattr(a, name) is not None:
            setattr(structured, name, getattr(a, name))
    requests = [
        spb.ApplyActionRequest(state=to_proto(state), action_id=action),
        spb.ApplyActionRequest(state=to_proto(state), action_text=a.to_text().upper()),
        spb.ApplyActionRequest(state=to_proto(state), structured=structured),
    ]
    for request in requests:
        response = stub.ApplyAction(request)
        assert response.applied.id == action
        assert engine_state(response.state) == expected
        assert response.game_over is False
        assert list(response.scores) == expected.scores()
        assert list(response.winners) == []


def test_apply_action_chance_from_seed(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=2)
    # Ending seat 0's turn draws a politics card for seat 1: chance from the seed.
    state.apply(Action.from_text("elect white king").id)
    reseeded = state.clone()
    reseeded.reseed(99)
    expected = reseeded.child(0)
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=to_proto(state), action_id=0, seed=99, include_views=True)
    )
    assert engine_state(response.state) == expected
    assert [engine_state(v.state) for v in response.views] == [expected.view(0), expected.view(1)]
    own_rng = stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(state), action_id=0))
    assert engine_state(own_rng.state) == state.child(0)


def test_apply_action_on_a_view_deals_hidden_cards_from_the_seed(stub):
    state = played(2, seed=5, actions=20)
    seat = state.current_player
    view = state.view(seat)
    action = view.determinize(0).legal_actions()[0]
    expected = view.determinize(7).child(action)
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=to_proto(view), action_id=action, seed=7)
    )
    # The answer is the viewer's view of the sampled continuation, marked as sampled.
    assert engine_state(response.state) == expected.view(seat)
    assert response.sampled is True
    assert list(response.scores) == expected.scores()
    full = stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(state), action_id=action))
    assert full.sampled is False and not full.state.HasField("viewer")
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(view), action_id=action))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(info.value)] == ["seed"]


def test_apply_action_illegal_or_malformed_action(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    cases = [
        (spb.ApplyActionRequest(state=to_proto(state), action_id=0), "action_id"),  # no main yet
        (spb.ApplyActionRequest(state=to_proto(state), action_id=605), "action_id"),
        (spb.ApplyActionRequest(state=to_proto(state), action_text="fly to Mars"), "action_text"),
        (
            spb.ApplyActionRequest(
                state=to_proto(state), structured=pb.Action(kind=pb.ACTION_KIND_ELECT, balcony=9)
            ),
            "structured.balcony",
        ),
        (spb.ApplyActionRequest(state=to_proto(state)), "action"),
    ]
    for request, field in cases:
        with pytest.raises(grpc.RpcError) as info:
            stub.ApplyAction(request)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert [f for f, _ in violations(info.value)] == [field]


def test_apply_action_to_the_end_reports_winners(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=6)
    chooser = random.Random(6)
    while True:
        action = chooser.choice(state.legal_actions())
        after = state.child(action)
        if after.is_terminal():
            break
        state = after
    response = stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(state), action_id=action))
    assert engine_state(response.state) == after
    assert response.game_over is True
    assert list(response.winners) == after.winners() != []
    assert list(response.scores) == after.scores()


# -- RecommendAction / AnalyzePosition -----------------------------------------------------


def test_recommend_action_matches_the_search_on_the_view(stub):
    state = played(4, seed=3, actions=40)
    seat = state.current_player
    expected = search(state.view(seat), SearchLimits(iterations=300), seed=5)
    response = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=to_proto(state), limits=pb.SearchLimits(iterations=300), seed=5
        )
    )
    r = response.result
    assert r.seat == seat
    assert r.action.id == expected.action
    assert [c.action.id for c in r.candidates] == [c.action for c in expected.candidates]
    assert [c.visits for c in r.candidates] == [c.visits for c in expected.candidates]
    assert r.candidates[0].win_probability == pytest.approx(expected.candidates[0].win_probability)
    assert r.candidates[0].vp_margin == pytest.approx(expected.candidates[0].vp_margin)
    assert [a.id for a in r.principal_variation] == list(expected.principal_variation)
    assert r.stats.iterations == 300
    assert r.stats.stop_reason == pb.STOP_REASON_ITERATIONS
    assert r.stats.iteration_budget == 300
    assert r.seed == 5


def test_recommend_action_preset_and_max_candidates(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=9)
    response = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=to_proto(state),
            limits=pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER),
            max_candidates=3,
        )
    )
    assert response.result.stats.iterations == 50  # the beginner preset
    assert len(response.result.candidates) == 3
    default = stub.RecommendAction(spb.RecommendActionRequest(state=to_proto(state)))
    assert default.result.stats.iteration_budget == 300  # the default preset: casual
    # An explicit limit only shortens a preset.
    shorter = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=to_proto(state),
            limits=pb.SearchLimits(preset=pb.STRENGTH_PRESET_STRONG, iterations=40),
        )
    )
    assert shorter.result.stats.iterations == 40


def test_a_preset_searches_with_its_own_settings(stub):
    # strong's budget comes with its own search settings (presets.Budget.settings): the reply
    # is the search's under them, not under the server's.
    state = played(2, seed=3, actions=10)
    view = state.view(state.current_player)
    strong = presets.BY_NAME["strong"].budget()
    limits = SearchLimits(iterations=strong.iterations)
    tuned = search(view, limits, SearchConfig().with_settings(dict(strong.settings)), seed=5)
    plain = search(view, limits, seed=5)
    response = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=to_proto(state), limits=pb.SearchLimits(preset=pb.STRENGTH_PRESET_STRONG), seed=5
        )
    )
    visits = [(c.action.id, c.visits) for c in response.result.candidates]
    assert visits == [(c.action, c.visits) for c in tuned.candidates]
    assert visits != [(c.action, c.visits) for c in plain.candidates]


def test_analyze_position_streams_progress_then_one_final(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=9)
    request = spb.AnalyzePositionRequest(
        state=to_proto(state),
        limits=pb.SearchLimits(iterations=20000),
        seed=3,
        report_interval=duration_pb2.Duration(nanos=20_000_000),
    )
    messages = list(stub.AnalyzePosition(request))
    assert [m.final for m in messages].count(True) == 1
    assert messages[-1].final
    assert len(messages) >= 2  # 20000 iterations take longer than one 20 ms report
    counts = [m.result.stats.iterations for m in messages]
    assert counts == sorted(counts) and counts[-1] == 20000
    # The final answer is the unary answer for the same view, seed and budget.
    unary = stub.RecommendAction(
        spb.RecommendActionRequest(
            state=to_proto(state), limits=pb.SearchLimits(iterations=20000), seed=3
        )
    )
    assert without_timing(messages[-1].result) == without_timing(unary.result)


def test_hidden_cards_of_other_seats_are_ignored(stub):
    state = played(4, seed=12, actions=30)
    seat = state.current_player
    obj = state_to_json(state)
    other = (seat + 1) % 4
    hand = obj["players"][other]["hand"]
    deck = obj["board"]["politics_deck"]
    give = next(k for k in hand if hand[k] > 0)
    take = next(k for k in deck if deck[k] > 0 and k != give)
    hand[give] -= 1
    hand[take] += 1
    deck[give] += 1
    deck[take] -= 1
    obj["rng"] = "12345"
    changed = state_from_json(obj)
    assert changed != state and changed.view(seat) == state.view(seat)

    def ask(position_proto):
        return stub.RecommendAction(
            spb.RecommendActionRequest(
                state=position_proto, seat=seat, limits=pb.SearchLimits(iterations=400), seed=2
            )
        ).result

    first = ask(to_proto(state))
    assert without_timing(ask(to_proto(changed))) == without_timing(first)
    assert without_timing(ask(to_proto(state.view(seat)))) == without_timing(first)
    partial = to_proto(state)  # a full state with the other hands simply left out
    for p in range(4):
        if p != seat:
            partial.players[p].ClearField("hand")
    assert without_timing(ask(partial)) == without_timing(first)


def test_deadline_bounds_the_search(stub):
    state = played(4, seed=3, actions=40)
    request = spb.RecommendActionRequest(
        state=to_proto(state), limits=pb.SearchLimits(iterations=2_000_000)
    )
    response = stub.RecommendAction(request, timeout=1.0)  # no DEADLINE_EXCEEDED
    stats = response.result.stats
    assert stats.stop_reason == pb.STOP_REASON_DEADLINE
    assert 0 < stats.time_budget.ToNanoseconds() < 1_000_000_000
    assert 0 < stats.iterations < 2_000_000


def test_cancellation_stops_the_search(stub, server):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    request = spb.RecommendActionRequest(
        state=to_proto(state), limits=pb.SearchLimits(max_time=duration_pb2.Duration(seconds=19))
    )
    servicer = server.servicer
    # (By identity, not by count: the record keeps the last 256, full after other modules'
    # searches on this session's server.)
    before = list(servicer.recent_searches)
    call = stub.RecommendAction.future(request)
    deadline = time.monotonic() + 10
    while servicer.active_searches == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert servicer.active_searches == 1
    call.cancel()
    assert servicer.wait_idle(timeout=10)
    new = [r for r in servicer.recent_searches if not any(r is old for old in before)]
    record = [r for r in new if r.time_budget_s == 19.0]
    assert len(record) == 1
    assert record[0].stop_reason == pb.STOP_REASON_CANCELLED
    assert record[0].elapsed_s < 19.0


def test_failed_preconditions(stub):
    over = finished(2, seed=4)
    state = played(3, seed=2, actions=12)
    mover = state.current_player
    idle = (mover + 1) % 3
    cases = [
        lambda: stub.RecommendAction(spb.RecommendActionRequest(state=to_proto(over))),
        lambda: stub.ListLegalActions(spb.ListLegalActionsRequest(state=to_proto(over))),
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(over), action_id=0)),
        lambda: stub.RecommendAction(spb.RecommendActionRequest(state=to_proto(state), seat=idle)),
        lambda: stub.RecommendAction(spb.RecommendActionRequest(state=to_proto(state.view(idle)))),
        lambda: stub.ListLegalActions(
            spb.ListLegalActionsRequest(state=to_proto(state.view(idle)))
        ),
    ]
    for call in cases:
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION, info.value.details()


def test_seat_that_cannot_see_the_view(stub):
    state = played(3, seed=2, actions=12)
    mover = state.current_player
    with pytest.raises(grpc.RpcError) as info:
        stub.RecommendAction(
            spb.RecommendActionRequest(state=to_proto(state.view(mover)), seat=(mover + 1) % 3)
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(info.value)] == ["seat"]


def test_bad_limits(stub):
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    request = spb.RecommendActionRequest(
        state=to_proto(state),
        limits=pb.SearchLimits(iterations=0, max_time=duration_pb2.Duration(seconds=-1)),
    )
    with pytest.raises(grpc.RpcError) as info:
        stub.RecommendAction(request)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(info.value)] == ["limits.iterations", "limits.max_time"]


# -- GetEngineInfo, health, reflection -----------------------------------------------------


def test_engine_info(stub):
    info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert info.version == re.search(r'^version = "(.+)"$', pyproject, re.M)[1]
    assert info.state_format == "council-of-four/1"
    assert info.num_actions == 605
    assert len(info.layouts) == 8
    assert [p.name for p in info.presets] == ["beginner", "casual", "strong"]
    ranges = [(r.kind, r.offset, r.size) for r in info.action_ranges]
    assert ranges[0] == (pb.ACTION_KIND_END_TURN, 0, 1)
    assert ranges[-1] == (pb.ACTION_KIND_CHOOSE_PERMIT_BONUS, 560, 45)
    assert sum(size for _, _, size in ranges) == 605
    assert info.default_config.players == 4 and info.default_config.layout == "ABA"
    assert info.search_slots == 2


def test_engine_info_lists_every_rule_variant(stub):
    # Every CouncilOfFourConfig field but the player count is a rule variant, in the engine's
    # config, in the message's GameConfig and in the answer: a field missing from any fails.
    info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    engine_fields = [f.name for f in dataclasses.fields(CouncilOfFourConfig)]
    # The rule variants are Council of Four's options (GameConfig.council_of_four); its
    # deprecated top-level fields have the same names and numbers.
    options = {f.name: f.number for f in cof_pb.CouncilOfFourOptions.DESCRIPTOR.fields}
    assert engine_fields == ["players", *options]
    deprecated = {f.name: f.number for f in pb.GameConfig.DESCRIPTOR.fields if f.name in options}
    assert deprecated == options
    assert list(info.rule_variants) == [f for f in engine_fields if f != "players"]
    assert set(info.rule_variants) >= {
        "layout",
        "max_coins",
        "assistant_supply",
        "permit_tie_all_score",
        "nobility_bonus_on_pass",
    }
    assert [f.name for f, _ in info.default_config.ListFields()] == engine_fields


def test_health_serving(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "council.v1.CouncilService"):
        response = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service(channel):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = list(
        stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    )
    names = {s.name for s in responses[0].list_services_response.service}
    assert {
        "council.v1.CouncilService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    } <= names
    # The file descriptors are served too (what grpcurl uses to encode JSON requests).
    files = list(
        stub.ServerReflectionInfo(
            iter(
                [
                    reflection_pb2.ServerReflectionRequest(
                        file_containing_symbol="council.v1.CouncilService"
                    )
                ]
            )
        )
    )
    assert files[0].file_descriptor_response.file_descriptor_proto
