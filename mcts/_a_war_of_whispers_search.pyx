"""A War of Whispers' knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): at the end, the exact result; before it, each player's score if the game
ended now (loyalty times the cities each empire holds, the agents on the map counted), as
win chances by softmax; the cheap rollout policy (in the .pxd) and a uniform prior."""

from council.engine._a_war_of_whispers cimport (
    AW_MAP_AGENTS, AW_MAX_PLAYERS, AW_N_EMPIRES, N_REGIONS, PH_OVER, REGION_CITIES,
    aw_winners_mask,
)
from council.mcts._heuristics cimport margins, share_wins, softmax

# The SearchConfig settings this module reads (the others are the search's own).
SETTINGS = ("evaluator", "temperature", "uniform_rollout")

cdef int[5] LOYALTY = [4, 3, 2, 0, -1]   # by slot, as the core scores them


cdef int aw_fill_evaluation(AWarOfWhispersEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1:
    if params["evaluator"] == "learned" or with_prior:
        raise ValueError("A War of Whispers has no learned models: search it with "
                         "evaluator=heuristic and policy=none")
    E.temperature = params["temperature"]
    E.uniform_rollout = params["uniform_rollout"]
    return 0


cdef void aw_evaluate(AWarOfWhispersEvaluation* E, AWState* st, double* win,
                      double* margin) noexcept nogil:
    """The final scores and winners at the end; before it, the scores the map gives now."""
    cdef double est[AW_MAX_PLAYERS]
    cdef int cities[AW_N_EMPIRES]
    cdef int p, e, r, i, n = st.n_players
    if st.phase == PH_OVER:
        for p in range(n):
            est[p] = st.score[p]
        share_wins(aw_winners_mask(st), n, win)
    else:
        for e in range(AW_N_EMPIRES):
            cities[e] = 0
        for r in range(N_REGIONS):
            if st.owner[r] >= 0:
                cities[st.owner[r]] += REGION_CITIES[r]
        for p in range(n):
            est[p] = 0
            for e in range(AW_N_EMPIRES):
                est[p] += LOYALTY[st.loyalty[p][e]] * cities[e]
            for i in range(AW_MAP_AGENTS):
                r = st.map_agent[p][i]
                if r >= 0 and st.owner[r] >= 0:
                    est[p] += LOYALTY[st.loyalty[p][st.owner[r]]]
        softmax(est, n, E.temperature, win)
    margins(est, n, margin)
