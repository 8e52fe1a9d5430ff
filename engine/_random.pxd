# Random numbers shared by the rules cores and the search: splitmix64, one 64-bit word
# carried in a state. The bodies are here so that every module that cimports them inlines
# them (the search calls them on every rollout step).

from libc.stdint cimport uint64_t


cdef inline uint64_t next_random(uint64_t* rng) noexcept nogil:
    rng[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = rng[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t seed_word(object seed):
    """A Python integer seed as the RNG's 64-bit word: its low 64 bits, so that negative
    and larger seeds wrap instead of overflowing."""
    return <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)


cdef inline int random_below(uint64_t* rng, int n) noexcept nogil:
    # Lemire's multiply-shift; the bias for n < 1000 is below 1e-16.
    return <int>(((next_random(rng) >> 32) * <uint64_t>n) >> 32)


# A new game's RNG comes from its seed one-way: splitmix64's output function over the seed
# and a per-game domain constant, fed forward (added to the seed) and mixed again. The rng
# word of a full state then gives its seed back only by trying seeds, which a secret random
# 64-bit seed defeats (docs/service.md, "Seeds").
cdef inline uint64_t game_rng(uint64_t seed, uint64_t domain) noexcept nogil:
    cdef uint64_t r = seed ^ domain
    r = next_random(&r) + seed
    return next_random(&r)
