"""Compiled rules core of The Council, the Decktet drafting-and-bidding game for 3-5 seats.

The game and the rulings it follows (TC1 ...) are in docs/the-council.md. The state is one
C struct (``_the_council.pxd``); the rules functions take a pointer to it, run without the
GIL and never allocate. ``TheCouncilState`` wraps the struct for Python.

>>> from council.engine.the_council import TheCouncilConfig
>>> state = TheCouncilState.new_game(TheCouncilConfig(players=4), seed=7)
>>> state.phase, state.decision_name, state.hand, state.current_player
('draft', 'draft', 1, 0)
>>> pick = state.legal_actions()[0]
>>> state.action_to_text(pick)
'pick The Savage'
>>> state.action_from_text("pick The Savage") == pick
True
>>> state.apply(pick)
>>> state.view(1).determinize(seed=3).current_player
1
"""

from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, uint64_t

import json
from importlib import resources
from typing import NamedTuple

import numpy as np

from council.engine.position import IllegalActionError
from council.engine._raw import raw_to_struct, struct_to_raw
from council.engine._random cimport game_rng, next_random, random_below, seed_word
from council.engine._trace cimport NO_SEAT, Trace, emit, trace_bytes, trace_decode

# ---------------------------------------------------------------------------------------
# Card tables (TC1), from the package's card list.


class Card(NamedTuple):
    """One card's facts as the rules use them."""

    name: str
    kind: str               # "ace", "number", "pawn", "court" or "crown"
    value: int              # its rank as an event: Ace 1, numbers their value, else 0
    order: int              # index in RANK_ORDER (Ace lowest, TC12)
    suits: tuple            # suit indices, as the card list names them


# CK_* order.
CARD_KINDS = ("ace", "number", "pawn", "court", "crown")


def _card(data, suits, rank_order):
    rank = data["rank"]
    kind = rank.lower() if rank.lower() in CARD_KINDS else "number"
    value = 1 if rank == "Ace" else int(rank) if rank.isdigit() else 0
    return Card(data["name"], kind, value, rank_order.index(rank),
                tuple(suits.index(s) for s in data["suits"]))


_DATA = json.loads(resources.files("council.engine").joinpath("data/decktet.json").read_text())
SUITS = tuple(_DATA["suits"])
RANK_ORDER = tuple(_DATA["rank_order"])
CARDS = tuple(_card(card, SUITS, RANK_ORDER) for card in _DATA["cards"])
CARD_NAMES = tuple(card.name for card in CARDS)
PHASES = ("draft", "bid", "reveal", "over")
MAX_RANK = TC_MAX_RANK
MIN_PLAYERS = TC_MIN_PLAYERS
MAX_PLAYERS = TC_MAX_PLAYERS
DEAL = TC_DEAL  # cards dealt to each seat, its pack
DRAFT_ROUNDS = TC_DRAFT_ROUNDS
NO_CARD = TC_NO_CARD  # low_card of a seat that revealed nothing in the last event
# The card_loc codes of the raw form: a pack, a seat's drafted cards and a pack's face-down
# discard are the code plus the pack or seat.
LOCATIONS = {"deck": LOC_DECK, "pack": LOC_PACK, "drafted": LOC_DRAFTED,
             "facedown": LOC_FACEDOWN, "spent": LOC_SPENT, "event": LOC_EVENT,
             "unknown": LOC_UNKNOWN}


def _fill_card_tables():
    if len(SUITS) != TC_N_SUITS or len(CARD_NAMES) != TC_N_CARDS:
        raise ImportError("engine/data/decktet.json does not match the compiled core's sizes")
    for c, card in enumerate(CARDS):
        CARD_KIND[c] = CARD_KINDS.index(card.kind)
        CARD_ORDER[c] = card.order
        CARD_VALUE[c] = card.value
        CARD_SUITS[c] = sum(1 << x for x in card.suits)


_fill_card_tables()

cdef enum:
    # Bid keys (TC10): an Ace's unlimited chips, then the bid, then the tie-breaking number.
    ACE_BID = 1000
    TIE_SCALE = 16

# ---------------------------------------------------------------------------------------
# Small helpers.

cdef inline int pack_holder(TCState* s, int pack) noexcept nogil:
    """The seat holding `pack` in this draft round (packs pass to seat + 1)."""
    return (pack + s.draft_round) % s.n_players


