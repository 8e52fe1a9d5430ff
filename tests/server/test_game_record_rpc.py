"""GetGameRecord (docs/service.md, "Sealed games"): a sealed game's blob keeps its history
(the start NewGame dealt, every action played, who plays each seat), and once the game is
over a player ticket gets its record, which replays to the scores the game's last reply
gave; refused before the end, to a bot ticket, for a tampered blob, and for a blob sealed
before blobs kept a history; over gRPC and Connect JSON."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request

import grpc
import pytest
from google.protobuf import json_format
from server_helpers import violations

from council.engine.record import replay
from council.engine.serialize import state_from_proto
from council.mcts.agents import ISMCTSAgent, parse_agent
from council.server import presets, sealing
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import record_pb2 as rpb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

KEYS = sealing.SealKeys.parse("k1 " + base64.b64encode(b"r" * 32).decode())
PLAYER, BOT = spb.SEAT_ROLE_PLAYER, spb.SEAT_ROLE_BOT


@pytest.fixture(scope="module")
def sealed_server():
    running = start_server(
        ServerConfig(
            address="127.0.0.1:0", http_address="127.0.0.1:0", search_slots=1, seal_keys=KEYS
        )
    )
    yield running
    running.stop(grace=None)


@pytest.fixture(scope="module")
def stub(sealed_server):
    with grpc.insecure_channel(sealed_server.address) as channel:
        yield service_pb2_grpc.CouncilServiceStub(channel)


def _full(blob: bytes):
    return state_from_proto(KEYS.open(blob, ttl_s=60).state)


def _new_game(stub, game=pb.GAME_UNSPECIFIED, players=None, bots=(), preset=None):
    """A sealed game; its bots play `preset` (beginner, quick, unless said)."""
    chosen = pb.STRENGTH_PRESET_BEGINNER if preset is None else preset
    config = pb.GameConfig(game=game, players=players)
    return stub.NewGame(
        spb.NewGameRequest(
            config=config,
            sealed=True,
            bot_seats=bots,
            bot_presets={seat: chosen for seat in bots},
        )
    )


def _play(stub, game: spb.NewGameResponse, stop_after=None):
    """Play a sealed game: a player seat takes its first legal action, a bot seat plays by
    RecommendAction (its preset's budget). Its last blob and last reply, after `stop_after`
    moves or at the end."""
    tickets = {t.seat: t for t in game.tickets}
    blob, reply, moves = game.sealed_state, game, 0
    while not _full(blob).is_terminal() and moves != stop_after:
        ticket = tickets[_full(blob).current_player]
        sealed = spb.Sealed(blob=blob, ticket=ticket.ticket)
        if ticket.role == BOT:
            reply = stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed))
        else:
            listed = stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed))
            request = spb.ApplyActionRequest(sealed=sealed, action_id=listed.actions[0].id)
            reply = stub.ApplyAction(request)
        blob, moves = reply.sealed_state, moves + 1
    return blob, reply, moves


def _record(stub, blob: bytes, ticket: spb.SeatTicket) -> rpb.GameRecord:
    request = spb.GetGameRecordRequest(sealed=spb.Sealed(blob=blob, ticket=ticket.ticket))
    return stub.GetGameRecord(request).record


def _fails(call, code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    return caught.value


@pytest.mark.parametrize(
    ("game", "players", "bots"),
    [(pb.GAME_KUHN_POKER, 2, (1,)), (pb.GAME_THE_COUNCIL, 3, (1, 2))],
    ids=["kuhn-poker", "the-council"],
)
def test_a_finished_sealed_game_has_a_record_that_replays(stub, game, players, bots):
    new = _new_game(stub, game, players, bots)
    blob, last, moves = _play(stub, new)
    assert last.game_over
    record = _record(stub, blob, new.tickets[0])
    final = replay(record)
    assert final.scores() == list(last.scores) and final.winners() == list(last.winners)
    assert len(record.moves) == moves
    assert record.start == KEYS.open(new.sealed_state, ttl_s=60).state  # NewGame's deal
    assert [(p.seat, p.name) for p in record.players] == [
        (seat, "bot (beginner)" if seat in bots else "player") for seat in range(players)
    ]
    assert all(record.players[seat].agent == "" for seat in range(players) if seat not in bots)
    game_name = {pb.GAME_KUHN_POKER: "kuhn-poker", pb.GAME_THE_COUNCIL: "the-council"}[game]
    beginner = presets.BY_NAME["beginner"].budget(game_name).iterations
    for seat in bots:  # a bot's agent is the spec of its searches, which the arena reads
        agent = parse_agent(record.players[seat].agent, game_name)
        assert isinstance(agent, ISMCTSAgent) and agent.iterations == beginner
    # Every player ticket gets the same record; it is the game's, not the seat's.
    assert _record(stub, blob, new.tickets[0]) == record
    if 1 not in bots:
        assert _record(stub, blob, new.tickets[1]) == record


def test_a_bots_agent_is_the_spec_of_its_search(stub):
    """A bot's agent names its budget and the search settings its preset changes
    (Council of Four's "strong": fpu_reduction), so that parse_agent builds that search."""
    new = _new_game(stub, players=2, bots=(0,), preset=pb.STRENGTH_PRESET_STRONG)
    assert [p.name for p in KEYS.open(new.sealed_state, ttl_s=60).players] == ["bot", "player"]
    blob, _, _ = _play(stub, new, stop_after=1)
    bot, player = KEYS.open(blob, ttl_s=60).players
    strong = presets.BY_NAME["strong"].budget("council-of-four").iterations
    assert (bot.seat, bot.name, bot.agent) == (
        0,
        "bot (strong)",
        f"ismcts:iterations={strong},fpu_reduction=0.3",
    )
    assert (player.seat, player.name, player.agent) == (1, "player", "")
    agent = parse_agent(bot.agent, "council-of-four")
    assert isinstance(agent, ISMCTSAgent) and agent.settings == (("fpu_reduction", 0.3),)
    assert (agent.iterations, agent.time_s) == (strong, None)


def test_the_record_is_what_analyze_game_reviews(stub):
    new = _new_game(stub, pb.GAME_KUHN_POKER, bots=(1,))
    blob, last, _ = _play(stub, new)
    assert last.game_over
    request = spb.AnalyzeGameRequest(
        record=_record(stub, blob, new.tickets[0]), seats=[0], limits=pb.SearchLimits(iterations=8)
    )
    *_, summary = stub.AnalyzeGame(request)
    assert summary.final and [s.seat for s in summary.seats] == [0]
    assert summary.progress.decisions_done == summary.progress.decisions_total >= 1


def test_the_record_is_refused_before_the_end(stub):
    new = _new_game(stub, pb.GAME_KUHN_POKER, bots=(1,))
    blob, last, moves = _play(stub, new, stop_after=1)
    assert moves == 1 and not last.game_over
    for sealed_blob in (new.sealed_state, blob):
        error = _fails(
            lambda b=sealed_blob: _record(stub, b, new.tickets[0]),
            grpc.StatusCode.FAILED_PRECONDITION,
        )
        assert "not over" in error.details() and "every hand" in error.details()


def test_a_bot_ticket_or_another_games_ticket_gets_no_record(stub):
    new = _new_game(stub, pb.GAME_KUHN_POKER, bots=(1,))
    blob, last, _ = _play(stub, new)
    assert last.game_over
    error = _fails(lambda: _record(stub, blob, new.tickets[1]), grpc.StatusCode.PERMISSION_DENIED)
    assert violations(error) == [("sealed.ticket", "a bot ticket cannot make this call")]
    other = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(game=pb.GAME_KUHN_POKER), sealed=True)
    )
    error = _fails(lambda: _record(stub, blob, other.tickets[0]), grpc.StatusCode.PERMISSION_DENIED)
    assert [field for field, _ in violations(error)] == ["sealed.ticket"]


