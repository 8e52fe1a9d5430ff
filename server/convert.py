"""Conversions between the council.v1 messages and the engine's values.

A ``GameState`` message mirrors the engine's JSON form (``docs/state-json.md``); it is
turned into that JSON object (absent message fields and absent optional config fields
left out, so the engine reports them as missing) and validated there. The engine's
violation paths are mapped back onto the proto field paths of the request.
"""

from __future__ import annotations

import dataclasses
import re
from importlib import metadata

from google.protobuf import duration_pb2

from council.engine import GameConfig, State, serialize
from council.engine.actions import NUM_ACTIONS, ActionKind
from council.engine.actions import Action as EngineAction
from council.engine.board import LAYOUT_CODES
from council.engine.serialize import CARD_KINDS, COLOURS, CONFIG_FIELDS, FORMAT, REGIONS
from council.server import presets
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

__all__ = [
    "ACTION_KIND_TO_PROTO",
    "RULE_VARIANTS",
    "action_from_proto",
    "action_proto",
    "add_views",
    "config_to_json",
    "duration",
    "engine_info_proto",
    "map_violation_path",
    "search_result_proto",
    "state_json_from_proto",
    "state_proto_from_json",
]

# -- GameState message -> engine JSON ------------------------------------------------------

_BALCONIES = REGIONS + ("king",)


def config_to_json(msg: pb.GameConfig) -> dict:
    """The config fields that are set (absent ones left out)."""
    return {f: getattr(msg, f) for f in CONFIG_FIELDS if msg.HasField(f)}


def _cards(msg: pb.CardCounts) -> dict:
    return {k: getattr(msg, k) for k in CARD_KINDS}


def _board_json(b: pb.Board) -> dict:
    d: dict = {"king_city": b.king_city, "city_tokens": dict(b.city_tokens)}
    if b.HasField("balconies"):
        bal = b.balconies
        d["balconies"] = {b: list(getattr(bal, b)) for b in _BALCONIES}
    if b.HasField("pool"):
        d["pool"] = {k: getattr(b.pool, k) for k in COLOURS}
    if b.HasField("permit_decks"):
        decks = {}
        for region in REGIONS:
            if b.permit_decks.HasField(region):
                deck = getattr(b.permit_decks, region)
                decks[region] = {
                    "unknown": list(deck.unknown),
                    "known_bottom": list(deck.known_bottom),
                }
        d["permit_decks"] = decks
    if b.HasField("face_up"):
        face = {}
        for region in REGIONS:
            if b.face_up.HasField(region):
                s = getattr(b.face_up, region)
                face[region] = [
                    s.slot0 if s.HasField("slot0") else None,
                    s.slot1 if s.HasField("slot1") else None,
                ]
        d["face_up"] = face
    d["politics_deck"] = _cards(b.politics_deck) if b.HasField("politics_deck") else None
    d["politics_deck_size"] = b.politics_deck_size
    if b.HasField("discard"):
        d["discard"] = _cards(b.discard)
    d["bonus_tiles_left"] = list(b.bonus_tiles_left)
    d["king_tiles_taken"] = b.king_tiles_taken
    d["neutral_emporiums"] = list(b.neutral_emporiums)
    return d


def _player_json(p: pb.Player) -> dict:
    return {
        "coins": p.coins,
        "assistants": p.assistants,
        "vp": p.vp,
        "nobility": p.nobility,
        "hand": _cards(p.hand) if p.HasField("hand") else None,
        "hand_size": p.hand_size,
        "emporiums": list(p.emporiums),
        "permits_face_up": list(p.permits_face_up),
        "permits_face_down": list(p.permits_face_down),
        "bonus_tiles": list(p.bonus_tiles),
        "king_tiles": list(p.king_tiles),
    }


def _pending_json(p: pb.PendingDecision) -> dict:
    which = p.WhichOneof("arg")
    if which == "permit":
        arg: object = {"region": p.permit.region, "slot": p.permit.slot}
    elif which == "city":
        arg = p.city
    else:
        arg = None
    return {"kind": p.kind, "arg": arg}


def _turn_json(t: pb.Turn) -> dict:
    return {
        "current": t.current,
        "number": t.number,
        "action_count": t.action_count,
        "main_left": t.main_left,
        "main_done": t.main_done,
        "quick_used": t.quick_used,
        "end_trigger": t.end_trigger if t.HasField("end_trigger") else None,
        "game_over": t.game_over,
        "pending": [_pending_json(p) for p in t.pending],
    }


def state_json_from_proto(msg: pb.GameState) -> dict:
    """The engine JSON object of a GameState message (not validated)."""
    d: dict = {"format": msg.format or FORMAT}
    if msg.HasField("config"):
        d["config"] = config_to_json(msg.config)
    d["rng"] = str(msg.rng) if msg.HasField("rng") else None
    d["viewer"] = msg.viewer if msg.HasField("viewer") else None
    if msg.HasField("board"):
        d["board"] = _board_json(msg.board)
    d["players"] = [_player_json(p) for p in msg.players]
    if msg.HasField("turn"):
        d["turn"] = _turn_json(msg.turn)
    return d


