"""The council.v1 messages the server builds: actions, search results, views, engine info.

Positions need no conversion here: ``council.v1.GameState`` is the engine's own schema
(``council.engine.serialize.state_from_proto`` / ``state_to_proto``), for both games.
Council of Four's actions are the same message whatever the position (built once); The
Council's name the cards they reveal, so they are built from the position they are taken in
(``the_council_action_proto``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from importlib import metadata
from typing import cast

from google.protobuf import duration_pb2

from council.engine import GameConfig, Position, TheCouncilConfig, TheCouncilState
from council.engine import _the_council as tc
from council.engine.actions import NUM_ACTIONS, PAYMENTS, ActionKind
from council.engine.actions import Action as EngineAction
from council.engine.board import CARD_KINDS, LAYOUT_CODES
from council.engine.config import GAME_CONFIGS, GAME_PLAYERS
from council.engine.serialize import FORMAT, state_to_proto
from council.engine.serialize_the_council import CARD_INDEX, SUIT_INDEX
from council.engine.serialize_the_council import FORMAT as THE_COUNCIL_FORMAT
from council.server import presets
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

__all__ = [
    "ACTION_KIND_TO_PROTO",
    "RULE_VARIANTS",
    "StructuredActionError",
    "action_from_proto",
    "action_proto",
    "add_views",
    "describe_the_council",
    "duration",
    "engine_info_proto",
    "legal_actions_response",
    "public_action_proto",
    "search_result_proto",
    "the_council_action_from_proto",
    "the_council_action_proto",
    "the_council_legal_actions_response",
]

# -- actions -------------------------------------------------------------------------------

# grpc_tools' stubs type an enum field as its enum class but the enum's Value() as a plain
# int: the values of Value() are the enum's (a ValueError otherwise).
ACTION_KIND_TO_PROTO = {
    kind: cast(pb.ActionKind, pb.ActionKind.Value(f"ACTION_KIND_{kind.name}"))
    for kind in ActionKind
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
# Each action as one entry of ListLegalActionsResponse.actions, encoded once: a response is
# the parse of its entries joined (one C call), where copying the messages one by one cost
# more than reading the request's position.
_LIST_ENTRIES: tuple[bytes, ...] = tuple(
    spb.ListLegalActionsResponse(actions=[m]).SerializeToString() for m in _ACTION_PROTOS
)


def legal_actions_response(
    seat: int, decision: str, action_ids: list[int]
) -> spb.ListLegalActionsResponse:
    """A ListLegalActionsResponse listing `action_ids` (descriptions not filled in)."""
    response = spb.ListLegalActionsResponse.FromString(
        b"".join([_LIST_ENTRIES[a] for a in action_ids])
    )
    response.seat = seat
    response.decision = decision
    return response


def action_proto(action_id: int) -> pb.Action:
    """The (shared, read-only) Action message of an id: copy it into a response field."""
    return _ACTION_PROTOS[action_id]


class StructuredActionError(ValueError):
    """An Action message that is no action: `violations` lists (field, problem), the field a
    path in the message ("balcony", "cards.white"; "" for the message as a whole)."""

    def __init__(self, violations):
        self.violations: list[tuple[str, str]] = list(violations)
        super().__init__("; ".join(f"{f}: {p}" if f else p for f, p in self.violations))


# The field an engine error names: "elect: balcony must be ...", "end_turn: field colour
# does not apply", "build_permit: city 14 is not on permit tile 3 (Dorful)".
_ENGINE_FIELD = re.compile(rf"[a-z_]+: (?:field )?({'|'.join(_ACTION_FIELDS)})\b")
_CARDS_PER_PAYMENT = max(sum(cards) for cards in PAYMENTS)


def _payment(cards: pb.CardCounts) -> int:
    """The index in PAYMENTS of the cards a PAY action spends."""
    counts = [getattr(cards, k) for k in CARD_KINDS]
    problems = [
        (f"cards.{k}", f"must be in 0..{_CARDS_PER_PAYMENT}, got {n}")
        for k, n in zip(CARD_KINDS, counts, strict=True)
        if not 0 <= n <= _CARDS_PER_PAYMENT
    ]
    if not problems and not 1 <= sum(counts) <= _CARDS_PER_PAYMENT:
        problems = [("cards", f"a payment spends 1 to 4 cards, got {sum(counts)}")]
    if problems:
        raise StructuredActionError(problems)
    payment = EngineAction.pay(counts).payment
    assert payment is not None  # pay() gives a PAY action
    return payment


def action_from_proto(msg: pb.Action) -> EngineAction:
    """The engine Action of a structured Action message: its kind and the fields of that
    kind, a PAY action by its `cards` or `payment` (their index; both may be given if they
    agree); id, text and description are ignored. StructuredActionError (a ValueError)
    naming the message's fields if it is not an action.

    >>> pay = pb.Action(kind=pb.ACTION_KIND_PAY, cards=pb.CardCounts(white=1, joker=1))
    >>> action_from_proto(pay).to_text()
    'pay white+joker'
    >>> try:
    ...     action_from_proto(pb.Action(kind=pb.ACTION_KIND_ELECT, colour=0, balcony=9))
    ... except StructuredActionError as e:
    ...     e.violations
    [('balcony', 'elect: balcony must be an integer in 0..3, got 9')]
    """
    if msg.kind not in ACTION_KIND_FROM_PROTO:
        raise StructuredActionError([("kind", "must be set to an action kind")])
    kind = ACTION_KIND_FROM_PROTO[msg.kind]
    kind_name = pb.ActionKind.Name(msg.kind)
    fields = {f: getattr(msg, f) for f in _ACTION_FIELDS if msg.HasField(f)}
    if msg.HasField("cards"):
        if kind is not ActionKind.PAY:
            raise StructuredActionError(
                [("cards", f"does not apply to {kind_name}: only a payment spends cards")]
            )
        paid = _payment(msg.cards)
        if fields.setdefault("payment", paid) != paid:
            raise StructuredActionError(
                [("cards", f"are not the cards of payment {fields['payment']}; give one of them")]
            )
    elif kind is ActionKind.PAY and "payment" not in fields:
        raise StructuredActionError(
            [("cards", f"required for {kind_name}: the cards paid (or payment, their index)")]
        )
    try:
        return EngineAction(kind, **fields)
    except ValueError as e:
        found = _ENGINE_FIELD.match(str(e))
        field = found.group(1) if found else ""
        if field and field not in fields and str(e).endswith("got None"):
            problem = f"required for {kind_name}"
        else:
            problem = str(e)
        raise StructuredActionError([(field, problem)]) from None


# -- search results and engine info --------------------------------------------------------


def duration(seconds: float) -> duration_pb2.Duration:
    """The Duration message of a number of seconds (to the nearest nanosecond)."""
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def search_result_proto(
    result,
    *,
    view: Position,
    seat: int,
    max_candidates: int,
    iteration_budget: int | None,
    time_budget_s: float,
    stop_reason: pb.StopReason,
) -> pb.SearchResult:
    """The SearchResult message of a ``council.mcts.search.SearchResult`` searched from
    `view`: its action, its first `max_candidates` candidates (0: all), principal variation
    and stats."""
    out = pb.SearchResult(seed=result.seed, seat=seat)
    root_action: Callable[[int], pb.Action]
    if isinstance(view, TheCouncilState):
        root_action = functools.partial(the_council_action_proto, view)
        line = _the_council_line(view, result.principal_variation, result.seed)
    else:
        root_action = action_proto
        line = [action_proto(a) for a in result.principal_variation]
    out.action.CopyFrom(root_action(result.action))
    candidates = result.candidates[:max_candidates] if max_candidates else result.candidates
    for c in candidates:
        m = out.candidates.add(
            visits=c.visits,
            mean_reward=c.mean_reward,
            win_probability=c.win_probability,
            vp_margin=c.vp_margin,
        )
        m.action.CopyFrom(root_action(c.action))
    for a in line:
        out.principal_variation.add().CopyFrom(a)
    stats = out.stats
    stats.iterations = result.iterations
    stats.elapsed.CopyFrom(duration(result.elapsed_s))
    stats.tree_nodes = result.tree_nodes
    stats.stop_reason = stop_reason
    stats.iteration_budget = iteration_budget or 0
    stats.time_budget.CopyFrom(duration(time_budget_s))
    return out


def add_views(field, state: Position) -> None:
    """Append every seat's view of the full `state` to a repeated SeatView field."""
    for seat in range(state.n_players):
        view = state.view(seat)
        field.add(seat=seat, state=state_to_proto(view))


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
    for kind, offset, size in _council_of_four_ranges():
        response.action_ranges.add(kind=kind, offset=offset, size=size)
    _add_game_infos(response.games)
    _add_presets(response.presets, pb.GAME_COUNCIL_OF_FOUR)
    response.max_search_time.CopyFrom(duration(max_search_time_s))
    return response


