"""Council of Four's position evaluation: per-seat features, the learned value network and
policy prior, the expert planner.

``seat_features`` describes each seat of a full state by what wins Council of Four: VP and
the end awards, the resources, the race to the 10th emporium, the region and colour bonus
races (with the king tile on top), the cities the held permits still open, the tokens the
next build would link, how the hand fits the four councils and what the king can reach.
The learned value model scores each seat from its row and takes the softmax over seats;
the expert agent weighs the same rows by hand and plans one decision ahead. Everything
runs without the GIL, so the search calls it at its leaves.
"""

from libc.math cimport exp, tanh
from libc.stdint cimport int16_t, uint16_t, uint64_t
from libc.string cimport memcpy

from council.engine._council_of_four cimport (
    GameState, CouncilOfFourState, legal_actions, apply_action, provisional_vp, end_awards,
    winners_mask,
    min_payment_cost, king_travel_cost, deal_hidden_hands, N_CARD_KINDS,
    MAX_PLAYERS, N_ACTIONS, N_CITIES, N_REGIONS, N_CITY_COLOURS, N_TILES, N_TOKENS,
    N_BONUS_KEYS, N_KING_TILES, KING_BALCONY, MAX_EMPORIUMS,
    REGION_MASK, LAYOUT_COLOUR_MASK, LAYOUT_ADJ, TOKEN_BONUS, TILE_CITIES, TILE_NCITIES,
    BONUS_TILE_VP, KING_TILE_VP, A_END_TURN, A_ELECT, A_ACQUIRE, A_BUILD_PERMIT,
    A_BUILD_KING, A_QUICK_ELECT, A_PAY, A_CHOOSE_TOKEN, A_CHOOSE_FREE_PERMIT,
    A_CHOOSE_PERMIT_BONUS, N_COLOURS, N_KINDS, JOKER, TILE_BONUS, PAY_COUNTS, PAY_SIZE,
    payment_cost, action_kind,
    K_ELECT, K_ACQUIRE, K_BUILD_PERMIT, K_BUILD_KING, K_QUICK_ELECT, K_PAY, K_CHOOSE_TOKEN,
    K_CHOOSE_FREE_PERMIT, K_CHOOSE_PERMIT_BONUS,
)
from council.engine._random cimport seed_word

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil

# Feature indices; FEATURE_NAMES below lists them in this order.
cdef enum:
    F_VP = 0
    F_AWARDS
    F_COINS
    F_ASSISTANTS
    F_CARDS
    F_EMPORIA
    F_PERMITS_UNUSED
    F_NOBILITY
    F_PERMIT_CITIES
    F_PERMIT_CITIES_AFFORDABLE
    F_GROUP_PROGRESS
    F_GROUPS_ONE_SHORT
    F_TOKEN_REACH
    F_REGION_COUNCILS_PAYABLE
    F_KING_COUNCIL_PAYABLE
    F_FACEUP_AFFORDABLE
    F_KING_REACHABLE
    F_COUNCIL_MATCHED
    F_TO_MOVE
    F_MAIN_LEFT_NOW
    F_VP_X_PROG
    F_EMPORIA_X_PROG
    F_PERMIT_CITIES_X_PROG
    F_COINS_X_PROG
    F_CARDS_X_PROG
    F_ASSISTANTS_X_PROG
    F_GROUP_PROGRESS_X_PROG
    F_NOBILITY_X_PROG
    F_PERMITS_UNUSED_X_PROG
    F_EMPORIA_LEAD_X_PROG
    F_VP_X_ENDING
    F_EMPORIA_X_ENDING

FEATURE_NAMES = (
    "vp", "awards", "coins", "assistants", "cards", "emporia", "permits_unused", "nobility",
    "permit_cities", "permit_cities_affordable", "group_progress", "groups_one_short",
    "token_reach", "region_councils_payable", "king_council_payable", "faceup_affordable",
    "king_reachable", "council_matched", "to_move", "main_left_now",
    "vp_x_prog", "emporia_x_prog", "permit_cities_x_prog", "coins_x_prog", "cards_x_prog",
    "assistants_x_prog", "group_progress_x_prog", "nobility_x_prog",
    "permits_unused_x_prog", "emporia_lead_x_prog", "vp_x_ending", "emporia_x_ending",
)
assert len(FEATURE_NAMES) == N_FEATURES
MAX_LEAF_REDEALS = MAX_REDEALS

