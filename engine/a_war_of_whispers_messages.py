"""A War of Whispers' messages: a position as a ``council.v1.GameState`` (its
``a_war_of_whispers`` part, ``AWarOfWhispersPosition`` of ``council/v1/a_war_of_whispers.proto``,
and its options naming the content by id and digest), its consistency problems, and its
actions as ``council.v1.Action`` messages.

Regions, cards, empires, seats and loyalty tokens go by name. The reader refuses a position
made on other content than the one the core holds (its id or digest differ: a stale file), and
checks the position whole (the state's ``problems()``). ``read(write(state))`` equals
``state`` for full states and views alike.

>>> from council.engine._a_war_of_whispers import AWarOfWhispersState
>>> state = AWarOfWhispersState.new_game(3, seed=2)
>>> msg = write(state.view(1))
>>> msg.config.a_war_of_whispers.content_id, msg.a_war_of_whispers.phase
('council-ai-original-1', 'deploy')
>>> list(msg.a_war_of_whispers.players[0].loyalty)
['', '', '', '', '']
>>> read(msg) == (state.view(1), [])
True
>>> msg.config.a_war_of_whispers.content_digest = "0" * 64
>>> read(msg)[1][0][0]
'config.a_war_of_whispers.content_digest'
"""

from __future__ import annotations

from typing import Any

from council.engine._a_war_of_whispers import (
    ACTION_OFFSETS,
    BANNERS_PER_EMPIRE,
    LOCATIONS,
    LOYALTY_PAIRS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    OPERATION_NAMES,
    PHASES,
    STEPS,
    AWarOfWhispersState,
    current_content,
)
from council.engine.a_war_of_whispers_content import EMPIRES, SEATS
from council.engine.members import others_fields
from council.engine.position import StructuredActionError
from council.v1 import game_pb2 as pb

__all__ = [
    "ACTION_KINDS",
    "ACTION_RANGES",
    "FORMAT",
    "LOYALTY_NAMES",
    "action_from_proto",
    "action_to_proto",
    "describe",
    "problems",
    "public_action_proto",
    "read",
    "write",
]

FORMAT = "a-war-of-whispers/1"
Problems = list[tuple[str, str]]
PART = "a_war_of_whispers"
# The loyalty tokens by slot (LOYALTY_VALUES: x4, x3, x2, x0, x-1).
LOYALTY_NAMES = ("devout", "dutiful", "affiliated", "unallied", "opposed")
N_EMPIRES = len(EMPIRES)
N_SEATS = len(SEATS)
MAX_CARDS = 40  # AW_MAX_CARDS: the struct's card places
MAP_AGENTS = 2
BANNERS = BANNERS_PER_EMPIRE

# Its kinds in id order, with each kind's first id (ACTION_OFFSETS) and count.
_KINDS = (
    ("deploy", pb.ACTION_KIND_DEPLOY),
    ("retrieve", pb.ACTION_KIND_RETRIEVE),
    ("option", pb.ACTION_KIND_OPTION),
    ("region", pb.ACTION_KIND_REGION),
    ("count", pb.ACTION_KIND_COUNT),
    ("seat", pb.ACTION_KIND_SEAT),
    ("play", pb.ACTION_KIND_PLAY_CARD),
    ("pay", pb.ACTION_KIND_PAY_CARD),
    ("discard", pb.ACTION_KIND_DISCARD),
    ("loyalty", pb.ACTION_KIND_SWAP_LOYALTY),
    ("done", pb.ACTION_KIND_DONE),
    ("deploy_map", pb.ACTION_KIND_DEPLOY_MAP),
)
_ENDS = [ACTION_OFFSETS[name] for name, _ in _KINDS[1:]] + [NUM_ACTIONS]
ACTION_RANGES = [
    (kind, ACTION_OFFSETS[name], end - ACTION_OFFSETS[name])
    for (name, kind), end in zip(_KINDS, _ENDS, strict=True)
]
ACTION_KINDS: tuple[pb.ActionKind, ...] = tuple(
    kind for kind, first, n in ACTION_RANGES for _ in range(first, first + n)
)
assert len(ACTION_KINDS) == NUM_ACTIONS
_NAME_OF_KIND: dict[int, str] = {kind: name for name, kind in _KINDS}
_MAX_ABILITIES = 3  # WA_PLAY + card * 3 + ability


