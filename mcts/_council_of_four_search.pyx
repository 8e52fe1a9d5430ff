"""Council of Four's knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): leaf evaluation, rollout policy, prior and the payments made below the
root.

A leaf is valued by the learned value model (optionally averaged over fresh deals of the
cards the searching seat cannot see) or by the hand-set heuristic of version 0.1; rollouts
pick actions by weights per action kind, cheap payments first; PUCT's prior is the learned
policy model of mcts/_council_of_four_evaluation.pyx.
"""

from libc.stdint cimport uint64_t

from council.engine._council_of_four cimport (
    GameState, MAX_PLAYERS, N_ACTIONS, A_PAY, N_KINDS, end_awards, payment_cost, provisional_vp,
    winners_mask,
)
from council.mcts._council_of_four_evaluation cimport (
    fill_policy_net, fill_value_net, policy_priors, redealt_win_chances, value_win_chances,
)
from council.mcts._heuristics cimport margins, popcount64, share_wins, softmax

from council.engine._council_of_four import ACTION_KINDS as _ACTION_KINDS

# The action kinds by their K_* number (the rollout policy weighs them).
KIND_NAMES = tuple(kind.name for kind in _ACTION_KINDS)

# The SearchConfig settings this module reads (the others are the search's own or another
# game's).
SETTINGS = (
    "evaluator", "tree_payments", "uniform_rollout", "leaf_redeals", "temperature",
    "kind_weights", "pay_decay", "w_coins", "w_assistants", "w_cards", "w_emporium",
    "w_permit_unused", "w_nobility",
)


cdef int cof_fill_evaluation(CouncilOfFourEvaluation* E, dict params, bint with_prior,
                             object value_model, object policy_model) except -1:
    """Copy this game's settings of a SearchConfig's params() dict into the C struct, and
    the models they call for (`with_prior`: the search selects by PUCT)."""
    E.learned_value = params["evaluator"] == "learned"
    E.learned_prior = with_prior
    E.tree_payments = params["tree_payments"]
    E.uniform_rollout = params["uniform_rollout"]
    E.leaf_redeals = params["leaf_redeals"]
    E.temperature = params["temperature"]
    E.pay_decay = params["pay_decay"]
    E.w_coins = params["w_coins"]
    E.w_assistants = params["w_assistants"]
    E.w_cards = params["w_cards"]
    E.w_emporium = params["w_emporium"]
    E.w_permit_unused = params["w_permit_unused"]
    E.w_nobility = params["w_nobility"]
    weights = dict(params["kind_weights"])
    for k in range(N_KINDS):
        E.kind_weight[k] = weights[KIND_NAMES[k]]
    if E.learned_value:
        if value_model is None:
            raise ValueError("the learned evaluator needs a value model")
        fill_value_net(&E.net, value_model)
    if E.learned_prior:
        if policy_model is None:
            raise ValueError("PUCT selection needs a policy model")
        fill_policy_net(&E.policy, policy_model)
    return 0


cdef int cof_preferred_payment(CouncilOfFourEvaluation* E, GameState* st, int* actions,
                               int n) noexcept nogil:
    """The payment the prior ranks first (with no prior, the cheapest): the one made below
    the root when payments are not tree nodes (cof_below_root_action)."""
    cdef double prior[N_ACTIONS]
    cdef int i, best = 0
    if E.learned_prior:
        policy_priors(st, actions, n, &E.policy, prior)
    else:
        for i in range(n):
            prior[i] = -payment_cost(actions[i] - A_PAY)
    for i in range(1, n):
        if prior[i] > prior[best]:
            best = i
    return actions[best]


cdef void estimate_scores(GameState* st, CouncilOfFourEvaluation* E, double* est) noexcept nogil:
    """Expected final VP from features of a position (before the game ends): VP and tiles
    held, the end awards as they stand now, and weighted resources."""
    cdef int award[MAX_PLAYERS]
    cdef int p
    end_awards(st, award)
    for p in range(st.n_players):
        est[p] = (provisional_vp(st, p) + award[p] + E.w_coins * st.coins[p]
                  + E.w_assistants * st.assistants[p] + E.w_cards * st.hand_n[p]
                  + E.w_emporium * st.emporia_n[p]
                  + E.w_permit_unused * popcount64(st.permits_up[p])
                  + E.w_nobility * st.nobility[p])


cdef void cof_evaluate(CouncilOfFourEvaluation* E, GameState* st, int viewer, uint64_t* rng,
                       double* win, double* margin) noexcept nogil:
    """Win chance (the learned model's with learned_value, averaged over redeals of what
    `viewer` cannot see when leaf_redeals > 0 and viewer >= 0; else the heuristic's
    softmax) and estimated VP margin over the best opponent, for every player."""
    cdef double est[MAX_PLAYERS]
    cdef int p, n = st.n_players
    if st.game_over:
        for p in range(n):
            est[p] = st.vp[p]
        share_wins(winners_mask(st), n, win)
    elif E.learned_value:
        estimate_scores(st, E, est)
        if E.leaf_redeals > 0 and viewer >= 0:
            redealt_win_chances(st, &E.net, viewer, E.leaf_redeals, rng, win)
        else:
            value_win_chances(st, &E.net, win)
    else:
        estimate_scores(st, E, est)
        softmax(est, n, E.temperature, win)
    margins(est, n, margin)
