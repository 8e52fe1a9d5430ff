"""The Council's knowledge for the compiled search (mcts/_search.pyx reaches it through
mcts/_games.pxd): a hand-set leaf heuristic and a cheap policy, which plays the rollouts
and makes the secret choices (draft picks, cards to reveal) below the root."""

from libc.math cimport exp
from libc.stdint cimport uint64_t

from council.engine._random cimport game_rng, next_random
from council.engine._the_council cimport (
    CARD_KIND, CARD_SUITS, CK_ACE, CK_COURT, CK_CROWN, LOC_FACEDOWN, LOC_PACK,
    PH_BID, PH_DRAFT, PH_OVER, PH_REVEAL, TC_EVENTS, TC_MAX_PLAYERS, TC_N_ACTIONS, TC_N_CARDS,
    TC_N_SUITS, TCState, TheCouncilState, drafted_cards, tc_determinize, tc_legal_actions,
    tc_winners_mask,
)
from council.mcts._heuristics cimport margins, popcount64, share_wins, softmax, uniform01

# The SearchConfig settings this module reads (the others are the search's own or another
# game's).
SETTINGS = (
    "evaluator", "tree_secrets", "uniform_rollout", "temperature", "beliefs", "belief_samples",
    "belief_floor",
)

cdef enum:
    TC_MAX_BELIEF_SAMPLES = 32

MAX_BELIEF_SAMPLES = TC_MAX_BELIEF_SAMPLES

# The cheap policy (tc_policy_pick): a bidder adds a chip it could lead with at this chance,
# else ends its offer; a Court (whose traitor chip needs a failure) is revealed at this
# chance. (Measured with the settings of THE_COUNCIL_CONFIG, mcts/the_council_agents.py.)
TC_BID_ON = 0.85
TC_COURT_REVEAL = 0.5
COURT_REVEAL = TC_COURT_REVEAL  # for Python (the opponent model's tests)


cdef int tc_fill_evaluation(TheCouncilEvaluation* E, dict params, bint with_prior,
                            object value_model, object policy_model) except -1:
    """Copy this game's settings of a SearchConfig's params() dict into the C struct."""
    if params["evaluator"] == "learned" or with_prior:
        raise ValueError("The Council has no learned models yet: search it with "
                         "evaluator=heuristic and policy=none")
    E.tree_secrets = params["tree_secrets"]
    E.uniform_rollout = params["uniform_rollout"]
    E.temperature = params["temperature"]
    if not 1 <= params["belief_samples"] <= TC_MAX_BELIEF_SAMPLES:
        raise ValueError(f"belief_samples: must be in 1..{TC_MAX_BELIEF_SAMPLES}, "
                         f"got {params['belief_samples']}")
    if not 0 < params["belief_floor"] <= 1:
        # A floor of 0 could exclude a deal the view allows (a pick the model never makes).
        raise ValueError(f"belief_floor: must be in (0, 1], got {params['belief_floor']}")
    E.beliefs = params["beliefs"]
    E.belief_samples = params["belief_samples"]
    E.belief_floor = params["belief_floor"]
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


# ---------------------------------------------------------------------------------------
# Beliefs from the others' actions (issue #36). The opponent model is the cheap policy
# (tc_policy_pick), the one that makes the secret choices below the root: a seat picks a
# card with chance proportional to e^(its pick score), and reveals Crowns, the cards that
# act in the event's suits and (at TC_COURT_REVEAL) Courts. Every chance is mixed with a
# uniform choice at the floor, so that no deal the view allows is excluded.

cdef double PICK_WEIGHT[TC_N_CARDS]    # e^(the cheap policy's pick score) of each card


cdef void _fill_pick_weights():
    cdef int c
    cdef double r
    for c in range(TC_N_CARDS):
        r = popcount64(CARD_SUITS[c])
        if CARD_KIND[c] == CK_CROWN:
            r += 2.0
        elif CARD_KIND[c] == CK_ACE:
            r += 1.5
        PICK_WEIGHT[c] = exp(r)


_fill_pick_weights()


cdef inline int pack_of(TCState* st, int seat, int draft_round) noexcept nogil:
    """The pack `seat` held in `draft_round` (kept non-negative for C's %)."""
    return (seat + TC_MAX_PLAYERS * st.n_players - draft_round) % st.n_players


cdef double tc_history_weight(TCState* st, TCState* view, double floor) noexcept nogil:
    """How likely the full state `st` (a deal of `view`) makes the picks the others made
    this hand in the packs the viewer has not held (the others are known alike in every
    deal): the product over those picks of the model's chance of the pick among the cards
    the pack held then (those left in it, its face-down card, the picks made from it since).
    1.0 where there is no such pick, or the history is not known."""
    cdef int r, r2, p, q, k, c, c2, count, viewer = view.viewer, n = st.n_players
    cdef double weight = 1.0, total
    for r in range(st.draft_round):
        for p in range(n):
            c = st.draft_picks[p][r]
            k = pack_of(st, p, r)
            if c < 0 or p == viewer or view.pack_seen[k] >> viewer & 1:
                continue
            total = 0.0
            count = 0
            for c2 in range(TC_N_CARDS):
                if st.card_loc[c2] == LOC_PACK + k or st.card_loc[c2] == LOC_FACEDOWN + k:
                    total += PICK_WEIGHT[c2]
                    count += 1
            for r2 in range(r, st.draft_round):
                q = (k + r2) % n
                c2 = st.draft_picks[q][r2]
                if c2 < 0:
                    return 1.0
                total += PICK_WEIGHT[c2]
                count += 1
            weight *= (1.0 - floor) * PICK_WEIGHT[c] / total + floor / count
    return weight