# ---------------------------------------------------------------------------------------
# The writer.


def _region_name(r: int) -> str:
    return "" if r < 0 else current_content().regions[r].name


def _card_name(c: int) -> str:
    return "" if c < 0 else current_content().cards[c].name


def write(state: AWarOfWhispersState) -> pb.GameState:
    """The GameState message of a position (a full state or a view), on the content the
    core holds (ValueError if the position names other content)."""
    state._check_content()
    content = current_content()
    raw = state.to_raw()
    n = state.n_players
    msg = pb.GameState(format=FORMAT)
    msg.config.game = pb.GAME_A_WAR_OF_WHISPERS
    msg.config.players = n
    options = msg.config.a_war_of_whispers
    options.content_id = content.id
    options.content_digest = content.digest
    options.agents_on_map = bool(raw["agents_on_map"])
    if state.is_view:
        msg.viewer = state.viewer
    else:
        msg.rng = raw["rng"]
    aw = msg.a_war_of_whispers
    aw.phase = PHASES[raw["phase"]]
    aw.round = raw["round"]
    aw.first_player = raw["first_player"]
    if raw["current"] >= 0:
        aw.current = raw["current"]
    aw.players_done = raw["turn_i"]
    aw.agents_placed = raw["deploy_i"]
    aw.agents.extend(raw["agent"])
    aw.action_count = raw["action_count"]
    for r, region in enumerate(content.regions):
        owner = raw["owner"][r]
        aw.regions.add(
            name=region.name, empire=EMPIRES[owner] if owner >= 0 else "", banners=raw["banners"][r]
        )
    for p in range(n):
        player = aw.players.add()
        player.loyalty.extend(LOYALTY_NAMES[s] if s >= 0 else "" for s in raw["loyalty"][p])
        player.revealed.extend(bool(x) for x in raw["revealed"][p])
        player.hand.extend(
            card.name
            for c, card in enumerate(content.cards)
            if raw["card_loc"][c] == LOCATIONS["hand"] + p
        )
        player.hand_counts.extend(raw["hand_count"][p])
        player.swaps = raw["swaps"][p]
        player.score = raw["score"][p]
        player.map_agents.extend(_region_name(r) for r in raw["map_agent"][p] if r >= 0)
    turn = aw.turn
    turn.step = STEPS[raw["step"]]
    turn.empire = EMPIRES[raw["empire"]] if raw["empire"] < N_EMPIRES else ""
    turn.seat = SEATS[raw["seat"]]
    turn.acting_seat = SEATS[raw["acting_seat"]]
    turn.actor = raw["actor"]
    turn.followup = bool(raw["followup"])
    turn.seats_done.extend(SEATS[k] for k in range(N_SEATS) if raw["seats_done"] >> k & 1)
    turn.return_step = STEPS[raw["return_step"]]
    for j in range(raw["op_n"]):
        turn.operations.add(
            op=OPERATION_NAMES[raw["op_kind"][j]],
            amount=raw["op_amount"][j],
            empire=EMPIRES[raw["op_empire"][j]],
        )
    turn.operations_started = raw["op_i"]
    turn.operation = OPERATION_NAMES[raw["cur_op"]]
    turn.operation_empire = EMPIRES[raw["cur_empire"]]
    turn.left = raw["left"]
    turn.from_region = _region_name(raw["from_region"])
    turn.to_region = _region_name(raw["to_region"])
    turn.paying_card = _card_name(raw["paying_card"])
    turn.paying_ability = raw["paying_ability"]
    turn.owed.extend(raw["owed"])
    return msg


# ---------------------------------------------------------------------------------------
# The reader.


class _Names:
    """Reads names into indices, noting an unknown one at its path."""

    def __init__(self, found: Problems):
        self.found = found

    def index(
        self, path: str, name: str, names: tuple[str, ...] | list[str], *, empty: int | None = None
    ) -> int:
        if name == "" and empty is not None:
            return empty
        if name not in names:
            shown = ", ".join(names) if len(names) <= 12 else f"one of the {len(names)} names"
            self.found.append((path, f"unknown name {name!r}; {shown}"))
            return 0 if empty is None else empty
        return list(names).index(name)

    def length(self, path: str, values: Any, want: int) -> bool:
        if len(values) != want:
            self.found.append((path, f"must hold {want} entries, got {len(values)}"))
            return False
        return True


