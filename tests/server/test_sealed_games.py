"""How a sealed game goes on (council.server.sealed_games, docs/service.md "Sealed games"):
every draw is made when its move is played, from randomness the server creates then, so an
older blob sent again draws afresh; a bot's move is the game's (its preset, a seed from the
game's secret), the same however often it is asked for, and its caller's seed or limits are
refused; TakeBack returns to an earlier move and is counted in the record."""

from __future__ import annotations

import base64

import grpc
import pytest
from server_helpers import violations

from council.engine.record import replay
from council.engine.serialize import state_from_proto, state_to_proto
from council.server import sealing
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

KEYS = sealing.SealKeys.parse("g1 " + base64.b64encode(b"g" * 32).decode())
BEGINNER = pb.STRENGTH_PRESET_BEGINNER


@pytest.fixture(scope="module")
def stub():
    running = start_server(ServerConfig(address="127.0.0.1:0", search_slots=1, seal_keys=KEYS))
    with grpc.insecure_channel(running.address) as channel:
        yield service_pb2_grpc.CouncilServiceStub(channel)
    running.stop(grace=None)


def _new(stub, game=pb.GAME_UNSPECIFIED, players=2, bots=(1,)):
    return stub.NewGame(
        spb.NewGameRequest(
            config=pb.GameConfig(game=game, players=players),
            sealed=True,
            bot_seats=bots,
            bot_presets={seat: BEGINNER for seat in bots},
        )
    )


def _sealed(blob: bytes, ticket: spb.SeatTicket) -> spb.Sealed:
    return spb.Sealed(blob=blob, ticket=ticket.ticket)


def _content(blob: bytes) -> spb.SealedContent:
    return KEYS.open(blob, ttl_s=60)


def _fails(call, code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    return caught.value


def _apply(stub, blob, ticket, text: str) -> spb.ApplyActionResponse:
    return stub.ApplyAction(spb.ApplyActionRequest(sealed=_sealed(blob, ticket), action_text=text))


def test_the_same_draw_sent_again_from_one_blob_is_made_afresh(stub):
    """ "change coast" draws two permit tiles: five times from one blob, the tiles differ (an
    older blob carried the game's future: the same two tiles every time)."""
    game = _new(stub)
    drawn = {
        _apply(stub, game.sealed_state, game.tickets[0], "change coast").state.SerializeToString(
            deterministic=True
        )
        for _ in range(5)
    }
    assert len(drawn) >= 2


def _hand_at_next_turn(stub, game, first: str) -> list[int]:
    """Seat 0's hand when its second turn begins, after `first` and the bot's turn."""
    blob = _apply(stub, game.sealed_state, game.tickets[0], first).sealed_state
    blob = _apply(stub, blob, game.tickets[0], "end").sealed_state
    while state_from_proto(_content(blob).state).current_player == 1:
        request = spb.RecommendActionRequest(sealed=_sealed(blob, game.tickets[1]))
        blob = stub.RecommendAction(request).sealed_state
    return state_from_proto(_content(blob).state).to_raw()["hand"][0]


def test_the_card_drawn_after_different_first_moves_is_not_the_blobs(stub):
    """Seat 0's next politics card after six different first moves from one blob: not
    always the same one (the blob's rng drew the same card after every first move)."""
    game = _new(stub)
    listed = stub.ListLegalActions(
        spb.ListLegalActionsRequest(sealed=_sealed(game.sealed_state, game.tickets[0]))
    )
    firsts = [a.text for a in listed.actions if a.text.startswith("elect ")][:6]
    assert len(firsts) == 6
    hands = {tuple(_hand_at_next_turn(stub, game, first)) for first in firsts}
    assert len(hands) >= 2


def test_a_bot_is_the_games_the_same_move_however_often_asked(stub):
    game = _new(stub, bots=(0,))
    sealed = _sealed(game.sealed_state, game.tickets[0])
    moves = set()
    for _ in range(4):
        answer = stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed))
        moves.add(_content(answer.sealed_state).actions[-1])
    assert len(moves) == 1
    # The budget is the seat's preset, kept in the blob; the record names it.
    played = _content(answer.sealed_state)
    assert list(played.bot_presets) == [BEGINNER, 0]
    assert played.players[0].name == "bot (beginner)"


