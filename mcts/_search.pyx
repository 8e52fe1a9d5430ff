"""Compiled Monte Carlo tree search over engine states.

One search for every game: a tree reaches its game only through the narrow interface of
``_games.pxd`` (legal actions, apply, the seat to act, the end, chance, determinize); the
leaf evaluation and the rollout policy are the game's own (Council of Four: the learned
value and policy models or the hand-set heuristic; The Council: a heuristic and a cheap
hand-set policy).

One ``Tree`` is one search. In ``MODE_INFOSET`` the root is a seat's *view* and every
iteration deals a fresh determinization of the hidden cards (single-observer IS-MCTS,
Cowling, Powley & Whitehouse 2012), selecting among the children available in that
determinization with availability counts. In ``MODE_FIXED`` the root is a full state that
every iteration starts from (perfect-information UCT: the PIMC and cheating baselines);
chance (card draws, tile reveals) is re-seeded on every iteration in both modes.

The iteration loop (determinize, select, expand, rollout, backpropagate) runs without the
GIL, so several trees can search at once on several cores.
"""

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.math cimport sqrt, log, exp, tanh
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from council.engine._core cimport (
    GameState, State, provisional_vp, end_awards, winners_mask, payment_cost,
    MAX_PLAYERS, N_ACTIONS, A_PAY, N_KINDS, K_PAY, action_kind,
)
from council.engine._random cimport next_random, random_below
from council.engine._the_council cimport (
    CARD_KIND, CARD_SUITS, CK_ACE, CK_COURT, CK_CROWN, PH_BID, PH_DRAFT, PH_OVER, PH_REVEAL,
    TA_BID, TA_END_BID, TA_PICK, TA_REVEAL, TC_EVENTS, TC_MAX_PLAYERS, TC_N_ACTIONS,
    TC_N_CARDS, TC_N_SUITS, TCState, TheCouncilState, drafted_cards, tc_legal_actions,
    tc_winners_mask,
)
from council.mcts._games cimport (
    ANY_MAX_PLAYERS, ANY_N_ACTIONS, GAME_COUNCIL_OF_FOUR, GAME_THE_COUNCIL, AnyState,
    any_apply, any_current, any_determinize, any_game_over, any_legal_actions, any_n_players,
    any_rng, any_viewer,
)
from council.mcts._evaluation cimport (
    ValueNet, value_win_chances, redealt_win_chances, fill_value_net, PolicyNet, policy_priors,
    fill_policy_net,
)

from council.engine._core import ACTION_KINDS as _ACTION_KINDS

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil

if (ANY_MAX_PLAYERS < max(MAX_PLAYERS, TC_MAX_PLAYERS)
        or ANY_N_ACTIONS < max(N_ACTIONS, TC_N_ACTIONS)):
    raise ImportError("mcts/_games.pxd: ANY_MAX_PLAYERS or ANY_N_ACTIONS is too small")

cdef enum:
    MODE_INFOSET = 0
    MODE_FIXED = 1

# Leaf evaluators: the hand-set heuristic of version 0.1, or the learned value model.
cdef enum:
    EVAL_HEURISTIC = 0
    EVAL_LEARNED = 1

EVALUATORS = ("heuristic", "learned")

# Selection: UCB1 with availability counts and random expansion (version 0.1), or PUCT
# with the learned policy prior (availability counts in place of the parent's visits).
cdef enum:
    SELECT_UCB = 0
    SELECT_PUCT = 1

POLICIES = ("none", "learned")

# The action kinds by their K_* number (the rollout policy weighs them).
KIND_NAMES = tuple(kind.name for kind in _ACTION_KINDS)