def _shared_problems(msg: pb.GameState) -> Problems:
    """The format, the seat count, the options naming the content the core holds, the
    member, the viewer and the rng."""
    found: Problems = []
    bad = found.append
    if msg.format not in ("", FORMAT):
        bad(("format", f"must be {FORMAT!r} for A War of Whispers, got {msg.format!r}"))
    if not msg.config.HasField("players"):
        bad(("config.players", "required field is missing"))
    elif not MIN_PLAYERS <= msg.config.players <= MAX_PLAYERS:
        bad(
            (
                "config.players",
                f"A War of Whispers seats {MIN_PLAYERS} to {MAX_PLAYERS}, got {msg.config.players}",
            )
        )
    found += content_problems(msg.config.a_war_of_whispers, f"config.{PART}", required=True)
    if not msg.HasField(PART):
        bad((PART, "required field is missing"))
    if msg.HasField("viewer"):
        if not 0 <= msg.viewer < max(msg.config.players, 1):
            bad(("viewer", f"must be in 0..{msg.config.players - 1}, got {msg.viewer}"))
        if msg.HasField("rng"):
            bad(("rng", "must be absent in a view (a view carries no chance state)"))
    elif not msg.HasField("rng"):
        bad(("rng", "required in a full state (viewer is absent)"))
    return found


def content_problems(options: Any, path: str, *, required: bool) -> Problems:
    """An options message's content id and digest against the content the core holds: a
    position or a game on other content is refused (`required`: both must be given)."""
    content = current_content()
    found: Problems = []
    for field, want in (("content_id", content.id), ("content_digest", content.digest)):
        if not options.HasField(field):
            if required:
                found.append((f"{path}.{field}", "required field is missing"))
            continue
        given = getattr(options, field)
        if given != want:
            what = "id" if field == "content_id" else "digest"
            found.append(
                (
                    f"{path}.{field}",
                    f"made on other content (or a changed file): the "
                    f"engine plays {content.id!r}, its {what} {want}",
                )
            )
    return found


def read(msg: pb.GameState) -> tuple[AWarOfWhispersState | None, Problems]:
    """The position of a GameState whose config.game is GAME_A_WAR_OF_WHISPERS, and the
    problems found: a state exactly when there are none. Paths are the message's
    (``a_war_of_whispers.regions[3].empire``)."""
    found = _shared_problems(msg)
    if found:
        return None, found
    raw = _raw(msg, found)
    if found:
        return None, found
    try:
        state = AWarOfWhispersState.from_raw(raw)
    except (ValueError, TypeError, OverflowError) as e:  # a number past its field's range
        member = str(e).split(":")[1].strip() if str(e).count(":") >= 2 else ""
        path = _MESSAGE_PATHS.get(member, member)
        return None, [(f"{PART}.{path}" if path else PART, str(e))]
    found += problems(state)
    return (None, found) if found else (state, [])


# The struct's members whose message field has another name (the rest: the same name).
_MESSAGE_PATHS = {
    "turn_i": "players_done",
    "deploy_i": "agents_placed",
    "agent": "agents",
    "banners": "regions",
    "hand_count": "players",
    "swaps": "players",
    "score": "players",
    **{f: f"turn.{f}" for f in ("actor", "left", "paying_ability", "owed")},
    "op_i": "turn.operations_started",
    "op_amount": "turn.operations",
}


