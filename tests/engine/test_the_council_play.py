"""The Council: random play with invariants after every action, views and sampling.

The rules themselves are tested on hand-built positions in test_the_council_rules.py.
"""

from __future__ import annotations

import collections
import json
import pickle
import random
from importlib import resources
from pathlib import Path

import pytest
from council_positions import (
    LOC_DECK,
    LOC_DRAFTED,
    LOC_EVENT,
    LOC_FACEDOWN,
    LOC_PACK,
    LOC_UNKNOWN,
    N_CARDS,
    random_positions,
)

from council.engine._the_council import (
    CARD_NAMES,
    NUM_ACTIONS,
    STATE_DTYPE,
    TheCouncilState,
)

PLAYERS = (3, 4, 5)


def check_invariants(state: TheCouncilState) -> None:
    raw = state.to_raw()
    n = raw["n_players"]
    loc = raw["card_loc"]
    # Every card is in exactly one place, and the counts agree with the places.
    assert len(loc) == N_CARDS and all(0 <= x <= LOC_EVENT for x in loc)
    deck = raw["deck"][: raw["deck_n"]]
    assert sorted(deck) == sorted(c for c in range(N_CARDS) if loc[c] == LOC_DECK)
    assert all(c == -1 for c in raw["deck"][raw["deck_n"] :])
    for k in range(5):
        in_pack = sum(1 for x in loc if x == LOC_PACK + k)
        assert raw["pack_n"][k] == in_pack
        assert k < n or in_pack == 0
    assert all(x < LOC_DRAFTED + n or x >= LOC_FACEDOWN for x in loc)
    assert (raw["event"] >= 0) == (loc.count(LOC_EVENT) == 1)
    # Ranks, chips and the empire stay in bounds.
    for p in range(5):
        for x in range(6):
            assert 0 <= raw["ranks"][p][x] <= 6
            assert raw["chips"][p][x] >= 0 and raw["bid"][p][x] >= 0
        assert raw["traitors"][p] >= 0
        if p >= n:
            assert not any(raw["ranks"][p]) and not any(raw["chips"][p]) and not raw["traitors"][p]
    assert all(0 <= e <= 6 for e in raw["empire"])
    # A running game has a legal action; a finished one none.
    if state.is_terminal():
        assert state.current_player == -1 and raw["phase"] == 3
    else:
        assert 0 <= state.current_player < n
        assert state.legal_actions()
        if raw["phase"] == 0:  # the seat to pick holds a pack one card larger than spent
            assert all(raw["pack_n"][k] == 6 - raw["draft_round"] for k in range(n))


