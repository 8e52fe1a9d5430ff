"""Ray: a small ladder run as Ray tasks on a private local Ray instance stores exactly the
games an in-process run stores.

Ray 2.x no longer has ``local_mode``; ``--ray-address local`` starts a local instance the
way a cluster would run the tasks, in separate worker processes. The ladder runs through
the command line in its own process, as an operator runs it: Ray's driver shares the
process-wide gRPC runtime, which the test session's in-process gRPC servers also use.
Skipped when Ray (the ``ladder-ray`` extra) is not installed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from council.ladder import Store, run_ladder

# Looked up, not imported: Ray is only ever imported in the command's own process.
if importlib.util.find_spec("ray") is None:
    pytest.skip("the ladder's Ray runner needs ray (the ladder-ray extra)", allow_module_level=True)

ENTRANTS = ["random", "greedy", "ismcts:iterations=30"]


def _key(g):
    return (g.id, g.seats, g.labels, g.scores, g.winners, g.ranks, g.moves, g.turns, g.status)


def test_a_small_ladder_runs_as_ray_tasks(tmp_path):
    db = tmp_path / "ray.sqlite"
    command = [sys.executable, "-m", "council.ladder.cli", "run", *ENTRANTS]
    command += ["--deals", "2", "--ray-address", "local", "--workers", "2", "--db", str(db)]
    cli = subprocess.Popen(
        command + ["--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = cli.communicate(timeout=300)
    assert cli.returncode == 0, err[-3000:]
    with Store(str(db)) as on_ray:
        ray_games = sorted(map(_key, on_ray.games()))
        workers = {g.worker for g in on_ray.games()}
    assert len(ray_games) == 12
    with Store(":memory:") as serial:
        run_ladder(serial, ENTRANTS, deals=2, workers=1)
        assert sorted(map(_key, serial.games())) == ray_games
    # Played in Ray's worker processes, not in the command's own process.
    assert workers and all(not w.endswith(f":{cli.pid}") for w in workers)
