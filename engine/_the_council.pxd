# Flat game state of The Council (Decktet) and the nogil rules functions a search calls.
# Rules and rulings (TC1 ...): docs/the-council.md.

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t

from council.engine._trace cimport Trace

cdef enum:
    TC_MIN_PLAYERS = 3
    TC_MAX_PLAYERS = 5
    TC_N_SUITS = 6
    TC_N_CARDS = 44          # the extended Decktet's suited cards (TC1)
    TC_DEAL = 6              # cards dealt to each seat
    TC_DRAFT_ROUNDS = 5      # picks per seat; the sixth card is discarded face down
    TC_EVENTS = 5            # events per hand, one per drafted card (TC6)
    TC_MAX_RANK = 6
    TC_MAX_HANDS = 20        # TC14
    TC_NO_CARD = 99          # low_card of a seat that revealed nothing

# Action space: one fixed range of integers.
cdef enum:
    TA_PICK = 0              # + card: draft this card from the pack held
    TA_BID = 44              # + suit: offer one more chip of this suit
    TA_END_BID = 50          # no more chips: choose the cards to reveal next
    TA_REVEAL = 51           # + mask: reveal these drafted cards (bit i: the i-th in id order)
    TC_N_ACTIONS = 83

cdef enum:
    TK_PICK = 0
    TK_BID = 1
    TK_END_BID = 2
    TK_REVEAL = 3
    TC_N_KINDS = 4

cdef enum:
    PH_DRAFT = 0
    PH_BID = 1               # the current seat offers chips
    PH_REVEAL = 2            # the current seat chooses, in secret, the cards to reveal
    PH_OVER = 3

# Where a card is (card_loc).
cdef enum:
    LOC_DECK = 0
    LOC_PACK = 1             # + pack; packs are numbered by the seat dealt them
    LOC_DRAFTED = 6          # + seat: face up in front of it
    LOC_FACEDOWN = 11        # + pack: its last card, discarded face down
    LOC_SPENT = 16           # revealed in an event, or an event of this hand before the last
    LOC_EVENT = 17
    LOC_UNKNOWN = 18         # in a view: a card this seat cannot place

cdef enum:
    CK_ACE = 0
    CK_NUMBER = 1
    CK_PAWN = 2
    CK_COURT = 3
    CK_CROWN = 4

# The kinds of event an action's rules write into a trace (engine/_trace.pxd), with their
# seat and args; EVENT_KINDS names them in this order.
cdef enum:
    TE_ACTION = 0            # seat: the mover; action id
    TE_PICK = 1              # card picked (secret until the round's picks are revealed)
    TE_DRAFT = 2             # card: a pick revealed, face up in front of the seat
    TE_CHIPS = 3             # suit, change in the seat's chips of it
    TE_EVENT = 4             # no seat; the event card turned (TC6)
    TE_BID = 5               # suit of the chip, the bid in the event's suits, needed, event
    TE_END_BID = 6
    TE_CHOOSE_REVEAL = 7     # mask of the cards chosen (secret until the last seat has bid)
    TE_REVEAL = 8            # card revealed as the event resolves
    TE_OUTCOME = 9           # no seat; event card, chips bid, an Ace revealed, succeeded
    TE_SUIT = 10             # seat gaining (success) or losing (failure) a rank, or none;
    #                          suit, tied (TC10: one per suit of the event)
    TE_RANK = 11             # suit, change in the seat's rank
    TE_TRAITOR = 12          # change in the seat's traitor chips
    TE_CROWN = 13            # card: a revealed Crown's rank (TC9)
    TE_COURT = 14            # card: a revealed Court's traitor chip on a failure (TC8)
    TE_NEW_HAND = 15         # no seat; the hand dealt
    TE_SCORE = 16            # change in the seat's score
    TE_FINAL = 17            # the seat's final score, its lowest card of the last event
    TE_WINNERS = 18          # no seat; the winners' bit mask (TC13)

ctypedef struct TCState:
    uint64_t rng
    int32_t action_count
    int8_t n_players
    int8_t viewer            # -1: a full state; else the seat whose view this is
    int8_t phase
    int8_t current           # the seat to act
    int8_t hand              # 1, 2, ...
    int8_t dealer
    int8_t draft_round       # 0 .. 4; TC_DRAFT_ROUNDS once the packs are spent
    int8_t starter           # the seat that starts (or started) this hand's bidding
    int8_t next_starter      # who starts the next event (TC12); -1: the next dealer
    int8_t bids_done         # seats that have finished their bid in this event
    int8_t events_done       # events of this hand already resolved
    int8_t event             # the event card; -1 before the draft ends
    int8_t bid_floor         # the current bidder's next chip is of this suit or above
    int8_t deck_n
    int8_t deck[TC_N_CARDS]  # deck[deck_n - 1] is the top; -1 past deck_n and in views
    int8_t card_loc[TC_N_CARDS]
    # 1: picked this round and not yet revealed (in a pack), or chosen to be revealed in
    # this event (drafted). Hidden from the other seats in a view.
    int8_t card_pending[TC_N_CARDS]
    uint8_t pack_seen[TC_MAX_PLAYERS]   # the seats that have held each pack this hand
    int8_t pack_n[TC_MAX_PLAYERS]
    int8_t ranks[TC_MAX_PLAYERS][TC_N_SUITS]
    int8_t empire[TC_N_SUITS]
    int16_t chips[TC_MAX_PLAYERS][TC_N_SUITS]
    int16_t bid[TC_MAX_PLAYERS][TC_N_SUITS]    # chips offered in this (or the last) event
    int16_t traitors[TC_MAX_PLAYERS]
    int8_t low_card[TC_MAX_PLAYERS]   # lowest rank revealed in the last event (TC_NO_CARD)
    int16_t score[TC_MAX_PLAYERS]     # set when the game ends
    # The card each seat picked in each draft round of this hand, public once the round's
    # picks are revealed (TC5): the history of the others' actions that a search's beliefs
    # read (mcts/_the_council_search.pxd). -1: not picked yet, or not known (a position read
    # from a message written without it).
    int8_t draft_picks[TC_MAX_PLAYERS][TC_DRAFT_ROUNDS]


# Card tables, filled from engine/data/decktet.json.
cdef int8_t CARD_KIND[TC_N_CARDS]
cdef int8_t CARD_ORDER[TC_N_CARDS]    # Ace 0, 2..9 1..8, Pawn 9, Court 10, Crown 11
cdef int8_t CARD_VALUE[TC_N_CARDS]    # an event's rank: Ace 1, numbers their value, else 0
cdef uint8_t CARD_SUITS[TC_N_CARDS]   # bit s: the card shows suit s

cdef void tc_new_game(TCState* s, int n_players, uint64_t seed) noexcept nogil
cdef int tc_legal_actions(TCState* s, int* out) noexcept nogil
cdef bint tc_is_legal(TCState* s, int action) noexcept nogil
cdef void tc_apply(TCState* s, int action) noexcept nogil
# tc_apply writing what the rules did into `t` (NULL: nothing, tc_apply itself).
cdef void tc_apply_traced(TCState* s, int action, Trace* t) noexcept nogil
cdef void tc_make_view(TCState* s, int seat) noexcept nogil
cdef void tc_determinize(TCState* s, uint64_t seed) noexcept nogil
cdef int tc_winners_mask(TCState* s) noexcept nogil
# The cards face up in front of `seat`, in id order (bit i of a reveal: the i-th).
cdef int drafted_cards(TCState* s, int seat, int* out) noexcept nogil


cdef class TheCouncilState:
    cdef TCState s
    cdef bytes _events       # the trace of the last apply on this object (None: none)
