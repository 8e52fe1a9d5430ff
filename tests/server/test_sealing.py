"""Sealed games (council.server.sealing, docs/service.md "Sealed games"): NewGame with
`sealed` returns the full state sealed and a ticket per seat, never the state; every call
that takes a state takes the blob and a seat's ticket instead, over gRPC and Connect JSON;
a sealed game plays exactly as the same game unsealed; a bot's RecommendAction plays its
move and answers it as the other seats see it (The Council's secret picks and reveals
without their cards); a tampered blob, another game's ticket, a retired key, an expired
blob, a bot ticket asking to see its seat's hand or to apply an action each get their own
clear error; key rotation keeps games in progress open."""

from __future__ import annotations

import base64
import json
import os
import random
import stat
import urllib.error
import urllib.request

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from server_helpers import violations

from council.engine.games import game_of
from council.engine.serialize import state_from_proto, state_to_proto
from council.engine.the_council import TheCouncilConfig
from council.server import sealing
from council.server.app import start_server
from council.server.cli import main as cli_main
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

OLD = sealing.SealKeys.parse("old " + base64.b64encode(b"o" * 32).decode())
NEW_LINE = "new " + base64.b64encode(b"n" * 32).decode()
KEYS = sealing.SealKeys.parse(
    "# rotated: new seals, old still opens\n"
    + NEW_LINE
    + "\n"
    + "old "
    + base64.b64encode(b"o" * 32).decode()
)
SEED = 2**40 + 7  # (a large explicit seed: no small-seed warning)
PLAYER, BOT = spb.SEAT_ROLE_PLAYER, spb.SEAT_ROLE_BOT
FAST = pb.SearchLimits(iterations=64)


def _serve(keys, **more):
    return start_server(ServerConfig(address="127.0.0.1:0", search_slots=1, seal_keys=keys, **more))


@pytest.fixture(scope="module")
def sealed_server():
    running = _serve(KEYS, http_address="127.0.0.1:0")
    yield running
    running.stop(grace=None)


@pytest.fixture(scope="module")
def sealed_stub(sealed_server):
    with grpc.insecure_channel(sealed_server.address) as channel:
        yield service_pb2_grpc.CouncilServiceStub(channel)


def _new(stub, players=2, bots=(1,), game=pb.GAME_UNSPECIFIED, **more):
    """A sealed game whose bots play the beginner preset (quick)."""
    config = pb.GameConfig(players=players, game=game)
    request = spb.NewGameRequest(
        config=config,
        seed=SEED,
        sealed=True,
        bot_seats=bots,
        bot_presets={seat: pb.STRENGTH_PRESET_BEGINNER for seat in bots},
        **more,
    )
    return stub.NewGame(request)


def _sealed(blob: bytes, ticket: spb.SeatTicket | str) -> spb.Sealed:
    return spb.Sealed(blob=blob, ticket=getattr(ticket, "ticket", ticket))


def _open(blob: bytes):
    return state_from_proto(KEYS.open(blob, ttl_s=60).state)


def _follow(full, blob: bytes) -> int:
    """Play on the full state `full` the move that made `blob`, with the draws it made (the
    seed the blob's history keeps for it); that move."""
    history = KEYS.open(blob, ttl_s=60)
    action, chance = history.actions[-1], history.chance[-1]
    if chance:
        full.reseed(chance)
    full.apply(action)
    return action


def _without_rng(state) -> pb.GameState:
    """A full state's message without its rng (a sealed game's rng is drawn anew before
    every move, so after a move that drew nothing it is no other game's)."""
    message = state if isinstance(state, pb.GameState) else state_to_proto(state)
    message.ClearField("rng")
    return message


def _fails(call, code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    return caught.value


def test_a_sealed_new_game_holds_no_state_and_a_ticket_per_seat(sealed_stub):
    game = _new(sealed_stub, players=3, bots=(2,), include_views=True)
    assert not game.HasField("state") and game.sealed_state
    assert [(t.seat, t.role) for t in game.tickets] == [(0, PLAYER), (1, PLAYER), (2, BOT)]
    assert [t.ticket.split(".")[:2] for t in game.tickets] == [
        ["0", "player"],
        ["1", "player"],
        ["2", "bot"],
    ]
    assert [v.seat for v in game.views] == [0, 1]  # the players' views only, no bot's
    # The blob holds the game's full state: the same deal as the unsealed game of the seed.
    unsealed = sealed_stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(players=3), seed=SEED)
    ).state
    assert KEYS.open(game.sealed_state, ttl_s=60).state == unsealed
    assert game.sealed_state[2 : 2 + game.sealed_state[1]] == b"new"  # the first key seals
    for view in game.views:
        assert view.state == state_to_proto(state_from_proto(unsealed).view(view.seat))