def test_a_tampered_blob_or_a_missing_one_is_invalid_argument(stub):
    new = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(game=pb.GAME_KUHN_POKER), sealed=True)
    )
    blob, last, _ = _play(stub, new)
    assert last.game_over
    flipped = bytearray(blob)
    flipped[len(blob) // 2] ^= 0x01
    error = _fails(
        lambda: _record(stub, bytes(flipped), new.tickets[0]), grpc.StatusCode.INVALID_ARGUMENT
    )
    ((field, problem),) = violations(error)
    assert field == "sealed.blob" and problem.startswith("not a state sealed by this service")
    error = _fails(
        lambda: stub.GetGameRecord(spb.GetGameRecordRequest()), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert [field for field, _ in violations(error)] == ["sealed"]


def test_a_blob_sealed_without_a_history_has_no_record(stub):
    """A game sealed before blobs kept their history still plays on; it has no record."""
    new = stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(game=pb.GAME_KUHN_POKER), sealed=True)
    )
    content = KEYS.open(new.sealed_state, ttl_s=60)
    old_blob = KEYS.seal(content.state, content.game_secret)  # no `history`: as before
    assert not KEYS.open(old_blob, ttl_s=60).HasField("start")
    old = spb.NewGameResponse(sealed_state=old_blob)
    old.tickets.extend(new.tickets)
    blob, last, _ = _play(stub, old)
    assert last.game_over and not KEYS.open(blob, ttl_s=60).actions
    error = _fails(lambda: _record(stub, blob, new.tickets[0]), grpc.StatusCode.FAILED_PRECONDITION)
    assert "no record" in error.details()