cdef inline int held_pack(TCState* s, int seat) noexcept nogil:
    # Kept non-negative: C's % (cdivision) keeps the sign of a negative left side.
    return (seat + TC_DRAFT_ROUNDS * s.n_players - s.draft_round) % s.n_players


cdef inline int8_t add_rank(int8_t rank) noexcept nogil:
    return rank + 1 if rank < TC_MAX_RANK else rank


cdef int drafted_cards(TCState* s, int seat, int* out) noexcept nogil:
    """The cards face up in front of `seat`, in id order."""
    cdef int c, n = 0
    for c in range(TC_N_CARDS):
        if s.card_loc[c] == LOC_DRAFTED + seat:
            out[n] = c
            n += 1
    return n


cdef void shuffle(int8_t* cards, int n, uint64_t* rng) noexcept nogil:
    cdef int i, j
    cdef int8_t tmp
    for i in range(n - 1, 0, -1):
        j = random_below(rng, i + 1)
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp


# ---------------------------------------------------------------------------------------
# Setup and the flow of a hand.

cdef void deal_hand(TCState* s) noexcept nogil:
    """A fresh deck of all the cards, shuffled, and six cards to each seat (TC3)."""
    cdef int c, k, _i
    for c in range(TC_N_CARDS):
        s.deck[c] = c
        s.card_loc[c] = LOC_DECK
        s.card_pending[c] = 0
    shuffle(s.deck, TC_N_CARDS, &s.rng)
    s.deck_n = TC_N_CARDS
    for k in range(TC_MAX_PLAYERS):
        s.pack_n[k] = 0
        s.pack_seen[k] = 0
        for _i in range(TC_DRAFT_ROUNDS):
            s.draft_picks[k][_i] = -1
    for k in range(s.n_players):
        for _i in range(TC_DEAL):
            s.deck_n -= 1
            s.card_loc[s.deck[s.deck_n]] = LOC_PACK + k
            s.deck[s.deck_n] = -1
        s.pack_n[k] = TC_DEAL
        s.pack_seen[k] = 1 << k
    s.event = -1
    s.events_done = 0
    s.draft_round = 0
    s.phase = PH_DRAFT
    s.current = 0


cdef void tc_new_game(TCState* s, int n_players, uint64_t seed) noexcept nogil:
    cdef int p, x
    memset(s, 0, sizeof(TCState))
    s.rng = game_rng(seed, <uint64_t>0x74686563636C3031)  # "theccl01"
    s.n_players = n_players
    s.viewer = -1
    s.hand = 1
    s.dealer = 0
    s.starter = 0
    s.next_starter = -1
    for x in range(TC_N_SUITS):
        s.empire[x] = TC_MAX_RANK
    for p in range(TC_MAX_PLAYERS):
        s.low_card[p] = TC_NO_CARD
    deal_hand(s)


cdef void end_draft_round(TCState* s, Trace* t) noexcept nogil:
    """Reveal the round's picks, take their chips, pass the packs (TC4, TC5)."""
    cdef int c, k, seat, x
    for c in range(TC_N_CARDS):
        if s.card_pending[c] and s.card_loc[c] < LOC_DRAFTED:
            k = s.card_loc[c] - LOC_PACK
            seat = pack_holder(s, k)
            s.card_pending[c] = 0
            s.card_loc[c] = LOC_DRAFTED + seat
            s.draft_picks[seat][s.draft_round] = c
            s.pack_n[k] -= 1
            emit(t, TE_DRAFT, seat, c, 0, 0, 0)
            for x in range(TC_N_SUITS):
                if CARD_SUITS[c] >> x & 1:
                    s.chips[seat][x] += 1
                    emit(t, TE_CHIPS, seat, x, 1, 0, 0)
    s.draft_round += 1
    s.current = 0
    if s.draft_round < TC_DRAFT_ROUNDS:
        for k in range(s.n_players):
            s.pack_seen[k] |= 1 << pack_holder(s, k)
        return
    for c in range(TC_N_CARDS):
        if LOC_PACK <= s.card_loc[c] < LOC_DRAFTED:
            k = s.card_loc[c] - LOC_PACK
            s.card_loc[c] = LOC_FACEDOWN + k
            s.pack_n[k] = 0
    start_event(s, t)


