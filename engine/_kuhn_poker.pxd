# Flat game state of Kuhn poker and the nogil rules functions a search calls. Rules: OpenSpiel's
# kuhn_poker (open_spiel/games/kuhn_poker/kuhn_poker.cc), two seats, the deck dealt from the
# state's rng rather than by chance nodes.

from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t

from council.engine._trace cimport Trace

cdef enum:
    KP_PLAYERS = 2
    KP_N_CARDS = 3           # J, Q, K (0, 1, 2): a higher card wins the showdown
    KP_MAX_MOVES = 3         # the longest betting: pass, bet, pass or bet
    KP_NO_CARD = -1          # a card this view cannot see

# Action space (OpenSpiel's ids).
cdef enum:
    KA_PASS = 0              # check, or fold facing a bet
    KA_BET = 1               # bet 1 chip, or call facing a bet
    KP_N_ACTIONS = 2

# The kinds of event an action's rules write into a trace (engine/_trace.pxd), with their
# seat and args; EVENT_KINDS names them in this order.
cdef enum:
    KE_ACTION = 0            # seat: the mover; action id
    KE_CHECK = 1             # the pot
    KE_BET = 2               # chips put in, the pot
    KE_FOLD = 3              # the pot
    KE_CALL = 4              # chips put in, the pot
    KE_SHOWDOWN = 5          # no seat; seat 0's card, seat 1's card
    KE_SCORE = 6             # change in the seat's score (its chips won or lost)
    KE_TAKES_POT = 7         # the pot, the seat's gain

ctypedef struct KPState:
    uint64_t rng
    int32_t action_count
    int8_t n_players         # always 2
    int8_t viewer            # -1: a full state; else the seat whose view this is
    int8_t current           # the seat to act; -1 once the game is over
    int8_t n_moves
    int8_t moves[KP_MAX_MOVES]   # KA_PASS / KA_BET in order; -1 past n_moves
    int8_t cards[KP_PLAYERS]     # each seat's card; KP_NO_CARD where a view cannot see it
    int16_t score[KP_PLAYERS]    # each seat's chip gain once the game is over, else 0

cdef void kp_new_game(KPState* s, uint64_t seed) noexcept nogil
cdef int kp_legal_actions(KPState* s, int* out) noexcept nogil
cdef void kp_apply(KPState* s, int action) noexcept nogil
# kp_apply writing what the rules did into `t` (NULL: nothing, kp_apply itself).
cdef void kp_apply_traced(KPState* s, int action, Trace* t) noexcept nogil
cdef void kp_make_view(KPState* s, int seat) noexcept nogil
cdef void kp_determinize(KPState* s, uint64_t seed) noexcept nogil
cdef int kp_winners_mask(KPState* s) noexcept nogil
cdef int kp_hand_start(KPState* s, int* history, int most) noexcept nogil
cdef void kp_deal_all(KPState* s, uint64_t seed) noexcept nogil


cdef inline int kp_info_key(KPState* s, int seat) noexcept nogil:
    """What `seat` knows that the betting does not show: its card."""
    return s.cards[seat]


cdef class KuhnPokerState:
    cdef KPState s
    cdef bytes _events       # the trace of the last apply on this object (None: none)
