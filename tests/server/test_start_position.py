"""NewGame's `start_position` (the review's "Explore from here", docs/service.md "Sealed
games"): a sealed game started from a submitted position keeps only what its seat may know
(the public state and that seat's hand), deals every other hidden card afresh from the
server's own randomness (the request's rng dropped), plays on like any sealed game, and a
malformed start is refused naming the field. Every registered game, through the generic
Position interface."""

from __future__ import annotations

import base64
import random

import grpc
import pytest
from server_helpers import violations

from council.engine.games import all_games, game_named
from council.engine.serialize import state_from_proto, state_to_proto
from council.server import sealing
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

KEYS = sealing.SealKeys.parse("s1 " + base64.b64encode(b"s" * 32).decode())
GAMES = [game.name for game in all_games()]
# Starts from one position: the other seats' hidden cards of at least two differ. Kuhn poker
# has the fewest deals (the other seat's card, one of two): all the same 1 time in 2^39.
STARTS = 40


@pytest.fixture(scope="module")
def stub():
    running = start_server(ServerConfig(address="127.0.0.1:0", search_slots=1, seal_keys=KEYS))
    with grpc.insecure_channel(running.address) as channel:
        yield service_pb2_grpc.CouncilServiceStub(channel)
    running.stop(grace=None)


def _midgame(name: str, moves: int = 6, seed: int = 3):
    """A full state of the game `moves` seeded random moves in (fewer if it ends sooner), not
    over, with the seat to move."""
    state = game_named(name).new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        after = state.child(rng.choice(state.legal_actions()))
        if after.is_terminal():
            break
        state = after
    return state


def _start(stub, state_msg: pb.GameState, seat: int | None, **more) -> spb.NewGameResponse:
    start = spb.StartPosition(state=state_msg)
    if seat is not None:
        start.seat = seat
    request = spb.NewGameRequest(start_position=start, sealed=True, **more)
    return stub.NewGame(request)


def _dealt(answer: spb.NewGameResponse):
    """The full state a started game's blob holds, and its history's start."""
    content = KEYS.open(answer.sealed_state, ttl_s=60)
    return state_from_proto(content.state), state_from_proto(content.start)


def _fails(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    return caught.value


@pytest.mark.parametrize("name", GAMES)
def test_a_started_game_keeps_the_seats_view_and_deals_the_rest_afresh(stub, name):
    position = _midgame(name)
    seat = position.current_player
    others = [s for s in range(position.n_players) if s != seat]
    answer = _start(stub, state_to_proto(position), seat, include_views=True, bot_seats=others)
    dealt, start = _dealt(answer)
    # The seat's view, public facts and own hand, is the submitted position's, exactly.
    assert not dealt.is_view and dealt == start
    assert dealt.view(seat) == position.view(seat)
    assert [v.seat for v in answer.views] == [seat]
    assert state_from_proto(answer.views[0].state) == position.view(seat)
    roles = {t.seat: t.role for t in answer.tickets}
    assert roles == {s: spb.SEAT_ROLE_BOT if s in others else spb.SEAT_ROLE_PLAYER for s in roles}
    assert sorted(roles) == list(range(position.n_players))
    # The others' hidden cards: dealt afresh each time, from the server's randomness.
    deals = set()
    for _ in range(STARTS):
        again, _ = _dealt(_start(stub, state_to_proto(position), seat))
        assert again.view(seat) == position.view(seat)
        hidden = state_to_proto(again)
        hidden.ClearField("rng")
        deals.add(hidden.SerializeToString(deterministic=True))
        if len(deals) > 1:
            break
    assert len(deals) > 1


@pytest.mark.parametrize("name", GAMES)
def test_a_started_game_plays_on_sealed(stub, name):
    """The seat's player ticket lists and plays its moves; a bot seat's ticket plays the
    bot's (the game's preset)."""
    position = _midgame(name)
    seat = position.current_player
    others = [s for s in range(position.n_players) if s != seat]
    answer = _start(
        stub,
        state_to_proto(position.view(seat)),  # a view: its viewer is the seat
        None,
        bot_seats=others,
        bot_presets={s: pb.STRENGTH_PRESET_BEGINNER for s in others},
    )
    ticket = {t.seat: t.ticket for t in answer.tickets}
    sealed = spb.Sealed(blob=answer.sealed_state, ticket=ticket[seat])
    listed = stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed))
    assert sorted(a.id for a in listed.actions) == sorted(position.legal_actions())
    played = stub.ApplyAction(spb.ApplyActionRequest(sealed=sealed, action_id=listed.actions[0].id))
    after = state_from_proto(played.state)
    if played.game_over or after.current_player == seat:
        return
    mover = after.current_player
    bot = spb.Sealed(blob=played.sealed_state, ticket=ticket[mover])
    replied = stub.RecommendAction(spb.RecommendActionRequest(sealed=bot))
    assert replied.result.seat == mover and replied.sealed_state