cdef void start_event(TCState* s, Trace* t) noexcept nogil:
    cdef int p, x
    if s.event >= 0:
        s.card_loc[s.event] = LOC_SPENT  # the last event's card
    s.deck_n -= 1
    s.event = s.deck[s.deck_n]
    s.deck[s.deck_n] = -1
    s.card_loc[s.event] = LOC_EVENT
    emit(t, TE_EVENT, NO_SEAT, s.event, 0, 0, 0)
    s.starter = s.next_starter if s.next_starter >= 0 else s.dealer
    s.current = s.starter
    s.bids_done = 0
    s.bid_floor = 0
    s.phase = PH_BID
    for p in range(TC_MAX_PLAYERS):
        for x in range(TC_N_SUITS):
            s.bid[p][x] = 0


cdef void resolve_event(TCState* s, Trace* t) noexcept nogil:
    """Reveal the chosen cards and resolve the event (TC8 - TC12)."""
    cdef int n = s.n_players
    cdef int c, p, x, q, best, worst, total = 0, pos, old
    cdef bint success, shared
    cdef int suits = CARD_SUITS[s.event]
    cdef int key[TC_MAX_PLAYERS][TC_N_SUITS]    # TC10's order: bid, then the number
    cdef int amount[TC_MAX_PLAYERS][TC_N_SUITS]
    for p in range(n):
        s.low_card[p] = TC_NO_CARD
        for x in range(TC_N_SUITS):
            amount[p][x] = s.bid[p][x]
            key[p][x] = 0
    # Crowns first; Aces, Pawns and numbers act in the event's suits only (TC9, TC12).
    for c in range(TC_N_CARDS):
        if not (s.card_pending[c] and s.card_loc[c] >= LOC_DRAFTED
                and s.card_loc[c] < LOC_FACEDOWN):
            continue
        p = s.card_loc[c] - LOC_DRAFTED
        emit(t, TE_REVEAL, p, c, 0, 0, 0)
        if CARD_KIND[c] == CK_CROWN:
            emit(t, TE_CROWN, p, c, 0, 0, 0)
        if CARD_ORDER[c] < s.low_card[p]:
            s.low_card[p] = CARD_ORDER[c]
        for x in range(TC_N_SUITS):
            if not CARD_SUITS[c] >> x & 1:
                continue
            if CARD_KIND[c] == CK_CROWN:
                old = s.ranks[p][x]
                s.ranks[p][x] = add_rank(s.ranks[p][x])
                if s.ranks[p][x] != old:
                    emit(t, TE_RANK, p, x, s.ranks[p][x] - old, 0, 0)
            elif not suits >> x & 1:
                continue
            elif CARD_KIND[c] == CK_ACE:
                amount[p][x] += ACE_BID
            elif CARD_KIND[c] == CK_PAWN:
                amount[p][x] += 1
            elif CARD_KIND[c] == CK_NUMBER and TIE_SCALE - CARD_VALUE[c] > key[p][x]:
                key[p][x] = TIE_SCALE - CARD_VALUE[c]
    for p in range(n):
        for x in range(TC_N_SUITS):
            if suits >> x & 1:
                total += amount[p][x]
                key[p][x] += amount[p][x] * TIE_SCALE
    success = total >= CARD_VALUE[s.event]
    emit(t, TE_OUTCOME, NO_SEAT, s.event, total % ACE_BID, total >= ACE_BID, success)
    for x in range(TC_N_SUITS):
        if not suits >> x & 1:
            continue
        best = 0
        worst = 0
        for p in range(1, n):
            if key[p][x] > key[best][x]:
                best = p
            if key[p][x] < key[worst][x]:
                worst = p
        if success:
            shared = False
            for q in range(n):
                shared = shared or (q != best and key[q][x] == key[best][x])
            if not shared and amount[best][x] > 0:
                old = s.ranks[best][x]
                s.ranks[best][x] = add_rank(s.ranks[best][x])
                emit(t, TE_SUIT, best, x, False, 0, 0)
                if s.ranks[best][x] != old:
                    emit(t, TE_RANK, best, x, 1, 0, 0)
            else:
                emit(t, TE_SUIT, NO_SEAT, x, shared, 0, 0)
        else:
            shared = False
            for q in range(n):
                shared = shared or (q != worst and key[q][x] == key[worst][x])
            if not shared and s.ranks[worst][x] > 0:
                s.ranks[worst][x] -= 1
                s.traitors[worst] += 1
                emit(t, TE_SUIT, worst, x, False, 0, 0)
                emit(t, TE_RANK, worst, x, -1, 0, 0)
                emit(t, TE_TRAITOR, worst, 1, 0, 0, 0)
            else:
                emit(t, TE_SUIT, NO_SEAT, x, shared, 0, 0)
            if s.empire[x] > 0:
                s.empire[x] -= 1
    # Courts pay on a failure; every revealed card is spent (TC8).
    for c in range(TC_N_CARDS):
        if s.card_pending[c] and s.card_loc[c] >= LOC_DRAFTED and s.card_loc[c] < LOC_FACEDOWN:
            if CARD_KIND[c] == CK_COURT and not success:
                s.traitors[s.card_loc[c] - LOC_DRAFTED] += 1
                emit(t, TE_COURT, s.card_loc[c] - LOC_DRAFTED, c, 0, 0, 0)
                emit(t, TE_TRAITOR, s.card_loc[c] - LOC_DRAFTED, 1, 0, 0, 0)
            s.card_pending[c] = 0
            s.card_loc[c] = LOC_SPENT
    # The lowest revealed card starts the next event; equal ranks: the earlier bidder.
    s.next_starter = -1
    for pos in range(n):
        p = (s.starter + pos) % n
        if s.low_card[p] != TC_NO_CARD and (
                s.next_starter < 0 or s.low_card[p] < s.low_card[s.next_starter]):
            s.next_starter = p
    s.events_done += 1
    if s.events_done < TC_EVENTS:
        start_event(s, t)
        return
    if collapsed_suits(s) or s.hand >= TC_MAX_HANDS:
        end_game(s, t)
        return
    s.hand += 1
    s.dealer = (s.dealer + 1) % n
    deal_hand(s)
    emit(t, TE_NEW_HAND, NO_SEAT, s.hand, 0, 0, 0)


