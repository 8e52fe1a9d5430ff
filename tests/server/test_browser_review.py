"""The page's review view (issue #29, server/web/review.js) in headless Chromium
(tests/browser/review.mjs, run as tests/server/test_browser.py runs its scripts, with its
fixtures).

A record written by ``council-ai arena --record`` (the random agent in seat 0) opened by
"Open record…" and analysed for seat 0 at 30 iterations a move: the progress streams ("Analysing
move k of N…", the graph's points growing) to the end, the graph has one point per reviewed
decision (seat 0's moves), a mistake's mark on it moves the board to that move (the played
and the better move said with their points and the better move's line, and marked on the
board), the arrow keys step, "Explore from here" starts a game of the page from the
position (NewGame's start_position: seat 0 the reader, on the board, with a hint and Undo;
the casual bot's replies in the log) and "Back to the review" returns to the position, the
page's own game behind it again, Home and End go to the ends; no sideways scrolling at
390 px, no serious or critical axe-core violation at 390x844 and 1440x900. Then a Kuhn poker
game played on the page is reviewed by "Review game" (its record from GetGameRecord), its
seats named as in play.

Screenshots: review-390x844.png in a temporary folder; page-review.png there too, or in docs/
with COUNCIL_UPDATE_SCREENSHOTS=1 (``make screenshots``).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
import test_browser
from test_browser import KEYS, _play, _shots

from council.engine.record import play_move, record_from_json
from council.engine.serialize import state_from_proto

pytestmark = pytest.mark.usefixtures("fixed_chance")  # (conftest.py: one seeded game a run)

node = test_browser.node
chromium = test_browser.chromium
page_address = test_browser.page_address


def _arena_record(folder: Path) -> tuple[Path, dict]:
    """A Council of Four record of `council-ai arena` with the random agent in seat 0."""
    command = [sys.executable, "-m", "council.server.cli", "arena", "ismcts:iterations=100"]
    command += ["random", "--deals", "1", "--workers", "1", "--no-progress"]
    command += ["--record", str(folder)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text())
        if record["players"][0]["agent"] == "random":
            return path, record
    raise AssertionError(f"no record with the random agent in seat 0 in {folder}")


def test_the_page_reviews_a_record(node, chromium, page_address, tmp_path):
    path, record = _arena_record(tmp_path / "records")
    shots = _shots(tmp_path)
    seen = _play(node, chromium, "review.mjs", page_address, shots, str(path), str(tmp_path))
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    # The record opened in the review view, in place of the game.
    moves = record["moves"]
    assert seen["moves"] == len(moves) and seen["mainHidden"]
    assert seen["title"] == f"Game review: Council of Four, {len(moves)} moves"
    # Seat 0's decisions, streamed one by one, then the end.
    decisions = [i for i, move in enumerate(moves) if move.get("seat", 0) == 0]
    total = len(decisions)
    assert seen["error"] is None
    texts = [text for text, _ in seen["progress"]]
    assert texts[-1] == f"Analysis done: {total} of {total} moves analysed."
    assert f"Analysing move 2 of {total}…" in texts
    growing = [points for text, points in seen["progress"] if text.startswith("Analysing move")]
    assert any(0 < points < total for points in growing), seen["progress"]
    # One point per reviewed decision, at its move.
    assert seen["points"] == total and seen["pointIndices"] == decisions
    labelled = seen["labelled"]
    for key in ("inaccuracy", "mistake", "blunder"):
        assert seen["marks"][key] == sum(1 for _, label, _ in labelled if label == key)
    assert seen["marks"]["mistake"] + seen["marks"]["blunder"] >= 1
    # Each label a sign and a word, not a colour alone.
    signs = {"inaccuracy": "?! inaccuracy", "mistake": "? mistake", "blunder": "?? blunder"}
    assert all(text == signs[label] for _, label, text in labelled)
    assert [row[0] for row in seen["summary"]] == ["Seat 0 (random)"]
    # The mistake's mark clicked: its move shown, played and best said and marked.
    first_bad = min(i for i, label, _ in labelled if label in ("mistake", "blunder"))
    assert seen["markIndex"] == first_bad and seen["current"] == first_bad
    line = seen["moveLine"]
    assert line.startswith(f"Seat 0 (random) played {moves[first_bad]['text']}: ")
    assert ". Better: " in line and " VP expected against " in line and " VP lost), " in line
    assert "Its line: Seat 0 (random): " in line and "→ end" not in line
    assert seen["marked"] >= 2
    # The screens: no sideways scrolling, no serious accessibility violation.
    for size, layout in seen["layouts"].items():
        assert layout["pageWidth"] <= layout["windowWidth"], size
    assert sorted(seen["layouts"]) == ["1440x900", "390x844"]
    assert seen["serious"] == [], seen["serious"]
    assert (shots / "page-review.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "review-390x844.png").read_bytes().startswith(b"\x89PNG")
    # The arrow keys step.
    assert seen["afterRight"] == first_bad + 1 and seen["afterLeft"] == first_bad - 1
    # Explore: a game of the page from that position, the reader seat 0 on the board, the
    # other seat the casual bot (the review's budget in iterations), each move in the log.
    assert seen["exploreReviewHidden"] and seen["exploreTargets"] > 0
    assert seen["hintHeadings"] == ["Move", "Plays it", "Win %", "VP"] and seen["hintRows"]
    log, first_mine = seen["exploreLog"], seen["exploreFirstMine"]
    assert all(line.startswith(("Seat 0 (you): ", "Seat 1 (casual bot): ")) for line in log), log
    assert log[first_mine].startswith("Seat 0 (you): ")
    replies = [line for line in log[first_mine:] if line.startswith("Seat 1 (casual bot): ")]
    assert replies, log
    # Undo takes the reader's last move back (and the bot's replies after it).
    after = seen["afterUndo"]
    assert len(after) < len(log) and after == log[: len(after)]
    assert log[len(after)].startswith("Seat 0 (you): ")
    # The game explored started from the position before that move as seat 0 saw it, seat
    # 1's hand dealt afresh (NewGame's start_position).
    position = state_from_proto(record_from_json(path.read_text()).start)
    for move in record_from_json(path.read_text()).moves[: first_bad - 1]:
        play_move(position, move)
    start = state_from_proto(KEYS.open(base64.b64decode(seen["exploreBlob"]), ttl_s=3600).start)
    assert start.view(0) == position.view(0) and start.view(1) != position.view(1)
    # Storage kept the page's own game meanwhile, and it is back behind the review.
    assert seen["exploreStored"] == seen["blobBefore"]
    assert seen["backAt"] == first_bad - 1 and seen["exploringHidden"] and seen["gameShownAgain"]
    assert (seen["afterEnd"], seen["afterHome"]) == (len(moves), 0)
    # The page's own game, reviewed by "Review game" (GetGameRecord).
    review = seen["pageReview"]
    assert review["title"] == f"Game review: Kuhn poker, {seen['pageGameMoves']} moves"
    assert review["seat"] == "0" and review["error"] is None
    assert review["seats"] == ["every seat", "Seat 0 (you)", "Seat 1 (beginner bot)"]
    done = int(review["progress"].split(" of ")[0].split()[-1])
    assert done >= 1 and review["progress"] == f"Analysis done: {done} of {done} moves analysed."
    assert review["points"] == done
    # The same game saved, then opened as a record: its seats named as the page named them.
    saved = seen["savedReview"]
    assert saved["seats"] == ["every seat", "Seat 0 (you)", "Seat 1 (beginner bot)"]
    assert saved["moveLine"].startswith("Seat 0 (you) played ")
