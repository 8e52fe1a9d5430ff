# The wrapper methods every position class shares (council.engine.position.Position),
# written once and included by each game's core (engine/_<game>.pyx).
#
# Cython allows no include inside a class body, so this file defines the methods as
# module-level functions, and the class body binds them by name (``clone =
# _position_clone``): a bound Cython function costs what a method does. Before the include,
# the including module names its own pieces:
#   _Position                      the cdef class (cimported from its own .pxd under this name)
#   _PositionStruct                its C struct (a ctypedef)
#   _make_view(s, seat)            erase what `seat` may not know, set s.viewer
#   _determinize(s, seed)          complete a view into a full state (s.viewer = -1)
#   _reseed(s, seed)               replace a full state's chance state
#   _score(s, p), _winners_mask(s) seat p's score; the winners as a bit mask, 0 before the end
# Special methods (__eq__, __hash__) fill type slots, so they stay in the class body as
# one-line calls of the functions below.

cimport cython  # embedsignature(False): a signature would show the function's own name

cdef _PositionStruct _layout_probe
# The struct as a NumPy structured dtype, derived from its C declaration (scikit-learn's
# NODE_DTYPE): one field per member, in declaration order, at the member's offset; a 2-D
# member is a subarray field. to_raw/from_raw read and write the struct through it.
STATE_DTYPE = np.asarray(<_PositionStruct[:1]>(&_layout_probe)).dtype
assert STATE_DTYPE.itemsize == sizeof(_PositionStruct)
# Pickles carry the struct's bytes, valid only for this layout.
_LAYOUT = repr(STATE_DTYPE)


cdef object _struct_array(_PositionStruct* g):
    """A 1-element STATE_DTYPE array viewing *g, writable (no copy: the caller keeps *g
    alive while it uses the array)."""
    # Through a plain char buffer: NumPy parses a struct's buffer format on every call.
    return np.frombuffer(<char[:sizeof(_PositionStruct)]>(<char*>g), dtype=STATE_DTYPE)


def _state_from_struct(str layout, bytes data):
    """Unpickle a position from its struct's bytes (``__reduce__``)."""
    if layout != _LAYOUT or len(data) != sizeof(_PositionStruct):
        raise ValueError(f"the pickled {_Position.__name__} has another struct layout than "
                         f"this build's")
    cdef _Position st = _Position.__new__(_Position)
    memcpy(&st.s, <const char*>data, sizeof(_PositionStruct))
    return st


cdef inline _Position _copy(_Position self):
    cdef _Position st = _Position.__new__(_Position)
    st.s = self.s
    return st


cdef inline void _check_seat(_Position self, int seat) except *:
    if not 0 <= seat < self.s.n_players:
        raise ValueError(f"seat must be in 0..{self.s.n_players - 1}, got {seat}")


cdef inline bint _position_eq(_Position self, other) except -1:
    # Freed slots are zeroed, and so are the padding bytes (every position starts zeroed
    # and only fields are written), so equal positions have equal structs.
    return memcmp(&self.s, &(<_Position>other).s, sizeof(_PositionStruct)) == 0


@cython.embedsignature(False)
def _position_n_players(_Position self):
    return self.s.n_players


@cython.embedsignature(False)
def _position_viewer(_Position self):
    """-1 for a full state; the seat whose view this is otherwise."""
    return self.s.viewer


@cython.embedsignature(False)
def _position_is_view(_Position self):
    return self.s.viewer >= 0


@cython.embedsignature(False)
def _position_events(_Position self):
    """What the last ``apply`` on this object did, as its rules wrote it: a tuple of
    ``(kind, seat, args)`` events, kinds named by the core's EVENT_KINDS (seat -1: the whole
    table). A full record of the facts, hidden cards included: the game's effects tell each
    seat what it may know. Empty for a position no apply has made (a new game, a copy, a
    view)."""
    return trace_decode(self._events, EVENT_KINDS) if self._events is not None else ()


@cython.embedsignature(False)
def _position_clone(_Position self):
    """An independent copy of this position."""
    return _copy(self)


