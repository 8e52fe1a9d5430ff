# Council of Four's knowledge for the search, reached through mcts/_games.pxd: its leaf
# evaluation (the learned value model or the hand-set heuristic), its rollout policy, its
# learned prior over actions, and the payment made off the tree below the root. The rollout
# policy and the below-root test run at every step of an iteration: their bodies are here,
# so that the search inlines them as it did before they moved out of it (called out of
# line, they cost version 0.1's search 1.7% more instructions, callgrind).

from libc.math cimport exp
from libc.stdint cimport int8_t, uint64_t

from council.engine._council_of_four cimport (
    A_PAY, GameState, K_PAY, N_ACTIONS, N_KINDS, action_kind, payment_cost,
)
from council.engine._random cimport random_below
from council.mcts._council_of_four_evaluation cimport PolicyNet, ValueNet, policy_priors
from council.mcts._heuristics cimport uniform01

ctypedef struct CouncilOfFourEvaluation:
    # The settings of SETTINGS (a SearchConfig's), and the learned models they call for.
    int learned_value             # 1: leaf win chances from the value model; 0: the heuristic
    # 1: the learned prior ranks the actions (the search selects by PUCT) and picks the
    # payment made below the root; 0: the cheapest payment is made there
    int learned_prior
    # 1: payments below the root are tree nodes; 0: they are not, the payment the prior (with
    # no prior: the cheapest) prefers is made at once
    int tree_payments
    int uniform_rollout           # 1: uniformly random rollout actions instead of the policy
    # learned evaluator: > 0: a leaf's win chances are the mean over this many fresh deals of
    # the cards the searching seat cannot see, not the sampled world's
    int leaf_redeals
    double temperature            # VP scale of the heuristic's softmax into win chances
    double kind_weight[N_KINDS]   # rollout policy: weight of each action kind
    double pay_decay              # rollout policy: payments weighted by exp(-decay * coins)
    double w_coins                # heuristic: VP worth of one coin ...
    double w_assistants
    double w_cards
    double w_emporium
    double w_permit_unused
    double w_nobility
    ValueNet net                  # with learned_value
    PolicyNet policy              # with learned_prior

cdef int cof_fill_evaluation(CouncilOfFourEvaluation* E, dict params, bint with_prior,
                             object value_model, object policy_model) except -1
cdef void cof_evaluate(CouncilOfFourEvaluation* E, GameState* st, int viewer, uint64_t* rng,
                       double* win, double* margin) noexcept nogil
cdef int cof_preferred_payment(CouncilOfFourEvaluation* E, GameState* st, int* actions,
                               int n) noexcept nogil


cdef inline void cof_prior(CouncilOfFourEvaluation* E, GameState* st, int* actions, int n,
                           double* prior) noexcept nogil:
    policy_priors(st, actions, n, &E.policy, prior)


cdef inline bint cof_pending_decision(GameState* st) noexcept nogil:
    """A payment or a bonus choice is pending (the rollout may finish it first)."""
    return st.pending_n > 0


cdef inline int policy_pick(GameState* st, int* actions, int n, CouncilOfFourEvaluation* E,
                            uint64_t* rng) noexcept nogil:
    """Rollout policy: pick an action with probability proportional to its kind's weight
    shared among the actions of that kind; payments favour cheap ones."""
    cdef double weights[N_ACTIONS]
    cdef int counts[N_KINDS]
    cdef int8_t kinds[N_ACTIONS]
    cdef int i, k
    cdef double total = 0.0, r
    if E.uniform_rollout:
        return actions[random_below(rng, n)]
    for k in range(N_KINDS):
        counts[k] = 0
    for i in range(n):
        k = action_kind(actions[i])
        kinds[i] = k
        counts[k] += 1
    for i in range(n):
        k = kinds[i]
        weights[i] = E.kind_weight[k] / counts[k]
        if k == K_PAY:
            weights[i] *= exp(-E.pay_decay * payment_cost(actions[i] - A_PAY))
        total += weights[i]
    if total <= 0.0:
        return actions[random_below(rng, n)]
    r = uniform01(rng) * total
    for i in range(n):
        r -= weights[i]
        if r < 0.0:
            return actions[i]
    return actions[n - 1]


cdef inline int cof_rollout_action(CouncilOfFourEvaluation* E, GameState* st, int* actions,
                                   int n) noexcept nogil:
    """The rollout policy's action, drawn with the position's own chance word."""
    return policy_pick(st, actions, n, E, &st.rng)


cdef inline int cof_below_root_action(CouncilOfFourEvaluation* E, GameState* st, int* actions,
                                      int n) noexcept nogil:
    """A payment below the root (unless tree_payments): cof_preferred_payment's, made at
    once; -1 for any other decision (a tree node)."""
    # A payment below the root is no node of its own: which cards pay seldom changes a
    # line's value, while searching them splits an opponent's statistics over the payments
    # its many possible hands allow and spends a level of the tree on every payment (5,000
    # iterations: this against payment nodes 0.590 [0.521, 0.656], 200 games).
    if E.tree_payments or action_kind(actions[0]) != K_PAY:
        return -1
    return cof_preferred_payment(E, st, actions, n)
