"""Compiled rules core of A War of Whispers (2-4 players), its map and cards from content.

The rules as played here and the rulings where the manual is silent (AW1 ...) are in
docs/a-war-of-whispers.md. The state is one C struct (``_a_war_of_whispers.pxd``); the rules
functions take a pointer to it, run without the GIL and never allocate. The content's tables
are module globals, filled from a checked ``Content`` by ``use_content`` (the bundled set at
import); a state remembers its content's digest and refuses to be played under another.

>>> state = AWarOfWhispersState.new_game(4, seed=7)
>>> state.phase, state.round, state.current_player, len(state.legal_actions())
('deploy', 1, 0, 20)
>>> state.action_to_text(state.legal_actions()[0])
'deploy bear sheriff'
>>> state.apply(state.action_from_text("deploy lion marshal"))
>>> state.agents()[1]
[-1, -1, 0, -1]
>>> state.view(1).determinize(seed=3).current_player
1
"""

from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, uint64_t

import numpy as np

from council.engine.position import IllegalActionError
from council.engine._raw import raw_to_struct, struct_to_raw
from council.engine._random cimport game_rng, random_below, seed_word
from council.engine._trace cimport NO_SEAT, emit, trace_bytes, trace_decode
from council.engine.a_war_of_whispers_content import (
    EMPIRES,
    OPERATIONS,
    SEATS,
    Content,
    bundled_content,
)

PHASES = ("retrieve", "deploy", "turns", "cleanup", "swap", "over")
STEPS = ("choose", "after", "pay", "add", "remove", "from", "to", "count", "seat")
OPERATION_NAMES = tuple(OPERATIONS)
if OPERATION_NAMES != ("add", "attack", "draw", "draw_icons", "swap", "remove", "move",
                       "move_agent", "raze"):
    raise ImportError("a_war_of_whispers_content.OPERATIONS does not match the core's OP_*")
LOCATIONS = {"deck": LOC_DECK, "hand": LOC_HAND, "unknown": LOC_UNKNOWN, "absent": LOC_ABSENT}
MIN_PLAYERS = AW_MIN_PLAYERS
MAX_PLAYERS = AW_MAX_PLAYERS
ROUNDS = AW_ROUNDS
HAND_LIMIT = AW_HAND_LIMIT
BANNERS_PER_EMPIRE = AW_BANNERS
NUM_ACTIONS = AW_N_ACTIONS
# The names of the trace's event kinds (AE_* in _a_war_of_whispers.pxd, in that order).
EVENT_KINDS = ("action", "agent", "map_agent", "region", "draw", "discard", "loyalty_swap",
               "empire_turn", "round", "score", "winners")
ACTION_OFFSETS = {"deploy": WA_DEPLOY, "retrieve": WA_RETRIEVE, "option": WA_OPTION,
                  "region": WA_REGION, "count": WA_COUNT, "seat": WA_SEAT, "play": WA_PLAY,
                  "pay": WA_PAY, "discard": WA_DISCARD, "loyalty": WA_LOYALTY,
                  "done": WA_DONE, "deploy_map": WA_DEPLOY_MAP}

cdef int8_t LOYALTY_VALUE[AW_N_LOYALTY]
LOYALTY_VALUE[:] = [4, 3, 2, 0, -1]  # by slot: Devout, Dutiful, Affiliated, Unallied, Opposed
LOYALTY_VALUES = tuple(LOYALTY_VALUE[i] for i in range(AW_N_LOYALTY))
# The ten pairs of empires (WA_LOYALTY + pair), in (a, b) order with a < b.
cdef int8_t PAIR_A[10]
cdef int8_t PAIR_B[10]
PAIR_A[:] = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3]
PAIR_B[:] = [1, 2, 3, 4, 2, 3, 4, 3, 4, 4]
LOYALTY_PAIRS = tuple((PAIR_A[i], PAIR_B[i]) for i in range(10))

# ---------------------------------------------------------------------------------------
# Content tables.

_content = None
cdef uint64_t _CONTENT_TAG = 0


def use_content(content):
    """Fill the core's tables from a checked ``Content``: the positions made from now on
    name it, and only positions that name it can be played until another is used."""
    global N_REGIONS, N_CARDS, _content, _CONTENT_TAG
    cdef int r, j, e, k, c, a
    if not isinstance(content, Content):
        raise TypeError(f"use_content needs a Content (load_content), got {type(content)}")
    N_REGIONS = len(content.regions)
    for r, region in enumerate(content.regions):
        REGION_EMPIRE[r] = region.empire
        REGION_N_ADJ[r] = len(region.adjacent)
        for j, other in enumerate(region.adjacent):
            REGION_ADJ[r][j] = other
        REGION_CITIES[r] = region.cities
        REGION_FORT[r] = region.fort
        REGION_FARM[r] = region.farm
        REGION_ICON[r] = region.icon
        REGION_START[r] = region.banners
    for e in range(AW_N_EMPIRES):
        for k in range(AW_N_SEATS):
            options = content.seats[e][k]
            SEAT_N_OPTIONS[e][k] = len(options)
            for j, option in enumerate(options):
                SEAT_OP[e][k][j] = OPERATION_NAMES.index(option.op)
                SEAT_AMOUNT[e][k][j] = option.amount
    N_CARDS = len(content.cards)
    for c, card in enumerate(content.cards):
        CARD_EMPIRE[c] = card.empire
        CARD_N_ABILITIES[c] = len(card.abilities)
        for a, ability in enumerate(card.abilities):
            for e in range(AW_N_EMPIRES):
                ABILITY_EXTRA[c][a][e] = ability.cost.count(e) - (e == card.empire)
            ABILITY_N_OPS[c][a] = len(ability.effect)
            for j, op in enumerate(ability.effect):
                ABILITY_OP[c][a][j] = OPERATION_NAMES.index(op.op)
                ABILITY_AMOUNT[c][a][j] = op.amount
                ABILITY_TARGET[c][a][j] = TG_CARD if op.target == "card" else TG_ACTIVE
    _content = content
    _CONTENT_TAG = int(content.digest[:16], 16)


def current_content():
    """The ``Content`` whose tables the core holds."""
    return _content


use_content(bundled_content())

# ---------------------------------------------------------------------------------------
# Small helpers.


