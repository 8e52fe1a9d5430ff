"""A ladder killed mid-run (SIGKILL, pool workers included) and resumed ends with exactly the
scheduled games: none lost, none stored twice, the games stored before the kill untouched."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from council.ladder import schedule

# ismcts on a small time budget: a game lasts about half a second, so the kill lands while
# most of the 24 games are still to play.
ENTRANTS = ["random", "greedy", "ismcts:time_s=0.004"]
DEALS = 4


def _stored(db: str) -> dict[str, tuple]:
    if not os.path.exists(db):
        return {}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30, isolation_level=None)
    try:
        # One read transaction: both counts from the same snapshot while the ladder writes.
        conn.execute("BEGIN")
        rows = conn.execute("SELECT id, moves, scores, finished_at FROM games").fetchall()
        seats = conn.execute("SELECT COUNT(*) FROM seats").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not created yet
        return {}
    finally:
        conn.close()
    assert seats == 2 * len(rows)  # every stored game has all its seats
    return {row[0]: row[1:] for row in rows}


def _ladder(db: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "council.ladder.cli",
        "run",
        *ENTRANTS,
        "--deals",
        str(DEALS),
        "--db",
        db,
        "--workers",
        "2",
        "--no-progress",
    ]


def test_a_killed_ladder_resumes_with_exactly_the_scheduled_games(tmp_path):
    db = str(tmp_path / "ladder.sqlite")
    scheduled = {g.id for g in schedule(len(ENTRANTS), 2, DEALS, seed=0)}
    assert len(scheduled) == 24
    proc = subprocess.Popen(
        _ladder(db), start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while len(_stored(db)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its pool workers, mid-game
        proc.communicate()
    before = _stored(db)
    assert 3 <= len(before) < len(scheduled), "the kill did not land mid-run"
    assert set(before) <= scheduled

    done = subprocess.run(_ladder(db), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _stored(db)
    assert set(after) == scheduled
    # The games stored before the kill were not replayed (same rows, same write times).
    assert {k: after[k] for k in before} == before
    played = len(scheduled) - len(before)
    assert f"played {played} games" in done.stderr
    assert f"({len(before)} were stored already" in done.stderr
    assert "24/24 games stored" in done.stdout

    again = subprocess.run(_ladder(db), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "played 0 games" in again.stderr
    assert _stored(db) == after