def _add_presets(field, game: int) -> None:
    """Append each preset's budget in `game`, weakest first (iterations only: no max_time)."""
    for p in presets.PRESETS:
        budget = p.budget(game)
        field.add(
            preset=p.value,
            name=p.name,
            iterations=budget.iterations,
            description=budget.description,
        )


def _add_game_infos(field) -> None:
    """Append a GameInfo for each game, Council of Four first (GAME_CONFIGS' order)."""
    facts = {
        GameConfig: (pb.GAME_COUNCIL_OF_FOUR, FORMAT, NUM_ACTIONS, _council_of_four_ranges()),
        TheCouncilConfig: (
            pb.GAME_THE_COUNCIL,
            THE_COUNCIL_FORMAT,
            tc.NUM_ACTIONS,
            _THE_COUNCIL_RANGES,
        ),
    }
    for name, config_class in GAME_CONFIGS.items():
        game, state_format, num_actions, ranges = facts[config_class]
        info = field.add(
            game=game,
            name=name,
            min_players=min(GAME_PLAYERS[name]),
            max_players=max(GAME_PLAYERS[name]),
            state_format=state_format,
            num_actions=num_actions,
        )
        for kind, offset, size in ranges:
            info.action_ranges.add(kind=kind, offset=offset, size=size)
        for f, value in dataclasses.asdict(config_class()).items():
            setattr(info.default_config, f, value)
        _add_presets(info.presets, game)
        if config_class is TheCouncilConfig:
            info.default_config.game = game
            _add_the_council_cards(info)


