"""The page plays a whole seeded game of A War of Whispers in headless Chromium: seat 0 (the
first listed action each time) against a beginner bot, at a desktop's size and again at a
phone's, its board the server's SVG (the map's regions, the councils' seats).
Chromium like tests/server/test_browser.py, whose fixtures these tests share."""

from __future__ import annotations

import re

import pytest
from test_browser import _play, chromium, node, page_address  # noqa: F401 (fixtures)

from council.engine._a_war_of_whispers import current_content

pytestmark = pytest.mark.usefixtures("fixed_chance")  # (conftest.py: one seeded game a run)


def test_a_whole_game_on_its_map(node, chromium, page_address, tmp_path):  # noqa: F811
    seen = _play(node, chromium, "a_war_of_whispers.mjs", page_address, tmp_path)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    assert seen["regions"] == len(current_content().regions) and seen["councilSeats"] == 20
    assert seen["status"] == "Game over" and seen["error"] is None, seen
    assert seen["moves"] > 50  # four rounds of a seat's agents, steps and cards
    scores = seen["scores"]
    assert len(scores) == 2 and any(s.endswith("— winner") for s in scores)
    in_points = r"Seat \d \(.+\): -?\d+ points?( — winner)?"
    assert all(re.fullmatch(in_points, s) for s in scores), scores
    phone = seen["phone"]
    assert phone["status"] == "Game over" and phone["error"] is None, phone
    assert seen["phoneMoves"] > 50 and any(s.endswith("— winner") for s in phone["scores"])
    for size in ("1440x900", "390x844"):
        png = (tmp_path / f"a-war-of-whispers-{size}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