cdef void shuffle(int8_t* items, int n, uint64_t* rng) noexcept nogil:
    cdef int i, j
    cdef int8_t tmp
    for i in range(n - 1, 0, -1):
        j = random_below(rng, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


cdef int aw_controller(AWState* s, int empire, int seat) noexcept nogil:
    """The player controlling a seat: its agent's owner, else the owner of the next agent
    clockwise in the council (the seats in order, wrapping round), else -1 (AW7)."""
    cdef int k, p
    for k in range(AW_N_SEATS):
        p = s.agent[empire * AW_N_SEATS + (seat + k) % AW_N_SEATS]
        if p >= 0:
            return p
    return -1


cdef inline int agents_on_board(AWState* s, int player) noexcept nogil:
    cdef int i, n = 0
    for i in range(AW_N_COUNCIL_SEATS):
        n += s.agent[i] == player
    return n


cdef inline int hand_size(AWState* s, int player) noexcept nogil:
    cdef int e, n = 0
    for e in range(AW_N_EMPIRES):
        n += s.hand_count[player][e]
    return n


cdef inline int deploys_per_player(AWState* s) noexcept nogil:
    return 3 if s.n_players == 2 else 2


cdef int icons_controlled(AWState* s, int empire) noexcept nogil:
    cdef int r, n = 0
    for r in range(N_REGIONS):
        if s.owner[r] == empire and REGION_ICON[r]:
            n += 1
    return n


cdef int cities_controlled(AWState* s, int empire) noexcept nogil:
    cdef int r, n = 0
    for r in range(N_REGIONS):
        if s.owner[r] == empire:
            n += REGION_CITIES[r]
    return n


cdef bint deck_has(AWState* s, int empire) noexcept nogil:
    cdef int c
    for c in range(N_CARDS):
        if s.card_loc[c] == LOC_DECK and CARD_EMPIRE[c] == empire:
            return True
    return False


cdef void draw_cards(AWState* s, int player, int empire, int n) noexcept nogil:
    """Draw n cards of an empire's deck, each uniformly among the cards in it: discards are
    shuffled back at once, so the deck has no order to keep (AW15)."""
    cdef int8_t cards[AW_MAX_CARDS]
    cdef int c, m, _i
    for _i in range(n):
        m = 0
        for c in range(N_CARDS):
            if s.card_loc[c] == LOC_DECK and CARD_EMPIRE[c] == empire:
                cards[m] = c
                m += 1
        if m == 0:
            return
        c = cards[random_below(&s.rng, m)]
        s.card_loc[c] = LOC_HAND + player
        s.hand_count[player][empire] += 1


cdef inline void discard_card(AWState* s, int player, int c) noexcept nogil:
    s.card_loc[c] = LOC_DECK
    s.hand_count[player][CARD_EMPIRE[c]] -= 1


cdef inline bint is_adjacent(int a, int b) noexcept nogil:
    cdef int j
    for j in range(REGION_N_ADJ[a]):
        if REGION_ADJ[a][j] == b:
            return True
    return False


cdef inline bint may_enter(AWState* s, int op, int empire, int target) noexcept nogil:
    """An attack enters a region the empire does not hold (an enemy's or an empty one,
    AW10); a move enters one it holds or an empty one (AW13)."""
    if op == OP_ATTACK or op == OP_RAZE:
        return s.owner[target] != empire
    return s.owner[target] == empire or s.owner[target] < 0


cdef bint may_leave(AWState* s, int op, int empire, int r) noexcept nogil:
    """Region r can send banners: the empire's, with one to leave behind, and a region next
    to it that they may enter."""
    cdef int j
    if s.owner[r] != empire or s.banners[r] < 2:
        return False
    for j in range(REGION_N_ADJ[r]):
        if may_enter(s, op, empire, REGION_ADJ[r][j]):
            return True
    return False


cdef bint may_remove_from(AWState* s, int empire, int r) noexcept nogil:
    """A remove takes banners from an enemy region next to one of the empire's (AW14)."""
    cdef int j
    if s.owner[r] < 0 or s.owner[r] == empire:
        return False
    for j in range(REGION_N_ADJ[r]):
        if s.owner[REGION_ADJ[r][j]] == empire:
            return True
    return False


cdef bint op_possible(AWState* s, int op, int empire) noexcept nogil:
    """The operation has a valid target now (AW9: a seat's option without one is not a
    valid action; a card's operation without one does nothing)."""
    cdef int r, k, base = s.empire * AW_N_SEATS
    cdef bint before
    if op == OP_ADD:
        if s.supply[empire] == 0:
            return False
        for r in range(N_REGIONS):
            if s.owner[r] == empire:
                return True
        return False
    if op == OP_ATTACK or op == OP_MOVE or op == OP_RAZE:
        for r in range(N_REGIONS):
            if may_leave(s, op, empire, r):
                return True
        return False
    if op == OP_REMOVE:
        for r in range(N_REGIONS):
            if may_remove_from(s, empire, r):
                return True
        return False
    if op == OP_DRAW:
        return deck_has(s, empire)
    if op == OP_DRAW_ICONS:
        return icons_controlled(s, empire) > 0 and deck_has(s, empire)
    if op == OP_SWAP:
        # Only an agent swaps, with another agent (AW12); not again after a swap or move.
        if s.followup or s.agent[base + s.acting_seat] != s.actor:
            return False
        for k in range(AW_N_SEATS):
            if k != s.acting_seat and s.agent[base + k] >= 0:
                return True
        return False
    if op == OP_MOVE_AGENT:
        # Before the seat's action only: it is forfeited for the new seat's (AW16). While a
        # card's operations resolve, "before" is where they return to.
        before = s.return_step == ST_CHOOSE if s.op_n > 0 else s.step == ST_CHOOSE
        if not before or s.agent[base + s.acting_seat] != s.actor:
            return False
        for k in range(AW_N_SEATS):
            if s.agent[base + k] < 0:
                return True
        return False
    return False


cdef inline int op_target(int target, int card_empire, int active) noexcept nogil:
    return card_empire if target == TG_CARD else active


cdef bint ability_playable(AWState* s, int c, int a) noexcept nogil:
    """The actor holds card c, the rest of the hand pays the ability's cost, and one of its
    operations has a target (AW15)."""
    cdef int e, j, have, empire = CARD_EMPIRE[c], p = s.actor
    for e in range(AW_N_EMPIRES):
        have = s.hand_count[p][e] - (e == empire)
        if have < ABILITY_EXTRA[c][a][e]:
            return False
    for j in range(ABILITY_N_OPS[c][a]):
        if op_possible(s, ABILITY_OP[c][a][j],
                       op_target(ABILITY_TARGET[c][a][j], empire, s.empire)):
            return True
    return False


cdef bint any_playable(AWState* s) noexcept nogil:
    cdef int c, a
    if hand_size(s, s.actor) == 0:
        return False
    for c in range(N_CARDS):
        if s.card_loc[c] == LOC_HAND + s.actor:
            for a in range(CARD_N_ABILITIES[c]):
                if ability_playable(s, c, a):
                    return True
    return False


cdef bint any_option(AWState* s) noexcept nogil:
    cdef int k, e = s.empire, seat = s.acting_seat
    for k in range(SEAT_N_OPTIONS[e][seat]):
        if op_possible(s, SEAT_OP[e][seat][k], e):
            return True
    return False


# ---------------------------------------------------------------------------------------
# Setup and the flow of a round.

cdef void aw_new_game(AWState* s, int n_players, bint agents_on_map,
                      uint64_t seed) noexcept nogil:
    cdef int p, e, r, c
    cdef int8_t slots[AW_N_LOYALTY]
    memset(s, 0, sizeof(AWState))
    s.rng = game_rng(seed, <uint64_t>0x6177776869737031)  # "awwhisp1"
    s.content_tag = _CONTENT_TAG
    s.n_players = n_players
    s.agents_on_map = agents_on_map
    for p in range(AW_MAX_PLAYERS):
        for e in range(AW_MAP_AGENTS):
            s.map_agent[p][e] = -1
    s.viewer = -1
    s.round = 1
    s.first_player = 0
    s.paying_card = -1
    s.from_region = -1
    s.to_region = -1
    for r in range(AW_N_COUNCIL_SEATS):
        s.agent[r] = -1
    for e in range(AW_N_EMPIRES):
        s.supply[e] = AW_BANNERS
    for r in range(AW_MAX_REGIONS):
        s.owner[r] = -1
    for r in range(N_REGIONS):
        if REGION_START[r] > 0:
            s.owner[r] = REGION_EMPIRE[r]
            s.banners[r] = REGION_START[r]
            s.supply[REGION_EMPIRE[r]] -= REGION_START[r]
    for c in range(AW_MAX_CARDS):
        s.card_loc[c] = LOC_DECK if c < N_CARDS else LOC_ABSENT
    # Each player's five loyalty tokens, shuffled face down onto the five slots (AW3).
    for p in range(n_players):
        for e in range(AW_N_LOYALTY):
            slots[e] = e
        shuffle(slots, AW_N_LOYALTY, &s.rng)
        for e in range(AW_N_EMPIRES):
            s.loyalty[p][e] = slots[e]
    start_round(s)


cdef void start_round(AWState* s) noexcept nogil:
    """Deploy Agents: from round 2 each player first retrieves one agent (AW5); the agents
    on the map all come back (AW22)."""
    cdef int p, i
    for p in range(AW_MAX_PLAYERS):
        for i in range(AW_MAP_AGENTS):
            s.map_agent[p][i] = -1
    s.turn_i = 0
    s.deploy_i = 0
    s.phase = PH_RETRIEVE if s.round > 1 else PH_DEPLOY
    s.current = s.first_player
    if s.phase == PH_RETRIEVE:
        next_retriever(s)


cdef void next_retriever(AWState* s) noexcept nogil:
    while s.turn_i < s.n_players:
        s.current = (s.first_player + s.turn_i) % s.n_players
        if agents_on_board(s, s.current) > 0:
            return
        s.turn_i += 1
    s.phase = PH_DEPLOY
    s.current = s.first_player


cdef void start_turns(AWState* s) noexcept nogil:
    s.phase = PH_TURNS
    s.empire = 0
    s.seat = 0
    s.seats_done = 0
    enter_seat(s)


cdef void enter_seat(AWState* s) noexcept nogil:
    """Find the next seat with a decision, from s.seat of s.empire on, checking each
    empire's supply when its turn ends (AW8, AW11). A seat whose action was already taken
    through a swap or an agent's move is not resolved again (AW12)."""
    cdef int p
    while True:
        if s.seat == AW_N_SEATS:
            check_supply(s, s.empire)
            s.empire += 1
            s.seat = 0
            s.seats_done = 0
            if s.empire == AW_N_EMPIRES:
                end_turns(s)
                return
        p = aw_controller(s, s.empire, s.seat)
        if p >= 0 and not s.seats_done >> s.seat & 1:
            s.actor = p
            s.current = p
            s.acting_seat = s.seat
            s.followup = 0
            clear_ops(s)
            if enter_choose(s):
                return
        s.seat += 1


cdef bint enter_choose(AWState* s) noexcept nogil:
    """The actor chooses the acting seat's option (or plays a card first); False when there
    is nothing to decide: no valid option and no playable card (AW9)."""
    s.step = ST_CHOOSE
    return any_option(s) or any_playable(s)


cdef void advance_seat(AWState* s) noexcept nogil:
    s.seat += 1
    enter_seat(s)


cdef void finish_action(AWState* s) noexcept nogil:
    """After the seat's action: a window for cards, skipped when none can be played."""
    s.step = ST_AFTER
    if not any_playable(s):
        advance_seat(s)


cdef void check_supply(AWState* s, int empire) noexcept nogil:
    """At the end of its turn, each of the empire's regions keeps 4 banners, 6 with a farm;
    the rest go back to its supply (AW11)."""
    cdef int r, cap
    for r in range(N_REGIONS):
        if s.owner[r] == empire:
            cap = AW_SUPPLY_FARM if REGION_FARM[r] else AW_SUPPLY
            if s.banners[r] > cap:
                s.supply[empire] += s.banners[r] - cap
                s.banners[r] = cap


cdef void end_turns(AWState* s) noexcept nogil:
    """The fourth round ends the game (AW18); else Cleanup."""
    if s.round == AW_ROUNDS:
        end_game(s)
        return
    s.phase = PH_CLEANUP
    s.turn_i = 0
    next_cleanup(s)


cdef void next_cleanup(AWState* s) noexcept nogil:
    """Each player over the hand limit discards down to it, from the first player on."""
    while s.turn_i < s.n_players:
        s.current = (s.first_player + s.turn_i) % s.n_players
        if hand_size(s, s.current) > AW_HAND_LIMIT:
            return
        s.turn_i += 1
    s.phase = PH_SWAP
    s.turn_i = 0
    next_swapper(s)


cdef int unrevealed(AWState* s, int p) noexcept nogil:
    cdef int e, n = 0
    for e in range(AW_N_EMPIRES):
        n += not s.revealed[p][e]
    return n


cdef void next_swapper(AWState* s) noexcept nogil:
    """The Swap phase, from the first player on: a player with two unrevealed tokens may
    swap them (AW17)."""
    while s.turn_i < s.n_players:
        s.current = (s.first_player + s.turn_i) % s.n_players
        if unrevealed(s, s.current) >= 2:
            return
        s.turn_i += 1
    s.round += 1
    s.first_player = (s.first_player + 1) % s.n_players
    start_round(s)


cdef void end_game(AWState* s) noexcept nogil:
    """Score: each empire's cities times the loyalty of the slot its token is on (AW19)."""
    cdef int p, e, i, r
    cdef int cities[AW_N_EMPIRES]
    for e in range(AW_N_EMPIRES):
        cities[e] = cities_controlled(s, e)
    for p in range(s.n_players):
        s.score[p] = 0
        for e in range(AW_N_EMPIRES):
            s.score[p] += LOYALTY_VALUE[s.loyalty[p][e]] * cities[e]
        # An agent on the map: one more city of the region's empire, for its player (AW22).
        for i in range(AW_MAP_AGENTS):
            r = s.map_agent[p][i]
            if r >= 0 and s.owner[r] >= 0:
                s.score[p] += LOYALTY_VALUE[s.loyalty[p][s.owner[r]]]
    s.phase = PH_OVER
    s.current = -1


cdef int aw_winners_mask(AWState* s) noexcept nogil:
    """The highest score; tied: the fewest loyalty swaps, then the most cards in hand; still
    tied, a shared win (AW20)."""
    cdef int p, mask = 0, best = -1
    cdef int key[AW_MAX_PLAYERS]
    if s.phase != PH_OVER:
        return 0
    for p in range(s.n_players):
        key[p] = (s.score[p] + 1000) * 10000 + (99 - s.swaps[p]) * 100 + hand_size(s, p)
        if key[p] > best:
            best = key[p]
    for p in range(s.n_players):
        if key[p] == best:
            mask |= 1 << p
    return mask


# ---------------------------------------------------------------------------------------
# Operations.

cdef inline void clear_ops(AWState* s) noexcept nogil:
    """An empty queue, its slots zeroed: a position's message carries only the queued
    operations, so none is left behind in the struct."""
    s.op_n = 0
    s.op_i = 0
    memset(s.op_kind, 0, sizeof(s.op_kind))
    memset(s.op_amount, 0, sizeof(s.op_amount))
    memset(s.op_empire, 0, sizeof(s.op_empire))


cdef void load_ops_seat(AWState* s, int option) noexcept nogil:
    clear_ops(s)
    s.op_n = 1
    s.op_i = 0
    s.op_kind[0] = SEAT_OP[s.empire][s.acting_seat][option]
    s.op_amount[0] = SEAT_AMOUNT[s.empire][s.acting_seat][option]
    s.op_empire[0] = s.empire
    s.return_step = ST_AFTER


cdef void load_ops_card(AWState* s, int c, int a) noexcept nogil:
    cdef int j
    clear_ops(s)
    s.op_n = ABILITY_N_OPS[c][a]
    s.op_i = 0
    for j in range(s.op_n):
        s.op_kind[j] = ABILITY_OP[c][a][j]
        s.op_amount[j] = ABILITY_AMOUNT[c][a][j]
        s.op_empire[j] = op_target(ABILITY_TARGET[c][a][j], CARD_EMPIRE[c], s.empire)
    s.paying_card = -1


cdef void run_ops(AWState* s) noexcept nogil:
    """Resolve the queued operations in order until one asks for a decision."""
    cdef int op, amount, empire
    while s.op_i < s.op_n:
        op = s.op_kind[s.op_i]
        amount = s.op_amount[s.op_i]
        empire = s.op_empire[s.op_i]
        s.op_i += 1
        if not op_possible(s, op, empire):
            continue
        s.cur_op = op
        s.cur_empire = empire
        if op == OP_ADD:
            s.left = amount if amount < s.supply[empire] else s.supply[empire]
            s.step = ST_ADD
            return
        if op == OP_ATTACK or op == OP_RAZE:
            s.left = AW_MAX_COUNT
            s.step = ST_FROM
            return
        if op == OP_MOVE:
            s.left = amount
            s.step = ST_FROM
            return
        if op == OP_REMOVE:
            s.left = amount
            s.step = ST_REMOVE
            return
        if op == OP_SWAP or op == OP_MOVE_AGENT:
            s.step = ST_SEAT
            return
        if op == OP_DRAW_ICONS:
            amount = min(amount, icons_controlled(s, empire))
        draw_cards(s, s.actor, empire, amount)
    clear_ops(s)
    if s.return_step == ST_AFTER:
        finish_action(s)
    elif not enter_choose(s):
        advance_seat(s)


cdef void resolve_entry(AWState* s, int target, int n) noexcept nogil:
    """n banners of cur_empire leave from_region for target: a move joins them; an attack
    loses one to a fort, then both sides lose banners one for one (AW10); a raze kills them
    all, and all the defenders."""
    cdef int empire = s.cur_empire, defender = s.owner[target], fight
    s.banners[s.from_region] -= n
    if s.cur_op == OP_MOVE:
        s.owner[target] = empire
        s.banners[target] += n
        return
    if s.cur_op == OP_RAZE:
        # Every banner involved dies, the attackers and the defenders (FAQ, AW10).
        s.supply[empire] += n
        if defender >= 0:
            s.supply[defender] += s.banners[target]
        s.banners[target] = 0
        s.owner[target] = -1
        return
    if REGION_FORT[target]:
        n -= 1
        s.supply[empire] += 1
    if defender >= 0:
        fight = n if n < s.banners[target] else s.banners[target]
        n -= fight
        s.banners[target] -= fight
        s.supply[empire] += fight
        s.supply[defender] += fight
        if s.banners[target] > 0:
            return
        s.owner[target] = -1
    if n > 0:
        s.owner[target] = empire
        s.banners[target] = n


# ---------------------------------------------------------------------------------------
# Actions.

cdef int aw_legal_actions(AWState* s, int* out) noexcept nogil:
    """The legal actions of the player to act, in increasing order."""
    cdef int i, k, r, c, a, n = 0, p = s.current, e = s.empire, base = s.empire * AW_N_SEATS
    if s.phase == PH_RETRIEVE:
        for i in range(AW_N_COUNCIL_SEATS):
            if s.agent[i] == p:
                out[n] = WA_RETRIEVE + i
                n += 1
    elif s.phase == PH_DEPLOY:
        for i in range(AW_N_COUNCIL_SEATS):
            if s.agent[i] < 0:
                out[n] = WA_DEPLOY + i
                n += 1
        if s.agents_on_map and s.map_agent[p][AW_MAP_AGENTS - 1] < 0:
            for r in range(N_REGIONS):
                if s.map_agent[p][0] != r:
                    out[n] = WA_DEPLOY_MAP + r
                    n += 1
    elif s.phase == PH_CLEANUP:
        for c in range(N_CARDS):
            if s.card_loc[c] == LOC_HAND + p:
                out[n] = WA_DISCARD + c
                n += 1
    elif s.phase == PH_SWAP:
        for i in range(10):
            if not s.revealed[p][PAIR_A[i]] and not s.revealed[p][PAIR_B[i]]:
                out[n] = WA_LOYALTY + i
                n += 1
        out[n] = WA_DONE
        n += 1
    elif s.phase == PH_TURNS:
        if s.step == ST_CHOOSE:
            for k in range(SEAT_N_OPTIONS[e][s.acting_seat]):
                if op_possible(s, SEAT_OP[e][s.acting_seat][k], e):
                    out[n] = WA_OPTION + k
                    n += 1
        if s.step == ST_ADD or s.step == ST_REMOVE or s.step == ST_FROM or s.step == ST_TO:
            for r in range(N_REGIONS):
                if (s.step == ST_ADD and s.owner[r] == s.cur_empire
                        or s.step == ST_REMOVE and may_remove_from(s, s.cur_empire, r)
                        or s.step == ST_FROM and may_leave(s, s.cur_op, s.cur_empire, r)
                        or s.step == ST_TO and is_adjacent(s.from_region, r)
                        and may_enter(s, s.cur_op, s.cur_empire, r)):
                    out[n] = WA_REGION + r
                    n += 1
        elif s.step == ST_COUNT:
            k = s.banners[s.from_region] - 1
            if s.left < k:
                k = s.left
            for i in range(1, k + 1):
                out[n] = WA_COUNT + i - 1
                n += 1
        elif s.step == ST_SEAT:
            for k in range(AW_N_SEATS):
                if k == s.acting_seat:
                    continue
                if (s.cur_op == OP_SWAP and s.agent[base + k] >= 0
                        or s.cur_op == OP_MOVE_AGENT and s.agent[base + k] < 0):
                    out[n] = WA_SEAT + k
                    n += 1
        elif s.step == ST_PAY:
            for c in range(N_CARDS):
                if s.card_loc[c] == LOC_HAND + p and s.owed[CARD_EMPIRE[c]] > 0:
                    out[n] = WA_PAY + c
                    n += 1
        if s.step == ST_CHOOSE or s.step == ST_AFTER:
            for c in range(N_CARDS):
                if s.card_loc[c] == LOC_HAND + p:
                    for a in range(CARD_N_ABILITIES[c]):
                        if ability_playable(s, c, a):
                            out[n] = WA_PLAY + c * AW_MAX_ABILITIES + a
                            n += 1
            # Done after an action; a pass only when the seat has no valid option (AW9).
            if s.step == ST_AFTER or n == 0 or out[0] >= WA_PLAY:
                out[n] = WA_DONE
                n += 1
    return n


cdef bint aw_is_legal(AWState* s, int action) noexcept nogil:
    cdef int actions[AW_N_ACTIONS]
    cdef int i, n = aw_legal_actions(s, actions)
    for i in range(n):
        if actions[i] == action:
            return True
    return False


cdef void aw_apply(AWState* s, int action) noexcept nogil:
    """Apply a legal action (the caller checks legality)."""
    cdef int p = s.current, i, c, a, e, base = s.empire * AW_N_SEATS, tmp
    s.action_count += 1
    if s.phase == PH_RETRIEVE:
        s.agent[action - WA_RETRIEVE] = -1
        s.turn_i += 1
        next_retriever(s)
    elif s.phase == PH_DEPLOY:
        if action >= WA_DEPLOY_MAP:
            s.map_agent[p][0 if s.map_agent[p][0] < 0 else 1] = action - WA_DEPLOY_MAP
        else:
            s.agent[action - WA_DEPLOY] = p
        s.deploy_i += 1
        if s.deploy_i == s.n_players * deploys_per_player(s):
            start_turns(s)
        else:
            s.current = (s.first_player + s.deploy_i) % s.n_players
    elif s.phase == PH_CLEANUP:
        discard_card(s, p, action - WA_DISCARD)
        next_cleanup(s)
    elif s.phase == PH_SWAP:
        if action != WA_DONE:
            i = action - WA_LOYALTY
            tmp = s.loyalty[p][PAIR_A[i]]
            s.loyalty[p][PAIR_A[i]] = s.loyalty[p][PAIR_B[i]]
            s.loyalty[p][PAIR_B[i]] = tmp
            s.revealed[p][PAIR_A[i]] = 1
            s.revealed[p][PAIR_B[i]] = 1
            s.swaps[p] += 1
        s.turn_i += 1
        next_swapper(s)
    elif action == WA_DONE:
        advance_seat(s)
    elif WA_PLAY <= action < WA_PAY:
        c = (action - WA_PLAY) // AW_MAX_ABILITIES
        a = (action - WA_PLAY) % AW_MAX_ABILITIES
        s.return_step = s.step
        discard_card(s, p, c)
        s.paying_card = c
        s.paying_ability = a
        tmp = 0
        for e in range(AW_N_EMPIRES):
            s.owed[e] = ABILITY_EXTRA[c][a][e]
            tmp += s.owed[e]
        if tmp:
            s.step = ST_PAY
        else:
            load_ops_card(s, c, a)
            run_ops(s)
    elif s.step == ST_PAY:
        c = action - WA_PAY
        discard_card(s, p, c)
        s.owed[CARD_EMPIRE[c]] -= 1
        for e in range(AW_N_EMPIRES):
            if s.owed[e]:
                return
        load_ops_card(s, s.paying_card, s.paying_ability)
        run_ops(s)
    elif s.step == ST_CHOOSE:
        load_ops_seat(s, action - WA_OPTION)
        run_ops(s)
    elif s.step == ST_ADD:
        i = action - WA_REGION
        s.banners[i] += 1
        s.supply[s.cur_empire] -= 1
        s.left -= 1
        if s.left == 0 or s.supply[s.cur_empire] == 0:
            run_ops(s)
    elif s.step == ST_REMOVE:
        i = action - WA_REGION
        e = s.owner[i]
        tmp = s.left if s.left < s.banners[i] else s.banners[i]
        s.banners[i] -= tmp
        s.supply[e] += tmp
        if s.banners[i] == 0:
            s.owner[i] = -1
        run_ops(s)
    elif s.step == ST_FROM:
        s.from_region = action - WA_REGION
        s.step = ST_TO
    elif s.step == ST_TO:
        s.to_region = action - WA_REGION
        s.step = ST_COUNT
    elif s.step == ST_COUNT:
        resolve_entry(s, s.to_region, action - WA_COUNT + 1)
        s.from_region = -1
        s.to_region = -1
        run_ops(s)
    elif s.step == ST_SEAT:
        i = action - WA_SEAT
        tmp = s.agent[base + i]
        s.agent[base + i] = s.agent[base + s.acting_seat]
        s.agent[base + s.acting_seat] = tmp
        s.acting_seat = i
        s.seats_done |= 1 << i
        s.followup = 1
        s.return_step = ST_CHOOSE  # the new seat's action, at once (AW12, AW16)
        run_ops(s)


cdef void aw_apply_traced(AWState* s, int action, Trace* t) noexcept nogil:
    """aw_apply, writing its events to `t`: told by comparing the state before with the
    state after (the struct is small, and only the Python-level apply pays for the copy)."""
    cdef AWState b
    cdef int i, p, e, c, r
    memcpy(&b, s, sizeof(AWState))
    aw_apply(s, action)
    emit(t, AE_ACTION, b.current, action, 0, 0, 0)
    for i in range(AW_N_COUNCIL_SEATS):
        if s.agent[i] != b.agent[i]:
            emit(t, AE_AGENT, NO_SEAT, i, b.agent[i], s.agent[i], 0)
    for p in range(s.n_players):
        for i in range(AW_MAP_AGENTS):
            if s.map_agent[p][i] != b.map_agent[p][i]:
                emit(t, AE_MAP_AGENT, p, s.map_agent[p][i], 0, 0, 0)
    for r in range(N_REGIONS):
        if s.owner[r] != b.owner[r] or s.banners[r] != b.banners[r]:
            emit(t, AE_REGION, NO_SEAT, r, s.owner[r], s.banners[r], b.banners[r])
    for c in range(N_CARDS):
        if b.card_loc[c] >= LOC_HAND and b.card_loc[c] < LOC_HAND + AW_MAX_PLAYERS \
                and s.card_loc[c] == LOC_DECK:
            emit(t, AE_DISCARD, b.card_loc[c] - LOC_HAND, c, 0, 0, 0)
    for p in range(s.n_players):
        for e in range(AW_N_EMPIRES):
            # Cards drawn: the count grown, each discard of the action added back; each named
            # by a card new to the hand (-1 for one discarded and drawn again at once).
            i = s.hand_count[p][e] - b.hand_count[p][e]
            for c in range(N_CARDS):
                if CARD_EMPIRE[c] == e and b.card_loc[c] == LOC_HAND + p \
                        and s.card_loc[c] == LOC_DECK:
                    i += 1
            for c in range(N_CARDS):
                if i > 0 and CARD_EMPIRE[c] == e and b.card_loc[c] == LOC_DECK \
                        and s.card_loc[c] == LOC_HAND + p:
                    emit(t, AE_DRAW, p, e, c, 0, 0)
                    i -= 1
            while i > 0:
                emit(t, AE_DRAW, p, e, -1, 0, 0)
                i -= 1
    if b.phase == PH_SWAP and action != WA_DONE:
        i = action - WA_LOYALTY
        emit(t, AE_LOYALTY_SWAP, b.current, PAIR_A[i], PAIR_B[i], 0, 0)
    if s.round != b.round:
        emit(t, AE_ROUND, NO_SEAT, s.round, 0, 0, 0)
    if s.phase == PH_TURNS and (b.phase != PH_TURNS or b.empire != s.empire):
        emit(t, AE_EMPIRE_TURN, NO_SEAT, s.empire, 0, 0, 0)
    if s.phase == PH_OVER:
        for p in range(s.n_players):
            emit(t, AE_SCORE, p, s.score[p], s.swaps[p], hand_size(s, p), 0)
        emit(t, AE_WINNERS, NO_SEAT, aw_winners_mask(s), 0, 0, 0)


# ---------------------------------------------------------------------------------------
# Hidden information (AW21): each player's loyalty tokens until revealed, the cards in the
# hands (how many of each empire is public: a draw names its deck, a discard shows the card).

cdef void aw_make_view(AWState* s, int seat) noexcept nogil:
    cdef int c, p, e
    for c in range(N_CARDS):
        if s.card_loc[c] != LOC_HAND + seat:
            s.card_loc[c] = LOC_UNKNOWN
    for p in range(s.n_players):
        if p != seat:
            for e in range(AW_N_EMPIRES):
                if not s.revealed[p][e]:
                    s.loyalty[p][e] = -1
    s.viewer = seat
    s.rng = 0


cdef void aw_determinize(AWState* s, uint64_t seed) noexcept nogil:
    """A full state consistent with the view: each empire's unseen cards dealt at random to
    the other hands (their public counts) and the deck; each other player's unrevealed
    tokens a uniform permutation of the slots its revealed ones leave."""
    cdef int8_t cards[AW_MAX_CARDS]
    cdef int8_t slots[AW_N_LOYALTY]
    cdef int8_t used[AW_N_LOYALTY]
    cdef int c, p, e, k, m, _m, n, seat = s.viewer
    s.rng = game_rng(seed, <uint64_t>0x6465746572617731)  # "determaw1"
    for e in range(AW_N_EMPIRES):
        n = 0
        for c in range(N_CARDS):
            if s.card_loc[c] == LOC_UNKNOWN and CARD_EMPIRE[c] == e:
                cards[n] = c
                n += 1
        shuffle(cards, n, &s.rng)
        k = 0
        for p in range(s.n_players):
            if p == seat:
                continue
            for _m in range(s.hand_count[p][e]):
                s.card_loc[cards[k]] = LOC_HAND + p
                k += 1
        for m in range(k, n):
            s.card_loc[cards[m]] = LOC_DECK
    for p in range(s.n_players):
        if p == seat:
            continue
        memset(used, 0, sizeof(used))
        for e in range(AW_N_EMPIRES):
            if s.loyalty[p][e] >= 0:
                used[s.loyalty[p][e]] = 1
        n = 0
        for k in range(AW_N_LOYALTY):
            if not used[k]:
                slots[n] = k
                n += 1
        shuffle(slots, n, &s.rng)
        k = 0
        for e in range(AW_N_EMPIRES):
            if s.loyalty[p][e] < 0:
                s.loyalty[p][e] = slots[k]
                k += 1
    s.viewer = -1


# ---------------------------------------------------------------------------------------
# Python wrapper: the methods shared with the other games' positions are in _position.pxi.

from council.engine._a_war_of_whispers cimport AWarOfWhispersState as _Position

ctypedef AWState _PositionStruct


cdef inline void _make_view(AWState* s, int seat) noexcept nogil:
    aw_make_view(s, seat)


cdef inline void _determinize(AWState* s, uint64_t seed) noexcept nogil:
    aw_determinize(s, seed)


cdef inline void _reseed(AWState* s, uint64_t seed) noexcept nogil:
    # Decks have no order (draw_cards picks among the cards in them): the rng is all the
    # chance still to come.
    s.rng = game_rng(seed, <uint64_t>0x6177726573656564)  # "awreseed"


cdef inline int _score(AWState* s, int p) noexcept nogil:
    return s.score[p]  # all zeros before the end


cdef inline int _winners_mask(AWState* s) noexcept nogil:
    return aw_winners_mask(s)


include "_position.pxi"


cdef class AWarOfWhispersState:
    """A position of A War of Whispers: a full state, or one player's view of it."""

    @classmethod
    def new_game(cls, config=None, seed=0, *, players=None, agents_on_map=None):
        """A new game for `config` players (an int, or an object with ``players`` and
        optionally ``agents_on_map``; 4 players if None) on the content the core holds
        (``use_content``), its chance from `seed`. ``agents_on_map``: the advanced rule
        (AW22), off by default."""
        if players is not None:
            config = players
        if config is None:
            config = 4
        if agents_on_map is None:
            agents_on_map = getattr(config, "agents_on_map", False)
        cdef int n = config if isinstance(config, int) else config.players
        if not AW_MIN_PLAYERS <= n <= AW_MAX_PLAYERS:
            raise ValueError(f"players: A War of Whispers seats {AW_MIN_PLAYERS} to "
                             f"{AW_MAX_PLAYERS}, got {n}")
        cdef AWarOfWhispersState st = AWarOfWhispersState.__new__(AWarOfWhispersState)
        aw_new_game(&st.s, n, bool(agents_on_map), seed_word(seed))
        return st

    clone = _position_clone
    __copy__ = _position_clone
    __deepcopy__ = _position_deepcopy

    # -- the position --------------------------------------------------------------------
    n_players = property(_position_n_players)
    viewer = property(_position_viewer)
    is_view = property(_position_is_view)
    events = property(_position_events)

    @property
    def current_player(self):
        """The player to act (-1 once the game is over)."""
        return self.s.current

    def is_terminal(self):
        return self.s.phase == PH_OVER

    @property
    def phase(self):
        """'retrieve', 'deploy', 'turns', 'cleanup', 'swap' or 'over'."""
        return PHASES[self.s.phase]

    @property
    def decision_name(self):
        """The phase, or in the empire turns the step ('choose', 'after', 'pay', 'add',
        'remove', 'from', 'to', 'count', 'seat')."""
        return STEPS[self.s.step] if self.s.phase == PH_TURNS else PHASES[self.s.phase]

    @property
    def round(self):
        return self.s.round

    @property
    def turn(self):
        """The round: the game's length in the unit match caps count."""
        return self.s.round

    @property
    def action_count(self):
        return self.s.action_count

    @property
    def empire(self):
        """The active empire's name during the empire turns, else None."""
        return EMPIRES[self.s.empire] if self.s.phase == PH_TURNS else None

    @property
    def agents_on_map(self):
        """Whether the advanced rule, agents on the map, is played (AW22)."""
        return bool(self.s.agents_on_map)

    def map_agents(self, int player):
        """The regions of a player's agents on the map."""
        _check_seat(self, player)
        return [self.s.map_agent[player][i] for i in range(AW_MAP_AGENTS)
                if self.s.map_agent[player][i] >= 0]

    @property
    def content_digest_prefix(self):
        """The first 16 hex digits of the digest of the content this game is played on."""
        return f"{self.s.content_tag:016x}"

    def agents(self):
        """agents()[empire][seat]: the player whose agent is there, -1 for none."""
        return [[self.s.agent[e * AW_N_SEATS + k] for k in range(AW_N_SEATS)]
                for e in range(AW_N_EMPIRES)]

    def controller(self, int empire, int seat):
        """The player controlling a seat (-1: no agent in its council)."""
        return aw_controller(&self.s, empire, seat)

    def regions(self):
        """(owner empire or -1, banners) of each region."""
        return [(self.s.owner[r], self.s.banners[r]) for r in range(N_REGIONS)]

    def hand(self, int player):
        """The card ids in a player's hand (in a view, only the viewer's are known)."""
        _check_seat(self, player)
        return [c for c in range(N_CARDS) if self.s.card_loc[c] == LOC_HAND + player]

    def _check_content(self):
        if self.s.content_tag != _CONTENT_TAG:
            raise ValueError(f"this position was made with the content whose digest starts "
                             f"{self.s.content_tag:016x}; the core holds "
                             f"{_CONTENT_TAG:016x} (use_content)")

    def _require_full(self, what):
        _position_require_full(self, what)
        self._check_content()

    # -- actions -------------------------------------------------------------------------
    def legal_actions(self):
        """Legal action ids for the player to act, in increasing order."""
        self._require_full("legal_actions")
        cdef int buf[AW_N_ACTIONS]
        cdef int n = aw_legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, int action):
        self._require_full("is_legal")
        return 0 <= action < AW_N_ACTIONS and aw_is_legal(&self.s, action)

    def apply(self, int action):
        """Apply a legal action in place. Raises IllegalActionError otherwise."""
        self._require_full("apply")
        if self.s.phase == PH_OVER:
            raise IllegalActionError("the game is over")
        if not 0 <= action < AW_N_ACTIONS:
            raise IllegalActionError(f"action {action} is not legal here: action ids are "
                                     f"0..{AW_N_ACTIONS - 1}")
        if not aw_is_legal(&self.s, action):
            raise IllegalActionError(f"action {action} ({self.action_to_text(action)}) is "
                                     f"not legal here")
        cdef Trace trace
        trace.n = trace.dropped = 0
        aw_apply_traced(&self.s, action, &trace)
        self._events = trace_bytes(&trace)

    child = _position_child

    def action_to_text(self, int action):
        """'deploy lion marshal', 'retrieve ...', 'option 1 (attack)' (the acting seat's
        second option, named when it is to be chosen),
        'region NAME', 'count 3', 'seat steward', 'play CARD 2' (its second ability),
        'pay CARD', 'discard CARD', 'swap loyalty bear lion', 'done'."""
        if not 0 <= action < AW_N_ACTIONS:
            raise ValueError(f"action must be in 0..{AW_N_ACTIONS - 1}, got {action}")
        content = _content
        if action < WA_RETRIEVE:
            i = action - WA_DEPLOY
            return f"deploy {EMPIRES[i // AW_N_SEATS]} {SEATS[i % AW_N_SEATS]}"
        if action < WA_OPTION:
            i = action - WA_RETRIEVE
            return f"retrieve {EMPIRES[i // AW_N_SEATS]} {SEATS[i % AW_N_SEATS]}"
        if action < WA_REGION:
            k = action - WA_OPTION
            e, seat = self.s.empire, self.s.acting_seat
            if (self.s.phase == PH_TURNS and self.s.step == ST_CHOOSE
                    and k < SEAT_N_OPTIONS[e][seat]):
                amount = SEAT_AMOUNT[e][seat][k]
                what = OPERATION_NAMES[SEAT_OP[e][seat][k]] + (f" {amount}" if amount else "")
                return f"option {k} ({what})"
            return f"option {k}"
        if action < WA_COUNT:
            r = action - WA_REGION
            return f"region {content.regions[r].name if r < N_REGIONS else r}"
        if action < WA_SEAT:
            return f"count {action - WA_COUNT + 1}"
        if action < WA_PLAY:
            return f"seat {SEATS[action - WA_SEAT]}"
        if action < WA_DONE and action >= WA_LOYALTY:
            a, b = LOYALTY_PAIRS[action - WA_LOYALTY]
            return f"swap loyalty {EMPIRES[a]} {EMPIRES[b]}"
        if action == WA_DONE:
            return "done"
        if action >= WA_DEPLOY_MAP:
            r = action - WA_DEPLOY_MAP
            return f"deploy map {content.regions[r].name if r < N_REGIONS else r}"
        if action < WA_PAY:
            c, a = divmod(action - WA_PLAY, AW_MAX_ABILITIES)
            return f"play {self._card_name(c)} {a + 1}"
        verb = "pay" if action < WA_DISCARD else "discard"
        return f"{verb} {self._card_name((action - WA_PAY) % AW_MAX_CARDS)}"

    def _card_name(self, c):
        return _content.cards[c].name if c < N_CARDS else f"#{c}"

    def action_from_text(self, str text):
        """Inverse of action_to_text (ValueError naming the problem); ``option K`` alone
        is read too."""
        words = text.split()
        if len(words) == 2 and words[0] == "option" and words[1].isdigit():
            if int(words[1]) < AW_MAX_OPTIONS:
                return WA_OPTION + int(words[1])
        for action in range(AW_N_ACTIONS):
            if self.action_to_text(action) == text.strip():
                return action
        raise ValueError(f"not an action of A War of Whispers: {text!r}")

    def problems(self):
        """Consistency problems as ``(field, problem)`` pairs; ``[]`` when consistent:
        the counters in range, each empire's banners on the map plus its supply are 20, a
        region has banners exactly when it has an owner, agents belong to players, each
        player's loyalty tokens fill the five slots (unknown ones: -1 in a view), the
        public hand counts match the cards."""
        out = []
        n = self.s.n_players
        if not AW_MIN_PLAYERS <= n <= AW_MAX_PLAYERS:
            return [("n_players", f"{n} is not {AW_MIN_PLAYERS} to {AW_MAX_PLAYERS}")]
        if not 1 <= self.s.round <= AW_ROUNDS:
            out.append(("round", f"{self.s.round} is not 1 to {AW_ROUNDS}"))
        if not 0 <= self.s.phase <= PH_OVER:
            out.append(("phase", f"unknown phase {self.s.phase}"))
        elif not (self.s.phase == PH_OVER or 0 <= self.s.current < n):
            out.append(("current", f"{self.s.current} is not a player"))
        for i in range(AW_N_COUNCIL_SEATS):
            if not -1 <= self.s.agent[i] < n:
                out.append((f"agent[{i}]", f"{self.s.agent[i]} is not a player or -1"))
        for p in range(n):
            slots = [self.s.loyalty[p][e] for e in range(AW_N_EMPIRES)]
            known = [x for x in slots if x >= 0 or self.s.viewer < 0 or self.s.viewer == p]
            in_range = all(0 <= x < AW_N_LOYALTY for x in known)
            if len(set(known)) != len(known) or not in_range:
                out.append((f"loyalty[{p}]", f"{slots} is not one token per slot"))
        for c in range(N_CARDS):
            loc = self.s.card_loc[c]
            if not (loc == LOC_DECK or LOC_HAND <= loc < LOC_HAND + n
                    or loc == LOC_UNKNOWN and self.s.viewer >= 0):
                out.append((f"card_loc[{c}]", f"{loc} is not a place of a card here"))
        for e in range(AW_N_EMPIRES):
            on_map = sum(self.s.banners[r] for r in range(N_REGIONS) if self.s.owner[r] == e)
            if on_map + self.s.supply[e] != AW_BANNERS:
                out.append((f"supply[{e}]", f"{EMPIRES[e]}: {on_map} on the map and "
                            f"{self.s.supply[e]} in supply, not {AW_BANNERS}"))
        for r in range(N_REGIONS):
            if (self.s.owner[r] >= 0) != (self.s.banners[r] > 0):
                out.append((f"owner[{r}]", f"owner {self.s.owner[r]} with "
                            f"{self.s.banners[r]} banners"))
        for p in range(self.s.n_players):
            for e in range(AW_N_EMPIRES):
                held = sum(1 for c in range(N_CARDS) if self.s.card_loc[c] == LOC_HAND + p
                           and CARD_EMPIRE[c] == e)
                if (self.s.viewer < 0 or self.s.viewer == p) and held != self.s.hand_count[p][e]:
                    out.append((f"hand_count[{p}][{e}]", f"{self.s.hand_count[p][e]}, but "
                                f"{held} cards in hand"))
        return out

    # -- hidden information --------------------------------------------------------------
    view = _position_view
    determinize = _position_determinize
    reseed = _position_reseed

    # -- outcome -------------------------------------------------------------------------
    scores = _position_scores
    winners = _position_winners
    returns = _position_returns

    def adjudicated(self):
        """A finished copy of this full state, scored as the map stands now."""
        self._require_full("adjudicated")
        cdef AWarOfWhispersState st = _copy(self)
        if st.s.phase != PH_OVER:
            end_game(&st.s)
        return st

    def random_playout(self, seed):
        """Play uniformly random actions in place until the end; returns actions played."""
        self._require_full("random_playout")
        cdef uint64_t rng = game_rng(seed_word(seed), 0)
        cdef int buf[AW_N_ACTIONS]
        cdef int n, steps = 0
        with nogil:
            while self.s.phase != PH_OVER:
                n = aw_legal_actions(&self.s, buf)
                aw_apply(&self.s, buf[random_below(&rng, n)])
                steps += 1
        return steps

    # -- raw form, pickle, equality ------------------------------------------------------
    to_raw = _position_to_raw
    from_raw = staticmethod(_position_from_raw)
    __reduce__ = _position_reduce

    def __eq__(self, other):
        if not isinstance(other, AWarOfWhispersState):
            return NotImplemented
        return _position_eq(self, other)

    def __hash__(self):
        _position_unhashable(self)

    def __str__(self):
        from council.engine.render_a_war_of_whispers import render_a_war_of_whispers
        return render_a_war_of_whispers(self)

    def __repr__(self):
        who = "full state" if self.s.viewer < 0 else f"view of player {self.s.viewer}"
        return (f"<AWarOfWhispersState {self.s.n_players} players, round {self.s.round}, "
                f"{PHASES[self.s.phase]}, player {self.s.current} to act, {who}>")


_name_methods(AWarOfWhispersState)