def _add_the_council_cards(info: spb.GameInfo) -> None:
    """The Council's suits, card ranks, cards and counts, from the core's own tables."""
    info.suits.extend(tc.SUITS)
    info.card_ranks.extend(tc.RANK_ORDER)
    for card in tc.CARDS:
        info.cards.add(
            name=card.name,
            kind=card.kind,
            rank=tc.RANK_ORDER[card.order],
            value=card.value,
            suits=[tc.SUITS[s] for s in card.suits],
        )
    info.draft_rounds = tc.DRAFT_ROUNDS
    info.events_per_hand = tc.EVENTS_PER_HAND


def _council_of_four_ranges() -> list[tuple[pb.ActionKind, int, int]]:
    return [
        (ACTION_KIND_TO_PROTO[k], k.offset, k.size)
        for k in sorted(ActionKind, key=lambda k: k.offset)
    ]


# -- The Council's actions ------------------------------------------------------------------

# The kinds of The Council's action space by the core's names (ACTION_OFFSETS), in id order.
THE_COUNCIL_KINDS: dict[str, pb.ActionKind] = {
    name: cast(pb.ActionKind, pb.ActionKind.Value(f"ACTION_KIND_{name.upper()}"))
    for name in sorted(tc.ACTION_OFFSETS, key=tc.ACTION_OFFSETS.__getitem__)
}
_KIND_NAMES = {v: k for k, v in THE_COUNCIL_KINDS.items()}
_TC_OFFSETS = [tc.ACTION_OFFSETS[name] for name in THE_COUNCIL_KINDS]
_THE_COUNCIL_RANGES = [
    (kind, offset, end - offset)
    for kind, offset, end in zip(
        THE_COUNCIL_KINDS.values(), _TC_OFFSETS, [*_TC_OFFSETS[1:], tc.NUM_ACTIONS], strict=True
    )
]


