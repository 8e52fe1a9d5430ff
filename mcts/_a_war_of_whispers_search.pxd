# A War of Whispers' knowledge for the search, reached through mcts/_games.pxd: a leaf
# heuristic (each player's score if the game ended now: loyalty times cities), rollouts by a
# cheap policy (its body here, so the search inlines it), a uniform prior.

from libc.stdint cimport uint64_t

from council.engine._random cimport random_below
from council.engine._a_war_of_whispers cimport (
    AWState, PH_DEPLOY, PH_SWAP, PH_TURNS, ST_AFTER, ST_CHOOSE, WA_DONE, WA_PLAY,
)

ctypedef struct AWarOfWhispersEvaluation:
    # The settings of SETTINGS (a SearchConfig's).
    double temperature        # score scale of the heuristic's softmax into win chances
    int uniform_rollout       # 1: uniformly random rollout actions instead of the policy

cdef int aw_fill_evaluation(AWarOfWhispersEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1
cdef void aw_evaluate(AWarOfWhispersEvaluation* E, AWState* st, double* win,
                      double* margin) noexcept nogil


cdef inline void aw_prior(AWarOfWhispersEvaluation* E, AWState* st, int* actions, int n,
                          double* prior) noexcept nogil:
    """Uniform (never read, as aw_fill_evaluation refuses PUCT selection)."""
    cdef int i
    for i in range(n):
        prior[i] = 1.0 / n


cdef inline int aw_rollout_action(AWarOfWhispersEvaluation* E, AWState* st, int* actions,
                                  int n) noexcept nogil:
    """The cheap policy: in an empire turn, a seat's option or an action's step at random,
    playing no card (a card's ability at one chance in eight) and passing the window for
    cards after an action; no loyalty swap; elsewhere a uniformly random legal action.
    Cards and swaps spend what the rollout cannot judge; the search's tree still tries
    them at its own nodes."""
    cdef int m = 0, last = actions[n - 1]
    if E.uniform_rollout or n == 1:
        return actions[random_below(&st.rng, n)]
    if st.phase == PH_SWAP:
        return WA_DONE  # always legal in the Swap phase
    if st.phase == PH_TURNS and (st.step == ST_CHOOSE or st.step == ST_AFTER):
        if st.step == ST_AFTER and last == WA_DONE:
            return WA_DONE
        # The options come first (ids below WA_PLAY), then the cards, then done.
        while m < n and actions[m] < WA_PLAY:
            m += 1
        if m > 0 and random_below(&st.rng, 8) != 0:
            return actions[random_below(&st.rng, m)]
    return actions[random_below(&st.rng, n)]
