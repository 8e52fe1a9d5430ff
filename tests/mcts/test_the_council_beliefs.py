"""The Council's beliefs from the others' actions (issue #36): a search's deals weighted by
how likely they make the picks the others made this hand, and the others' secret choices
drawn from the opponent model (the cheap policy), every chance with a floor."""

from __future__ import annotations

import math

import pytest
from council_positions import event_position, take_bid

from council.engine._the_council import CARDS, LOCATIONS
from council.engine.the_council import TheCouncilState
from council.mcts._the_council_search import (
    COURT_REVEAL,
    the_council_belief_determinize,
    the_council_history_weight,
)
from council.mcts.search import SearchLimits, search
from council.mcts.the_council_agents import STRONG_V3, THE_COUNCIL_CONFIG

FLOOR = 0.1
BELIEFS = THE_COUNCIL_CONFIG.with_settings({"beliefs": 1, "belief_floor": FLOOR})
LOC_PACK, LOC_DRAFTED = LOCATIONS["pack"], LOCATIONS["drafted"]


def pick_weight(c: int) -> float:
    """The opponent model's weight of a pick (the cheap policy's)."""
    card = CARDS[c]
    bonus = {"crown": 2.0, "ace": 1.5}.get(card.kind, 0.0)
    return math.exp(len(card.suits) + bonus)


def weakest_pick_view() -> tuple[TheCouncilState, TheCouncilState]:
    """Four seats after draft round 0, each seat having picked the weakest card of its pack
    (by the model), and seat 0's view: it holds pack 3 now, packs 1 and 2 are unseen."""
    state = TheCouncilState.new_game(4, seed=21)
    for _ in range(4):
        state.apply(min(state.legal_actions(), key=pick_weight))
    return state, state.view(0)


def expected_history_weight(deal: TheCouncilState, view: TheCouncilState) -> float:
    """The model's chance of seats 1 and 2's round-0 picks among the packs the deal gives,
    each mixed with a uniform pick at FLOOR (written out from the model's definition)."""
    raw = deal.to_raw()
    weight = 1.0
    for seat in (1, 2):  # seat p picked from pack p in round 0; pack 3 is the viewer's now
        picked = raw["draft_picks"][seat][0]
        pack = [c for c in range(len(CARDS)) if raw["card_loc"][c] == LOC_PACK + seat]
        options = [*pack, picked]
        chance = pick_weight(picked) / sum(pick_weight(c) for c in options)
        weight *= (1 - FLOOR) * chance + FLOOR / len(options)
    return weight


def test_a_deal_is_weighted_by_the_model_chance_of_the_picks_made_from_unseen_packs():
    state, view = weakest_pick_view()
    weights = []
    for seed in range(20):
        deal = view.determinize(seed=seed)
        got = the_council_history_weight(deal, view, FLOOR)
        assert got == pytest.approx(expected_history_weight(deal, view), rel=1e-12)
        weights.append(got)
    assert len(set(weights)) > 10  # the unseen packs' cards matter
    assert the_council_history_weight(state, view, FLOOR) == pytest.approx(
        expected_history_weight(state, view)
    )
    # Seat 3 has seen nothing of seat 0's pick's pack that seat 0 did not: its view of the
    # same picks weighs only the packs it has not held (1 and 2: it holds pack 2 now).
    assert the_council_history_weight(state, state.view(3), FLOOR) != 1.0
    # The first round has no history: every deal weighs the same.
    first = TheCouncilState.new_game(4, seed=21).view(0)
    assert the_council_history_weight(first.determinize(seed=1), first, FLOOR) == 1.0


