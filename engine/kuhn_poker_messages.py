"""Kuhn poker's messages: a position as a ``council.v1.GameState`` (its ``kuhn_poker`` part,
``KuhnPokerPosition`` of ``council/v1/kuhn_poker.proto``), its consistency problems, and its
actions as ``council.v1.Action`` messages.

The message holds the deal and the betting by name (cards "J", "Q", "K"; actions "pass",
"bet"); the reader replays the betting on the deal, so a position it builds is one the rules
reach, and checks the seat to act and the chips won the message states against it. A view
names the other seat's card only once a showdown has shown it. ``read(write(state))``
equals ``state`` for full states and views alike.

>>> from council.engine._kuhn_poker import KuhnPokerState
>>> state = KuhnPokerState.new_game(seed=1)
>>> state.apply(1)
>>> msg = write(state.view(1))
>>> list(msg.kuhn_poker.cards), list(msg.kuhn_poker.history), msg.kuhn_poker.current
(['', 'Q'], ['bet'], 1)
>>> read(msg) == (state.view(1), [])
True
>>> msg.kuhn_poker.cards[0] = "A"
>>> read(msg)[1]
[('kuhn_poker.cards[0]', "unknown card 'A'; one of J, Q, K")]
"""

from __future__ import annotations

from council.engine._kuhn_poker import (
    ACTION_NAMES,
    CARD_NAMES,
    MAX_MOVES,
    NO_CARD,
    NUM_ACTIONS,
    PLAYERS,
    KuhnPokerState,
)
from council.engine.games import own_part_problems
from council.engine.members import others_fields
from council.engine.position import StructuredActionError
from council.v1 import game_pb2 as pb
from council.v1.kuhn_poker_pb2 import KuhnPokerPosition

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

FORMAT = "kuhn-poker/1"
Problems = list[tuple[str, str]]
CARD_INDEX = {name: c for c, name in enumerate(CARD_NAMES)}
ACTION_INDEX = {name: a for a, name in enumerate(ACTION_NAMES)}
# Its action kinds in id order (ids 0 pass, 1 bet: OpenSpiel's), one id each.
ACTION_KINDS: tuple[pb.ActionKind, ...] = (pb.ACTION_KIND_PASS, pb.ACTION_KIND_BET)
ACTION_RANGES = [(kind, a, 1) for a, kind in enumerate(ACTION_KINDS)]
assert len(ACTION_RANGES) == NUM_ACTIONS


# ---------------------------------------------------------------------------------------
# The writer and the reader.


def write(state: KuhnPokerState) -> pb.GameState:
    """The GameState message of a position of Kuhn poker (a full state or a view)."""
    msg = pb.GameState(format=FORMAT)
    msg.config.game = pb.GAME_KUHN_POKER
    msg.config.players = PLAYERS
    if state.is_view:
        msg.viewer = state.viewer
    else:
        msg.rng = state.to_raw()["rng"]
    kp = msg.kuhn_poker
    kp.cards.extend("" if c == NO_CARD else CARD_NAMES[c] for c in state.cards)
    kp.history.extend(ACTION_NAMES[a] for a in state.history)
    if state.current_player >= 0:
        kp.current = state.current_player
    else:
        kp.returns.extend(state.scores())
    return msg


def read(msg: pb.GameState) -> tuple[KuhnPokerState | None, Problems]:
    """The position of a GameState whose config.game is GAME_KUHN_POKER, and the problems
    found: a state exactly when there are none. Paths are the message's
    (``kuhn_poker.cards[1]``)."""
    found = own_part_problems(
        msg, display_name="Kuhn poker", part="kuhn_poker", state_format=FORMAT, players=PLAYERS
    )
    viewer = msg.viewer if msg.HasField("viewer") else -1
    if found:
        return None, found
    kp = msg.kuhn_poker
    cards = _cards(kp, found)
    history = _history(kp, found)
    if found:
        return None, found
    state = KuhnPokerState.from_deal(
        [NO_CARD if c is None else c for c in cards], history, viewer, msg.rng
    )
    found += problems(state)
    if not found:
        found += _stated_outcome(kp, state)
    return (None, found) if found else (state, [])


