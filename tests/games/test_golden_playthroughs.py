"""Golden playthroughs of every registered game (``playthrough.py``): each game's file is
replayed action by action, and the fixed agents, played again, write the very same file.
A registered game without its file fails here, naming the file and the command that
writes it."""

from __future__ import annotations

import json

import pytest
from every_game import EVERY_GAME, GAMES
from playthrough import GOLDEN_DIR, golden_path, how_to_write, record, replay, to_text


@pytest.mark.parametrize("game", EVERY_GAME)
def test_the_golden_playthrough_replays(game):
    path = golden_path(game)
    if not path.exists():
        pytest.fail(how_to_write(game), pytrace=False)
    text = path.read_text()
    replay(game, json.loads(text))
    assert to_text(record(game)) == text, f"{path.name}: the agents now play another game"


def test_every_golden_file_is_of_a_registered_game():
    names = sorted(p.name for p in GOLDEN_DIR.glob("*.json"))
    assert names == sorted(golden_path(g).name for g in GAMES if golden_path(g).exists())


def test_a_game_without_its_file_is_named_with_the_command_that_writes_it():
    game = GAMES[0]
    assert how_to_write(game) == (
        f"tests/games/golden/{game.name}.json: missing; "
        f"write it with `python tests/games/make_golden.py {game.name}`"
    )


def test_the_replay_notices_a_changed_game():
    game = GAMES[0]
    golden = json.loads(golden_path(game).read_text())
    first = golden["playthroughs"][0]
    seat, count, action, text = first["actions"][3]
    other = next(a for a in first["actions"] if a[3] != text)[3]
    edits = [
        (lambda g: g["playthroughs"][0]["actions"][3].__setitem__(3, other), "action 3"),
        (lambda g: g["playthroughs"][0]["actions"][3].__setitem__(1, count + 1), "action 3"),
        (lambda g: g["playthroughs"][0].__setitem__("final_state", "0" * 16), "final state"),
        (lambda g: g["playthroughs"][0]["scores"].append(1), "scores"),
        (lambda g: g["playthroughs"][0]["actions"].pop(), "not over"),
    ]
    for edit, words in edits:
        changed = json.loads(json.dumps(golden))
        edit(changed)
        with pytest.raises(AssertionError, match=words):
            replay(game, changed)
