# Kuhn poker's knowledge for the search, reached through mcts/_games.pxd: exact returns at the
# end (a game is at most 3 actions, so every rollout reaches it), uniform rollouts and prior.

from libc.stdint cimport uint64_t

from council.engine._random cimport random_below
from council.engine._kuhn_poker cimport KPState

ctypedef struct KuhnPokerEvaluation:
    int unused                # no settings of its own: the struct keeps the union uniform

cdef int kp_fill_evaluation(KuhnPokerEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1
cdef void kp_evaluate(KuhnPokerEvaluation* E, KPState* st, double* win,
                      double* margin) noexcept nogil


cdef inline void kp_prior(KuhnPokerEvaluation* E, KPState* st, int* actions, int n,
                          double* prior) noexcept nogil:
    """Uniform (never read, as kp_fill_evaluation refuses PUCT selection)."""
    cdef int i
    for i in range(n):
        prior[i] = 1.0 / n


cdef inline int kp_rollout_action(KuhnPokerEvaluation* E, KPState* st, int* actions,
                                  int n) noexcept nogil:
    """A uniformly random legal action, drawn with the position's own chance word."""
    return actions[random_below(&st.rng, n)]
