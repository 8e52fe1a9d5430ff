"""The search's registry of games (council.mcts.games) loads each game's part once, whole,
whichever threads ask first: a server's first searches of two games, in two threads, once
found it marked loaded before The Council had registered (INTERNAL, seen under load)."""

from __future__ import annotations

import subprocess
import sys

# A fresh interpreter (this one has loaded the registry already): threads held at a barrier
# all ask at once for every game's search settings.
FIRST_ASKS = """
import threading
from council.engine.games import all_games
from council.mcts.games import search_game
names = [g.name for g in all_games()] * 4
barrier, failed = threading.Barrier(len(names)), []
def ask(name):
    barrier.wait()
    try:
        search_game(name)
    except Exception as error:
        failed.append(repr(error))
threads = [threading.Thread(target=ask, args=(n,)) for n in names]
[t.start() for t in threads]
[t.join() for t in threads]
print(failed)
"""


def test_threads_asking_first_all_get_every_games_search_settings() -> None:
    for _ in range(5):  # the race needs the threads to meet in the loading: several tries
        done = subprocess.run(
            [sys.executable, "-c", FIRST_ASKS], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[]", done.stdout
