"""Council of Four played on its board, and the page's accessibility (issue #30), in headless
Chromium like tests/server/test_browser.py (whose fixtures these tests share):
tests/browser/board_play.mjs plays a whole game by clicks on the board's targets only (and
their chooser), then another by the keyboard only, at a phone's size; tests/browser/a11y.mjs
runs axe-core (an npm dependency of tests/browser, installed by the ``node`` fixture's
``npm ci``) on every screen of both games at 390x844, 1280x720 and 1440x900.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from test_browser import _play, chromium, node, page_address  # noqa: F401 (fixtures)

from council.engine.council_of_four_actions import Action

pytestmark = pytest.mark.usefixtures("fixed_chance")  # (conftest.py: one seeded game a run)


def _finished(seen: dict, sizes: set[str]) -> None:
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    assert seen["duplicateIds"] == [] and seen["error"] is None
    assert seen["status"] == "Game over" and len(seen["scores"]) == 2
    assert seen["applied"] == seen["moves"] > 20  # every move a click (or key) on the board
    # The board's header in a player's words: no rule's internal name ("pay_permit").
    assert len(seen["headers"]) > 5
    for header in seen["headers"]:
        assert "_" not in header and "turn:" not in header, header
    paying = [header for header in seen["headers"] if " council for permit tile " in header]
    assert paying and all(": pay the " in header for header in paying), paying
    # Every payment's chooser inside the window (a long one scrolls inside itself); the
    # king's balcony's (10 moves) too, opened at the window's bottom edge.
    fits = seen["paymentFits"]
    assert {fit["size"] for fit in fits} == sizes, fits
    assert all(fit["inside"] and fit["scrollsInside"] for fit in fits), fits


def _opening_targets(seen: dict) -> dict[str, str]:
    """The opening's targets (seed 7, seat 0): every legal action has one, and each target
    is named for what it plays."""
    found = {t["key"]: t["label"] for t in seen["firstTargets"]}
    kinds = {key.split("-")[0] for key in found}
    assert kinds == {"city", "balcony", "tile", "deck", "seat"}, found
    assert found["tile-coast-0"].endswith(": acquire coast 0")
    assert found["balcony-king"].endswith(": 10 moves")  # 5 colours, main and quick
    assert found["seat-0"] == "Seat 0 (you): engage"
    # The king's reachable cities, with the journey's cost.
    assert found["city-Hellar"] == "Hellar: king Hellar (king's journey 1 road, 2 coins)"
    assert "0 roads, 0 coins" in found["city-Juvelar"]
    return found


def test_a_whole_game_by_clicks_on_the_board(node, chromium, page_address, tmp_path):  # noqa: F811
    seen = _play(node, chromium, "board_play.mjs", page_address, tmp_path, "mouse")
    _finished(seen, {"1280x720", "1440x900", "390x844"})
    _opening_targets(seen)
    # An inspecting click (a city with no move) says what it is and plays nothing.
    assert seen["inspected"].startswith("city-") and seen["inspectButtons"] == 0
    city = seen["inspected"].removeprefix("city-")
    assert seen["inspectText"].startswith(city) and "No legal move here now." in seen["inspectText"]
    assert seen["inspectClosed"]
    # A target of several moves opens the chooser, grouped; Escape closes it, focus kept.
    assert seen["balconyGroups"] == [
        "Main action: elect, +4 coins",
        "Quick action: elect for 1 assistant",
    ]
    assert all(Action.from_text(text).balcony == 0 for text in seen["balconyChoices"])
    assert seen["escapeFocus"] == "balcony-coast"
    assert seen["appliedAfterLooking"] == 0 and seen["logAfterLooking"] == 0
    # Payments grouped by their cost, cheapest first in the chooser.
    assert seen["payments"] and all(" card" in p and " coin" in p for p in seen["payments"])
    for name in ("opening", "mid", "final"):
        assert (tmp_path / f"board-play-mouse-{name}.png").read_bytes().startswith(b"\x89PNG")


def test_a_whole_game_by_the_keyboard_on_the_board(node, chromium, page_address, tmp_path):  # noqa: F811
    seen = _play(node, chromium, "board_play.mjs", page_address, tmp_path, "keys")
    _finished(seen, {"390x844"})
    _opening_targets(seen)
    # Into the board: Shift+Tab from the first action, or the page's first Tab stops: the
    # skip links, to the first action and to a target of the board.
    assert seen["shiftTabsToBoard"] <= 3
    assert seen["skipToActions"]["link"] == "Skip to your actions"
    assert seen["skipToActions"]["action"] is not None
    assert seen["skipToBoard"]["link"] == "Skip to the board"
    assert seen["firstFocus"] in {t["key"] for t in seen["firstTargets"]}
    # After every move (and the bots' answers) the focus is back on a target of the board.
    assert seen["focusAfterMove"] == {"target": seen["moves"]}


def test_axe_finds_no_serious_violation_on_any_screen(node, chromium, page_address, tmp_path):  # noqa: F811
    seen = _play(node, chromium, "a11y.mjs", page_address, tmp_path)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == [] and seen["failedRequests"] == []
    # The openings at every size, each later screen at one size in turn (a11y.mjs).
    phone, laptop, desktop = sizes = ("390x844", "1280x720", "1440x900")
    later = {
        "four": (("hint", phone), ("chooser", laptop), ("mid", desktop), ("over", phone)),
        "council": (("hint", laptop), ("bid", desktop), ("reveal", phone), ("over", laptop)),
    }
    assert seen["checked"] == [
        checked
        for game, screens in later.items()
        for checked in (
            *(f"{game}-opening {size}" for size in sizes),
            *(f"{game}-{screen} {size}" for screen, size in screens),
        )
    ]
    assert seen["serious"] == []
    # Headings in order (axe's heading-order, a moderate finding): The Council's table had
    # its h3s straight after the page's h1.
    assert seen["headingOrder"] == []
    for game in ("four", "council"):
        assert seen[game]["status"] == "Game over" and seen[game]["error"] is None
        # The hint by the keyboard: the focus back on Hint, the hint region not live, its
        # best move marked in the action list and said once, its candidates playable.
        hint = seen[f"{game}Hint"]
        assert hint["focus"] == "hint-button" and hint["hintLive"] in (None, "off")
        assert len(hint["markedInList"]) == 1 and hint["candidates"][0] == hint["best"]
    (said_hint,) = seen["fourHint"]["announced"]
    assert said_hint.startswith(f"Hint: {seen['fourHint']['best']}, ") and said_hint.endswith(
        "% to win."
    )
    # A candidate played its move; the focus stayed off the page's body.
    assert seen["fourFirstLog"] == f"Seat 0 (you): {seen['fourCandidate']}"
    assert seen["fourFocusAfterMove"] != "BODY"
    # Each bot move announced once, in the order played (the log's bot lines).
    bots = [line for line in seen["fourLog"] if " bot): " in line]
    said = [a.split(". ")[0] for a in seen["fourAnnounced"] if a.split(":")[0].endswith("bot)")]
    assert bots and Counter(said) == Counter(bots)
    assert seen["fourAnnounced"][-1].startswith("Game over.")
    # What the moves did (ApplyAction's effects) under their lines of the log.
    assert seen["fourEffects"] > 0
    # A bot's move too (RecommendAction's effects, as every seat may know them), each line
    # about a seat named as the log names it; said once with the move.
    four = seen["four"]
    bot_effects = [(move, lines) for move, lines in four["logEffects"] if " bot): " in move]
    assert any(lines for _, lines in bot_effects)
    for _, lines in four["logEffects"]:
        for line in lines:
            assert "(s)" not in line and "_" not in line, line
            if line.startswith("Seat "):
                assert re.match(r"Seat \d \((you|\w+ bot)\): ", line), line
    move, lines = next((m, ls) for m, ls in bot_effects if ls)
    assert any(a == ". ".join([move, *lines]) for a in seen["fourAnnounced"])
    # Once over: no "Your actions" heading; each seat's final score in VP parts (the game-
    # ending move's effects: the VP track, the tiles, the awards) that sum to its score.
    assert not four["actionsTitleShown"]
    scores = dict(re.match(r"(.+\)): (\d+) VP", s).groups() for s in four["scores"])
    assert [seat for seat, _ in four["scoreParts"]] == list(scores)
    for seat, parts in four["scoreParts"]:
        terms, total = parts.split(" = ")
        assert terms.startswith("VP track ") and total == f"{scores[seat]} VP", parts
        assert sum(int(t.rsplit(" ", 1)[1]) for t in terms.split(" + ")) == int(scores[seat])
    assert any("nobility track, first" in parts for _, parts in four["scoreParts"])
    # The board and the seats' panels in words.
    summary = seen["fourSummary"]
    assert summary["headings"] == [
        "The board in words",
        "Seats",
        "Councils (newest first)",
        "Face-up permit tiles",
        "Cities",
    ]
    assert summary["items"] >= 2 + 5 + 9 + 15
    for seat, (role, label) in enumerate(seen["fourPanels"]):
        assert role == "group" and label.startswith(f"Seat {seat} (") and "coins" in label
        assert ("hand: " in label) and ("hidden" in label) == (seat != 0)


def test_a_whole_game_of_the_council_on_its_table(node, chromium, page_address, tmp_path):  # noqa: F811
    # tests/browser/council_table.mjs: picks, bids, the end of a bid, the cards to reveal and
    # the reveal, each a button of the table (clicked, or every other one by the keyboard).
    seen = _play(node, chromium, "council_table.mjs", page_address, tmp_path)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == [] and seen["failedRequests"] == []
    assert seen["end"] == "over", seen
    final = seen["final"]
    assert final["status"] == "Game over" and final["error"] is None and len(final["scores"]) == 3
    assert not final["actionsTitleShown"]
    kinds = seen["kinds"]
    assert {"pick", "bid", "endBid", "reveal"} <= set(kinds), kinds
    # (At least a hand's five picks: a sealed game's chance is drawn afresh at each move, so
    # the page's ?seed gives the deal, not the game's length.)
    assert kinds["pick"] >= 5 and seen["keyboardMoves"] >= seen["moves"] // 2 - 1
    # Every move of seat 0 came from the table: its log lines are as many as its presses.
    mine = [move for move, _ in final["logEffects"] if move.startswith("Seat 0 (you): ")]
    assert len(mine) == seen["moves"]
    assert (tmp_path / "council-table-final.png").read_bytes().startswith(b"\x89PNG")
