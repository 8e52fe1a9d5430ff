"""Kuhn poker's knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): the exact chip returns at the end, uniform rollouts and prior.

A seat's reward is its chip gain mapped onto [0, 1], (gain + 2) / 4, so that the search's
mean reward orders actions as their expected chip gains do (a win chance alone would not
tell a 2-chip pot from a 1-chip one)."""

from council.engine._kuhn_poker cimport KP_PLAYERS, KPState

# The SearchConfig settings this module reads (the others are the search's own).
SETTINGS = ("evaluator",)


cdef int kp_fill_evaluation(KuhnPokerEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1:
    if params["evaluator"] == "learned" or with_prior:
        raise ValueError("Kuhn poker has no learned models: search it with "
                         "evaluator=heuristic and policy=none")
    E.unused = 0
    return 0


cdef void kp_evaluate(KuhnPokerEvaluation* E, KPState* st, double* win,
                      double* margin) noexcept nogil:
    """The chip gains at the end as rewards in [0, 1] (0.5 each before the end, where a
    rollout cut short leaves nothing known); the margin: a seat's gain less the other's."""
    cdef int p
    for p in range(KP_PLAYERS):
        win[p] = (st.score[p] + 2.0) / 4.0
        margin[p] = st.score[p] - st.score[1 - p]
