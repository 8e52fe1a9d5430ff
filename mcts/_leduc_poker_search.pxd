# Leduc poker's knowledge for the search, reached through mcts/_games.pxd: exact returns at the
# end (a game is at most 8 actions, so every rollout reaches it), uniform rollouts and prior.

from libc.stdint cimport uint64_t

from council.engine._random cimport random_below
from council.engine._leduc_poker cimport LDState

ctypedef struct LeducPokerEvaluation:
    int unused                # no settings of its own: the struct keeps the union uniform

cdef int ld_fill_evaluation(LeducPokerEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1
cdef void ld_evaluate(LeducPokerEvaluation* E, LDState* st, double* win,
                      double* margin) noexcept nogil


cdef inline void ld_prior(LeducPokerEvaluation* E, LDState* st, int* actions, int n,
                          double* prior) noexcept nogil:
    """Uniform (never read, as ld_fill_evaluation refuses PUCT selection)."""
    cdef int i
    for i in range(n):
        prior[i] = 1.0 / n


cdef inline int ld_rollout_action(LeducPokerEvaluation* E, LDState* st, int* actions,
                                  int n) noexcept nogil:
    """A uniformly random legal action, drawn with the position's own chance word."""
    return actions[random_below(&st.rng, n)]