ctypedef struct Params:
    int evaluator                 # EVAL_HEURISTIC or EVAL_LEARNED (win chances at the leaves)
    int selection                 # SELECT_UCB or SELECT_PUCT
    double c_uct                  # exploration constant of UCB1
    double c_puct                 # exploration constant of PUCT
    # PUCT: an untried action is valued at its siblings' mean less this
    double fpu_reduction
    # 1: payments below the root are tree nodes; 0: they are not, the payment the prior (with
    # no prior: the cheapest) prefers is made at once
    int tree_payments
    # The Council. 1: secret choices (draft picks, cards to reveal) below the root are tree
    # nodes; 0: they are not, the cheap policy makes them
    int tree_secrets
    int rollout_actions           # actions played after the tree before evaluating; -1: to the end
    # 1: also play out pending decisions (a payment, a bonus choice) so that leaves are
    # positions between decisions
    int finish_decisions
    int uniform_rollout           # 1: uniformly random rollout actions instead of the policy
    double temperature            # VP scale of the softmax turning estimates into win chances
    double margin_weight          # reward = (1 - w) * win chance + w * squashed VP margin
    double margin_scale           # VP margin that counts as a clear lead
    # Council of Four, learned evaluator: > 0: a leaf's win chances are the mean over this
    # many fresh deals of the cards the searching seat cannot see, not the sampled world's
    int leaf_redeals
    double kind_weight[N_KINDS]   # rollout policy: weight of each action kind
    double pay_decay              # rollout policy: payments weighted by exp(-decay * coins)
    double w_coins                # evaluation: VP worth of one coin ...
    double w_assistants
    double w_cards
    double w_emporium
    double w_permit_unused
    double w_nobility

ctypedef struct Node:
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int16_t action
    int8_t player                 # who chose `action` (-1 at the root)
    int32_t visits
    int32_t avail                 # iterations in which this action was legal
    double reward_sum             # rewards of `player`
    double win_sum                # win chances of `player`
    double margin_sum             # VP margins of `player`


