"""Compiled rules core of Council of Four.

The game state is one C struct (see ``_council_of_four.pxd``). The rules functions below take a
pointer to it, run without the GIL and never allocate, so the search can call them in
its inner loop. ``CouncilOfFourState`` wraps the struct for Python.
"""

from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, int16_t, uint16_t, uint64_t

from council.engine._random cimport game_rng, seed_word
from council.engine._trace cimport NO_SEAT, Trace, emit, trace_bytes, trace_decode

import collections
import enum

import numpy as np

from council.engine import council_of_four_board as _board
from council.engine._raw import raw_to_struct, struct_to_raw
from council.engine.position import IllegalActionError

cdef extern from *:
    """
    #define PAY_HIGH_BITS 0x0080808080808080ULL
    """
    const uint64_t PAY_HIGH_BITS   # bit 7 of each card kind's byte in PAY_PACKED
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil

# ---------------------------------------------------------------------------------------
# Board tables (declared in _council_of_four.pxd, so the search reads the same ones), filled once
# from council.engine.council_of_four_board at import.

# Payments packed one byte per card kind (joker in byte 6), for the one-subtraction fit
# test of legal_actions; PAY_SIZE_START[size] is the first payment of that size.
cdef uint64_t PAY_PACKED[N_PAYMENTS]
cdef int16_t PAY_SIZE_START[6]

# Bounds on rule numbers that size buffers or must fit the state's int8/int16 fields.
cdef enum:
    MAX_COUNCILLORS_PER_COLOUR = 20
    MAX_CARDS_PER_KIND = 1000
    MAX_START_HAND = 100


def _fill_tables():
    keys = _board.BONUS_KEYS
    assert keys == ("VP", "coins", "assistants", "politics", "nobility", "main_action")
    assert _board.NOBILITY_MAX == NOBILITY_MAX, "the nobility track's length is compiled in"
    cdef int i, j, k, li, c
    for c in range(N_CITIES):
        CITY_REGION[c] = _board.CITY_REGION[c]
    for i in range(N_REGIONS):
        REGION_MASK[i] = 0
    for c in range(N_CITIES):
        REGION_MASK[CITY_REGION[c]] |= 1 << c
    for li in range(8):
        layout = _board.Layout.from_index(li)
        LAYOUT_KING[li] = layout.king_city
        colours = layout.city_colours
        for k in range(N_CITY_COLOURS):
            LAYOUT_COLOUR_MASK[li][k] = 0
        for c in range(N_CITIES):
            LAYOUT_COLOUR[li][c] = colours[c]
            if colours[c] >= 0:
                LAYOUT_COLOUR_MASK[li][colours[c]] |= 1 << c
            LAYOUT_ADJ[li][c] = 0
            for n in layout.neighbours(c):
                LAYOUT_ADJ[li][c] |= 1 << n
            for j in range(N_CITIES):
                LAYOUT_DIST[li][c][j] = layout.distance(c, j)
    for i, token in enumerate(_board.CITY_TOKENS):
        for k in range(N_BONUS_KEYS):
            TOKEN_BONUS[i][k] = token.get(keys[k], 0)
        TOKEN_HAS_NOBILITY[i] = TOKEN_BONUS[i][B_NOBILITY] > 0
    for tile in _board.PERMIT_TILES:
        i = tile.index
        for k in range(N_BONUS_KEYS):
            TILE_BONUS[i][k] = tile.bonus.get(keys[k], 0)
        TILE_NCITIES[i] = len(tile.cities)
        for k in range(3):
            TILE_CITIES[i][k] = tile.cities[k] if k < len(tile.cities) else -1
    choice_kind = {
        "city_token": P_TOKEN,
        "two_city_tokens": P_TOKEN_PAIR_FIRST,
        "free_permit": P_FREE_PERMIT,
        "permit_bonus": P_PERMIT_BONUS,
    }
    for i in range(NOBILITY_MAX + 1):
        NOB_CHOICE[i] = 0
        for k in range(N_BONUS_KEYS):
            NOB_BONUS[i][k] = 0
        space = _board.NOBILITY_SPACES.get(i)
        if space is None:
            continue
        if "choice" in space:
            NOB_CHOICE[i] = choice_kind[space["choice"]]
        else:
            for k in range(N_BONUS_KEYS):
                NOB_BONUS[i][k] = space.get(keys[k], 0)
    for i in range(N_BONUS_TILES):
        BONUS_TILE_VP[i] = _board.BONUS_TILE_VP[i]
    for i in range(N_KING_TILES):
        KING_TILE_VP[i] = _board.KING_REWARD_TILES[i]
    _fill_rule_numbers(_board.RULE_NUMBERS)
    # Payments: every multiset of 1..4 cards over the 7 kinds, by size then lexicographically.
    payments = []
    for size in range(1, 5):
        def rec(prefix, kind, left):
            if kind == N_CARD_KINDS - 1:
                payments.append(prefix + [left])
                return
            for take in range(left, -1, -1):
                rec(prefix + [take], kind + 1, left - take)
        rec([], 0, size)
    assert len(payments) == N_PAYMENTS
    for i, p in enumerate(payments):
        PAY_SIZE[i] = sum(p)
        PAY_PACKED[i] = 0
        for k in range(N_CARD_KINDS):
            PAY_COUNTS[i][k] = p[k]
            PAY_PACKED[i] |= (<uint64_t>p[k]) << (8 * k)
    PAY_SIZE_START[0] = 0
    PAY_SIZE_START[5] = N_PAYMENTS
    for i in range(N_PAYMENTS - 1, -1, -1):
        PAY_SIZE_START[PAY_SIZE[i]] = i


def _fill_rule_numbers(rules):
    costs = rules["council_cost_by_cards"]
    COUNCIL_COST[0] = 0
    for i in range(1, 5):
        COUNCIL_COST[i] = costs[i]
        # min_payment_cost relies on more cards never costing more.
        assert 0 <= costs[i] <= (costs[i - 1] if i > 1 else costs[i]), costs
    start = rules["start"]
    for i in range(MAX_PLAYERS):
        START_COINS[i] = start["coins"][i]
        START_ASSISTANTS[i] = start["assistants"][i]
    RULES.start_hand = start["hand"]
    cards = rules["politics_cards"]
    RULES.politics_cards = 0
    for k in range(N_CARD_KINDS):
        RULES.cards_per_kind[k] = cards["jokers"] if k == JOKER else cards["per_colour"]
        assert 0 <= RULES.cards_per_kind[k] <= MAX_CARDS_PER_KIND, cards
        RULES.politics_cards += RULES.cards_per_kind[k]
    assert 0 <= RULES.start_hand <= MAX_START_HAND, start
    RULES.councillors_per_colour = rules["councillors_per_colour"]
    # Enough councillors to fill every balcony, and no more than the setup buffer holds.
    assert (N_BALCONIES * BALCONY_SIZE <= N_COLOURS * RULES.councillors_per_colour
            and RULES.councillors_per_colour <= MAX_COUNCILLORS_PER_COLOUR), rules
    RULES.joker_cost = rules["council_cost_per_joker"]
    assert RULES.joker_cost >= 0, rules
    RULES.elect_coins = rules["elect_coins"]
    RULES.king_cost_per_road = rules["king_cost_per_road"]
    RULES.engage_coins = rules["engage_assistant_coins"]
    RULES.extra_main_assistants = rules["extra_main_assistants"]
    RULES.tenth_emporium_vp = rules["tenth_emporium_vp"]
    RULES.nobility_first_vp = rules["nobility_first_vp"]
    RULES.nobility_second_vp = rules["nobility_second_vp"]
    RULES.most_permits_vp = rules["most_permits_vp"]


