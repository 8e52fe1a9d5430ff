# The narrow game interface the compiled search runs on (OpenSpiel's State is the model):
# legal actions, apply, the seat to act, the end, the rng that drives chance, and sampling a
# full state from a view; and each game's knowledge for the search, from its own module
# (mcts/_<game>_search.pyx): the leaf evaluation, the rollout policy, the prior over
# actions, and the decisions made off the tree below the root. A position of any game fits
# in one AnyState and a game's evaluation settings in one AnyEvaluation; each function
# dispatches on the game. The bodies are here so that the search inlines them (a switch on
# a constant per tree costs nothing beside the rules calls). This is the one place of the
# search that names the games.

from libc.stdint cimport uint64_t

from council.engine._core cimport (
    GameState, MAX_PLAYERS, N_ACTIONS, State, apply_action, determinize, legal_actions,
)
from council.engine._kuhn_poker cimport (
    KP_N_ACTIONS, KP_PLAYERS, KPState, KuhnPokerState, kp_apply, kp_deal_all, kp_determinize,
    kp_hand_start, kp_info_key, kp_legal_actions,
)
from council.engine._leduc_poker cimport (
    LD_N_ACTIONS, LD_PLAYERS, LDState, LeducPokerState, ld_apply, ld_deal_all, ld_determinize,
    ld_hand_start, ld_info_key, ld_legal_actions,
)
from council.engine._the_council cimport (
    PH_OVER, TC_MAX_PLAYERS, TC_N_ACTIONS, TCState, TheCouncilState, tc_apply,
    tc_legal_actions,
)
from council.mcts._council_of_four_search cimport (
    CouncilOfFourEvaluation, cof_below_root_action, cof_evaluate, cof_fill_evaluation,
    cof_pending_decision, cof_prior, cof_rollout_action,
)
from council.mcts._kuhn_poker_search cimport (
    KuhnPokerEvaluation, kp_evaluate, kp_fill_evaluation, kp_prior, kp_rollout_action,
)
from council.mcts._leduc_poker_search cimport (
    LeducPokerEvaluation, ld_evaluate, ld_fill_evaluation, ld_prior, ld_rollout_action,
)
from council.mcts._the_council_search cimport (
    TheCouncilEvaluation, tc_below_root_action, tc_belief_determinize, tc_evaluate,
    tc_fill_evaluation, tc_prior, tc_rollout_action,
)

cdef enum:
    GAME_COUNCIL_OF_FOUR = 0
    GAME_THE_COUNCIL = 1
    GAME_KUHN_POKER = 2
    GAME_LEDUC_POKER = 3
    # The largest seat count and action space of the games (any_bounds_hold, checked when
    # _search loads).
    ANY_MAX_PLAYERS = 5
    ANY_N_ACTIONS = 605

ctypedef union AnyState:
    GameState cof
    TCState tc
    KPState kp
    LDState ld

ctypedef union AnyEvaluation:
    CouncilOfFourEvaluation cof
    TheCouncilEvaluation tc
    KuhnPokerEvaluation kp
    LeducPokerEvaluation ld


cdef inline bint any_bounds_hold():
    cdef int most_players = ANY_MAX_PLAYERS, most_actions = ANY_N_ACTIONS
    return (most_players >= MAX_PLAYERS and most_players >= TC_MAX_PLAYERS
            and most_actions >= N_ACTIONS and most_actions >= TC_N_ACTIONS
            and most_players >= KP_PLAYERS and most_actions >= KP_N_ACTIONS
            and most_players >= LD_PLAYERS and most_actions >= LD_N_ACTIONS)


cdef inline int any_load(AnyState* s, object position) except -1:
    """Copy a position of any game into `s`; its game."""
    if isinstance(position, State):
        s.cof = (<State>position).s
        return GAME_COUNCIL_OF_FOUR
    if isinstance(position, TheCouncilState):
        s.tc = (<TheCouncilState>position).s
        return GAME_THE_COUNCIL
    if isinstance(position, KuhnPokerState):
        s.kp = (<KuhnPokerState>position).s
        return GAME_KUHN_POKER
    if isinstance(position, LeducPokerState):
        s.ld = (<LeducPokerState>position).s
        return GAME_LEDUC_POKER
    raise TypeError(f"root: a position of a registered game, not {type(position).__name__}")


