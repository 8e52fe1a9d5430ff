"""Compiled Monte Carlo tree search over engine states.

One search for every game: a tree reaches its game only through the narrow interface of
``_games.pxd`` (legal actions, apply, the seat to act, the end, chance, determinize), and
so do the game's own leaf evaluation, rollout policy, prior over actions and the decisions
it makes off the tree below the root (each game's ``_<game>_search.pyx``). This module
keeps selection, expansion, availability counts and backpropagation, and its own settings
(``SETTINGS``); a game's evaluation settings are its module's.

One ``Tree`` is one search. In ``MODE_INFOSET`` the root is a seat's *view* and every
iteration deals a fresh determinization of the hidden cards (single-observer IS-MCTS,
Cowling, Powley & Whitehouse 2012), selecting among the children available in that
determinization with availability counts. In ``MODE_FIXED`` the root is a full state that
every iteration starts from (perfect-information UCT: the PIMC and cheating baselines);
chance (card draws, tile reveals) is re-seeded on every iteration in both modes.

With ``search_root=hand`` (``SEARCH_ROOTS``; the games whose positions keep their hand's
betting) an information-set search starts every iteration at the start of the hand instead,
every hidden card dealt, and keys each seat's nodes by what it knows; its root candidates are
then those of the searching seat's own position (``root_children``). Smooth UCT
(``smooth_eta``) mixes each information set's average policy into UCB1 selection.
``solver=mccfr`` replaces UCB1 there by outcome-sampling Monte Carlo CFR (``iterate_mccfr``:
regret matching at every information set, its average strategy the policy played),
targeted at the searching seat's position as Online Outcome Sampling does.

The iteration loop (determinize, select, expand, rollout, backpropagate) runs without the
GIL, so several trees can search at once on several cores.
"""

from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memset
from libc.math cimport sqrt, log, tanh
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from council.engine._random cimport next_random, random_below
from council.mcts._games cimport (
    ANY_MAX_PLAYERS, GAME_A_WAR_OF_WHISPERS, GAME_KUHN_POKER, GAME_LEDUC_POKER, GAME_THE_COUNCIL,
    AnyEvaluation,
    AnyState, GameStateT, any_apply, any_below_root_action, any_bounds_hold, any_current,
    any_determinize, any_evaluate, any_fill_evaluation, any_game_over, any_legal_actions,
    any_load, any_n_actions, any_n_players, any_pending_decision, any_prior, any_rng,
    any_rollout_action, any_viewer, any_hand_start, any_deal_all, any_info_key,
)

if not any_bounds_hold():
    raise ImportError("mcts/_games.pxd: ANY_MAX_PLAYERS or MAX_ACTION_ID is too small")

cdef enum:
    MODE_INFOSET = 0
    MODE_FIXED = 1

# Leaf evaluators a game may offer (its module reads SearchConfig.evaluator): a hand-set
# heuristic, or a learned value model.
EVALUATORS = ("heuristic", "learned")

# Selection: UCB1 with availability counts and random expansion (version 0.1), or PUCT
# with the game's learned prior (availability counts in place of the parent's visits).
cdef enum:
    SELECT_UCB = 0
    SELECT_PUCT = 1

POLICIES = ("none", "learned")

# Where every iteration starts: at the seat's view, the hidden cards dealt uniformly from
# what it cannot see (single-observer IS-MCTS, version 0.1's); or at the start of the hand,
# every hidden card dealt (the searching seat's own included) and each seat's nodes keyed
# by what that seat knows (any_info_key), so that every seat's choices depend on its own
# cards: the search plays the whole hand for every seat, and the iterations whose line
# agrees with the actual betting are the searching seat's beliefs about the others' cards.
cdef enum:
    ROOT_VIEW = 0
    ROOT_HAND = 1
    MAX_PATH = 128               # edges of one iteration in the tree (ROOT_HAND)
    MAX_HISTORY = 64             # actions since the start of the hand (ROOT_HAND)

SEARCH_ROOTS = ("view", "hand")

# How search_root=hand chooses at an information set: UCB1 (with Smooth UCT's mixing), or
# outcome-sampling Monte Carlo CFR (Lanctot et al. 2009), each iteration one sampled hand,
# with Online Outcome Sampling's targeting (Lisy, Lanctot & Bowling 2015).
cdef enum:
    SOLVER_UCT = 0
    SOLVER_MCCFR = 1
    # Deals tried at the start of a targeted search to estimate the chance that a deal
    # agrees with the view (refined by every deal drawn after)
    MATCH_WARMUP = 1024
    # Deals a targeted iteration tries before it gives up targeting (a view no deal agrees
    # with cannot be searched; the cap only bounds the loop)
    MATCH_TRIES = 1 << 16
    # MCCFR's numbers per node: its cumulative regret, its cumulative (average) strategy
    # weight, and its baseline (mccfr_baseline)
    SUMS = 3

SOLVERS = ("uct", "mccfr")

# The SearchConfig settings the search itself reads (each game's module reads its own).
SETTINGS = (
    "policy", "c_uct", "c_puct", "fpu_reduction", "rollout_actions", "finish_decisions",
    "margin_weight", "margin_scale", "search_root", "smooth_eta", "smooth_gamma", "smooth_d",
    "hand_focus", "solver", "mccfr_exploration", "mccfr_targeting",
    "mccfr_baseline",
)