cdef int collapsed_suits(TCState* s) noexcept nogil:
    """Bit x: some seat has more ranks in suit x than the empire."""
    cdef int p, x, mask = 0
    for x in range(TC_N_SUITS):
        for p in range(s.n_players):
            if s.ranks[p][x] > s.empire[x]:
                mask |= 1 << x
    return mask


cdef void end_game(TCState* s, Trace* t) noexcept nogil:
    """Score the collapse: traitor chips, plus ranks in the suits where the empire fell
    below a seat, doubled above the empire."""
    cdef int p, x, mask = collapsed_suits(s), old
    for p in range(s.n_players):
        old = s.score[p]
        s.score[p] = s.traitors[p]
        for x in range(TC_N_SUITS):
            if mask >> x & 1:
                s.score[p] += s.ranks[p][x] * (2 if s.ranks[p][x] > s.empire[x] else 1)
        if s.score[p] != old:
            emit(t, TE_SCORE, p, s.score[p] - old, 0, 0, 0)
    s.phase = PH_OVER
    s.current = -1
    if t != NULL:
        for p in range(s.n_players):
            emit(t, TE_FINAL, p, s.score[p], s.low_card[p], 0, 0)
        emit(t, TE_WINNERS, NO_SEAT, tc_winners_mask(s), 0, 0, 0)


cdef int tc_winners_mask(TCState* s) noexcept nogil:
    """The seats that win a finished game: the highest score; among tied seats the one
    that revealed the lowest-ranked card in the last event, the earlier bidder at equal
    ranks (TC13); shared if none of them revealed a card."""
    cdef int p, pos, top = -1, mask = 0, pick = -1
    for p in range(s.n_players):
        if s.score[p] > top:
            top = s.score[p]
            mask = 0
        if s.score[p] == top:
            mask |= 1 << p
    for pos in range(s.n_players):
        p = (s.starter + pos) % s.n_players
        if mask >> p & 1 and s.low_card[p] != TC_NO_CARD and (
                pick < 0 or s.low_card[p] < s.low_card[pick]):
            pick = p
    return 1 << pick if pick >= 0 else mask


# ---------------------------------------------------------------------------------------
# Actions.

cdef int tc_legal_actions(TCState* s, int* out) noexcept nogil:
    """The legal actions of the seat to act, in increasing order."""
    cdef int c, x, k, n = 0, seat = s.current
    cdef int cards[TC_N_CARDS]
    if s.phase == PH_DRAFT:
        k = held_pack(s, seat)
        for c in range(TC_N_CARDS):
            if s.card_loc[c] == LOC_PACK + k:
                out[n] = TA_PICK + c
                n += 1
    elif s.phase == PH_BID:
        for x in range(s.bid_floor, TC_N_SUITS):
            if CARD_SUITS[s.event] >> x & 1 and s.chips[seat][x] > 0:
                out[n] = TA_BID + x
                n += 1
        out[n] = TA_END_BID
        n += 1
    elif s.phase == PH_REVEAL:
        for k in range(1 << drafted_cards(s, seat, cards)):
            out[n] = TA_REVEAL + k
            n += 1
    return n


