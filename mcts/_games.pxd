# The narrow game interface the compiled search runs on (OpenSpiel's State is the model):
# legal actions, apply, the seat to act, the end, the rng that drives chance, and sampling a
# full state from a view; and each game's knowledge for the search, from its own module
# (mcts/_<game>_search.pyx): the leaf evaluation, the rollout policy, the prior over
# actions, and the decisions made off the tree below the root. Each function takes a game's
# own state (the fused GameStateT): the search is compiled once per game, so that an
# iteration copies only its game's state and every call below is resolved when it is
# compiled (no switch at run time). A position of any game is loaded into one AnyState (the
# tree's root: one copy per search) and a game's evaluation settings into one AnyEvaluation.
# This is the one place of the search that names the games.

from libc.stdint cimport uint64_t

from council.engine._a_war_of_whispers cimport (
    AW_MAX_PLAYERS, AW_N_ACTIONS, AWarOfWhispersState, AWState, aw_apply, aw_determinize,
    aw_legal_actions,
)
from council.engine._council_of_four cimport (
    GameState, MAX_PLAYERS, N_ACTIONS, CouncilOfFourState, apply_action, determinize, legal_actions,
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
from council.mcts._a_war_of_whispers_search cimport (
    AWarOfWhispersEvaluation, aw_evaluate, aw_fill_evaluation, aw_prior, aw_rollout_action,
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
    GAME_A_WAR_OF_WHISPERS = 4
    # The largest seat count of the games (any_bounds_hold, checked when _search loads): the
    # size of the search's per-seat arrays (a handful of doubles each).
    ANY_MAX_PLAYERS = 5
    # The tree keeps an action id in an int16_t (a node's size: the tree's memory and
    # cache footprint), so every game's action count must stay within it.
    MAX_ACTION_ID = 32767

# A game's own state: the search's iteration functions are compiled once per member.
ctypedef fused GameStateT:
    GameState
    TCState
    KPState
    LDState
    AWState

ctypedef union AnyState:
    GameState cof
    TCState tc
    KPState kp
    LDState ld
    AWState aw

ctypedef union AnyEvaluation:
    CouncilOfFourEvaluation cof
    TheCouncilEvaluation tc
    KuhnPokerEvaluation kp
    LeducPokerEvaluation ld
    AWarOfWhispersEvaluation aw


cdef inline bint any_bounds_hold():
    cdef int most_players = ANY_MAX_PLAYERS, most_action = MAX_ACTION_ID
    return (most_players >= MAX_PLAYERS and most_players >= TC_MAX_PLAYERS
            and most_players >= KP_PLAYERS and most_players >= LD_PLAYERS
            and most_players >= AW_MAX_PLAYERS
            and most_action >= N_ACTIONS and most_action >= TC_N_ACTIONS
            and most_action >= KP_N_ACTIONS and most_action >= LD_N_ACTIONS
            and most_action >= AW_N_ACTIONS)


cdef inline int any_load(AnyState* s, object position) except -1:
    """Copy a position of any game into `s`; its game."""
    if isinstance(position, CouncilOfFourState):
        s.cof = (<CouncilOfFourState>position).s
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
    if isinstance(position, AWarOfWhispersState):
        (<AWarOfWhispersState>position)._check_content()
        s.aw = (<AWarOfWhispersState>position).s
        return GAME_A_WAR_OF_WHISPERS
    raise TypeError(f"root: a position of a registered game, not {type(position).__name__}")


cdef inline int any_n_actions(int game) noexcept nogil:
    """The game's action count: its action ids are 0..count - 1, and the search's buffers
    indexed by action or holding the legal actions are this long."""
    if game == GAME_THE_COUNCIL:
        return TC_N_ACTIONS
    if game == GAME_KUHN_POKER:
        return KP_N_ACTIONS
    if game == GAME_LEDUC_POKER:
        return LD_N_ACTIONS
    if game == GAME_A_WAR_OF_WHISPERS:
        return AW_N_ACTIONS
    return N_ACTIONS


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
    if game == GAME_A_WAR_OF_WHISPERS:
        return aw_fill_evaluation(&E.aw, params, with_prior, value_model, policy_model)
    return cof_fill_evaluation(&E.cof, params, with_prior, value_model, policy_model)


# Each function below is resolved per game when the search is compiled (`GameStateT is`
# is a compile-time test): a game's branch is its whole body.

cdef inline void any_evaluate(AnyEvaluation* E, GameStateT* s, int viewer, uint64_t* rng,
                              double* win, double* margin) noexcept nogil:
    """Every seat's win chance and score margin over the best other seat at a leaf
    (`viewer`: the searching seat, -1 in a full-state search; `rng`: the search's own)."""
    if GameStateT is TCState:
        tc_evaluate(&E.tc, s, win, margin)
    elif GameStateT is KPState:
        kp_evaluate(&E.kp, s, win, margin)
    elif GameStateT is LDState:
        ld_evaluate(&E.ld, s, win, margin)
    elif GameStateT is AWState:
        aw_evaluate(&E.aw, s, win, margin)
    else:
        cof_evaluate(&E.cof, s, viewer, rng, win, margin)


cdef inline int any_rollout_action(AnyEvaluation* E, GameStateT* s, int* actions,
                                   int n) noexcept nogil:
    """The rollout policy's pick among the legal `actions`."""
    if GameStateT is TCState:
        return tc_rollout_action(&E.tc, s, actions, n)
    elif GameStateT is KPState:
        return kp_rollout_action(&E.kp, s, actions, n)
    elif GameStateT is LDState:
        return ld_rollout_action(&E.ld, s, actions, n)
    elif GameStateT is AWState:
        return aw_rollout_action(&E.aw, s, actions, n)
    else:
        return cof_rollout_action(&E.cof, s, actions, n)


cdef inline void any_prior(AnyEvaluation* E, GameStateT* s, int* actions, int n,
                           double* prior) noexcept nogil:
    """The prior over the legal `actions` (PUCT selection)."""
    if GameStateT is TCState:
        tc_prior(&E.tc, s, actions, n, prior)
    elif GameStateT is KPState:
        kp_prior(&E.kp, s, actions, n, prior)
    elif GameStateT is LDState:
        ld_prior(&E.ld, s, actions, n, prior)
    elif GameStateT is AWState:
        aw_prior(&E.aw, s, actions, n, prior)
    else:
        cof_prior(&E.cof, s, actions, n, prior)


cdef inline int any_below_root_action(AnyEvaluation* E, GameStateT* s, int* actions,
                                      int n) noexcept nogil:
    """Below the root: the action the game makes off the tree for this decision, or -1
    where the decision is a tree node."""
    if GameStateT is TCState:
        return tc_below_root_action(&E.tc, s, actions, n)
    elif GameStateT is GameState:
        return cof_below_root_action(&E.cof, s, actions, n)
    else:
        return -1  # every decision is a tree node


cdef inline bint any_pending_decision(GameStateT* s) noexcept nogil:
    """The seat to act is in the middle of a decision (a payment, a bonus choice)."""
    if GameStateT is GameState:
        return cof_pending_decision(s)
    else:
        return False


cdef inline int any_legal_actions(GameStateT* s, int* out) noexcept nogil:
    if GameStateT is TCState:
        return tc_legal_actions(s, out)
    elif GameStateT is KPState:
        return kp_legal_actions(s, out)
    elif GameStateT is LDState:
        return ld_legal_actions(s, out)
    elif GameStateT is AWState:
        return aw_legal_actions(s, out)
    else:
        return legal_actions(s, out)


cdef inline void any_apply(GameStateT* s, int action) noexcept nogil:
    if GameStateT is TCState:
        tc_apply(s, action)
    elif GameStateT is KPState:
        kp_apply(s, action)
    elif GameStateT is LDState:
        ld_apply(s, action)
    elif GameStateT is AWState:
        aw_apply(s, action)
    else:
        apply_action(s, action)


cdef inline void any_determinize(AnyEvaluation* E, GameStateT* s,
                                 uint64_t seed) noexcept nogil:
    """A full state of the view `s`; a game may weight its deals by the others' actions
    (its beliefs, among its evaluation settings `E`)."""
    if GameStateT is TCState:
        tc_belief_determinize(&E.tc, s, seed)
    elif GameStateT is KPState:
        kp_determinize(s, seed)
    elif GameStateT is LDState:
        ld_determinize(s, seed)
    elif GameStateT is AWState:
        aw_determinize(s, seed)
    else:
        determinize(s, seed)


cdef inline uint64_t* any_rng(GameStateT* s) noexcept nogil:
    """The word that drives the position's chance (card draws, reveals)."""
    return &s.rng


cdef inline bint any_game_over(GameStateT* s) noexcept nogil:
    if GameStateT is TCState:
        return s.phase == PH_OVER
    elif GameStateT is GameState:
        return s.game_over
    else:
        return s.current < 0


cdef inline int any_current(GameStateT* s) noexcept nogil:
    return s.current


cdef inline int any_n_players(GameStateT* s) noexcept nogil:
    return s.n_players


cdef inline int any_viewer(GameStateT* s) noexcept nogil:
    return s.viewer


# The search from the start of the hand (SearchConfig.search_root = "hand"): a game that
# keeps the record of every action since its hand began (Kuhn and Leduc poker: their
# betting) says so here; the others answer -1 and refuse that search.

cdef inline int any_hand_start(GameStateT* s, int* history, int most) noexcept nogil:
    """Rewind the view `s` to the start of its hand, writing the actions every seat took
    since (from the position's own record) into `history`; their count, or -1 where the
    game keeps no such record (or it is longer than `most`)."""
    if GameStateT is KPState:
        return kp_hand_start(s, history, most)
    elif GameStateT is LDState:
        return ld_hand_start(s, history, most)
    else:
        return -1


cdef inline void any_deal_all(GameStateT* s, uint64_t seed) noexcept nogil:
    """A full state from a position rewound by any_hand_start: every card the public does
    not see dealt at random, the viewer's own included."""
    if GameStateT is KPState:
        kp_deal_all(s, seed)
    elif GameStateT is LDState:
        ld_deal_all(s, seed)


cdef inline int any_info_key(GameStateT* s, int seat) noexcept nogil:
    """What `seat` knows that the public does not, as a number in 0..127 (Kuhn poker: its
    card): the search from the start of the hand keys each seat's nodes by it, so that a
    seat's choices depend on its own cards and on nobody else's."""
    if GameStateT is KPState:
        return kp_info_key(s, seat)
    elif GameStateT is LDState:
        return ld_info_key(s, seat)
    else:
        return 0