def rule_numbers():
    """The rule numbers the core plays by, in the form of
    ``council.engine.council_of_four_board.RULE_NUMBERS`` (which they are loaded from)."""
    return {
        "start": {
            "coins": [START_COINS[i] for i in range(MAX_PLAYERS)],
            "assistants": [START_ASSISTANTS[i] for i in range(MAX_PLAYERS)],
            "hand": RULES.start_hand,
        },
        "politics_cards": {
            "per_colour": RULES.cards_per_kind[0],
            "jokers": RULES.cards_per_kind[JOKER],
        },
        "councillors_per_colour": RULES.councillors_per_colour,
        "council_cost_by_cards": [None] + [COUNCIL_COST[i] for i in range(1, 5)],
        "council_cost_per_joker": RULES.joker_cost,
        "elect_coins": RULES.elect_coins,
        "king_cost_per_road": RULES.king_cost_per_road,
        "engage_assistant_coins": RULES.engage_coins,
        "extra_main_assistants": RULES.extra_main_assistants,
        "tenth_emporium_vp": RULES.tenth_emporium_vp,
        "nobility_first_vp": RULES.nobility_first_vp,
        "nobility_second_vp": RULES.nobility_second_vp,
        "most_permits_vp": RULES.most_permits_vp,
    }


_fill_tables()

# ---------------------------------------------------------------------------------------
# Seeds (next_random and random_below, splitmix64 over the state's rng word, are in
# _council_of_four.pxd so that the search inlines them).

cdef inline uint64_t mix_seed(uint64_t seed) noexcept nogil:
    cdef uint64_t r = seed
    next_random(&r)
    return r

# ---------------------------------------------------------------------------------------
# Small helpers.

cdef inline int others_in_city(GameState* s, int p, int city) noexcept nogil:
    cdef int n = (s.neutral >> city) & 1
    cdef int q
    for q in range(s.n_players):
        if q != p:
            n += (s.emporia[q] >> city) & 1
    return n


cdef inline void add_coins(GameState* s, int p, int n, Trace* t) noexcept nogil:
    cdef int c = s.coins[p] + n
    if c > s.max_coins:
        c = s.max_coins
    if c != s.coins[p]:
        emit(t, EV_COINS, p, c - s.coins[p], 0, 0, 0)
    s.coins[p] = c


cdef inline void pay_coins(GameState* s, int p, int n, Trace* t) noexcept nogil:
    s.coins[p] -= n
    if n:
        emit(t, EV_COINS, p, -n, 0, 0, 0)


cdef inline void pay_assistants(GameState* s, int p, int n, Trace* t) noexcept nogil:
    s.assistants[p] -= n
    if n:
        emit(t, EV_ASSISTANTS, p, -n, 0, 0, 0)


cdef inline int assistants_in_supply(GameState* s) noexcept nogil:
    cdef int q, used = 0
    for q in range(s.n_players):
        used += s.assistants[q]
    return s.assistant_supply - used


cdef inline void add_assistants(GameState* s, int p, int n, Trace* t) noexcept nogil:
    cdef int left
    if s.assistant_supply > 0:
        left = assistants_in_supply(s)
        if n > left:
            n = left
    s.assistants[p] += n
    if n:
        emit(t, EV_ASSISTANTS, p, n, 0, 0, 0)


cdef void draw_politics(GameState* s, int p, Trace* t) noexcept nogil:
    cdef int k, r
    if s.politics_deck_n == 0:
        # RULINGS 6: the discard pile becomes the new deck; with both empty, no card.
        for k in range(N_CARD_KINDS):
            s.politics_deck[k] = s.discard[k]
            s.politics_deck_n += s.discard[k]
            s.discard[k] = 0
        if s.politics_deck_n == 0:
            return
    r = random_below(&s.rng, s.politics_deck_n)
    for k in range(N_CARD_KINDS):
        if r < s.politics_deck[k]:
            break
        r -= s.politics_deck[k]
    s.politics_deck[k] -= 1
    s.politics_deck_n -= 1
    s.hand[p][k] += 1
    s.hand_n[p] += 1
    emit(t, EV_DRAW, p, k, 0, 0, 0)  # the card: the effects name it to no other seat


cdef int draw_permit(GameState* s, int r) noexcept nogil:
    """Take the top tile of a region's deck, or -1 if it is empty.

    The unknown part of the deck is kept unordered: drawing picks a random tile of it,
    which is the same as drawing the top of a shuffled deck.
    """
    cdef int n = s.deck_n[r]
    cdef int unknown, i, tile
    if n == 0:
        return -1
    unknown = n - s.deck_known[r]
    if unknown > 0:
        i = random_below(&s.rng, unknown)
        tile = s.permit_deck[r][i]
        s.permit_deck[r][i] = s.permit_deck[r][0]
        s.permit_deck[r][0] = tile
    else:
        s.deck_known[r] -= 1
    tile = s.permit_deck[r][0]
    for i in range(n - 1):
        s.permit_deck[r][i] = s.permit_deck[r][i + 1]
    s.permit_deck[r][n - 1] = -1
    s.deck_n[r] = n - 1
    return tile


cdef inline void push_pending(GameState* s, int kind, int arg) noexcept nogil:
    if s.pending_n < MAX_PENDING:
        s.pending_kind[s.pending_n] = kind
        s.pending_arg[s.pending_n] = arg
        s.pending_n += 1


cdef inline void pop_pending(GameState* s) noexcept nogil:
    cdef int i
    for i in range(s.pending_n - 1):
        s.pending_kind[i] = s.pending_kind[i + 1]
        s.pending_arg[i] = s.pending_arg[i + 1]
    s.pending_n -= 1
    # Freed slots are zeroed so that equal positions have equal structs.
    s.pending_kind[s.pending_n] = 0
    s.pending_arg[s.pending_n] = 0


cdef inline bint token_city_eligible(GameState* s, int p, int city) noexcept nogil:
    cdef int t
    if not (s.emporia[p] >> city) & 1:
        return False
    t = s.city_token[city]
    return t >= 0 and not TOKEN_HAS_NOBILITY[t]


cdef int eligible_token_cities(GameState* s, int p, int above, uint16_t* mask) noexcept nogil:
    cdef int c, n = 0
    mask[0] = 0
    for c in range(above + 1, N_CITIES):
        if token_city_eligible(s, p, c):
            mask[0] |= 1 << c
            n += 1
    return n


# ---------------------------------------------------------------------------------------
# Bonuses and the nobility track.

cdef void gain_bonus(GameState* s, int p, int16_t* bonus, Trace* t) noexcept nogil:
    cdef int _i
    s.vp[p] += bonus[B_VP]
    if bonus[B_COINS]:
        add_coins(s, p, bonus[B_COINS], t)
    if bonus[B_ASSISTANTS]:
        add_assistants(s, p, bonus[B_ASSISTANTS], t)
    for _i in range(bonus[B_POLITICS]):
        draw_politics(s, p, t)
    s.main_left += bonus[B_MAIN]
    if bonus[B_MAIN]:
        emit(t, EV_MAIN_ACTIONS, p, bonus[B_MAIN], 0, 0, 0)
    if bonus[B_NOBILITY]:
        advance_nobility(s, p, bonus[B_NOBILITY], t)