def _the_council_kind(action_id: int) -> str:
    return next(name for name, offset in reversed(tc.ACTION_OFFSETS.items()) if action_id >= offset)


def _revealed(state: TheCouncilState, mask: int) -> list[str] | None:
    """The drafted cards of the seat to act that a reveal mask names (None: no such mask)."""
    if state.current_player < 0:
        return None
    cards = state.drafted(state.current_player)
    if mask >> len(cards):
        return None
    return [tc.CARD_NAMES[c] for i, c in enumerate(cards) if mask >> i & 1]


def the_council_action_proto(state: TheCouncilState, action_id: int) -> pb.Action:
    """The Action message of a The Council action taken in `state` (a full state or a view:
    a reveal names the drafted cards of the seat to act, which are public)."""
    name = _the_council_kind(action_id)
    m = pb.Action(id=action_id, text=state.action_to_text(action_id), kind=THE_COUNCIL_KINDS[name])
    index = action_id - tc.ACTION_OFFSETS[name]
    if name == "pick":
        m.card = tc.CARD_NAMES[index]
    elif name == "bid":
        m.suit = tc.SUITS[index]
    elif name == "reveal":
        m.reveal.extend(_revealed(state, index) or [])
    return m


# The Council's secret moves (TC15) and what the other seats see of one when it is made: a
# pick is hidden until the round's picks are revealed together, a choice of cards to reveal
# until the event's reveal. Their public form names no card (docs/service.md, "Sealed games").
THE_COUNCIL_SECRET_MOVES = {"pick": "picks a card", "reveal": "chooses the cards to reveal"}


def public_action_proto(state: Position, action_id: int) -> tuple[pb.Action, bool]:
    """The action `action_id` of the seat to move in `state` (taken now) as the other seats
    see it, and whether it is secret: the usual Action message for a public move; for a
    secret one only its kind and a text, no id, card or reveal list.

    >>> from council.engine import TheCouncilConfig
    >>> state = TheCouncilConfig(players=3).new_game(seed=1)
    >>> state.action_to_text(state.legal_actions()[0])
    'pick The Battle'
    >>> action, secret = public_action_proto(state, state.legal_actions()[0])
    >>> action == pb.Action(kind=pb.ACTION_KIND_PICK, text="picks a card"), secret
    (True, True)
    >>> action, secret = public_action_proto(GameConfig().new_game(seed=1), 0)
    >>> action.text, secret  # Council of Four has no secret move
    ('end', False)
    """
    if not isinstance(state, TheCouncilState):
        return action_proto(action_id), False
    name = _the_council_kind(action_id)
    secret = THE_COUNCIL_SECRET_MOVES.get(name)
    if secret is None:
        return the_council_action_proto(state, action_id), False
    return pb.Action(kind=THE_COUNCIL_KINDS[name], text=secret), True


def _the_council_line(view: TheCouncilState, line, seed: int) -> list[pb.Action]:
    """The principal variation's actions, each named in the position it is taken in: played
    in one world sampled from the view; from the first action that world does not allow
    (another seat's pick of a card it deals elsewhere), without the cards of reveals."""
    world: TheCouncilState | None = view.determinize(seed)
    out = []
    for a in line:
        if world is not None and world.is_legal(a):
            out.append(the_council_action_proto(world, a))
            world.apply(a)
            continue
        world = None
        name = _the_council_kind(a)
        m = pb.Action(id=a, kind=THE_COUNCIL_KINDS[name])
        if name == "reveal":
            m.text = f"reveal mask {a - tc.ACTION_OFFSETS[name]}"
        else:
            m.MergeFrom(the_council_action_proto(view, a))
        out.append(m)
    return out


