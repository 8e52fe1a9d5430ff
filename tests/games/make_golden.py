"""Write the golden playthroughs of registered games (``playthrough.py`` describes them),
replayed by ``test_golden_playthroughs.py``. From the repository root::

    .venv/bin/python tests/games/make_golden.py              # every registered game
    .venv/bin/python tests/games/make_golden.py kuhn-poker   # one game

then review the diff of ``tests/games/golden/``.
"""

from __future__ import annotations

import sys

from playthrough import GOLDEN_DIR, games_named, golden_path, record, to_text


def main(names: list[str]) -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for game in games_named(names):
        golden_path(game).write_text(to_text(record(game)))
        print(f"wrote {golden_path(game)}")


if __name__ == "__main__":
    main(sys.argv[1:])
