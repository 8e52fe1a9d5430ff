# Flat game state of Council of Four and the nogil rules functions the search calls.
# Everything is a fixed-size array of small ints so that clone is one struct copy.

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t

from council.engine._random cimport next_random, random_below
from council.engine._trace cimport Trace

cdef enum:
    MAX_PLAYERS = 4
    N_CITIES = 15
    N_REGIONS = 3
    N_COLOURS = 6            # councillor / politics card colours
    N_CARD_KINDS = 7         # 6 colours + joker
    JOKER = 6
    N_BALCONIES = 4          # 3 regions + the king's council
    KING_BALCONY = 3
    BALCONY_SIZE = 4
    N_TILES = 45
    TILES_PER_REGION = 15
    N_TOKENS = 14
    N_CITY_COLOURS = 4
    N_BONUS_TILES = 7        # coast, hills, mountains, gold, silver, bronze, iron
    N_KING_TILES = 5
    N_BONUS_KEYS = 6         # VP, coins, assistants, politics, nobility, main_action
    NOBILITY_MAX = 20
    MAX_PENDING = 16
    MAX_EMPORIUMS = 10
    N_PAYMENTS = 329         # multisets of 1..4 cards over the 7 card kinds

# Action space: one fixed range of integers (documented in council.engine.council_of_four_actions).
cdef enum:
    A_END_TURN = 0
    A_ELECT = 1              # + balcony*6 + colour (main action, gains coins)
    A_ACQUIRE = 25           # + region*2 + slot; the payment follows as a PAY decision
    A_BUILD_PERMIT = 31      # + tile*3 + k (k-th city on the tile)
    A_BUILD_KING = 166       # + city; the payment follows as a PAY decision
    A_ENGAGE = 181
    A_CHANGE = 182           # + region
    A_QUICK_ELECT = 185      # + balcony*6 + colour (costs 1 assistant)
    A_EXTRA_MAIN = 209
    A_PAY = 210              # + payment index
    A_CHOOSE_TOKEN = 539     # + city (nobility spaces 4 and 16)
    A_CHOOSE_FREE_PERMIT = 554   # + region*2 + slot (nobility space 10)
    A_CHOOSE_PERMIT_BONUS = 560  # + tile (nobility space 14)
    N_ACTIONS = 605

# Action kinds, in action-id order (council.engine.council_of_four_actions names them the same way).
cdef enum:
    K_END_TURN = 0
    K_ELECT = 1
    K_ACQUIRE = 2
    K_BUILD_PERMIT = 3
    K_BUILD_KING = 4
    K_ENGAGE = 5
    K_CHANGE = 6
    K_QUICK_ELECT = 7
    K_EXTRA_MAIN = 8
    K_PAY = 9
    K_CHOOSE_TOKEN = 10
    K_CHOOSE_FREE_PERMIT = 11
    K_CHOOSE_PERMIT_BONUS = 12
    N_KINDS = 13


cdef inline int action_kind(int a) noexcept nogil:
    if a == A_END_TURN:
        return K_END_TURN
    if a < A_ACQUIRE:
        return K_ELECT
    if a < A_BUILD_PERMIT:
        return K_ACQUIRE
    if a < A_BUILD_KING:
        return K_BUILD_PERMIT
    if a < A_ENGAGE:
        return K_BUILD_KING
    if a == A_ENGAGE:
        return K_ENGAGE
    if a < A_QUICK_ELECT:
        return K_CHANGE
    if a < A_EXTRA_MAIN:
        return K_QUICK_ELECT
    if a == A_EXTRA_MAIN:
        return K_EXTRA_MAIN
    if a < A_CHOOSE_TOKEN:
        return K_PAY
    if a < A_CHOOSE_FREE_PERMIT:
        return K_CHOOSE_TOKEN
    if a < A_CHOOSE_PERMIT_BONUS:
        return K_CHOOSE_FREE_PERMIT
    return K_CHOOSE_PERMIT_BONUS


# Pending decisions (a FIFO queue; the head is the decision to take now).
cdef enum:
    P_PAY_PERMIT = 1         # arg = region*2 + slot
    P_PAY_KING = 2           # arg = destination city
    P_TOKEN = 3              # one city token bonus
    P_TOKEN_PAIR_FIRST = 4   # first of two different city tokens
    P_TOKEN_PAIR_SECOND = 5  # arg = the first city; the second must have a higher index
    P_FREE_PERMIT = 6
    P_PERMIT_BONUS = 7