def test_the_requests_rng_decides_nothing(stub):
    """A full state's rng is dropped: the game's chance state is the server's, another each
    time, never the one sent."""
    position = _midgame("council-of-four")
    message = state_to_proto(position)
    assert message.HasField("rng")
    rngs = {state_to_proto(_dealt(_start(stub, message, 0))[0]).rng for _ in range(3)}
    assert len(rngs) == 3 and message.rng not in rngs


def test_a_malformed_start_is_refused_naming_the_field(stub):
    position = _midgame("council-of-four")
    message = state_to_proto(position)
    bad = state_to_proto(position, member_form=True)
    bad.council_of_four.players[1].coins = 99
    found = violations(_fails(lambda: _start(stub, bad, 0)))
    assert found == [
        ("start_position.state.council_of_four.players[1].coins", "must be in 0..20, got 99")
    ]
    # A full state needs the seat; a view's seat is its viewer.
    found = violations(_fails(lambda: _start(stub, message, None)))
    assert [f for f, _ in found] == ["start_position.seat"]
    found = violations(_fails(lambda: _start(stub, state_to_proto(position.view(1)), 0)))
    assert [f for f, _ in found] == ["start_position.seat"]
    for seat in (5, -2):  # (-2 is no "seat to move")
        found = violations(_fails(lambda seat=seat: _start(stub, message, seat)))
        problem = f"must be in 0..{position.n_players - 1}, got {seat}"
        assert found == [("start_position.seat", problem)]
    # A state with the other seats' hands left out reads as the seat's view.
    partial = state_to_proto(position.view(2))
    partial.ClearField("viewer")
    dealt, _ = _dealt(_start(stub, partial, 2))
    assert dealt.view(2) == position.view(2)
    # A view carries no rng: one sent is refused, naming it.
    with_rng = state_to_proto(position.view(0))
    with_rng.rng = 12345
    found = violations(_fails(lambda: _start(stub, with_rng, None)))
    assert [f for f, _ in found] == ["start_position.state.rng"]
    # A seed, a config, an unsealed game: each refused by name.
    found = violations(_fails(lambda: _start(stub, message, 0, seed=2**63)))
    assert [f for f, _ in found] == ["seed"]
    found = violations(_fails(lambda: _start(stub, message, 0, config=pb.GameConfig(players=2))))
    assert [f for f, _ in found] == ["config"]
    unsealed = spb.NewGameRequest(start_position=spb.StartPosition(state=message, seat=0))
    found = violations(_fails(lambda: stub.NewGame(unsealed)))
    assert [f for f, _ in found] == ["sealed"]
    missing = spb.NewGameRequest(start_position=spb.StartPosition(seat=0), sealed=True)
    found = violations(_fails(lambda: stub.NewGame(missing)))
    assert found == [("start_position.state", "required field is missing")]


def test_a_finished_game_is_no_start(stub):
    state = game_named("kuhn-poker").new_game(seed=1)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    found = violations(_fails(lambda: _start(stub, state_to_proto(state), 0)))
    assert [f for f, _ in found] == ["start_position.state"]
    assert "over" in found[0][1]


@pytest.mark.parametrize("member_form", [True, False])
def test_a_start_is_answered_in_the_form_it_was_asked_in(stub, member_form):
    """Council of Four's position in its member (or the deprecated top-level fields): the
    views and the game's blobs in that form (docs/state-json.md, "Two forms")."""
    position = _midgame("council-of-four")
    message = state_to_proto(position, member_form=member_form)
    answer = _start(stub, message, 0, include_views=True)
    content = KEYS.open(answer.sealed_state, ttl_s=60)
    for state in (answer.views[0].state, content.state, content.start):
        assert state.HasField("council_of_four") == member_form
        assert bool(state.players) != member_form
