# Flat game state of Leduc poker and the nogil rules functions a search calls. Rules: OpenSpiel's
# leduc_poker (open_spiel/games/leduc_poker/leduc_poker.cc), two seats; the three cards (two
# private, one public) dealt from the state's rng at the start rather than by chance nodes, the
# public card shown when the first betting round ends.

from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t

from council.engine._trace cimport Trace

cdef enum:
    LD_PLAYERS = 2
    LD_N_CARDS = 6           # J1 J2 Q1 Q2 K1 K2 (0..5, OpenSpiel's ids): the rank is card // 2
    LD_MAX_MOVES = 8         # at most 4 actions a round (call, raise, raise, call)
    LD_NO_CARD = -1          # a card this view cannot see
    LD_ANTE = 1
    LD_MAX_RAISES = 2        # raises a round
    LD_RAISE_FIRST = 2       # the raise size of the first round
    LD_RAISE_SECOND = 4      # and of the second
    LD_MAX_PUT_IN = 13       # the most a seat can put in: 1 + 2 * 2 + 2 * 4

# Action space (OpenSpiel's ids).
cdef enum:
    LA_FOLD = 0              # only facing a raise
    LA_CALL = 1              # call a raise, or check
    LA_RAISE = 2             # match the stake and raise it by the round's size
    LD_N_ACTIONS = 3

# The kinds of event an action's rules write into a trace (engine/_trace.pxd), with their
# seat and args; EVENT_KINDS names them in this order.
cdef enum:
    LE_ACTION = 0            # seat: the mover; action id
    LE_FOLD = 1              # the pot
    LE_CHECK = 2             # the pot
    LE_CALL = 3              # chips put in, the pot
    LE_RAISE = 4             # chips put in, the pot
    LE_PUBLIC_CARD = 5       # no seat; the public card, shown as the second round begins
    LE_SHOWDOWN = 6          # no seat; seat 0's card, seat 1's card, the public card
    LE_SCORE = 7             # change in the seat's score (its chips won or lost)
    LE_TAKES_POT = 8         # the pot, the seat's gain
    LE_SPLIT_POT = 9         # no seat; the pot, each seat taking back its own chips

ctypedef struct LDState:
    uint64_t rng
    int32_t action_count
    int8_t n_players         # always 2
    int8_t viewer            # -1: a full state; else the seat whose view this is
    int8_t current           # the seat to act; -1 once the game is over
    int8_t round             # 0: the first betting round; 1: the second (public card shown)
    int8_t round_start       # the index in moves where the current round began
    int8_t raises            # raises in the current round
    int8_t calls             # calls (checks) in the current round since its last raise
    int8_t folded            # the seat that folded; -1 if none
    int8_t n_moves
    int8_t moves[LD_MAX_MOVES]   # LA_* in order, both rounds; -1 past n_moves
    int8_t cards[LD_PLAYERS]     # each seat's card; LD_NO_CARD where a view cannot see it
    int8_t public_card           # dealt at the start, shown in the second round (LD_NO_CARD
    #                              in a view before that)
    int16_t put_in[LD_PLAYERS]   # the chips each seat has put in, its ante included
    int16_t score[LD_PLAYERS]    # each seat's chip gain once the game is over, else 0

cdef void ld_new_game(LDState* s, uint64_t seed) noexcept nogil
cdef int ld_legal_actions(LDState* s, int* out) noexcept nogil
cdef void ld_apply(LDState* s, int action) noexcept nogil
# ld_apply writing what the rules did into `t` (NULL: nothing, ld_apply itself).
cdef void ld_apply_traced(LDState* s, int action, Trace* t) noexcept nogil
cdef void ld_make_view(LDState* s, int seat) noexcept nogil
cdef void ld_determinize(LDState* s, uint64_t seed) noexcept nogil
cdef int ld_winners_mask(LDState* s) noexcept nogil
cdef int ld_hand_start(LDState* s, int* history, int most) noexcept nogil
cdef void ld_deal_all(LDState* s, uint64_t seed) noexcept nogil


cdef inline int ld_info_key(LDState* s, int seat) noexcept nogil:
    """What `seat` knows that the betting does not show: its card's rank (the suits play
    alike), and in the second round the public card's rank too (0..11)."""
    if s.round == 0:
        return s.cards[seat] // 2
    return 3 + 3 * (s.public_card // 2) + s.cards[seat] // 2


cdef class LeducPokerState:
    cdef LDState s
    cdef bytes _events       # the trace of the last apply on this object (None: none)