cdef bint tc_is_legal(TCState* s, int action) noexcept nogil:
    cdef int actions[TC_N_ACTIONS]
    cdef int i, n = tc_legal_actions(s, actions)
    for i in range(n):
        if actions[i] == action:
            return True
    return False


cdef void tc_apply(TCState* s, int action) noexcept nogil:
    """Apply a legal action (the caller checks legality)."""
    tc_apply_traced(s, action, NULL)


cdef int event_bid(TCState* s) noexcept nogil:
    """The chips offered so far in the event's suits, by every seat."""
    cdef int p, x, total = 0
    for p in range(s.n_players):
        for x in range(TC_N_SUITS):
            if CARD_SUITS[s.event] >> x & 1:
                total += s.bid[p][x]
    return total


cdef void tc_apply_traced(TCState* s, int action, Trace* t) noexcept nogil:
    cdef int i, n, seat = s.current
    cdef int cards[TC_N_CARDS]
    s.action_count += 1
    emit(t, TE_ACTION, seat, action, 0, 0, 0)
    if action < TA_BID:
        s.card_pending[action - TA_PICK] = 1
        emit(t, TE_PICK, seat, action - TA_PICK, 0, 0, 0)
        s.current += 1
        if s.current == s.n_players:
            end_draft_round(s, t)
    elif action < TA_END_BID:
        s.chips[seat][action - TA_BID] -= 1
        s.bid[seat][action - TA_BID] += 1
        s.bid_floor = action - TA_BID
        if t != NULL:
            emit(t, TE_CHIPS, seat, action - TA_BID, -1, 0, 0)
            emit(t, TE_BID, seat, action - TA_BID, event_bid(s), CARD_VALUE[s.event], s.event)
    elif action == TA_END_BID:
        s.phase = PH_REVEAL
        emit(t, TE_END_BID, seat, 0, 0, 0, 0)
    else:
        n = drafted_cards(s, seat, cards)
        for i in range(n):
            if (action - TA_REVEAL) >> i & 1:
                s.card_pending[cards[i]] = 1
        emit(t, TE_CHOOSE_REVEAL, seat, action - TA_REVEAL, 0, 0, 0)
        s.bids_done += 1
        if s.bids_done == s.n_players:
            resolve_event(s, t)
        else:
            s.current = (seat + 1) % s.n_players
            s.phase = PH_BID
            s.bid_floor = 0


# ---------------------------------------------------------------------------------------
# Hidden information (TC15).

cdef inline bint seat_knows(TCState* s, int seat, int c) noexcept nogil:
    cdef int loc = s.card_loc[c]
    if loc == LOC_DECK:
        return False
    if loc < LOC_DRAFTED:
        return s.pack_seen[loc - LOC_PACK] >> seat & 1
    if LOC_FACEDOWN <= loc < LOC_SPENT:
        return s.pack_seen[loc - LOC_FACEDOWN] >> seat & 1
    return True


cdef void tc_make_view(TCState* s, int seat) noexcept nogil:
    """Erase what `seat` cannot know: the deck's order, cards of packs it has not held,
    and the other seats' secret picks and card choices."""
    cdef int c
    for c in range(TC_N_CARDS):
        if not seat_knows(s, seat, c):
            s.card_loc[c] = LOC_UNKNOWN
        if s.card_pending[c] and s.card_loc[c] != LOC_UNKNOWN:
            if s.card_loc[c] < LOC_DRAFTED:
                if pack_holder(s, s.card_loc[c] - LOC_PACK) != seat:
                    s.card_pending[c] = 0
            elif s.card_loc[c] - LOC_DRAFTED != seat:
                s.card_pending[c] = 0
        if s.card_loc[c] == LOC_UNKNOWN:
            s.card_pending[c] = 0
    for c in range(TC_N_CARDS):
        s.deck[c] = -1
    s.viewer = seat
    s.rng = 0


