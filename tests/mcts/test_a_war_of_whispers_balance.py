"""bench/a_war_of_whispers_balance.py's tally: the empire with the most cities at the end
(ties split), each opening seat's wins (shared wins split), and the flags it raises."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from council.engine._a_war_of_whispers import AWarOfWhispersState

BEAR, LION = 0, 1
FROSTHOLM = 0  # the bear's row-0 region: 1 city


@pytest.fixture(scope="module")
def bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "a_war_of_whispers_balance.py"
    spec = importlib.util.spec_from_file_location("bench_balance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def opening() -> AWarOfWhispersState:
    """Every empire holds its four home regions: 1 + 2 + 0 + 1 cities each, a five-way tie."""
    return AWarOfWhispersState.new_game(4, seed=3)


def lion_took_frostholm() -> AWarOfWhispersState:
    """The lion holds the bear's 1-city Frostholm: lion 5 cities, bear 3, the others 4."""
    raw = opening().to_raw()
    assert raw["owner"][FROSTHOLM] == BEAR
    raw["owner"][FROSTHOLM] = LION
    raw["supply"][BEAR] += raw["banners"][FROSTHOLM]
    raw["supply"][LION] -= raw["banners"][FROSTHOLM]
    return AWarOfWhispersState.from_raw(raw)


def test_leading_empires_are_those_with_the_most_cities(bench):
    assert bench.leading_empires(opening()) == [0, 1, 2, 3, 4]
    assert bench.leading_empires(lion_took_frostholm()) == [LION]


def test_tally_splits_ties_between_empires_and_between_winners(bench):
    tied, lion = opening().adjudicated(), lion_took_frostholm().adjudicated()
    assert tied.winners() == [0, 1, 2, 3]  # equal scores, no swaps, no cards: all share
    result = bench.tally([tied, lion], players=4)
    assert result["games"] == 2
    leads = {name: s["share"] for name, s in result["empire_leads"].items()}
    assert leads == {"bear": 0.1, "lion": 0.6, "horse": 0.1, "elephant": 0.1, "eagle": 0.1}
    winners = lion.winners()
    for p in range(4):
        expected = (0.25 + (1 / len(winners) if p in winners else 0)) / 2
        assert result["seat_wins"][str(p)]["share"] == round(expected, 4)
        assert result["seat_wins"][str(p)]["fair"] == 0.25


def test_tally_flags_an_empire_that_never_leads_and_seats_beyond_their_share(bench):
    lion = lion_took_frostholm().adjudicated()
    assert lion.winners() == [0, 1]  # seats 0 and 1 hold the lion high on this deal
    result = bench.tally([lion] * 30, players=4)
    never = {f for f in result["flags"] if f.startswith("empire")}
    assert never == {f"empire {e} never leads" for e in ("bear", "horse", "elephant", "eagle")}
    # 15 of 30 for seats 0 and 1: [0.33, 0.67], above 0.25; none for seats 2 and 3
    seats = {f for f in result["flags"] if f.startswith("seat")}
    assert seats == {
        "seat 0 above its share",
        "seat 1 above its share",
        "seat 2 below its share",
        "seat 3 below its share",
    }
    fair = bench.tally([lion_took_frostholm().adjudicated(), opening().adjudicated()], players=4)
    assert not any(f.startswith("seat") for f in fair["flags"])  # two games decide nothing