# -- Connect JSON: the page's transport ------------------------------------------------------


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


def test_the_record_over_connect_json(sealed_server):
    """As the page asks for it: POST GetGameRecord {"sealed": {"blob", "ticket"}}."""
    status, game = _http(
        sealed_server,
        "NewGame",
        {
            "config": {"game": "GAME_KUHN_POKER"},
            "sealed": True,
            "botSeats": [1],
            "botPresets": {"1": "STRENGTH_PRESET_BEGINNER"},
        },
    )
    assert status == 200
    player, bot = (t["ticket"] for t in game["tickets"])
    blob = game["sealedState"]
    status, error = _http(
        sealed_server, "GetGameRecord", {"sealed": {"blob": blob, "ticket": player}}
    )
    assert status == 400 and error["code"] == "failed_precondition"
    last: dict = {}
    while not last.get("gameOver"):
        mover = _full(base64.b64decode(blob)).current_player
        sealed = {"blob": blob, "ticket": bot if mover == 1 else player}
        if mover == 1:
            status, last = _http(sealed_server, "RecommendAction", {"sealed": sealed})
        else:
            status, listed = _http(sealed_server, "ListLegalActions", {"sealed": sealed})
            action = listed["actions"][0].get("id", 0)  # (0 is left out of JSON)
            status, last = _http(
                sealed_server, "ApplyAction", {"sealed": sealed, "actionId": action}
            )
        assert status == 200, last
        blob = last["sealedState"]
    status, answer = _http(
        sealed_server, "GetGameRecord", {"sealed": {"blob": blob, "ticket": player}}
    )
    assert status == 200
    record = json_format.ParseDict(answer["record"], rpb.GameRecord())
    assert replay(record).scores() == [int(s) for s in last["scores"]]
    status, error = _http(sealed_server, "GetGameRecord", {"sealed": {"blob": blob, "ticket": bot}})
    assert status == 403 and error["code"] == "permission_denied"
    flipped = bytearray(base64.b64decode(blob))
    flipped[-5] ^= 0x01
    tampered = {"blob": base64.b64encode(bytes(flipped)).decode(), "ticket": player}
    status, error = _http(sealed_server, "GetGameRecord", {"sealed": tampered})
    assert status == 400 and error["code"] == "invalid_argument" and "tampered" in error["message"]