cdef bint history_uncertain(TCState* view) noexcept nogil:
    """Some other seat's pick this hand came from a pack the viewer has not held."""
    cdef int r, p
    for r in range(view.draft_round):
        for p in range(view.n_players):
            if (p != view.viewer and view.draft_picks[p][r] >= 0
                    and not view.pack_seen[pack_of(view, p, r)] >> view.viewer & 1):
                return True
    return False


cdef double reveal_chance(TCState* st, int c) noexcept nogil:
    """The cheap policy's chance that a seat reveals its drafted card `c` in this event."""
    if st.events_done == TC_EVENTS - 1 or CARD_KIND[c] == CK_CROWN:
        return 1.0
    if CARD_KIND[c] == CK_COURT:
        return TC_COURT_REVEAL
    return 1.0 if CARD_SUITS[c] & CARD_SUITS[st.event] else 0.0


cdef void model_secrets(TCState* st, int viewer, double floor, uint64_t* rng) noexcept nogil:
    """Redraw the others' secret choices of a deal from the opponent model: this round's
    picks of the seats before the one to act, and the cards to reveal of the seats that
    have bid in this event."""
    cdef int cards[TC_N_CARDS]
    cdef int i, c, k, p, pos, m, n = st.n_players
    cdef double total, r
    if st.phase == PH_DRAFT:
        for p in range(st.current):
            if p == viewer:
                continue
            k = pack_of(st, p, st.draft_round)
            m = 0
            total = 0.0
            for c in range(TC_N_CARDS):
                if st.card_loc[c] == LOC_PACK + k:
                    st.card_pending[c] = 0
                    cards[m] = c
                    total += PICK_WEIGHT[c]
                    m += 1
            r = uniform01(rng)
            for i in range(m):
                r -= (1.0 - floor) * PICK_WEIGHT[cards[i]] / total + floor / m
                if r < 0.0 or i == m - 1:
                    st.card_pending[cards[i]] = 1
                    break
    elif st.phase == PH_BID or st.phase == PH_REVEAL:
        for pos in range(st.bids_done):
            p = (st.starter + pos) % n
            if p == viewer:
                continue
            for i in range(drafted_cards(st, p, cards)):
                r = (1.0 - floor) * reveal_chance(st, cards[i]) + 0.5 * floor
                st.card_pending[cards[i]] = uniform01(rng) < r


cdef void tc_belief_determinize(TheCouncilEvaluation* E, TCState* st,
                                uint64_t seed) noexcept nogil:
    """A full state of the view `st`: without beliefs, tc_determinize's uniform deal. With
    them, `belief_samples` deals are drawn and one is kept with chance proportional to
    tc_history_weight (sampling importance resampling: the deals weighted by the others'
    picks), where the history leaves the unseen packs in doubt; then the others' secret
    choices are redrawn from the opponent model."""
    cdef TCState deals[TC_MAX_BELIEF_SAMPLES]
    cdef double weights[TC_MAX_BELIEF_SAMPLES]
    cdef double total = 0.0, r
    cdef int i, chosen = 0, viewer = st.viewer, samples = 1
    cdef uint64_t rng
    if not E.beliefs:
        tc_determinize(st, seed)
        return
    rng = game_rng(seed, <uint64_t>0x62656c6965667331)  # "beliefs1"
    if E.belief_samples > 1 and history_uncertain(st):
        samples = E.belief_samples
    if samples == 1:
        tc_determinize(st, seed)
    else:
        for i in range(samples):
            deals[i] = st[0]
            tc_determinize(&deals[i], next_random(&rng))
            weights[i] = tc_history_weight(&deals[i], st, E.belief_floor)
            total += weights[i]
        r = uniform01(&rng) * total
        for i in range(samples):
            r -= weights[i]
            chosen = i
            if r < 0.0:
                break
        st[0] = deals[chosen]
    model_secrets(st, viewer, E.belief_floor, &rng)


def the_council_history_weight(TheCouncilState deal, TheCouncilState view, double floor):
    """tc_history_weight of a full state `deal` of `view`: how likely it makes the picks the
    others made this hand from the packs the viewer has not held (the opponent model's
    chances, mixed with a uniform pick at `floor`)."""
    if deal.s.viewer >= 0 or view.s.viewer < 0:
        raise ValueError("deal: a full state; view: a view")
    return tc_history_weight(&deal.s, &view.s, floor)


def the_council_belief_determinize(TheCouncilState view, uint64_t seed, dict params):
    """A full state of `view` as the search deals it with the `params` of a SearchConfig
    (tc_belief_determinize)."""
    cdef TheCouncilEvaluation E
    cdef TheCouncilState deal = TheCouncilState.__new__(TheCouncilState)
    if view.s.viewer < 0:
        raise ValueError("view: a seat's view, not a full state")
    tc_fill_evaluation(&E, params, False, None, None)
    deal.s = view.s
    tc_belief_determinize(&E, &deal.s, seed)
    return deal


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