cdef void nobility_space(GameState* s, int p, int space, Trace* t) noexcept nogil:
    emit(t, EV_NOBILITY_SPACE, p, space, 0, 0, 0)
    if NOB_CHOICE[space]:
        push_pending(s, NOB_CHOICE[space], 0)
    else:
        gain_bonus(s, p, NOB_BONUS[space], t)


cdef void advance_nobility(GameState* s, int p, int steps, Trace* t) noexcept nogil:
    cdef int old = s.nobility[p]
    cdef int new = old + steps
    cdef int space
    if new > NOBILITY_MAX:
        new = NOBILITY_MAX
    if new == old:
        return
    s.nobility[p] = new
    emit(t, EV_NOBILITY, p, old, new, 0, 0)
    if s.nobility_on_pass:
        for space in range(old + 1, new + 1):
            nobility_space(s, p, space, t)
    else:
        nobility_space(s, p, new, t)


cdef void take_permit(GameState* s, int p, int region, int slot, Trace* t) noexcept nogil:
    """Move a face-up tile to the player and resolve its bonus. The slot stays empty
    until every decision that bonus raised is taken (refill_face_up, RULINGS 22)."""
    cdef int tile = s.face_up[region][slot]
    s.face_up[region][slot] = -1
    s.permits_up[p] |= (<uint64_t>1) << tile
    emit(t, EV_TAKE_PERMIT, p, tile, 0, 0, 0)
    gain_bonus(s, p, TILE_BONUS[tile], t)


cdef inline void turn_face_up(GameState* s, int r, int slot, Trace* t) noexcept nogil:
    """The top tile of region r's deck into the face-up slot (-1: the deck is empty)."""
    s.face_up[r][slot] = draw_permit(s, r)
    if s.face_up[r][slot] >= 0:
        emit(t, EV_FACE_UP, NO_SEAT, r, slot, s.face_up[r][slot], 0)


cdef void refill_face_up(GameState* s, Trace* t) noexcept nogil:
    """Refill the face-up slots emptied by taking a tile, once its bonus has fully resolved
    (RULINGS 22: so the free tile of nobility space 10 is never the replacement). Outside
    pending decisions a slot is empty only when its deck is."""
    cdef int r, slot
    for r in range(N_REGIONS):
        for slot in range(2):
            if s.face_up[r][slot] < 0 and s.deck_n[r] > 0:
                turn_face_up(s, r, slot, t)


cdef void build_emporium(GameState* s, int p, int city, Trace* tr) noexcept nogil:
    cdef int li = s.layout
    cdef uint16_t visited, frontier, next_frontier, own
    cdef int c, t, i, colour, region, order_n = 0, others = others_in_city(s, p, city)
    cdef int8_t order[N_CITIES]
    emit(tr, EV_BUILD, p, city, others, 0, 0)
    pay_assistants(s, p, others, tr)
    s.emporia[p] |= 1 << city
    s.emporia_n[p] += 1
    if s.emporia_n[p] == MAX_EMPORIUMS and s.end_trigger < 0:
        s.end_trigger = p
        s.vp[p] += RULES.tenth_emporium_vp
        emit(tr, EV_TENTH_EMPORIUM, p, RULES.tenth_emporium_vp, 0, 0, 0)
    # Linked bonus (RULINGS 11): this city and every city linked to it through roads
    # whose cities all hold this player's emporiums; each token once.
    own = s.emporia[p]
    visited = 1 << city
    frontier = visited
    while frontier:
        next_frontier = 0
        for c in range(N_CITIES):
            if (frontier >> c) & 1:
                order[order_n] = c
                order_n += 1
                next_frontier |= LAYOUT_ADJ[li][c] & own
        frontier = next_frontier & ~visited
        visited |= frontier
    for i in range(order_n):
        t = s.city_token[order[i]]
        if t >= 0:
            emit(tr, EV_TOKEN, p, order[i], t, 0, 0)
            gain_bonus(s, p, TOKEN_BONUS[t], tr)
    # Region and colour bonus tiles, each with the top king reward tile.
    region = CITY_REGION[city]
    if (own & REGION_MASK[region]) == REGION_MASK[region]:
        take_bonus_tile(s, p, region, tr)
    colour = LAYOUT_COLOUR[li][city]
    if colour >= 0 and (own & LAYOUT_COLOUR_MASK[li][colour]) == LAYOUT_COLOUR_MASK[li][colour]:
        take_bonus_tile(s, p, N_REGIONS + colour, tr)


cdef void take_bonus_tile(GameState* s, int p, int tile, Trace* t) noexcept nogil:
    if not (s.bonus_tiles_left >> tile) & 1:
        return
    s.bonus_tiles_left &= ~(1 << tile)
    s.bonus_tiles[p] |= 1 << tile
    emit(t, EV_BONUS_TILE, p, tile, BONUS_TILE_VP[tile], 0, 0)
    if s.king_tiles_taken < N_KING_TILES:
        s.king_tiles[p] |= 1 << s.king_tiles_taken
        emit(t, EV_KING_TILE, p, s.king_tiles_taken, KING_TILE_VP[s.king_tiles_taken], 0, 0)
        s.king_tiles_taken += 1


# ---------------------------------------------------------------------------------------
# Council payments.

cdef inline void council_colour_counts(GameState* s, int b, int* counts) noexcept nogil:
    cdef int k
    for k in range(N_COLOURS):
        counts[k] = 0
    for k in range(BALCONY_SIZE):
        counts[s.balcony[b][k]] += 1


cdef int min_payment_cost(GameState* s, int p, int b) noexcept nogil:
    """Cheapest coins needed to satisfy balcony b with p's hand, or -1 if impossible."""
    cdef int counts[N_COLOURS]
    cdef int k, m = 0, total, h, j, cost, best = -1
    council_colour_counts(s, b, counts)
    for k in range(N_COLOURS):
        h = s.hand[p][k]
        m += counts[k] if counts[k] < h else h
    if m > 4:
        m = 4
    total = m + s.hand[p][JOKER]
    if total > 4:
        total = 4
    # Every matched card helps (more cards never cost more); j jokers on top of them lower
    # the base cost and cost joker_cost each.
    for j in range(total - m + 1):
        if m + j > 0:
            cost = COUNCIL_COST[m + j] + RULES.joker_cost * j
            if best < 0 or cost < best:
                best = cost
    return best


cdef int list_payments(GameState* s, int p, int b, int budget, int* out) noexcept nogil:
    """Write A_PAY + k for every payment p can make to balcony b with at most `budget`
    coins, in increasing k; return how many.

    The legal payments are the sub-multisets of (hand ∩ council) plus jokers, so the
    council is counted once, and each payment is tested with one packed subtraction:
    byte k of `fit` is 0x80 + the cards of kind k available, and it keeps its high bit
    after subtracting the payment's byte exactly when the payment needs no more.
    """
    cdef int council[N_COLOURS]
    cdef uint64_t avail = 0, fit
    cdef int k, h, m, size, jokers, total = 0, n = 0
    council_colour_counts(s, b, council)
    for k in range(N_COLOURS):
        h = s.hand[p][k]
        m = council[k] if council[k] < h else h
        avail |= (<uint64_t>m) << (8 * k)
        total += m
    h = s.hand[p][JOKER]
    total += h
    for size in range(1, 5):
        if size > total:
            break
        # A payment costs its size's base plus joker_cost per joker: the budget caps the
        # jokers.
        jokers = budget - COUNCIL_COST[size]
        if jokers < 0:
            continue
        if RULES.joker_cost > 0:
            jokers = jokers // RULES.joker_cost
        else:
            jokers = size
        if jokers > h:
            jokers = h
        if jokers > size:
            jokers = size
        fit = avail | ((<uint64_t>jokers) << (8 * JOKER)) | PAY_HIGH_BITS
        for k in range(PAY_SIZE_START[size], PAY_SIZE_START[size + 1]):
            if ((fit - PAY_PACKED[k]) & PAY_HIGH_BITS) == PAY_HIGH_BITS:
                out[n] = A_PAY + k
                n += 1
    return n


