"""Leduc poker's knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): the exact chip returns at the end, uniform rollouts and prior.

A seat's reward is its chip gain mapped onto [0, 1], (gain + 13) / 26 (13: the most a seat
can put in), so that the search's mean reward orders actions as their expected chip gains do."""

from council.engine._leduc_poker cimport LD_MAX_PUT_IN, LD_PLAYERS, LDState

# The SearchConfig settings this module reads (the others are the search's own).
SETTINGS = ("evaluator",)


cdef int ld_fill_evaluation(LeducPokerEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1:
    if params["evaluator"] == "learned" or with_prior:
        raise ValueError("Leduc poker has no learned models: search it with "
                         "evaluator=heuristic and policy=none")
    E.unused = 0
    return 0


cdef void ld_evaluate(LeducPokerEvaluation* E, LDState* st, double* win,
                      double* margin) noexcept nogil:
    """The chip gains at the end as rewards in [0, 1] (0.5 each before the end, where a
    rollout cut short leaves nothing known); the margin: a seat's gain less the other's."""
    cdef int p
    for p in range(LD_PLAYERS):
        win[p] = (st.score[p] + <double>LD_MAX_PUT_IN) / (2.0 * LD_MAX_PUT_IN)
        margin[p] = st.score[p] - st.score[1 - p]
