"""The Council's knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): a hand-set leaf heuristic and a cheap policy, which plays the rollouts
and makes the secret choices (draft picks, cards to reveal) below the root."""

from libc.stdint cimport uint64_t

from council.engine._random cimport next_random
from council.engine._the_council cimport (
    PH_OVER, TC_MAX_PLAYERS, TC_N_ACTIONS, TC_N_SUITS, TCState, TheCouncilState,
    tc_legal_actions, tc_winners_mask,
)
from council.mcts._heuristics cimport margins, share_wins, softmax

# The SearchConfig settings this module reads (the others are the search's own or another
# game's).
SETTINGS = ("evaluator", "tree_secrets", "uniform_rollout", "temperature")

# The cheap policy (tc_policy_pick): a bidder adds a chip it could lead with at this chance,
# else ends its offer; a Court (whose traitor chip needs a failure) is revealed at this
# chance. (Measured with the settings of THE_COUNCIL_CONFIG, mcts/the_council_agents.py.)
TC_BID_ON = 0.85
TC_COURT_REVEAL = 0.5


cdef int tc_fill_evaluation(TheCouncilEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1:
    """Copy this game's settings of a SearchConfig's params() dict into the C struct."""
    if params["evaluator"] == "learned" or with_prior:
        raise ValueError("The Council has no learned models yet: search it with "
                         "evaluator=heuristic and policy=none")
    E.tree_secrets = params["tree_secrets"]
    E.uniform_rollout = params["uniform_rollout"]
    E.temperature = params["temperature"]
    return 0


cdef void tc_evaluate(TheCouncilEvaluation* E, TCState* st, double* win,
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
        softmax(est, n, E.temperature, win)
    margins(est, n, margin)


def the_council_policy_action(TheCouncilState state, uint64_t seed, dict params):
    """The action The Council's cheap policy picks (as in rollouts) in `state` (a full
    state or a view), drawn with `seed`."""
    cdef int actions[TC_N_ACTIONS]
    cdef uint64_t rng = seed
    cdef int n
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over: there is no action to pick")
    uniform = params["uniform_rollout"]
    n = tc_legal_actions(&state.s, actions)
    next_random(&rng)
    return tc_policy_pick(&state.s, actions, n, uniform, &rng)