cdef void tc_determinize(TCState* s, uint64_t seed) noexcept nogil:
    """A full state consistent with the view: the unknown cards dealt at random among the
    places the viewer cannot see, and each secret choice of another seat drawn uniformly
    (a pick among its pack's cards; each chosen card by a fair coin)."""
    cdef int8_t unknown[TC_N_CARDS]
    cdef int8_t slots[TC_N_CARDS]
    cdef int8_t placed[LOC_UNKNOWN]
    cdef int8_t options[TC_N_CARDS]
    cdef int c, i, _i, k, p, pos, n_unknown = 0, n_slots = 0, n_options, seat = s.viewer
    cdef int cards[TC_N_CARDS]
    s.rng = game_rng(seed, <uint64_t>0x6465746572637431)  # "determ" "ct1"
    memset(placed, 0, sizeof(placed))
    for c in range(TC_N_CARDS):
        if s.card_loc[c] == LOC_UNKNOWN:
            unknown[n_unknown] = c
            n_unknown += 1
        else:
            placed[s.card_loc[c]] += 1
    # The places the viewer cannot see: the rest of each pack, the face-down discards of
    # the packs it never held, and the deck (filled last, bottom first).
    for k in range(s.n_players):
        for _i in range(s.pack_n[k] - placed[LOC_PACK + k]):
            slots[n_slots] = LOC_PACK + k
            n_slots += 1
        if s.draft_round == TC_DRAFT_ROUNDS and not placed[LOC_FACEDOWN + k]:
            slots[n_slots] = LOC_FACEDOWN + k
            n_slots += 1
    shuffle(unknown, n_unknown, &s.rng)
    for i in range(n_unknown):
        c = unknown[i]
        if i < n_slots:
            s.card_loc[c] = slots[i]
        else:
            s.card_loc[c] = LOC_DECK
            s.deck[i - n_slots] = c
    # Secret picks of the seats before the current one in this draft round.
    if s.phase == PH_DRAFT:
        for p in range(s.current):
            if p == seat:
                continue
            k = held_pack(s, p)
            n_options = 0
            for c in range(TC_N_CARDS):
                if s.card_loc[c] == LOC_PACK + k:
                    options[n_options] = c
                    n_options += 1
            s.card_pending[options[random_below(&s.rng, n_options)]] = 1
    # Secret card choices of the seats that have finished their bid.
    elif s.phase == PH_BID or s.phase == PH_REVEAL:
        for pos in range(s.bids_done):
            p = (s.starter + pos) % s.n_players
            if p == seat:
                continue
            for i in range(drafted_cards(s, p, cards)):
                s.card_pending[cards[i]] = next_random(&s.rng) >> 63
    s.viewer = -1


# ---------------------------------------------------------------------------------------
# Python wrapper: the methods shared with Council of Four's position are in _position.pxi.

from council.engine._the_council cimport TheCouncilState as _Position

ctypedef TCState _PositionStruct


cdef inline void _make_view(TCState* s, int seat) noexcept nogil:
    tc_make_view(s, seat)  # TC15


cdef inline void _determinize(TCState* s, uint64_t seed) noexcept nogil:
    tc_determinize(s, seed)


cdef inline void _reseed(TCState* s, uint64_t seed) noexcept nogil:
    # The deck's order is chance not yet resolved, as the rng is: put in card order, then
    # shuffled anew, so the draws to come depend on the seed and the unseen cards alone.
    cdef int i, j
    cdef int8_t card
    for i in range(1, s.deck_n):  # insertion sort: at most 44 cards, rarely called
        card = s.deck[i]
        j = i - 1
        while j >= 0 and s.deck[j] > card:
            s.deck[j + 1] = s.deck[j]
            j -= 1
        s.deck[j + 1] = card
    s.rng = game_rng(seed, <uint64_t>0x7463726573656564)  # "tcreseed"
    shuffle(s.deck, s.deck_n, &s.rng)


cdef inline int _score(TCState* s, int p) noexcept nogil:
    return s.score[p]  # all zeros before the end


cdef inline int _winners_mask(TCState* s) noexcept nogil:
    # The highest score, then the lowest card revealed in the last event (TC13).
    return tc_winners_mask(s) if s.phase == PH_OVER else 0


include "_position.pxi"

# Pickles written before the shared wrapper name this function so.
_state_from_bytes = _state_from_struct

NUM_ACTIONS = TC_N_ACTIONS
EVENTS_PER_HAND = TC_EVENTS
MAX_HANDS = TC_MAX_HANDS
ACTION_OFFSETS = {"pick": TA_PICK, "bid": TA_BID, "end_bid": TA_END_BID, "reveal": TA_REVEAL}
# The names of the trace's event kinds (TE_* in _the_council.pxd, in that order).
EVENT_KINDS = ("action", "pick", "draft", "chips", "event", "bid", "end_bid", "choose_reveal",
               "reveal", "outcome", "suit", "rank", "traitor", "crown", "court", "new_hand",
               "score", "final", "winners")