def _cards(kp: KuhnPokerPosition, found: Problems) -> list[int | None]:
    if len(kp.cards) != PLAYERS:
        found.append(("kuhn_poker.cards", f"must hold {PLAYERS} cards, got {len(kp.cards)}"))
        return []
    cards: list[int | None] = []
    for p, name in enumerate(kp.cards):
        if name == "":
            cards.append(None)
        elif name in CARD_INDEX:
            cards.append(CARD_INDEX[name])
        else:
            found.append(
                (f"kuhn_poker.cards[{p}]", f"unknown card {name!r}; one of {', '.join(CARD_NAMES)}")
            )
    return cards


def _history(kp: KuhnPokerPosition, found: Problems) -> list[int]:
    """The actions of the history, checked to be a line of play that stops at the end."""
    history: list[int] = []
    probe = KuhnPokerState.from_deal([0, 1], [])  # the cards do not change when it ends
    for i, name in enumerate(kp.history):
        path = f"kuhn_poker.history[{i}]"
        if name not in ACTION_INDEX:
            found.append((path, f"unknown action {name!r}; pass or bet"))
            return history
        if probe.is_terminal() or i >= MAX_MOVES:
            found.append((path, "the game was over before this action"))
            return history
        probe.apply(ACTION_INDEX[name])
        history.append(ACTION_INDEX[name])
    return history


def _stated_outcome(kp: KuhnPokerPosition, state: KuhnPokerState) -> Problems:
    """The seat to act and the chips won the message states, against the replayed betting."""
    found: Problems = []
    stated = kp.current if kp.HasField("current") else -1
    if stated != state.current_player:
        want = "absent (the game is over)" if state.is_terminal() else str(state.current_player)
        found.append(("kuhn_poker.current", f"must be {want} after this history, got {stated}"))
    want_returns = state.scores() if state.is_terminal() else []
    if list(kp.returns) != want_returns:
        found.append(
            (
                "kuhn_poker.returns",
                f"must be {want_returns} after this history, got {list(kp.returns)}",
            )
        )
    return found


def problems(state: KuhnPokerState) -> Problems:
    """Every consistency problem of a position of Kuhn poker as ``(field path, problem)``:
    two different cards in a full state; in a view, its own card, and the other seat's
    exactly when a showdown showed it (a view does not name a folded hand's card)."""
    found: Problems = []
    cards = state.cards
    for p, c in enumerate(cards):
        path = f"kuhn_poker.cards[{p}]"
        if state.is_view and p != state.viewer:
            if state.showed_down and c == NO_CARD:
                found.append((path, "required in a view after a showdown, which shows it"))
            elif not state.showed_down and c != NO_CARD:
                found.append((path, "must be absent in a view: the other seat's card is hidden"))
        elif c == NO_CARD:
            found.append((path, "required field is missing"))
    if NO_CARD not in cards and cards[0] == cards[1]:
        found.append(("kuhn_poker.cards[1]", f"the deal holds one {CARD_NAMES[cards[1]]}"))
    return found


# ---------------------------------------------------------------------------------------
# The action codec.


def action_to_proto(state: KuhnPokerState, action_id: int) -> pb.Action:
    """The Action message of an action taken in `state` (its text says fold or call where
    the seat faces a bet)."""
    return pb.Action(
        id=action_id, text=state.action_to_text(action_id), kind=ACTION_KINDS[action_id]
    )


def action_from_proto(state: KuhnPokerState, msg: pb.Action) -> int:
    """The action id of a structured Action message: PASS or BET, with no other field
    (StructuredActionError naming the fields otherwise)."""
    if msg.kind not in ACTION_KINDS:
        kinds = ", ".join(pb.ActionKind.Name(k) for k in ACTION_KINDS)
        raise StructuredActionError([("kind", f"must be one of Kuhn poker's kinds: {kinds}")])
    stray = others_fields(msg, "kuhn_poker")
    if stray:
        kind = pb.ActionKind.Name(msg.kind)
        raise StructuredActionError([(f, f"does not apply to {kind}") for f in stray])
    return ACTION_KINDS.index(msg.kind)


def public_action_proto(state: KuhnPokerState, action_id: int) -> tuple[pb.Action, bool]:
    """An action as the other seat sees it: all of it (Kuhn poker has no secret moves)."""
    return action_to_proto(state, action_id), False


def describe(state: KuhnPokerState, action_id: int) -> str:
    """What an action does, for ListLegalActions' descriptions."""
    text = state.action_to_text(action_id)
    return {
        "pass": "check: put in nothing more (pass, pass goes to a showdown for the antes)",
        "bet": "bet 1 chip; the other seat then calls or folds",
        "fold": "fold: give up the antes to the bettor",
        "call": "call the bet: a showdown for 2 chips each",
    }[text]
