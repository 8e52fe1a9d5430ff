# Flat game state of A War of Whispers and the nogil rules functions a search calls.
# Rules and rulings (AW1 ...): docs/a-war-of-whispers.md. The map, the councils' options
# and the cards are content (engine/a_war_of_whispers_content.py), loaded into the tables
# below; the sizes here are the content schema's bounds.

from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t

from council.engine._trace cimport Trace

cdef enum:
    AW_MIN_PLAYERS = 2
    AW_MAX_PLAYERS = 4
    AW_N_EMPIRES = 5          # Bear, Lion, Horse, Elephant, Eagle: the turn order
    AW_N_SEATS = 4            # Sheriff, Steward, Marshal, Chancellor: the resolution order
    AW_N_COUNCIL_SEATS = 20   # empire * AW_N_SEATS + seat
    AW_MAX_REGIONS = 32
    AW_MAX_ADJACENT = 8
    AW_MAX_CARDS = 40
    AW_MAX_ABILITIES = 3
    AW_MAX_EFFECT = 3
    AW_MAX_OPTIONS = 4
    AW_ROUNDS = 4
    AW_HAND_LIMIT = 5
    AW_BANNERS = 20           # banner cubes per empire
    AW_SUPPLY = 4             # banners a region keeps at its empire's supply check
    AW_SUPPLY_FARM = 6
    AW_N_LOYALTY = 5          # Devout x4, Dutiful x3, Affiliated x2, Unallied x0, Opposed x-1
    AW_MAX_COUNT = 20
    AW_MAP_AGENTS = 2         # agents a player may have on the map (AW22)

# Action space: one fixed range of integers.
cdef enum:
    WA_DEPLOY = 0             # + council seat: place an agent there
    WA_RETRIEVE = 20          # + council seat: take one's agent back
    WA_OPTION = 40            # + option index: the acting seat's option
    WA_REGION = 44            # + region: the region the step asks for
    WA_COUNT = 76             # + n - 1: move n banners
    WA_SEAT = 96              # + seat of the active council: swap with / move the agent to
    WA_PLAY = 100             # + card * 3 + ability: play a card's ability
    WA_PAY = 220              # + card: discard it towards the ability's cost
    WA_DISCARD = 260          # + card: discard it down to the hand limit (Cleanup)
    WA_LOYALTY = 300          # + pair: swap two of one's unrevealed loyalty tokens
    # Done: end the card window after an action; pass (no valid action; no loyalty swap).
    WA_DONE = 310
    WA_DEPLOY_MAP = 311       # + region: place an agent there (the advanced rule, AW22)
    AW_N_ACTIONS = 343

cdef enum:
    PH_RETRIEVE = 0
    PH_DEPLOY = 1
    PH_TURNS = 2
    PH_CLEANUP = 3
    PH_SWAP = 4
    PH_OVER = 5

# The steps of an empire turn (PH_TURNS).
cdef enum:
    ST_CHOOSE = 0             # the acting seat's option, or a card before it
    ST_AFTER = 1              # cards after the action, or done
    ST_PAY = 2                # the cards paying an ability's cost
    ST_ADD = 3                # the region of the next banner added
    ST_REMOVE = 4             # the region banners are removed from
    ST_FROM = 5               # an attack's or move's origin
    ST_TO = 6                 # its destination
    ST_COUNT = 7              # how many banners go
    ST_SEAT = 8               # the seat to swap with or move the agent to

# Operations (OPERATIONS' order in a_war_of_whispers_content.py).
cdef enum:
    OP_ADD = 0
    OP_ATTACK = 1
    OP_DRAW = 2
    OP_DRAW_ICONS = 3
    OP_SWAP = 4
    OP_REMOVE = 5
    OP_MOVE = 6
    OP_MOVE_AGENT = 7
    OP_RAZE = 8

cdef enum:
    TG_CARD = 0               # a card's operation acts for the card's empire
    TG_ACTIVE = 1             # ... or for the empire whose turn it is

# The kinds of the event trace an apply writes (engine/_trace.pxd; EVENT_KINDS names them in
# this order). It is told from the state before and after the action: what changed, in a
# fixed order (the action, the agents, the map, the cards, the loyalties, the turn, the end).
cdef enum:
    AE_ACTION = 0             # seat: the mover; action id
    AE_AGENT = 1              # no seat; council seat, player before, player after (-1 open)
    AE_MAP_AGENT = 2          # seat: the player; region placed (-1: all taken back)
    AE_REGION = 3             # no seat; region, owner after, banners after, banners before
    AE_DRAW = 4               # seat: the drawer; empire, the card (-1: one drawn again)
    AE_DISCARD = 5            # seat: the player; card (played, paid or discarded)
    AE_LOYALTY_SWAP = 6       # seat: the player; the two empires whose tokens swapped
    AE_EMPIRE_TURN = 7        # no seat; the empire whose turn begins
    AE_ROUND = 8              # no seat; the round that begins
    AE_SCORE = 9              # seat: its final score, loyalty swaps, cards in hand (AW20)
    AE_WINNERS = 10           # no seat; the winners' mask, the tie-breaks applied

# Where a card is (card_loc).
cdef enum:
    LOC_DECK = 0
    LOC_HAND = 1              # + player
    LOC_UNKNOWN = 9           # in a view: in the deck or another player's hand
    LOC_ABSENT = 10           # no such card in the content