# What one unit of each bonus key is worth in VP when a token's value is summed up
# (VP, coins, assistants, politics card, nobility step, extra main action).
cdef double BONUS_WORTH[N_BONUS_KEYS]
BONUS_WORTH[:] = [1.0, 0.4, 1.0, 0.8, 1.2, 3.0]

cdef double TOKEN_WORTH[N_TOKENS]
cdef int _t, _k
for _t in range(N_TOKENS):
    TOKEN_WORTH[_t] = 0.0
    for _k in range(N_BONUS_KEYS):
        TOKEN_WORTH[_t] += TOKEN_BONUS[_t][_k] * BONUS_WORTH[_k]

cdef enum:
    TERMINAL_WIN = 100000     # expert values of finished games: beyond any position value


cdef double linked_token_worth(GameState* s, int p, int city) noexcept nogil:
    """Worth of the tokens p would gain by building in `city`: its token and those of the
    cities linked to it through p's emporiums (RULINGS 11)."""
    cdef uint16_t own = s.emporia[p], visited = 1 << city, frontier = 1 << city, nxt
    cdef int c
    cdef double total = 0.0
    while frontier:
        nxt = 0
        for c in range(N_CITIES):
            if (frontier >> c) & 1:
                if s.city_token[c] >= 0:
                    total += TOKEN_WORTH[s.city_token[c]]
                nxt |= LAYOUT_ADJ[s.layout][c] & own
        frontier = nxt & ~visited
        visited |= frontier
    return total


# The features that read a seat's hand: the rest of its row is public.
cdef enum:
    N_HAND_FEATURES = 5
cdef int HAND_FEATURES[N_HAND_FEATURES]
HAND_FEATURES[:] = [F_REGION_COUNCILS_PAYABLE, F_KING_COUNCIL_PAYABLE, F_FACEUP_AFFORDABLE,
                    F_KING_REACHABLE, F_COUNCIL_MATCHED]


cdef void hand_features(GameState* s, int p, int* occupied, double* f) noexcept nogil:
    """The councils p's hand can pay now, the face-up tiles that opens, the king's reach
    (`occupied`: emporiums per city)."""
    cdef int b, c, slot, tile, i, cost, kc = -1, payable
    f[F_REGION_COUNCILS_PAYABLE] = 0
    f[F_FACEUP_AFFORDABLE] = 0
    f[F_COUNCIL_MATCHED] = 0
    for b in range(N_REGIONS + 1):
        cost = min_payment_cost(s, p, b)
        payable = 0 <= cost <= s.coins[p]
        if cost >= 0:
            f[F_COUNCIL_MATCHED] += 1
        if b == KING_BALCONY:
            f[F_KING_COUNCIL_PAYABLE] = payable
            kc = cost
        elif payable:
            f[F_REGION_COUNCILS_PAYABLE] += 1
            for slot in range(2):
                tile = s.face_up[b][slot]
                if tile < 0:
                    continue
                for i in range(TILE_NCITIES[tile]):
                    if not (s.emporia[p] >> TILE_CITIES[tile][i]) & 1:
                        f[F_FACEUP_AFFORDABLE] += 1
                        break
    f[F_KING_REACHABLE] = 0
    if kc >= 0:
        for c in range(N_CITIES):
            if ((s.emporia[p] >> c) & 1) == 0 and kc + king_travel_cost(s, c) <= s.coins[p] \
                    and occupied[c] <= s.assistants[p]:
                f[F_KING_REACHABLE] += 1


cdef void emporium_counts(GameState* s, int* occupied) noexcept nogil:
    """Emporiums in each city, the neutral ones included."""
    cdef int c, q
    for c in range(N_CITIES):
        occupied[c] = (s.neutral >> c) & 1
        for q in range(s.n_players):
            occupied[c] += (s.emporia[q] >> c) & 1