def the_council_legal_actions_response(
    seat: int, state: TheCouncilState
) -> spb.ListLegalActionsResponse:
    """The ListLegalActionsResponse of a full state of The Council: its phase as the
    decision, its legal actions (descriptions not filled in)."""
    response = spb.ListLegalActionsResponse(seat=seat, decision=state.phase)
    for a in state.legal_actions():
        response.actions.add().CopyFrom(the_council_action_proto(state, a))
    return response


def the_council_action_from_proto(state: TheCouncilState, msg: pb.Action) -> int:
    """The action id of a structured Action message of The Council in `state`: PICK with its
    `card`, BID with its `suit`, END_BID, REVEAL with its `reveal` cards (drafted cards of
    the seat to act; none: reveal nothing). StructuredActionError naming the fields."""
    name = _KIND_NAMES.get(msg.kind)
    if name is None:
        kinds = ", ".join(pb.ActionKind.Name(k) for k in THE_COUNCIL_KINDS.values())
        raise StructuredActionError([("kind", f"must be one of The Council's kinds: {kinds}")])
    kind_name = pb.ActionKind.Name(msg.kind)
    wanted = {"pick": "card", "bid": "suit", "reveal": "reveal"}.get(name)
    stray = [f for f in (*_ACTION_FIELDS, "card", "suit") if msg.HasField(f) and f != wanted]
    stray += ["cards"] if msg.HasField("cards") else []
    stray += ["reveal"] if msg.reveal and wanted != "reveal" else []
    if stray:
        raise StructuredActionError([(f, f"does not apply to {kind_name}") for f in stray])
    offset = tc.ACTION_OFFSETS[name]
    if name == "pick":
        if not msg.HasField("card"):
            raise StructuredActionError([("card", f"required for {kind_name}")])
        if msg.card not in CARD_INDEX:
            raise StructuredActionError([("card", f"unknown card {msg.card!r}")])
        return offset + CARD_INDEX[msg.card]
    if name == "bid":
        if not msg.HasField("suit"):
            raise StructuredActionError([("suit", f"required for {kind_name}")])
        if msg.suit not in SUIT_INDEX:
            suits = ", ".join(tc.SUITS)
            raise StructuredActionError([("suit", f"unknown suit {msg.suit!r}; one of {suits}")])
        return offset + SUIT_INDEX[msg.suit]
    if name == "end_bid":
        return offset
    drafted = state.drafted(state.current_player) if state.current_player >= 0 else []
    mask = 0
    for i, card in enumerate(msg.reveal):
        c = CARD_INDEX.get(card, -1)
        if c < 0:
            raise StructuredActionError([(f"reveal[{i}]", f"unknown card {card!r}")])
        if c not in drafted:
            raise StructuredActionError(
                [(f"reveal[{i}]", f"{card} is not in front of seat {state.current_player}")]
            )
        mask |= 1 << drafted.index(c)
    return offset + mask


def describe_the_council(state: TheCouncilState, action_id: int) -> str:
    """What an action of The Council does, for ListLegalActions' descriptions."""
    name = _the_council_kind(action_id)
    index = action_id - tc.ACTION_OFFSETS[name]
    seat = state.current_player
    raw = state.to_raw()
    if name == "pick":
        card = tc.CARDS[index]
        suits = " and ".join(tc.SUITS[x] for x in card.suits)
        return f"draft {card.name} face up; take a chip of {suits} when the picks are revealed"
    if name == "bid":
        suit = tc.SUITS[index]
        return (
            f"offer one more {suit} chip (offered {raw['bid'][seat][index]} so far, "
            f"{raw['chips'][seat][index]} left)"
        )
    if name == "end_bid":
        return "end the offer of chips; then choose in secret the drafted cards to reveal"
    cards = _revealed(state, index) or []
    if not cards:
        return "reveal no card: every drafted card stays face up for the hand's later events"
    return f"reveal {', '.join(cards)} when every seat has bid (revealed cards are spent)"