def test_beliefs_resample_the_deals_by_the_weight_of_the_others_picks():
    _, view = weakest_pick_view()
    deals = 600
    plain = [
        the_council_history_weight(view.determinize(seed=s), view, FLOOR) for s in range(deals)
    ]
    off_mean = sum(plain) / deals
    # Resampled by weight, the deals' mean weight tends to E[w^2] / E[w] (the mean weight
    # under the belief); uniform deals keep E[w].
    belief_mean = sum(w * w for w in plain) / sum(plain)
    on = [
        the_council_history_weight(
            the_council_belief_determinize(view, seed, BELIEFS.params()), view, FLOOR
        )
        for seed in range(deals)
    ]
    on_mean = sum(on) / deals
    assert belief_mean > off_mean
    assert on_mean > off_mean + 0.5 * (belief_mean - off_mean)
    assert min(on) > 0  # the floor: no deal the view allows weighs nothing


def reveal_position() -> tuple[TheCouncilState, list[int]]:
    """Four seats, the first event of a hand (The Journey: Moons and Waves); seat 1 has bid
    nothing and chosen to reveal nothing; seat 2, to bid, sees its choice hidden."""
    kinds = {
        "crown": next(c for c, k in enumerate(CARDS) if k.kind == "crown"),
        "court": next(c for c, k in enumerate(CARDS) if k.kind == "court"),
    }
    journey = CARDS[next(c for c, k in enumerate(CARDS) if k.name == "The Journey")]
    in_suit = next(
        c for c, k in enumerate(CARDS) if k.kind == "number" and set(k.suits) & set(journey.suits)
    )
    off_suit = next(
        c
        for c, k in enumerate(CARDS)
        if k.kind == "number" and not set(k.suits) & set(journey.suits) and c != in_suit
    )
    cards = sorted({kinds["crown"], kinds["court"], in_suit, off_suit} - {CARDS.index(journey)})
    state = event_position(4, "The Journey", drafted={1: cards}, starter=1, events_done=0)
    take_bid(state)
    return state, cards


def expected_reveal_chance(c: int) -> float:
    kind = CARDS[c].kind
    journey = next(k for k in CARDS if k.name == "The Journey")
    model = (
        1.0
        if kind == "crown"
        else COURT_REVEAL
        if kind == "court"
        else float(bool(set(CARDS[c].suits) & set(journey.suits)))
    )
    return (1 - FLOOR) * model + FLOOR / 2


@pytest.mark.parametrize("beliefs", (0, 1))
def test_the_others_reveals_are_drawn_from_the_model_with_a_floor(beliefs):
    state, cards = reveal_position()
    view = state.view(2)
    deals = 600
    shown = dict.fromkeys(cards, 0)
    params = {**BELIEFS.params(), "beliefs": beliefs}
    for seed in range(deals):
        deal = the_council_belief_determinize(view, seed, params)
        assert deal.view(2) == view and deal.problems() == state.problems()
        raw = deal.to_raw()
        for c in cards:
            assert raw["card_loc"][c] == LOC_DRAFTED + 1
            shown[c] += raw["card_pending"][c]
    for c in cards:
        expected = expected_reveal_chance(c) if beliefs else 0.5
        assert shown[c] / deals == pytest.approx(expected, abs=0.06), CARDS[c].name
    # The floor: a card the model never reveals is still revealed in some deals.
    assert min(shown.values()) > 0


def test_a_search_with_beliefs_answers_a_legal_action_and_strong_v3_has_none():
    state = TheCouncilState.new_game(4, seed=3)
    for _ in range(6):  # into round 1: seats 1 and 2's packs are unseen by seat 2... by 1
        state.apply(state.legal_actions()[0])
    view = state.view(state.current_player)
    result = search(view, SearchLimits(iterations=200), seed=1, config=BELIEFS)
    assert result.action in state.legal_actions()
    assert STRONG_V3["the-council"][0].game.beliefs == 0


@pytest.mark.parametrize(
    ("setting", "value"), (("belief_floor", 0.0), ("belief_floor", 1.5), ("belief_samples", 0))
)
def test_bad_belief_settings_are_refused_naming_the_setting(setting, value):
    with pytest.raises(ValueError, match=setting):
        BELIEFS.with_settings({setting: value}).validate()