@cython.embedsignature(False)
def _position_deepcopy(_Position self, memo):
    return _copy(self)


@cython.embedsignature(False)
def _position_child(_Position self, int action):
    """A copy of this state with `action` applied."""
    st = _copy(self)
    st.apply(action)
    return st


@cython.embedsignature(False)
def _position_require_full(_Position self, what):
    if self.s.viewer >= 0:
        raise ValueError(f"{what} needs a full state; this is the view of seat "
                         f"{self.s.viewer} (call determinize(seed) first)")


@cython.embedsignature(False)
def _position_view(_Position self, int seat):
    """What `seat` may know: a copy with what is hidden from it erased (the game's rules
    say what: RULINGS 7, TC15)."""
    _check_seat(self, seat)
    if self.s.viewer >= 0 and self.s.viewer != seat:
        raise ValueError(f"this is already the view of seat {self.s.viewer}")
    cdef _Position st = _copy(self)
    _make_view(&st.s, seat)
    return st


@cython.embedsignature(False)
def _position_determinize(_Position self, seed):
    """A full state consistent with this view, its hidden parts drawn from `seed` (any
    integer, taken modulo 2**64)."""
    if self.s.viewer < 0:
        raise ValueError("determinize needs a view (call view(seat) first)")
    cdef _Position st = _copy(self)
    _determinize(&st.s, seed_word(seed))
    return st


@cython.embedsignature(False)
def _position_reseed(_Position self, seed):
    """Replace the chance state of a full state from `seed`: every draw not yet made (the
    rng, and the order of any deck no seat has seen) is decided anew by the seed, nothing
    else changes. The service's ApplyAction with a seed, and a sealed game before each move."""
    self._require_full("reseed")
    _reseed(&self.s, seed_word(seed))


@cython.embedsignature(False)
def _position_scores(_Position self):
    """Each seat's score: final once the game is over (before that, the game's own
    running score, or zeros where it keeps none)."""
    return [_score(&self.s, p) for p in range(self.s.n_players)]


@cython.embedsignature(False)
def _position_winners(_Position self):
    """The seats that win a finished game (RULINGS 9, TC13); [] before the end."""
    cdef int mask = _winners_mask(&self.s)
    return [p for p in range(self.s.n_players) if (mask >> p) & 1]


@cython.embedsignature(False)
def _position_returns(_Position self):
    """1/k for each of k winners, 0 for the others; all zeros before the end."""
    w = self.winners()
    return [1.0 / len(w) if p in w else 0.0 for p in range(self.s.n_players)]


@cython.embedsignature(False)
def _position_to_raw(_Position self):
    """Every field of the C struct as plain Python ints and (nested) lists, keyed by the
    member names (``STATE_DTYPE.names``, in declaration order)."""
    return struct_to_raw(_struct_array(&self.s), STATE_DTYPE)


@cython.embedsignature(False)
def _position_from_raw(dict raw):
    """Inverse of to_raw: the keys must be exactly the struct's members, and each value
    must fit its member (shape and integer range). No other validation: use
    council.engine.serialize for input, and ``problems()`` for consistency."""
    cdef _Position st = _Position.__new__(_Position)
    memset(&st.s, 0, sizeof(_PositionStruct))
    raw_to_struct(raw, _struct_array(&st.s), STATE_DTYPE)
    return st


@cython.embedsignature(False)
def _position_reduce(_Position self):
    return (_state_from_struct, (_LAYOUT, (<char*>&self.s)[:sizeof(_PositionStruct)]))


@cython.embedsignature(False)
def _position_unhashable(_Position self):
    raise TypeError(f"{_Position.__name__} is mutable and unhashable")


def _name_methods(cls):
    """Give the bound functions their names in the class (for help() and tracebacks)."""
    for name, value in vars(cls).items():
        function = getattr(value, "__func__", value)  # a staticmethod's function
        if getattr(function, "__name__", "").startswith("_position_"):
            function.__name__ = name
            function.__qualname__ = f"{cls.__name__}.{name}"
