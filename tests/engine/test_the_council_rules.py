"""Rules of The Council (Decktet) on hand-built positions: the draft, the bids, every event
rule, the collapse and its scoring, the action texts (docs/the-council.md, TC1 - TC14).

Each test names the ruling it checks. Positions come from council_positions.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from council_positions import (
    BID,
    END_BID,
    KNOTS,
    LEAVES,
    LOC_DECK,
    LOC_DRAFTED,
    LOC_EVENT,
    LOC_FACEDOWN,
    LOC_PACK,
    LOC_SPENT,
    MOONS,
    N_CARDS,
    NO_CARD,
    PH_BID,
    PH_DRAFT,
    PH_OVER,
    PH_REVEAL,
    REVEAL,
    SUNS,
    WAVES,
    WYRMS,
    bid,
    card,
    draft_position,
    event_position,
    pick,
    play_bids,
    reveal_mask,
    take_bid,
)

from council.engine._the_council import (
    CARD_NAMES,
    SUITS,
    IllegalActionError,
    TheCouncilState,
)

DECKTET = json.loads(resources.files("council.engine").joinpath("data/decktet.json").read_text())

# Three packs of a 3-seat draft's first round.
PACKS_R0 = [
    ["The Author", "The Desert", "The Origin", "The Journey", "The Painter", "The Savage"],
    ["The Mountain", "The Sailor", "The Battle", "The Forest", "The Discovery", "The Soldier"],
    ["Ace of Moons", "The Huntress", "The Watchman", "The Consul", "The Lunatic", "The Penitent"],
]


def ids(*names) -> list[int]:
    return [card(n) for n in names]


def suits_of(name) -> list[int]:
    """The suits on a card, from the card list (TC5: one chip each)."""
    return [SUITS.index(x) for x in DECKTET["cards"][card(name)]["suits"]]


def row(**by_suit) -> list[int]:
    out = [0] * 6
    for name, n in by_suit.items():
        out[SUITS.index(name.capitalize())] = n
    return out


def assert_new_hand(r: dict, players: int, hand: int, dealer: int) -> None:
    """TC3: a fresh deal of all 44 cards, six to each seat, the draft about to start."""
    assert r["phase"] == PH_DRAFT and r["current"] == 0
    assert r["hand"] == hand and r["dealer"] == dealer
    assert r["draft_round"] == 0 and r["event"] == -1
    assert r["card_pending"] == [0] * N_CARDS
    assert r["pack_n"] == [6] * players + [0] * (5 - players)
    assert r["pack_seen"] == [1 << k for k in range(players)] + [0] * (5 - players)
    assert r["deck_n"] == N_CARDS - 6 * players
    in_deck = sorted(r["deck"][: r["deck_n"]])
    assert in_deck == [c for c in range(N_CARDS) if r["card_loc"][c] == LOC_DECK]
    assert r["deck"][r["deck_n"] :] == [-1] * (6 * players)
    for k in range(players):
        assert r["card_loc"].count(LOC_PACK + k) == 6
    assert all(loc == LOC_DECK or LOC_PACK <= loc < LOC_PACK + players for loc in r["card_loc"])


# ---------------------------------------------------------------------------------------
# Setup (TC1, TC2).


def test_tc1_new_game_deals_six_cards_of_the_44_to_each_seat():
    for players in (3, 4, 5):
        r = TheCouncilState.new_game(players, seed=11).to_raw()
        assert_new_hand(r, players, hand=1, dealer=0)
        assert r["empire"] == [6] * 6
        assert r["ranks"] == [[0] * 6] * 5 and r["chips"] == [[0] * 6] * 5
        assert r["traitors"] == [0] * 5 and r["next_starter"] == -1
        assert r["low_card"] == [NO_CARD] * 5


@pytest.mark.parametrize("players", [2, 6])
def test_tc2_seats_three_to_five(players):
    with pytest.raises(ValueError, match="3 to 5"):
        TheCouncilState.new_game(players, seed=1)


# ---------------------------------------------------------------------------------------
# The draft (TC4, TC5).


def test_tc4_picks_are_hidden_until_the_rounds_last_pick_then_revealed_together():
    s = draft_position(PACKS_R0, chips={1: {SUNS: 2}})
    s.apply(pick("The Author"))
    r = s.to_raw()
    a = card("The Author")
    assert r["card_pending"][a] == 1 and r["card_loc"][a] == LOC_PACK + 0
    assert r["pack_n"][:3] == [6, 6, 6] and r["chips"][0] == [0] * 6
    assert r["current"] == 1 and r["draft_round"] == 0 and r["action_count"] == 1
    # The other seats do not see the pick (TC15); the picker does.
    assert s.view(1).to_raw()["card_pending"][a] == 0
    assert s.view(0).to_raw()["card_pending"][a] == 1

    s.apply(pick("The Forest"))
    r = s.to_raw()
    assert r["card_loc"][card("The Forest")] == LOC_PACK + 1
    assert r["card_pending"][card("The Forest")] == 1 and r["current"] == 2
    assert r["chips"][1] == row(suns=2)

    s.apply(pick("The Watchman"))
    r = s.to_raw()
    assert r["card_pending"] == [0] * N_CARDS
    assert r["card_loc"][a] == LOC_DRAFTED + 0
    assert r["card_loc"][card("The Forest")] == LOC_DRAFTED + 1
    assert r["card_loc"][card("The Watchman")] == LOC_DRAFTED + 2
    # TC5: one chip of each suit on the card, added to what the seat had.
    assert r["chips"][0] == row(moons=1, knots=1)
    assert r["chips"][1] == row(moons=1, suns=2, leaves=1)
    assert r["chips"][2] == row(moons=1, wyrms=1, knots=1)
    assert r["chips"][3:] == [[0] * 6] * 2
    assert r["pack_n"] == [5, 5, 5, 0, 0]
    assert r["draft_round"] == 1 and r["current"] == 0 and r["phase"] == PH_DRAFT
    # The packs pass to seat + 1: pack k is now held by seat k + 1 too.
    assert r["pack_seen"] == [0b011, 0b110, 0b101, 0, 0]
    assert s.drafted(0) == ids("The Author")


def test_tc4_legal_picks_are_exactly_the_held_packs_cards():
    s = draft_position(PACKS_R0)
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[0])
    for c in PACKS_R0[1] + PACKS_R0[2] + ["The Pact"]:
        assert not s.is_legal(pick(c))
        with pytest.raises(IllegalActionError):
            s.apply(pick(c))
    s.apply(pick("The Author"))
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[1])
    s.apply(pick("The Sailor"))
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[2])
    s.apply(pick("The Consul"))
    # Round 2: seat p holds the pack dealt to seat p - 1 (seat 0 holds pack 2).
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[2] if c != "The Consul")
    with pytest.raises(IllegalActionError):
        s.apply(pick("The Desert"))  # pack 0 is seat 1's now
    s.apply(pick("Ace of Moons"))
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[0] if c != "The Author")
    s.apply(pick("The Desert"))
    assert s.legal_actions() == sorted(pick(c) for c in PACKS_R0[1] if c != "The Sailor")
    s.apply(pick("The Battle"))
    r = s.to_raw()
    assert s.drafted(0) == ids("Ace of Moons", "The Author")
    assert s.drafted(1) == ids("The Desert", "The Sailor")
    assert s.drafted(2) == ids("The Battle", "The Consul")
    assert r["pack_n"] == [4, 4, 4, 0, 0] and r["draft_round"] == 2
    assert r["pack_seen"] == [0b111, 0b111, 0b111, 0, 0]


@pytest.mark.parametrize(("next_starter", "dealer", "starter"), [(-1, 1, 1), (2, 1, 2), (0, 2, 0)])
def test_tc4_tc6_after_round_five_last_cards_go_face_down_and_the_deck_top_is_the_event(
    next_starter, dealer, starter
):
    packs = [
        ["The Author", "The Desert"],
        ["The Mountain", "The Sailor"],
        ["The Huntress", "The Consul"],
    ]
    drafted = {
        0: ["Ace of Moons", "Ace of Suns", "The Origin", "The Journey"],
        1: ["Ace of Waves", "Ace of Leaves", "The Painter", "The Savage"],
        2: ["Ace of Wyrms", "Ace of Knots", "The Battle", "The Forest"],
    }
    s = draft_position(
        packs,
        draft_round=4,
        drafted=drafted,
        chips={0: {MOONS: 3}, 2: {WYRMS: 1}},
        dealer=dealer,
        next_starter=next_starter,
        deck_top=["The Market", "The Pact"],
        bid_table={1: {SUNS: 4}},
    )
    before = s.to_raw()
    deck_n = before["deck_n"]
    assert before["deck"][deck_n - 1] == card("The Pact")
    # Round 5: seat p holds the pack dealt to seat p + 1 (p - 4 mod 3).
    assert s.legal_actions() == sorted(pick(c) for c in packs[2])
    s.apply(pick("The Consul"))
    assert s.legal_actions() == sorted(pick(c) for c in packs[0])
    s.apply(pick("The Desert"))
    assert s.legal_actions() == sorted(pick(c) for c in packs[1])
    s.apply(pick("The Sailor"))
    r = s.to_raw()
    assert r["card_loc"][card("The Consul")] == LOC_DRAFTED + 0
    assert r["card_loc"][card("The Desert")] == LOC_DRAFTED + 1
    assert r["card_loc"][card("The Sailor")] == LOC_DRAFTED + 2
    assert r["card_loc"][card("The Author")] == LOC_FACEDOWN + 0
    assert r["card_loc"][card("The Mountain")] == LOC_FACEDOWN + 1
    assert r["card_loc"][card("The Huntress")] == LOC_FACEDOWN + 2
    assert r["pack_n"] == [0] * 5 and r["draft_round"] == 5
    assert r["chips"][0] == row(moons=4, waves=1, knots=1)  # + The Consul
    assert r["chips"][1] == row(suns=1, wyrms=1)  # + The Desert
    assert r["chips"][2] == row(waves=1, leaves=1, wyrms=1)  # + The Sailor
    # TC6: the event is the deck's top card.
    assert r["event"] == card("The Pact") and s.event == card("The Pact")
    assert r["card_loc"][card("The Pact")] == LOC_EVENT
    assert r["deck_n"] == deck_n - 1 and r["deck"][deck_n - 1] == -1
    assert r["deck"][deck_n - 2] == card("The Market")
    # TC12: the dealer starts when no starter is set.
    assert r["starter"] == starter and r["current"] == starter
    assert r["phase"] == PH_BID and s.phase == "bid"
    assert r["bids_done"] == 0 and r["bid_floor"] == 0
    assert r["bid"] == [[0] * 6] * 5


def test_tc5_a_full_draft_from_new_game():
    s = TheCouncilState.new_game(4, seed=5)
    r0 = s.to_raw()
    top = r0["deck"][r0["deck_n"] - 1]
    for _ in range(5 * 4):
        assert s.phase == "draft"
        s.apply(s.legal_actions()[-1])
    r = s.to_raw()
    for seat in range(4):
        mine = s.drafted(seat)
        assert len(mine) == 5
        chips = [0] * 6
        for c in mine:
            for x in suits_of(c):
                chips[x] += 1
        assert r["chips"][seat] == chips
    for k in range(4):
        assert r["card_loc"].count(LOC_FACEDOWN + k) == 1
    assert r["deck_n"] == 44 - 24 - 1 and r["event"] == top
    assert r["starter"] == 0 and r["current"] == 0 and s.phase == "bid"


# ---------------------------------------------------------------------------------------
# Bids (TC7, TC8).


def journey_bids():
    """The Journey (Moons, Waves; rank 3); seat 1 starts the bids."""
    return event_position(
        event="The Journey",
        starter=1,
        chips={1: {MOONS: 2, SUNS: 3, WAVES: 1, "Knots": 4}, 2: {SUNS: 5}, 0: {WAVES: 2}},
        drafted={1: ["Ace of Moons", "The Author", "The Huntress"], 2: [], 0: ["The Sailor"]},
    )


def test_tc7_bids_are_chips_of_the_event_suits_in_suit_order():
    s = journey_bids()
    assert s.current_player == 1
    assert s.legal_actions() == [bid(MOONS), bid(WAVES), END_BID]
    with pytest.raises(IllegalActionError):
        s.apply(bid(SUNS))  # not an event suit
    s.apply(bid(MOONS))
    r = s.to_raw()
    assert r["chips"][1] == row(moons=1, suns=3, waves=1, knots=4)
    assert r["bid"][1] == row(moons=1) and r["bid_floor"] == MOONS
    assert r["phase"] == PH_BID and r["current"] == 1
    assert s.legal_actions() == [bid(MOONS), bid(WAVES), END_BID]
    s.apply(bid(WAVES))
    r = s.to_raw()
    assert r["chips"][1] == row(moons=1, suns=3, waves=0, knots=4)
    assert r["bid"][1] == row(moons=1, waves=1) and r["bid_floor"] == WAVES
    # No Moons after Waves (suit order), no Waves left: only the end of the offer.
    assert s.legal_actions() == [END_BID]
    with pytest.raises(IllegalActionError):
        s.apply(bid(MOONS))
    with pytest.raises(IllegalActionError):
        s.apply(bid(WAVES))


def test_tc7_a_seat_without_chips_of_the_event_suits_can_only_end_its_offer():
    s = journey_bids()
    take_bid(s)
    assert s.current_player == 2
    assert s.legal_actions() == [END_BID]  # five Suns, none of the event's suits


def test_tc7_end_bid_leads_to_the_secret_reveal_choice_then_the_next_seat():
    s = journey_bids()
    s.apply(bid(MOONS))
    s.apply(END_BID)
    r = s.to_raw()
    assert r["phase"] == PH_REVEAL and r["current"] == 1 and s.phase == "reveal"
    # Three drafted cards: masks 0 .. 7.
    assert s.legal_actions() == [REVEAL + m for m in range(8)]
    assert not s.is_legal(REVEAL + 8) and not s.is_legal(END_BID) and not s.is_legal(bid(0))
    s.apply(REVEAL + 0b101)  # Ace of Moons and The Huntress, not The Author
    r = s.to_raw()
    for c, chosen in [("Ace of Moons", 1), ("The Author", 0), ("The Huntress", 1)]:
        assert r["card_pending"][card(c)] == chosen
        assert r["card_loc"][card(c)] == LOC_DRAFTED + 1
    assert r["bids_done"] == 1 and r["current"] == 2 and r["phase"] == PH_BID
    assert r["bid_floor"] == 0
    # The choice is secret (TC15): only seat 1's own view keeps it.
    assert s.view(2).to_raw()["card_pending"][card("Ace of Moons")] == 0
    assert s.view(1).to_raw()["card_pending"][card("Ace of Moons")] == 1
    # A seat with no drafted card can only reveal nothing.
    s.apply(END_BID)
    assert s.legal_actions() == [REVEAL]
    s.apply(REVEAL)
    assert s.current_player == 0 and s.to_raw()["bids_done"] == 2
    s.apply(END_BID)
    assert s.legal_actions() == [REVEAL, REVEAL + 1]


def test_tc7_bids_go_clockwise_from_the_starter_and_the_last_one_resolves_the_event():
    s = journey_bids()
    order = []
    for _ in range(3):
        order.append(s.current_player)
        take_bid(s)
    assert order == [1, 2, 0]
    r = s.to_raw()
    # Nobody bid: The Journey (rank 3) failed; the next hand is dealt.
    assert r["empire"] == row(moons=5, suns=6, waves=5, leaves=6, wyrms=6, knots=6)
    assert_new_hand(r, 3, hand=2, dealer=2)


# ---------------------------------------------------------------------------------------
# Events (TC8 - TC12).


def test_tc9_ace_of_an_event_suit_makes_its_owner_highest_bidder():
    # The Mountain (Moons, Suns; rank 4).
    s = event_position(
        event="The Mountain",
        drafted={0: ["Ace of Moons"]},
        chips={1: {MOONS: 3}, 2: {SUNS: 1}},
    )
    play_bids(s, {0: ({}, ["Ace of Moons"]), 1: ({MOONS: 3}, []), 2: ({SUNS: 1}, [])})
    r = s.to_raw()
    assert r["ranks"][0] == row(moons=1)
    assert r["ranks"][1] == [0] * 6
    assert r["ranks"][2] == row(suns=1)
    assert r["empire"] == [6] * 6  # success
    assert r["traitors"] == [0] * 5
    assert r["chips"][1] == [0] * 6 and r["chips"][2] == [0] * 6  # spent (TC8)
    assert r["next_starter"] == 0


def test_tc9_ace_of_an_event_suit_makes_the_event_succeed():
    # The Pact (Moons, Suns; rank 9); no chips at all.
    s = event_position(event="The Pact", drafted={1: ["Ace of Suns"]}, ranks={2: {SUNS: 2}})
    play_bids(s, {1: ({}, ["Ace of Suns"])})
    r = s.to_raw()
    assert r["empire"] == [6] * 6
    assert r["ranks"][1] == row(suns=1)
    assert r["ranks"][2] == row(suns=2)
    assert r["traitors"] == [0] * 5


def test_tc9_ace_of_another_suit_adds_nothing():
    # The Mountain (Moons, Suns; rank 4): 3 chips fail whatever the Ace of Waves.
    s = event_position(
        event="The Mountain",
        drafted={0: ["Ace of Waves"]},
        chips={1: {MOONS: 2}, 2: {MOONS: 1}},
        ranks={0: {MOONS: 2, WAVES: 1}},
    )
    play_bids(s, {0: ({}, ["Ace of Waves"]), 1: ({MOONS: 2}, []), 2: ({MOONS: 1}, [])})
    r = s.to_raw()
    assert r["empire"] == row(moons=5, suns=5, waves=6, leaves=6, wyrms=6, knots=6)
    # Seat 0 is the lowest Moons bidder: trades a Moons rank; Suns' lowest is shared.
    assert r["ranks"][0] == row(moons=1, waves=1)
    assert r["traitors"] == [1, 0, 0, 0, 0]
    assert r["next_starter"] == 0


def test_tc10_a_number_breaks_ties_lower_better_any_number_beats_none():
    # The Journey (Moons, Waves; rank 3): all bid two Moons.
    s = event_position(
        event="The Journey",
        drafted={0: ["The Lunatic"], 1: ["The Forest"]},
        chips={0: {MOONS: 2}, 1: {MOONS: 2}, 2: {MOONS: 2}},
    )
    play_bids(
        s,
        {
            0: ({MOONS: 2}, ["The Lunatic"]),
            1: ({MOONS: 2}, ["The Forest"]),
            2: ({MOONS: 2}, []),
        },
    )
    r = s.to_raw()
    assert r["empire"] == [6] * 6
    # Moons: the 5 beats the 6. Waves: seat 0's 6 is the only key, but it bid no Waves.
    # The Forest's Leaves are not an event suit.
    assert r["ranks"][:3] == [row(), row(moons=1), row()]
    assert r["low_card"][:3] == [5, 4, NO_CARD]  # ranks 6 and 5 in Ace, 2..9 order
    assert r["next_starter"] == 1


def test_tc10_tied_highest_bidders_gain_nothing():
    s = event_position(
        event="The Journey",
        chips={0: {MOONS: 2}, 1: {MOONS: 2}, 2: {WAVES: 1}},
    )
    play_bids(s, {0: ({MOONS: 2}, []), 1: ({MOONS: 2}, []), 2: ({WAVES: 1}, [])})
    r = s.to_raw()
    assert r["empire"] == [6] * 6
    assert r["ranks"][:3] == [row(), row(), row(waves=1)]
    assert r["next_starter"] == -1


def test_tc10_highest_bidder_must_have_bid_more_than_zero():
    # The Harvest (Pawn; Moons, Suns, Leaves; rank 0): nobody offers a chip; seat 0's
    # number would make it the only best seat in Moons and Suns.
    s = event_position(event="The Harvest", drafted={0: ["The Mountain"]})
    play_bids(s, {0: ({}, ["The Mountain"])})
    r = s.to_raw()
    assert r["ranks"] == [[0] * 6] * 5 and r["empire"] == [6] * 6
    assert r["traitors"] == [0] * 5
    assert r["next_starter"] == 0


@pytest.mark.parametrize("reveal_pawn", [True, False])
def test_tc10_a_pawn_adds_one_chip_of_each_event_suit(reveal_pawn):
    # The Journey (Moons, Waves; rank 3): 2 chips + The Borderland (Waves, Leaves, Wyrms).
    s = event_position(
        event="The Journey",
        drafted={0: ["The Borderland"]},
        chips={0: {MOONS: 1, WAVES: 1}},
        ranks={1: {MOONS: 1}},
    )
    play_bids(s, {0: ({MOONS: 1, WAVES: 1}, ["The Borderland"] if reveal_pawn else [])})
    r = s.to_raw()
    if reveal_pawn:  # 3 chips: success; the Pawn's Leaves and Wyrms do nothing
        assert r["empire"] == [6] * 6
        assert r["ranks"][0] == row(moons=1, waves=1)
        assert r["ranks"][1] == row(moons=1)
        assert r["traitors"] == [0] * 5
    else:  # 2 chips: failure; the lowest bidders (seats 1 and 2 at 0) are tied
        assert r["empire"] == row(moons=5, suns=6, waves=5, leaves=6, wyrms=6, knots=6)
        assert r["ranks"][0] == row()
        assert r["ranks"][1] == row(moons=1)
        assert r["traitors"] == [0] * 5


def test_tc10_a_pawns_chip_counts_in_the_bid_order():
    # The Journey: seat 0 one Waves + The Light Keeper (Suns, Waves, Knots) ties seat 1's
    # two Waves: nobody gains Waves.
    s = event_position(
        event="The Journey",
        drafted={0: ["The Light Keeper"]},
        chips={0: {WAVES: 1}, 1: {WAVES: 2}},
    )
    play_bids(s, {0: ({WAVES: 1}, ["The Light Keeper"]), 1: ({WAVES: 2}, [])})
    r = s.to_raw()
    assert r["empire"] == [6] * 6  # 4 >= 3
    assert r["ranks"] == [[0] * 6] * 5


@pytest.mark.parametrize("offer", [3, 4])
def test_tc12_a_court_gives_a_traitor_chip_only_on_failure(offer):
    # The Sailor (Waves, Leaves; rank 4). The Consul shows Waves but adds no chip.
    s = event_position(
        event="The Sailor",
        drafted={0: ["The Consul"]},
        chips={1: {WAVES: 4}},
    )
    play_bids(s, {0: ({}, ["The Consul"]), 1: ({WAVES: offer}, [])})
    r = s.to_raw()
    if offer == 3:
        assert r["traitors"] == [1, 0, 0, 0, 0]
        assert r["empire"] == row(moons=6, suns=6, waves=5, leaves=5, wyrms=6, knots=6)
        assert r["ranks"] == [[0] * 6] * 5
    else:
        assert r["traitors"] == [0] * 5
        assert r["empire"] == [6] * 6
        assert r["ranks"][1] == row(waves=1)
    assert r["chips"][1] == row(waves=4 - offer)


@pytest.mark.parametrize("offer", [0, 3])
def test_tc9_a_crown_gives_a_rank_in_its_suit_whatever_the_event_suits(offer):
    # The Journey (Moons, Waves; rank 3); The End is the Crown of Leaves.
    s = event_position(event="The Journey", drafted={0: ["The End"]}, chips={1: {MOONS: 3}})
    play_bids(s, {0: ({}, ["The End"]), 1: ({MOONS: offer}, [])})
    r = s.to_raw()
    assert r["ranks"][0] == row(leaves=1)
    assert r["ranks"][1] == row(moons=1 if offer else 0)
    assert r["empire"][MOONS] == (6 if offer else 5)


def test_tc12_a_crown_rank_comes_first_and_can_be_traded_on_a_failure():
    # The Journey fails (2 chips); seat 0, lowest Moons bidder with no rank, reveals The
    # Huntress (Crown of Moons): it gains the rank, then trades it for a traitor chip.
    s = event_position(
        event="The Journey",
        drafted={0: ["The Huntress"]},
        chips={1: {MOONS: 1}, 2: {MOONS: 1}},
    )
    play_bids(s, {0: ({}, ["The Huntress"]), 1: ({MOONS: 1}, []), 2: ({MOONS: 1}, [])})
    r = s.to_raw()
    assert r["ranks"][0] == row()
    assert r["traitors"] == [1, 0, 0, 0, 0]
    assert r["empire"] == row(moons=5, suns=6, waves=5, leaves=6, wyrms=6, knots=6)


def test_tc12_a_crown_rank_comes_first_and_can_be_gained_on_a_success():
    s = event_position(event="The Journey", drafted={0: ["The Huntress"]}, chips={0: {MOONS: 3}})
    play_bids(s, {0: ({MOONS: 3}, ["The Huntress"])})
    r = s.to_raw()
    assert r["ranks"][0] == row(moons=2)
    assert r["empire"] == [6] * 6


def test_tc10_failure_unique_lowest_bidder_trades_a_rank_for_a_traitor_chip():
    # The Pact (Moons, Suns; rank 9) fails with 3 chips. Moons: all bid one; seats 0 and 2
    # revealed a number in Moons, seat 1 none: seat 1 is the lowest. Suns: nobody bid;
    # the numbers (Moons and Suns both) leave seat 1 the lowest again.
    s = event_position(
        event="The Pact",
        drafted={0: ["The Mountain"], 2: ["The Diplomat"]},
        chips={0: {MOONS: 1}, 1: {MOONS: 1}, 2: {MOONS: 1}},
        ranks={0: {MOONS: 1}, 1: {MOONS: 2, SUNS: 1}, 2: {SUNS: 3}},
        traitors={1: 4},
    )
    play_bids(
        s,
        {
            0: ({MOONS: 1}, ["The Mountain"]),
            1: ({MOONS: 1}, []),
            2: ({MOONS: 1}, ["The Diplomat"]),
        },
    )
    r = s.to_raw()
    assert r["ranks"][:3] == [row(moons=1), row(moons=1), row(suns=3)]
    assert r["traitors"] == [0, 6, 0, 0, 0]
    assert r["empire"] == row(moons=5, suns=5, waves=6, leaves=6, wyrms=6, knots=6)
    assert r["next_starter"] == 0  # The Mountain (4) is lower than The Diplomat (8)


def test_tc11_lowest_bidder_with_no_rank_trades_nothing_and_the_empire_still_falls():
    # The Journey fails; seat 0 is the unique lowest Moons bidder but has no Moons rank.
    s = event_position(
        event="The Journey",
        chips={1: {MOONS: 1}, 2: {MOONS: 1}},
        ranks={0: {WAVES: 2}, 1: {MOONS: 3}},
    )
    play_bids(s, {1: ({MOONS: 1}, []), 2: ({MOONS: 1}, [])})
    r = s.to_raw()
    assert r["ranks"][:3] == [row(waves=2), row(moons=3), row()]
    assert r["traitors"] == [0] * 5
    # Waves: all tied at 0, nobody trades; the empire loses a rank in both suits anyway.
    assert r["empire"] == row(moons=5, suns=6, waves=5, leaves=6, wyrms=6, knots=6)


def test_tc11_the_empire_does_not_go_below_zero():
    s = event_position(event="The Journey", empire={MOONS: 0, WAVES: 3})
    play_bids(s)
    r = s.to_raw()
    assert r["empire"] == row(moons=0, suns=6, waves=2, leaves=6, wyrms=6, knots=6)
    assert r["phase"] == PH_DRAFT and r["hand"] == 2  # nobody above the empire


def test_tc11_ranks_are_capped_at_six():
    # The Journey succeeds; seat 0, at 6 in Moons, is the highest bidder and reveals the
    # Crown of Moons: it stays at 6 (and the empire at 6: no collapse).
    s = event_position(
        event="The Journey",
        drafted={0: ["The Huntress"]},
        chips={0: {MOONS: 3}},
        ranks={0: {MOONS: 6}},
    )
    play_bids(s, {0: ({MOONS: 3}, ["The Huntress"])})
    r = s.to_raw()
    assert r["ranks"][0] == row(moons=6)
    assert r["phase"] == PH_DRAFT and r["hand"] == 2


def test_tc8_revealed_cards_are_spent_unrevealed_ones_stay_face_up():
    # The last hand (TC14), so the hand's cards are still where the event left them.
    s = event_position(
        event="The Journey",
        hand=20,
        drafted={0: ["The Author", "The Desert", "The Origin"], 1: ["The Castle"]},
        chips={0: {MOONS: 2, SUNS: 1}},
    )
    play_bids(s, {0: ({MOONS: 2}, ["The Author"]), 1: ({}, ["The Castle"])})
    r = s.to_raw()
    assert r["phase"] == PH_OVER
    assert r["card_loc"][card("The Author")] == LOC_SPENT
    assert r["card_loc"][card("The Castle")] == LOC_SPENT
    assert r["card_loc"][card("The Desert")] == LOC_DRAFTED + 0
    assert r["card_loc"][card("The Origin")] == LOC_DRAFTED + 0
    assert r["card_loc"][card("The Journey")] == LOC_EVENT
    assert r["card_pending"] == [0] * N_CARDS
    assert s.drafted(0) == ids("The Desert", "The Origin") and s.drafted(1) == []
    assert r["chips"][0] == row(suns=1) and r["bid"][0] == row(moons=2)


def test_tc3_the_next_hand_deals_all_44_cards_again_and_chips_persist():
    s = event_position(
        event="The Journey",
        dealer=2,
        starter=1,
        drafted={0: ["The Author", "The Desert"], 1: ["Ace of Waves"]},
        chips={0: {MOONS: 2, SUNS: 5}, 2: {WAVES: 1, KNOTS: 2}},
        ranks={1: {LEAVES: 2}},
        traitors={2: 1},
    )
    play_bids(s, {0: ({MOONS: 2}, ["The Author"]), 1: ({}, ["Ace of Waves"])})
    r = s.to_raw()
    # TC2: the deal passes one seat clockwise (2 -> 0).
    assert_new_hand(r, 3, hand=2, dealer=0)
    assert r["chips"][:3] == [row(suns=5), row(), row(waves=1, knots=2)]
    assert r["bid"][0] == row(moons=2)  # the last event's offers stay public
    # Success (the Ace of Waves): seat 0 the highest in Moons, seat 1 in Waves.
    assert r["ranks"][:3] == [row(moons=1), row(waves=1, leaves=2), row()]
    assert r["traitors"] == [0, 0, 1, 0, 0]
    assert r["empire"] == [6] * 6
    assert r["next_starter"] == 1  # the Ace
    assert s.drafted(0) == [] and s.drafted(1) == []


@pytest.mark.parametrize(
    ("starter", "reveals", "expected"),
    [
        # Equal ranks (two 5s): the earlier bidder, seat 2, who bids before seat 0.
        (2, {0: "The Discovery", 1: "The Harvest", 2: "The Forest"}, 2),
        (0, {0: "The Discovery", 1: "The Harvest", 2: "The Forest"}, 0),
        (1, {0: "The Discovery", 1: "The Harvest", 2: "The Forest"}, 2),
        # Ace lowest, then the numbers, Pawn, Court, Crown.
        (0, {0: "The Rite", 1: "Ace of Moons", 2: "The Merchant"}, 1),
        (0, {0: "The Rite", 1: "The Harvest", 2: "The Merchant"}, 2),
        (0, {0: "The Rite", 1: "The Harvest", 2: "The Huntress"}, 1),
        (0, {0: "The Rite", 2: "The Huntress"}, 0),
        (0, {}, -1),
    ],
)
def test_tc12_the_lowest_revealed_card_starts_the_next_event(starter, reveals, expected):
    # The Calamity (Crown of Wyrms; rank 0): none of these cards shows Wyrms except the
    # Court The Rite, which does nothing on a success.
    s = event_position(
        event="The Calamity",
        starter=starter,
        drafted={seat: [c] for seat, c in reveals.items()},
    )
    play_bids(s, {seat: ({}, [c]) for seat, c in reveals.items()})
    r = s.to_raw()
    assert r["next_starter"] == expected
    assert r["traitors"] == [0] * 5 and r["empire"] == [6] * 6


@pytest.mark.parametrize("revealer", [None, 2])
def test_tc12_next_starter_or_else_the_next_dealer_starts_the_next_event(revealer):
    s = event_position(
        event="The Calamity", dealer=0, drafted={} if revealer is None else {2: ["The Author"]}
    )
    play_bids(s, {} if revealer is None else {2: ({}, ["The Author"])})
    assert s.to_raw()["next_starter"] == (-1 if revealer is None else 2)
    assert s.phase == "draft" and s.to_raw()["dealer"] == 1
    while s.phase == "draft":
        s.apply(s.legal_actions()[0])
    r = s.to_raw()
    expected = 1 if revealer is None else 2
    assert r["starter"] == expected and r["current"] == expected


@pytest.mark.parametrize("event", ["The Watchman", "The Consul", "The Huntress"])
def test_tc12_rank_zero_events_always_succeed(event):
    # Pawn, Court and Crown events, nobody offers or reveals anything but a Court.
    s = event_position(event=event, drafted={1: ["The Rite"]}, ranks={0: {MOONS: 1}})
    play_bids(s, {1: ({}, ["The Rite"])})
    r = s.to_raw()
    assert r["empire"] == [6] * 6
    assert r["traitors"] == [0] * 5  # a Court pays only on a failure
    assert r["ranks"][:3] == [row(moons=1), row(), row()]


@pytest.mark.parametrize("third", [0, 1])
def test_tc12_an_event_of_rank_r_succeeds_iff_the_chips_reach_r(third):
    # The Pact (Moons, Suns; rank 9): 4 Moons + 4 Suns + `third` Moons.
    s = event_position(
        event="The Pact",
        chips={0: {MOONS: 4}, 1: {SUNS: 4}, 2: {MOONS: 1}},
        ranks={2: {SUNS: 2}},
    )
    play_bids(s, {0: ({MOONS: 4}, []), 1: ({SUNS: 4}, []), 2: ({MOONS: third}, [])})
    r = s.to_raw()
    if third:
        assert r["empire"] == [6] * 6
        assert r["ranks"][:3] == [row(moons=1), row(suns=1), row(suns=2)]
        assert r["traitors"] == [0] * 5
    else:
        assert r["empire"] == row(moons=5, suns=5, waves=6, leaves=6, wyrms=6, knots=6)
        # Moons: seats 1 and 2 tied lowest at 0; Suns: seats 0 and 2 tied lowest.
        assert r["ranks"][:3] == [row(), row(), row(suns=2)]
        assert r["traitors"] == [0] * 5


@pytest.mark.parametrize("offer", [0, 1])
def test_tc12_an_ace_event_has_rank_one(offer):
    s = event_position(event="Ace of Waves", chips={1: {WAVES: 1}}, ranks={0: {WAVES: 1}})
    play_bids(s, {1: ({WAVES: offer}, [])})
    r = s.to_raw()
    if offer:
        assert r["empire"] == [6] * 6
        assert r["ranks"][:2] == [row(waves=1), row(waves=1)]
    else:
        assert r["empire"][WAVES] == 5 and r["traitors"] == [0] * 5  # lowest tied


# ---------------------------------------------------------------------------------------
# The collapse and its scoring (the text; TC13, TC14).


def test_collapse_a_gain_above_the_empire_ends_the_game():
    s = event_position(
        event="The Journey",
        chips={0: {MOONS: 3}},
        ranks={0: {MOONS: 5}, 1: {WAVES: 2}},
        empire={MOONS: 5},
        traitors={2: 1},
    )
    play_bids(s, {0: ({MOONS: 3}, [])})
    r = s.to_raw()
    assert r["phase"] == PH_OVER and r["current"] == -1 and s.is_terminal()
    assert r["hand"] == 1 and s.current_player == -1
    assert r["ranks"][0] == row(moons=6)
    # Only Moons collapsed: seat 0 doubles its 6; seat 1's Waves count nothing.
    assert s.scores() == [12, 0, 1]
    assert s.winners() == [0] and s.returns() == [1.0, 0.0, 0.0]
    with pytest.raises(IllegalActionError, match="over"):
        s.apply(END_BID)


def test_collapse_a_failure_dropping_the_empire_below_a_seat_ends_the_game():
    # The Journey fails; seat 0 (5 Moons) is not the lowest bidder; the empire goes to 4.
    s = event_position(
        event="The Journey",
        chips={0: {MOONS: 1}, 1: {MOONS: 1}},
        ranks={0: {MOONS: 5}, 2: {MOONS: 2}},
        empire={MOONS: 5},
    )
    play_bids(s, {0: ({MOONS: 1}, []), 1: ({MOONS: 1}, [])})
    r = s.to_raw()
    assert r["empire"] == row(moons=4, suns=6, waves=5, leaves=6, wyrms=6, knots=6)
    assert r["ranks"][2] == row(moons=1) and r["traitors"] == [0, 0, 1, 0, 0]
    assert r["phase"] == PH_OVER
    assert s.scores() == [10, 0, 2]
    assert s.winners() == [0]


def test_collapse_equal_to_the_empire_is_not_a_collapse():
    s = event_position(
        event="The Journey", chips={0: {MOONS: 3}}, ranks={0: {MOONS: 4}}, empire={MOONS: 5}
    )
    play_bids(s, {0: ({MOONS: 3}, [])})
    r = s.to_raw()
    assert r["ranks"][0] == row(moons=5) and r["empire"][MOONS] == 5
    assert r["phase"] == PH_DRAFT and r["hand"] == 2
    assert s.scores() == [0, 0, 0] and s.winners() == [] and s.returns() == [0.0] * 3


@pytest.mark.parametrize(("other_waves", "expected"), [(0, [12, 0, 3]), (5, [15, 10, 3])])
def test_collapse_scoring_the_texts_worked_example(other_waves, expected):
    # Seat 0: five Moons, three Waves, two traitor chips; the empire at four in both.
    # Seat 2: four Suns (the empire at 6: nothing) and three traitor chips.
    # The event (The Calamity, rank 0, nobody bids) changes nothing.
    s = event_position(
        event="The Calamity",
        ranks={0: {MOONS: 5, WAVES: 3}, 1: {WAVES: other_waves}, 2: {SUNS: 4}},
        empire={MOONS: 4, WAVES: 4},
        traitors={0: 2, 2: 3},
    )
    play_bids(s)
    assert s.is_terminal()
    assert s.scores() == expected
    assert s.to_raw()["score"] == expected + [0, 0]
    assert s.winners() == [0] and s.returns() == [1.0, 0.0, 0.0]


TIE = {"ranks": {0: {MOONS: 5}, 1: {MOONS: 5}, 2: {MOONS: 2}}, "empire": {MOONS: 4}}


@pytest.mark.parametrize(
    ("starter", "reveals", "winners"),
    [
        (0, {0: "The Journey", 1: "The Author", 2: "Ace of Suns"}, [1]),
        (0, {0: "The Rite", 2: "Ace of Suns"}, [0]),
        (0, {1: "The Sea"}, [1]),
        # Equal ranks (two 2s): the earlier bidder.
        (0, {0: "The Origin", 1: "The Author"}, [0]),
        (1, {0: "The Origin", 1: "The Author"}, [1]),
        (2, {0: "The Origin", 1: "The Author"}, [0]),
        # No tied seat revealed a card: a shared win.
        (0, {2: "Ace of Suns"}, [0, 1]),
        (0, {}, [0, 1]),
    ],
)
def test_tc13_ties_go_to_the_lowest_card_revealed_in_the_last_event(starter, reveals, winners):
    # The Calamity (rank 0, Wyrms): none of these cards changes a rank or a chip.
    s = event_position(
        event="The Calamity",
        starter=starter,
        drafted={seat: [c] for seat, c in reveals.items()},
        **TIE,
    )
    play_bids(s, {seat: ({}, [c]) for seat, c in reveals.items()})
    assert s.is_terminal()
    assert s.scores() == [10, 10, 2]  # seat 2's Moons count, not doubled
    assert s.winners() == winners
    assert s.returns() == [1.0 / len(winners) if p in winners else 0.0 for p in range(3)]


def test_tc13_returns_one_over_k_for_k_winners():
    s = event_position(players=4, event="The Calamity", hand=20, traitors={0: 2, 1: 2, 3: 2})
    play_bids(s)
    assert s.scores() == [2, 2, 0, 2]
    assert s.winners() == [0, 1, 3]
    assert s.returns() == [1 / 3, 1 / 3, 0.0, 1 / 3]


def test_tc14_the_game_ends_after_hand_20_without_a_collapse():
    # No collapse: only traitor chips score; ranks below the empire count nothing.
    s = event_position(
        event="The Calamity",
        hand=20,
        ranks={0: {MOONS: 3}, 2: {SUNS: 6}},
        traitors={1: 2},
    )
    play_bids(s)
    r = s.to_raw()
    assert r["phase"] == PH_OVER and r["hand"] == 20 and r["current"] == -1
    assert s.scores() == [0, 2, 0]
    assert s.winners() == [1] and s.returns() == [0.0, 1.0, 0.0]


def test_tc14_hand_19_is_followed_by_hand_20():
    s = event_position(event="The Calamity", hand=19, dealer=1)
    play_bids(s)
    assert_new_hand(s.to_raw(), 3, hand=20, dealer=2)
    assert not s.is_terminal()


# ---------------------------------------------------------------------------------------
# Action texts and illegal actions.


def test_action_texts_round_trip_in_every_phase():
    s = draft_position(PACKS_R0)
    assert s.action_to_text(pick("The Author")) == "pick The Author"
    for a in s.legal_actions():
        assert s.action_from_text(s.action_to_text(a)) == a
    s = journey_bids()
    assert s.action_to_text(bid(MOONS)) == "bid Moons"
    assert s.action_to_text(END_BID) == "end bid"
    for a in s.legal_actions():
        assert s.action_from_text(s.action_to_text(a)) == a
    s.apply(END_BID)
    assert s.action_to_text(REVEAL) == "reveal nothing"
    assert s.action_to_text(REVEAL + 0b011) == "reveal Ace of Moons, The Author"
    assert s.action_to_text(REVEAL + 0b100) == "reveal The Huntress"
    for a in s.legal_actions():
        assert s.action_from_text(s.action_to_text(a)) == a
    assert s.action_from_text("reveal The Huntress, Ace of Moons") == REVEAL + 0b101
    assert s.action_from_text("  end bid ") == END_BID
    assert reveal_mask(s, ["The Author"]) == REVEAL + 0b010


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pick The Nobody", "unknown card 'The Nobody'"),
        ("bid Stars", "unknown suit 'Stars'"),
        ("reveal The Pact", "The Pact is not in front of seat 1"),
        ("reveal Ace of Nothing", "unknown card 'Ace of Nothing'"),
        ("fold", "not an action of The Council"),
        ("", "not an action of The Council"),
    ],
)
def test_bad_action_texts_raise_value_error_naming_the_problem(text, message):
    s = journey_bids()
    with pytest.raises(ValueError, match=message):
        s.action_from_text(text)


@pytest.mark.parametrize("action", [-1, 83, 1000])
def test_action_to_text_out_of_range(action):
    with pytest.raises(ValueError, match="action must be in 0..82"):
        journey_bids().action_to_text(action)


def test_illegal_actions_raise_illegal_action_error():
    assert issubclass(IllegalActionError, ValueError)
    s = draft_position(PACKS_R0)
    for a in (83, 1000, BID, END_BID, REVEAL, pick("The Mountain")):
        with pytest.raises(IllegalActionError, match="not legal"):
            s.apply(a)
    assert s.to_raw()["action_count"] == 0
    s = journey_bids()
    for a in (pick("The Author"), REVEAL, bid(SUNS), bid(LEAVES)):
        with pytest.raises(IllegalActionError):
            s.apply(a)
    s.apply(END_BID)
    for a in (END_BID, bid(MOONS), REVEAL + 8):
        with pytest.raises(IllegalActionError):
            s.apply(a)


def test_card_names_are_the_44_suited_cards():
    assert len(CARD_NAMES) == 44 and SUITS == ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")
    assert CARD_NAMES[:6] == tuple(f"Ace of {x}" for x in SUITS)
    assert "The Excuse" not in CARD_NAMES


@pytest.mark.parametrize("action", [-1, -44, -1000])
def test_a_negative_action_id_raises_illegal_action_error(action):
    # In a child interpreter: a crash there fails this test instead of the whole run.
    code = (
        "from council.engine._the_council import TheCouncilState, IllegalActionError\n"
        "s = TheCouncilState.new_game(3, 1)\n"
        "try:\n"
        f"    s.apply({action})\n"
        "except IllegalActionError as e:\n"
        "    print('IllegalActionError', e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, (
        f"apply({action}) killed the interpreter (exit status {proc.returncode}): "
        f"{proc.stderr[-300:]}"
    )
    assert proc.stdout.startswith("IllegalActionError") and "not legal" in proc.stdout


# -- TC6: five events a hand ----------------------------------------------------------------


@pytest.mark.parametrize("revealed", [None, "Ace of Suns"])
def test_tc6_an_event_before_the_hands_last_turns_the_next_one(revealed):
    # The hand's first event (none resolved before it); seat 1 bids first.
    s = event_position(
        players=3,
        event="The Journey",  # Moons and Waves, rank 3
        events_done=0,
        starter=1,
        dealer=2,
        drafted={0: ["Ace of Suns", "The Author"], 2: ["The Mill"]},
        chips={0: {MOONS: 3}, 2: {WAVES: 1}},
        ranks={0: {MOONS: 6}},
        empire={MOONS: 6},
    )
    top = s.to_raw()["deck"][s.to_raw()["deck_n"] - 1]
    reveal = [revealed] if revealed else []
    play_bids(s, {0: ({MOONS: 3}, reveal), 2: ({WAVES: 1}, [])})
    r = s.to_raw()
    # The Journey succeeded (4 chips >= 3): seat 0, highest in Moons, stays at 6 (TC11).
    assert r["ranks"][0][MOONS] == 6 and r["empire"][MOONS] == 6
    # No end-of-hand: the deck's top card is the next event, in the same hand.
    assert r["phase"] == PH_BID and r["hand"] == 1 and r["events_done"] == 1
    assert r["event"] == top and r["card_loc"][top] == LOC_EVENT
    assert r["card_loc"][card("The Journey")] == LOC_SPENT
    # TC12: the lowest revealed card's seat starts; nobody revealed: the dealer.
    assert r["starter"] == r["current"] == (0 if revealed else 2)
    assert r["bids_done"] == 0 and r["bid_floor"] == 0
    assert all(not any(row_) for row_ in r["bid"])
    # Chips spent, the rest kept; unrevealed drafted cards stay for the later events.
    assert r["chips"][0][MOONS] == 0 and r["chips"][2][WAVES] == 0
    assert s.drafted(2) == ids("The Mill")
    expected = ids("The Author") if revealed else ids("Ace of Suns", "The Author")
    assert s.drafted(0) == expected


def test_tc12_the_lowest_revealed_card_starts_the_next_event_of_the_hand():
    s = event_position(
        players=4,
        event="The Pact",  # Moons and Suns, rank 9
        events_done=2,
        starter=0,
        dealer=0,
        drafted={1: ["The Market"], 3: ["The Author"]},
    )
    play_bids(s, {1: ({}, ["The Market"]), 3: ({}, ["The Author"])})
    r = s.to_raw()
    assert r["events_done"] == 3 and r["phase"] == PH_BID and r["hand"] == 1
    assert r["starter"] == r["current"] == 3  # the 2 beats the 6
    assert r["empire"][MOONS] == 5 and r["empire"][SUNS] == 5  # nobody bid: a failure


def test_tc6_a_seat_above_the_empire_before_the_hands_last_event_does_not_end_the_game():
    s = event_position(
        players=3,
        event="The Journey",  # Moons and Waves, rank 3: fails with no bid
        events_done=3,
        ranks={1: {MOONS: 5}},
        empire={MOONS: 5},
    )
    play_bids(s)
    r = s.to_raw()
    assert r["empire"][MOONS] == 4 and r["ranks"][1][MOONS] == 5  # seat 1 above the empire
    assert r["phase"] == PH_BID and r["events_done"] == 4  # but the hand plays on
    play_bids(s)  # the fifth event: now the collapse is scored
    assert s.is_terminal() and s.scores()[1] == 10