def _raw(msg: pb.GameState, found: Problems) -> dict[str, Any]:
    """The struct's fields from the message (problems noted in `found`)."""
    content = current_content()
    names = _Names(found)
    aw = msg.a_war_of_whispers
    n = msg.config.players
    viewer = msg.viewer if msg.HasField("viewer") else -1
    region_names = [r.name for r in content.regions]
    card_names = [c.name for c in content.cards]
    n_regions, n_cards = len(region_names), len(card_names)
    raw: dict[str, Any] = dict.fromkeys(AWarOfWhispersState.new_game(2).to_raw(), 0)
    raw["rng"] = msg.rng if viewer < 0 else 0
    raw["content_tag"] = int(content.digest[:16], 16)
    raw["action_count"] = aw.action_count
    raw["n_players"] = n
    raw["agents_on_map"] = int(msg.config.a_war_of_whispers.agents_on_map)
    raw["viewer"] = viewer
    raw["phase"] = names.index(f"{PART}.phase", aw.phase, PHASES)
    raw["current"] = aw.current if aw.HasField("current") else -1
    raw["round"] = aw.round
    raw["first_player"] = aw.first_player
    raw["turn_i"] = aw.players_done
    raw["deploy_i"] = aw.agents_placed
    if names.length(f"{PART}.agents", aw.agents, N_EMPIRES * N_SEATS):
        raw["agent"] = list(aw.agents)
    owner, banners = [-1] * 32, [0] * 32
    if names.length(f"{PART}.regions", aw.regions, n_regions):
        for r, region in enumerate(aw.regions):
            path = f"{PART}.regions[{r}]"
            if region.name != region_names[r]:
                found.append(
                    (
                        f"{path}.name",
                        f"must be {region_names[r]!r} (the content's "
                        f"region {r}), got {region.name!r}",
                    )
                )
            owner[r] = names.index(f"{path}.empire", region.empire, EMPIRES, empty=-1)
            banners[r] = region.banners
    raw["owner"], raw["banners"] = owner, banners
    # The supply is what the map leaves of each empire's banners.
    raw["supply"] = [
        BANNERS - sum(b for o, b in zip(owner, banners, strict=True) if o == e)
        for e in range(N_EMPIRES)
    ]
    for e, left in enumerate(raw["supply"]):
        if left < 0:
            found.append(
                (
                    f"{PART}.regions",
                    f"{EMPIRES[e]} has {BANNERS - left} banners on "
                    f"the map, more than its {BANNERS}",
                )
            )
    raw["card_loc"] = [
        (LOCATIONS["deck"] if viewer < 0 else LOCATIONS["unknown"])
        if c < n_cards
        else LOCATIONS["absent"]
        for c in range(MAX_CARDS)
    ]
    zeros = [[0] * N_EMPIRES for _ in range(MAX_PLAYERS)]
    raw["hand_count"] = [row[:] for row in zeros]
    raw["loyalty"] = [row[:] for row in zeros]
    raw["revealed"] = [row[:] for row in zeros]
    raw["swaps"], raw["score"] = [0] * MAX_PLAYERS, [0] * MAX_PLAYERS
    raw["map_agent"] = [[-1] * MAP_AGENTS for _ in range(MAX_PLAYERS)]
    if names.length(f"{PART}.players", aw.players, n):
        for p, player in enumerate(aw.players):
            _read_player(p, player, raw, names, region_names, card_names, viewer)
    _read_turn(aw.turn, raw, names, region_names, card_names)
    return raw


def _read_player(
    p: int,
    player: Any,
    raw: dict[str, Any],
    names: _Names,
    region_names: list[str],
    card_names: list[str],
    viewer: int,
) -> None:
    path = f"{PART}.players[{p}]"
    if names.length(f"{path}.loyalty", player.loyalty, N_EMPIRES):
        raw["loyalty"][p] = [
            names.index(f"{path}.loyalty[{e}]", t, LOYALTY_NAMES, empty=-1)
            for e, t in enumerate(player.loyalty)
        ]
    if names.length(f"{path}.revealed", player.revealed, N_EMPIRES):
        raw["revealed"][p] = [int(x) for x in player.revealed]
    if names.length(f"{path}.hand_counts", player.hand_counts, N_EMPIRES):
        raw["hand_count"][p] = list(player.hand_counts)
    if viewer >= 0 and viewer != p and player.hand:
        names.found.append((f"{path}.hand", "must be empty in a view: another player's hand"))
    for i, name in enumerate(player.hand):
        c = names.index(f"{path}.hand[{i}]", name, card_names)
        raw["card_loc"][c] = LOCATIONS["hand"] + p
    raw["swaps"][p] = player.swaps
    raw["score"][p] = player.score
    if len(player.map_agents) > MAP_AGENTS:
        names.found.append((f"{path}.map_agents", f"at most {MAP_AGENTS} agents on the map"))
    for i, name in enumerate(player.map_agents[:MAP_AGENTS]):
        raw["map_agent"][p][i] = names.index(f"{path}.map_agents[{i}]", name, region_names)


