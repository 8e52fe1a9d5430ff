"""Write the golden playthroughs of The Council that ``test_golden_the_council.py`` replays.

Regenerate (after an intended change of The Council's rules or of its struct), from the
repository root, and review the diff of ``tests/engine/golden/the-council/``::

    .venv/bin/python tests/engine/make_golden_the_council.py

Each game is ``TheCouncilState.new_game(players, seed)`` played to its end with
``random.Random(seed)`` choosing uniformly among the legal actions. One file per game::

    # comment lines
    the-council players=4 seed=3
    = hand=1 phase=draft current=0 digest=<hex>        the state after setup
    0 seat=0 phase=draft legal=6 id=11 | pick The Savage
    ...                                                 one line per action
    = hand=1 phase=bid current=2 digest=<hex>           after every event's last reveal
    final scores=3,0,8,1 winners=2 digest=<hex>

The digest is ``make_golden.digest``: every field of the struct, the RNG included.
"""

from __future__ import annotations

import random
import sys

from make_golden import GOLDEN_DIR, digest

from council.engine.the_council import TheCouncilState

HEADER = (
    "# Golden playthrough of The Council, replayed by tests/engine/test_golden_the_council.py.\n"
    "# Regenerate with: .venv/bin/python tests/engine/make_golden_the_council.py\n"
)
# (players, seed): every seat count.
GAMES = ((3, 1), (4, 2), (5, 3))


THE_COUNCIL_DIR = GOLDEN_DIR / "the-council"


def path_of(players: int):
    return THE_COUNCIL_DIR / f"{players}p.txt"


def state_line(state: TheCouncilState) -> str:
    return (
        f"= hand={state.hand} phase={state.phase} current={state.current_player} "
        f"digest={digest(state)}"
    )


def play(players: int, seed: int) -> str:
    """The golden text of one game."""
    state = TheCouncilState.new_game(players, seed=seed)
    rng = random.Random(seed)
    lines = [HEADER.rstrip("\n"), f"the-council players={players} seed={seed}", state_line(state)]
    while not state.is_terminal():
        legal = state.legal_actions()
        action = rng.choice(legal)
        phase = state.phase
        lines.append(
            f"{state.action_count} seat={state.current_player} phase={phase} "
            f"legal={len(legal)} id={action} | {state.action_to_text(action)}"
        )
        state.apply(action)
        if phase == "reveal" and state.phase != "reveal":
            lines.append(state_line(state))
    scores = ",".join(map(str, state.scores()))
    winners = ",".join(map(str, state.winners()))
    lines.append(f"final scores={scores} winners={winners} digest={digest(state)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    differ = []
    for players, seed in GAMES:
        text = play(players, seed)
        path = path_of(players)
        if check:
            if not path.exists() or path.read_text() != text:
                differ.append(path.name)
        else:
            path.write_text(text)
    for name in differ:
        print(f"{name}: differs from the game as it plays now", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