def test_a_sealed_game_plays_as_the_same_game_unsealed_over_grpc(sealed_stub):
    """Every RPC with a sealed state: the player to move lists, hints, analyses, views,
    draws and plays; the bot's RecommendAction plays its move; each step is the same as on
    the full state."""
    game = _new(sealed_stub)
    blob, (human, bot) = game.sealed_state, game.tickets
    full = _open(blob)
    for _ in range(12):
        mover = full.current_player
        ticket = human if mover == 0 else bot
        sealed = _sealed(blob, ticket)
        if mover == 0:
            listed = sealed_stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed))
            on_full = sealed_stub.ListLegalActions(
                spb.ListLegalActionsRequest(state=state_to_proto(full), seat=0)
            )
            assert listed == on_full
            view = sealed_stub.GetView(spb.GetViewRequest(sealed=sealed)).state
            assert view == state_to_proto(full.view(0))
            svg = sealed_stub.RenderPosition(spb.RenderPositionRequest(sealed=sealed)).svg
            assert svg == sealed_stub.RenderPosition(spb.RenderPositionRequest(state=view)).svg
            hint = sealed_stub.RecommendAction(
                spb.RecommendActionRequest(sealed=sealed, limits=FAST, seed=3)
            ).result
            assert hint.candidates and hint.principal_variation
            same = sealed_stub.RecommendAction(
                spb.RecommendActionRequest(state=view, limits=FAST, seed=3)
            ).result
            assert hint.candidates == same.candidates and hint.action == same.action
            *_, last = sealed_stub.AnalyzePosition(
                spb.AnalyzePositionRequest(sealed=sealed, limits=FAST, seed=3)
            )
            assert last.final and last.result.candidates
            action = listed.actions[-1].id
            answer = sealed_stub.ApplyAction(
                spb.ApplyActionRequest(sealed=sealed, action_id=action, include_views=True)
            )
            assert answer.applied.id == action and not answer.sampled
            # The player sees its own view of the next state.
            assert _follow(full, answer.sealed_state) == action
            assert answer.state == state_to_proto(full.view(0))
            assert [v.seat for v in answer.views] == [0]
        else:
            answer = sealed_stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed))
            # The bot's answer: its move, played, and nothing else of what it searched.
            chosen = answer.result
            assert chosen.action.text and chosen.seat == 1 and not answer.secret
            assert not chosen.candidates and not chosen.principal_variation
            assert not chosen.HasField("stats")
            assert _follow(full, answer.sealed_state) == chosen.action.id
        assert _without_rng(KEYS.open(answer.sealed_state, ttl_s=60).state) == _without_rng(full)
        assert list(answer.scores) == full.view(mover).scores() and not answer.game_over
        blob = answer.sealed_state