def _read_turn(
    turn: Any, raw: dict[str, Any], names: _Names, region_names: list[str], card_names: list[str]
) -> None:
    path = f"{PART}.turn"
    raw["step"] = names.index(f"{path}.step", turn.step, STEPS)
    raw["empire"] = names.index(f"{path}.empire", turn.empire, EMPIRES, empty=N_EMPIRES)
    raw["seat"] = names.index(f"{path}.seat", turn.seat, SEATS)
    raw["acting_seat"] = names.index(f"{path}.acting_seat", turn.acting_seat, SEATS)
    raw["actor"] = turn.actor
    raw["followup"] = int(turn.followup)
    raw["seats_done"] = sum(
        1 << names.index(f"{path}.seats_done[{i}]", s, SEATS) for i, s in enumerate(turn.seats_done)
    )
    raw["return_step"] = names.index(f"{path}.return_step", turn.return_step, STEPS)
    ops = list(turn.operations)
    if len(ops) > 3:
        names.found.append((f"{path}.operations", f"at most 3 operations, got {len(ops)}"))
        ops = ops[:3]
    raw["op_n"] = len(ops)
    raw["op_i"] = turn.operations_started
    raw["op_kind"] = [0, 0, 0]
    raw["op_amount"] = [0, 0, 0]
    raw["op_empire"] = [0, 0, 0]
    for j, op in enumerate(ops):
        raw["op_kind"][j] = names.index(f"{path}.operations[{j}].op", op.op, OPERATION_NAMES)
        raw["op_amount"][j] = op.amount
        raw["op_empire"][j] = names.index(f"{path}.operations[{j}].empire", op.empire, EMPIRES)
    raw["cur_op"] = names.index(f"{path}.operation", turn.operation, OPERATION_NAMES, empty=0)
    raw["cur_empire"] = names.index(
        f"{path}.operation_empire", turn.operation_empire, EMPIRES, empty=0
    )
    raw["left"] = turn.left
    raw["from_region"] = names.index(
        f"{path}.from_region", turn.from_region, region_names, empty=-1
    )
    raw["to_region"] = names.index(f"{path}.to_region", turn.to_region, region_names, empty=-1)
    raw["paying_card"] = names.index(f"{path}.paying_card", turn.paying_card, card_names, empty=-1)
    raw["paying_ability"] = turn.paying_ability
    if names.length(f"{path}.owed", turn.owed, N_EMPIRES):
        raw["owed"] = list(turn.owed)
    else:
        raw["owed"] = [0] * N_EMPIRES


def problems(state: AWarOfWhispersState) -> Problems:
    """Every consistency problem of a position as ``(field path, problem)``: the state's
    own checks (its ``problems()``), named by the struct's fields."""
    return [(f"{PART}.{field}", problem) for field, problem in state.problems()]


# ---------------------------------------------------------------------------------------
# The action codec.


def _kind_range(kind: int) -> tuple[int, int]:
    (first, n) = next((f, n) for k, f, n in ACTION_RANGES if k == kind)
    return first, n