def test_a_bot_tickets_seed_or_limits_are_refused_naming_them(stub):
    game = _new(stub, bots=(0,))
    sealed = _sealed(game.sealed_state, game.tickets[0])
    for request, fields in (
        (spb.RecommendActionRequest(sealed=sealed, seed=5), ["seed"]),
        (
            spb.RecommendActionRequest(sealed=sealed, limits=pb.SearchLimits(iterations=9)),
            ["limits"],
        ),
        (
            spb.RecommendActionRequest(
                sealed=sealed, seed=1, limits=pb.SearchLimits(preset=pb.STRENGTH_PRESET_STRONG)
            ),
            ["seed", "limits"],
        ),
    ):
        error = _fails(lambda r=request: stub.RecommendAction(r), grpc.StatusCode.INVALID_ARGUMENT)
        assert [field for field, _ in violations(error)] == fields
        assert "the game's" in error.details()


def test_bot_presets_name_bot_seats_and_presets(stub):
    request = spb.NewGameRequest(
        config=pb.GameConfig(players=3), sealed=True, bot_seats=[2], bot_presets={1: BEGINNER}
    )
    error = _fails(lambda: stub.NewGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error) == [("bot_presets[1]", "not a seat of `bot_seats`")]
    request = spb.NewGameRequest(
        config=pb.GameConfig(players=3), sealed=True, bot_seats=[2], bot_presets={2: 9}
    )
    error = _fails(lambda: stub.NewGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error) == [("bot_presets[2]", "unknown preset 9")]


def test_each_blob_has_its_number_and_every_moves_chance_seed(stub):
    game = _new(stub)
    assert _content(game.sealed_state).sequence == 0
    content = _content(_play_to(stub, game, 2)[-1])
    assert content.sequence == 2 and len(content.actions) == len(content.chance) == 2
    assert all(content.chance) and content.chance[0] != content.chance[1]


def _play_to(stub, game, moves: int) -> list[bytes]:
    """The blobs of the next `moves` moves of a sealed game, or up to its end (seat 0 plays
    its last legal action, the bot its preset's move)."""
    blobs, blob = [game.sealed_state], game.sealed_state
    tickets = {t.seat: t for t in game.tickets}
    for _ in range(moves):
        state = state_from_proto(_content(blob).state)
        if state.is_terminal():
            break
        mover = state.current_player
        sealed = _sealed(blob, tickets[mover])
        if tickets[mover].role == spb.SEAT_ROLE_BOT:
            blob = stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed)).sealed_state
        else:
            listed = stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed))
            request = spb.ApplyActionRequest(sealed=sealed, action_id=listed.actions[-1].id)
            blob = stub.ApplyAction(request).sealed_state
        blobs.append(blob)
    return blobs


@pytest.mark.parametrize("game_value", [pb.GAME_UNSPECIFIED, pb.GAME_THE_COUNCIL])
def test_a_takeback_returns_to_the_move_with_its_draws_and_is_counted(stub, game_value):
    players = 3 if game_value == pb.GAME_THE_COUNCIL else 2
    game = _new(stub, game_value, players=players, bots=(1,))
    blobs = _play_to(stub, game, 8)
    answer = stub.TakeBack(
        spb.TakeBackRequest(sealed=_sealed(blobs[-1], game.tickets[0]), to_move=3)
    )
    back = _content(answer.sealed_state)
    # The game as it stood after 3 moves, their draws included, in a blob numbered after all.
    assert back.state == _content(blobs[3]).state
    assert list(back.actions) == list(_content(blobs[3]).actions) and back.sequence == 9
    assert answer.state == state_to_proto(state_from_proto(back.state).view(0))
    assert list(answer.takebacks) == [1] + [0] * (players - 1)
    assert [p.takebacks for p in back.players] == list(answer.takebacks)


def test_a_finished_games_record_counts_takebacks_and_replays_its_draws(stub):
    game = _new(stub, pb.GAME_KUHN_POKER)
    blobs = _play_to(stub, game, 1)
    taken = stub.TakeBack(
        spb.TakeBackRequest(sealed=_sealed(blobs[-1], game.tickets[0]), to_move=0)
    ).sealed_state
    blob = _play_to(stub, spb.NewGameResponse(sealed_state=taken, tickets=game.tickets), 9)[-1]
    record = stub.GetGameRecord(
        spb.GetGameRecordRequest(sealed=_sealed(blob, game.tickets[0]))
    ).record
    assert [p.takebacks for p in record.players] == [1, 0]
    assert all(move.chance_seed for move in record.moves)
    assert replay(record).scores() == state_from_proto(_content(blob).state).scores()


