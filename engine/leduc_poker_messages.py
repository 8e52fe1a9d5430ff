"""Leduc poker's messages: a position as a ``council.v1.GameState`` (its ``leduc_poker`` part,
``LeducPokerPosition`` of ``council/v1/leduc_poker.proto``), its consistency problems, and its
actions as ``council.v1.Action`` messages.

The message holds the deal and the betting by name (cards "J1" .. "K2"; actions "fold",
"call", "raise"); the reader replays the betting on the deal, so a position it builds is one
the rules reach, and checks the seat to act and the chips won the message states against it.
A view names the other seat's card only once a showdown has shown it, and the public card
only from the second round on. ``read(write(state))`` equals ``state`` for full states and
views alike.

>>> from council.engine._leduc_poker import LeducPokerState
>>> state = LeducPokerState.from_deal([4, 0, 2], [2])  # K1, J1, public Q1; seat 0 raised
>>> msg = write(state.view(1))
>>> list(msg.leduc_poker.cards), msg.leduc_poker.public_card, list(msg.leduc_poker.history)
(['', 'J1'], '', ['raise'])
>>> read(msg) == (state.view(1), [])
True
>>> msg.leduc_poker.cards[1] = "A1"
>>> read(msg)[1]
[('leduc_poker.cards[1]', "unknown card 'A1'; one of J1, J2, Q1, Q2, K1, K2")]
"""

from __future__ import annotations

from council.engine._leduc_poker import (
    ACTION_NAMES,
    CARD_NAMES,
    MAX_MOVES,
    NO_CARD,
    NUM_ACTIONS,
    PLAYERS,
    RAISE_SIZES,
    LeducPokerState,
)
from council.engine.games import own_part_problems
from council.engine.members import others_fields
from council.engine.position import StructuredActionError
from council.v1 import game_pb2 as pb
from council.v1.leduc_poker_pb2 import LeducPokerPosition

__all__ = [
    "ACTION_KINDS",
    "ACTION_RANGES",
    "FORMAT",
    "action_from_proto",
    "action_to_proto",
    "describe",
    "problems",
    "public_action_proto",
    "read",
    "write",
]

FORMAT = "leduc-poker/1"
Problems = list[tuple[str, str]]
CARD_INDEX = {name: c for c, name in enumerate(CARD_NAMES)}
ACTION_INDEX = {name: a for a, name in enumerate(ACTION_NAMES)}
# Its action kinds in id order (ids 0 fold, 1 call, 2 raise: OpenSpiel's), one id each.
ACTION_KINDS: tuple[pb.ActionKind, ...] = (
    pb.ACTION_KIND_FOLD,
    pb.ACTION_KIND_CALL,
    pb.ACTION_KIND_RAISE,
)
ACTION_RANGES = [(kind, a, 1) for a, kind in enumerate(ACTION_KINDS)]
assert len(ACTION_RANGES) == NUM_ACTIONS


# ---------------------------------------------------------------------------------------
# The writer and the reader.


def _card_name(card: int) -> str:
    return "" if card == NO_CARD else CARD_NAMES[card]


def write(state: LeducPokerState) -> pb.GameState:
    """The GameState message of a position of Leduc poker (a full state or a view)."""
    msg = pb.GameState(format=FORMAT)
    msg.config.game = pb.GAME_LEDUC_POKER
    msg.config.players = PLAYERS
    if state.is_view:
        msg.viewer = state.viewer
    else:
        msg.rng = state.to_raw()["rng"]
    ld = msg.leduc_poker
    ld.cards.extend(_card_name(c) for c in state.cards)
    ld.public_card = _card_name(state.public_card)
    ld.history.extend(ACTION_NAMES[a] for a in state.history)
    if state.current_player >= 0:
        ld.current = state.current_player
    else:
        ld.returns.extend(state.scores())
    return msg


def read(msg: pb.GameState) -> tuple[LeducPokerState | None, Problems]:
    """The position of a GameState whose config.game is GAME_LEDUC_POKER, and the problems
    found: a state exactly when there are none. Paths are the message's
    (``leduc_poker.cards[1]``)."""
    found = own_part_problems(
        msg, display_name="Leduc poker", part="leduc_poker", state_format=FORMAT, players=PLAYERS
    )
    viewer = msg.viewer if msg.HasField("viewer") else -1
    if found:
        return None, found
    ld = msg.leduc_poker
    cards = _cards(ld, found)
    history = _history(ld, found)
    if found:
        return None, found
    state = LeducPokerState.from_deal(
        [NO_CARD if c is None else c for c in cards], history, viewer, msg.rng
    )
    found += problems(state)
    if not found:
        found += _stated_outcome(ld, state)
    return (None, found) if found else (state, [])


def _card(name: str, path: str, found: Problems) -> int | None:
    """A card id by name; None for "" (a card the view cannot see) or an unknown name."""
    if name == "":
        return None
    if name not in CARD_INDEX:
        found.append((path, f"unknown card {name!r}; one of {', '.join(CARD_NAMES)}"))
        return None
    return CARD_INDEX[name]