def _http(server, method: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://{server.http_address}/council.v1.CouncilService/{method}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def _fields(error: dict) -> list[str]:
    (detail,) = error["details"]
    bad = error_details_pb2.BadRequest.FromString(
        base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    )
    return [v.field for v in bad.field_violations]


def test_a_sealed_game_over_connect_json(sealed_server):
    """The page's transport: the blob is base64 in JSON, the ticket a string."""
    status, game = _http(
        sealed_server,
        "NewGame",
        {"config": {"players": 2}, "seed": str(SEED), "sealed": True, "botSeats": [1]},
    )
    assert status == 200 and "state" not in game and game["sealedState"]
    human, bot = (t["ticket"] for t in game["tickets"])
    sealed = {"blob": game["sealedState"], "ticket": human}
    status, listed = _http(sealed_server, "ListLegalActions", {"sealed": sealed})
    assert status == 200 and listed["actions"]
    status, view = _http(sealed_server, "GetView", {"sealed": sealed})
    assert status == 200 and view["state"].get("viewer", 0) == 0
    status, hint = _http(
        sealed_server, "RecommendAction", {"sealed": sealed, "limits": {"iterations": 32}}
    )
    assert status == 200 and hint["result"]["candidates"]
    status, drawn = _http(sealed_server, "RenderPosition", {"sealed": sealed})
    assert status == 200 and drawn["svg"].startswith("<svg")
    status, played = _http(
        sealed_server, "ApplyAction", {"sealed": sealed, "actionId": listed["actions"][0]["id"]}
    )
    assert status == 200 and played["sealedState"] != game["sealedState"]
    full = _open(base64.b64decode(played["sealedState"]))
    assert json_format.ParseDict(played["state"], pb.GameState()) == state_to_proto(full.view(0))
    # The errors keep their codes and name the field.
    status, error = _http(sealed_server, "GetView", {"sealed": {**sealed, "ticket": bot}})
    assert status == 403 and error["code"] == "permission_denied"
    assert _fields(error) == ["sealed.ticket"]
    flipped = bytearray(base64.b64decode(game["sealedState"]))
    flipped[-5] ^= 0x01
    tampered = {"blob": base64.b64encode(bytes(flipped)).decode(), "ticket": human}
    status, error = _http(sealed_server, "GetView", {"sealed": tampered})
    assert status == 400 and error["code"] == "invalid_argument"
    assert _fields(error) == ["sealed.blob"] and "tampered" in error["message"]


def test_a_tampered_blob_is_invalid_argument(sealed_stub):
    game = _new(sealed_stub)
    size = len(game.sealed_state)
    for where in (0, 10, size // 2, size - 1):  # version, nonce, ciphertext, tag
        blob = bytearray(game.sealed_state)
        blob[where] ^= 0x01
        request = spb.GetViewRequest(sealed=_sealed(bytes(blob), game.tickets[0]))
        error = _fails(lambda r=request: sealed_stub.GetView(r), grpc.StatusCode.INVALID_ARGUMENT)
        ((field, problem),) = violations(error)
        assert field == "sealed.blob" and problem.startswith("not a state sealed by this service")
    # A changed key id names a key the server does not hold.
    blob = bytearray(game.sealed_state)
    blob[3] ^= 0x01
    request = spb.GetViewRequest(sealed=_sealed(bytes(blob), game.tickets[0]))
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.FAILED_PRECONDITION)
    assert "sealed with key 'ndw', which this server does not hold" in error.details()
    for junk in (b"\x01", b"not a blob at all", game.sealed_state[:40]):
        request = spb.GetViewRequest(sealed=_sealed(junk, game.tickets[0]))
        error = _fails(lambda r=request: sealed_stub.GetView(r), grpc.StatusCode.INVALID_ARGUMENT)
        assert violations(error)[0][0] == "sealed.blob"


def test_another_games_blob_or_seat_is_permission_denied(sealed_stub):
    game, other = _new(sealed_stub), _new(sealed_stub)
    # This game's ticket with another game's blob (or the reverse): a replay to another game.
    request = spb.GetViewRequest(sealed=_sealed(other.sealed_state, game.tickets[0]))
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.PERMISSION_DENIED)
    assert violations(error)[0][0] == "sealed.ticket"
    assert "not a ticket of this game" in error.details()
    # A ticket whose seat or role was edited.
    seat, role, mac = game.tickets[1].ticket.split(".")
    for forged in (f"0.{role}.{mac}", f"{seat}.player.{mac}"):
        request = spb.GetViewRequest(sealed=_sealed(game.sealed_state, forged))
        _fails(lambda r=request: sealed_stub.GetView(r), grpc.StatusCode.PERMISSION_DENIED)
    # Seat 0's ticket asking for seat 1.
    sealed = _sealed(game.sealed_state, game.tickets[0])
    request = spb.GetViewRequest(sealed=sealed, seat=1)
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.PERMISSION_DENIED)
    assert violations(error) == [("seat", "the ticket is seat 0's, not seat 1's")]
    # A ticket that is no ticket.
    request = spb.GetViewRequest(sealed=_sealed(game.sealed_state, "seat zero please"))
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error)[0][0] == "sealed.ticket"