# -- engine JSON -> GameState message ------------------------------------------------------


def _fill_cards(msg: pb.CardCounts, cards: dict) -> None:
    for k in CARD_KINDS:
        setattr(msg, k, cards[k])


def state_proto_from_json(obj: dict) -> pb.GameState:
    """The GameState message of a (valid) engine JSON object."""
    m = pb.GameState(format=obj["format"])
    for f in CONFIG_FIELDS:
        setattr(m.config, f, obj["config"][f])
    if obj["rng"] is not None:
        m.rng = int(obj["rng"])
    if obj["viewer"] is not None:
        m.viewer = obj["viewer"]
    b, mb = obj["board"], m.board
    mb.king_city = b["king_city"]
    mb.city_tokens.update(b["city_tokens"])
    for name in _BALCONIES:
        getattr(mb.balconies, name).extend(b["balconies"][name])
    for k in COLOURS:
        setattr(mb.pool, k, b["pool"][k])
    for region in REGIONS:
        deck = getattr(mb.permit_decks, region)
        deck.unknown.extend(b["permit_decks"][region]["unknown"])
        deck.known_bottom.extend(b["permit_decks"][region]["known_bottom"])
        deck.SetInParent()
        slots = getattr(mb.face_up, region)
        slots.SetInParent()
        s0, s1 = b["face_up"][region]
        if s0 is not None:
            slots.slot0 = s0
        if s1 is not None:
            slots.slot1 = s1
    if b["politics_deck"] is not None:
        _fill_cards(mb.politics_deck, b["politics_deck"])
    mb.politics_deck_size = b["politics_deck_size"]
    _fill_cards(mb.discard, b["discard"])
    mb.bonus_tiles_left.extend(b["bonus_tiles_left"])
    mb.king_tiles_taken = b["king_tiles_taken"]
    mb.neutral_emporiums.extend(b["neutral_emporiums"])
    for p in obj["players"]:
        mp = m.players.add()
        mp.coins, mp.assistants = p["coins"], p["assistants"]
        mp.vp, mp.nobility = p["vp"], p["nobility"]
        if p["hand"] is not None:
            _fill_cards(mp.hand, p["hand"])
        mp.hand_size = p["hand_size"]
        mp.emporiums.extend(p["emporiums"])
        mp.permits_face_up.extend(p["permits_face_up"])
        mp.permits_face_down.extend(p["permits_face_down"])
        mp.bonus_tiles.extend(p["bonus_tiles"])
        mp.king_tiles.extend(p["king_tiles"])
    t, mt = obj["turn"], m.turn
    mt.current, mt.number, mt.action_count = t["current"], t["number"], t["action_count"]
    mt.main_left, mt.main_done, mt.quick_used = t["main_left"], t["main_done"], t["quick_used"]
    if t["end_trigger"] is not None:
        mt.end_trigger = t["end_trigger"]
    mt.game_over = t["game_over"]
    for entry in t["pending"]:
        mp = mt.pending.add(kind=entry["kind"])
        arg = entry["arg"]
        if isinstance(arg, dict):
            mp.permit.region, mp.permit.slot = arg["region"], arg["slot"]
        elif isinstance(arg, str):
            mp.city = arg
    return m


# -- violation paths -----------------------------------------------------------------------

_FACE_UP = re.compile(r"^board\.face_up\.(\w+)\[([01])\]")
_PENDING_ARG = re.compile(r"^turn\.pending\[(\d+)\]\.arg")
_ARG_BY_KIND = {"pay_permit": "permit", "pay_king": "city", "second_of_two_city_tokens": "city"}


def map_violation_path(path: str, msg: pb.GameState, prefix: str = "state") -> str:
    """The proto field path (under `prefix`) of an engine JSON violation path."""
    if path in ("", "(root)"):
        return prefix
    m = _FACE_UP.match(path)
    if m:
        path = f"board.face_up.{m.group(1)}.slot{m.group(2)}{path[m.end() :]}"
    m = _PENDING_ARG.match(path)
    if m:
        i = int(m.group(1))
        field = None
        if i < len(msg.turn.pending):
            entry = msg.turn.pending[i]
            field = entry.WhichOneof("arg") or _ARG_BY_KIND.get(entry.kind)
        rest = path[m.end() :]
        path = f"turn.pending[{i}]" + (f".{field}" if field else "") + rest
    return f"{prefix}.{path}"


# -- actions -------------------------------------------------------------------------------