cdef void seat_features(GameState* s, double out[][N_FEATURES]) noexcept nogil:
    """Fill one feature row per seat of a full state (a determinization in the search)."""
    cdef int n = s.n_players, p, q, c, tile, i, g, owned, size
    cdef int occupied[N_CITIES]
    cdef int award[MAX_PLAYERS]
    cdef uint16_t open_cities, group
    cdef uint64_t tiles
    cdef double prog, value, best_reach, king_tile, ending
    cdef int max_emporia = 0
    cdef double* f
    end_awards(s, award)
    emporium_counts(s, occupied)
    for q in range(n):
        if s.emporia_n[q] > max_emporia:
            max_emporia = s.emporia_n[q]
    prog = max_emporia / <double>MAX_EMPORIUMS
    ending = 1.0 if s.end_trigger >= 0 else 0.0
    king_tile = KING_TILE_VP[s.king_tiles_taken] if s.king_tiles_taken < N_KING_TILES else 0.0
    for p in range(n):
        f = out[p]
        f[F_VP] = provisional_vp(s, p)
        f[F_AWARDS] = award[p]
        f[F_COINS] = s.coins[p]
        f[F_ASSISTANTS] = s.assistants[p]
        f[F_CARDS] = s.hand_n[p]
        f[F_EMPORIA] = s.emporia_n[p]
        f[F_PERMITS_UNUSED] = popcount64(s.permits_up[p])
        f[F_NOBILITY] = s.nobility[p]
        # Cities the unused permits still open, and the best tokens one of them links.
        open_cities = 0
        tiles = s.permits_up[p]
        for tile in range(N_TILES):
            if (tiles >> tile) & 1:
                for i in range(TILE_NCITIES[tile]):
                    open_cities |= 1 << TILE_CITIES[tile][i]
        open_cities &= ~s.emporia[p]
        f[F_PERMIT_CITIES] = popcount64(open_cities)
        f[F_PERMIT_CITIES_AFFORDABLE] = 0
        best_reach = 0.0
        for c in range(N_CITIES):
            if ((open_cities >> c) & 1
                    and occupied[c] - ((s.emporia[p] >> c) & 1) <= s.assistants[p]):
                f[F_PERMIT_CITIES_AFFORDABLE] += 1
                value = linked_token_worth(s, p, c)
                if value > best_reach:
                    best_reach = value
        f[F_TOKEN_REACH] = best_reach
        # Region and colour bonus races, each worth its tile plus the next king tile.
        f[F_GROUP_PROGRESS] = 0.0
        f[F_GROUPS_ONE_SHORT] = 0
        for g in range(N_REGIONS + N_CITY_COLOURS):
            if not (s.bonus_tiles_left >> g) & 1:
                continue
            group = REGION_MASK[g] if g < N_REGIONS else LAYOUT_COLOUR_MASK[s.layout][g - N_REGIONS]
            owned = popcount64(s.emporia[p] & group)
            size = popcount64(group)
            f[F_GROUP_PROGRESS] += ((BONUS_TILE_VP[g] + king_tile) * owned * owned
                                    / (<double>size * size))
            if size - owned == 1:
                f[F_GROUPS_ONE_SHORT] += 1
        hand_features(s, p, occupied, f)
        f[F_TO_MOVE] = 1.0 if s.current == p else 0.0
        f[F_MAIN_LEFT_NOW] = s.main_left if s.current == p else 0.0
        f[F_VP_X_PROG] = f[F_VP] * prog
        f[F_EMPORIA_X_PROG] = f[F_EMPORIA] * prog
        f[F_PERMIT_CITIES_X_PROG] = f[F_PERMIT_CITIES] * prog
        f[F_COINS_X_PROG] = f[F_COINS] * prog
        f[F_CARDS_X_PROG] = f[F_CARDS] * prog
        f[F_ASSISTANTS_X_PROG] = f[F_ASSISTANTS] * prog
        f[F_GROUP_PROGRESS_X_PROG] = f[F_GROUP_PROGRESS] * prog
        f[F_NOBILITY_X_PROG] = f[F_NOBILITY] * prog
        f[F_PERMITS_UNUSED_X_PROG] = f[F_PERMITS_UNUSED] * prog
        f[F_VP_X_ENDING] = f[F_VP] * ending
        f[F_EMPORIA_X_ENDING] = f[F_EMPORIA] * ending
    for p in range(n):
        value = -MAX_EMPORIUMS
        for q in range(n):
            if q != p and s.emporia_n[q] - s.emporia_n[p] > value:
                value = s.emporia_n[q] - s.emporia_n[p]
        out[p][F_EMPORIA_LEAD_X_PROG] = -value * prog