assert EVENT_KINDS[TE_WINNERS] == "winners"


# Its one object member, the trace (bytes), refers to nothing: no GC tracking to pay for.
@cython.no_gc
cdef class TheCouncilState:
    """A position of The Council: a full state, or one seat's view of it.

    It meets ``council.engine.position.Position``, the contract of both games' positions.
    """

    @classmethod
    def new_game(cls, config=None, seed=0, *, players=None):
        """A new game from a TheCouncilConfig (the default 4 seats if None), its deck
        shuffled from `seed` (any integer, taken modulo 2**64). The older forms, a seat
        count in place of the configuration (``new_game(4, seed)``) or as ``players=``,
        are kept for their callers."""
        if players is not None:
            config = players
        if config is None:
            from council.engine.the_council_config import TheCouncilConfig
            config = TheCouncilConfig()
        cdef int n = config if isinstance(config, int) else config.validate().players
        if not TC_MIN_PLAYERS <= n <= TC_MAX_PLAYERS:
            raise ValueError(f"players: The Council seats {TC_MIN_PLAYERS} to "
                             f"{TC_MAX_PLAYERS}, got {n}")
        cdef TheCouncilState st = TheCouncilState.__new__(TheCouncilState)
        tc_new_game(&st.s, n, seed_word(seed))
        return st

    clone = _position_clone
    __copy__ = _position_clone
    __deepcopy__ = _position_deepcopy

    # -- the position --------------------------------------------------------------------
    n_players = property(_position_n_players)

    @property
    def current_player(self):
        """The seat to act (-1 once the game is over)."""
        return self.s.current

    viewer = property(_position_viewer)
    is_view = property(_position_is_view)
    events = property(_position_events)

    def is_terminal(self):
        return self.s.phase == PH_OVER

    @property
    def phase(self):
        """'draft', 'bid' (offering chips), 'reveal' (choosing cards) or 'over'."""
        return PHASES[self.s.phase]

    @property
    def decision_name(self):
        """The name of the decision to take now: the phase (``'draft'``, ``'bid'``,
        ``'reveal'``; ``'over'`` once the game is over)."""
        return PHASES[self.s.phase]

    @property
    def hand(self):
        return self.s.hand

    @property
    def turn(self):
        """The hand being played: the game's length in the unit that match caps and
        reports count (Council of Four's turns)."""
        return self.s.hand

    @property
    def action_count(self):
        return self.s.action_count

    @property
    def event(self):
        """The event card's id, or None during the draft."""
        return None if self.s.event < 0 else self.s.event

    def drafted(self, int seat):
        """The card ids face up in front of `seat`, in id order."""
        _check_seat(self, seat)
        cdef int cards[TC_N_CARDS]
        return [cards[i] for i in range(drafted_cards(&self.s, seat, cards))]

    _require_full = _position_require_full

    # -- actions -------------------------------------------------------------------------
    def legal_actions(self):
        """Legal action ids for the seat to act, in increasing order."""
        self._require_full("legal_actions")
        cdef int buf[TC_N_ACTIONS]
        cdef int n = tc_legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, int action):
        self._require_full("is_legal")
        return 0 <= action < TC_N_ACTIONS and tc_is_legal(&self.s, action)

    def apply(self, int action):
        """Apply a legal action in place. Raises IllegalActionError otherwise."""
        self._require_full("apply")
        if self.s.phase == PH_OVER:
            raise IllegalActionError("the game is over")
        if not 0 <= action < TC_N_ACTIONS:
            raise IllegalActionError(f"action {action} is not legal here: action ids are "
                                     f"0..{TC_N_ACTIONS - 1}")
        if not tc_is_legal(&self.s, action):
            raise IllegalActionError(f"action {action} ({self._action_text(action)}) is "
                                     f"not legal here")
        cdef Trace trace
        trace.n = trace.dropped = 0
        tc_apply_traced(&self.s, action, &trace)
        self._events = trace_bytes(&trace)

    child = _position_child

    def action_to_text(self, int action):
        """The text form of an action of the seat to act: 'pick The Author', 'bid Moons',
        'end bid', 'reveal Ace of Moons, The Author' or 'reveal nothing'."""
        if not 0 <= action < TC_N_ACTIONS:
            raise ValueError(f"action must be in 0..{TC_N_ACTIONS - 1}, got {action}")
        return self._action_text(action)

    def _action_text(self, int action):
        if action < TA_BID:
            return f"pick {CARD_NAMES[action - TA_PICK]}"
        if action < TA_END_BID:
            return f"bid {SUITS[action - TA_BID]}"
        if action == TA_END_BID:
            return "end bid"
        if self.s.current < 0:
            return f"reveal mask {action - TA_REVEAL}"
        cards = self.drafted(self.s.current)
        chosen = [CARD_NAMES[c] for i, c in enumerate(cards) if (action - TA_REVEAL) >> i & 1]
        if (action - TA_REVEAL) >> len(cards):
            return f"reveal mask {action - TA_REVEAL}"
        return "reveal " + (", ".join(chosen) if chosen else "nothing")

    def action_from_text(self, str text):
        """Inverse of action_to_text for the seat to act (ValueError naming the problem)."""
        verb, _, rest = text.strip().partition(" ")
        rest = rest.strip()
        if verb == "pick":
            if rest not in CARD_NAMES:
                raise ValueError(f"unknown card {rest!r}")
            return TA_PICK + CARD_NAMES.index(rest)
        if verb == "bid":
            if rest not in SUITS:
                raise ValueError(f"unknown suit {rest!r}; suits: {', '.join(SUITS)}")
            return TA_BID + SUITS.index(rest)
        if text.split() == ["end", "bid"]:
            return TA_END_BID
        if verb == "reveal":
            if self.s.current < 0:
                raise ValueError("the game is over")
            cards = self.drafted(self.s.current)
            mask = 0
            if rest != "nothing":
                for name in (part.strip() for part in rest.split(",")):
                    if name not in CARD_NAMES:
                        raise ValueError(f"unknown card {name!r}")
                    if CARD_NAMES.index(name) not in cards:
                        raise ValueError(f"{name} is not in front of seat {self.s.current}")
                    mask |= 1 << cards.index(CARD_NAMES.index(name))
            return TA_REVEAL + mask
        raise ValueError(f"not an action of The Council: {text!r} (pick CARD, bid SUIT, "
                         f"end bid, reveal CARDS or reveal nothing)")

    def problems(self):
        """Every consistency problem of this position as ``(field path, problem)`` pairs;
        ``[]`` when it is consistent (``council.engine.the_council_status``)."""
        from council.engine.the_council_status import problems
        return problems(self)

    # -- hidden information --------------------------------------------------------------
    view = _position_view
    determinize = _position_determinize
    reseed = _position_reseed

    # -- outcome -------------------------------------------------------------------------
    scores = _position_scores
    winners = _position_winners
    returns = _position_returns

    def adjudicated(self):
        """A finished copy of this full state, scored as a collapse now (the scoring of
        TC14's hand limit); a finished state comes back as a plain copy."""
        self._require_full("adjudicated")
        cdef TheCouncilState st = _copy(self)
        if st.s.phase != PH_OVER:
            end_game(&st.s, NULL)
        return st

    def random_playout(self, seed):
        """Play uniformly random actions in place until the end; returns actions played."""
        self._require_full("random_playout")
        cdef uint64_t rng = game_rng(seed_word(seed), 0)
        cdef int buf[TC_N_ACTIONS]
        cdef int n, steps = 0
        with nogil:
            while self.s.phase != PH_OVER:
                n = tc_legal_actions(&self.s, buf)
                tc_apply(&self.s, buf[random_below(&rng, n)])
                steps += 1
        return steps

    # -- raw form, pickle, equality ------------------------------------------------------
    to_raw = _position_to_raw
    from_raw = staticmethod(_position_from_raw)
    __reduce__ = _position_reduce

    def __eq__(self, other):
        if not isinstance(other, TheCouncilState):
            return NotImplemented
        return _position_eq(self, other)

    def __hash__(self):
        _position_unhashable(self)

    def __str__(self):
        from council.engine.render_the_council import render_the_council
        return render_the_council(self)

    def __repr__(self):
        who = "full state" if self.s.viewer < 0 else f"view of seat {self.s.viewer}"
        return (f"<TheCouncilState {self.s.n_players} seats, hand {self.s.hand}, "
                f"{PHASES[self.s.phase]}, seat {self.s.current} to act, {who}>")


_name_methods(TheCouncilState)