ctypedef struct AWState:
    uint64_t rng
    uint64_t content_tag      # the first 8 bytes of the content's digest
    int32_t action_count
    int8_t n_players
    int8_t agents_on_map      # 1: the advanced rule, agents on map regions (AW22)
    int8_t viewer             # -1: a full state; else the player whose view this is
    int8_t phase
    int8_t step               # PH_TURNS: ST_*
    int8_t current            # the player to act; -1 once the game is over
    int8_t round              # 1 .. AW_ROUNDS
    int8_t first_player
    int8_t turn_i             # players done in this phase (retrieve, cleanup, swap)
    int8_t deploy_i           # agents placed this round
    int8_t empire             # the active empire (PH_TURNS)
    int8_t seat               # the seat being resolved (0 .. 3)
    int8_t acting_seat        # whose options the actor takes (after a swap: the new seat)
    int8_t actor              # the player controlling the seat
    int8_t followup           # 1: acting for a seat reached by a swap or an agent's move
    int8_t seats_done         # bit k: seat k of this council already acted (AW12)
    int8_t return_step        # ST_CHOOSE or ST_AFTER: where the queued operations return
    int8_t op_n
    int8_t op_i
    int8_t op_kind[AW_MAX_EFFECT]
    int8_t op_amount[AW_MAX_EFFECT]
    int8_t op_empire[AW_MAX_EFFECT]
    int8_t cur_op             # the operation being resolved
    int8_t cur_empire         # for whom
    int8_t left               # banners still to add, remove or move at most
    int8_t from_region
    int8_t to_region
    int8_t paying_card        # the card whose ability is being paid for (-1: none)
    int8_t paying_ability
    int8_t owed[AW_N_EMPIRES]  # symbols still to discard
    int8_t agent[AW_N_COUNCIL_SEATS]   # the player whose agent is there, -1 open
    int8_t map_agent[AW_MAX_PLAYERS][AW_MAP_AGENTS]  # regions of a player's map agents, -1
    int8_t owner[AW_MAX_REGIONS]       # the empire with banners there, -1 empty
    int8_t banners[AW_MAX_REGIONS]
    int8_t supply[AW_N_EMPIRES]        # banners not on the map
    int8_t card_loc[AW_MAX_CARDS]
    int8_t hand_count[AW_MAX_PLAYERS][AW_N_EMPIRES]   # public: draws name their deck
    int8_t loyalty[AW_MAX_PLAYERS][AW_N_EMPIRES]      # slot (0: x4 ... 4: x-1); -1 hidden
    int8_t revealed[AW_MAX_PLAYERS][AW_N_EMPIRES]
    int8_t swaps[AW_MAX_PLAYERS]
    int16_t score[AW_MAX_PLAYERS]      # set when the game ends


# Content tables, filled by use_content().
cdef int N_REGIONS
cdef int N_CARDS
cdef int8_t REGION_EMPIRE[AW_MAX_REGIONS]
cdef int8_t REGION_N_ADJ[AW_MAX_REGIONS]
cdef int8_t REGION_ADJ[AW_MAX_REGIONS][AW_MAX_ADJACENT]
cdef int8_t REGION_CITIES[AW_MAX_REGIONS]
cdef int8_t REGION_FORT[AW_MAX_REGIONS]
cdef int8_t REGION_FARM[AW_MAX_REGIONS]
cdef int8_t REGION_ICON[AW_MAX_REGIONS]
cdef int8_t REGION_START[AW_MAX_REGIONS]
cdef int8_t SEAT_N_OPTIONS[AW_N_EMPIRES][AW_N_SEATS]
cdef int8_t SEAT_OP[AW_N_EMPIRES][AW_N_SEATS][AW_MAX_OPTIONS]
cdef int8_t SEAT_AMOUNT[AW_N_EMPIRES][AW_N_SEATS][AW_MAX_OPTIONS]
cdef int8_t CARD_EMPIRE[AW_MAX_CARDS]
cdef int8_t CARD_N_ABILITIES[AW_MAX_CARDS]
cdef int8_t ABILITY_EXTRA[AW_MAX_CARDS][AW_MAX_ABILITIES][AW_N_EMPIRES]  # beyond the card
cdef int8_t ABILITY_N_OPS[AW_MAX_CARDS][AW_MAX_ABILITIES]
cdef int8_t ABILITY_OP[AW_MAX_CARDS][AW_MAX_ABILITIES][AW_MAX_EFFECT]
cdef int8_t ABILITY_AMOUNT[AW_MAX_CARDS][AW_MAX_ABILITIES][AW_MAX_EFFECT]
cdef int8_t ABILITY_TARGET[AW_MAX_CARDS][AW_MAX_ABILITIES][AW_MAX_EFFECT]

cdef void aw_new_game(AWState* s, int n_players, bint agents_on_map,
                      uint64_t seed) noexcept nogil
cdef int aw_legal_actions(AWState* s, int* out) noexcept nogil
cdef bint aw_is_legal(AWState* s, int action) noexcept nogil
cdef void aw_apply(AWState* s, int action) noexcept nogil
cdef void aw_apply_traced(AWState* s, int action, Trace* t) noexcept nogil
cdef void aw_make_view(AWState* s, int seat) noexcept nogil
cdef void aw_determinize(AWState* s, uint64_t seed) noexcept nogil
cdef int aw_winners_mask(AWState* s) noexcept nogil
cdef int aw_controller(AWState* s, int empire, int seat) noexcept nogil


cdef class AWarOfWhispersState:
    cdef AWState s
    cdef bytes _events       # the trace of the last apply (engine/_trace.pxd)