def test_a_bot_ticket_cannot_see_its_seats_hand(sealed_stub):
    game = _new(sealed_stub, bots=(0,))  # seat 0, to move, is the bot
    sealed = _sealed(game.sealed_state, game.tickets[0])
    for call in (
        lambda: sealed_stub.GetView(spb.GetViewRequest(sealed=sealed)),
        lambda: sealed_stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed)),
        lambda: sealed_stub.RenderPosition(spb.RenderPositionRequest(sealed=sealed)),
        lambda: list(
            sealed_stub.AnalyzePosition(spb.AnalyzePositionRequest(sealed=sealed, limits=FAST))
        ),
    ):
        error = _fails(call, grpc.StatusCode.PERMISSION_DENIED)
        assert violations(error) == [("sealed.ticket", "a bot ticket cannot make this call")]


def test_sealed_requests_that_make_no_sense(sealed_stub):
    game = _new(sealed_stub)
    human = _sealed(game.sealed_state, game.tickets[0])
    full = state_to_proto(_open(game.sealed_state))
    request = spb.GetViewRequest(sealed=human, state=full, seat=0)
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert [f for f, _ in violations(error)] == ["state", "sealed"]
    # A chosen seed would choose the cards drawn.
    request = spb.ApplyActionRequest(sealed=human, action_id=0, seed=1)
    error = _fails(lambda: sealed_stub.ApplyAction(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error)[0][0] == "seed"
    # Seat 1's player is not to move.
    three = _new(sealed_stub, players=3, bots=(2,))
    request = spb.ApplyActionRequest(
        sealed=_sealed(three.sealed_state, three.tickets[1]), action_id=0
    )
    error = _fails(lambda: sealed_stub.ApplyAction(request), grpc.StatusCode.FAILED_PRECONDITION)
    assert "seat 1 is not to move" in error.details()
    request = spb.NewGameRequest(bot_seats=[1])
    error = _fails(lambda: sealed_stub.NewGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error)[0][0] == "bot_seats"
    request = spb.NewGameRequest(sealed=True, bot_seats=[2])
    request.config.players = 2
    error = _fails(lambda: sealed_stub.NewGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error)[0][0] == "bot_seats[0]"
    request = spb.GetViewRequest(sealed=spb.Sealed(ticket=game.tickets[0].ticket))
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert violations(error)[0][0] == "sealed.blob"


def _the_council_pick(stub):
    """A sealed 3-seat game of The Council (bots at seats 1 and 2) after seat 0's pick: the
    blob and the tickets."""
    game = _new(stub, players=3, bots=(1, 2), game=pb.GAME_THE_COUNCIL)
    human = _sealed(game.sealed_state, game.tickets[0])
    hint = stub.RecommendAction(spb.RecommendActionRequest(sealed=human, limits=FAST))
    assert hint.result.action.text.startswith("pick ") and hint.result.candidates
    assert not hint.sealed_state  # a player's RecommendAction only recommends
    answer = stub.ApplyAction(spb.ApplyActionRequest(sealed=human, action_id=hint.result.action.id))
    assert answer.applied.card and answer.state.the_council.current == 1  # its own, in full
    return answer.sealed_state, game.tickets


def _played(before, after: bytes) -> int:
    """The move that takes the full state `before` to the blob `after`'s (its history's last,
    a legal move of `before`)."""
    action = KEYS.open(after, ttl_s=60).actions[-1]
    assert before.is_legal(action)
    return action


def test_a_bot_plays_its_secret_pick_through_recommend_action(sealed_stub, sealed_server):
    """The Council: a bot's RecommendAction plays its pick on the sealed state and answers
    the next blob and the pick as the other seats see it, "picks a card" with no id or card
    (gRPC and Connect JSON); the blob holds the pick."""
    blob, tickets = _the_council_pick(sealed_stub)
    before = _open(blob)
    answer = sealed_stub.RecommendAction(
        spb.RecommendActionRequest(sealed=_sealed(blob, tickets[1]))
    )
    assert answer.secret and not answer.game_over and list(answer.scores) == [0, 0, 0]
    assert answer.result == pb.SearchResult(
        seat=1, action=pb.Action(kind=pb.ACTION_KIND_PICK, text="picks a card")
    )
    after = _open(answer.sealed_state)
    pick = _played(before, answer.sealed_state)
    assert before.action_to_text(pick).startswith("pick ") and after.current_player == 2
    picked = before.action_to_text(pick).removeprefix("pick ")
    assert picked not in str(answer)
    # The page's transport: nothing in the reply's JSON names the card either.
    sealed = {"blob": base64.b64encode(blob).decode(), "ticket": tickets[1].ticket}
    status, reply = _http(
        sealed_server,
        "RecommendAction",
        {"sealed": sealed},
    )
    assert status == 200 and reply["secret"] is True and reply["sealedState"]
    assert reply["result"] == {
        "action": {"kind": "ACTION_KIND_PICK", "text": "picks a card"},
        "seat": 1,
    }
    pick = _played(before, base64.b64decode(reply["sealedState"]))
    assert before.action_to_text(pick).removeprefix("pick ") not in json.dumps(reply)


def test_a_bots_choice_of_cards_to_reveal_is_secret(sealed_stub):
    """The Council: a bot's reveal comes back as "chooses the cards to reveal", without the
    cards; the blob holds the choice."""
    blob, tickets = _the_council_pick(sealed_stub)
    for _ in range(200):
        full = _open(blob)
        mover = full.current_player
        sealed = _sealed(blob, tickets[mover])
        if mover == 0:
            action = full.legal_actions()[0]
            blob = sealed_stub.ApplyAction(
                spb.ApplyActionRequest(sealed=sealed, action_id=action)
            ).sealed_state
            continue
        answer = sealed_stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed))
        action = _played(full, answer.sealed_state)
        blob = answer.sealed_state
        if full.phase == "reveal":
            break
        assert answer.secret == (full.phase == "draft")
        if full.phase == "bid":  # a bid is public: in full
            assert answer.result.action == game_of(full).action_to_proto(full, action)
    else:
        pytest.fail("no bot revealed")
    assert answer.secret and answer.result == pb.SearchResult(
        seat=mover, action=pb.Action(kind=pb.ACTION_KIND_REVEAL, text="chooses the cards to reveal")
    )
    assert full.action_to_text(action).startswith("reveal ")


