"""The search's results, bit for bit, on fixed-seed searches of both games: moving code
between the search and the games' own modules must not change one visit or one float
(golden_searches.py lists the cases and rewrites the golden file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_searches import results

GOLDEN = json.loads((Path(__file__).parent / "golden" / "searches.json").read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    # Through JSON, as the golden file was written: tuples become lists, floats round-trip.
    return json.loads(json.dumps(results()))


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_search_results_match_the_golden_file(now, case):
    assert now[case] == GOLDEN[case]


def test_every_case_has_a_golden_result(now):
    assert sorted(now) == sorted(GOLDEN)
