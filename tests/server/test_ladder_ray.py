"""Ray: a small ladder run as Ray tasks on a private local Ray instance stores exactly the
games an in-process run stores.

Ray 2.x no longer has ``local_mode``; ``--ray-address local`` starts a local instance
(``ray.init(num_cpus=..., include_dashboard=False)``) the way a cluster would run the tasks,
in separate worker processes.
"""

from __future__ import annotations

import os

from council.server.ladder import Store, run_ladder

ENTRANTS = ["random", "greedy", "ismcts:iterations=30"]


def _key(g):
    return (g.id, g.seats, g.labels, g.scores, g.winners, g.ranks, g.moves, g.turns, g.status)


def test_a_small_ladder_runs_as_ray_tasks(tmp_path):
    seen = []
    with Store(str(tmp_path / "ray.sqlite")) as on_ray:
        summary = run_ladder(
            on_ray, ENTRANTS, deals=2, ray_address="local", workers=2, on_game=seen.append
        )
        import ray

        assert not ray.is_initialized()  # the instance it started is shut down again
        assert (summary.scheduled, summary.played, summary.forfeits) == (12, 12, 0)
        ray_games = sorted(map(_key, on_ray.games()))
        workers = {g.worker for g in on_ray.games()}
    with Store(":memory:") as serial:
        run_ladder(serial, ENTRANTS, deals=2, workers=1)
        assert sorted(map(_key, serial.games())) == ray_games
    assert sorted(g.id for g in seen) == [k[0] for k in ray_games]
    pid = str(os.getpid())
    assert all(not w.endswith(f":{pid}") for w in workers)  # played in Ray's workers
