# The event trace an action's rules write as they run (issue #39): what they did, in
# order, as (kind, seat, args) records in a fixed buffer. Each game's core names its kinds
# (an enum, and EVENT_KINDS for Python); the effects of an action are told from its trace.
#
# A rules function takes a Trace* and writes only when it is not NULL: the search applies
# actions with NULL (its apply_action / tc_apply / ... keep their signatures) and pays one
# pointer test per event; the Python-level apply attaches a buffer on its stack and keeps
# its records as bytes, decoded when asked for (a position's events).

from libc.stdint cimport int16_t

cdef enum:
    TRACE_CAPACITY = 192     # more than any one action writes (a 4-seat final scoring: ~90)
    TRACE_ARGS = 4
    NO_SEAT = -1             # an event about the whole table

ctypedef struct TraceEvent:
    int16_t kind
    int16_t seat
    int16_t args[TRACE_ARGS]

ctypedef struct Trace:
    int n
    int dropped              # events past the capacity, counted and not written
    TraceEvent events[TRACE_CAPACITY]


cdef inline void emit(Trace* t, int kind, int seat, int a, int b, int c, int d) noexcept nogil:
    cdef TraceEvent* e
    if t == NULL:
        return
    if t.n == TRACE_CAPACITY:
        t.dropped += 1
        return
    e = &t.events[t.n]
    e.kind = kind
    e.seat = seat
    e.args[0] = a
    e.args[1] = b
    e.args[2] = c
    e.args[3] = d
    t.n += 1


cdef inline bytes trace_bytes(Trace* t):
    """The trace's records as bytes (kept by the position that made them; one copy, so an
    apply pays little for it; trace_decode reads them)."""
    if t.dropped:
        raise RuntimeError(f"the event trace overflowed ({t.dropped} events past "
                           f"{TRACE_CAPACITY}): raise TRACE_CAPACITY in engine/_trace.pxd")
    return (<char*>t.events)[:t.n * sizeof(TraceEvent)]


cdef inline tuple trace_decode(bytes records, tuple kinds):
    """trace_bytes' records as a tuple of ``(kind name, seat, args)`` (args: 4 ints)."""
    cdef const TraceEvent* e = <const TraceEvent*><const char*>records
    cdef Py_ssize_t i
    return tuple([
        (kinds[e[i].kind], e[i].seat, (e[i].args[0], e[i].args[1], e[i].args[2], e[i].args[3]))
        for i in range(len(records) // sizeof(TraceEvent))])