cdef inline bint can_build_in(GameState* s, int p, int city) noexcept nogil:
    return (not (s.emporia[p] >> city) & 1) and s.assistants[p] >= others_in_city(s, p, city)


# ---------------------------------------------------------------------------------------
# Legal actions.

cdef int legal_actions(GameState* s, int* out) noexcept nogil:
    cdef int p = s.current
    cdef int n = 0, b, c, r, k, slot, mp, tile, kind, arg, travel, budget
    cdef uint64_t tiles
    cdef uint16_t mask
    if s.game_over:
        return 0
    if s.pending_n > 0:
        kind = s.pending_kind[0]
        arg = s.pending_arg[0]
        if kind == P_PAY_PERMIT or kind == P_PAY_KING:
            if kind == P_PAY_PERMIT:
                b = arg >> 1
                budget = s.coins[p]
            else:
                b = KING_BALCONY
                budget = s.coins[p] - king_travel_cost(s, arg)
            n = list_payments(s, p, b, budget, out)
        elif kind == P_TOKEN:
            eligible_token_cities(s, p, -1, &mask)
            for c in range(N_CITIES):
                if (mask >> c) & 1:
                    out[n] = A_CHOOSE_TOKEN + c
                    n += 1
        elif kind == P_TOKEN_PAIR_FIRST:
            k = eligible_token_cities(s, p, -1, &mask)
            for c in range(N_CITIES):
                if (mask >> c) & 1:
                    # With two or more eligible cities the pair is chosen in increasing
                    # order, so the first pick must leave a higher city to pair with.
                    if k == 1 or (mask >> (c + 1)) != 0:
                        out[n] = A_CHOOSE_TOKEN + c
                        n += 1
        elif kind == P_TOKEN_PAIR_SECOND:
            eligible_token_cities(s, p, arg, &mask)
            for c in range(N_CITIES):
                if (mask >> c) & 1:
                    out[n] = A_CHOOSE_TOKEN + c
                    n += 1
        elif kind == P_FREE_PERMIT:
            for r in range(N_REGIONS):
                for slot in range(2):
                    if s.face_up[r][slot] >= 0:
                        out[n] = A_CHOOSE_FREE_PERMIT + r * 2 + slot
                        n += 1
        elif kind == P_PERMIT_BONUS:
            tiles = s.permits_up[p] | s.permits_down[p]
            while tiles:
                tile = ctz64(tiles)
                tiles &= tiles - 1
                out[n] = A_CHOOSE_PERMIT_BONUS + tile
                n += 1
        return n

    if s.main_done > 0:
        out[n] = A_END_TURN
        n += 1
    if s.main_left > 0:
        for b in range(N_BALCONIES):
            for c in range(N_COLOURS):
                if s.pool[c] > 0:
                    out[n] = A_ELECT + b * N_COLOURS + c
                    n += 1
        for r in range(N_REGIONS):
            mp = min_payment_cost(s, p, r)
            if mp >= 0 and mp <= s.coins[p]:
                for slot in range(2):
                    if s.face_up[r][slot] >= 0:
                        out[n] = A_ACQUIRE + r * 2 + slot
                        n += 1
        if s.emporia_n[p] < MAX_EMPORIUMS:
            tiles = s.permits_up[p]
            while tiles:
                tile = ctz64(tiles)
                tiles &= tiles - 1
                for k in range(TILE_NCITIES[tile]):
                    if can_build_in(s, p, TILE_CITIES[tile][k]):
                        out[n] = A_BUILD_PERMIT + tile * 3 + k
                        n += 1
            mp = min_payment_cost(s, p, KING_BALCONY)
            if mp >= 0 and mp <= s.coins[p]:
                for c in range(N_CITIES):
                    travel = king_travel_cost(s, c)
                    if mp + travel <= s.coins[p] and can_build_in(s, p, c):
                        out[n] = A_BUILD_KING + c
                        n += 1
    if not s.quick_used:
        if s.coins[p] >= RULES.engage_coins and (s.assistant_supply == 0
                                                 or assistants_in_supply(s) > 0):
            out[n] = A_ENGAGE
            n += 1
        if s.assistants[p] >= 1:
            for r in range(N_REGIONS):
                if s.face_up[r][0] >= 0 or s.face_up[r][1] >= 0:
                    out[n] = A_CHANGE + r
                    n += 1
            for b in range(N_BALCONIES):
                for c in range(N_COLOURS):
                    if s.pool[c] > 0:
                        out[n] = A_QUICK_ELECT + b * N_COLOURS + c
                        n += 1
        if s.assistants[p] >= RULES.extra_main_assistants:
            out[n] = A_EXTRA_MAIN
            n += 1
    return n


cdef bint is_legal(GameState* s, int action) noexcept nogil:
    cdef int buf[N_ACTIONS]
    cdef int n = legal_actions(s, buf)
    cdef int i
    for i in range(n):
        if buf[i] == action:
            return True
    return False


# ---------------------------------------------------------------------------------------
# Applying actions. The caller guarantees legality (CouncilOfFourState.apply checks it).

cdef void elect(GameState* s, int b, int colour, Trace* t) noexcept nogil:
    cdef int out = s.balcony[b][BALCONY_SIZE - 1]
    cdef int k
    emit(t, EV_ELECT, s.current, b, colour, out, 0)
    for k in range(BALCONY_SIZE - 1, 0, -1):
        s.balcony[b][k] = s.balcony[b][k - 1]
    s.balcony[b][0] = colour
    s.pool[colour] -= 1
    s.pool[out] += 1


cdef void start_turn(GameState* s, Trace* t) noexcept nogil:
    s.main_left = 1
    s.main_done = 0
    s.quick_used = 0
    s.turn += 1
    draw_politics(s, s.current, t)


cdef int tiles_vp(GameState* s, int p) noexcept nogil:
    """VP of the bonus and king reward tiles p holds (scored at the end, RULINGS 17)."""
    cdef int v = 0, i
    for i in range(N_BONUS_TILES):
        if (s.bonus_tiles[p] >> i) & 1:
            v += BONUS_TILE_VP[i]
    for i in range(N_KING_TILES):
        if (s.king_tiles[p] >> i) & 1:
            v += KING_TILE_VP[i]
    return v


cdef void end_awards(GameState* s, int* award) noexcept nogil:
    """The nobility and most-permit-tiles awards of final scoring, as they stand now."""
    end_awards_traced(s, award, NULL)