cdef inline double standardized(ValueNet* net, double* f, int i) noexcept nogil:
    return (f[i] - net.mean[i]) / net.scale[i]


cdef void first_layer(ValueNet* net, double* f, double* pre) noexcept nogil:
    """pre = W1 z + b1 for the standardized row z of f (hidden == 0: pre[0] = w . z)."""
    cdef int i, h
    cdef double z[N_FEATURES]
    for i in range(N_FEATURES):
        z[i] = standardized(net, f, i)
    if net.hidden == 0:
        pre[0] = 0.0
        for i in range(N_FEATURES):
            pre[0] += net.w[i] * z[i]
        return
    for h in range(net.hidden):
        pre[h] = net.b1[h]
        for i in range(N_FEATURES):
            pre[h] += net.w1[h][i] * z[i]


cdef double output_layer(ValueNet* net, double* pre) noexcept nogil:
    """A seat's score from its first layer."""
    cdef int h
    cdef double s = 0.0
    if net.hidden == 0:
        return pre[0]
    for h in range(net.hidden):
        s += net.w2[h] * tanh(pre[h])
    return s


cdef double seat_score(ValueNet* net, double* f) noexcept nogil:
    cdef double pre[MAX_HIDDEN]
    first_layer(net, f, pre)
    return output_layer(net, pre)


cdef inline void softmax_in_place(double* x, int n, double top) noexcept nogil:
    """x <- softmax(x); `top` is max(x), subtracted so exp never overflows."""
    cdef double z = 0.0
    cdef int i
    for i in range(n):
        x[i] = exp(x[i] - top)
        z += x[i]
    for i in range(n):
        x[i] /= z


cdef void value_win_chances(GameState* s, ValueNet* net, double* win) noexcept nogil:
    """Win chance of every seat of an unfinished full state by the learned model."""
    cdef double rows[MAX_PLAYERS][N_FEATURES]
    cdef double top = -1e300
    cdef int p, n = s.n_players
    seat_features(s, rows)
    for p in range(n):
        win[p] = seat_score(net, rows[p])
        if win[p] > top:
            top = win[p]
    softmax_in_place(win, n, top)


cdef double hand_score(ValueNet* net, double* f, double* public, int* seen_key,
                       double* seen_score, int* n_seen) noexcept nogil:
    """A seat's score from the first layer of the public part of its row and the hand
    features in f, remembering each distinct hand-feature combination (few hands differ
    in them: most redeals repeat one)."""
    cdef double pre[MAX_HIDDEN]
    cdef double z, score
    cdef int j, i, h, key = 0
    for j in range(N_HAND_FEATURES):    # each a count below 32
        key = key * 32 + <int>f[HAND_FEATURES[j]]
    for j in range(n_seen[0]):
        if seen_key[j] == key:
            return seen_score[j]
    memcpy(pre, public, (net.hidden if net.hidden > 0 else 1) * sizeof(double))
    for j in range(N_HAND_FEATURES):
        i = HAND_FEATURES[j]
        z = standardized(net, f, i)
        if net.hidden == 0:
            pre[0] += net.w[i] * z
        else:
            for h in range(net.hidden):
                pre[h] += net.w1[h][i] * z
    score = output_layer(net, pre)
    if n_seen[0] < MAX_REDEALS:
        seen_key[n_seen[0]] = key
        seen_score[n_seen[0]] = score
        n_seen[0] += 1
    return score