cdef inline double uniform01(uint64_t* rng) noexcept nogil:
    return (next_random(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef int policy_pick(GameState* st, int* actions, int n, Params* P,
                     uint64_t* rng) noexcept nogil:
    """Rollout policy: pick an action with probability proportional to its kind's weight
    shared among the actions of that kind; payments favour cheap ones."""
    cdef double weights[N_ACTIONS]
    cdef int counts[N_KINDS]
    cdef int8_t kinds[N_ACTIONS]
    cdef int i, k
    cdef double total = 0.0, r
    if P.uniform_rollout:
        return actions[random_below(rng, n)]
    for k in range(N_KINDS):
        counts[k] = 0
    for i in range(n):
        k = action_kind(actions[i])
        kinds[i] = k
        counts[k] += 1
    for i in range(n):
        k = kinds[i]
        weights[i] = P.kind_weight[k] / counts[k]
        if k == K_PAY:
            weights[i] *= exp(-P.pay_decay * payment_cost(actions[i] - A_PAY))
        total += weights[i]
    if total <= 0.0:
        return actions[random_below(rng, n)]
    r = uniform01(rng) * total
    for i in range(n):
        r -= weights[i]
        if r < 0.0:
            return actions[i]
    return actions[n - 1]


# The Council's cheap policy: a bidder adds a chip it could lead with at this chance, else
# ends its offer; a Court (whose traitor chip needs a failure) is revealed at this chance.
# (Measured with the settings of THE_COUNCIL_CONFIG, mcts/search.py.)
cdef double TC_BID_ON = 0.85
cdef double TC_COURT_REVEAL = 0.5


cdef int tc_policy_pick(TCState* st, int* actions, int n, Params* P,
                        uint64_t* rng) noexcept nogil:
    """The Council's cheap policy (rollouts, and secret choices below the root):
    - draft: a card with probability proportional to e^(its suits, + 2 for a Crown,
      + 1.5 for an Ace): more chips, and the cards that gain a rank;
    - bid: one more chip in an event suit where the seat does not lead yet, at
      TC_BID_ON, else the end of the offer;
    - reveal: Crowns, the cards that act in the event's suits, Courts at TC_COURT_REVEAL;
      at the hand's last event every card (unrevealed cards are lost, TC8)."""
    cdef double weights[TC_N_ACTIONS]
    cdef int lead_suits[TC_N_SUITS]
    cdef int drafted[TC_N_CARDS]
    cdef int i, c, x, q, m, top, mask, seat = st.current
    cdef double total = 0.0, r
    if P.uniform_rollout:
        return actions[random_below(rng, n)]
    if st.phase == PH_DRAFT:
        for i in range(n):
            c = actions[i] - TA_PICK
            r = popcount64(CARD_SUITS[c])
            if CARD_KIND[c] == CK_CROWN:
                r += 2.0
            elif CARD_KIND[c] == CK_ACE:
                r += 1.5
            weights[i] = exp(r)
            total += weights[i]
        r = uniform01(rng) * total
        for i in range(n - 1):
            r -= weights[i]
            if r < 0.0:
                return actions[i]
        return actions[n - 1]
    if st.phase == PH_BID:
        m = 0
        for i in range(n):
            if actions[i] == TA_END_BID:
                continue
            x = actions[i] - TA_BID
            top = 0
            for q in range(st.n_players):
                if q != seat and st.bid[q][x] > top:
                    top = st.bid[q][x]
            if st.bid[seat][x] <= top:
                lead_suits[m] = actions[i]
                m += 1
        if m > 0 and uniform01(rng) < TC_BID_ON:
            return lead_suits[random_below(rng, m)]
        return TA_END_BID
    mask = 0
    for i in range(drafted_cards(st, seat, drafted)):
        c = drafted[i]
        if (st.events_done == TC_EVENTS - 1 or CARD_KIND[c] == CK_CROWN
                or (CARD_KIND[c] == CK_COURT and uniform01(rng) < TC_COURT_REVEAL)
                or (CARD_KIND[c] != CK_COURT and CARD_SUITS[c] & CARD_SUITS[st.event])):
            mask |= 1 << i
    return TA_REVEAL + mask


cdef void estimate_scores(GameState* st, Params* P, double* est) noexcept nogil:
    """Expected final VP from features of a position (before the game ends): VP and tiles
    held, the end awards as they stand now, and weighted resources."""
    cdef int award[MAX_PLAYERS]
    cdef int p
    end_awards(st, award)
    for p in range(st.n_players):
        est[p] = (provisional_vp(st, p) + award[p] + P.w_coins * st.coins[p]
                  + P.w_assistants * st.assistants[p] + P.w_cards * st.hand_n[p]
                  + P.w_emporium * st.emporia_n[p]
                  + P.w_permit_unused * popcount64(st.permits_up[p])
                  + P.w_nobility * st.nobility[p])


cdef void share_wins(int mask, int n, double* win) noexcept nogil:
    """Win 1/k for each of the k seats in `mask`, 0 for the others."""
    cdef int p, winners = 0
    for p in range(n):
        winners += (mask >> p) & 1
    for p in range(n):
        win[p] = (1.0 / winners) if (mask >> p) & 1 else 0.0


cdef void softmax(double* est, int n, double temperature, double* win) noexcept nogil:
    """Win chances from estimated scores: their softmax at this score scale."""
    cdef int p
    cdef double top = est[0], z = 0.0
    for p in range(1, n):
        if est[p] > top:
            top = est[p]
    for p in range(n):
        win[p] = exp((est[p] - top) / temperature)
        z += win[p]
    for p in range(n):
        win[p] /= z


cdef void margins(double* est, int n, double* margin) noexcept nogil:
    """Each seat's estimated score less the best other seat's."""
    cdef int p, q
    cdef double best_other
    for p in range(n):
        best_other = -1e9
        for q in range(n):
            if q != p and est[q] > best_other:
                best_other = est[q]
        margin[p] = est[p] - best_other


cdef void evaluate_council_of_four(GameState* st, Params* P, ValueNet* net, int viewer,
                                   uint64_t* rng, double* win, double* margin) noexcept nogil:
    """Win chance (the learned model's with EVAL_LEARNED, averaged over redeals of what
    `viewer` cannot see when P.leaf_redeals > 0 and viewer >= 0; else the heuristic's
    softmax) and estimated VP margin over the best opponent, for every player."""
    cdef double est[MAX_PLAYERS]
    cdef int p, n = st.n_players
    if st.game_over:
        for p in range(n):
            est[p] = st.vp[p]
        share_wins(winners_mask(st), n, win)
    elif P.evaluator == EVAL_LEARNED:
        estimate_scores(st, P, est)
        if P.leaf_redeals > 0 and viewer >= 0:
            redealt_win_chances(st, net, viewer, P.leaf_redeals, rng, win)
        else:
            value_win_chances(st, net, win)
    else:
        estimate_scores(st, P, est)
        softmax(est, n, P.temperature, win)
    margins(est, n, margin)


cdef void evaluate_the_council(TCState* st, Params* P, double* win,
                               double* margin) noexcept nogil:
    """Final results, or before the end a heuristic: the collapse's score, each suit's ranks
    weighted by how close its collapse is (certain once a seat is above the empire, halved
    for each rank the empire stands above the suit's leader), doubled for the leader; as
    chances by softmax."""
    cdef double est[TC_MAX_PLAYERS]
    cdef double weight
    cdef int p, x, top, n = st.n_players
    if st.phase == PH_OVER:
        for p in range(n):
            est[p] = st.score[p]
        share_wins(tc_winners_mask(st), n, win)
    else:
        for p in range(n):
            est[p] = st.traitors[p]
        for x in range(TC_N_SUITS):
            top = 0
            for p in range(n):
                if st.ranks[p][x] > top:
                    top = st.ranks[p][x]
            weight = 1.0 if top > st.empire[x] else 0.5 ** (st.empire[x] - top + 1)
            for p in range(n):
                est[p] += weight * st.ranks[p][x] * (2.0 if st.ranks[p][x] == top else 1.0)
        softmax(est, n, P.temperature, win)
    margins(est, n, margin)


cdef void evaluate(int game, AnyState* st, Params* P, ValueNet* net, int viewer,
                   uint64_t* rng, double* win, double* margin) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        evaluate_the_council(&st.tc, P, win, margin)
    else:
        evaluate_council_of_four(&st.cof, P, net, viewer, rng, win, margin)


cdef int fill_params(Params* P, dict params) except -1:
    """Copy a SearchConfig's params() dict into the C struct."""
    P.evaluator = EVALUATORS.index(params["evaluator"])
    P.selection = POLICIES.index(params["policy"])
    P.c_puct = params["c_puct"]
    P.fpu_reduction = params["fpu_reduction"]
    P.c_uct = params["c_uct"]
    P.tree_payments = params["tree_payments"]
    P.tree_secrets = params["tree_secrets"]
    P.rollout_actions = params["rollout_actions"]
    P.finish_decisions = params["finish_decisions"]
    P.uniform_rollout = params["uniform_rollout"]
    P.temperature = params["temperature"]
    P.margin_weight = params["margin_weight"]
    P.margin_scale = params["margin_scale"]
    P.leaf_redeals = params["leaf_redeals"]
    P.pay_decay = params["pay_decay"]
    P.w_coins = params["w_coins"]
    P.w_assistants = params["w_assistants"]
    P.w_cards = params["w_cards"]
    P.w_emporium = params["w_emporium"]
    P.w_permit_unused = params["w_permit_unused"]
    P.w_nobility = params["w_nobility"]
    weights = params["kind_weights"]
    for k in range(N_KINDS):
        P.kind_weight[k] = weights[KIND_NAMES[k]]
    return 0


cdef class StopFlag:
    """Set from any thread to stop the searches that share this flag."""
    cdef public int value

    def set(self):
        self.value = 1

    def is_set(self):
        return self.value != 0


cdef class Tree:
    """One search tree, grown by ``run``; read with ``root_children`` and
    ``principal_variation``."""

    cdef Node* nodes
    cdef int n_nodes
    cdef int capacity
    cdef int max_nodes
    cdef AnyState root
    cdef int game                 # GAME_COUNCIL_OF_FOUR or GAME_THE_COUNCIL
    cdef int mode
    cdef int viewer               # the searching seat (information-set search), else -1
    cdef Params P
    cdef ValueNet net
    cdef PolicyNet policy
    cdef uint64_t rng
    cdef public long long iterations
    cdef public double elapsed
    cdef int32_t stamp[ANY_N_ACTIONS]
    cdef int32_t index[ANY_N_ACTIONS]
    cdef int32_t generation
    cdef StopFlag stop

    def __cinit__(self):
        self.nodes = NULL

    def __init__(self, root, int mode, dict params, uint64_t seed, int max_nodes,
                 StopFlag stop=None, value_model=None, policy_model=None):
        """`root` is a position of either game: a State (Council of Four) or a
        TheCouncilState."""
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        if isinstance(root, State):
            self.game = GAME_COUNCIL_OF_FOUR
            self.root.cof = (<State>root).s
        elif isinstance(root, TheCouncilState):
            self.game = GAME_THE_COUNCIL
            self.root.tc = (<TheCouncilState>root).s
        else:
            raise TypeError(f"root: a State or a TheCouncilState, not {type(root).__name__}")
        if mode == MODE_INFOSET and any_viewer(self.game, &self.root) < 0:
            raise ValueError("an information-set search needs a view, not a full state")
        if mode == MODE_FIXED and any_viewer(self.game, &self.root) >= 0:
            raise ValueError("a fixed-state search needs a full state")
        if any_game_over(self.game, &self.root):
            raise ValueError("the game is over: there is nothing to search")
        self.mode = mode
        self.viewer = any_viewer(self.game, &self.root)
        self.rng = seed
        next_random(&self.rng)
        self.max_nodes = max_nodes
        self.capacity = 1024 if max_nodes > 1024 else max_nodes
        self.nodes = <Node*>malloc(self.capacity * sizeof(Node))
        if self.nodes == NULL:
            raise MemoryError()
        self.n_nodes = 1
        memset(&self.nodes[0], 0, sizeof(Node))
        self.nodes[0].parent = -1
        self.nodes[0].first_child = -1
        self.nodes[0].next_sibling = -1
        self.nodes[0].action = -1
        self.nodes[0].player = -1
        self.stop = stop if stop is not None else StopFlag()
        fill_params(&self.P, params)
        if self.game == GAME_THE_COUNCIL and (self.P.evaluator == EVAL_LEARNED
                                              or self.P.selection == SELECT_PUCT):
            raise ValueError("The Council has no learned models yet: search it with "
                             "evaluator=heuristic and policy=none")
        if self.P.evaluator == EVAL_LEARNED:
            if value_model is None:
                raise ValueError("the learned evaluator needs a value model")
            fill_value_net(&self.net, value_model)
        if self.P.selection == SELECT_PUCT:
            if policy_model is None:
                raise ValueError("PUCT selection needs a policy model")
            fill_policy_net(&self.policy, policy_model)
        memset(self.stamp, 0, sizeof(self.stamp))
        self.generation = 0

    def __dealloc__(self):
        free(self.nodes)

    cdef int new_node(self, int parent, int action, int player) noexcept nogil:
        cdef Node* grown
        cdef int i
        if self.n_nodes >= self.max_nodes:
            return -1
        if self.n_nodes >= self.capacity:
            i = self.capacity * 2
            if i > self.max_nodes:
                i = self.max_nodes
            grown = <Node*>realloc(self.nodes, i * sizeof(Node))
            if grown == NULL:
                self.max_nodes = self.n_nodes  # out of memory: stop growing, keep searching
                return -1
            self.nodes = grown
            self.capacity = i
        i = self.n_nodes
        self.n_nodes += 1
        self.nodes[i].parent = parent
        self.nodes[i].first_child = -1
        self.nodes[i].next_sibling = self.nodes[parent].first_child
        self.nodes[parent].first_child = i
        self.nodes[i].action = action
        self.nodes[i].player = player
        self.nodes[i].visits = 0
        self.nodes[i].avail = 0
        self.nodes[i].reward_sum = 0.0
        self.nodes[i].win_sum = 0.0
        self.nodes[i].margin_sum = 0.0
        return i

    cdef int preferred_payment(self, GameState* st, int* actions, int n) noexcept nogil:
        """The payment the prior ranks first (with no prior, the cheapest): the one made
        below the root when payments are not tree nodes."""
        cdef double prior[N_ACTIONS]
        cdef int i, best = 0
        if self.P.selection == SELECT_PUCT:
            policy_priors(st, actions, n, &self.policy, prior)
        else:
            for i in range(n):
                prior[i] = -payment_cost(actions[i] - A_PAY)
        for i in range(1, n):
            if prior[i] > prior[best]:
                best = i
        return actions[best]

    cdef int select_puct(self, AnyState* st, int node, int* actions, int n) noexcept nogil:
        """PUCT over the legal actions of this determinization: the action (an existing
        child's or a new one) maximising Q + c * prior * sqrt(availability) / (1 + visits);
        an untried action's Q is its visited siblings' mean less fpu_reduction."""
        cdef double prior[ANY_N_ACTIONS]
        cdef double q_sum = 0.0, fpu, score, best_score = -1e300, sqrt_parent
        cdef int i, a, best = actions[0], v_sum = 0
        cdef bint full
        cdef Node* nd
        cdef Params* P = &self.P
        policy_priors(&st.cof, actions, n, &self.policy, prior)  # Council of Four only
        for i in range(n):
            a = actions[i]
            if self.stamp[a] == self.generation:
                nd = &self.nodes[self.index[a]]
                nd.avail += 1
                q_sum += nd.reward_sum
                v_sum += nd.visits
        fpu = (q_sum / v_sum - P.fpu_reduction if v_sum > 0
               else 1.0 / any_n_players(self.game, st))
        sqrt_parent = sqrt(<double>(self.nodes[node].visits + 1))
        # A full tree grows no new node: choose among the existing children while any is
        # available, so every iteration still reaches a leaf below them.
        full = self.n_nodes >= self.max_nodes and v_sum > 0
        for i in range(n):
            a = actions[i]
            if self.stamp[a] == self.generation:
                nd = &self.nodes[self.index[a]]
                score = (nd.reward_sum / nd.visits
                         + P.c_puct * prior[i] * sqrt(<double>nd.avail) / (1 + nd.visits))
            elif full:
                continue
            else:
                score = fpu + P.c_puct * prior[i] * sqrt_parent
            if score > best_score:
                best_score = score
                best = a
        return best

    cdef void iterate(self) noexcept nogil:
        cdef AnyState st = self.root
        cdef int game = self.game
        cdef int actions[ANY_N_ACTIONS]
        cdef int unexpanded[ANY_N_ACTIONS]
        cdef int n, m, i, a, child, best, node = 0, player, steps
        cdef double score, best_score
        cdef double win[ANY_MAX_PLAYERS]
        cdef double margin[ANY_MAX_PLAYERS]
        cdef double reward[ANY_MAX_PLAYERS]
        cdef Node* nd
        cdef Params* P = &self.P
        if self.mode == MODE_INFOSET:
            any_determinize(game, &st, next_random(&self.rng))
        else:
            any_rng(game, &st)[0] = next_random(&self.rng)
        # Selection and expansion.
        while not any_game_over(game, &st):
            n = any_legal_actions(game, &st, actions)
            self.generation += 1
            child = self.nodes[node].first_child
            while child >= 0:
                self.stamp[self.nodes[child].action] = self.generation
                self.index[self.nodes[child].action] = child
                child = self.nodes[child].next_sibling
            # A payment below the root is no node of its own (unless tree_payments): which
            # cards pay seldom changes a line's value, while searching them splits an
            # opponent's statistics over the payments its many possible hands allow and
            # spends a level of the tree on every payment (5,000 iterations: this against
            # payment nodes 0.590 [0.521, 0.656], 200 games).
            if (not P.tree_payments and node != 0 and game == GAME_COUNCIL_OF_FOUR
                    and action_kind(actions[0]) == K_PAY):
                any_apply(game, &st, self.preferred_payment(&st.cof, actions, n))
                continue
            # Likewise a secret choice of The Council below the root (unless tree_secrets):
            # as a node it would split statistics over worlds the searching seat cannot
            # tell apart, and the seats after it would choose knowing the secret (1,000
            # iterations, one seat against three experts: 0.378 against 0.325, 200 games).
            if (not P.tree_secrets and node != 0 and game == GAME_THE_COUNCIL
                    and (st.tc.phase == PH_DRAFT or st.tc.phase == PH_REVEAL)):
                any_apply(game, &st, tc_policy_pick(&st.tc, actions, n, P, &st.tc.rng))
                continue
            player = any_current(game, &st)
            if P.selection == SELECT_PUCT:
                a = self.select_puct(&st, node, actions, n)
                any_apply(game, &st, a)
                if self.stamp[a] == self.generation:
                    node = self.index[a]
                    continue
                child = self.new_node(node, a, player)
                if child >= 0:
                    self.nodes[child].avail = 1
                    node = child
                break
            m = 0
            best = -1
            best_score = -1e300
            for i in range(n):
                a = actions[i]
                if self.stamp[a] != self.generation:
                    unexpanded[m] = a
                    m += 1
                    continue
                child = self.index[a]
                nd = &self.nodes[child]
                nd.avail += 1
                score = (nd.reward_sum / nd.visits
                         + P.c_uct * sqrt(log(<double>nd.avail) / nd.visits))
                if score > best_score:
                    best_score = score
                    best = child
            if m > 0:
                a = unexpanded[random_below(&self.rng, m)]
                child = self.new_node(node, a, player)
                any_apply(game, &st, a)
                if child >= 0:
                    self.nodes[child].avail = 1
                    node = child
                break
            any_apply(game, &st, self.nodes[best].action)
            node = best
        # Rollout with the cheap policy, then evaluate.
        steps = 0
        while not any_game_over(game, &st) and (
                P.rollout_actions < 0 or steps < P.rollout_actions
                or (P.finish_decisions and game == GAME_COUNCIL_OF_FOUR
                    and st.cof.pending_n > 0)):
            n = any_legal_actions(game, &st, actions)
            if game == GAME_COUNCIL_OF_FOUR:
                a = policy_pick(&st.cof, actions, n, P, &st.cof.rng)
            else:
                a = tc_policy_pick(&st.tc, actions, n, P, &st.tc.rng)
            any_apply(game, &st, a)
            steps += 1
        evaluate(game, &st, P, &self.net, self.viewer, &self.rng, win, margin)
        for i in range(any_n_players(game, &st)):
            reward[i] = ((1.0 - P.margin_weight) * win[i]
                         + P.margin_weight * (0.5 + 0.5 * tanh(margin[i] / P.margin_scale)))
        # Backpropagation: each node scores the reward of the player who chose it.
        while node >= 0:
            nd = &self.nodes[node]
            nd.visits += 1
            if nd.player >= 0:
                nd.reward_sum += reward[nd.player]
                nd.win_sum += win[nd.player]
                nd.margin_sum += margin[nd.player]
            node = nd.parent
        self.iterations += 1

    def run(self, long long max_iterations=-1, double time_limit=-1.0):
        """Search until max_iterations more iterations, time_limit seconds, or the stop
        flag, whichever comes first (negative = no limit); at least one iteration."""
        cdef long long done = 0
        cdef double start, deadline
        cdef int* stop = &self.stop.value
        if max_iterations < 0 and time_limit < 0:
            raise ValueError("give max_iterations or time_limit (or both)")
        start = now_seconds()
        deadline = start + time_limit
        with nogil:
            while True:
                self.iterate()
                done += 1
                if max_iterations >= 0 and done >= max_iterations:
                    break
                if stop[0]:
                    break
                if time_limit >= 0 and (done & 15) == 0 and now_seconds() >= deadline:
                    break
        self.elapsed += now_seconds() - start
        return done

    @property
    def size(self):
        """Nodes in the tree (the root included)."""
        return self.n_nodes

    def root_children(self):
        """(action, visits, availability, reward sum, win sum, margin sum) per root child."""
        out = []
        child = self.nodes[0].first_child
        while child >= 0:
            nd = &self.nodes[child]
            out.append((nd.action, nd.visits, nd.avail, nd.reward_sum, nd.win_sum,
                        nd.margin_sum))
            child = nd.next_sibling
        return out

    def principal_variation(self, int max_length=32, int first=-1):
        """Actions along the most visited children from the root (ties: the higher mean
        reward, then the lower action id, the order of the ranked candidates); with
        `first`, the line that starts with that root action."""
        cdef int node = 0, child, best
        cdef Node* c
        cdef Node* b
        line = []
        if first >= 0:
            child = self.nodes[0].first_child
            while child >= 0 and self.nodes[child].action != first:
                child = self.nodes[child].next_sibling
            if child < 0:
                return line
            line.append(first)
            node = child
        while len(line) < max_length:
            best = -1
            child = self.nodes[node].first_child
            while child >= 0:
                c = &self.nodes[child]
                if c.visits > 0:
                    if best < 0:
                        best = child
                    else:
                        b = &self.nodes[best]
                        if (c.visits > b.visits
                                or (c.visits == b.visits
                                    and (c.reward_sum * b.visits > b.reward_sum * c.visits
                                         or (c.reward_sum * b.visits == b.reward_sum * c.visits
                                             and c.action < b.action)))):
                            best = child
                child = c.next_sibling
            if best < 0:
                break
            line.append(self.nodes[best].action)
            node = best
        return line


def evaluate_state(State state, dict params):
    """(win chances, VP margins) of the position by the hand-set evaluation of 0.1."""
    cdef Params P
    cdef double win[MAX_PLAYERS]
    cdef double margin[MAX_PLAYERS]
    if state.s.viewer >= 0:
        raise ValueError("evaluate_state needs a full state")
    fill_params(&P, params)
    P.evaluator = EVAL_HEURISTIC  # the hand-set evaluation, whatever the config says
    evaluate_council_of_four(&state.s, &P, NULL, -1, NULL, win, margin)
    n = state.s.n_players
    return [win[i] for i in range(n)], [margin[i] for i in range(n)]


def the_council_policy_action(TheCouncilState state, uint64_t seed, dict params):
    """The action The Council's cheap policy picks (as in rollouts) in `state` (a full
    state or a view), drawn with `seed`."""
    cdef Params P
    cdef int actions[TC_N_ACTIONS]
    cdef uint64_t rng = seed
    cdef int n
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over: there is no action to pick")
    fill_params(&P, params)
    n = tc_legal_actions(&state.s, actions)
    next_random(&rng)
    return tc_policy_pick(&state.s, actions, n, &P, &rng)


INFOSET = MODE_INFOSET
FIXED = MODE_FIXED