def test_a_bots_move_that_ends_the_game_says_so():
    """The last move of a game played by a bot: `game_over`, the final scores, the winners."""
    state = TheCouncilConfig(players=3).new_game(0)
    chooser = random.Random(0)
    while not all(state.child(a).is_terminal() for a in state.legal_actions()):
        state.apply(chooser.choice(state.legal_actions()))
    bot = state.current_player
    secret = sealing.new_game_secret()
    blob = KEYS.seal(state_to_proto(state), secret)
    ticket = sealing.mint_ticket(secret, bot, BOT)
    running = _serve(KEYS)
    try:
        with grpc.insecure_channel(running.address) as channel:
            answer = service_pb2_grpc.CouncilServiceStub(channel).RecommendAction(
                spb.RecommendActionRequest(sealed=_sealed(blob, ticket))
            )
    finally:
        running.stop(grace=None)
    end = _open(answer.sealed_state)
    assert end.is_terminal() and answer.game_over
    assert list(answer.scores) == end.scores() and list(answer.winners) == end.winners()


def test_a_bots_council_of_four_move_comes_back_in_full(sealed_stub):
    """Council of Four has no secret move: a bot's RecommendAction answers the move it
    played as the usual Action message."""
    game = _new(sealed_stub, bots=(0,))
    before = _open(game.sealed_state)
    answer = sealed_stub.RecommendAction(
        spb.RecommendActionRequest(sealed=_sealed(game.sealed_state, game.tickets[0]))
    )
    action = _played(before, answer.sealed_state)
    assert not answer.secret and answer.result.seat == 0
    played = game_of(before).action_to_proto(before, action)
    assert answer.result.action == played and answer.result.action.text
    assert list(answer.scores) == _open(answer.sealed_state).scores() and not answer.game_over


def test_apply_action_with_a_bot_ticket_is_permission_denied(sealed_stub, sealed_server):
    """A bot's moves are the server's to play: ApplyAction with its ticket is refused, legal
    move or not (so that refusals do not tell which cards the bot holds), over gRPC and
    Connect JSON; a player's ticket still plays."""
    blob, tickets = _the_council_pick(sealed_stub)
    full = _open(blob)
    legal = set(full.legal_actions())
    for action in (min(legal), next(a for a in range(44) if a not in legal)):
        request = spb.ApplyActionRequest(sealed=_sealed(blob, tickets[1]), action_id=action)
        error = _fails(
            lambda r=request: sealed_stub.ApplyAction(r), grpc.StatusCode.PERMISSION_DENIED
        )
        assert violations(error) == [
            ("sealed.ticket", "a bot ticket plays through RecommendAction")
        ]
    sealed = {"blob": base64.b64encode(blob).decode(), "ticket": tickets[1].ticket}
    status, error = _http(sealed_server, "ApplyAction", {"sealed": sealed, "actionId": 0})
    assert status == 403 and error["code"] == "permission_denied"
    assert _fields(error) == ["sealed.ticket"]