# The kinds of event an action's rules write into a trace (engine/_trace.pxd), with their
# seat and args; EVENT_KINDS names them in this order.
cdef enum:
    EV_ACTION = 0            # seat: the mover; action id
    EV_COINS = 1             # change in the seat's coins
    EV_ASSISTANTS = 2        # change in the seat's assistants
    EV_DRAW = 3              # the politics card kind drawn (named to no other seat)
    EV_MAIN_ACTIONS = 4      # main actions gained this turn
    EV_ELECT = 5             # balcony, colour elected, colour leaving
    EV_ACQUIRE = 6           # region, slot, tile chosen (its council is paid next)
    EV_USE_PERMIT = 7        # tile used to build
    EV_KING_TARGET = 8       # city the king goes to (his council is paid next)
    EV_ENGAGE = 9            # coins paid for the assistant
    EV_CHANGE = 10           # region, the two face-up tiles put under its deck (-1: none)
    EV_EXTRA_MAIN = 11       # assistants paid
    EV_PAY = 12              # payment index, its coins, the balcony paid (KING_BALCONY: king's)
    EV_KING_MOVE = 13        # from city, to city, roads, coins
    EV_BUILD = 14            # city, assistants paid to the other emporiums there
    EV_TENTH_EMPORIUM = 15   # VP of the first tenth emporium
    EV_TOKEN = 16            # city, its token: a city token's bonus gained (RULINGS 11)
    EV_TAKE_PERMIT = 17      # tile taken, its bonus gained
    EV_PERMIT_BONUS = 18     # tile whose bonus is gained again
    EV_NOBILITY = 19         # from space, to space
    EV_NOBILITY_SPACE = 20   # space whose bonus (or choice) is gained (RULINGS 13)
    EV_BONUS_TILE = 21       # bonus tile, its VP
    EV_KING_TILE = 22        # king's reward tile (its index), its VP
    EV_FACE_UP = 23          # no seat; region, slot, tile turned face up
    EV_NEXT_TURN = 24        # no seat; the seat whose turn begins
    EV_GAME_OVER = 25        # no seat: final scoring follows
    EV_FINAL_TRACK = 26      # the seat's VP track before final scoring
    EV_FINAL_BONUS_TILE = 27  # bonus tile held, its VP, scored
    EV_FINAL_KING_TILE = 28  # king's reward tile held, its VP, scored
    EV_AWARD = 29            # AWARD_*, its VP (RULINGS 17)
    EV_FINAL = 30            # the seat's final VP, its assistants and politics cards held
    EV_WINNERS = 31          # no seat; the winners' bit mask (RULINGS 9)
    EV_SCORE = 32            # change in the seat's score (provisional VP)

# The awards of final scoring (EV_AWARD), in AWARD_NAMES' order.
cdef enum:
    AWARD_NOBILITY_FIRST = 0
    AWARD_NOBILITY_SECOND = 1
    AWARD_MOST_PERMITS = 2

ctypedef struct GameState:
    # configuration
    int8_t n_players
    int8_t layout
    int16_t max_coins
    int16_t assistant_supply     # 0 = unlimited
    uint8_t permit_tie_all       # every player tied for most permit tiles scores
    uint8_t nobility_on_pass     # spaces passed over pay too
    # chance
    uint64_t rng
    # board
    int8_t city_token[N_CITIES]  # token index, -1 on the king's city
    int8_t king_city
    int8_t balcony[N_BALCONIES][BALCONY_SIZE]   # slot 0 = newest, slot 3 falls out next
    int8_t pool[N_COLOURS]
    int8_t permit_deck[N_REGIONS][TILES_PER_REGION]  # index 0 = top
    int8_t deck_n[N_REGIONS]
    int8_t deck_known[N_REGIONS]  # the last deck_known tiles are publicly known (put under)
    int8_t face_up[N_REGIONS][2]  # -1 = empty slot
    int16_t politics_deck[N_CARD_KINDS]
    int16_t politics_deck_n
    int16_t discard[N_CARD_KINDS]
    uint8_t bonus_tiles_left     # bit i = bonus tile i still on the board
    int8_t king_tiles_taken
    uint16_t neutral             # cities holding a neutral emporium (2 players)
    # players
    int16_t coins[MAX_PLAYERS]
    int16_t assistants[MAX_PLAYERS]
    int16_t vp[MAX_PLAYERS]
    int8_t nobility[MAX_PLAYERS]
    int16_t hand[MAX_PLAYERS][N_CARD_KINDS]
    int16_t hand_n[MAX_PLAYERS]
    uint16_t emporia[MAX_PLAYERS]
    int8_t emporia_n[MAX_PLAYERS]
    uint64_t permits_up[MAX_PLAYERS]
    uint64_t permits_down[MAX_PLAYERS]
    uint8_t bonus_tiles[MAX_PLAYERS]
    uint8_t king_tiles[MAX_PLAYERS]   # bit i = the i-th king reward tile
    # turn
    int8_t current
    int8_t main_left             # main actions still available this turn
    int8_t main_done             # main actions done this turn
    uint8_t quick_used
    int8_t end_trigger           # player who built the first 10th emporium, or -1
    uint8_t game_over
    int8_t pending_n
    int8_t pending_kind[MAX_PENDING]
    int8_t pending_arg[MAX_PENDING]
    int32_t turn
    int32_t action_count
    int8_t viewer                # -1: full state; else a view of that seat

