"""Compiled rules core of Kuhn poker, the smallest poker: three cards, two seats.

The rules are OpenSpiel's ``kuhn_poker`` (``open_spiel/games/kuhn_poker/kuhn_poker.cc``):
each seat antes 1 chip and is dealt one of J < Q < K; seat 0 acts first. An action is 0,
pass (check, or fold facing a bet), or 1, bet (bet 1 chip, or call facing a bet). Pass, pass
and a called bet go to a showdown (the higher card takes the pot); a fold loses the ante.
The deal comes from the state's seeded rng, as the other games' shuffles do, where OpenSpiel
has chance nodes. The state is one C struct (``_kuhn_poker.pxd``); ``KuhnPokerState`` wraps
it for Python.

>>> state = KuhnPokerState.new_game(seed=3)  # seat 0 holds the Jack, seat 1 the King
>>> state.cards, state.decision_name, state.legal_actions()
([0, 2], 'bet', [0, 1])
>>> state.apply(state.action_from_text("bet"))
>>> state.decision_name, [state.action_to_text(a) for a in state.legal_actions()]
('call', ['fold', 'call'])
>>> state.apply(1)
>>> state.is_terminal(), state.history, state.returns(), state.winners()
(True, [1, 1], [-2.0, 2.0], [1])
>>> state.view(1).cards, state.view(1).returns()  # a showdown shows both cards
([0, 2], [-2.0, 2.0])
"""

from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, uint64_t

import numpy as np

from council.engine.position import IllegalActionError
from council.engine._raw import raw_to_struct, struct_to_raw
from council.engine._random cimport game_rng, random_below, seed_word
from council.engine._trace cimport NO_SEAT, Trace, emit, trace_bytes, trace_decode

CARD_NAMES = ("J", "Q", "K")
NUM_ACTIONS = KP_N_ACTIONS
PLAYERS = KP_PLAYERS
MAX_MOVES = KP_MAX_MOVES
NO_CARD = KP_NO_CARD
ACTION_NAMES = ("pass", "bet")
# What each action is called when it is taken facing a bet (OpenSpiel's fold and call).
ACTION_NAMES_FACING_BET = ("fold", "call")
# The names of the trace's event kinds (KE_* in _kuhn_poker.pxd, in that order).
EVENT_KINDS = ("action", "check", "bet", "fold", "call", "showdown", "score", "takes_pot")


# ---------------------------------------------------------------------------------------
# The rules.

cdef inline bint facing_bet(KPState* s) noexcept nogil:
    """The seat to act faces a bet it has not matched (its actions are fold and call)."""
    return s.n_moves > 0 and s.moves[s.n_moves - 1] == KA_BET


