"""A War of Whispers (config.game = GAME_A_WAR_OF_WHISPERS) over a real gRPC server: NewGame
(content by id and digest, views hiding the others' loyalties), ListLegalActions,
ApplyAction (by id, text and structure), RecommendAction, GetView, RenderPosition and
GetEngineInfo, a stale content digest and bad names refused by field, and a whole 2-player
game played through ApplyAction."""

from __future__ import annotations

import random

import grpc
import pytest
from server_helpers import violations

from council.engine._a_war_of_whispers import AWarOfWhispersState, current_content
from council.engine.serialize import state_from_proto, state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

AWW = pb.GAME_A_WAR_OF_WHISPERS


def new_game(stub, seed=3, players=3, **kwargs):
    config = pb.GameConfig(game=AWW, players=players)
    return stub.NewGame(spb.NewGameRequest(config=config, seed=seed, **kwargs))


def invalid(call_) -> list[tuple[str, str]]:
    with pytest.raises(grpc.RpcError) as e:
        call_()
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value.details()
    return violations(e.value)


def test_new_game_names_its_content_and_views_hide_the_others_loyalties(stub):
    response = new_game(stub, seed=3, include_views=True)
    state = response.state
    content = current_content()
    assert state.format == "a-war-of-whispers/1"
    options = state.config.a_war_of_whispers
    assert (options.content_id, options.content_digest) == (content.id, content.digest)
    assert state_from_proto(state) == AWarOfWhispersState.new_game(3, seed=3)
    assert state.a_war_of_whispers.phase == "deploy" and state.a_war_of_whispers.current == 0
    assert [r.name for r in state.a_war_of_whispers.regions] == [r.name for r in content.regions]
    views = {v.seat: v.state for v in response.views}
    for seat, view in views.items():
        assert not view.HasField("rng")
        for p, player in enumerate(view.a_war_of_whispers.players):
            hidden = p != seat
            assert all((token == "") == hidden for token in player.loyalty)
    full = sorted(state.a_war_of_whispers.players[1].loyalty)
    assert full == ["affiliated", "devout", "dutiful", "opposed", "unallied"]
    shown = stub.GetView(spb.GetViewRequest(state=state, seat=1)).state
    assert shown == views[1]


def test_list_legal_actions_at_the_opening_are_the_twenty_council_seats(stub):
    msg = new_game(stub).state
    listed = stub.ListLegalActions(
        spb.ListLegalActionsRequest(state=msg, include_descriptions=True)
    )
    assert (listed.seat, listed.decision) == (0, "deploy")
    assert len(listed.actions) == 20
    first = listed.actions[0]
    assert (first.id, first.text, first.kind) == (0, "deploy bear sheriff", pb.ACTION_KIND_DEPLOY)
    assert (first.a_war_of_whispers.empire, first.a_war_of_whispers.seat) == ("bear", "sheriff")
    assert all(a.description for a in listed.actions)


def test_apply_action_by_id_text_and_structure(stub):
    msg = new_game(stub).state
    one = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=0))
    assert one.applied.text == "deploy bear sheriff" and not one.game_over
    two = stub.ApplyAction(
        spb.ApplyActionRequest(state=one.state, action_text="deploy lion marshal")
    )
    structured = pb.Action(kind=pb.ACTION_KIND_DEPLOY)
    structured.a_war_of_whispers.empire = "eagle"
    structured.a_war_of_whispers.seat = "chancellor"
    three = stub.ApplyAction(spb.ApplyActionRequest(state=two.state, structured=structured))
    assert three.applied.id == 4 * 4 + 3
    agents = list(three.state.a_war_of_whispers.agents)
    assert (agents[0], agents[4 + 2], agents[19]) == (0, 1, 2)
    assert (
        three.state.a_war_of_whispers.current == 0
        and three.state.a_war_of_whispers.agents_placed == 3
    )


def test_a_stale_content_digest_and_bad_names_are_refused_by_field(stub):
    msg = new_game(stub).state
    msg.config.a_war_of_whispers.content_digest = "ab" * 32
    found = invalid(lambda: stub.GetView(spb.GetViewRequest(state=msg, seat=0)))
    assert [path for path, _ in found] == ["state.config.a_war_of_whispers.content_digest"]
    assert "other content (or a changed file)" in found[0][1]
    msg = new_game(stub).state
    msg.a_war_of_whispers.regions[2].empire = "wolf"
    found = invalid(lambda: stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg)))
    assert found[0][0] == "state.a_war_of_whispers.regions[2].empire"
    assert "unknown name 'wolf'" in found[0][1]
    config = pb.GameConfig(game=AWW, players=3)
    config.a_war_of_whispers.content_id = "printed-edition"
    found = invalid(lambda: stub.NewGame(spb.NewGameRequest(config=config, seed=1)))
    assert found[0][0] == "config.a_war_of_whispers.content_id"
    config = pb.GameConfig(game=AWW, players=5)
    found = invalid(lambda: stub.NewGame(spb.NewGameRequest(config=config, seed=1)))
    assert found == [("config.players", "A War of Whispers seats 2 to 4, got 5")]
    msg = new_game(stub).state
    structured = pb.Action(kind=pb.ACTION_KIND_DEPLOY)
    structured.a_war_of_whispers.region = "Frostholm"
    found = invalid(
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    )
    assert sorted(path for path, _ in found) == [
        "structured.a_war_of_whispers.empire",
        "structured.a_war_of_whispers.region",
        "structured.a_war_of_whispers.seat",
    ]


def test_recommend_action_searches_the_seats_view(stub):
    msg = new_game(stub, seed=5).state
    view = state_to_proto(state_from_proto(msg).view(0))
    result = stub.RecommendAction(
        spb.RecommendActionRequest(state=view, limits=pb.SearchLimits(iterations=200), seed=1)
    ).result
    assert result.action.kind == pb.ACTION_KIND_DEPLOY and result.stats.iterations == 200
    assert result.action.id in AWarOfWhispersState.new_game(3, seed=5).legal_actions()


def test_render_and_engine_info(stub):
    msg = new_game(stub).state
    svg = stub.RenderPosition(spb.RenderPositionRequest(state=msg, seat=0)).svg
    assert svg.startswith("<svg") and svg.count('class="region"') == len(current_content().regions)
    assert svg.count('class="council-seat"') == 20 and "Player 0 (you)" in svg
    info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    (aww,) = [g for g in info.games if g.game == AWW]
    assert (aww.name, aww.display_name, aww.min_players, aww.max_players) == (
        "a-war-of-whispers",
        "A War of Whispers",
        2,
        4,
    )
    facts = aww.a_war_of_whispers
    assert facts.content_digest == current_content().digest and len(facts.empires) == 5
    assert aww.num_actions == 343 and aww.default_config.players == 4


def test_a_whole_two_player_game_through_apply_action(stub):
    msg = new_game(stub, seed=11, players=2).state
    local = AWarOfWhispersState.new_game(2, seed=11)
    rng = random.Random(11)
    applied = None
    while not local.is_terminal():
        action = rng.choice(local.legal_actions())
        local.apply(action)
        applied = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=action))
        msg = applied.state
    assert applied is not None and applied.game_over
    assert list(applied.scores) == local.scores() and list(applied.winners) == local.winners()
    assert state_from_proto(msg) == local
