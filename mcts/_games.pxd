# The narrow game interface the compiled search runs on (OpenSpiel's State is the model):
# legal actions, apply, the seat to act, the end, the rng that drives chance, and sampling a
# full state from a view. A position of any game fits in one AnyState; each function
# dispatches on the game. The bodies are here so that the search inlines them (a switch on
# a constant per tree costs nothing beside the rules calls).

from libc.stdint cimport uint64_t

from council.engine._core cimport (
    GameState, MAX_PLAYERS, N_ACTIONS, apply_action, determinize, legal_actions,
)
from council.engine._the_council cimport (
    PH_OVER, TC_MAX_PLAYERS, TC_N_ACTIONS, TCState, tc_apply, tc_determinize,
    tc_legal_actions,
)

cdef enum:
    GAME_COUNCIL_OF_FOUR = 0
    GAME_THE_COUNCIL = 1
    # The largest seat count and action space of the games (checked when _search loads).
    ANY_MAX_PLAYERS = 5
    ANY_N_ACTIONS = 605

ctypedef union AnyState:
    GameState cof
    TCState tc


cdef inline int any_legal_actions(int game, AnyState* s, int* out) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return tc_legal_actions(&s.tc, out)
    return legal_actions(&s.cof, out)


cdef inline void any_apply(int game, AnyState* s, int action) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        tc_apply(&s.tc, action)
    else:
        apply_action(&s.cof, action)


cdef inline void any_determinize(int game, AnyState* s, uint64_t seed) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        tc_determinize(&s.tc, seed)
    else:
        determinize(&s.cof, seed)


cdef inline uint64_t* any_rng(int game, AnyState* s) noexcept nogil:
    """The word that drives the position's chance (card draws, reveals)."""
    if game == GAME_THE_COUNCIL:
        return &s.tc.rng
    return &s.cof.rng


cdef inline bint any_game_over(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.phase == PH_OVER
    return s.cof.game_over


cdef inline int any_current(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.current
    return s.cof.current


cdef inline int any_n_players(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.n_players
    return s.cof.n_players


cdef inline int any_viewer(int game, AnyState* s) noexcept nogil:
    if game == GAME_THE_COUNCIL:
        return s.tc.viewer
    return s.cof.viewer