def test_key_rotation_and_retirement(sealed_stub):
    """A game sealed with the old key goes on after a new key is put first (its next blob
    is the new key's); a server without the old key refuses it as retired."""
    old_server = _serve(OLD)
    retired_server = _serve(sealing.SealKeys.parse(NEW_LINE))
    try:
        with grpc.insecure_channel(old_server.address) as channel:
            game = _new(service_pb2_grpc.CouncilServiceStub(channel))
        assert game.sealed_state[2:5] == b"old"
        human = _sealed(game.sealed_state, game.tickets[0])
        listed = sealed_stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=human))
        answer = sealed_stub.ApplyAction(
            spb.ApplyActionRequest(sealed=human, action_id=listed.actions[0].id)
        )
        assert answer.sealed_state[2:5] == b"new"
        with grpc.insecure_channel(retired_server.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            request = spb.GetViewRequest(sealed=human)
            error = _fails(lambda: stub.GetView(request), grpc.StatusCode.FAILED_PRECONDITION)
            assert "sealed with key 'old'" in error.details() and "retired" in error.details()
            # The rotated blob (the new key's) and the same ticket open there.
            sealed = _sealed(answer.sealed_state, game.tickets[0])
            assert stub.GetView(spb.GetViewRequest(sealed=sealed)).state.viewer == 0
    finally:
        old_server.stop(grace=None)
        retired_server.stop(grace=None)


def test_an_expired_blob_is_failed_precondition(sealed_stub):
    game = _new(sealed_stub)
    content = KEYS.open(game.sealed_state, ttl_s=60)
    stale = KEYS.seal(content.state, content.game_secret, now=content.issued_at - 31 * 86400)
    request = spb.GetViewRequest(sealed=_sealed(stale, game.tickets[0]))
    error = _fails(lambda: sealed_stub.GetView(request), grpc.StatusCode.FAILED_PRECONDITION)
    assert "expired" in error.details() and error.details().startswith("sealed.blob: ")
    fresh = KEYS.seal(content.state, content.game_secret, now=content.issued_at - 29 * 86400)
    assert sealed_stub.GetView(spb.GetViewRequest(sealed=_sealed(fresh, game.tickets[0])))


def test_unsealed_requests_are_unchanged(sealed_stub):
    """A plain NewGame still answers the full state, with no blob and no ticket."""
    game = sealed_stub.NewGame(spb.NewGameRequest(seed=SEED, include_views=True))
    assert game.HasField("state") and not game.sealed_state and not game.tickets
    assert len(game.views) == 4


def test_key_files(tmp_path, monkeypatch, capsys):
    """`council-ai seal-key` prints a line a key file takes; with no key given, serve's key
    file is created once, 0600, under $XDG_STATE_HOME, and read back after."""
    assert cli_main(["seal-key", "--key-id", "k2"]) == 0
    line = capsys.readouterr().out.strip()
    assert sealing.SealKeys.parse(line).ids == ("k2",)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = sealing.default_key_file()
    assert path == tmp_path / "council-ai" / "seal-keys"
    keys, created = sealing.load_or_create_key_file(path)
    assert created and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again, created = sealing.load_or_create_key_file(path)
    assert not created and again.ids == keys.ids
    blob = keys.seal(pb.GameState(), b"s" * 32)
    assert again.open(blob, ttl_s=60).game_secret == b"s" * 32
    key = path.read_text().splitlines()[-1].split()[1]
    assert key not in repr(keys) and key not in repr(ServerConfig(seal_keys=keys))  # logs
    for bad, said in (
        ("k1", "expected 'KEY_ID BASE64KEY'"),
        ("k1 not-base64!", "not base64"),
        ("k1 " + base64.b64encode(b"short").decode(), "expected 32"),
        ("bad/id " + base64.b64encode(b"x" * 32).decode(), "key id"),
        ("# nothing", "no seal key"),
    ):
        with pytest.raises(ValueError, match=said):
            sealing.SealKeys.parse(bad)