cdef inline int any_fill_evaluation(int game, AnyEvaluation* E, dict params, bint with_prior,
                                    object value_model, object policy_model) except -1:
    """The game's evaluation settings from a SearchConfig's params() dict, and the learned
    models they call for (`with_prior`: the search selects by PUCT); ValueError where the
    game has no such model."""
    if game == GAME_THE_COUNCIL:
        return tc_fill_evaluation(&E.tc, params, with_prior, value_model, policy_model)
    if game == GAME_KUHN_POKER:
        return kp_fill_evaluation(&E.kp, params, with_prior, value_model, policy_model)
    if game == GAME_LEDUC_POKER:
        return ld_fill_evaluation(&E.ld, params, with_prior, value_model, policy_model)
    return cof_fill_evaluation(&E.cof, params, with_prior, value_model, policy_model)


cdef inline void any_evaluate(int game, AnyEvaluation* E, AnyState* s, int viewer,
                              uint64_t* rng, double* win, double* margin) noexcept nogil:
    """Every seat's win chance and score margin over the best other seat at a leaf
    (`viewer`: the searching seat, -1 in a full-state search; `rng`: the search's own)."""
    if game == GAME_THE_COUNCIL:
        tc_evaluate(&E.tc, &s.tc, win, margin)
    elif game == GAME_KUHN_POKER:
        kp_evaluate(&E.kp, &s.kp, win, margin)
    elif game == GAME_LEDUC_POKER:
        ld_evaluate(&E.ld, &s.ld, win, margin)
    else:
        cof_evaluate(&E.cof, &s.cof, viewer, rng, win, margin)


cdef inline int any_rollout_action(int game, AnyEvaluation* E, AnyState* s, int* actions,
                                   int n) noexcept nogil:
    """The rollout policy's pick among the legal `actions`."""
    if game == GAME_THE_COUNCIL:
        return tc_rollout_action(&E.tc, &s.tc, actions, n)
    if game == GAME_KUHN_POKER:
        return kp_rollout_action(&E.kp, &s.kp, actions, n)
    if game == GAME_LEDUC_POKER:
        return ld_rollout_action(&E.ld, &s.ld, actions, n)
    return cof_rollout_action(&E.cof, &s.cof, actions, n)


cdef inline void any_prior(int game, AnyEvaluation* E, AnyState* s, int* actions, int n,
                           double* prior) noexcept nogil:
    """The prior over the legal `actions` (PUCT selection)."""
    if game == GAME_THE_COUNCIL:
        tc_prior(&E.tc, &s.tc, actions, n, prior)
    elif game == GAME_KUHN_POKER:
        kp_prior(&E.kp, &s.kp, actions, n, prior)
    elif game == GAME_LEDUC_POKER:
        ld_prior(&E.ld, &s.ld, actions, n, prior)
    else:
        cof_prior(&E.cof, &s.cof, actions, n, prior)


cdef inline int any_below_root_action(int game, AnyEvaluation* E, AnyState* s, int* actions,
                                      int n) noexcept nogil:
    """Below the root: the action the game makes off the tree for this decision, or -1
    where the decision is a tree node."""
    if game == GAME_THE_COUNCIL:
        return tc_below_root_action(&E.tc, &s.tc, actions, n)
    if game == GAME_KUHN_POKER or game == GAME_LEDUC_POKER:
        return -1  # every decision is a tree node
    return cof_below_root_action(&E.cof, &s.cof, actions, n)


cdef inline bint any_pending_decision(int game, AnyState* s) noexcept nogil:
    """The seat to act is in the middle of a decision (a payment, a bonus choice)."""
    if game == GAME_THE_COUNCIL or game == GAME_KUHN_POKER or game == GAME_LEDUC_POKER:
        return False
    return cof_pending_decision(&s.cof)


