"""The council.v1 messages the server builds: actions, search results, views, engine info.

Positions need no conversion here: ``council.v1.GameState`` is the engine's own schema
(``council.engine.serialize.state_from_proto`` / ``state_to_proto``).
"""

from __future__ import annotations

import dataclasses
import re
from importlib import metadata
from typing import cast

from google.protobuf import duration_pb2

from council.engine import GameConfig, State
from council.engine.actions import NUM_ACTIONS, PAYMENTS, ActionKind
from council.engine.actions import Action as EngineAction
from council.engine.board import CARD_KINDS, LAYOUT_CODES
from council.engine.serialize import FORMAT, state_to_proto
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
    "duration",
    "engine_info_proto",
    "legal_actions_response",
    "search_result_proto",
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
    seat: int,
    max_candidates: int,
    iteration_budget: int | None,
    time_budget_s: float,
    stop_reason: pb.StopReason,
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
