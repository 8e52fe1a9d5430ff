"""Golden playthroughs of The Council (``golden/the-council/*.txt``) replayed action by action.

The replay parses every action from its TEXT (``action_from_text``), checks it is the
recorded id, legal among the recorded number of legal actions, taken by the recorded seat
in the recorded phase, applies it, and compares the state's digest after every event and at
the end, with the scores and winners. Any change in how these games play fails here; after
an intended change, regenerate with ``make_golden_the_council.py`` and review the diff.
"""

from __future__ import annotations

import re

import pytest
from make_golden import digest
from make_golden_the_council import GAMES, THE_COUNCIL_DIR, path_of, play

from council.engine.the_council import TheCouncilState

_GAME = re.compile(r"the-council players=(?P<players>\d) seed=(?P<seed>\d+)")
_ACTION = re.compile(
    r"(?P<count>\d+) seat=(?P<seat>\d) phase=(?P<phase>\w+) legal=(?P<legal>\d+) "
    r"id=(?P<id>\d+) \| (?P<text>\S.*)"
)
_STATE = re.compile(r"= hand=(?P<hand>\d+) phase=(?P<phase>\w+) current=(?P<current>-?\d) "
                    r"digest=(?P<digest>[0-9a-f]{16})")  # fmt: skip
_FINAL = re.compile(r"final scores=(?P<scores>[\d,]+) winners=(?P<winners>[\d,]+) "
                    r"digest=(?P<digest>[0-9a-f]{16})")  # fmt: skip


def replay(text: str) -> TheCouncilState:
    """Replay a golden text; AssertionError naming the line at the first difference."""
    state = None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"line {number}: {line!r}"
        if line.startswith("#"):
            continue
        if m := _GAME.fullmatch(line):
            state = TheCouncilState.new_game(int(m["players"]), seed=int(m["seed"]))
            continue
        assert state is not None, f"{where}: no game line before it"
        if m := _ACTION.fullmatch(line):
            legal = state.legal_actions()
            action = state.action_from_text(m["text"])
            assert action == int(m["id"]), f"{where}: the text is action {action}"
            assert (state.action_count, state.current_player, state.phase, len(legal)) == (
                int(m["count"]), int(m["seat"]), m["phase"], int(m["legal"])
            ), where  # fmt: skip
            assert action in legal, f"{where}: not legal"
            state.apply(action)
        elif m := _STATE.fullmatch(line):
            got = (state.hand, state.phase, state.current_player, digest(state))
            assert got == (int(m["hand"]), m["phase"], int(m["current"]), m["digest"]), where
        elif m := _FINAL.fullmatch(line):
            assert state.is_terminal(), f"{where}: the game is not over"
            assert ",".join(map(str, state.scores())) == m["scores"], where
            assert ",".join(map(str, state.winners())) == m["winners"], where
            assert digest(state) == m["digest"], where
            return state
        else:
            raise AssertionError(f"{where}: not a golden line")
    raise AssertionError("no final line")


@pytest.mark.parametrize("players", [players for players, _ in GAMES])
def test_golden_games_replay_exactly(players):
    text = path_of(players).read_text()
    final = replay(text)
    assert final.n_players == players
    assert play(players, dict(GAMES)[players]) == text  # the writer agrees with the file


def test_golden_files_are_the_listed_games():
    on_disk = sorted(p.name for p in THE_COUNCIL_DIR.glob("*.txt"))
    assert on_disk == sorted(path_of(players).name for players, _ in GAMES)
    assert sorted(players for players, _ in GAMES) == [3, 4, 5]


def test_the_replay_notices_a_changed_game():
    text = path_of(4).read_text()
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if _ACTION.fullmatch(line))
    m = _ACTION.fullmatch(lines[first])
    other = next(a for a in TheCouncilState.new_game(4, seed=2).legal_actions()
                 if a != int(m["id"]))  # fmt: skip
    text_other = TheCouncilState.new_game(4, seed=2).action_to_text(other)
    changed = lines[:first] + [lines[first].replace(m["text"], text_other)] + lines[first + 1 :]
    with pytest.raises(AssertionError, match="line .*: the text is action"):
        replay("\n".join(changed))
    digest_line = next(i for i, line in enumerate(lines) if _STATE.fullmatch(line) and i > first)
    flipped = lines[digest_line][:-1] + ("0" if lines[digest_line][-1] != "0" else "1")
    with pytest.raises(AssertionError, match=f"line {digest_line + 1}"):
        replay("\n".join(lines[:digest_line] + [flipped] + lines[digest_line + 1 :]))
