"""The service answers in the form it is asked in (docs/state-json.md, "Two forms"): a
request whose Council of Four position (or NewGame config) uses the members
``council_of_four`` gets its positions back in the members; one in the deprecated top-level
form gets that form (the service goldens hold those answers byte for byte)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format
from server_helpers import played, violations

from council.engine.council_of_four import GAME, CouncilOfFourConfig, CouncilOfFourState
from council.engine.members import to_members
from council.engine.serialize import state_from_proto, state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb


def _in_members(msg: pb.GameState) -> bool:
    """Every part in its member, none in the deprecated fields."""
    deprecated = (msg.HasField("board"), bool(msg.players), msg.HasField("turn"))
    return (
        msg.HasField("council_of_four")
        and msg.config.HasField("council_of_four")
        and (not any(deprecated))
    )


def _member_config(players: int) -> pb.GameConfig:
    config = pb.GameConfig(players=players)
    config.council_of_four.SetInParent()  # the default rule variants, in the member
    return config


def test_new_game_answers_in_the_form_of_its_config(stub):
    member = stub.NewGame(spb.NewGameRequest(config=_member_config(3), seed=11, include_views=True))
    deprecated = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(players=3), seed=11, include_views=True)
    )
    expected = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=11)
    assert _in_members(member.state) and all(_in_members(v.state) for v in member.views)
    assert member.state == state_to_proto(expected, member_form=True)
    assert deprecated.state == state_to_proto(expected)
    assert not deprecated.state.HasField("council_of_four")
    for new, old in zip(member.views, deprecated.views, strict=True):
        assert state_from_proto(new.state) == state_from_proto(old.state)


def test_apply_action_answers_in_the_form_of_its_state(stub):
    state = played(3, seed=4, actions=20)
    action = state.legal_actions()[0]
    member = stub.ApplyAction(
        spb.ApplyActionRequest(
            state=state_to_proto(state, member_form=True), action_id=action, include_views=True
        )
    )
    deprecated = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state), action_id=action, include_views=True)
    )
    after = state.child(action)
    assert member.state == state_to_proto(after, member_form=True)
    assert deprecated.state == state_to_proto(after)
    assert [v.state for v in member.views] == [
        state_to_proto(after.view(s), member_form=True) for s in range(3)
    ]
    # Its action and effects too: each game's fields in its member, the same values.
    assert member.applied == to_members(_copy(deprecated.applied), "council_of_four")
    assert member.effects == to_members(_copy(deprecated.effects), "council_of_four")
    assert member.effects.seats and all(
        not seat.coins and seat.WhichOneof("game") in (None, "council_of_four")
        for seat in member.effects.seats
    )


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def test_actions_in_the_member_form(stub):
    state = played(2, seed=3, actions=0)
    msg = state_to_proto(state, member_form=True)
    listed = stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg, include_effects=True))
    old = stub.ListLegalActions(
        spb.ListLegalActionsRequest(state=state_to_proto(state), include_effects=True)
    )
    assert [to_members(_copy(a), "council_of_four") for a in old.actions] == list(listed.actions)
    elect = next(a for a in listed.actions if a.kind == pb.ACTION_KIND_ELECT)
    assert elect.council_of_four.HasField("balcony") and not elect.HasField("balcony")
    # A structured action in the member form is read; in both forms it is refused.
    structured = pb.Action(kind=pb.ACTION_KIND_ELECT)
    structured.council_of_four.CopyFrom(elect.council_of_four)
    applied = stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    elect.ClearField("effects")
    assert applied.applied == elect
    structured.balcony = elect.council_of_four.balcony
    with pytest.raises(grpc.RpcError) as refused:
        stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    assert violations(refused.value) == [
        (
            "structured.balcony",
            "deprecated form of structured.council_of_four.balcony: give only the member",
        )
    ]
    structured.ClearField("balcony")
    structured.council_of_four.balcony = 7
    with pytest.raises(grpc.RpcError) as refused:
        stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    assert [f for f, _ in violations(refused.value)] == ["structured.council_of_four.balcony"]
    structured = pb.Action(kind=pb.ACTION_KIND_PICK)
    structured.the_council.card = "The Author"
    with pytest.raises(grpc.RpcError) as refused:
        stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    assert violations(refused.value) == [
        ("structured.the_council", "another game's fields: the position is Council of Four's")
    ]


def test_a_partial_state_in_the_members_is_the_seat_to_moves_view(stub):
    state = played(4, seed=9, actions=30)
    mover = state.current_player
    msg = state_to_proto(state, member_form=True)
    for seat, player in enumerate(msg.council_of_four.players):
        if seat != mover:
            player.ClearField("hand")
    limits = pb.SearchLimits(iterations=50)
    member = stub.RecommendAction(spb.RecommendActionRequest(state=msg, limits=limits, seed=3))
    view = stub.RecommendAction(
        spb.RecommendActionRequest(state=state_to_proto(state.view(mover)), limits=limits, seed=3)
    )
    expected = to_members(_copy(view.result), "council_of_four")
    for result in (member.result, expected):  # (the search's wall time differs)
        result.stats.ClearField("elapsed")
    assert member.result == expected
    assert member.result.action.HasField("council_of_four") and member.result.seat == mover
    listed = stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg))
    assert [a.id for a in listed.actions] == state.legal_actions()
    got = stub.GetView(spb.GetViewRequest(state=msg, seat=mover)).state
    assert got == state_to_proto(state.view(mover), member_form=True)


def test_a_sealed_game_keeps_the_form_of_its_new_game(stub):
    seed = 2**40 + 5
    first = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=seed).legal_actions()[
        0
    ]
    for config, member_form in ((_member_config(2), True), (pb.GameConfig(players=2), False)):
        new = stub.NewGame(spb.NewGameRequest(config=config, seed=seed, sealed=True))
        ticket = new.tickets[0].ticket
        sealed = spb.Sealed(blob=new.sealed_state, ticket=ticket)
        view = stub.GetView(spb.GetViewRequest(sealed=sealed)).state
        assert _in_members(view) is member_form
        applied = stub.ApplyAction(spb.ApplyActionRequest(sealed=sealed, action_id=first))
        assert _in_members(applied.state) is member_form
        sealed = spb.Sealed(blob=applied.sealed_state, ticket=ticket)
        back = stub.TakeBack(spb.TakeBackRequest(sealed=sealed, to_move=0))
        assert _in_members(back.state) is member_form
        assert state_from_proto(back.state) == state_from_proto(view)


def test_errors_name_the_field_in_the_form_the_request_used(stub):
    msg = state_to_proto(played(2, seed=6, actions=10), member_form=True)
    msg.council_of_four.players[1].coins = 99
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(refused.value) == [
        ("state.council_of_four.players[1].coins", "must be in 0..20, got 99")
    ]
    msg.council_of_four.players[1].coins = 1
    msg.turn.SetInParent()
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg))
    assert violations(refused.value) == [
        ("state.turn", "deprecated form of council_of_four.turn: give only the member")
    ]
    both = _member_config(2)
    both.max_coins = 20
    with pytest.raises(grpc.RpcError) as refused:
        stub.NewGame(spb.NewGameRequest(config=both, seed=2**40))
    assert violations(refused.value) == [
        (
            "config.max_coins",
            "deprecated form of config.council_of_four.max_coins: give only the member",
        )
    ]


def test_the_member_form_in_json_is_what_a_connect_client_sends(stub):
    state = played(2, seed=8, actions=12)
    obj = json_format.MessageToDict(state_to_proto(state, member_form=True))
    assert "councilOfFour" in obj and "board" not in obj
    msg = json_format.ParseDict(obj, pb.GameState())
    response = stub.GetView(spb.GetViewRequest(state=msg, seat=1))
    assert response.state == state_to_proto(state.view(1), member_form=True)


def test_engine_info_in_the_member_form_when_asked(stub):
    deprecated = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    member = stub.GetEngineInfo(spb.GetEngineInfoRequest(member_form=True))
    by_name = {info.name: info for info in member.games}
    tc, kuhn = by_name["the-council"], by_name["kuhn-poker"]
    assert tc.WhichOneof("facts") == "the_council" and not tc.suits and not tc.cards
    assert list(tc.the_council.suits) == ["Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots"]
    assert (tc.the_council.draft_rounds, len(tc.the_council.cards)) == (5, 44)
    assert list(kuhn.kuhn_poker.card_ranks) == ["J", "Q", "K"] and not kuhn.card_ranks
    cof = by_name["council-of-four"]
    assert cof.WhichOneof("facts") == "council_of_four"
    assert cof.default_config.council_of_four.layout == "ABA"
    assert member.default_config.council_of_four.max_coins == 20
    assert not member.default_config.HasField("layout")
    # The same facts as the deprecated form, moved.
    for old, new in zip(deprecated.games, member.games, strict=True):
        assert new == to_members(_copy(old), new.name.replace("-", "_"))
    assert deprecated.games[1].suits and deprecated.default_config.HasField("layout")


def test_council_of_four_facts_name_its_actions_numbers_and_its_svg_pieces(stub):
    # (No deprecated form: the member in either form, the page's, which asks for neither.)
    for form in (spb.GetEngineInfoRequest(), spb.GetEngineInfoRequest(member_form=True)):
        info = next(i for i in stub.GetEngineInfo(form).games if i.name == "council-of-four")
        facts = info.council_of_four
        assert list(facts.regions) == ["coast", "hills", "mountains"]
        assert list(facts.balconies) == ["coast", "hills", "mountains", "king"]
        assert (len(facts.cities), facts.cities[0], facts.cities[9]) == (15, "Arkon", "Juvelar")
        assert list(facts.colours) == ["white", "black", "orange", "pink", "purple", "cyan"]
        assert set(facts.card_fills) == set(facts.colours)
        assert facts.card_fills["white"] == "#FAFAFA"
    # Each number names what the action's text names.
    names = {"city": facts.cities, "balcony": facts.balconies, "region": facts.regions}
    named = dict.fromkeys(names, 0)
    for action_id in range(info.num_actions):
        action = GAME.action_to_proto(None, action_id)
        for field, table in names.items():
            if action.HasField(field):
                assert f" {table[getattr(action, field)]}" in f" {action.text}", action.text
                named[field] += 1
        if action.kind in (pb.ACTION_KIND_ELECT, pb.ACTION_KIND_QUICK_ELECT):
            assert action.text.split()[-2] == facts.colours[action.colour], action.text
    assert all(named.values()), named
    # Each name is a piece of the board's SVG (docs/render.md's ids).
    opening = state_to_proto(played(4, seed=3, actions=0))
    svg = stub.RenderPosition(spb.RenderPositionRequest(state=opening)).svg
    pieces = [f"city-{c}" for c in facts.cities] + [f"balcony-{b}" for b in facts.balconies]
    pieces += [f"deck-{r}" for r in facts.regions] + [f"tile-{r}-1" for r in facts.regions]
    assert [p for p in pieces if f'id="{p}"' not in svg] == []
    assert all(facts.card_fills[c] in svg for c in ("white", "black"))
