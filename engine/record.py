"""Game records: a game's configuration, start state, moves, players and result as one
``council.v1.GameRecord`` message, and its replay.

``record_of`` writes a record of a game played from a start state; ``replay`` checks one
(every move legal, taken by the seat to move, its text naming its id; the recorded result the
replayed one) and returns the final state. Its JSON form is the protobuf JSON mapping.

>>> from council.engine.games import game_named
>>> game = game_named("kuhn-poker")
>>> start = game.new_game(seed=3)
>>> state = start.clone()
>>> actions = []
>>> while not state.is_terminal():
...     actions.append(state.legal_actions()[0])
...     state.apply(actions[-1])
>>> record = record_from_json(record_to_json(record_of(start, actions)))
>>> replay(record).scores() == state.scores()
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf import json_format

from council.engine import Position
from council.engine.serialize import StateValidationError, state_from_proto, state_to_proto
from council.v1 import record_pb2 as rpb

__all__ = [
    "RecordedPlayer",
    "play_move",
    "record_from_json",
    "record_of",
    "record_to_json",
    "replay",
]


@dataclass(frozen=True)
class RecordedPlayer:
    """Who sat in a seat: a name and the agent's spec (empty for a person)."""

    name: str
    agent: str = ""


def record_of(
    start: Position,
    actions: Sequence[int],
    players: Sequence[RecordedPlayer] = (),
    *,
    adjudicated: bool = False,
    chance: Sequence[int] = (),
) -> rpb.GameRecord:
    """The record of the game played from the full state ``start`` by ``actions`` (start is
    not changed). ``players`` per seat, in seat order; with ``adjudicated`` the game stopped
    at a length cap and is scored as it stood (``Position.adjudicated()``). ``chance``, per
    action (or fewer), the seed its chance state was replaced from just before it (a sealed
    game's draws, made when they happen: ``Position.reseed``; 0 for none)."""
    start_msg = state_to_proto(start)
    record = rpb.GameRecord(start=start_msg, adjudicated=adjudicated)
    record.config.CopyFrom(start_msg.config)
    for seat, player in enumerate(players):
        record.players.add(seat=seat, name=player.name, agent=player.agent)
    state = start.clone()
    for i, action in enumerate(actions):
        seed = chance[i] if i < len(chance) else 0
        if seed:
            state.reseed(seed)
        record.moves.add(
            seat=state.current_player,
            action_id=action,
            text=state.action_to_text(action),
            chance_seed=seed,
        )
        state.apply(action)
    final = state.adjudicated() if adjudicated else state
    record.scores.extend(final.scores())
    record.winners.extend(final.winners())
    return record


def play_move(state: Position, move: rpb.RecordedMove) -> None:
    """Play a record's move on the full state before it, with the draws it made: its
    ``chance_seed``, when set, decides them (``Position.reseed``), as it did in the game.
    Every walk through a record's positions goes through here."""
    if move.chance_seed:
        state.reseed(move.chance_seed)
    state.apply(move.action_id)


def replay(record: rpb.GameRecord) -> Position:
    """Validate a record by replaying it; the final state (``adjudicated()`` of the position
    reached for an adjudicated record). Raises StateValidationError listing every problem
    with its path (``start.players[1].coins``, ``moves[12].action_id``, ``scores``)."""
    try:
        state = state_from_proto(record.start)
    except StateValidationError as error:
        raise StateValidationError([(f"start.{f}", p) for f, p in error.violations]) from None
    found: list[tuple[str, str]] = []
    if record.HasField("config") and record.config != record.start.config:
        found.append(("config", "differs from start.config"))
    if state.viewer >= 0:  # a view cannot be played on: the others' hidden cards are unknown
        raise StateValidationError([("start.viewer", "a seat's view, not a full state")])
    for i, move in enumerate(record.moves):
        path = f"moves[{i}]"
        if state.is_terminal():
            found.append((path, "the game is already over"))
            break
        if move.seat != state.current_player:
            found.append(
                (f"{path}.seat", f"{move.seat} is not the seat to move, {state.current_player}")
            )
        if move.action_id not in state.legal_actions():
            found.append((f"{path}.action_id", f"{move.action_id} is not a legal action here"))
            break  # the moves after it have no position to be checked in
        text = state.action_to_text(move.action_id)
        if move.text != text:
            found.append(
                (f"{path}.text", f"{move.text!r} does not name action {move.action_id} ({text!r})")
            )
        play_move(state, move)
    else:
        if record.adjudicated:
            state = state.adjudicated()
        elif not state.is_terminal():
            found.append(("moves", f"the game is not over after {len(record.moves)} moves"))
        if not found:
            if list(record.scores) != list(state.scores()):
                found.append(
                    ("scores", f"{list(record.scores)} are not the replayed {state.scores()}")
                )
            if list(record.winners) != list(state.winners()):
                found.append(
                    ("winners", f"{list(record.winners)} are not the replayed {state.winners()}")
                )
    seats = [p.seat for p in record.players]
    if len(set(seats)) != len(seats):
        found.append(("players", f"a seat is named twice: {seats}"))
    if found:
        raise StateValidationError(found)
    return state


def record_to_json(record: rpb.GameRecord) -> str:
    """The record's JSON (protobuf JSON mapping, proto field names)."""
    return json_format.MessageToJson(record, preserving_proto_field_name=True, indent=1)


def record_from_json(text: str | bytes) -> rpb.GameRecord:
    """The record of a JSON document (StateValidationError at ``(root)`` for bad JSON or a
    document that is no GameRecord). Not validated: ``replay`` does that."""
    try:
        json.loads(text)
    except ValueError as error:
        raise StateValidationError([("(root)", f"not JSON: {error}")]) from None
    try:
        return json_format.Parse(text, rpb.GameRecord())
    except json_format.ParseError as error:
        raise StateValidationError([("(root)", f"not a GameRecord: {error}")]) from None