ctypedef struct Params:
    int selection                 # SELECT_UCB or SELECT_PUCT (with the game's prior)
    double c_uct                  # exploration constant of UCB1
    double c_puct                 # exploration constant of PUCT
    # PUCT: an untried action is valued at its siblings' mean less this
    double fpu_reduction
    int rollout_actions           # actions played after the tree before evaluating; -1: to the end
    # 1: also play out pending decisions (a payment, a bonus choice) so that leaves are
    # positions between decisions
    int finish_decisions
    double margin_weight          # reward = (1 - w) * win chance + w * squashed margin
    double margin_scale           # margin that counts as a clear lead
    int search_root               # ROOT_VIEW or ROOT_HAND
    # Smooth UCT (Heinrich & Silver 2015) in UCB1 selection: with chance 1 - eta_k an
    # information set plays its average policy (its children's visit shares), where
    # eta_k = max(smooth_gamma, smooth_eta / (1 + smooth_d * sqrt(visits))); smooth_eta 0
    # is plain UCB1.
    double smooth_eta
    double smooth_gamma
    double smooth_d
    # ROOT_HAND: the share of focused iterations (iterate_hand)
    double hand_focus
    int solver                    # SOLVER_UCT or SOLVER_MCCFR (ROOT_HAND)
    # MCCFR: the share of uniform play mixed into the updated seat's sampling, and the
    # share of iterations targeted at the searching seat's position (dealt what it knows,
    # replaying the actual history)
    double mccfr_exploration
    double mccfr_targeting
    # MCCFR: > 0, the values sampled are corrected by a baseline per edge (VR-MCCFR,
    # Schmid et al. 2019; two seats), which moves this share of the way to each new value
    double mccfr_baseline

ctypedef struct Node:
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int16_t action
    int8_t player                 # who chose `action` (-1 at the root)
    int8_t key                    # ROOT_HAND: what `player` knew (any_info_key); else 0
    int32_t visits
    int32_t avail                 # iterations in which this action was legal
    double reward_sum             # rewards of `player`
    double win_sum                # win chances of `player`
    double margin_sum             # VP margins of `player`