# Board tables, filled once from council.engine.council_of_four_board when _core is imported.
cdef int8_t CITY_REGION[N_CITIES]
cdef int8_t LAYOUT_COLOUR[8][N_CITIES]          # -1 = king's city
cdef int8_t LAYOUT_KING[8]
cdef int8_t LAYOUT_DIST[8][N_CITIES][N_CITIES]
cdef uint16_t LAYOUT_ADJ[8][N_CITIES]          # neighbour bitmask
cdef uint16_t LAYOUT_COLOUR_MASK[8][N_CITY_COLOURS]
cdef uint16_t REGION_MASK[N_REGIONS]
cdef int16_t TOKEN_BONUS[N_TOKENS][N_BONUS_KEYS]
cdef uint8_t TOKEN_HAS_NOBILITY[N_TOKENS]
cdef int16_t TILE_BONUS[N_TILES][N_BONUS_KEYS]
cdef int8_t TILE_CITIES[N_TILES][3]             # -1 padded
cdef int8_t TILE_NCITIES[N_TILES]
cdef int16_t NOB_BONUS[NOBILITY_MAX + 1][N_BONUS_KEYS]
cdef int8_t NOB_CHOICE[NOBILITY_MAX + 1]         # 0 or a P_* pending kind
cdef int16_t BONUS_TILE_VP[N_BONUS_TILES]
cdef int16_t KING_TILE_VP[N_KING_TILES]
cdef int16_t COUNCIL_COST[5]
cdef int8_t PAY_COUNTS[N_PAYMENTS][N_CARD_KINDS]
cdef int8_t PAY_SIZE[N_PAYMENTS]
cdef int16_t START_COINS[MAX_PLAYERS]
cdef int16_t START_ASSISTANTS[MAX_PLAYERS]


# The rule numbers of board.json (council.engine.council_of_four_board.RULE_NUMBERS) besides
# the council costs and starting resources above; _council_of_four.rule_numbers() gives them
# back in that form.
ctypedef struct RuleNumbers:
    int start_hand                       # politics cards dealt to each player
    int cards_per_kind[N_CARD_KINDS]     # politics cards of each colour, then jokers
    int politics_cards                   # all of them
    int councillors_per_colour
    int joker_cost                       # coins each joker adds to a council payment
    int elect_coins                      # gained by the main action elect
    int king_cost_per_road
    int engage_coins                     # the price of an assistant
    int extra_main_assistants            # the price of an extra main action
    int tenth_emporium_vp                # to the first player to build all emporiums
    int nobility_first_vp
    int nobility_second_vp
    int most_permits_vp

cdef RuleNumbers RULES

# Bonus key order in the tables: VP, coins, assistants, politics, nobility, main_action.
cdef enum:
    B_VP = 0
    B_COINS = 1
    B_ASSISTANTS = 2
    B_POLITICS = 3
    B_NOBILITY = 4
    B_MAIN = 5

cdef int legal_actions(GameState* s, int* out) noexcept nogil
cdef bint is_legal(GameState* s, int action) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
# apply_action writing what the rules did into `t` (NULL: nothing, apply_action itself).
cdef void apply_traced(GameState* s, int action, Trace* t) noexcept nogil
cdef void setup_game(GameState* s, int n_players, int layout, int max_coins,
                     int assistant_supply, bint permit_tie_all, bint nobility_on_pass,
                     uint64_t seed) noexcept nogil
cdef int random_playout(GameState* s, int max_actions) noexcept nogil
cdef void make_view(GameState* s, int player) noexcept nogil
cdef void deal_hidden_hands(GameState* s, int viewer, uint64_t* rng) noexcept nogil
cdef void determinize(GameState* s, uint64_t seed) noexcept nogil
cdef int provisional_vp(GameState* s, int p) noexcept nogil
cdef void end_awards(GameState* s, int* award) noexcept nogil
cdef int winners_mask(GameState* s) noexcept nogil
cdef int min_payment_cost(GameState* s, int p, int b) noexcept nogil


# Small helpers with their bodies here, so that every module that cimports them inlines
# them (an inline function only declared here would be called through the module's
# function table): the search calls them on every rollout step.

# Coins a payment costs: its size's base cost plus the price of its jokers.
cdef inline int payment_cost(int pay) noexcept nogil:
    return COUNCIL_COST[PAY_SIZE[pay]] + RULES.joker_cost * PAY_COUNTS[pay][JOKER]


# Coins the king's move from his city to `city` costs.
cdef inline int king_travel_cost(GameState* s, int city) noexcept nogil:
    return RULES.king_cost_per_road * LAYOUT_DIST[s.layout][s.king_city][city]


cdef class CouncilOfFourState:
    cdef GameState s
    cdef bytes _events       # the trace of the last apply on this object (None: none)