def play_random(state: TheCouncilState, rng: random.Random, check=None) -> int:
    steps = 0
    while not state.is_terminal():
        actions = state.legal_actions()
        assert actions == sorted(set(actions)) and all(0 <= a < NUM_ACTIONS for a in actions)
        state.apply(rng.choice(actions))
        if check:
            check(state)
        steps += 1
    return steps


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_keep_the_invariants(players):
    rng = random.Random(players)
    for game in range(30):
        state = TheCouncilState.new_game(players, seed=game)
        check_invariants(state)
        play_random(state, rng, check_invariants)
        assert 1 <= state.hand <= 20
        scores = state.scores()
        assert len(scores) == players and min(scores) >= 0
        winners = state.winners()
        assert winners and max(scores) == scores[winners[0]]
        assert sum(state.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("players", PLAYERS)
def test_compiled_playout_matches_the_python_loop_in_kind(players):
    state = TheCouncilState.new_game(players, seed=11)
    steps = state.random_playout(seed=5)
    assert state.is_terminal() and steps == state.action_count
    again = TheCouncilState.new_game(players, seed=11)
    again.random_playout(seed=5)
    assert again == state  # seeded: the same game


@pytest.mark.parametrize("players", (2, 6))
def test_seat_counts_outside_3_to_5_are_refused(players):
    with pytest.raises(ValueError, match="3 to 5"):
        TheCouncilState.new_game(players)


def test_raw_round_trip_pickle_and_equality():
    state = TheCouncilState.new_game(5, seed=9)
    play_random(state.clone(), random.Random(1))
    for _ in range(40):
        state.apply(state.legal_actions()[-1])
    raw = state.to_raw()
    assert list(raw) == list(STATE_DTYPE.names)
    assert TheCouncilState.from_raw(raw) == state
    assert pickle.loads(pickle.dumps(state)) == state
    raw["chips"] = 3
    with pytest.raises(ValueError, match="chips"):
        TheCouncilState.from_raw(raw)


# -- views and sampling ------------------------------------------------------------------


def positions(players):
    """Positions along seeded random games: every phase of the draft and the events."""
    return random_positions(players, seed=1000 + players, every=7, games=6, final=True)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_determinized_view_is_consistent_with_the_view(players):
    for state in positions(players):
        for seat in range(players):
            view = state.view(seat)
            for seed in range(3):
                world = view.determinize(seed)
                assert not world.is_view
                check_invariants(world)
                assert world.view(seat) == view  # nothing the seat knows was changed
                assert world.legal_actions() if not world.is_terminal() else True


@pytest.mark.parametrize("players", PLAYERS)
def test_a_view_hides_exactly_what_the_seat_cannot_know(players):
    for state in positions(players):
        raw = state.to_raw()
        for seat in range(players):
            view = state.view(seat).to_raw()
            assert view["viewer"] == seat and view["rng"] == 0
            assert all(c == -1 for c in view["deck"])
            for c in range(N_CARDS):
                where = raw["card_loc"][c]
                if where == LOC_DECK:
                    assert view["card_loc"][c] == LOC_UNKNOWN
                elif LOC_PACK <= where < LOC_DRAFTED:
                    seen = raw["pack_seen"][where - LOC_PACK] >> seat & 1
                    assert view["card_loc"][c] == (where if seen else LOC_UNKNOWN)
                else:
                    assert view["card_loc"][c] in (where, LOC_UNKNOWN)
                if view["card_pending"][c]:  # only the seat's own secret choices show
                    assert raw["card_pending"][c]
                    if where >= LOC_DRAFTED:
                        assert where == LOC_DRAFTED + seat
            # The public fields are untouched.
            for name in ("chips", "bid", "ranks", "empire", "traitors", "event", "phase",
                         "current", "hand", "pack_n", "deck_n"):  # fmt: skip
                assert view[name] == raw[name]


def test_determinize_deals_the_unseen_cards_uniformly():
    """At the first pick, seat 0 sees its own 6 cards: each of the other 38 cards lands
    in a given other pack with chance 6/38 and is the deck's top card with chance 1/38."""
    state = TheCouncilState.new_game(4, seed=5)
    view = state.view(0)
    own = set(state.to_raw()["card_loc"][c] == LOC_PACK and c for c in range(N_CARDS)) - {False}
    in_pack1 = collections.Counter()
    top = collections.Counter()
    draws = 3800
    for seed in range(draws):
        raw = view.determinize(seed).to_raw()
        assert {c for c in range(N_CARDS) if raw["card_loc"][c] == LOC_PACK} == own
        in_pack1.update(c for c in range(N_CARDS) if raw["card_loc"][c] == LOC_PACK + 1)
        top[raw["deck"][raw["deck_n"] - 1]] += 1
    others = [c for c in range(N_CARDS) if c not in own]
    for c in others:
        assert abs(in_pack1[c] / draws - 6 / 38) < 0.035, (CARD_NAMES[c], in_pack1[c])
        assert abs(top[c] / draws - 1 / 38) < 0.02, (CARD_NAMES[c], top[c])
    assert not any(in_pack1[c] or top[c] for c in own)


def test_a_hidden_pick_is_drawn_among_the_pack_and_the_own_pick_is_kept():
    state = TheCouncilState.new_game(3, seed=8)
    for _ in range(3):  # the first round; then seat 0 holds pack 2, which seat 2 held
        state.apply(state.legal_actions()[0])
    pack2 = [a for a in state.legal_actions()]
    mine = pack2[2]
    state.apply(mine)  # seat 0 picks in secret
    for seat, expected in ((2, set(pack2)), (1, None)):
        view = state.view(seat)
        assert not any(view.to_raw()["card_pending"])
        picks = collections.Counter()
        for seed in range(600):
            raw = view.determinize(seed).to_raw()
            pending = [c for c in range(N_CARDS) if raw["card_pending"][c]]
            assert len(pending) == 1 and raw["card_loc"][pending[0]] == LOC_PACK + 2
            picks[pending[0]] += 1
        if expected:  # seat 2 knows the pack: the pick is one of its five cards, uniformly
            assert set(picks) == expected and min(picks.values()) > 600 / 5 * 0.7
        else:  # seat 1 never held it: any card it cannot place
            assert len(picks) > 5
    assert state.view(0).to_raw()["card_pending"][mine] == 1
    for seed in range(20):
        assert state.view(0).determinize(seed).to_raw()["card_pending"][mine] == 1


def test_view_and_determinize_refuse_the_wrong_kind_of_state():
    state = TheCouncilState.new_game(3, seed=1)
    with pytest.raises(ValueError, match="needs a view"):
        state.determinize(1)
    view = state.view(2)
    with pytest.raises(ValueError, match="full state"):
        view.legal_actions()
    with pytest.raises(ValueError, match="already the view of seat 2"):
        view.view(1)
    with pytest.raises(ValueError, match="seat must be in 0..2"):
        state.view(3)


def test_the_card_list_is_the_shared_decktet_data_without_the_excuse():
    """engine/data/decktet.json is derived from ../shared/data/decktet_cards.json (TC1)."""
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "decktet_cards.json"
    cards = json.loads(shared.read_text())["cards"]
    suited = [(c["name"], c["rank"], c["suits"]) for c in cards if c["suits"]]
    package = json.loads(
        resources.files("council.engine").joinpath("data/decktet.json").read_text()
    )
    assert [(c["name"], c["rank"], c["suits"]) for c in package["cards"]] == suited
    assert len(suited) == N_CARDS == 44 and len(cards) == 45  # the Excuse left out


def test_the_text_of_a_view_names_no_card_the_seat_cannot_place():
    checked = secret_choices = 0
    for state in positions(4):
        full_text = str(state)
        assert full_text.count("\nseat ") == 4
        for seat in range(4):
            view = state.view(seat)
            text = str(view)
            assert text.startswith("The Council: 4 seats") and f"the view of seat {seat}" in text
            hidden = {
                CARD_NAMES[c]
                for c, where in enumerate(view.to_raw()["card_loc"])
                if where == LOC_UNKNOWN
            }
            assert not [name for name in hidden if name in text]  # no name is part of another
            others = [
                line for line in text.splitlines()
                if line.startswith("seat ") and not line.startswith(f"seat {seat}:")
            ]  # fmt: skip
            assert not any("to reveal" in line for line in others)
            checked += 1
        secret_choices += "to reveal" in full_text
    assert checked > 100 and secret_choices > 0  # the full state does show them