def _cards(ld: LeducPokerPosition, found: Problems) -> list[int | None]:
    """Seat 0's, seat 1's and the public card."""
    if len(ld.cards) != PLAYERS:
        found.append(("leduc_poker.cards", f"must hold {PLAYERS} cards, got {len(ld.cards)}"))
        return []
    cards = [_card(name, f"leduc_poker.cards[{p}]", found) for p, name in enumerate(ld.cards)]
    cards.append(_card(ld.public_card, "leduc_poker.public_card", found))
    return cards


def _history(ld: LeducPokerPosition, found: Problems) -> list[int]:
    """The actions of the history, checked to be a line of play (legal, stopping at the
    end): the legality of a line does not depend on the cards."""
    history: list[int] = []
    probe = LeducPokerState.from_deal([0, 2, 4], [])
    for i, name in enumerate(ld.history):
        path = f"leduc_poker.history[{i}]"
        if name not in ACTION_INDEX:
            found.append((path, f"unknown action {name!r}; fold, call or raise"))
            return history
        if probe.is_terminal() or i >= MAX_MOVES:
            found.append((path, "the game was over before this action"))
            return history
        action = ACTION_INDEX[name]
        if not probe.is_legal(action):
            why = "nothing to fold to" if name == "fold" else "the round's raises are used up"
            found.append((path, f"{name} is not legal here: {why}"))
            return history
        probe.apply(action)
        history.append(action)
    return history


def _stated_outcome(ld: LeducPokerPosition, state: LeducPokerState) -> Problems:
    """The seat to act and the chips won the message states, against the replayed betting."""
    found: Problems = []
    stated = ld.current if ld.HasField("current") else -1
    if stated != state.current_player:
        want = "absent (the game is over)" if state.is_terminal() else str(state.current_player)
        found.append(("leduc_poker.current", f"must be {want} after this history, got {stated}"))
    want_returns = state.scores() if state.is_terminal() else []
    if list(ld.returns) != want_returns:
        found.append(
            (
                "leduc_poker.returns",
                f"must be {want_returns} after this history, got {list(ld.returns)}",
            )
        )
    return found


def problems(state: LeducPokerState) -> Problems:
    """Every consistency problem of a position of Leduc poker as ``(field path, problem)``:
    three different cards in a full state; in a view, its own card, the other seat's exactly
    when a showdown showed it, and the public card exactly in the second round."""
    found: Problems = []
    cards = state.cards
    for p, c in enumerate(cards):
        path = f"leduc_poker.cards[{p}]"
        if state.is_view and p != state.viewer:
            if state.showed_down and c == NO_CARD:
                found.append((path, "required in a view after a showdown, which shows it"))
            elif not state.showed_down and c != NO_CARD:
                found.append((path, "must be absent in a view: the other seat's card is hidden"))
        elif c == NO_CARD:
            found.append((path, "required field is missing"))
    shown = state.round == 1
    if state.is_view and not shown and state.public_card != NO_CARD:
        found.append(
            ("leduc_poker.public_card", "must be absent in a view before the second round")
        )
    elif (shown or not state.is_view) and state.public_card == NO_CARD:
        found.append(("leduc_poker.public_card", "required field is missing"))
    named = [c for c in (*cards, state.public_card) if c != NO_CARD]
    if len(set(named)) < len(named):
        found.append(("leduc_poker.cards", "the deal names one card twice"))
    return found


# ---------------------------------------------------------------------------------------
# The action codec.


def action_to_proto(state: LeducPokerState, action_id: int) -> pb.Action:
    """The Action message of an action taken in `state` (its text says check where there is
    nothing to call)."""
    return pb.Action(
        id=action_id, text=state.action_to_text(action_id), kind=ACTION_KINDS[action_id]
    )


def action_from_proto(state: LeducPokerState, msg: pb.Action) -> int:
    """The action id of a structured Action message: FOLD, CALL or RAISE, with no other field
    (StructuredActionError naming the fields otherwise)."""
    if msg.kind not in ACTION_KINDS:
        kinds = ", ".join(pb.ActionKind.Name(k) for k in ACTION_KINDS)
        raise StructuredActionError([("kind", f"must be one of Leduc poker's kinds: {kinds}")])
    stray = others_fields(msg, "leduc_poker")
    if stray:
        kind = pb.ActionKind.Name(msg.kind)
        raise StructuredActionError([(f, f"does not apply to {kind}") for f in stray])
    return ACTION_KINDS.index(msg.kind)


def public_action_proto(state: LeducPokerState, action_id: int) -> tuple[pb.Action, bool]:
    """An action as the other seat sees it: all of it (Leduc poker has no secret moves)."""
    return action_to_proto(state, action_id), False


def describe(state: LeducPokerState, action_id: int) -> str:
    """What an action does, for ListLegalActions' descriptions."""
    text = state.action_to_text(action_id)
    size = RAISE_SIZES[state.round]
    return {
        "fold": "fold: give up the chips put in to the other seat",
        "check": "check: put in nothing more",
        "call": "call: match the raise",
        "raise": f"raise {size} chips over the stake; the other seat then folds, calls or raises",
    }[text]
