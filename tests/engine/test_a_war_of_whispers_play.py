"""A War of Whispers played at random to the end from many seeds, with the invariants checked
at every step: each empire's 20 banners (map + supply), owners exactly where banners are,
the supply limit of each empire when its turn ends, the hand limit after Cleanup, the public
hand counts, agents per player, views and determinization, and the final score."""

from __future__ import annotations

import random

import pytest
from aww_positions import CONTENT, LOC_HAND

from council.engine._a_war_of_whispers import LOYALTY_VALUES, AWarOfWhispersState


def check(raw: dict, players: int) -> None:
    n_regions = len(CONTENT.regions)
    for e in range(5):
        on_map = sum(raw["banners"][r] for r in range(n_regions) if raw["owner"][r] == e)
        assert on_map + raw["supply"][e] == 20 and raw["supply"][e] >= 0
    for r in range(n_regions):
        assert (raw["owner"][r] >= 0) == (raw["banners"][r] > 0)
    for p in range(players):
        for e in range(5):
            held = sum(
                raw["card_loc"][c] == LOC_HAND + p and CONTENT.cards[c].empire == e
                for c in range(len(CONTENT.cards))
            )
            assert held == raw["hand_count"][p][e]
        assert sorted(raw["loyalty"][p]) == [0, 1, 2, 3, 4]
    per_round = 3 if players == 2 else 2
    agents = [raw["agent"].count(p) for p in range(players)]
    assert max(agents) <= per_round + (raw["round"] - 1) * (per_round - 1)
    for p in range(players):
        on_map = [r for r in raw["map_agent"][p] if r >= 0]
        assert len(set(on_map)) == len(on_map) and (raw["agents_on_map"] or not on_map)


def supply_capped(raw: dict, empire: int) -> bool:
    return all(
        raw["banners"][r] <= (6 if reg.farm else 4)
        for r, reg in enumerate(CONTENT.regions)
        if raw["owner"][r] == empire
    )


def play_one(players: int, seed: int, agents_on_map: bool) -> AWarOfWhispersState:
    rng = random.Random(seed)
    s = AWarOfWhispersState.new_game(players, seed=seed, agents_on_map=agents_on_map)
    raw = s.to_raw()
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal, s
        before = raw
        s.apply(rng.choice(legal))
        raw = s.to_raw()
        check(raw, players)
        steps += 1
        # An empire's turn just ended: its regions hold no more than the supply allows.
        if before["phase"] == 2 and (raw["phase"] != 2 or raw["empire"] != before["empire"]):
            assert supply_capped(raw, before["empire"])
        # After Cleanup (the swap phase, the next round's deployment): the hand limit.
        if raw["phase"] == 4 or raw["phase"] in (0, 1) and raw["round"] > 1:
            assert all(sum(raw["hand_count"][p]) <= 5 for p in range(players))
        if steps % 25 == 0 and not s.is_terminal():
            # The player to act sees all it decides on: its world has the same choices.
            world = s.view(s.current_player).determinize(seed + steps)
            assert world.problems() == [] and world.legal_actions() == s.legal_actions()
            world = s.view(rng.randrange(players)).determinize(seed + steps)
            assert world.problems() == [] and world.to_raw()["hand_count"] == raw["hand_count"]
    assert raw["round"] == 4 and s.current_player == -1
    cities = [
        sum(reg.cities for r, reg in enumerate(CONTENT.regions) if raw["owner"][r] == e)
        for e in range(5)
    ]
    assert s.scores() == [
        sum(LOYALTY_VALUES[raw["loyalty"][p][e]] * cities[e] for e in range(5))
        + sum(
            LOYALTY_VALUES[raw["loyalty"][p][raw["owner"][r]]]
            for r in raw["map_agent"][p]
            if r >= 0 and raw["owner"][r] >= 0
        )
        for p in range(players)
    ]
    assert s.winners() and s.problems() == []
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_the_invariants(players):
    for seed in range(12):
        play_one(players, seed, agents_on_map=seed % 3 == 2)


def test_the_c_playout_matches_the_python_loop_and_ends():
    for seed in range(200):
        s = AWarOfWhispersState.new_game(2 + seed % 3, seed=seed)
        steps = s.random_playout(seed)
        assert s.is_terminal() and steps == s.action_count and s.problems() == []
