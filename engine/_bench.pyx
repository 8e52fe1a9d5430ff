"""Compiled loops for ``bench/engine.py``: each runs on one core without the GIL.

Kept out of the rules module: they only time the core's nogil functions.
"""

from libc.stdint cimport uint64_t

from council.engine._council_of_four cimport (
    N_ACTIONS, GameState, CouncilOfFourState, determinize, legal_actions, random_playout,
    setup_game,
)
from council.engine._random cimport random_below
from council.engine._the_council cimport (
    PH_OVER, TC_N_ACTIONS, TCState, TheCouncilState, tc_apply, tc_determinize, tc_legal_actions,
    tc_new_game,
)

cdef extern from *:
    """
    #define compiler_barrier(p) __asm__ __volatile__("" : : "r"(p) : "memory")
    """
    void compiler_barrier(void* p) nogil


def bench_random_games(int n_players, int n_games, uint64_t seed, int layout=2):
    """Play n_games uniformly random games; return (total actions, total games)."""
    cdef GameState s
    cdef long long actions = 0
    cdef int g
    with nogil:
        for g in range(n_games):
            setup_game(&s, n_players, layout, 20, 0, True, False, seed + g)
            actions += random_playout(&s, 10_000_000)
    return actions, n_games


def bench_clone(CouncilOfFourState state, int n):
    """Copy the state n times into a scratch struct (a whole-struct copy each time)."""
    cdef GameState scratch
    cdef int _i
    cdef long long acc = 0
    with nogil:
        for _i in range(n):
            scratch = state.s
            # Tell the compiler the copy is observed, or it drops all but the last one.
            compiler_barrier(&scratch)
            acc += scratch.turn
    return acc


def bench_legal_actions(CouncilOfFourState state, int n):
    """List the legal actions of the state n times; return the summed counts."""
    cdef int buf[N_ACTIONS]
    cdef int _i
    cdef long long acc = 0
    with nogil:
        for _i in range(n):
            acc += legal_actions(&state.s, buf)
    return acc


def bench_determinize(CouncilOfFourState view, int n, uint64_t seed):
    """Determinize a view n times with seeds seed, seed + 1, ..."""
    cdef GameState scratch
    cdef int i
    cdef long long acc = 0
    with nogil:
        for i in range(n):
            scratch = view.s
            determinize(&scratch, seed + i)
            acc += scratch.hand[0][0]
    return acc


def bench_the_council_games(int n_players, int n_games, uint64_t seed):
    """The Council: play n_games uniformly random games; return (total actions, games)."""
    cdef TCState s
    cdef int buf[TC_N_ACTIONS]
    cdef long long actions = 0
    cdef uint64_t rng = seed
    cdef int g
    with nogil:
        for g in range(n_games):
            tc_new_game(&s, n_players, seed + g)
            while s.phase != PH_OVER:
                tc_apply(&s, buf[random_below(&rng, tc_legal_actions(&s, buf))])
                actions += 1
    return actions, n_games


def bench_the_council_determinize(TheCouncilState view, int n, uint64_t seed):
    """The Council: determinize a view n times with seeds seed, seed + 1, ..."""
    cdef TCState scratch
    cdef int i
    cdef long long acc = 0
    with nogil:
        for i in range(n):
            scratch = view.s
            tc_determinize(&scratch, seed + i)
            acc += scratch.deck[0]
    return acc