cdef void redealt_win_chances(GameState* s, ValueNet* net, int viewer, int redeals,
                              uint64_t* rng, double* win) noexcept nogil:
    """Win chances of every seat of an unfinished full state as seat `viewer` sees it: the
    learned model's mean over `redeals` deals of the politics cards it cannot see
    (docs/learning.md). Between deals only the other seats' hand features change, so only
    they are recomputed and added to the first layer of the rest of their rows. The
    state's hands and deck are put back as they were."""
    cdef double rows[MAX_PLAYERS][N_FEATURES]
    cdef double public[MAX_PLAYERS][MAX_HIDDEN]
    cdef double score[MAX_PLAYERS]
    cdef double chances[MAX_PLAYERS]
    cdef int seen_key[MAX_PLAYERS][MAX_REDEALS]
    cdef double seen_score[MAX_PLAYERS][MAX_REDEALS]
    cdef int n_seen[MAX_PLAYERS]
    cdef int16_t hands[MAX_PLAYERS][N_CARD_KINDS]
    cdef int16_t deck[N_CARD_KINDS]
    cdef int occupied[N_CITIES]
    cdef int n = s.n_players, p, j, _k
    cdef double top
    memcpy(hands, s.hand, sizeof(hands))
    memcpy(deck, s.politics_deck, sizeof(deck))
    seat_features(s, rows)
    emporium_counts(s, occupied)
    for p in range(n):
        win[p] = 0.0
        n_seen[p] = 0
        if p == viewer:
            score[p] = seat_score(net, rows[p])
        else:
            for j in range(N_HAND_FEATURES):    # standardized to 0: the public part alone
                rows[p][HAND_FEATURES[j]] = net.mean[HAND_FEATURES[j]]
            first_layer(net, rows[p], public[p])
    for _k in range(redeals):
        deal_hidden_hands(s, viewer, rng)
        top = -1e300
        for p in range(n):
            if p != viewer:
                hand_features(s, p, occupied, rows[p])
                score[p] = hand_score(net, rows[p], public[p], seen_key[p], seen_score[p],
                                      &n_seen[p])
            chances[p] = score[p]
            if score[p] > top:
                top = score[p]
        softmax_in_place(chances, n, top)
        for p in range(n):
            win[p] += chances[p] / redeals
    memcpy(s.hand, hands, sizeof(hands))
    memcpy(s.politics_deck, deck, sizeof(deck))


cdef int fill_value_net(ValueNet* net, object model) except -1:
    """Copy a council.mcts.value_model.ValueModel's arrays into the C struct."""
    cdef int i, h
    if len(model.mean) != N_FEATURES:
        raise ValueError(f"value model has {len(model.mean)} features, the search {N_FEATURES}")
    net.hidden = 0 if model.w1 is None else len(model.b1)
    if net.hidden > MAX_HIDDEN:
        raise ValueError(f"value model has {net.hidden} hidden units, at most {MAX_HIDDEN}")
    for i in range(N_FEATURES):
        net.mean[i] = model.mean[i]
        net.scale[i] = model.scale[i] if model.scale[i] > 0 else 1.0
        net.w[i] = 0.0 if model.w is None else model.w[i]
    for h in range(net.hidden):
        net.b1[h] = model.b1[h]
        net.w2[h] = model.w2[h]
        for i in range(N_FEATURES):
            net.w1[h][i] = model.w1[i][h]
    return 0


# ---------------------------------------------------------------------------------------
# Action features and the learned policy prior.

# Feature indices of an action; ACTION_FEATURE_NAMES lists them in this order. The first
# N_KINDS are the action's kind (one-hot), so the prior is factored by kind.
cdef enum:
    AF_PAY_COST = N_KINDS
    AF_PAY_CARDS
    AF_PAY_JOKERS
    AF_BUILD_TOKEN_WORTH
    AF_BUILD_ASSISTANTS
    AF_BUILD_GROUPS
    AF_TILE_OPEN_CITIES
    AF_TILE_BONUS_WORTH
    AF_KING_COST
    AF_ELECT_COLOUR_CARDS
    AF_TOKEN_WORTH

