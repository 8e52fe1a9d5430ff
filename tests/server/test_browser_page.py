"""The web page on any screen, and never losing a game (issue #30), in headless Chromium
(tests/browser/layout.mjs and resume.mjs, run as tests/server/test_browser.py runs its
scripts, with its fixtures).

Layout: at 390x844, 1280x720 and 1440x900, Council of Four (4 seats) at its opening, The
Council (5 seats) at seat 0's first bid and Kuhn poker's table: no sideways scrolling, no text
on screen below 11 px at the default zoom (the board's SVG and the seats' panels measured as
drawn: font size times the text's scale on screen), the actions near the top on a phone and
where they were after a hint, the seats' panels whole, no zoom tools for Kuhn poker. Council
of Four on a desktop: the whole board in sight at the default zoom, the hand and the first
action too; on a phone, its board shown a part at a time (the regions, the king's board, the
seats), every target of the move tappable once its part's button is tapped (two taps), the
text >= 11 px, the status line and the hand in sight, in each part. Every text shown whole,
in every game at every size and in each part: its box (as laid out, the SVGs' texts drawn
larger included) overlapping no other text's, not cut by its container and under no shape
drawn over it; and on a desktop the board's viewport no taller than the board (no empty band
below it). Kuhn poker played as a match of two hands: the seat's own card face up and the
other's face down until a showdown (checked against the sealed blob's full state), the pot,
the betting, whose turn, and the match's chips per seat carried by "Next hand" and kept
across a reload.

Never losing a game: the Bot speed setting (instant, kept), a reload mid-game resumes the
same position and log, a second tab of the game is in charge and the first is told (a move
in the second is kept when the first takes over), a server stopped mid-game shows
"Connection lost — retrying in N s" and the game goes on once the server is back on the
same port with the same
$XDG_STATE_HOME (its seal keys), Save game / Open game, New game asking first; and The
Council's reveal chosen by toggling cards, its last event's bids gone at the next draft.

Screenshots (layout-GAME-WxH.png) go to a temporary folder, or to docs/ with
COUNCIL_UPDATE_SCREENSHOTS=1 (``make screenshots``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import test_browser
from test_browser import BROWSER, _play, _shots, _unsealed

pytestmark = pytest.mark.usefixtures("fixed_chance")  # (conftest.py: one seeded game a run)

# test_browser.py's fixtures: Node.js with Playwright-core, Chromium, the page's server.
node = test_browser.node
chromium = test_browser.chromium
page_address = test_browser.page_address

SIZES = ("390x844", "1280x720", "1440x900")
GAMES = ("council-of-four", "the-council", "kuhn-poker")


def test_the_page_fits_every_screen_with_readable_text(node, chromium, page_address, tmp_path):
    shots = _shots(tmp_path)
    seen = _play(node, chromium, "layout.mjs", page_address, shots)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    assert sorted(seen["layouts"]) == sorted(SIZES)
    for size in SIZES:
        for game in GAMES:
            at = seen["layouts"][size][game]
            where = f"{game} at {size}"
            # No sideways scrolling of the page.
            assert at["pageWidth"] <= at["windowWidth"], where
            # The smallest text shown, the board's SVG and the seats' panels included.
            many = 20 if game == "kuhn-poker" else 100  # (texts on screen: the measure saw them)
            assert at["texts"] > many and at["smallest"][0][0] >= 11, (where, at["smallest"])
            assert (shots / f"layout-{game}-{size}.png").read_bytes().startswith(b"\x89PNG")
            _no_text_hidden(at["textLayout"], where, many)
        four = seen["layouts"][size]["council-of-four"]
        # The board's SVG is in the measure; the four panels whole.
        assert {kind for _, kind, _ in four["smallest"]} & {"board svg", "panel svg"}
        width = int(size.split("x")[0])
        # The hand, in sight (beside the actions; on a phone at the foot of the window).
        assert four["hand"].startswith("Your hand (") and four["handInWindow"], where
        if width >= 900:
            # The whole board in sight at the default zoom, with the first action: every
            # target on the board a tap away (the seats' own, in their panels below, apart).
            assert four["boardFits"] and four["actionInWindow"], where
            # The viewport as tall as the board that its width scales: no empty band.
            assert 0 <= four["bandBelowBoard"] <= 2, (where, four["bandBelowBoard"])
            on_board = {t for t in four["targets"] if not t.startswith(("seat-", "permit-"))}
            assert on_board and on_board <= set(four["tappable"]), where
        assert len(four["panels"]) == 4
        assert all(
            p["left"] >= 0 and p["right"] <= width and p["width"] >= 362 for p in four["panels"]
        )
        # A hint's table is below the actions: they stay where they were, the page as wide.
        assert four["actionsTopAfterHint"] == four["actionsTop"]
        assert four["afterHint"]["pageWidth"] <= width and four["smallestAfterHint"][0][0] >= 11
    # On a phone, the actions come before the board, near the top (The Council's 5 seats
    # had them 2,165 px down).
    phone = seen["layouts"]["390x844"]
    assert phone["council-of-four"]["actionsTop"] < 400 and phone["the-council"]["actionsTop"] < 450
    # On a phone, Council of Four's board a part at a time: every target of the move on screen
    # and tappable once its part's button is tapped, the text readable, the status line (the
    # decision) and the hand in sight.
    four = phone["council-of-four"]
    parts = four["parts"]
    regions = ["region-coast", "region-hills", "region-mountains"]
    assert list(parts) == [*regions, "king-board", "panels"]
    reached = set().union(*(set(at["tappable"]) for at in parts.values()))
    assert four["targets"] and set(four["targets"]) <= reached
    for part, at in parts.items():
        assert at["smallest"][0][0] >= 11 and at["pageWidth"] <= 390, (part, at["smallest"])
        assert at["statusInWindow"] and at["handInWindow"], part
        _no_text_hidden(at["textLayout"], part, 20)
    # Kuhn poker: a table, not zoom buttons that zoom nothing.
    assert not any(seen["layouts"][size]["kuhn-poker"]["zoomToolsShown"] for size in SIZES)
    _kuhn_match(seen["kuhnMatch"])
    for size in ("390x844", "1440x900"):
        assert (shots / f"kuhn-poker-showdown-{size}.png").read_bytes().startswith(b"\x89PNG")


def _no_text_hidden(layout: dict, where: str, many: int) -> None:
    """Every text on screen whole (layout.mjs's textLayout): none overlapping another, cut
    by its container or under a shape drawn over it (an enlarged board label ran into its
    neighbours: issue #38)."""
    assert layout["measured"] > many, (where, layout["measured"])
    assert layout["overlaps"] == [], (where, layout["overlaps"])
    assert layout["cut"] == [] and layout["covered"] == [], (where, layout)


def _kuhn_table(table: dict, hand: int, match_before: list[int]) -> None:
    """One drawing of Kuhn poker's table against the full state its blob holds."""
    full = _unsealed(table["blob"])["kuhnPoker"]
    history = full.get("history", [])
    folded = len(history) >= 2 and history[-1] == "pass" and "bet" in history
    showdown = table["over"] and not folded
    # Seat 0's card face up; seat 1's face down until a showdown shows it.
    assert table["cards"][0] == full["cards"][0] and not table["faceDown"][0]
    if showdown:
        assert table["cards"][1] == full["cards"][1] and not table["faceDown"][1]
    else:
        assert table["cards"][1] == "?" and table["faceDown"][1]
    # The pot: each seat's ante and its bets (a call is a bet facing one).
    bets = [i % 2 for i, act in enumerate(history) if act == "bet"]  # (by seat: seat 0 first)
    put_in = [1 + bets.count(p) for p in (0, 1)]
    assert table["inPot"] == [f"in the pot: {n} chip{'s' if n > 1 else ''}" for n in put_in]
    assert table["pot"] == f"Pot: {sum(put_in)} chips"
    assert len(table["betting"]) == max(1, len(history))
    assert table["phase"].startswith(f"Hand {hand}")
    if not table["over"]:
        seat = full.get("current", 0)
        assert table["toMove"] == [table["toMove"][0]] and table["toMove"][0].startswith(
            f"Seat {seat}"
        )
        assert table["phase"].endswith(" to act") and not table["nextHand"]
        # The decision in words, not its name ("bet"): pass or bet, or fold or call.
        words = "pass or bet" if table["decision"].startswith("Pass") else "fold or call"
        assert table["status"] == f"Seat 0 (you) to move: {words}", table["status"]
    else:
        assert table["toMove"] == [] and table["nextHand"]
        assert ("showdown" in table["phase"]) == showdown
    # The match's chips: the hands before, and this one once it is over.
    chips = [match_before[p] + (table["scores"][p] if table["over"] else 0) for p in (0, 1)]
    sign = {1: "+", -1: "−", 0: ""}
    words = [
        f"match: {sign[(n > 0) - (n < 0)]}{abs(n)} chip{'' if abs(n) == 1 else 's'}" for n in chips
    ]
    assert table["match"] == words, (table["match"], chips)


def _kuhn_match(match: dict) -> None:
    first, second = match["first"], match["second"]
    assert first["start"]["betting"] == ["no bet yet: each seat has put in its ante of 1 chip"]
    _kuhn_table(first["start"], 1, [0, 0])
    _kuhn_table(first["end"], 1, [0, 0])
    assert first["end"]["betting"][0] == "Seat 0 (you): bet"
    assert sorted(first["end"]["scores"]) in ([-2, 2], [-1, 1])
    # "Next hand": a new sealed game, the first hand's chips carried; kept across a reload.
    carried = first["end"]["scores"]
    assert match["afterNextHand"]["blob"] != first["end"]["blob"]
    _kuhn_table(match["afterNextHand"], 2, carried)
    assert match["afterReload"] == match["afterNextHand"]
    _kuhn_table(second["start"], 2, carried)
    _kuhn_table(second["end"], 2, carried)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Serve:
    """`council-ai serve` in a process of its own, on a fixed HTTP port, its seal keys in a
    given $XDG_STATE_HOME: stopped and started again as a real restart would."""

    def __init__(self, state_home: Path):
        self.port = _free_port()
        self.env = {**os.environ, "XDG_STATE_HOME": str(state_home)}
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "council.server.cli", "serve"]
        command += ["--address", "127.0.0.1:0", "--http-address", f"127.0.0.1:{self.port}"]
        command += ["--workers", "1", "--grace", "0"]
        self.process = subprocess.Popen(
            command, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        line = self.process.stdout.readline()  # one JSON line once listening
        assert json.loads(line)["http"] == f"127.0.0.1:{self.port}", line

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process.stdout.close()
        self.process = None


def test_the_page_never_loses_a_game(node, chromium, tmp_path):
    serve = _Serve(tmp_path / "state")
    serve.start()
    try:
        with subprocess.Popen(
            [node, str(BROWSER / "resume.mjs"), f"http://127.0.0.1:{serve.port}", str(tmp_path)],
            cwd=BROWSER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COUNCIL_CHROMIUM": chromium},
        ) as script:
            deadline = time.monotonic() + 600  # (a generous bound for a shared machine)
            last = ""
            for line in script.stdout:  # "@@stop", "@@start": asked by the script
                if line.startswith("@@"):
                    {"@@stop": serve.stop, "@@start": serve.start}[line.strip()]()
                    script.stdin.write("done\n")
                    script.stdin.flush()
                elif line.strip():
                    last = line
                assert time.monotonic() < deadline
            assert script.wait(timeout=60) == 0, f"{last}\n{script.stderr.read()}"
    finally:
        serve.stop()
    seen = json.loads(last)
    assert seen["pageErrors"] == [] and seen["allSameOrigin"]
    # (The calls while the server was down failed: the page retried them.)
    assert all("ERR_CONNECTION_REFUSED" in f for f in seen["failedRequests"])
    assert [e for e in seen["consoleErrors"] if "ERR_CONNECTION_REFUSED" not in e] == []
    # Bot speed: normal by default (500 ms), instant chosen and kept through a reload.
    assert seen["defaultBotSpeed"] == "normal" and seen["defaultDelay"] == 500
    assert seen["instantDelay"] == 0 and seen["delayAfterReload"] == 0
    assert seen["botSpeedAfterReload"] == "instant"
    # A reload: the same position, log (each move's effect lines under it too), board,
    # status and actions.
    assert seen["logBeforeReload"] >= 6 and seen["effectLinesBeforeReload"] > 0
    assert seen["reloadSame"] == dict.fromkeys(
        ("log", "effects", "blob", "board", "status", "actions"), True
    )
    # A second tab: the first is told and plays nothing; taking over keeps the second's move.
    assert "open in another tab" in seen["firstTabTold"] and seen["firstTabInert"]
    assert seen["firstTabActions"] == 0
    assert seen["takenOverWithTheMove"] and seen["secondTabInert"]
    # The server stopped and started again: the lost connection said, retried with a longer
    # wait each time, and the move made once it was back (a human's and the bot's reply).
    assert seen["connectionLost"].startswith("Connection lost — retrying in ")
    assert seen["backoff"].startswith("Connection lost — retrying in 2 s")
    # The status line says it too (not "your turn"), until the server is back.
    assert seen["statusWhileLost"] == "Connection lost: waiting for the server"
    assert seen["statusAfterRestart"].startswith("Seat 0 (you) to move")
    # Undo while the bot thinks: the move taken back, the bot's move dropped.
    assert seen["undoWhileThinking"] and seen["undoneWhileThinking"]
    assert seen["logAfterRestart"] >= 2 and seen["errorAfterRestart"] is None
    # Save game, then Open game: the saved position back.
    saved = json.loads((tmp_path / "saved-game.json").read_text())
    assert saved["format"] == "council-ai-page-game/1" and saved["name"] == "council-of-four"
    assert set(saved) >= {"blob", "tickets", "log", "seats"} and seen["openedSame"]
    # New game asks: "Keep playing" keeps the game, "Start a new game" starts one.
    assert seen["askText"].startswith("Start a new game?")
    assert seen["keptAfterCancel"] and seen["newGameLog"] == 0
    # The Council: the card kinds explained; the reveal by toggling the drafted cards.
    assert seen["help"] == "What the cards do"
    assert {"Ace", "Pawn", "Court", "Crown"} <= set(seen["helpTerms"])
    assert sorted(seen["pickerCards"]) == sorted(seen["drafted"]) and len(seen["drafted"]) == 5
    assert seen["confirmEmpty"] == "Reveal no card"
    first = seen["pickerCards"][0]
    assert seen["pressed"] == [first] and seen["confirm"] == f"Reveal {first}"
    assert f"reveal {first}" in seen["listed"]  # the list stays: the keyboard's route
    assert seen["revealLogged"] == f"Seat 0 (you): reveal {first}"
    # At the next hand's draft, the last event's bids (still in the state) are not shown.
    if seen["nextPhase"] == "draft":
        assert seen["bidsAtDraft"] == 0 and seen["eventAtDraft"] == 0
    assert seen["kept"] == "the-council"
