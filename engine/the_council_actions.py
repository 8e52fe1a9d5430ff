"""The Council's actions as structured ``council.v1.Action`` messages, text and descriptions
(Council of Four's are in ``council.engine.council_of_four_actions``).

An action of The Council is an id of ``TheCouncilState``'s action space (``ACTION_OFFSETS``:
pick + card, bid + suit, end_bid, reveal + mask). A reveal's mask indexes the drafted cards
of the seat to act, so its message names those cards and is built from the position the
action is taken in. The text form is the state's ``action_to_text`` / ``action_from_text``.

>>> from council.engine.the_council import TheCouncilConfig
>>> state = TheCouncilConfig(players=3).new_game(seed=1)
>>> pick = state.legal_actions()[0]
>>> msg = action_to_proto(state, pick)
>>> msg.text, msg.card, action_from_proto(state, msg) == pick
('pick The Battle', 'The Battle', True)
>>> public_action_proto(state, pick) == (pb.Action(kind=pb.ACTION_KIND_PICK,
...                                                 text="picks a card"), True)
True
"""

from __future__ import annotations

from typing import cast

from council.engine import _the_council as tc
from council.engine._the_council import TheCouncilState
from council.engine.council_of_four_actions import ACTION_FIELDS, StructuredActionError
from council.v1 import game_pb2 as pb

__all__ = [
    "ACTION_KINDS",
    "ACTION_RANGES",
    "SECRET_MOVES",
    "action_from_proto",
    "action_to_proto",
    "describe",
    "kind_of",
    "legal_action_protos",
    "public_action_proto",
    "revealed",
]

CARD_INDEX = {name: c for c, name in enumerate(tc.CARD_NAMES)}
SUIT_INDEX = {name: x for x, name in enumerate(tc.SUITS)}

# The kinds of The Council's action space by the core's names (ACTION_OFFSETS), in id order.
ACTION_KINDS: dict[str, pb.ActionKind] = {
    name: cast(pb.ActionKind, pb.ActionKind.Value(f"ACTION_KIND_{name.upper()}"))
    for name in sorted(tc.ACTION_OFFSETS, key=tc.ACTION_OFFSETS.__getitem__)
}
_KIND_NAMES = {v: k for k, v in ACTION_KINDS.items()}
_OFFSETS = [tc.ACTION_OFFSETS[name] for name in ACTION_KINDS]
# (kind, first id, number of ids) of each kind, in id order.
ACTION_RANGES = [
    (kind, offset, end - offset)
    for kind, offset, end in zip(
        ACTION_KINDS.values(), _OFFSETS, [*_OFFSETS[1:], tc.NUM_ACTIONS], strict=True
    )
]

# The Council's secret moves (TC15) and what the other seats see of one when it is made: a
# pick is hidden until the round's picks are revealed together, a choice of cards to reveal
# until the event's reveal. Their public form names no card (docs/service.md, "Sealed games").
SECRET_MOVES = {"pick": "picks a card", "reveal": "chooses the cards to reveal"}


def kind_of(action_id: int) -> str:
    """The core's name of an action's kind: 'pick', 'bid', 'end_bid' or 'reveal'."""
    return next(name for name, offset in reversed(tc.ACTION_OFFSETS.items()) if action_id >= offset)


def revealed(state: TheCouncilState, mask: int) -> list[str] | None:
    """The drafted cards of the seat to act that a reveal mask names (None: no such mask)."""
    if state.current_player < 0:
        return None
    cards = state.drafted(state.current_player)
    if mask >> len(cards):
        return None
    return [tc.CARD_NAMES[c] for i, c in enumerate(cards) if mask >> i & 1]


def action_to_proto(state: TheCouncilState, action_id: int) -> pb.Action:
    """The Action message of an action taken in `state` (a full state or a view: a reveal
    names the drafted cards of the seat to act, which are public)."""
    name = kind_of(action_id)
    m = pb.Action(id=action_id, text=state.action_to_text(action_id), kind=ACTION_KINDS[name])
    index = action_id - tc.ACTION_OFFSETS[name]
    if name == "pick":
        m.card = tc.CARD_NAMES[index]
    elif name == "bid":
        m.suit = tc.SUITS[index]
    elif name == "reveal":
        m.reveal.extend(revealed(state, index) or [])
    return m


def public_action_proto(state: TheCouncilState, action_id: int) -> tuple[pb.Action, bool]:
    """The action `action_id` of the seat to move in `state` (taken now) as the other seats
    see it, and whether it is secret: for a secret move only its kind and a text."""
    name = kind_of(action_id)
    secret = SECRET_MOVES.get(name)
    if secret is None:
        return action_to_proto(state, action_id), False
    return pb.Action(kind=ACTION_KINDS[name], text=secret), True


def legal_action_protos(state: TheCouncilState) -> list[pb.Action]:
    """The Action messages of a full state's legal actions, in id order."""
    return [action_to_proto(state, a) for a in state.legal_actions()]


def _stray_fields(msg: pb.Action, wanted: str | None) -> list[str]:
    stray = [f for f in (*ACTION_FIELDS, "card", "suit") if msg.HasField(f) and f != wanted]
    stray += ["cards"] if msg.HasField("cards") else []
    stray += ["reveal"] if msg.reveal and wanted != "reveal" else []
    return stray


def action_from_proto(state: TheCouncilState, msg: pb.Action) -> int:
    """The action id of a structured Action message in `state`: PICK with its `card`, BID
    with its `suit`, END_BID, REVEAL with its `reveal` cards (drafted cards of the seat to
    act; none: reveal nothing). StructuredActionError naming the fields."""
    name = _KIND_NAMES.get(msg.kind)
    if name is None:
        kinds = ", ".join(pb.ActionKind.Name(k) for k in ACTION_KINDS.values())
        raise StructuredActionError([("kind", f"must be one of The Council's kinds: {kinds}")])
    kind_name = pb.ActionKind.Name(msg.kind)
    stray = _stray_fields(msg, {"pick": "card", "bid": "suit", "reveal": "reveal"}.get(name))
    if stray:
        raise StructuredActionError([(f, f"does not apply to {kind_name}") for f in stray])
    offset = tc.ACTION_OFFSETS[name]
    if name == "pick":
        return offset + _named(msg, "card", CARD_INDEX, kind_name, "")
    if name == "bid":
        suits = f"; one of {', '.join(tc.SUITS)}"
        return offset + _named(msg, "suit", SUIT_INDEX, kind_name, suits)
    if name == "end_bid":
        return offset
    return offset + _reveal_mask(state, msg)


def _named(msg: pb.Action, field: str, index: dict[str, int], kind_name: str, hint: str) -> int:
    if not msg.HasField(field):
        raise StructuredActionError([(field, f"required for {kind_name}")])
    value = getattr(msg, field)
    if value not in index:
        raise StructuredActionError([(field, f"unknown {field} {value!r}{hint}")])
    return index[value]


def _reveal_mask(state: TheCouncilState, msg: pb.Action) -> int:
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
    return mask


def describe(state: TheCouncilState, action_id: int) -> str:
    """What an action does, for ListLegalActions' descriptions."""
    name = kind_of(action_id)
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
    cards = revealed(state, index) or []
    if not cards:
        return "reveal no card: every drafted card stays face up for the hand's later events"
    return f"reveal {', '.join(cards)} when every seat has bid (revealed cards are spent)"