cdef void kp_new_game(KPState* s, uint64_t seed) noexcept nogil:
    cdef int8_t deck[KP_N_CARDS]
    cdef int i, j
    cdef int8_t tmp
    memset(s, 0, sizeof(KPState))
    s.rng = game_rng(seed, <uint64_t>0x6B75686E706B3031)  # "kuhnpk01"
    s.n_players = KP_PLAYERS
    s.viewer = -1
    for i in range(KP_MAX_MOVES):
        s.moves[i] = -1
    for i in range(KP_N_CARDS):
        deck[i] = i
    for i in range(KP_N_CARDS - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    s.cards[0] = deck[0]
    s.cards[1] = deck[1]


cdef int kp_legal_actions(KPState* s, int* out) noexcept nogil:
    """Pass and bet for the seat to act; none once the game is over."""
    if s.current < 0:
        return 0
    out[0] = KA_PASS
    out[1] = KA_BET
    return 2


cdef inline int pot(KPState* s) noexcept nogil:
    """The chips in the pot: both antes, and a chip for each bet or call."""
    cdef int i, chips = 2
    for i in range(s.n_moves):
        chips += s.moves[i] == KA_BET
    return chips


cdef void settle(KPState* s, int winner, int stake, Trace* t) noexcept nogil:
    s.score[winner] = stake
    s.score[1 - winner] = -stake
    s.current = -1
    emit(t, KE_SCORE, 0, s.score[0], 0, 0, 0)
    emit(t, KE_SCORE, 1, s.score[1], 0, 0, 0)
    emit(t, KE_TAKES_POT, winner, pot(s), stake, 0, 0)


cdef inline int showdown_winner(KPState* s) noexcept nogil:
    return 0 if s.cards[0] > s.cards[1] else 1


cdef void kp_apply(KPState* s, int action) noexcept nogil:
    """Apply a legal action (the caller checks legality)."""
    kp_apply_traced(s, action, NULL)


cdef void kp_apply_traced(KPState* s, int action, Trace* t) noexcept nogil:
    cdef bint fold = action == KA_PASS and facing_bet(s)
    cdef bint call = action == KA_BET and facing_bet(s)
    cdef int seat = s.current
    s.moves[s.n_moves] = action
    s.n_moves += 1
    s.action_count += 1
    if t != NULL:
        emit(t, KE_ACTION, seat, action, 0, 0, 0)
        if action == KA_BET:
            emit(t, KE_CALL if call else KE_BET, seat, 1, pot(s), 0, 0)
        else:
            emit(t, KE_FOLD if fold else KE_CHECK, seat, pot(s), 0, 0, 0)
    if fold:  # the bettor takes the antes
        settle(s, 1 - seat, 1, t)
    elif call:  # a showdown for 2 chips each
        emit(t, KE_SHOWDOWN, NO_SEAT, s.cards[0], s.cards[1], 0, 0)
        settle(s, showdown_winner(s), 2, t)
    elif s.n_moves == 2 and action == KA_PASS:  # pass, pass: a showdown for the antes
        emit(t, KE_SHOWDOWN, NO_SEAT, s.cards[0], s.cards[1], 0, 0)
        settle(s, showdown_winner(s), 1, t)
    else:
        s.current = 1 - seat


cdef inline bint showed_down(KPState* s) noexcept nogil:
    """The game ended with the cards shown (not with a fold)."""
    return s.current < 0 and not (s.moves[s.n_moves - 1] == KA_PASS
                                  and s.n_moves >= 2 and s.moves[s.n_moves - 2] == KA_BET)


cdef void kp_make_view(KPState* s, int seat) noexcept nogil:
    """Erase the other seat's card (unless the showdown showed it) and the chance state."""
    if not showed_down(s):
        s.cards[1 - seat] = KP_NO_CARD
    s.viewer = seat
    s.rng = 0


cdef void kp_determinize(KPState* s, uint64_t seed) noexcept nogil:
    """The other seat's card drawn uniformly from the two the viewer does not hold."""
    cdef int other = 1 - s.viewer, c, k = 0
    cdef int8_t options[KP_N_CARDS]
    s.rng = game_rng(seed, <uint64_t>0x6B7064657465726D)  # "kpdeterm"
    if s.cards[other] == KP_NO_CARD:
        for c in range(KP_N_CARDS):
            if c != s.cards[s.viewer]:
                options[k] = c
                k += 1
        s.cards[other] = options[random_below(&s.rng, k)]
    s.viewer = -1


cdef int kp_winners_mask(KPState* s) noexcept nogil:
    if s.current >= 0:
        return 0
    return 1 if s.score[0] > 0 else 2


cdef int kp_hand_start(KPState* s, int* history, int most) noexcept nogil:
    """Rewind `s` to the start of its hand (the deal, before any bet), writing the actions
    taken since into `history` (its own record of them, `moves`); their count, or -1 if
    more than `most`. The cards stay as they are: kp_deal_all deals them anew."""
    cdef int i, n = s.n_moves
    if n > most:
        return -1
    for i in range(n):
        history[i] = s.moves[i]
        s.moves[i] = -1
    s.action_count -= n
    s.n_moves = 0
    s.current = 0
    s.score[0] = 0
    s.score[1] = 0
    return n


cdef void kp_deal_all(KPState* s, uint64_t seed) noexcept nogil:
    """A full state: both seats' cards dealt at random from the whole deck (nothing is
    public before a showdown), the viewer's own included."""
    cdef int8_t deck[KP_N_CARDS]
    cdef int i, j
    cdef int8_t tmp
    s.rng = game_rng(seed, <uint64_t>0x6B706465616C616C)  # "kpdealal"
    for i in range(KP_N_CARDS):
        deck[i] = i
    for i in range(KP_N_CARDS - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    s.cards[0] = deck[0]
    s.cards[1] = deck[1]
    s.viewer = -1


# ---------------------------------------------------------------------------------------
# Python wrapper: the methods shared with the other games' positions are in _position.pxi.

from council.engine._kuhn_poker cimport KuhnPokerState as _Position

ctypedef KPState _PositionStruct


cdef inline void _make_view(KPState* s, int seat) noexcept nogil:
    kp_make_view(s, seat)


cdef inline void _determinize(KPState* s, uint64_t seed) noexcept nogil:
    kp_determinize(s, seed)


cdef inline void _reseed(KPState* s, uint64_t seed) noexcept nogil:
    s.rng = game_rng(seed, <uint64_t>0x6B70726573656564)  # "kpreseed"


cdef inline int _score(KPState* s, int p) noexcept nogil:
    return s.score[p]  # zeros before the end


cdef inline int _winners_mask(KPState* s) noexcept nogil:
    return kp_winners_mask(s)


include "_position.pxi"


# Its one object member, the trace (bytes), refers to nothing: no GC tracking to pay for.
@cython.no_gc
cdef class KuhnPokerState:
    """A position of Kuhn poker: a full state, or one seat's view of it.

    It meets ``council.engine.position.Position``. Its ``returns()`` are the chips each seat
    gains (OpenSpiel's returns: +-1, +-2), and so are its ``scores()``.
    """

    @classmethod
    def new_game(cls, config=None, seed=0):
        """A new game (the configuration, if given, must seat 2), the cards dealt from `seed`
        (any integer, taken modulo 2**64)."""
        if config is not None and config.validate().players != KP_PLAYERS:
            raise ValueError(f"players: Kuhn poker seats {KP_PLAYERS}")
        cdef KuhnPokerState st = KuhnPokerState.__new__(KuhnPokerState)
        kp_new_game(&st.s, seed_word(seed))
        return st

    @staticmethod
    def from_deal(cards, history, int viewer=-1, rng=0):
        """The position after `history` (action ids) from a deal of `cards` (card ids, -1
        for a card a view cannot see). The caller checks them (the reader,
        ``council.engine.kuhn_poker_messages``): the ids in range, the history legal."""
        cdef KuhnPokerState st = KuhnPokerState.__new__(KuhnPokerState)
        memset(&st.s, 0, sizeof(KPState))
        st.s.n_players = KP_PLAYERS
        st.s.viewer = -1
        for i in range(KP_MAX_MOVES):
            st.s.moves[i] = -1
        for p in range(KP_PLAYERS):
            st.s.cards[p] = cards[p]
        for action in history:
            kp_apply(&st.s, action)
        st.s.viewer = viewer
        st.s.rng = seed_word(rng) if viewer < 0 else 0
        return st

    clone = _position_clone
    __copy__ = _position_clone
    __deepcopy__ = _position_deepcopy

    # -- the position --------------------------------------------------------------------
    n_players = property(_position_n_players)

    @property
    def current_player(self):
        """The seat to act (-1 once the game is over)."""
        return self.s.current

    viewer = property(_position_viewer)
    is_view = property(_position_is_view)
    events = property(_position_events)

    def is_terminal(self):
        return self.s.current < 0

    @property
    def decision_name(self):
        """``'bet'`` (pass or bet), ``'call'`` (fold or call, facing a bet) or ``'over'``."""
        if self.s.current < 0:
            return "over"
        return "call" if facing_bet(&self.s) else "bet"

    @property
    def turn(self):
        """The actions taken so far (at most 3)."""
        return self.s.n_moves

    @property
    def action_count(self):
        return self.s.action_count

    @property
    def cards(self):
        """Each seat's card id (0 J, 1 Q, 2 K; -1 where this view cannot see it)."""
        return [self.s.cards[p] for p in range(KP_PLAYERS)]

    @property
    def history(self):
        """The actions taken, in order (0 pass, 1 bet)."""
        return [self.s.moves[i] for i in range(self.s.n_moves)]

    @property
    def showed_down(self):
        """Whether the game ended with the cards shown (not with a fold)."""
        return bool(showed_down(&self.s))

    _require_full = _position_require_full

    # -- actions -------------------------------------------------------------------------
    def legal_actions(self):
        """Legal action ids for the seat to act: [0, 1] (pass, bet), [] at the end."""
        self._require_full("legal_actions")
        cdef int buf[KP_N_ACTIONS]
        cdef int n = kp_legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, int action):
        self._require_full("is_legal")
        return self.s.current >= 0 and 0 <= action < KP_N_ACTIONS

    def apply(self, int action):
        """Apply a legal action in place. Raises IllegalActionError otherwise."""
        self._require_full("apply")
        if self.s.current < 0:
            raise IllegalActionError("the game is over")
        if not 0 <= action < KP_N_ACTIONS:
            raise IllegalActionError(f"action {action} is not legal here: action ids are "
                                     f"0..{KP_N_ACTIONS - 1}")
        cdef Trace trace
        trace.n = trace.dropped = 0
        kp_apply_traced(&self.s, action, &trace)
        self._events = trace_bytes(&trace)

    child = _position_child

    def action_to_text(self, int action):
        """``'pass'`` or ``'bet'``; facing a bet, ``'fold'`` or ``'call'``."""
        if not 0 <= action < KP_N_ACTIONS:
            raise ValueError(f"action must be in 0..{KP_N_ACTIONS - 1}, got {action}")
        if self.s.current >= 0 and facing_bet(&self.s):
            return ACTION_NAMES_FACING_BET[action]
        return ACTION_NAMES[action]

    def action_from_text(self, str text):
        """Inverse of action_to_text: pass, check or fold is 0; bet or call is 1."""
        word = text.strip().lower()
        if word in ("pass", "check", "fold"):
            return KA_PASS
        if word in ("bet", "call"):
            return KA_BET
        raise ValueError(f"not an action of Kuhn poker: {text!r} (pass, bet, fold or call)")

    def problems(self):
        """Every consistency problem of this position as ``(field path, problem)`` pairs;
        ``[]`` when it is consistent (``council.engine.kuhn_poker_messages``)."""
        from council.engine.kuhn_poker_messages import problems
        return problems(self)

    # -- hidden information --------------------------------------------------------------
    view = _position_view
    determinize = _position_determinize
    reseed = _position_reseed

    # -- outcome -------------------------------------------------------------------------
    scores = _position_scores
    winners = _position_winners

    def returns(self):
        """Each seat's chip gain: +-1 or +-2 once the game is over (OpenSpiel's returns),
        zeros before the end."""
        return [float(self.s.score[p]) for p in range(KP_PLAYERS)]

    def adjudicated(self):
        """A finished copy of this full state: a showdown for the chips both seats have put
        in, the antes (a matched bet ends the game, an unanswered one is returned); a
        finished state comes back as a plain copy."""
        self._require_full("adjudicated")
        cdef KuhnPokerState st = _copy(self)
        if st.s.current >= 0:
            settle(&st.s, showdown_winner(&st.s), 1, NULL)
        return st

    # -- raw form, pickle, equality ------------------------------------------------------
    to_raw = _position_to_raw
    from_raw = staticmethod(_position_from_raw)
    __reduce__ = _position_reduce

    def __eq__(self, other):
        if not isinstance(other, KuhnPokerState):
            return NotImplemented
        return _position_eq(self, other)

    def __hash__(self):
        _position_unhashable(self)

    def __str__(self):
        from council.engine.kuhn_poker import render_text
        return render_text(self)

    def __repr__(self):
        who = "full state" if self.s.viewer < 0 else f"view of seat {self.s.viewer}"
        return (f"<KuhnPokerState history {''.join('pb'[m] for m in self.history) or '-'}, "
                f"seat {self.s.current} to act, {who}>")


_name_methods(KuhnPokerState)