ACTION_FEATURE_NAMES = (
    "end_turn", "elect", "acquire", "build_permit", "build_king", "engage", "change",
    "quick_elect", "extra_main", "pay", "choose_token", "choose_free_permit",
    "choose_permit_bonus", "pay_cost", "pay_cards", "pay_jokers", "build_token_worth",
    "build_assistants", "build_groups", "tile_open_cities", "tile_bonus_worth", "king_cost",
    "elect_colour_cards", "token_worth",
)
assert len(ACTION_FEATURE_NAMES) == N_ACTION_FEATURES


cdef double tile_worth(int tile) noexcept nogil:
    cdef int k
    cdef double v = 0.0
    for k in range(N_BONUS_KEYS):
        v += TILE_BONUS[tile][k] * BONUS_WORTH[k]
    return v


cdef int tile_open_cities(GameState* s, int p, int tile) noexcept nogil:
    cdef int i, n = 0
    for i in range(TILE_NCITIES[tile]):
        n += not (s.emporia[p] >> TILE_CITIES[tile][i]) & 1
    return n


cdef void build_features(GameState* s, int p, int city, double* out) noexcept nogil:
    """What building in `city` brings: linked tokens, assistants owed, groups completed."""
    cdef int q, g, others = (s.neutral >> city) & 1
    cdef uint16_t own = s.emporia[p] | (1 << city), group
    for q in range(s.n_players):
        if q != p:
            others += (s.emporia[q] >> city) & 1
    out[AF_BUILD_TOKEN_WORTH] = linked_token_worth(s, p, city)
    out[AF_BUILD_ASSISTANTS] = others
    out[AF_BUILD_GROUPS] = 0
    for g in range(N_REGIONS + N_CITY_COLOURS):
        if (s.bonus_tiles_left >> g) & 1:
            group = REGION_MASK[g] if g < N_REGIONS else LAYOUT_COLOUR_MASK[s.layout][g - N_REGIONS]
            if (group >> city) & 1 and (own & group) == group:
                out[AF_BUILD_GROUPS] += 1


cdef void action_features(GameState* s, int a, double* out) noexcept nogil:
    """Features of legal action `a` for the seat to move (no action is applied)."""
    cdef int i, k = action_kind(a), p = s.current, tile, b, c
    for i in range(N_ACTION_FEATURES):
        out[i] = 0.0
    out[k] = 1.0
    if k == K_PAY:
        a -= A_PAY
        out[AF_PAY_COST] = payment_cost(a)
        out[AF_PAY_CARDS] = PAY_SIZE[a]
        out[AF_PAY_JOKERS] = PAY_COUNTS[a][JOKER]
    elif k == K_BUILD_PERMIT:
        tile = (a - A_BUILD_PERMIT) // 3
        build_features(s, p, TILE_CITIES[tile][(a - A_BUILD_PERMIT) % 3], out)
    elif k == K_BUILD_KING:
        c = a - A_BUILD_KING
        build_features(s, p, c, out)
        out[AF_KING_COST] = king_travel_cost(s, c) + min_payment_cost(s, p, KING_BALCONY)
    elif k == K_ACQUIRE or k == K_CHOOSE_FREE_PERMIT:
        i = a - (A_ACQUIRE if k == K_ACQUIRE else A_CHOOSE_FREE_PERMIT)
        tile = s.face_up[i >> 1][i & 1]
        if tile >= 0:
            out[AF_TILE_OPEN_CITIES] = tile_open_cities(s, p, tile)
            out[AF_TILE_BONUS_WORTH] = tile_worth(tile)
    elif k == K_CHOOSE_PERMIT_BONUS:
        out[AF_TILE_BONUS_WORTH] = tile_worth(a - A_CHOOSE_PERMIT_BONUS)
    elif k == K_ELECT or k == K_QUICK_ELECT:
        b = (a - (A_ELECT if k == K_ELECT else A_QUICK_ELECT)) % N_COLOURS
        out[AF_ELECT_COLOUR_CARDS] = s.hand[p][b]
    elif k == K_CHOOSE_TOKEN:
        c = a - A_CHOOSE_TOKEN
        if s.city_token[c] >= 0:
            out[AF_TOKEN_WORTH] = TOKEN_WORTH[s.city_token[c]]