cdef void end_awards_traced(GameState* s, int* award, Trace* t) noexcept nogil:
    cdef int p, best, second, count, ties, n = s.n_players
    for p in range(n):
        award[p] = 0
    # Nobility: first-place VP to every player tied first; second-place VP to every player
    # tied second, only if the first place is not shared. Players still at 0 count
    # (RULINGS 17).
    best = -1
    for p in range(n):
        if s.nobility[p] > best:
            best = s.nobility[p]
    ties = 0
    for p in range(n):
        if s.nobility[p] == best:
            award[p] += RULES.nobility_first_vp
            emit(t, EV_AWARD, p, AWARD_NOBILITY_FIRST, RULES.nobility_first_vp, 0, 0)
            ties += 1
    if ties == 1:
        second = -1
        for p in range(n):
            if s.nobility[p] < best and s.nobility[p] > second:
                second = s.nobility[p]
        for p in range(n):
            if s.nobility[p] == second:
                award[p] += RULES.nobility_second_vp
                emit(t, EV_AWARD, p, AWARD_NOBILITY_SECOND, RULES.nobility_second_vp, 0, 0)
    # Most permit tiles, face up and used (RULINGS 8). Players with none count like any
    # other: if nobody holds a tile, everyone ties.
    best = 0
    for p in range(n):
        count = popcount64(s.permits_up[p] | s.permits_down[p])
        if count > best:
            best = count
    ties = 0
    for p in range(n):
        if popcount64(s.permits_up[p] | s.permits_down[p]) == best:
            ties += 1
    if ties == 1 or s.permit_tie_all:
        for p in range(n):
            if popcount64(s.permits_up[p] | s.permits_down[p]) == best:
                award[p] += RULES.most_permits_vp
                emit(t, EV_AWARD, p, AWARD_MOST_PERMITS, RULES.most_permits_vp, 0, 0)


cdef void final_scoring(GameState* s, Trace* t) noexcept nogil:
    cdef int award[MAX_PLAYERS]
    cdef int p, i
    if t != NULL:  # each seat's VP track as play left it, then its tiles (RULINGS 17)
        for p in range(s.n_players):
            emit(t, EV_FINAL_TRACK, p, s.vp[p], 0, 0, 0)
            for i in range(N_BONUS_TILES):
                if (s.bonus_tiles[p] >> i) & 1:
                    emit(t, EV_FINAL_BONUS_TILE, p, i, BONUS_TILE_VP[i], 0, 0)
            for i in range(N_KING_TILES):
                if (s.king_tiles[p] >> i) & 1:
                    emit(t, EV_FINAL_KING_TILE, p, i, KING_TILE_VP[i], 0, 0)
    end_awards_traced(s, award, t)
    for p in range(s.n_players):
        s.vp[p] += tiles_vp(s, p) + award[p]


cdef void adjudicate(GameState* s) noexcept nogil:
    """End an unfinished game now, scored as at the real end: decisions still pending are
    dropped (the real end has none), then final scoring."""
    while s.pending_n > 0:
        pop_pending(s)
    s.game_over = 1
    final_scoring(s, NULL)


cdef int provisional_vp(GameState* s, int p) noexcept nogil:
    """VP of a finished game; before the end, the track plus the bonus and king reward
    tiles held, which final scoring will add (RULINGS 17)."""
    if s.game_over:
        return s.vp[p]
    return s.vp[p] + tiles_vp(s, p)


cdef int winners_mask(GameState* s) noexcept nogil:
    """Bit p set for each winner of a finished game: most VP, then most assistants +
    politics cards; a tie after that is shared (RULINGS 9). 0 before the end."""
    cdef int p, key, best = -1, mask = 0
    if not s.game_over:
        return 0
    for p in range(s.n_players):
        key = s.vp[p] * 65536 + s.assistants[p] + s.hand_n[p]
        if key > best:
            best = key
            mask = 1 << p
        elif key == best:
            mask |= 1 << p
    return mask


cdef void end_turn(GameState* s, Trace* t) noexcept nogil:
    cdef int nxt = (s.current + 1) % s.n_players
    cdef int p
    if s.end_trigger >= 0 and nxt == s.end_trigger:
        s.game_over = 1
        emit(t, EV_GAME_OVER, NO_SEAT, 0, 0, 0, 0)
        final_scoring(s, t)
        if t != NULL:  # the tie-break's count is assistants and politics cards (RULINGS 9)
            for p in range(s.n_players):
                emit(t, EV_FINAL, p, s.vp[p], s.assistants[p] + s.hand_n[p], 0, 0)
            emit(t, EV_WINNERS, NO_SEAT, winners_mask(s), 0, 0, 0)
        return
    emit(t, EV_NEXT_TURN, NO_SEAT, nxt, 0, 0, 0)
    s.current = nxt
    start_turn(s, t)


cdef void drop_unplayable_pending(GameState* s) noexcept nogil:
    """Bonus choices with nothing to choose are lost (RULINGS 12, 21)."""
    cdef int buf[N_ACTIONS]
    cdef int kind
    while s.pending_n > 0:
        kind = s.pending_kind[0]
        # A payment is never empty (acquire and king are legal only when one fits), and
        # listing the payments is the costly case: don't.
        if kind == P_PAY_PERMIT or kind == P_PAY_KING:
            return
        if legal_actions(s, buf) > 0:
            return
        pop_pending(s)


cdef void apply_action(GameState* s, int a) noexcept nogil:
    apply_traced(s, a, NULL)


cdef void apply_traced(GameState* s, int a, Trace* t) noexcept nogil:
    cdef int p = s.current, q
    cdef int before[MAX_PLAYERS]  # each seat's score, to trace what the action changed
    s.action_count += 1
    if t != NULL:
        emit(t, EV_ACTION, p, a, 0, 0, 0)
        for q in range(s.n_players):
            before[q] = provisional_vp(s, q)
    apply_rules(s, a, p, t)
    if t != NULL:
        for q in range(s.n_players):
            if provisional_vp(s, q) != before[q]:
                emit(t, EV_SCORE, q, provisional_vp(s, q) - before[q], 0, 0, 0)


