# Pieces the games' hand-set evaluations and cheap policies share: win chances and score
# margins from estimated scores, and a uniform draw. The bodies are here so that every
# game's search module inlines them (they run at every leaf and rollout step).

from libc.math cimport exp
from libc.stdint cimport uint64_t

from council.engine._random cimport next_random

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil


cdef inline double uniform01(uint64_t* rng) noexcept nogil:
    return (next_random(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline void share_wins(int mask, int n, double* win) noexcept nogil:
    """Win 1/k for each of the k seats in `mask`, 0 for the others."""
    cdef int p, winners = 0
    for p in range(n):
        winners += (mask >> p) & 1
    for p in range(n):
        win[p] = (1.0 / winners) if (mask >> p) & 1 else 0.0


cdef inline void softmax(double* est, int n, double temperature, double* win) noexcept nogil:
    """Win chances from estimated scores: their softmax at this score scale."""
    cdef int p
    cdef double top = est[0], z = 0.0
    for p in range(1, n):
        if est[p] > top:
            top = est[p]
    for p in range(n):
        win[p] = exp((est[p] - top) / temperature)
        z += win[p]
    for p in range(n):
        win[p] /= z


cdef inline void margins(double* est, int n, double* margin) noexcept nogil:
    """Each seat's estimated score less the best other seat's."""
    cdef int p, q
    cdef double best_other
    for p in range(n):
        best_other = -1e9
        for q in range(n):
            if q != p and est[q] > best_other:
                best_other = est[q]
        margin[p] = est[p] - best_other
