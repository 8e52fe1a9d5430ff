"""Write the service-level golden files that ``tests/server/test_golden_rpcs.py`` replays.

Each file of ``tests/server/golden/`` is one recorded call of the running service: the
request a client sends and the response (or error) it gets back, as protobuf JSON with the
proto field names. Together they play a short two-player game over the wire, each call using
the state the call before returned, so that a front-end author can read them in order.

When to regenerate: after an intended change of what the service answers (a new or changed
field, a changed rule or search, a new error message) or of the playthrough below. From the
repository root::

    .venv/bin/python tests/server/make_golden_rpcs.py           # rewrite every file
    .venv/bin/python tests/server/make_golden_rpcs.py --check   # compare only (exit 1 on a diff)

A diff in ``tests/server/golden/`` is a wire-visible change: review it like an API change
(clients see exactly that difference) and, if it is intended, note it in CHANGELOG.md.

File format (``golden/<NN>-<rpc>-<what>.json``)::

    {"note": "what this call shows",
     "rpc": "council.v1.CouncilService/NewGame",   the full method name
     "request": {...},       MessageToDict(message, preserving_proto_field_name=True)
     "response": {...}}      the same; a list of messages for a streaming RPC
or, for a call that fails, instead of "response"::

     "error": {"code": "INVALID_ARGUMENT", "details": "<status message>",
               "field_violations": [["state.players[1].coins", "must be in 0..20, got 99"], ...]}

Fields that vary from run to run are replaced by `normalise` (which the replay applies too);
map fields (``board.city_tokens``) are written with their keys sorted. Searches run on a fixed
seed and an iteration budget only, so their results are deterministic.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import grpc
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status

from council.engine.games import game_named
from council.engine.record import record_of
from council.engine.serialize import state_to_proto
from council.server import sealing
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import service_pb2 as spb

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

# The server the files are recorded against and replayed on: the defaults of
# `council-ai serve` (max_iterations 2,000,000, max_search_time 30 s, ...), except a free port
# and a fixed number of search slots (the default, one per core, varies by machine and shows
# in GetEngineInfo).
# A fixed seal key, and a TTL that the sealed game of GetGameRecord's file never outlives.
SEAL_KEYS = sealing.SealKeys.parse("golden " + base64.b64encode(b"g" * 32).decode())
SERVER_CONFIG = ServerConfig(
    address="127.0.0.1:0", search_slots=2, seal_keys=SEAL_KEYS, seal_ttl_s=1000 * 365 * 86400.0
)

# Deadline of every call: a hang guard. Long enough that the deadline never cuts a search's
# time budget (30 s, the server's max_search_time), so `stats.time_budget` is stable.
CALL_TIMEOUT_S = 60.0

COUNCIL_SERVICE = spb.DESCRIPTOR.services_by_name["CouncilService"]
HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"]
SERVICES = {s.full_name: s for s in (COUNCIL_SERVICE, HEALTH_SERVICE)}

Record = dict[str, Any]

# -- reading and writing messages ----------------------------------------------------------


def method_of(rpc: str):
    """The MethodDescriptor of a full method name such as "council.v1.CouncilService/NewGame"."""
    service, _, name = rpc.partition("/")
    try:
        return SERVICES[service].methods_by_name[name]
    except KeyError:
        raise ValueError(f"unknown rpc {rpc!r}") from None


def _sort_maps(descriptor, obj: dict) -> None:
    """Sort the keys of every map field of `obj` (a message as a dict) in place: protobuf
    writes a map in no fixed order, and the files should not change for that."""
    for field in descriptor.fields:
        if field.name not in obj or field.message_type is None:
            continue
        value = obj[field.name]
        if field.message_type.GetOptions().map_entry:
            obj[field.name] = dict(sorted(value.items()))
            inner = field.message_type.fields_by_name["value"].message_type
            if inner is not None:
                for item in obj[field.name].values():
                    _sort_maps(inner, item)
        elif field.is_repeated:
            for item in value:
                _sort_maps(field.message_type, item)
        else:
            _sort_maps(field.message_type, value)


def to_dict(message) -> dict:
    """A message's JSON form as the files hold it: the protobuf JSON mapping with the proto
    field names, default values left out, map keys sorted."""
    obj = json_format.MessageToDict(message, preserving_proto_field_name=True)
    _sort_maps(message.DESCRIPTOR, obj)
    return obj


def request_message(rpc: str, request: dict):
    """The request message of `rpc` read from its JSON form (unknown fields refused)."""
    cls = message_factory.GetMessageClass(method_of(rpc).input_type)
    return json_format.ParseDict(request, cls())


# -- what varies from run to run -----------------------------------------------------------

ELAPSED = "<elapsed>"
VERSION = "<version>"
SEALED = "<sealed>"


def normalise(rpc: str, record: Record) -> Record:
    """A copy of a golden record (``{"rpc", "request", "response" | "error"}``) with the
    parts that vary from run to run replaced; the writer applies it before writing and the
    replay to both the server's answer and the file before comparing. It is idempotent.

    - ``result.stats.elapsed`` of RecommendAction and AnalyzePosition (the search's wall
      time) becomes ``"<elapsed>"``.
    - AnalyzePosition keeps only its final message: how many progress messages come before
      it, and how far each got, depends on the machine's speed (the request's long
      ``report_interval`` means there usually are none).
    - ``version`` of GetEngineInfo (the package version, which every release changes)
      becomes ``"<version>"``; the replay checks the real one against the installed package.
    - ``sealed_state`` of TakeBack (a blob: its nonce and time are new every call) becomes
      ``"<sealed>"``.

    Everything else is compared exactly: ``stats.time_budget`` is the server's
    max_search_time (the call's deadline is far enough not to cut it), and a search with a
    fixed seed and an iteration budget gives the same result every time.
    """
    out = copy.deepcopy(record)
    method = method_of(rpc).name
    response = out.get("response")
    if response is None:
        return out
    if method == "AnalyzePosition":
        response = out["response"] = [m for m in response if m.get("final")]
    if method in ("RecommendAction", "AnalyzePosition"):
        for message in response if isinstance(response, list) else [response]:
            stats = message.get("result", {}).get("stats")
            if stats is not None and "elapsed" in stats:
                stats["elapsed"] = ELAPSED
    if method == "GetEngineInfo" and "version" in response:
        response["version"] = VERSION
    if method == "TakeBack" and "sealed_state" in response:
        response["sealed_state"] = SEALED
    return out


# -- calling the service -------------------------------------------------------------------


def error_record(error: grpc.RpcError) -> dict:
    """The "error" entry of a failed call: its code, its message and the field violations of
    its google.rpc.BadRequest detail (none for a status without one)."""
    violations = []
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            violations += [[v.field, v.description] for v in bad.field_violations]
    return {
        "code": error.code().name,
        "details": error.details(),
        "field_violations": violations,
    }


def call(channel: grpc.Channel, rpc: str, request: dict) -> Record:
    """Send `request` (JSON form) to `rpc` and return the golden record of the exchange,
    normalised: ``{"rpc", "request", "response"}`` or ``{"rpc", "request", "error"}``. The
    request is written in its canonical JSON form (as read back from the message)."""
    method = method_of(rpc)
    message = request_message(rpc, request)
    response_cls = message_factory.GetMessageClass(method.output_type)
    kwargs = {
        "request_serializer": type(message).SerializeToString,
        "response_deserializer": response_cls.FromString,
    }
    record: Record = {"rpc": rpc, "request": to_dict(message)}
    try:
        if method.server_streaming:
            stream = channel.unary_stream(f"/{rpc}", **kwargs)(message, timeout=CALL_TIMEOUT_S)
            record["response"] = [to_dict(m) for m in stream]
        else:
            answer = channel.unary_unary(f"/{rpc}", **kwargs)(message, timeout=CALL_TIMEOUT_S)
            record["response"] = to_dict(answer)
    except grpc.RpcError as error:
        record["error"] = error_record(error)
    return normalise(rpc, record)


# -- the playthrough -----------------------------------------------------------------------


@dataclass(frozen=True)
class Golden:
    """One golden file: its name (without ``.json``), what it shows and the exchange."""

    name: str
    note: str
    record: Record

    @property
    def rpc(self) -> str:
        return self.record["rpc"]

    def text(self) -> str:
        return json.dumps({"note": self.note, **self.record}, indent=2, ensure_ascii=False) + "\n"


def playthrough(channel: grpc.Channel) -> list[Golden]:
    """Every exchange, in order: each call after NewGame plays on a state an earlier
    response returned."""
    goldens: list[Golden] = []

    def ask(method: str, what: str, note: str, request: dict, service=COUNCIL_SERVICE) -> Record:
        rpc = f"{service.full_name}/{method}"
        record = call(channel, rpc, request)
        goldens.append(Golden(f"{len(goldens) + 1:02d}-{method}-{what}", note, record))
        return record

    def answer(record: Record) -> Any:
        if "error" in record:
            raise RuntimeError(f"{record['rpc']} failed: {record['error']}")
        return record["response"]

    ask(
        "GetEngineInfo",
        "info",
        "The engine's version, rule variants, action space, strength presets and this "
        "server's limits (a server started with --search-slots 2, all else at the defaults).",
        {},
    )
    start = answer(
        ask(
            "NewGame",
            "2p-seed7",
            "A two-player game on the default layout from seed 7, with both seats' views "
            "(`council-ai new-game --players 2 --seed 7 --view 0` prints the first view).",
            {"config": {"players": 2}, "seed": 7, "include_views": True},
        )
    )
    full = start["state"]
    ask(
        "ListLegalActions",
        "opening-described",
        "Seat 0's legal actions in the opening, each with its description.",
        {"state": full, "include_descriptions": True},
    )
    hint = answer(
        ask(
            "RecommendAction",
            "seat0-view",
            "A hint for seat 0 from its own view (the README's example): 2000 iterations, "
            "seed 1, the best candidate only. `stats.elapsed` is normalised.",
            {
                "state": start["views"][0]["state"],
                "limits": {"iterations": 2000},
                "seed": 1,
                "max_candidates": 1,
            },
        )
    )
    acquired = answer(
        ask(
            "ApplyAction",
            "by-id",
            "Seat 0 plays the recommended action, given by its id, on the full state.",
            {"state": full, "action_id": hint["result"]["action"].get("id", 0)},
        )
    )
    listed = answer(
        ask(
            "ListLegalActions",
            "pay-decision",
            "After acquiring a permit tile seat 0 owes its payment: decision pay_permit, one "
            "action per distinct way to pay the council.",
            {"state": acquired["state"]},
        )
    )
    paid = answer(
        ask(
            "ApplyAction",
            "by-text",
            "Seat 0 pays, the action given by its text form.",
            {"state": acquired["state"], "action_text": listed["actions"][0]["text"]},
        )
    )
    ended = answer(
        ask(
            "ApplyAction",
            "by-structured",
            "Seat 0 ends its turn, the action given in structured form; seat 1 draws a card "
            "and is to move. Both seats' views come back too.",
            {
                "state": paid["state"],
                "structured": {"kind": "ACTION_KIND_END_TURN"},
                "include_views": True,
            },
        )
    )
    analysis = answer(
        ask(
            "AnalyzePosition",
            "seat1",
            "Seat 1 analyses its position (a full state: seat 0's hand is discarded before "
            "the search) with 1000 iterations and seed 2. The stream's progress messages "
            "depend on timing and are normalised away; the final message is kept.",
            {
                "state": ended["state"],
                "seat": 1,
                "limits": {"iterations": 1000},
                "seed": 2,
                "max_candidates": 3,
                "report_interval": "60s",
            },
        )
    )
    ask(
        "ApplyAction",
        "view-with-seed",
        "Seat 1 plays the analysis' choice on its own view: the hidden cards (seat 0's hand, "
        "the politics deck) are dealt from the request's seed first, and seat 1's view of "
        "the next state comes back, marked `sampled` (no other hand, deck or rng).",
        {
            "state": ended["views"][1]["state"],
            "action_id": analysis[-1]["result"]["action"].get("id", 0),
            "seed": 5,
        },
    )
    ask(
        "Check",
        "serving",
        "The standard gRPC health service answers for the CouncilService.",
        {"service": COUNCIL_SERVICE.full_name},
        service=HEALTH_SERVICE,
    )

    # -- errors --
    ask(
        "NewGame",
        "error-bad-config",
        "A configuration out of range: INVALID_ARGUMENT naming each field.",
        {"config": {"players": 5, "layout": "ABC"}, "seed": 1},
    )
    broken = copy.deepcopy(full)
    broken["players"][1]["coins"] = 99
    broken["board"]["king_city"] = "Atlantis"
    ask(
        "ListLegalActions",
        "error-bad-position",
        "A position with a coin count above the cap and an unknown city: INVALID_ARGUMENT "
        "with a google.rpc.BadRequest naming every offending field by its request path.",
        {"state": broken},
    )
    ask(
        "ApplyAction",
        "error-illegal-action",
        "Ending the turn before any main action is not legal: INVALID_ARGUMENT on the "
        "action field.",
        {"state": full, "action_text": "end"},
    )
    ask(
        "RecommendAction",
        "error-wrong-seat",
        "Seat 0 asks for a hint while seat 1 is to move: FAILED_PRECONDITION.",
        {"state": ended["state"], "seat": 0, "limits": {"iterations": 100}},
    )

    # -- calls added later, numbered after the errors so that the files above keep theirs --
    ask(
        "GetView",
        "seat1",
        "Seat 1's view of the full state after seat 0's turn, as a front-end sends it to "
        "seat 1's player: seat 0's hand, the politics deck and the rng are absent, the "
        "permit decks' unknown tiles sorted (the same view ApplyAction returned in 08).",
        {"state": ended["state"], "seat": 1},
    )
    ask(
        "RenderPosition",
        "seat1",
        "The same position drawn as SVG for seat 1, as the web page draws its board: seat 1's "
        "view (seat 0's hand shown by its size only), with stable element ids such as "
        "city-Arkon and balcony-king (docs/render.md).",
        {"state": ended["state"], "seat": 1},
    )
    ask(
        "AnalyzeGame",
        "kuhn-poker",
        "The review of a finished Kuhn poker game (a record: start state, moves, result): "
        "each seat's decisions searched from what it knew then, 300 iterations each, seed 4. "
        "The stream: the progress first (0 of 3 decisions), then each decision's analysis "
        "as it completes, last each seat's summary (`final`).",
        {"record": kuhn_poker_record(), "limits": {"iterations": 300}, "seed": 4},
    )
    ask(
        "GetGameRecord",
        "kuhn-poker",
        "The record of a finished sealed game (the Kuhn poker game of 18, seat 1 a bot), as "
        "the page saves it: the game's last blob and seat 0's player ticket. The record "
        "holds every hand, so the server gives it only once the game is over. (The blob was "
        "sealed with the golden server's key at a fixed time, with a fixed game secret and "
        "nonce so that this file stays the same; a real game's are random.)",
        sealed_kuhn_poker_game(),
    )
    ask(
        "TakeBack",
        "kuhn-poker",
        "Seat 0 takes the same sealed game back to after its first move (its pass): the "
        "game as it stood then, as a new blob (its bytes differ every time: shown as "
        "<sealed>) and seat 0's view, and the takebacks counted by seat.",
        {**sealed_kuhn_poker_game(), "to_move": 1},
    )
    return goldens


def kuhn_poker_game():
    """A Kuhn poker game from seed 2 (seat 0 checks, seat 1 bets, seat 0 calls): its start
    state, actions and final state."""
    start = game_named("kuhn-poker").new_game(seed=2)
    state, actions = start.clone(), []
    for text in ("pass", "bet", "call"):
        actions.append(state.action_from_text(text))
        state.apply(actions[-1])
    return start, actions, state


def kuhn_poker_record() -> dict:
    """The record of `kuhn_poker_game`, as JSON."""
    start, actions, _ = kuhn_poker_game()
    return to_dict(record_of(start, actions))


def sealed_kuhn_poker_game() -> dict:
    """GetGameRecord's request for `kuhn_poker_game` played sealed, seat 1 a casual bot:
    the last blob, as the server seals it but with a fixed secret, time and nonce (the
    same bytes every run), and seat 0's player ticket, as JSON."""
    start, actions, end = kuhn_poker_game()
    secret = b"s" * sealing.SECRET_BYTES
    history = spb.SealedContent(start=state_to_proto(start), actions=actions)
    history.players.add(seat=0, name="player")
    history.players.add(seat=1, name="bot (casual)", agent="ismcts:iterations=200")
    with mock.patch.object(sealing.os, "urandom", lambda n: bytes(n)):  # the nonce
        blob = SEAL_KEYS.seal(state_to_proto(end), secret, now=1_800_000_000, history=history)
    ticket = sealing.mint_ticket(secret, 0, spb.SEAT_ROLE_PLAYER)
    return {"sealed": {"blob": base64.b64encode(blob).decode(), "ticket": ticket}}


# -- running it ----------------------------------------------------------------------------


def record_all(config: ServerConfig = SERVER_CONFIG) -> list[Golden]:
    """Start a server in-process, play the playthrough against it, stop it."""
    running = start_server(config)
    try:
        with grpc.insecure_channel(running.address) as channel:
            grpc.channel_ready_future(channel).result(timeout=10)
            return playthrough(channel)
    finally:
        running.stop(grace=None)


def path_of(golden: Golden) -> Path:
    return GOLDEN_DIR / f"{golden.name}.json"


def main(argv: list[str], record: Callable[[], list[Golden]] = record_all) -> int:
    check = "--check" in argv
    goldens = record()
    expected = {path_of(g).name for g in goldens}
    stale = sorted(p for p in GOLDEN_DIR.glob("*.json") if p.name not in expected)
    differ = 0
    GOLDEN_DIR.mkdir(exist_ok=True)
    for golden in goldens:
        path, text = path_of(golden), golden.text()
        old = path.read_text() if path.exists() else None
        if check:
            if old != text:
                differ += 1
                print(f"differs: {path}")
            continue
        path.write_text(text)
        status = "unchanged" if old == text else "written"
        print(f"{status}: {path} ({len(text.encode())} bytes)")
    for path in stale:
        if check:
            differ += 1
            print(f"not written by this script: {path}")
        else:
            path.unlink()
            print(f"removed: {path}")
    if check and not differ:
        print(f"all {len(goldens)} golden files match")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