ACTION_KIND_TO_PROTO = {
    kind: pb.ActionKind.Value(f"ACTION_KIND_{kind.name}") for kind in ActionKind
}
ACTION_KIND_FROM_PROTO = {v: k for k, v in ACTION_KIND_TO_PROTO.items()}
_ACTION_FIELDS = ("balcony", "colour", "region", "slot", "tile", "position", "city", "payment")


def _build_action_proto(a: EngineAction) -> pb.Action:
    m = pb.Action(id=a.id, text=a.to_text(), kind=ACTION_KIND_TO_PROTO[a.kind])
    for f in _ACTION_FIELDS:
        v = getattr(a, f)
        if v is not None:
            setattr(m, f, v)
    if a.cards is not None:
        m.cards.CopyFrom(pb.CardCounts(**dict(zip(CARD_KINDS, a.cards, strict=True))))
    return m


_ACTION_PROTOS: tuple[pb.Action, ...] = tuple(
    _build_action_proto(EngineAction.from_id(i)) for i in range(NUM_ACTIONS)
)


def action_proto(action_id: int) -> pb.Action:
    """The (shared, read-only) Action message of an id: copy it into a response field."""
    return _ACTION_PROTOS[action_id]


def action_from_proto(msg: pb.Action) -> EngineAction:
    """The engine Action of a structured Action message (kind and its fields; id, text and
    cards ignored). ValueError if it is not a valid action."""
    if msg.kind not in ACTION_KIND_FROM_PROTO:
        raise ValueError("kind: must be set to an action kind")
    fields = {f: getattr(msg, f) for f in _ACTION_FIELDS if msg.HasField(f)}
    return EngineAction(ACTION_KIND_FROM_PROTO[msg.kind], **fields)


# -- search results and engine info --------------------------------------------------------


def duration(seconds: float) -> duration_pb2.Duration:
    """The Duration message of a number of seconds (to the nearest nanosecond)."""
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def search_result_proto(
    result,
    *,
    seat: int,
    max_candidates: int,
    iteration_budget: int | None,
    time_budget_s: float,
    stop_reason: int,
) -> pb.SearchResult:
    """The SearchResult message of a ``council.mcts.search.SearchResult``: its action, its
    first `max_candidates` candidates (0: all), principal variation and stats."""
    out = pb.SearchResult(seed=result.seed, seat=seat)
    out.action.CopyFrom(action_proto(result.action))
    candidates = result.candidates[:max_candidates] if max_candidates else result.candidates
    for c in candidates:
        m = out.candidates.add(
            visits=c.visits,
            mean_reward=c.mean_reward,
            win_probability=c.win_probability,
            vp_margin=c.vp_margin,
        )
        m.action.CopyFrom(action_proto(c.action))
    for a in result.principal_variation:
        out.principal_variation.add().CopyFrom(action_proto(a))
    stats = out.stats
    stats.iterations = result.iterations
    stats.elapsed.CopyFrom(duration(result.elapsed_s))
    stats.tree_nodes = result.tree_nodes
    stats.stop_reason = stop_reason
    stats.iteration_budget = iteration_budget or 0
    stats.time_budget.CopyFrom(duration(time_budget_s))
    return out


def add_views(field, state: State) -> None:
    """Append every seat's view of the full `state` to a repeated SeatView field."""
    for seat in range(state.n_players):
        view = state.view(seat)
        field.add(seat=seat, state=state_proto_from_json(serialize.state_to_json(view)))


# What a GameConfig can change besides the player count: every other field of the engine's
# config, so that a new rule variant is listed without being named here.
RULE_VARIANTS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(GameConfig) if f.name != "players"
)


def engine_info_proto(
    *, max_iterations: int, max_search_time_s: float, search_slots: int
) -> spb.GetEngineInfoResponse:
    """The GetEngineInfo answer: the engine's facts and the server's search limits."""
    try:
        version = metadata.version("council-ai")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        version = "unknown"
    response = spb.GetEngineInfoResponse(
        version=version,
        state_format=FORMAT,
        layouts=list(LAYOUT_CODES),
        rule_variants=list(RULE_VARIANTS),
        num_actions=NUM_ACTIONS,
        max_iterations=max_iterations,
        search_slots=search_slots,
    )
    for name, value in GameConfig().to_dict().items():
        setattr(response.default_config, name, value)
    for kind in sorted(ActionKind, key=lambda k: k.offset):
        response.action_ranges.add(
            kind=ACTION_KIND_TO_PROTO[kind], offset=kind.offset, size=kind.size
        )
    for p in presets.PRESETS:
        info = response.presets.add(
            preset=p.value, name=p.name, iterations=p.iterations or 0, description=p.description
        )
        if p.time_s is not None:
            info.max_time.CopyFrom(duration(min(p.time_s, max_search_time_s)))
    response.max_search_time.CopyFrom(duration(max_search_time_s))
    return response