cdef void policy_priors(GameState* s, int* actions, int n, PolicyNet* net,
                        double* prior) noexcept nogil:
    """Prior probabilities of the legal actions (softmax of the policy's logits). Only the
    features an action's kind can have are computed: the search calls this at every step."""
    cdef double phi[N_ACTION_FEATURES]
    cdef double top = -1e300, logit
    cdef double* w = net.wk
    cdef int i, j, a, k, p = s.current
    for i in range(n):
        a = actions[i]
        k = action_kind(a)
        logit = w[k]
        if k == K_PAY:
            a -= A_PAY
            logit += (w[AF_PAY_COST] * payment_cost(a) + w[AF_PAY_CARDS] * PAY_SIZE[a]
                      + w[AF_PAY_JOKERS] * PAY_COUNTS[a][JOKER])
        elif k == K_ELECT:
            logit += w[AF_ELECT_COLOUR_CARDS] * s.hand[p][(a - A_ELECT) % N_COLOURS]
        elif k == K_QUICK_ELECT:
            logit += w[AF_ELECT_COLOUR_CARDS] * s.hand[p][(a - A_QUICK_ELECT) % N_COLOURS]
        elif k > K_ELECT:
            action_features(s, a, phi)
            for j in range(N_KINDS, N_ACTION_FEATURES):
                logit += w[j] * phi[j]
        prior[i] = logit
        if logit > top:
            top = logit
    softmax_in_place(prior, n, top)


cdef int fill_policy_net(PolicyNet* net, object model) except -1:
    """Copy a council.mcts.policy_model.PolicyModel's arrays into the C struct."""
    cdef int i
    if len(model.w) != N_ACTION_FEATURES:
        raise ValueError(
            f"policy model has {len(model.w)} features, the search {N_ACTION_FEATURES}")
    for i in range(N_ACTION_FEATURES):
        net.wk[i] = model.w[i] / (model.scale[i] if model.scale[i] > 0 else 1.0)
    return 0


def policy_priors_of(CouncilOfFourState state, actions, model):
    """Priors of the given legal actions of a full state by a PolicyModel (the compiled
    computation the search uses; the numpy one in policy_model must agree)."""
    cdef PolicyNet net
    cdef int acts[N_ACTIONS]
    cdef double prior[N_ACTIONS]
    cdef int i, n = len(actions)
    if state.s.viewer >= 0:
        raise ValueError("the policy needs a full state")
    fill_policy_net(&net, model)
    for i in range(n):
        acts[i] = actions[i]
    policy_priors(&state.s, acts, n, &net, prior)
    return [prior[i] for i in range(n)]


# ---------------------------------------------------------------------------------------
# The expert: hand-set weights over the same features, one decision ahead.

cdef double expert_value(GameState* s, int seat, double* weights) noexcept nogil:
    """Seat's hand-weighted score minus the best opponent's; finished games beyond any."""
    cdef double rows[MAX_PLAYERS][N_FEATURES]
    cdef double score[MAX_PLAYERS]
    cdef double best_other = -1e300
    cdef int p, i, mask, n = s.n_players
    if s.game_over:
        mask = winners_mask(s)
        for p in range(n):
            if p != seat and s.vp[p] > best_other:
                best_other = s.vp[p]
        if (mask >> seat) & 1:
            return TERMINAL_WIN / popcount64(mask) + s.vp[seat] - best_other
        return -TERMINAL_WIN + s.vp[seat] - best_other
    seat_features(s, rows)
    for p in range(n):
        score[p] = 0.0
        for i in range(N_FEATURES):
            score[p] += weights[i] * rows[p][i]
        if p != seat and score[p] > best_other:
            best_other = score[p]
    return score[seat] - best_other


cdef double plan_value(GameState* s, int seat, double* weights, int depth) noexcept nogil:
    """Value of a position for `seat`, taking the seat's own follow-up decisions (a payment,
    a bonus choice) at their best, so one ply covers a whole decision."""
    cdef int actions[N_ACTIONS]
    cdef int n, i
    cdef double best, v
    cdef GameState child
    if s.game_over or s.current != seat or s.pending_n == 0 or depth >= 4:
        return expert_value(s, seat, weights)
    n = legal_actions(s, actions)
    best = -1e300
    for i in range(n):
        child = s[0]
        apply_action(&child, actions[i])
        v = plan_value(&child, seat, weights, depth + 1)
        if v > best:
            best = v
    return best