cdef inline double uniform(uint64_t* rng) noexcept nogil:
    """A uniform draw in [0, 1)."""
    return (next_random(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef int fill_params(Params* P, dict params) except -1:
    """Copy the search's own settings of a SearchConfig's params() dict into the C struct."""
    EVALUATORS.index(params["evaluator"])  # the game's module reads it; a known name, though
    P.selection = POLICIES.index(params["policy"])
    P.c_puct = params["c_puct"]
    P.fpu_reduction = params["fpu_reduction"]
    P.c_uct = params["c_uct"]
    P.rollout_actions = params["rollout_actions"]
    P.finish_decisions = params["finish_decisions"]
    P.margin_weight = params["margin_weight"]
    P.margin_scale = params["margin_scale"]
    P.search_root = SEARCH_ROOTS.index(params["search_root"])
    P.smooth_eta = params["smooth_eta"]
    P.smooth_gamma = params["smooth_gamma"]
    P.smooth_d = params["smooth_d"]
    P.hand_focus = params["hand_focus"]
    P.solver = SOLVERS.index(params["solver"])
    P.mccfr_exploration = params["mccfr_exploration"]
    P.mccfr_targeting = params["mccfr_targeting"]
    P.mccfr_baseline = params["mccfr_baseline"]
    return 0


cdef class StopFlag:
    """Set from any thread to stop the searches that share this flag."""
    cdef public int value

    def set(self):
        self.value = 1

    def is_set(self):
        return self.value != 0


cdef inline double ucb_score(Node* nd, double c_uct) noexcept nogil:
    """UCB1's score of an expanded child: its mean reward and its exploration term over
    the times it was available (SO-ISMCTS's availability count)."""
    return nd.reward_sum / nd.visits + c_uct * sqrt(log(<double>nd.avail) / nd.visits)


cdef class Tree:
    """One search tree, grown by ``run``; read with ``root_children`` and
    ``principal_variation``."""

    cdef Node* nodes
    cdef int n_nodes
    cdef int capacity
    cdef int max_nodes
    cdef AnyState root            # loaded once; an iteration copies its game's member only
    cdef int game                 # the tag of _games.pxd
    cdef int n_actions            # the game's (any_n_actions): the buffers below are this long
    cdef int mode
    cdef int viewer               # the searching seat (information-set search), else -1
    cdef Params P
    cdef AnyEvaluation E          # the game's evaluation settings and models
    cdef uint64_t rng
    cdef public long long iterations
    cdef public double elapsed
    # By action id, one block of n_actions each: the generation a child was last met, its
    # node; ROOT_HAND: the earliest child of an action (any key), and its generation
    cdef int32_t* stamp
    cdef int32_t* index
    cdef int32_t* first_edge
    cdef int32_t* edge_stamp
    # An iteration's scratch, n_actions each: the legal actions, those not yet children, the
    # available children; the prior over the legal actions (PUCT)
    cdef int* actions
    cdef int* unexpanded
    cdef int* edges
    cdef double* prior
    cdef int32_t generation
    cdef StopFlag stop
    cdef int root_action          # >= 0: every iteration takes this action at the root
    # ROOT_HAND: the actions since the start of the hand, and what the viewer knows
    cdef int history[MAX_HISTORY]
    cdef int n_history
    cdef int viewer_key
    # ROOT_HAND: every iteration plays the actual history (a fallback for a position the
    # free search does not reach)
    cdef public bint follow_history
    # MCCFR: SUMS numbers per node, grown with the nodes; the deals drawn, and those that
    # agreed with the view
    cdef double* sums
    # MCCFR: the edges of the information sets of an iteration's line, n_actions a step
    cdef int* path_edges
    cdef int path_counts[MAX_PATH]
    cdef long long match_tries
    cdef long long match_hits

    def __cinit__(self):
        self.nodes = NULL
        self.sums = NULL
        self.path_edges = NULL
        self.stamp = NULL
        self.actions = NULL
        self.prior = NULL

    def __init__(self, root, int mode, dict params, uint64_t seed, int max_nodes,
                 StopFlag stop=None, value_model=None, policy_model=None,
                 int root_action=-1):
        """`root` is a position of any game of _games.pxd (a view in MODE_INFOSET, a full
        state in MODE_FIXED). With `root_action` (a legal action of the root) every
        iteration takes that action first: the search values that one move (a game
        review's estimate of a move the free search hardly tried)."""
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        self.game = any_load(&self.root, root)
        self.n_actions = any_n_actions(self.game)
        if not -1 <= root_action < self.n_actions:
            raise ValueError(f"root_action must be in -1..{self.n_actions - 1}")
        self.root_action = root_action
        self.mode = mode
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
        if self.game == GAME_THE_COUNCIL:
            self.start(&self.root.tc, type(root).__name__)
        elif self.game == GAME_KUHN_POKER:
            self.start(&self.root.kp, type(root).__name__)
        elif self.game == GAME_LEDUC_POKER:
            self.start(&self.root.ld, type(root).__name__)
        elif self.game == GAME_A_WAR_OF_WHISPERS:
            self.start(&self.root.aw, type(root).__name__)
        else:
            self.start(&self.root.cof, type(root).__name__)
        if self.P.search_root == ROOT_HAND or self.P.smooth_eta > 0:
            if self.P.selection != SELECT_UCB:
                raise ValueError("search_root=hand and smooth_eta > 0 select by UCB1: "
                                 "search with policy=none")
        if self.P.solver == SOLVER_MCCFR:
            if self.P.search_root != ROOT_HAND:
                raise ValueError("solver: 'mccfr' samples whole hands: search with "
                                 "search_root=hand")
            self.sums = <double*>calloc(SUMS * self.capacity, sizeof(double))
            self.path_edges = <int*>malloc(MAX_PATH * any_n_actions(self.game) * sizeof(int))
            if self.sums == NULL or self.path_edges == NULL:
                raise MemoryError()
        any_fill_evaluation(self.game, &self.E, params, self.P.selection == SELECT_PUCT,
                            value_model, policy_model)
        self.stamp = <int32_t*>calloc(4 * self.n_actions, sizeof(int32_t))
        self.actions = <int*>malloc(3 * self.n_actions * sizeof(int))
        self.prior = <double*>malloc(self.n_actions * sizeof(double))
        if self.stamp == NULL or self.actions == NULL or self.prior == NULL:
            raise MemoryError()
        self.index = self.stamp + self.n_actions
        self.first_edge = self.stamp + 2 * self.n_actions
        self.edge_stamp = self.stamp + 3 * self.n_actions
        self.unexpanded = self.actions + self.n_actions
        self.edges = self.actions + 2 * self.n_actions
        self.generation = 0
        if self.P.solver == SOLVER_MCCFR and self.P.mccfr_targeting > 0:
            self.warm_up_match()

    cdef int start(self, GameStateT* root, str position_type) except -1:
        """Check the root against the mode and take the searching seat; with
        search_root=hand, rewind the root to the start of its hand."""
        if self.mode == MODE_INFOSET and any_viewer(root) < 0:
            raise ValueError("an information-set search needs a view, not a full state")
        if self.mode == MODE_FIXED and any_viewer(root) >= 0:
            raise ValueError("a fixed-state search needs a full state")
        if any_game_over(root):
            raise ValueError("the game is over: there is nothing to search")
        self.viewer = any_viewer(root)
        if self.P.search_root == ROOT_HAND:
            if self.mode != MODE_INFOSET:
                raise ValueError("search_root: 'hand' searches a view, not a full state")
            self.viewer_key = any_info_key(root, self.viewer)
            self.n_history = any_hand_start(root, self.history, MAX_HISTORY)
            if self.n_history < 0:
                raise ValueError(f"search_root: {position_type} keeps no record of its "
                                 "hand's actions; search it with search_root=view")
        return 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.stamp)
        free(self.actions)
        free(self.prior)
        free(self.sums)
        free(self.path_edges)

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
            if self.sums != NULL and not self.grow_sums(i):
                self.max_nodes = self.n_nodes
                return -1
            self.capacity = i
        i = self.n_nodes
        self.n_nodes += 1
        self.nodes[i].parent = parent
        self.nodes[i].first_child = -1
        self.nodes[i].next_sibling = self.nodes[parent].first_child
        self.nodes[parent].first_child = i
        self.nodes[i].action = action
        self.nodes[i].player = player
        self.nodes[i].key = 0
        self.nodes[i].visits = 0
        self.nodes[i].avail = 0
        self.nodes[i].reward_sum = 0.0
        self.nodes[i].win_sum = 0.0
        self.nodes[i].margin_sum = 0.0
        if self.sums != NULL:
            self.sums[SUMS * i] = 0.0
            self.sums[SUMS * i + 1] = 0.0
            self.sums[SUMS * i + 2] = 0.0
        return i

    cdef bint grow_sums(self, int capacity) noexcept nogil:
        cdef double* grown = <double*>realloc(self.sums, SUMS * capacity * sizeof(double))
        if grown == NULL:
            return False
        self.sums = grown
        return True

    cdef int select_puct(self, GameStateT* st, int node, int* actions, int n) noexcept nogil:
        """PUCT over the legal actions of this determinization: the action (an existing
        child's or a new one) maximising Q + c * prior * sqrt(availability) / (1 + visits);
        an untried action's Q is its visited siblings' mean less fpu_reduction."""
        cdef double* prior = self.prior
        cdef double q_sum = 0.0, fpu, score, best_score = -1e300, sqrt_parent
        cdef int i, a, best = actions[0], v_sum = 0
        cdef bint full
        cdef Node* nd
        cdef Params* P = &self.P
        any_prior(&self.E, st, actions, n, prior)
        for i in range(n):
            a = actions[i]
            if self.stamp[a] == self.generation:
                nd = &self.nodes[self.index[a]]
                nd.avail += 1
                q_sum += nd.reward_sum
                v_sum += nd.visits
        fpu = (q_sum / v_sum - P.fpu_reduction if v_sum > 0
               else 1.0 / any_n_players(st))
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

    cdef int ucb_scan(self, int* actions, int n, int* unexpanded, int* m, int* edges, int* k,
                      bint count_avail) noexcept nogil:
        """One UCB1 pass over a node's legal actions (the children stamped this
        generation): the actions not yet expanded into `unexpanded` (`m` of them), the
        children into `edges` (`k`), each child's `avail` counted when `count_avail`; the
        child of the best score, or -1 if none."""
        cdef int i, a, child, best = -1
        cdef double score, best_score = -1e300
        cdef Node* nd
        m[0] = 0
        k[0] = 0
        for i in range(n):
            a = actions[i]
            if self.stamp[a] != self.generation:
                unexpanded[m[0]] = a
                m[0] += 1
                continue
            child = self.index[a]
            edges[k[0]] = child
            k[0] += 1
            nd = &self.nodes[child]
            if count_avail:
                nd.avail += 1
            score = ucb_score(nd, self.P.c_uct)
            if score > best_score:
                best_score = score
                best = child
        return best

    cdef int smooth_choice(self, int* edges, int k, int ucb_edge) noexcept nogil:
        """Smooth UCT: `ucb_edge` (UCB1's choice among the `k` available `edges`), or with
        chance 1 - eta_k an edge drawn from their average policy (each by its share of
        their visits)."""
        cdef int i, total = 0, r
        cdef double eta
        for i in range(k):
            total += self.nodes[edges[i]].visits
        eta = self.P.smooth_eta / (1.0 + self.P.smooth_d * sqrt(<double>total))
        if eta < self.P.smooth_gamma:
            eta = self.P.smooth_gamma
        if total <= 0 or uniform(&self.rng) < eta:
            return ucb_edge
        r = random_below(&self.rng, total)
        for i in range(k):
            r -= self.nodes[edges[i]].visits
            if r < 0:
                return edges[i]
        return edges[k - 1]

    cdef inline void stamp_children(self, int node, int key) noexcept nogil:
        """A new generation of stamps over `node`'s children: each action's earliest edge
        (`first_edge`; the walk meets the newest first, so the last one met) and the edge
        of information set `key` (`index`), where they exist."""
        cdef int child = self.nodes[node].first_child
        cdef Node* nd
        self.generation += 1
        while child >= 0:
            nd = &self.nodes[child]
            self.edge_stamp[nd.action] = self.generation
            self.first_edge[nd.action] = child
            if nd.key == key:
                self.stamp[nd.action] = self.generation
                self.index[nd.action] = child
            child = nd.next_sibling

    cdef void iterate_hand(self, GameStateT* root) noexcept nogil:
        """One iteration from the start of the hand (ROOT_HAND): every hidden card dealt,
        every seat choosing by its own key's edges (UCB1, smoothed with smooth_eta), the
        tree's nodes holding the public line of actions (an action's earliest edge holds its
        continuation for every key), the edges it took backed up."""
        cdef GameStateT st = root[0]
        cdef int* actions = self.actions
        cdef int* unexpanded = self.unexpanded
        cdef int* edges = self.edges
        cdef int path[MAX_PATH]
        cdef int n, m, k, i, a, child, best, node = 0, player, key, steps, depth = 0, t = 0
        cdef int forced, root_depth = -1
        cdef bint focus = False, mine = True
        cdef bint on_line = True     # the actions so far are the actual history
        cdef double score, best_score
        cdef double win[ANY_MAX_PLAYERS]
        cdef double margin[ANY_MAX_PLAYERS]
        cdef double reward[ANY_MAX_PLAYERS]
        cdef Node* nd
        cdef Params* P = &self.P
        if (P.hand_focus > 0 and not self.follow_history
                and uniform(&self.rng) < P.hand_focus):
            # A focused iteration: the viewer's own cards (the view's determinization), its
            # own past actions, the others' drawn from their searched play until one leaves
            # the actual betting (then it ends unused: what the others did weighs their
            # hands); past the viewer's position it updates the viewer's choices only, so
            # that the others' play stays learnt from hands dealt without its cards.
            focus = True
            any_determinize(&self.E, &st, next_random(&self.rng))
        else:
            any_deal_all(&st, next_random(&self.rng))
        while not any_game_over(&st) and depth < MAX_PATH:
            n = any_legal_actions(&st, actions)
            player = any_current(&st)
            key = any_info_key(&st, player)
            self.stamp_children(node, key)
            if focus and root_depth < 0:
                if t == self.n_history:
                    root_depth = depth
                else:
                    if player == self.viewer:
                        a = self.history[t]
                    else:
                        k = 0
                        best = -1
                        best_score = -1e300
                        for i in range(n):
                            if self.stamp[actions[i]] != self.generation:
                                self.iterations += 1
                                return  # the other's searched play is not there yet
                            child = self.index[actions[i]]
                            edges[k] = child
                            k += 1
                            score = ucb_score(&self.nodes[child], P.c_uct)
                            if score > best_score:
                                best_score = score
                                best = child
                        if P.smooth_eta > 0 and k > 1:
                            best = self.smooth_choice(edges, k, best)
                        a = self.nodes[best].action
                    if a != self.history[t] or self.edge_stamp[a] != self.generation:
                        self.iterations += 1
                        return
                    any_apply(&st, a)
                    t += 1
                    node = self.first_edge[a]
                    continue
            mine = not focus or player == self.viewer
            forced = -1
            if on_line and t < self.n_history and self.follow_history:
                forced = self.history[t]
            elif (on_line and t == self.n_history and self.root_action >= 0
                    and player == self.viewer and key == self.viewer_key):
                forced = self.root_action  # the move under review, at the viewer's position
            if forced >= 0:
                unexpanded[0] = forced
                m = 1
                k = 0
                if self.stamp[forced] == self.generation:
                    m = 0
                    best = self.index[forced]
                    self.nodes[best].avail += 1
            else:
                best = self.ucb_scan(actions, n, unexpanded, &m, edges, &k, mine)
            if m > 0:
                if not mine:
                    break  # a focused iteration grows no node of another seat
                a = unexpanded[random_below(&self.rng, m) if m > 1 else 0]
                child = self.new_node(node, a, player)
                any_apply(&st, a)
                if child >= 0:
                    self.nodes[child].avail = 1
                    self.nodes[child].key = key
                    path[depth] = child
                    depth += 1
                break
            if P.smooth_eta > 0 and k > 1:
                best = self.smooth_choice(edges, k, best)
            a = self.nodes[best].action
            path[depth] = best
            depth += 1
            any_apply(&st, a)
            on_line = on_line and t < self.n_history and self.history[t] == a
            t += 1
            node = self.first_edge[a]
        steps = 0
        while not any_game_over(&st) and (
                P.rollout_actions < 0 or steps < P.rollout_actions):
            n = any_legal_actions(&st, actions)
            any_apply(&st, any_rollout_action(&self.E, &st, actions, n))
            steps += 1
        any_evaluate(&self.E, &st, -1, &self.rng, win, margin)
        for i in range(any_n_players(&st)):
            reward[i] = ((1.0 - P.margin_weight) * win[i]
                         + P.margin_weight * (0.5 + 0.5 * tanh(margin[i] / P.margin_scale)))
        self.nodes[0].visits += 1
        for i in range(depth):
            nd = &self.nodes[path[i]]
            if focus and nd.player != self.viewer:
                continue
            nd.visits += 1
            nd.reward_sum += reward[nd.player]
            nd.win_sum += win[nd.player]
            nd.margin_sum += margin[nd.player]
        self.iterations += 1

    cdef void iterate(self, GameStateT* root) noexcept nogil:
        cdef GameStateT st = root[0]
        cdef int* actions = self.actions
        cdef int* unexpanded = self.unexpanded
        cdef int n, m, i, a, child, best, node = 0, player, steps, k
        cdef int* edges = self.edges
        cdef double win[ANY_MAX_PLAYERS]
        cdef double margin[ANY_MAX_PLAYERS]
        cdef double reward[ANY_MAX_PLAYERS]
        cdef Node* nd
        cdef Params* P = &self.P
        if self.mode == MODE_INFOSET:
            any_determinize(&self.E, &st, next_random(&self.rng))
        else:
            any_rng(&st)[0] = next_random(&self.rng)
        # Selection and expansion.
        while not any_game_over(&st):
            n = any_legal_actions(&st, actions)
            self.generation += 1
            child = self.nodes[node].first_child
            while child >= 0:
                self.stamp[self.nodes[child].action] = self.generation
                self.index[self.nodes[child].action] = child
                child = self.nodes[child].next_sibling
            # Below the root a game may make some decisions off the tree (a payment, a secret
            # choice: its module says which, why, and what that measured); the search goes
            # on from the position after them.
            if node != 0:
                a = any_below_root_action(&self.E, &st, actions, n)
                if a >= 0:
                    any_apply(&st, a)
                    continue
            player = any_current(&st)
            if node == 0 and self.root_action >= 0:
                a = self.root_action
                any_apply(&st, a)
                if self.stamp[a] == self.generation:
                    node = self.index[a]
                    self.nodes[node].avail += 1
                    continue
                child = self.new_node(node, a, player)
                if child >= 0:
                    self.nodes[child].avail = 1
                    node = child
                break
            if P.selection == SELECT_PUCT:
                a = self.select_puct(&st, node, actions, n)
                any_apply(&st, a)
                if self.stamp[a] == self.generation:
                    node = self.index[a]
                    continue
                child = self.new_node(node, a, player)
                if child >= 0:
                    self.nodes[child].avail = 1
                    node = child
                break
            best = self.ucb_scan(actions, n, unexpanded, &m, edges, &k, True)
            if m > 0:
                a = unexpanded[random_below(&self.rng, m)]
                child = self.new_node(node, a, player)
                any_apply(&st, a)
                if child >= 0:
                    self.nodes[child].avail = 1
                    node = child
                break
            if P.smooth_eta > 0:
                best = self.smooth_choice(edges, k, best)
            any_apply(&st, self.nodes[best].action)
            node = best
        # Rollout with the cheap policy, then evaluate.
        steps = 0
        while not any_game_over(&st) and (
                P.rollout_actions < 0 or steps < P.rollout_actions
                or (P.finish_decisions and any_pending_decision(&st))):
            n = any_legal_actions(&st, actions)
            any_apply(&st, any_rollout_action(&self.E, &st, actions, n))
            steps += 1
        any_evaluate(&self.E, &st, self.viewer, &self.rng, win, margin)
        for i in range(any_n_players(&st)):
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

    cdef void warm_up_match(self) noexcept nogil:
        """MCCFR with targeting: a first estimate of the chance that a deal agrees with
        the view."""
        if self.game == GAME_THE_COUNCIL:
            self.deals_matching(&self.root.tc, MATCH_WARMUP)
        elif self.game == GAME_KUHN_POKER:
            self.deals_matching(&self.root.kp, MATCH_WARMUP)
        elif self.game == GAME_LEDUC_POKER:
            self.deals_matching(&self.root.ld, MATCH_WARMUP)
        else:
            self.deals_matching(&self.root.cof, MATCH_WARMUP)

    cdef void deals_matching(self, GameStateT* root, int deals) noexcept nogil:
        cdef GameStateT st
        cdef int _deal
        for _deal in range(deals):
            st = root[0]
            self.deal_matching(&st)

    cdef bint deal_matching(self, GameStateT* st) noexcept nogil:
        """Deal every hidden card of `st` (the root, at the start of its hand) and say
        whether the deal agrees with the view: after the actual history the viewer knows
        what it knows (its key). Counted, for the chance that a deal agrees."""
        cdef GameStateT probe
        cdef int t
        any_deal_all(st, next_random(&self.rng))
        probe = st[0]
        for t in range(self.n_history):
            any_apply(&probe, self.history[t])
        self.match_tries += 1
        if any_info_key(&probe, self.viewer) == self.viewer_key:
            self.match_hits += 1
            return True
        return False

    cdef bint info_set(self, int node, int key, int player, int* actions,
                       int n) noexcept nogil:
        """MCCFR: the edges of `player`'s information set `key` at the public node `node`
        into `edges`, one per legal action in the order of `actions`, the missing ones
        created (an information set is expanded whole); False if the tree is full."""
        cdef int i, a, child
        self.stamp_children(node, key)
        for i in range(n):
            a = actions[i]
            if self.stamp[a] != self.generation:
                child = self.new_node(node, a, player)
                if child < 0:
                    return False
                self.nodes[child].key = key
                self.stamp[a] = self.generation
                self.index[a] = child
                if self.edge_stamp[a] != self.generation:
                    self.edge_stamp[a] = self.generation
                    self.first_edge[a] = child
            self.edges[i] = self.index[a]
        return True

    cdef double set_total(self, int* set_edges, int count) noexcept nogil:
        """MCCFR: the positive regrets of an information set's edges, summed (from the
        last: the order of the tree's list of children, which holds them newest first)."""
        cdef double total = 0.0
        cdef int i
        for i in range(count - 1, -1, -1):
            if self.sums[SUMS * set_edges[i]] > 0:
                total += self.sums[SUMS * set_edges[i]]
        return total

    cdef inline double matched(self, int edge, double total, int count) noexcept nogil:
        """MCCFR: regret matching's chance of `edge`, `total` its set's positive regrets."""
        if total > 0:
            return self.sums[SUMS * edge] / total if self.sums[SUMS * edge] > 0 else 0.0
        return 1.0 / count

    cdef void add_strategy(self, int* set_edges, int count, double weight) noexcept nogil:
        """MCCFR: `weight` times the current strategy to the average strategy weights of an
        information set's edges."""
        cdef double total = self.set_total(set_edges, count), r
        cdef int i
        for i in range(count - 1, -1, -1):
            r = self.sums[SUMS * set_edges[i]]
            if total > 0:
                self.sums[SUMS * set_edges[i] + 1] += weight * (r / total if r > 0 else 0.0)
            else:
                self.sums[SUMS * set_edges[i] + 1] += weight / count

    cdef void regrets_with_baseline(self, int* path, double* sig, double* reach, int depth,
                                    int update, double value) noexcept nogil:
        """MCCFR with a baseline (two seats; values are seat 0's, `value` the end's): from
        the end up, each edge of an information set on the line is valued at its baseline,
        the one taken also by the sampled value's excess over it divided by the chance of
        taking it (VR-MCCFR's control variate: unbiased, and of less variance the closer
        the baselines); the set's value is their mean under its strategy. The updated
        seat's regrets take these values times the others' chance of the line so far over
        the samplers'; each taken edge's baseline moves toward its sampled value."""
        cdef double opp[MAX_PATH]
        cdef double total, taken, own, sign = 1.0 if update == 0 else -1.0
        cdef double rate = self.P.mccfr_baseline
        cdef int k, i, child, edge, count
        cdef int* set_edges
        opp[0] = 1.0
        for k in range(depth - 1):
            opp[k + 1] = opp[k] * (sig[k] if self.nodes[path[k]].player != update else 1.0)
        for k in range(depth - 1, -1, -1):
            edge = path[k]
            set_edges = self.path_edges + k * self.n_actions
            count = self.path_counts[k]
            # the sampled value of the taken edge, then the set's value under its strategy
            taken = (self.sums[SUMS * edge + 2]
                     + (value - self.sums[SUMS * edge + 2]) * reach[k] / reach[k + 1])
            total = self.set_total(set_edges, count)
            own = 0.0
            for i in range(count - 1, -1, -1):
                child = set_edges[i]
                own += (self.matched(child, total, count)
                        * (taken if child == edge else self.sums[SUMS * child + 2]))
            if self.nodes[edge].player == update:
                for i in range(count - 1, -1, -1):
                    child = set_edges[i]
                    self.sums[SUMS * child] += (
                        sign * ((taken if child == edge else self.sums[SUMS * child + 2])
                                - own) * opp[k] / reach[k])
            self.sums[SUMS * edge + 2] += rate * (value - self.sums[SUMS * edge + 2])
            value = own

    cdef void iterate_mccfr(self, GameStateT* root) noexcept nogil:
        """One iteration of outcome-sampling MCCFR from the start of the hand
        (SOLVER_MCCFR): one hand sampled, the seat to update (the iterations alternate)
        playing its regret-matching strategy mixed with uniform play (mccfr_exploration),
        the others theirs; the updated seat's regrets along the hand, the others' average
        strategies (stochastically weighted averaging). With chance mccfr_targeting (always
        while following the history) the iteration is targeted: a deal that agrees with the
        view, the actual history replayed. Every update is divided by the hand's chance
        under the mixture of both samplers (Online Outcome Sampling), so that the regrets
        are those of the whole game however much the iterations are targeted."""
        cdef GameStateT st = root[0]
        cdef int* actions = self.actions
        cdef int* edges = self.edges
        cdef double* strategy = self.prior
        cdef int* set_edges
        cdef int path[MAX_PATH]
        cdef double sig[MAX_PATH]       # the strategy's chance of the action taken
        cdef double samp[MAX_PATH]      # the untargeted sampler's chance of it
        cdef double reach[MAX_PATH + 1]  # the samplers' chance of the line so far
        cdef double win[ANY_MAX_PLAYERS]
        cdef double margin[ANY_MAX_PLAYERS]
        cdef double reward[ANY_MAX_PLAYERS]
        cdef double own[ANY_MAX_PLAYERS]
        cdef int n, i, a, k, choice, node = 0, player, key, depth = 0, agree = 0, steps, _deal
        cdef int n_players = any_n_players(&st)
        cdef int update = self.iterations % n_players
        cdef double explore = self.P.mccfr_exploration, target = self.P.mccfr_targeting
        cdef double r, prefix, base = 1.0, tail, match_chance, opp, weight, after
        cdef bint targeted, agrees = False
        cdef Node* nd
        if self.follow_history:
            target = 1.0
        targeted = target > 0 and (self.follow_history or uniform(&self.rng) < target)
        if targeted:
            for _deal in range(MATCH_TRIES):
                st = root[0]
                agrees = self.deal_matching(&st)
                if agrees:
                    break
            targeted = agrees
        elif target > 0:
            agrees = self.deal_matching(&st)
        else:
            any_deal_all(&st, next_random(&self.rng))
        while not any_game_over(&st) and depth < MAX_PATH:
            n = any_legal_actions(&st, actions)
            player = any_current(&st)
            key = any_info_key(&st, player)
            if not self.info_set(node, key, player, actions, n):
                break  # the tree is full: a rollout below
            r = 0.0
            for i in range(n):
                strategy[i] = self.sums[SUMS * edges[i]] if self.sums[SUMS * edges[i]] > 0 else 0.0
                r += strategy[i]
            for i in range(n):
                strategy[i] = strategy[i] / r if r > 0 else 1.0 / n
            choice = n - 1
            if targeted and depth < self.n_history:
                for i in range(n):
                    if actions[i] == self.history[depth]:
                        choice = i
            elif (self.root_action >= 0 and depth == agree == self.n_history
                    and player == self.viewer and key == self.viewer_key):
                # the move under review, at the viewer's position
                for i in range(n):
                    if actions[i] == self.root_action:
                        choice = i
            else:
                r = uniform(&self.rng)
                for i in range(n):
                    r -= (explore / n + (1.0 - explore) * strategy[i] if player == update
                          else strategy[i])
                    if r < 0:
                        choice = i
                        break
            a = actions[choice]
            sig[depth] = strategy[choice]
            samp[depth] = (explore / n + (1.0 - explore) * strategy[choice]
                           if player == update else strategy[choice])
            path[depth] = edges[choice]
            self.path_counts[depth] = n
            for i in range(n):
                self.path_edges[depth * self.n_actions + i] = edges[i]
            if depth == agree and depth < self.n_history and a == self.history[depth]:
                agree += 1
            any_apply(&st, a)
            node = self.first_edge[a]
            depth += 1
        steps = 0
        while not any_game_over(&st) and (
                self.P.rollout_actions < 0 or steps < self.P.rollout_actions):
            n = any_legal_actions(&st, actions)
            any_apply(&st, any_rollout_action(&self.E, &st, actions, n))
            steps += 1
        any_evaluate(&self.E, &st, -1, &self.rng, win, margin)
        for i in range(n_players):
            reward[i] = ((1.0 - self.P.margin_weight) * win[i] + self.P.margin_weight
                         * (0.5 + 0.5 * tanh(margin[i] / self.P.margin_scale)))
            own[i] = 1.0
        # The chance of each prefix of the line under the mixture of the samplers (less the
        # deal's chance under the untargeted one, which cancels): targeted, a deal that
        # agrees with the view (1 / its chance) and the history's actions (1 each);
        # untargeted, the sampled actions' chances; past the history, the same for both.
        match_chance = (<double>self.match_hits / self.match_tries
                        if self.match_hits > 0 else 1.0)
        prefix = 1.0
        tail = 1.0
        for k in range(depth + 1):
            if k <= self.n_history:
                base = (1.0 - target) * prefix
                if agrees and agree >= k:
                    base += target / match_chance
                reach[k] = base
                if k < depth:
                    prefix *= samp[k]
            else:
                tail *= samp[k - 1]
                reach[k] = base * tail
        self.nodes[0].visits += 1
        for k in range(depth):
            nd = &self.nodes[path[k]]
            nd.visits += 1
            nd.reward_sum += reward[nd.player]
            nd.win_sum += win[nd.player]
            nd.margin_sum += margin[nd.player]
        if self.P.mccfr_baseline > 0 and n_players == 2:
            self.regrets_with_baseline(path, sig, reach, depth, update, reward[0] - 0.5)
        else:
            # The updated seat's regrets: its sampled counterfactual values (the others'
            # chances of the whole line, its own past each action, over the line's chance).
            opp = 1.0
            for k in range(depth):
                if self.nodes[path[k]].player != update:
                    opp *= sig[k]
            weight = (reward[update] - 1.0 / n_players) * opp / reach[depth]
            after = 1.0
            for k in range(depth - 1, -1, -1):
                if self.nodes[path[k]].player == update:
                    set_edges = self.path_edges + k * self.n_actions
                    for i in range(self.path_counts[k] - 1, -1, -1):
                        self.sums[SUMS * set_edges[i]] += (
                            (weight * after if set_edges[i] == path[k] else 0.0)
                            - sig[k] * weight * after)
                    after *= sig[k]
        # The other seats' average strategies, each weighted by its own chance of reaching
        # the information set over the samplers'.
        for k in range(depth):
            player = self.nodes[path[k]].player
            if player != update:
                self.add_strategy(self.path_edges + k * self.n_actions, self.path_counts[k],
                                  own[player] / reach[k])
            own[player] *= sig[k]
        self.iterations += 1

    def average_policy(self):
        """solver=mccfr: {action: chance} of the viewer's average strategy at its own
        position (its current regret-matching strategy where none is averaged yet); {}
        where the search has not reached it, or solves by UCT."""
        cdef int node, child
        if self.sums == NULL:
            return {}
        node = self.public_node(self.history, self.n_history)
        if node < 0:
            return {}
        averaged, regrets = {}, {}
        child = self.nodes[node].first_child
        while child >= 0:
            if self.nodes[child].key == self.viewer_key:
                averaged[self.nodes[child].action] = self.sums[SUMS * child + 1]
                regrets[self.nodes[child].action] = max(self.sums[SUMS * child], 0.0)
            child = self.nodes[child].next_sibling
        for weights in (averaged, regrets):
            total = sum(weights.values())
            if total > 0:
                return {a: w / total for a, w in weights.items()}
        return {a: 1.0 / len(averaged) for a in averaged}

    def run(self, long long max_iterations=-1, double time_limit=-1.0):
        """Search until max_iterations more iterations, time_limit seconds, or the stop
        flag, whichever comes first (negative = no limit); at least one iteration."""
        cdef long long done = 0
        cdef double start
        if max_iterations < 0 and time_limit < 0:
            raise ValueError("give max_iterations or time_limit (or both)")
        start = now_seconds()
        with nogil:
            if self.game == GAME_THE_COUNCIL:
                done = self.iterations_from(&self.root.tc, max_iterations, time_limit, start)
            elif self.game == GAME_KUHN_POKER:
                done = self.iterations_from(&self.root.kp, max_iterations, time_limit, start)
            elif self.game == GAME_LEDUC_POKER:
                done = self.iterations_from(&self.root.ld, max_iterations, time_limit, start)
            elif self.game == GAME_A_WAR_OF_WHISPERS:
                done = self.iterations_from(&self.root.aw, max_iterations, time_limit, start)
            else:
                done = self.iterations_from(&self.root.cof, max_iterations, time_limit, start)
        self.elapsed += now_seconds() - start
        return done

    cdef long long iterations_from(self, GameStateT* root, long long max_iterations,
                                   double time_limit, double start) noexcept nogil:
        """run's loop, compiled for the game of `root` (the tree's root, as its game's
        state)."""
        cdef long long done = 0
        cdef double deadline = start + time_limit
        cdef int* stop = &self.stop.value
        while True:
            if self.P.solver == SOLVER_MCCFR:
                self.iterate_mccfr(root)
            elif self.P.search_root == ROOT_HAND:
                self.iterate_hand(root)
            else:
                self.iterate(root)
            done += 1
            if max_iterations >= 0 and done >= max_iterations:
                break
            if stop[0]:
                break
            if time_limit >= 0 and (done & 15) == 0 and now_seconds() >= deadline:
                break
        return done

    @property
    def size(self):
        """Nodes in the tree (the root included)."""
        return self.n_nodes

    cdef int public_node(self, int* line, int n) noexcept:
        """ROOT_HAND: the node of the public line `line` (each action's earliest edge), or
        -1 where the search never played it."""
        cdef int node = 0, child, found, i
        for i in range(n):
            found = -1
            child = self.nodes[node].first_child
            while child >= 0:
                if self.nodes[child].action == line[i]:
                    found = child
                child = self.nodes[child].next_sibling
            if found < 0:
                return -1
            node = found
        return node

    def root_children(self):
        """(action, visits, availability, reward sum, win sum, margin sum) per root child;
        with search_root=hand, per edge of the viewer's information set (its key, after the
        actual history)."""
        cdef int node = 0
        cdef bint hand = self.P.search_root == ROOT_HAND
        if hand:
            node = self.public_node(self.history, self.n_history)
            if node < 0:
                return []
        out = []
        child = self.nodes[node].first_child
        while child >= 0:
            nd = &self.nodes[child]
            if not hand or nd.key == self.viewer_key:
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
        if self.P.search_root == ROOT_HAND:
            return self.hand_line(max_length, first)
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

    def hand_line(self, int max_length, int first):
        """ROOT_HAND's principal variation: from the viewer's information set, `first` (or
        its most visited action), then at each public node the action with the most visits
        over every key (the viewer's own key where it acts)."""
        cdef int node = self.public_node(self.history, self.n_history)
        cdef int child
        cdef Node* c
        line = []
        while node >= 0 and len(line) < max_length:
            visits = {}
            child = self.nodes[node].first_child
            while child >= 0:
                c = &self.nodes[child]
                if c.player != self.viewer or c.key == self.viewer_key:
                    visits[c.action] = visits.get(c.action, 0) + c.visits
                child = c.next_sibling
            if not visits:
                break
            if not line and first >= 0:
                if first not in visits:
                    break
                action = first
            else:
                action = min(visits, key=lambda a: (-visits[a], a))
            line.append(action)
            node = self.public_node_below(node, action)
        return line

    cdef int public_node_below(self, int node, int action) noexcept:
        cdef int child = self.nodes[node].first_child, found = -1
        while child >= 0:
            if self.nodes[child].action == action:
                found = child
            child = self.nodes[child].next_sibling
        return found


def evaluate_state(position, dict params):
    """(win chances, score margins) of a full position (of any game) by its game's
    hand-set evaluation, whatever `params` says of the evaluator."""
    cdef AnyState st
    cdef AnyEvaluation E
    game = any_load(&st, position)
    any_fill_evaluation(game, &E, dict(params, evaluator="heuristic"), False, None, None)
    if game == GAME_THE_COUNCIL:
        return evaluate_full_state(&E, &st.tc)
    if game == GAME_KUHN_POKER:
        return evaluate_full_state(&E, &st.kp)
    if game == GAME_LEDUC_POKER:
        return evaluate_full_state(&E, &st.ld)
    if game == GAME_A_WAR_OF_WHISPERS:
        return evaluate_full_state(&E, &st.aw)
    return evaluate_full_state(&E, &st.cof)


cdef evaluate_full_state(AnyEvaluation* E, GameStateT* st):
    cdef double win[ANY_MAX_PLAYERS]
    cdef double margin[ANY_MAX_PLAYERS]
    if any_viewer(st) >= 0:
        raise ValueError("evaluate_state needs a full state")
    any_evaluate(E, st, -1, NULL, win, margin)
    n = any_n_players(st)
    return [win[i] for i in range(n)], [margin[i] for i in range(n)]


INFOSET = MODE_INFOSET
FIXED = MODE_FIXED