cdef inline void apply_rules(GameState* s, int a, int p, Trace* t) noexcept nogil:
    cdef int c, r, slot, tile, k, kind, arg, pay, i, cost
    if a == A_END_TURN:
        end_turn(s, t)
        return
    if a < A_ACQUIRE:
        a -= A_ELECT
        elect(s, a // N_COLOURS, a % N_COLOURS, t)
        add_coins(s, p, RULES.elect_coins, t)
        s.main_left -= 1
        s.main_done += 1
    elif a < A_BUILD_PERMIT:
        s.main_left -= 1
        s.main_done += 1
        a -= A_ACQUIRE
        emit(t, EV_ACQUIRE, p, a >> 1, a & 1, s.face_up[a >> 1][a & 1], 0)
        push_pending(s, P_PAY_PERMIT, a)
    elif a < A_BUILD_KING:
        a -= A_BUILD_PERMIT
        tile = a // 3
        s.main_left -= 1
        s.main_done += 1
        s.permits_up[p] &= ~((<uint64_t>1) << tile)
        s.permits_down[p] |= (<uint64_t>1) << tile
        emit(t, EV_USE_PERMIT, p, tile, 0, 0, 0)
        build_emporium(s, p, TILE_CITIES[tile][a % 3], t)
    elif a < A_ENGAGE:
        s.main_left -= 1
        s.main_done += 1
        emit(t, EV_KING_TARGET, p, a - A_BUILD_KING, 0, 0, 0)
        push_pending(s, P_PAY_KING, a - A_BUILD_KING)
    elif a == A_ENGAGE:
        s.quick_used = 1
        emit(t, EV_ENGAGE, p, RULES.engage_coins, 0, 0, 0)
        pay_coins(s, p, RULES.engage_coins, t)
        add_assistants(s, p, 1, t)
    elif a < A_QUICK_ELECT:
        r = a - A_CHANGE
        s.quick_used = 1
        emit(t, EV_CHANGE, p, r, s.face_up[r][0], s.face_up[r][1], 0)
        pay_assistants(s, p, 1, t)
        for slot in range(2):
            if s.face_up[r][slot] >= 0:
                s.permit_deck[r][s.deck_n[r]] = s.face_up[r][slot]
                s.deck_n[r] += 1
                s.deck_known[r] += 1
                s.face_up[r][slot] = -1
        for slot in range(2):
            turn_face_up(s, r, slot, t)
    elif a < A_EXTRA_MAIN:
        a -= A_QUICK_ELECT
        s.quick_used = 1
        elect(s, a // N_COLOURS, a % N_COLOURS, t)
        pay_assistants(s, p, 1, t)
    elif a == A_EXTRA_MAIN:
        s.quick_used = 1
        emit(t, EV_EXTRA_MAIN, p, RULES.extra_main_assistants, 0, 0, 0)
        pay_assistants(s, p, RULES.extra_main_assistants, t)
        s.main_left += 1
        emit(t, EV_MAIN_ACTIONS, p, 1, 0, 0, 0)
    elif a < A_CHOOSE_TOKEN:
        pay = a - A_PAY
        kind = s.pending_kind[0]
        arg = s.pending_arg[0]
        pop_pending(s)
        for k in range(N_CARD_KINDS):
            s.hand[p][k] -= PAY_COUNTS[pay][k]
            s.discard[k] += PAY_COUNTS[pay][k]
        s.hand_n[p] -= PAY_SIZE[pay]
        cost = payment_cost(pay)
        emit(t, EV_PAY, p, pay, cost, KING_BALCONY if kind == P_PAY_KING else arg >> 1, 0)
        pay_coins(s, p, cost, t)
        if kind == P_PAY_PERMIT:
            take_permit(s, p, arg >> 1, arg & 1, t)
        else:
            cost = king_travel_cost(s, arg)
            emit(t, EV_KING_MOVE, p, s.king_city, arg, LAYOUT_DIST[s.layout][s.king_city][arg],
                 cost)
            pay_coins(s, p, cost, t)
            s.king_city = arg
            build_emporium(s, p, arg, t)
    elif a < A_CHOOSE_FREE_PERMIT:
        c = a - A_CHOOSE_TOKEN
        kind = s.pending_kind[0]
        pop_pending(s)
        if kind == P_TOKEN_PAIR_FIRST and s.pending_n < MAX_PENDING:
            # The second token comes next, before anything queued after this choice.
            for i in range(s.pending_n, 0, -1):
                s.pending_kind[i] = s.pending_kind[i - 1]
                s.pending_arg[i] = s.pending_arg[i - 1]
            s.pending_kind[0] = P_TOKEN_PAIR_SECOND
            s.pending_arg[0] = c
            s.pending_n += 1
        emit(t, EV_TOKEN, p, c, s.city_token[c], 0, 0)
        gain_bonus(s, p, TOKEN_BONUS[s.city_token[c]], t)
    elif a < A_CHOOSE_PERMIT_BONUS:
        pop_pending(s)
        a -= A_CHOOSE_FREE_PERMIT
        take_permit(s, p, a >> 1, a & 1, t)
        # RULINGS 22: the free tile's take is nested in the take that raised it, so its slot
        # is refilled first, as soon as its bonus is gained (any decision that bonus raises
        # is taken afterwards, like every queued decision); the first tile's slot waits for
        # the queue to empty. So at most one slot is ever empty while decisions are pending.
        if s.deck_n[a >> 1] > 0:
            turn_face_up(s, a >> 1, a & 1, t)
    else:
        pop_pending(s)
        emit(t, EV_PERMIT_BONUS, p, a - A_CHOOSE_PERMIT_BONUS, 0, 0, 0)
        gain_bonus(s, p, TILE_BONUS[a - A_CHOOSE_PERMIT_BONUS], t)
    drop_unplayable_pending(s)
    if s.pending_n == 0:
        refill_face_up(s, t)


cdef int random_playout(GameState* s, int max_actions) noexcept nogil:
    """Play uniformly random legal actions to the end (or max_actions); return the count."""
    cdef int buf[N_ACTIONS]
    cdef int n, steps = 0
    while not s.game_over and steps < max_actions:
        n = legal_actions(s, buf)
        apply_action(s, buf[random_below(&s.rng, n)])
        steps += 1
    return steps


# ---------------------------------------------------------------------------------------
# Setup.

cdef void setup_game(GameState* s, int n_players, int layout, int max_coins,
                     int assistant_supply, bint permit_tie_all, bint nobility_on_pass,
                     uint64_t seed) noexcept nogil:
    cdef int i, j, k, r, c, t, p, tmp, _n
    cdef int8_t tokens[N_TOKENS]
    cdef int8_t councillors[N_COLOURS * MAX_COUNCILLORS_PER_COLOUR]
    cdef int n_councillors = N_COLOURS * RULES.councillors_per_colour
    memset(s, 0, sizeof(GameState))
    s.n_players = n_players
    s.layout = layout
    s.max_coins = max_coins
    s.assistant_supply = assistant_supply
    s.permit_tie_all = permit_tie_all
    s.nobility_on_pass = nobility_on_pass
    s.rng = game_rng(seed, <uint64_t>0x636F756E63696C34)  # "council4"
    s.viewer = -1
    s.end_trigger = -1
    s.king_city = LAYOUT_KING[layout]
    # City tokens, shuffled onto every city but the king's.
    for i in range(N_TOKENS):
        tokens[i] = i
    for i in range(N_TOKENS - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = tokens[i]
        tokens[i] = tokens[j]
        tokens[j] = tmp
    t = 0
    for c in range(N_CITIES):
        if c == s.king_city:
            s.city_token[c] = -1
        else:
            s.city_token[c] = tokens[t]
            t += 1
    # Councillors: 4 at random in each balcony, the others in the pool.
    for i in range(n_councillors):
        councillors[i] = i // RULES.councillors_per_colour
    for i in range(n_councillors - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = councillors[i]
        councillors[i] = councillors[j]
        councillors[j] = tmp
    for i in range(N_BALCONIES * BALCONY_SIZE):
        s.balcony[i // BALCONY_SIZE][i % BALCONY_SIZE] = councillors[i]
    for i in range(N_BALCONIES * BALCONY_SIZE, n_councillors):
        s.pool[councillors[i]] += 1
    # Permit decks (kept unordered: draws pick at random).
    for r in range(N_REGIONS):
        for i in range(TILES_PER_REGION):
            s.permit_deck[r][i] = r * TILES_PER_REGION + i
        s.deck_n[r] = TILES_PER_REGION
        s.deck_known[r] = 0
    if n_players == 2:
        # RULINGS 18: one random tile per region puts a neutral emporium in each of its
        # cities, then goes back into the deck.
        for r in range(N_REGIONS):
            t = r * TILES_PER_REGION + random_below(&s.rng, TILES_PER_REGION)
            for k in range(TILE_NCITIES[t]):
                s.neutral |= 1 << TILE_CITIES[t][k]
    for r in range(N_REGIONS):
        for i in range(2):
            s.face_up[r][i] = draw_permit(s, r)
    s.bonus_tiles_left = (1 << N_BONUS_TILES) - 1
    # Politics cards: the deck, then the starting hands.
    for k in range(N_CARD_KINDS):
        s.politics_deck[k] = RULES.cards_per_kind[k]
    s.politics_deck_n = RULES.politics_cards
    for p in range(n_players):
        s.coins[p] = START_COINS[p]
        s.assistants[p] = START_ASSISTANTS[p]
        for _n in range(RULES.start_hand):
            draw_politics(s, p, NULL)
    s.current = 0
    start_turn(s, NULL)


# ---------------------------------------------------------------------------------------
# Views and determinization.

cdef void sort_int8(int8_t* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef void make_view(GameState* s, int player) noexcept nogil:
    """Erase what `player` cannot know (RULINGS 7): other hands, deck order, the RNG."""
    cdef int q, k, r
    for q in range(s.n_players):
        if q != player:
            for k in range(N_CARD_KINDS):
                s.hand[q][k] = 0
    for k in range(N_CARD_KINDS):
        s.politics_deck[k] = 0
    for r in range(N_REGIONS):
        sort_int8(s.permit_deck[r], s.deck_n[r] - s.deck_known[r])
    s.rng = 0
    s.viewer = player


# A deal that leaves the seat to move unable to pay what it owes is redrawn at most this
# often (about 1 deal in 400 is such, so 64 never runs out in practice).
cdef int MAX_REDEALS = 64


cdef void deal_hidden_hands(GameState* s, int viewer, uint64_t* rng) noexcept nogil:
    """Deal the politics cards `viewer` cannot see (all but the discard and its own hand)
    at random to the other players' hands, by their sizes, and the rest to the deck."""
    cdef int unseen[N_CARD_KINDS]
    cdef int k, q, _i, r, total = 0
    for k in range(N_CARD_KINDS):
        unseen[k] = RULES.cards_per_kind[k] - s.discard[k] - s.hand[viewer][k]
        total += unseen[k]
    for q in range(s.n_players):
        if q == viewer:
            continue
        for k in range(N_CARD_KINDS):
            s.hand[q][k] = 0
        for _i in range(s.hand_n[q]):
            r = random_below(rng, total)
            for k in range(N_CARD_KINDS):
                if r < unseen[k]:
                    break
                r -= unseen[k]
            unseen[k] -= 1
            total -= 1
            s.hand[q][k] += 1
    for k in range(N_CARD_KINDS):
        s.politics_deck[k] = unseen[k]


cdef void determinize(GameState* s, uint64_t seed) noexcept nogil:
    """Complete a view into a full state: deal the unseen politics cards at random to the
    other players' hands (by their sizes) and the deck, and give it a fresh RNG.

    In the view of a seat not to move, the seat to move may owe a payment, so its real hand
    can pay: a deal that could not is dealt again (the deals consistent with the view, drawn
    uniformly). The seat to move's own view, the search's, deals once as before."""
    cdef int buf[N_ACTIONS]
    cdef int tries = 0
    s.rng = mix_seed(seed)
    deal_hidden_hands(s, s.viewer, &s.rng)
    if s.viewer != s.current and not s.game_over:
        while legal_actions(s, buf) == 0 and tries < MAX_REDEALS:
            deal_hidden_hands(s, s.viewer, &s.rng)
            tries += 1
    s.viewer = -1


# ---------------------------------------------------------------------------------------
# Python wrapper: the methods shared with The Council's position are in _position.pxi.

from council.engine._council_of_four cimport CouncilOfFourState as _Position

ctypedef GameState _PositionStruct


cdef inline void _make_view(GameState* s, int seat) noexcept nogil:
    make_view(s, seat)  # other hands and deck order erased (RULINGS 7)


cdef inline void _determinize(GameState* s, uint64_t seed) noexcept nogil:
    determinize(s, seed)


cdef inline void _reseed(GameState* s, uint64_t seed) noexcept nogil:
    s.rng = mix_seed(seed)


cdef inline int _score(GameState* s, int p) noexcept nogil:
    # Before the end: the track plus the bonus and king reward tiles held (RULINGS 17).
    return provisional_vp(s, p)


cdef inline int _winners_mask(GameState* s) noexcept nogil:
    # Most VP, then most assistants + politics cards; a tie after that is shared (RULINGS 9).
    return winners_mask(s)


include "_position.pxi"


# Its one object member, the trace (bytes), refers to nothing: no GC tracking to pay for.
@cython.no_gc
cdef class CouncilOfFourState:
    """A Council of Four position: a full state, or one seat's view of it.

    It meets ``council.engine.position.Position``, the contract of both games' positions.

    >>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
    >>> s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=7)
    >>> s.current_player, s.n_players, len(s.legal_actions()) > 0
    (0, 3, True)
    >>> t = s.clone(); t.apply(t.legal_actions()[0]); t == s
    False
    >>> s.decision_name, s.action_to_text(0)
    ('turn', 'end')
    """

    @classmethod
    def new_game(cls, config=None, seed=0):
        """Set up a new game from a CouncilOfFourConfig (defaults if None) and an integer seed."""
        from council.engine.council_of_four_config import CouncilOfFourConfig
        if config is None:
            config = CouncilOfFourConfig()
        config.validate()
        cdef CouncilOfFourState st = CouncilOfFourState.__new__(CouncilOfFourState)
        setup_game(&st.s, config.players, config.layout_index, config.max_coins,
                   config.assistant_supply, config.permit_tie_all_score,
                   config.nobility_bonus_on_pass, seed_word(seed))
        return st

    clone = _position_clone
    __copy__ = _position_clone
    __deepcopy__ = _position_deepcopy

    # -- basic queries -------------------------------------------------------------------
    n_players = property(_position_n_players)

    @property
    def current_player(self):
        """The seat to act (-1 once the game is over)."""
        return -1 if self.s.game_over else self.s.current

    viewer = property(_position_viewer)
    is_view = property(_position_is_view)
    events = property(_position_events)

    def is_terminal(self):
        return bool(self.s.game_over)

    @property
    def turn(self):
        return self.s.turn

    @property
    def action_count(self):
        return self.s.action_count

    @property
    def config(self):
        from council.engine.council_of_four_config import CouncilOfFourConfig
        from council.engine.council_of_four_board import LAYOUT_CODES
        return CouncilOfFourConfig(
            players=self.s.n_players,
            layout=LAYOUT_CODES[self.s.layout],
            max_coins=self.s.max_coins,
            assistant_supply=self.s.assistant_supply,
            permit_tie_all_score=bool(self.s.permit_tie_all),
            nobility_bonus_on_pass=bool(self.s.nobility_on_pass),
        )

    _require_full = _position_require_full

    def legal_actions(self):
        """Legal action ids for the player to act, in increasing order."""
        self._require_full("legal_actions")
        cdef int buf[N_ACTIONS]
        cdef int n = legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]  # the core lists them in increasing order

    def is_legal(self, int action):
        self._require_full("is_legal")
        return 0 <= action < N_ACTIONS and is_legal(&self.s, action)

    def apply(self, int action):
        """Apply a legal action in place. Raises IllegalActionError otherwise."""
        self._require_full("apply")
        if self.s.game_over:
            raise IllegalActionError("the game is over")
        if not (0 <= action < N_ACTIONS and is_legal(&self.s, action)):
            raise IllegalActionError(f"action {action} is not legal here")
        cdef Trace trace
        trace.n = trace.dropped = 0
        apply_traced(&self.s, action, &trace)
        self._events = trace_bytes(&trace)

    child = _position_child

    def decision(self):
        """The kind of decision to take now and its argument: ``('turn', None)``,
        ``('game_over', None)``, or a pending decision as its ``Decision`` name and
        argument, e.g. ``('pay_permit', 3)``."""
        if self.s.game_over:
            return ("game_over", None)
        if self.s.pending_n == 0:
            return ("turn", None)
        return (Decision(self.s.pending_kind[0]).name, self.s.pending_arg[0])

    @property
    def decision_name(self):
        """The name of the decision to take now: ``'turn'``, a pending ``Decision``'s name
        or ``'game_over'`` (``decision()[0]``)."""
        return self.decision()[0]

    def action_to_text(self, int action):
        """The text form of an action id (``council.engine.council_of_four_actions.Action``'s), e.g.
        ``'elect black coast'``; the same in every position."""
        from council.engine.council_of_four_actions import Action
        return Action.from_id(action).to_text()

    def action_from_text(self, str text):
        """Inverse of action_to_text (ValueError naming the problem)."""
        from council.engine.council_of_four_actions import Action
        return Action.from_text(text).id

    def problems(self):
        """Every consistency problem of this position as ``(field path, problem)`` pairs;
        ``[]`` when it is consistent (``council.engine._council_of_four_status``)."""
        from council.engine._council_of_four_status import problems
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
        """A finished copy of this full state, scored as if the game ended now.

        For games stopped before their end (a length cap): final scoring is applied exactly
        as at the real end (the bonus and king reward tiles held, the nobility and
        most-permit-tiles awards as they stand; RULINGS 17), decisions still pending are
        dropped and the game is over, so ``scores()`` and ``winners()`` give the
        adjudicated result with the usual tie-break (RULINGS 9). This state is left
        unchanged; a finished one comes back as a plain copy. A view is refused
        (ValueError), as by the other rules queries.
        """
        self._require_full("adjudicated")
        cdef CouncilOfFourState st = _copy(self)
        if not st.s.game_over:
            adjudicate(&st.s)
        return st

    # -- playouts ------------------------------------------------------------------------
    def random_playout(self, seed=None, int max_actions=1_000_000):
        """Play uniformly random actions in place until the end; returns actions played."""
        self._require_full("random_playout")
        if seed is not None:
            self.reseed(seed)
        cdef int n
        with nogil:
            n = random_playout(&self.s, max_actions)
        return n

    # -- raw form, pickle, equality ------------------------------------------------------
    to_raw = _position_to_raw
    from_raw = staticmethod(_position_from_raw)
    __reduce__ = _position_reduce

    def __eq__(self, other):
        if isinstance(other, CouncilOfFourState):
            return _position_eq(self, other)
        return NotImplemented

    def __hash__(self):
        _position_unhashable(self)

    def __str__(self):
        from council.engine.render_council_of_four import render_state
        return render_state(self)

    def __repr__(self):
        return (f"<CouncilOfFourState players={self.s.n_players} turn={self.s.turn} "
                f"current={self.current_player} viewer={self.s.viewer}>")


_name_methods(CouncilOfFourState)


# ---------------------------------------------------------------------------------------
# The core's numbering, for the Python layer (council.engine.council_of_four_actions,
# serialize, tests).

class Decision(enum.IntEnum):
    """The kinds of pending decision (the head of a state's queue is the one to take now),
    numbered as the core numbers them (``pending_kind`` in the raw form). A member's name
    is its name in the JSON form and in ``CouncilOfFourState.decision()``; ``str()`` gives the
    name."""

    pay_permit = P_PAY_PERMIT  # pay the council of a permit tile; arg = region * 2 + slot
    pay_king = P_PAY_KING  # pay the king's council; arg = the destination city
    city_token = P_TOKEN  # one city token bonus (nobility space 4)
    first_of_two_city_tokens = P_TOKEN_PAIR_FIRST  # nobility space 16
    second_of_two_city_tokens = P_TOKEN_PAIR_SECOND  # arg = the first city
    free_permit = P_FREE_PERMIT  # a face-up permit tile for free (nobility space 10)
    permit_bonus = P_PERMIT_BONUS  # a held tile's bonus again (nobility space 14)

    def __str__(self):
        return self.name

    def __format__(self, spec):
        return format(self.name, spec)


ActionKindRange = collections.namedtuple("ActionKindRange", "name first size", module=__name__)
ActionKindRange.__doc__ = "The ids ``first .. first + size - 1`` of one kind of action."

# One entry per kind, in id order, indexed by the core's K_* numbers.
ACTION_KINDS = tuple(
    ActionKindRange(name, first, end - first)
    for name, first, end in (
        ("end_turn", A_END_TURN, A_ELECT),
        ("elect", A_ELECT, A_ACQUIRE),
        ("acquire", A_ACQUIRE, A_BUILD_PERMIT),
        ("build_permit", A_BUILD_PERMIT, A_BUILD_KING),
        ("build_king", A_BUILD_KING, A_ENGAGE),
        ("engage", A_ENGAGE, A_CHANGE),
        ("change", A_CHANGE, A_QUICK_ELECT),
        ("quick_elect", A_QUICK_ELECT, A_EXTRA_MAIN),
        ("extra_main", A_EXTRA_MAIN, A_PAY),
        ("pay", A_PAY, A_CHOOSE_TOKEN),
        ("choose_token", A_CHOOSE_TOKEN, A_CHOOSE_FREE_PERMIT),
        ("choose_free_permit", A_CHOOSE_FREE_PERMIT, A_CHOOSE_PERMIT_BONUS),
        ("choose_permit_bonus", A_CHOOSE_PERMIT_BONUS, N_ACTIONS),
    )
)


def _check_action_kinds():
    # The table, the K_* numbers and the compiled action_kind() agree on every id.
    assert len(ACTION_KINDS) == N_KINDS
    cdef int k, a
    for k in range(N_KINDS):
        for a in range(ACTION_KINDS[k].first, ACTION_KINDS[k].first + ACTION_KINDS[k].size):
            assert action_kind(a) == k, (a, k)


_check_action_kinds()
# The first id of each kind by name.
ACTION_OFFSETS = {kind.name: kind.first for kind in ACTION_KINDS}
NUM_ACTIONS = N_ACTIONS
# The names of the trace's event kinds (EV_* in _council_of_four.pxd, in that order) and of
# the awards.
EVENT_KINDS = ("action", "coins", "assistants", "draw", "main_actions", "elect", "acquire",
               "use_permit", "king_target", "engage", "change", "extra_main", "pay",
               "king_move", "build", "tenth_emporium", "token", "take_permit", "permit_bonus",
               "nobility", "nobility_space", "bonus_tile", "king_tile", "face_up", "next_turn",
               "game_over", "final_track", "final_bonus_tile", "final_king_tile", "award",
               "final", "winners", "score")
assert EVENT_KINDS[EV_SCORE] == "score"
AWARD_NAMES = ("nobility track, first", "nobility track, second", "most permit tiles")
PAYMENTS = tuple(tuple(PAY_COUNTS[i][k] for k in range(N_CARD_KINDS)) for i in range(N_PAYMENTS))
