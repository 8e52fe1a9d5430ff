# The Council's knowledge for the search, reached through mcts/_games.pxd: its leaf
# heuristic, its cheap policy (rollouts, and the secret choices made off the tree below
# the root). It has no learned models and so no prior. The policy runs at every rollout
# step: its body is here, so that the search inlines it as it did before it moved out of it.

from libc.math cimport exp
from libc.stdint cimport uint64_t

from council.engine._random cimport random_below
from council.engine._the_council cimport (
    CARD_KIND, CARD_SUITS, CK_ACE, CK_COURT, CK_CROWN, PH_BID, PH_DRAFT, PH_REVEAL, TA_BID,
    TA_END_BID, TA_PICK, TA_REVEAL, TC_EVENTS, TC_N_ACTIONS, TC_N_CARDS, TC_N_SUITS, TCState,
    drafted_cards,
)
from council.mcts._heuristics cimport popcount64, uniform01

ctypedef struct TheCouncilEvaluation:
    # The settings of SETTINGS (a SearchConfig's).
    # 1: secret choices (draft picks, cards to reveal) below the root are tree nodes; 0: they
    # are not, the cheap policy makes them
    int tree_secrets
    int uniform_rollout           # 1: uniformly random rollout actions instead of the policy
    double temperature            # score scale of the heuristic's softmax into win chances
    # Beliefs from the others' actions (tc_belief_determinize): 1: on
    int beliefs
    int belief_samples            # deals drawn per determinization, resampled by weight
    double belief_floor           # the opponent model's share given to a uniform choice

cdef int tc_fill_evaluation(TheCouncilEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1
cdef void tc_evaluate(TheCouncilEvaluation* E, TCState* st, double* win,
                      double* margin) noexcept nogil
cdef void tc_belief_determinize(TheCouncilEvaluation* E, TCState* st,
                                uint64_t seed) noexcept nogil

# The cheap policy's chances (set in the .pyx, where their measurement is noted).
cdef double TC_BID_ON
cdef double TC_COURT_REVEAL


cdef inline void tc_prior(TheCouncilEvaluation* E, TCState* st, int* actions, int n,
                          double* prior) noexcept nogil:
    """No prior: uniform (never read, as tc_fill_evaluation refuses PUCT selection)."""
    cdef int i
    for i in range(n):
        prior[i] = 1.0 / n


cdef inline int tc_policy_pick(TCState* st, int* actions, int n, bint uniform,
                               uint64_t* rng) noexcept nogil:
    """The Council's cheap policy (rollouts, and secret choices below the root):
    - draft: a card with probability proportional to e^(its suits, + 2 for a Crown,
      + 1.5 for an Ace): more chips, and the cards that gain a rank;
    - bid: one more chip in an event suit where the seat does not lead yet, at
      TC_BID_ON, else the end of the offer;
    - reveal: Crowns, the cards that act in the event's suits, Courts at TC_COURT_REVEAL;
      at the hand's last event every card (unrevealed cards are lost, TC8).
    With `uniform`, a uniformly random legal action instead."""
    cdef double weights[TC_N_ACTIONS]
    cdef int lead_suits[TC_N_SUITS]
    cdef int drafted[TC_N_CARDS]
    cdef int i, c, x, q, m, top, mask, seat = st.current
    cdef double total = 0.0, r
    if uniform:
        return actions[random_below(rng, n)]
    if st.phase == PH_DRAFT:
        for i in range(n):
            c = actions[i] - TA_PICK
            r = popcount64(CARD_SUITS[c])
            if CARD_KIND[c] == CK_CROWN:
                r += 2.0
            elif CARD_KIND[c] == CK_ACE:
                r += 1.5
            weights[i] = exp(r)
            total += weights[i]
        r = uniform01(rng) * total
        for i in range(n - 1):
            r -= weights[i]
            if r < 0.0:
                return actions[i]
        return actions[n - 1]
    if st.phase == PH_BID:
        m = 0
        for i in range(n):
            if actions[i] == TA_END_BID:
                continue
            x = actions[i] - TA_BID
            top = 0
            for q in range(st.n_players):
                if q != seat and st.bid[q][x] > top:
                    top = st.bid[q][x]
            if st.bid[seat][x] <= top:
                lead_suits[m] = actions[i]
                m += 1
        if m > 0 and uniform01(rng) < TC_BID_ON:
            return lead_suits[random_below(rng, m)]
        return TA_END_BID
    mask = 0
    for i in range(drafted_cards(st, seat, drafted)):
        c = drafted[i]
        if (st.events_done == TC_EVENTS - 1 or CARD_KIND[c] == CK_CROWN
                or (CARD_KIND[c] == CK_COURT and uniform01(rng) < TC_COURT_REVEAL)
                or (CARD_KIND[c] != CK_COURT and CARD_SUITS[c] & CARD_SUITS[st.event])):
            mask |= 1 << i
    return TA_REVEAL + mask


cdef inline int tc_rollout_action(TheCouncilEvaluation* E, TCState* st, int* actions,
                                  int n) noexcept nogil:
    """The cheap policy's action, drawn with the position's own chance word."""
    return tc_policy_pick(st, actions, n, E.uniform_rollout, &st.rng)


cdef inline int tc_below_root_action(TheCouncilEvaluation* E, TCState* st, int* actions,
                                     int n) noexcept nogil:
    """A secret choice below the root (unless tree_secrets): the cheap policy's, made at
    once; -1 for a bid (a tree node)."""
    # As a node it would split statistics over worlds the searching seat cannot tell apart,
    # and the seats after it would choose knowing the secret (1,000 iterations, one seat
    # against three experts: 0.378 against 0.325, 200 games).
    if E.tree_secrets or not (st.phase == PH_DRAFT or st.phase == PH_REVEAL):
        return -1
    return tc_policy_pick(st, actions, n, E.uniform_rollout, &st.rng)