def test_takebacks_that_make_no_sense_are_refused(stub):
    game = _new(stub)
    blobs = _play_to(stub, game, 2)
    for to_move in (2, 7):
        request = spb.TakeBackRequest(sealed=_sealed(blobs[-1], game.tickets[0]), to_move=to_move)
        error = _fails(lambda r=request: stub.TakeBack(r), grpc.StatusCode.INVALID_ARGUMENT)
        assert violations(error) == [
            ("to_move", f"must be below the 2 moves played, got {to_move}")
        ]
    request = spb.TakeBackRequest(sealed=_sealed(blobs[-1], game.tickets[1]), to_move=0)
    error = _fails(lambda: stub.TakeBack(request), grpc.StatusCode.PERMISSION_DENIED)
    assert violations(error) == [("sealed.ticket", "a bot ticket cannot make this call")]
    error = _fails(lambda: stub.TakeBack(spb.TakeBackRequest()), grpc.StatusCode.INVALID_ARGUMENT)
    assert [field for field, _ in violations(error)] == ["sealed"]


# -- --no-rewind: a server that refuses older blobs -------------------------------------------


def _strict_server(store_url: str):
    return start_server(
        ServerConfig(
            address="127.0.0.1:0",
            search_slots=1,
            seal_keys=KEYS,
            no_rewind=True,
            game_store=store_url,
        )
    )


def _refused_as_stale(call) -> None:
    error = _fails(call, grpc.StatusCode.FAILED_PRECONDITION)
    assert "has moved on" in error.details(), error.details()


def test_no_rewind_refuses_an_older_blob_and_takebacks(tmp_path):
    running = _strict_server(f"sqlite:///{tmp_path}/games.sqlite3")
    try:
        with grpc.insecure_channel(running.address) as channel:
            strict = service_pb2_grpc.CouncilServiceStub(channel)
            assert strict.GetEngineInfo(spb.GetEngineInfoRequest()).no_rewind
            game = _new(strict)
            blobs = _play_to(strict, game, 3)
            for old in blobs[:-1]:  # every older blob, for a move or for a look
                _refused_as_stale(lambda b=old: _apply(strict, b, game.tickets[0], "change coast"))
                request = spb.GetViewRequest(sealed=_sealed(old, game.tickets[0]))
                _refused_as_stale(lambda r=request: strict.GetView(r))
            # Two moves from the latest blob: the first goes on, the second is refused.
            other = _new(strict)
            _apply(strict, other.sealed_state, other.tickets[0], "change coast")
            _refused_as_stale(
                lambda: _apply(strict, other.sealed_state, other.tickets[0], "change hills")
            )
            request = spb.TakeBackRequest(sealed=_sealed(blobs[-1], game.tickets[0]), to_move=0)
            error = _fails(lambda: strict.TakeBack(request), grpc.StatusCode.FAILED_PRECONDITION)
            assert "refuses takebacks" in error.details()
    finally:
        running.stop(grace=None)


def test_no_rewind_replicas_sharing_redis_refuse_a_blob_moved_on_at_the_other(redis_server):
    first, second = (_strict_server(redis_server.url) for _ in range(2))
    try:
        with grpc.insecure_channel(first.address) as a, grpc.insecure_channel(second.address) as b:
            one, two = (service_pb2_grpc.CouncilServiceStub(c) for c in (a, b))
            game = _new(one)
            moved = _apply(one, game.sealed_state, game.tickets[0], "change coast").sealed_state
            _refused_as_stale(
                lambda: _apply(two, game.sealed_state, game.tickets[0], "change hills")
            )
            listed = two.ListLegalActions(
                spb.ListLegalActionsRequest(sealed=_sealed(moved, game.tickets[0]))
            )
            move, other_move = (a.text for a in listed.actions[:2])
            answer = _apply(two, moved, game.tickets[0], move)  # the latest goes on
            _refused_as_stale(lambda: _apply(one, moved, game.tickets[0], other_move))
            assert _content(answer.sealed_state).sequence == 2
    finally:
        first.stop(grace=None)
        second.stop(grace=None)
