"""The web page (server/web/) in a real headless Chromium, against a running service (issue
#11): tests/browser/page.mjs drives Debian's ``chromium`` with Playwright-core. The page loads
with no console error and no failed request, the board's SVG shows the 15 cities and the 4
balconies, the Hint button shows candidates, seat 0 plays a main action by clicking the coast
balcony on the board and then an action it lists, Undo takes it back to the opening, and the
rest of a 2-player game against the casual bot (``?bot_delay_ms=0&seed=7``, the first listed
action each time) reaches the final scoring.

Needs ``chromium`` (``make browser`` installs Debian's package when it is missing; or set
``COUNCIL_CHROMIUM`` to another Chromium), Node.js >= 20 and npm: a machine without them fails
here, with a message saying so. ``npm ci`` installs Playwright-core (pinned in
tests/browser/package-lock.json; it downloads no browser) once per lock file, with a stamp
in the git-ignored tests/browser/node_modules, as tests/server/test_node_example.py does.

The screenshots page-opening.png, page-hint.png and page-final.png go to a temporary folder;
``make screenshots`` (``COUNCIL_UPDATE_SCREENSHOTS=1``) writes them into docs/ instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from council.server.app import start_server
from council.server.config import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
BROWSER = ROOT / "tests" / "browser"
STAMP = BROWSER / "node_modules" / ".council-lock-sha256"
SHOTS = ("page-opening.png", "page-hint.png", "page-final.png")


def _tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found: {hint}", pytrace=False)
    return path


@pytest.fixture(scope="module")
def node() -> str:
    """`node`, with Playwright-core installed (npm ci, skipped while the lock file is the one
    last installed)."""
    node = _tool("node", "the browser tests need Node.js >= 20 (apt-get install nodejs npm)")
    lock = hashlib.sha256((BROWSER / "package-lock.json").read_bytes()).hexdigest()
    if not (STAMP.exists() and STAMP.read_text() == lock):
        npm = _tool("npm", "the browser tests need npm (apt-get install npm)")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=BROWSER,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
        STAMP.write_text(lock)
    return node


@pytest.fixture(scope="module")
def chromium() -> str:
    path = os.environ.get("COUNCIL_CHROMIUM") or shutil.which("chromium")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(
            "chromium not found: the browser tests need Debian's chromium "
            "(`make browser`, or apt-get install --no-install-recommends chromium; "
            "or set COUNCIL_CHROMIUM to a Chromium executable)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="module")
def page_address():
    server = start_server(
        ServerConfig(address="127.0.0.1:0", http_address="127.0.0.1:0", search_slots=1)
    )
    yield f"http://{server.http_address}"
    server.stop(grace=None)


def test_the_page_in_chromium_plays_a_whole_game(node, chromium, page_address, tmp_path):
    update = os.environ.get("COUNCIL_UPDATE_SCREENSHOTS") == "1"
    shots = ROOT / "docs" if update else tmp_path
    out = subprocess.run(
        [node, str(BROWSER / "page.mjs"), page_address, str(shots)],
        cwd=BROWSER,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "COUNCIL_CHROMIUM": chromium},
    )
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    seen = json.loads(out.stdout.splitlines()[-1])
    # Loaded: everything from the service itself, with no error in the console.
    assert seen["title"] == "Council of Four"
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    # The board at once, for the human seat to move.
    assert seen["cities"] == 15 and seen["finalCities"] == 15
    assert sorted(seen["balconies"]) == [
        "balcony-coast",
        "balcony-hills",
        "balcony-king",
        "balcony-mountains",
    ]
    assert seen["seatChoices"] == 2 and seen["duplicateIds"] == []
    # The hint: candidates with visits and a win-probability bar each.
    rows = seen["hintRows"]
    assert 1 <= len(rows) <= 5 and seen["hintBars"] == len(rows)
    assert all(r[0] and r[1].endswith(" visits") and r[3].endswith("%") for r in rows)
    # A main action by clicking the board: the coast balcony's actions, then the first.
    assert "actions with the coast council" in seen["balconyStatus"]
    assert seen["balconyActions"] and all("coast" in a for a in seen["balconyActions"])
    assert seen["firstLog"] == f"Seat 0 (you): {seen['firstPlayed']}"
    assert seen["firstPlayed"].startswith(("elect ", "acquire "))  # main actions
    # Undo: the opening again (the same board, no move in the log), then the same move.
    assert seen["undoSameBoard"] and seen["undoLogLines"] == 0 and seen["undoDisabled"]
    assert seen["replayed"] == seen["firstLog"]
    # The whole game, to the final scoring.
    assert seen["status"] == "Game over" and seen["error"] is None and seen["hintDisabled"]
    scores = seen["scores"]
    assert len(scores) == 2 and any(s.endswith("— winner") for s in scores)
    assert {s.split(":")[0] for s in scores} == {"Seat 0 (you)", "Seat 1 (casual bot)"}
    assert seen["logLines"] > seen["moves"] > 1
    for name in SHOTS:
        png = (shots / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