cdef inline int any_legal_actions(int game, AnyState* s, int* out) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return tc_legal_actions(&s.tc, out)
    if game == GAME_KUHN_POKER:
        return kp_legal_actions(&s.kp, out)
    if game == GAME_LEDUC_POKER:
        return ld_legal_actions(&s.ld, out)
    return legal_actions(&s.cof, out)


cdef inline void any_apply(int game, AnyState* s, int action) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        tc_apply(&s.tc, action)
    elif game == GAME_KUHN_POKER:
        kp_apply(&s.kp, action)
    elif game == GAME_LEDUC_POKER:
        ld_apply(&s.ld, action)
    else:
        apply_action(&s.cof, action)


cdef inline void any_determinize(int game, AnyEvaluation* E, AnyState* s,
                                 uint64_t seed) noexcept nogil:
    """A full state of the view `s`; a game may weight its deals by the others' actions
    (its beliefs, among its evaluation settings `E`)."""
    if game == GAME_THE_COUNCIL:
        tc_belief_determinize(&E.tc, &s.tc, seed)
    elif game == GAME_KUHN_POKER:
        kp_determinize(&s.kp, seed)
    elif game == GAME_LEDUC_POKER:
        ld_determinize(&s.ld, seed)
    else:
        determinize(&s.cof, seed)


cdef inline uint64_t* any_rng(int game, AnyState* s) noexcept nogil:
    """The word that drives the position's chance (card draws, reveals)."""
    if game == GAME_THE_COUNCIL:
        return &s.tc.rng
    if game == GAME_KUHN_POKER:
        return &s.kp.rng
    if game == GAME_LEDUC_POKER:
        return &s.ld.rng
    return &s.cof.rng


cdef inline bint any_game_over(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.phase == PH_OVER
    if game == GAME_KUHN_POKER:
        return s.kp.current < 0
    if game == GAME_LEDUC_POKER:
        return s.ld.current < 0
    return s.cof.game_over


cdef inline int any_current(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.current
    if game == GAME_KUHN_POKER:
        return s.kp.current
    if game == GAME_LEDUC_POKER:
        return s.ld.current
    return s.cof.current


cdef inline int any_n_players(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.n_players
    if game == GAME_KUHN_POKER:
        return s.kp.n_players
    if game == GAME_LEDUC_POKER:
        return s.ld.n_players
    return s.cof.n_players


cdef inline int any_viewer(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.viewer
    if game == GAME_KUHN_POKER:
        return s.kp.viewer
    if game == GAME_LEDUC_POKER:
        return s.ld.viewer
    return s.cof.viewer


# The search from the start of the hand (SearchConfig.search_root = "hand"): a game that
# keeps the record of every action since its hand began (Kuhn and Leduc poker: their
# betting) says so here; the others answer -1 and refuse that search.

cdef inline int any_hand_start(int game, AnyState* s, int* history, int most) noexcept nogil:
    """Rewind the view `s` to the start of its hand, writing the actions every seat took
    since (from the position's own record) into `history`; their count, or -1 where the
    game keeps no such record (or it is longer than `most`)."""
    if game == GAME_KUHN_POKER:
        return kp_hand_start(&s.kp, history, most)
    if game == GAME_LEDUC_POKER:
        return ld_hand_start(&s.ld, history, most)
    return -1


cdef inline void any_deal_all(int game, AnyState* s, uint64_t seed) noexcept nogil:
    """A full state from a position rewound by any_hand_start: every card the public does
    not see dealt at random, the viewer's own included."""
    if game == GAME_KUHN_POKER:
        kp_deal_all(&s.kp, seed)
    elif game == GAME_LEDUC_POKER:
        ld_deal_all(&s.ld, seed)


cdef inline int any_info_key(int game, AnyState* s, int seat) noexcept nogil:
    """What `seat` knows that the public does not, as a number in 0..127 (Kuhn poker: its
    card): the search from the start of the hand keys each seat's nodes by it, so that a
    seat's choices depend on its own cards and on nobody else's."""
    if game == GAME_KUHN_POKER:
        return kp_info_key(&s.kp, seat)
    if game == GAME_LEDUC_POKER:
        return ld_info_key(&s.ld, seat)
    return 0