cdef int expert_action(GameState* s, double* weights) noexcept nogil:
    """The expert's choice in a full state (a determinization of its view): the legal
    action whose resulting position it values most; ties go to the first in id order."""
    cdef int actions[N_ACTIONS]
    cdef int n = legal_actions(s, actions), i, best = -1, seat = s.current
    cdef double best_value = -1e300, v
    cdef GameState child
    for i in range(n):
        if actions[i] == A_END_TURN and not s.game_over:
            # Ending is valued before the next player's draw, like the positions the other
            # actions lead to, so a quick action is taken only when it is worth its cost.
            v = expert_value(s, seat, weights)
        else:
            child = s[0]
            apply_action(&child, actions[i])
            v = plan_value(&child, seat, weights, 0)
        if v > best_value:
            best_value = v
            best = actions[i]
    return best


# ---------------------------------------------------------------------------------------
# Python entry points.

def features(CouncilOfFourState state):
    """Feature rows of a full state as a list of lists, one per seat."""
    cdef double rows[MAX_PLAYERS][N_FEATURES]
    if state.s.viewer >= 0:
        raise ValueError("features need a full state (determinize a view first)")
    seat_features(&state.s, rows)
    return [[rows[p][i] for i in range(N_FEATURES)] for p in range(state.s.n_players)]


def expert_choice(CouncilOfFourState world, weights):
    """The expert's action in a full state with the given feature weights."""
    cdef double w[N_FEATURES]
    cdef int i
    if world.s.viewer >= 0:
        raise ValueError("the expert plans in a full state (determinize its view first)")
    if world.s.game_over:
        raise ValueError("the game is over")
    if len(weights) != N_FEATURES:
        raise ValueError(f"expert weights: need {N_FEATURES}, got {len(weights)}")
    for i in range(N_FEATURES):
        w[i] = weights[i]
    with nogil:
        i = expert_action(&world.s, w)
    return i


def action_feature_rows(CouncilOfFourState state, actions):
    """Feature rows (lists) of the given legal actions of the seat to move."""
    cdef double phi[N_ACTION_FEATURES]
    cdef int a
    if state.s.viewer >= 0:
        raise ValueError("action features need a full state (determinize a view first)")
    rows = []
    for a in actions:
        action_features(&state.s, a, phi)
        rows.append([phi[i] for i in range(N_ACTION_FEATURES)])
    return rows


def redealt_win_chances_of(CouncilOfFourState state, int viewer, model, int redeals, seed):
    """Win chances of every seat of an unfinished full state as seat `viewer` sees it: the
    ValueModel's mean over `redeals` random deals (from `seed`) of what it cannot see."""
    cdef ValueNet net
    cdef double win[MAX_PLAYERS]
    cdef uint64_t rng = seed_word(seed)
    if state.s.viewer >= 0:
        raise ValueError("the value model needs a full state")
    if not 0 <= viewer < state.s.n_players:
        raise ValueError(f"viewer: no seat {viewer} in a {state.s.n_players}-player game")
    if not 1 <= redeals <= MAX_REDEALS:
        raise ValueError(f"redeals: must be in 1..{MAX_REDEALS}, got {redeals}")
    fill_value_net(&net, model)
    redealt_win_chances(&state.s, &net, viewer, redeals, &rng, win)
    return [win[p] for p in range(state.s.n_players)]


def value_win_chances_of(CouncilOfFourState state, model):
    """Win chances of every seat of an unfinished full state by a ValueModel (the compiled
    forward pass the search uses; the numpy one in value_model must agree)."""
    cdef ValueNet net
    cdef double win[MAX_PLAYERS]
    if state.s.viewer >= 0:
        raise ValueError("the value model needs a full state")
    fill_value_net(&net, model)
    value_win_chances(&state.s, &net, win)
    return [win[p] for p in range(state.s.n_players)]
