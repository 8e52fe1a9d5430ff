"""Audit checks of the rules core against independent oracles and edge cases (rulebook;
RULINGS 11, 13, 14, 15, 17, 22, 24).

The differential tests recompute, in plain Python and without the engine's tables, what a
rule gives on many random positions of every layout: the linked bonus (a BFS over the
layout's roads) and the legal king destinations and payments (a shortest route and a
councillor-by-councillor matching).
"""

from __future__ import annotations

import random
from collections import deque
from functools import cache
from itertools import combinations_with_replacement, permutations

import pytest
from positions import (
    END_TURN,
    EXTRA_MAIN,
    Pos,
    acquire,
    build_king,
    build_permit,
    change,
    choose_free_permit,
    elect,
    of_kind,
    pay,
    play,
    tile,
)

from council.engine import council_of_four_board as B
from council.engine._council_of_four import ACTION_OFFSETS as A
from council.engine._council_of_four import PAYMENTS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState

COAST = 0
COUNCIL_COST = {1: 10, 2: 7, 3: 4, 4: 0}


def _bfs(layout: B.Layout, start: int, allowed: set[int]) -> dict[int, int]:
    """Road distances from start, moving only through cities in `allowed` (start included)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        for n in layout.neighbours(c):
            if n in allowed and n not in dist:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def _payments(balcony, hand, budget):
    """Yield every card multiset (7 counts) of size 1..4 from the hand whose cards can each
    be laid on a different councillor (a joker on any), costing at most `budget`."""
    for n in range(1, 5):
        for cards in combinations_with_replacement(range(7), n):
            counts = tuple(cards.count(k) for k in range(7))
            if any(counts[k] > hand[k] for k in range(7)):
                continue
            if COUNCIL_COST[n] + counts[6] > budget:
                continue
            if any(
                all(k == 6 or balcony[slot] == k for k, slot in zip(cards, seats, strict=True))
                for seats in permutations(range(4), n)
            ):
                yield counts


def _oracle_payments(balcony, hand, budget) -> set[tuple]:
    return set(_payments(balcony, hand, budget))


# -- linked bonus (RULINGS 11) on every layout -----------------------------------------------
@pytest.mark.parametrize("code", B.LAYOUT_CODES)
def test_linked_bonus_matches_an_independent_bfs(code):
    rng = random.Random(f"linked-{code}")
    layout = B.Layout.from_code(code)
    for trial in range(25):
        target = rng.randrange(B.N_CITIES)
        others = [c for c in range(B.N_CITIES) if c != target]
        owned = set(rng.sample(others, rng.randrange(0, 9)))
        letters = "".join(B.CITY_LETTERS[c] for c in owned)
        t = tile(B.CITY_LETTERS[target])  # the single-city tile of the target
        s = (
            Pos(players=3, layout=code, seed=trial)
            .emporia(0, letters)
            .permits(0, up=[t])
            .nobility(0, 20)  # nobility icons then move nothing
            .coins(0, 0)
            .assistants(0, 0)
            .bonus_left(0, king_taken=5)
            .state()
        )
        before = s.to_raw()
        play(s, build_permit(t))
        after = s.to_raw()
        linked = _bfs(layout, target, owned | {target})
        tokens = [B.CITY_TOKENS[before["city_token"][c]] for c in linked if c != layout.king_city]
        for key, field in (("VP", "vp"), ("coins", "coins"), ("assistants", "assistants")):
            want = sum(tok.get(key, 0) for tok in tokens)
            assert after[field][0] - before[field][0] == want, (code, trial, key)
        want_cards = sum(tok.get("politics", 0) for tok in tokens)
        assert after["hand_n"][0] - before["hand_n"][0] == want_cards
        assert after["pending_n"] == 0


# -- king: cheapest route, council and travel both paid (RULINGS 14, 15) -------------------
@pytest.mark.parametrize("code", B.LAYOUT_CODES)
def test_king_destinations_and_payments_match_an_oracle(code):
    rng = random.Random(f"king-{code}")
    layout = B.Layout.from_code(code)
    for trial in range(12):
        hand = {k: rng.randrange(0, 3) for k in B.CARD_KINDS}
        coins = rng.randrange(0, 21)
        assistants = rng.randrange(0, 3)
        king = rng.randrange(B.N_CITIES)
        emp = [set(rng.sample(range(B.N_CITIES), rng.randrange(0, 6))) for _ in range(3)]
        p = (
            Pos(players=3, layout=code, seed=100 + trial)
            .hand(0, **hand)
            .coins(0, coins)
            .assistants(0, assistants)
            .king(B.CITY_LETTERS[king])
        )
        for seat in range(3):
            p.emporia(seat, "".join(B.CITY_LETTERS[c] for c in emp[seat]))
        s = p.state()
        r = s.to_raw()
        balcony = r["balcony"][3]
        hand_counts = r["hand"][0]
        dist = _bfs(layout, king, set(range(B.N_CITIES)))
        assert len(dist) == B.N_CITIES  # every layout is connected
        want = set()
        for c in range(B.N_CITIES):
            if c in emp[0] or assistants < sum(c in emp[q] for q in (1, 2)):
                continue
            if _oracle_payments(balcony, hand_counts, coins - 2 * dist[c]):
                want.add(c)
        got = set(of_kind(s.legal_actions(), "build_king"))
        assert got == want, (code, trial)
        if want:
            dest = rng.choice(sorted(want))
            play(s, build_king(dest))
            assert s.decision() == ("pay_king", dest)
            pays = {PAYMENTS[a] for a in of_kind(s.legal_actions(), "pay")}
            assert pays == _oracle_payments(balcony, hand_counts, coins - 2 * dist[dest])


def test_single_legal_payment_needs_the_joker():
    # Coast balcony W K K K; hand 3 white + 1 joker; 9 coins. One white alone costs 10, the
    # joker alone 11, two whites cannot both be matched: only white + joker (7 + 1) fits.
    s = balconies(Pos()).hand(0, white=3, joker=1).coins(0, 9).state()
    play(s, acquire(COAST, 0))
    assert s.legal_actions() == [pay(white=1, joker=1)]
    s2 = balconies(Pos()).hand(0, white=3).coins(0, 9).state()
    assert not of_kind(s2.legal_actions(), "acquire")


def balconies(p: Pos) -> Pos:
    """Coast W K K K; the other councils hold no white or black."""
    p.balcony("coast", ["white", "black", "black", "black"])
    for b in ("hills", "mountains", "king"):
        p.balcony(b, ["orange", "pink", "purple", "cyan"])
    return p


# -- end of the game (RULINGS 17) -----------------------------------------------------------
NINE = "BCDEFGHIJ"


def test_end_trigger_during_an_extra_main_action_then_one_turn_for_each_other_seat():
    s = (
        Pos(players=4)
        .emporia(1, NINE)
        .permits(1, up=[tile("A")])
        .assistants(1, 3)
        .bonus_left(0, king_taken=5)
        .turn(current=1)
        .state()
    )
    colour = next(c for c in range(6) if s.to_raw()["pool"][c] > 0)
    play(s, elect("coast", colour), EXTRA_MAIN, build_permit(tile("A")))
    r = s.to_raw()
    assert r["end_trigger"] == 1 and r["emporia_n"][1] == 10
    assert s.legal_actions() == [END_TURN]  # the turn goes on until the player ends it
    play(s, END_TURN)
    for seat in (2, 3, 0):
        assert s.current_player == seat and not s.is_terminal()
        colour = next(c for c in range(6) if s.to_raw()["pool"][c] > 0)
        play(s, elect("hills", colour), END_TURN)
    assert s.is_terminal() and s.current_player == -1


# -- nobility space 10 and the refill (RULINGS 22) ------------------------------------------
def test_free_tile_of_space_10_cannot_be_the_replacement_then_both_slots_refill():
    ae, a, b, c, d = tile("AE"), tile("A"), tile("B"), tile("C"), tile("D")
    s = (
        Pos()
        .balcony("coast", ["white", "white", "black", "orange"])
        .balcony("hills", ["black", "orange", "pink", "purple"])
        .balcony("mountains", ["purple", "cyan", "cyan", "white"])
        .balcony("king", ["white", "black", "pink", "purple"])
        .hand(0, white=2, black=1, orange=1)
        .coins(0, 10)
        .nobility(0, 8)
        .face_up("coast", ae, a)
        .deck("coast", [b, c, d], known=3)
        .state()
    )
    play(s, acquire(COAST, 0), pay(white=2, black=1, orange=1))
    r = s.to_raw()
    assert r["nobility"][0] == 10 and s.decision() == ("free_permit", 0)
    assert r["face_up"][0] == [-1, a]  # the slot stays empty while the choice is open
    assert of_kind(s.legal_actions(), "choose_free_permit") == [1, 2, 3, 4, 5]
    vp = r["vp"][0]
    play(s, choose_free_permit(COAST, 1))
    r = s.to_raw()
    assert r["vp"][0] == vp + 4  # tile A: 4 VP + 3 coins
    # Both refilled from the known bottom in order, the free tile's slot first (RULINGS 22:
    # its take is nested in the first one's).
    assert r["face_up"][0] == [c, b]
    assert r["deck_n"][0] == 1 and r["deck_known"][0] == 1 and r["permit_deck"][0][0] == d


# -- change permit tiles (RULINGS 24) -------------------------------------------------------
def test_change_draws_the_last_unknown_tile_then_the_known_bottom_in_order():
    u, k1, k2, f0, f1 = tile("A"), tile("B"), tile("C"), tile("D"), tile("E")
    s = Pos().assistants(0, 1).face_up("coast", f0, f1).deck("coast", [u, k1, k2], known=2).state()
    play(s, change(COAST))
    r = s.to_raw()
    assert r["face_up"][0] == [u, k1]
    assert r["permit_deck"][0][:3] == [k2, f0, f1] and r["deck_n"][0] == 3
    assert r["deck_known"][0] == 3 and r["assistants"][0] == 0


# -- random games against independent oracles ----------------------------------------------
def _random_game_actions(seed: int, config: CouncilOfFourConfig):
    """Yield (state, action) along a random game that favours building (so games end); the
    caller applies each action."""
    s = CouncilOfFourState.new_game(config, seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        acts = s.legal_actions()
        builds = [a for a in acts if BUILD_LO <= a < BUILD_HI or a >= PAY_LO]
        a = rng.choice(builds) if builds and rng.random() < 0.7 else rng.choice(acts)
        yield s, a


BUILD_LO, BUILD_HI, PAY_LO = A["build_permit"], A["engage"], A["pay"]


def _final_oracle(r: dict, tie_all: bool) -> tuple[list[int], list[int]]:
    """Final VP and winners from the raw state just before the last END_TURN."""
    n = r["n_players"]
    vp = list(r["vp"][:n])
    for p in range(n):
        vp[p] += sum(B.BONUS_TILE_VP[i] for i in range(7) if r["bonus_tiles"][p] >> i & 1)
        vp[p] += sum(B.KING_REWARD_TILES[i] for i in range(5) if r["king_tiles"][p] >> i & 1)
    nob = r["nobility"][:n]
    levels = sorted(set(nob), reverse=True)
    first = [p for p in range(n) if nob[p] == levels[0]]
    for p in first:
        vp[p] += 5
    if len(first) == 1 and len(levels) > 1:
        for p in range(n):
            vp[p] += 2 if nob[p] == levels[1] else 0
    count = [bin(r["permits_up"][p] | r["permits_down"][p]).count("1") for p in range(n)]
    top = [p for p in range(n) if count[p] == max(count) > 0]
    if len(top) == 1 or tie_all:
        for p in top:
            vp[p] += 3
    key = [(vp[p], r["assistants"][p] + r["hand_n"][p]) for p in range(n)]
    return vp, [p for p in range(n) if key[p] == max(key)]


def test_final_scoring_and_winners_match_an_oracle_on_random_games():
    for seed in range(48):
        config = CouncilOfFourConfig(
            players=2 + seed % 3,
            layout=B.LAYOUT_CODES[seed % 8],
            permit_tie_all_score=bool(seed % 2),
            nobility_bonus_on_pass=seed % 4 > 1,
        )
        for s, a in _random_game_actions(seed, config):
            r = s.to_raw()
            last = r["end_trigger"] >= 0 and (r["current"] + 1) % r["n_players"] == r["end_trigger"]
            if a == END_TURN and last:
                want_vp, want_winners = _final_oracle(r, config.permit_tie_all_score)
                s.apply(a)
                assert s.is_terminal()
                assert s.scores() == want_vp, seed
                assert s.winners() == want_winners, seed
                break
            s.apply(a)
        else:
            raise AssertionError(f"game {seed} ended without the trigger's round")


def test_turn_flow_and_non_build_actions_match_an_oracle_on_random_games():
    for seed in range(10):
        config = CouncilOfFourConfig(
            players=2 + seed % 3,
            layout=B.LAYOUT_CODES[(seed * 3) % 8],
            assistant_supply=0 if seed % 2 else 12,
        )
        n = config.players
        starts, trigger, turn = [], None, 1
        for s, a in _random_game_actions(seed, config):
            r = s.to_raw()
            if r["pending_n"] == 0:
                assert {x for x in s.legal_actions() if not BUILD_LO <= x < BUILD_HI} == (
                    _turn_oracle(r, config.assistant_supply)
                ), seed
            s.apply(a)
            r = s.to_raw()
            if trigger is None and r["end_trigger"] >= 0:
                trigger = r["end_trigger"]
            if trigger is not None and r["turn"] != turn:
                starts.append(r["current"])
            turn = r["turn"]
        # Exactly one more turn for every other player, in seat order, then the end.
        assert trigger is not None
        assert starts == [(trigger + i) % n for i in range(1, n)], seed


@cache
def _can_pay(balcony: tuple, hand: tuple, budget: int) -> bool:
    return next(_payments(balcony, hand, budget), None) is not None


def _turn_oracle(r: dict, supply: int) -> set[int]:
    p = r["current"]
    out = {END_TURN} if r["main_done"] > 0 else set()
    colours = [c for c in range(6) if r["pool"][c] > 0]
    if r["main_left"] > 0:
        out |= {elect(b, c) for b in range(4) for c in colours}
        for reg in range(3):
            if _can_pay(tuple(r["balcony"][reg]), tuple(r["hand"][p]), r["coins"][p]):
                out |= {acquire(reg, k) for k in range(2) if r["face_up"][reg][k] >= 0}
    if not r["quick_used"]:
        left = supply - sum(r["assistants"][: r["n_players"]])
        if r["coins"][p] >= 3 and (supply == 0 or left > 0):
            out.add(A["engage"])
        if r["assistants"][p] >= 1:
            out |= {change(reg) for reg in range(3) if max(r["face_up"][reg]) >= 0}
            out |= {A["quick_elect"] + b * 6 + c for b in range(4) for c in colours}
        if r["assistants"][p] >= 3:
            out.add(EXTRA_MAIN)
    return out