def action_to_proto(state: AWarOfWhispersState, action_id: int) -> pb.Action:
    """The Action message of an action: its kind, text and structured fields."""
    kind = ACTION_KINDS[action_id]
    first, _ = _kind_range(kind)
    i = action_id - first
    msg = pb.Action(id=action_id, text=state.action_to_text(action_id), kind=kind)
    fields = msg.a_war_of_whispers
    name = _NAME_OF_KIND[kind]
    content = current_content()
    if name in ("deploy", "retrieve"):
        fields.empire, fields.seat = EMPIRES[i // N_SEATS], SEATS[i % N_SEATS]
    elif name == "option":
        fields.option = i
    elif name in ("region", "deploy_map"):
        fields.region = content.regions[i].name if i < len(content.regions) else str(i)
    elif name == "count":
        fields.count = i + 1
    elif name == "seat":
        fields.seat = SEATS[i]
    elif name == "play":
        c, a = divmod(i, _MAX_ABILITIES)
        fields.card, fields.ability = _card_name(c), a
    elif name in ("pay", "discard"):
        fields.card = _card_name(i)
    elif name == "loyalty":
        a, b = LOYALTY_PAIRS[i]
        fields.empires.extend([EMPIRES[a], EMPIRES[b]])
    else:  # done: nothing beyond its kind
        msg.ClearField("structured")
    return msg


_TAKES = {
    "deploy": {"empire", "seat"},
    "retrieve": {"empire", "seat"},
    "option": {"option"},
    "region": {"region"},
    "deploy_map": {"region"},
    "count": {"count"},
    "seat": {"seat"},
    "play": {"card", "ability"},
    "pay": {"card"},
    "discard": {"card"},
    "loyalty": {"empires"},
    "done": set(),
}


def action_from_proto(state: AWarOfWhispersState, msg: pb.Action) -> int:
    """The action id of a structured Action message: its kind and the fields that kind takes
    (StructuredActionError naming the fields otherwise)."""
    if msg.kind not in _NAME_OF_KIND:
        kinds = ", ".join(pb.ActionKind.Name(k) for _, k in _KINDS)
        raise StructuredActionError([("kind", f"must be one of A War of Whispers' kinds: {kinds}")])
    name = _NAME_OF_KIND[msg.kind]
    kind_name = pb.ActionKind.Name(msg.kind)
    stray = others_fields(msg, PART)
    fields = msg.a_war_of_whispers
    given = {f.name for f, _ in fields.ListFields()}
    stray += [f"{PART}.{f}" for f in sorted(given - _TAKES[name])]
    missing = [f"{PART}.{f}" for f in sorted(_TAKES[name] - given)]
    if stray or missing:
        raise StructuredActionError(
            [(f, f"does not apply to {kind_name}") for f in stray]
            + [(f, f"required for {kind_name}") for f in missing]
        )
    first, n = _kind_range(msg.kind)
    content = current_content()
    problems: Problems = []
    names = _Names(problems)
    i = 0
    if name in ("deploy", "retrieve"):
        e = names.index(f"{PART}.empire", fields.empire, EMPIRES)
        k = names.index(f"{PART}.seat", fields.seat, SEATS)
        i = e * N_SEATS + k
    elif name == "option":
        i = fields.option
    elif name in ("region", "deploy_map"):
        i = names.index(f"{PART}.region", fields.region, [r.name for r in content.regions])
    elif name == "count":
        i = fields.count - 1
    elif name == "seat":
        i = names.index(f"{PART}.seat", fields.seat, SEATS)
    elif name == "play":
        c = names.index(f"{PART}.card", fields.card, [c.name for c in content.cards])
        if not 0 <= fields.ability < _MAX_ABILITIES:
            problems.append((f"{PART}.ability", f"must be 0..{_MAX_ABILITIES - 1}"))
        i = c * _MAX_ABILITIES + fields.ability
    elif name in ("pay", "discard"):
        i = names.index(f"{PART}.card", fields.card, [c.name for c in content.cards])
    elif name == "loyalty":
        pair = tuple(sorted(names.index(f"{PART}.empires", e, EMPIRES) for e in fields.empires))
        if pair not in LOYALTY_PAIRS:
            problems.append((f"{PART}.empires", "must name two different empires"))
        else:
            i = LOYALTY_PAIRS.index(pair)
    if not problems and not 0 <= i < n:
        field = {"option": "option", "count": "count"}.get(name, name)
        problems.append((f"{PART}.{field}", f"out of range for {kind_name}"))
    if problems:
        raise StructuredActionError(problems)
    return first + i


def public_action_proto(state: AWarOfWhispersState, action_id: int) -> tuple[pb.Action, bool]:
    """An action as the other players see it: all of it (a card played, paid or discarded
    is shown; the cards a draw brings are chance, not an action)."""
    return action_to_proto(state, action_id), False


def describe(state: AWarOfWhispersState, action_id: int) -> str:
    """What an action does, for ListLegalActions' descriptions."""
    text = state.action_to_text(action_id)
    name = _NAME_OF_KIND[ACTION_KINDS[action_id]]
    why = {
        "deploy": "place an agent on this council seat",
        "retrieve": "take this agent back to place it again",
        "option": "take this option of the seat",
        "region": "this region",
        "count": "this many banners",
        "seat": "this seat of the council",
        "play": "play this ability of the card (its cost discarded)",
        "pay": "discard this card towards the ability's cost",
        "discard": "discard this card down to the hand limit",
        "loyalty": "swap these two loyalty tokens; both are then revealed",
        "done": "done (or pass when nothing else is possible)",
        "deploy_map": "place an agent on this region of the map",
    }[name]
    return f"{text}: {why}"
