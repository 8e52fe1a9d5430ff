"""Game records (council.engine.record): written from a played game, through JSON, replayed
and validated, and written by ``council-ai arena --record``."""

from __future__ import annotations

import random

import pytest

from council.engine import Position
from council.engine.games import Game, all_games
from council.engine.record import (
    RecordedPlayer,
    record_from_json,
    record_of,
    record_to_json,
    replay,
)
from council.engine.serialize import StateValidationError, state_from_proto, state_to_proto
from council.server.cli import main
from council.v1 import record_pb2 as rpb

MAX_ACTIONS = 5_000  # a random game past this is adjudicated (recorded so)


def random_game(game: Game, seed: int) -> tuple[Position, list[int], Position, bool]:
    """(start, actions, final state, adjudicated) of a seeded random game."""
    start = game.new_game(seed=seed)
    state = start.clone()
    rng = random.Random(seed)
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < MAX_ACTIONS:
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    adjudicated = not state.is_terminal()
    return start, actions, state.adjudicated() if adjudicated else state, adjudicated


@pytest.fixture(params=all_games(), ids=lambda game: game.name)
def played(request) -> tuple[rpb.GameRecord, Position]:
    start, actions, final, adjudicated = random_game(request.param, seed=11)
    players = [RecordedPlayer(f"p{seat}", "random") for seat in range(len(final.scores()))]
    return record_of(start, actions, players, adjudicated=adjudicated), final


def test_record_round_trips_through_json_and_replays(played) -> None:
    record, final = played
    again = record_from_json(record_to_json(record))
    assert again == record
    replayed = replay(again)
    assert state_to_proto(replayed) == state_to_proto(final)
    assert list(again.scores) == final.scores() and list(again.winners) == final.winners()
    assert [p.agent for p in again.players] == ["random"] * len(again.players)


def refused(record: rpb.GameRecord) -> list[str]:
    with pytest.raises(StateValidationError) as error:
        replay(record)
    return [path for path, _ in error.value.violations]


def test_illegal_action_is_refused(played) -> None:
    record, _ = played
    legal = set(state_from_proto(record.start).legal_actions())
    illegal = next(a for a in range(100_000) if a not in legal)
    record.moves[0].action_id = illegal
    assert refused(record) == ["moves[0].action_id"]


def test_wrong_seat_and_text_are_refused_with_their_paths(played) -> None:
    record, _ = played
    record.moves[0].seat += 1
    record.moves[1].text = record.moves[1].text + " (not this)"
    assert refused(record) == ["moves[0].seat", "moves[1].text"]


def test_changed_scores_are_refused(played) -> None:
    record, _ = played
    record.scores[0] += 1
    assert refused(record) == ["scores"]


def test_bad_json_is_refused_at_the_root() -> None:
    for text in ("{not json", '{"moves": 3}'):
        with pytest.raises(StateValidationError) as error:
            record_from_json(text)
        assert error.value.field == "(root)"


def test_arena_record_writes_records_that_replay(tmp_path, capsys) -> None:
    args = ["arena", "ismcts:iterations=20", "random", "--deals", "1", "--workers", "1"]
    assert main(args + ["--no-progress", "--record", str(tmp_path)]) == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["council-of-four-0-0.json", "council-of-four-0-1.json"]
    for rotation, name in enumerate(files):
        record = record_from_json((tmp_path / name).read_text())
        replay(record)
        agents = [p.agent for p in record.players]
        expected = ["ismcts:iterations=20", "random"]
        assert agents == (expected if rotation == 0 else expected[::-1])


def test_a_truncated_record_that_is_not_adjudicated_is_refused(played) -> None:
    record, _ = played
    if record.adjudicated:  # stopped at the length cap: its end is where it stands
        record.adjudicated = False
    else:
        del record.moves[-1]
    assert refused(record) == ["moves"]


def test_a_config_that_is_not_the_start_s_is_refused(played) -> None:
    record, _ = played
    record.config.players += 1
    assert refused(record) == ["config"]


def test_a_seat_named_twice_in_players_is_refused(played) -> None:
    record, _ = played
    record.players[1].seat = record.players[0].seat
    assert refused(record) == ["players"]
