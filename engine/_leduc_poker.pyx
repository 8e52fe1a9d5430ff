"""Compiled rules core of Leduc poker: six cards, two seats, two betting rounds.

The rules are OpenSpiel's ``leduc_poker`` for two seats
(``open_spiel/games/leduc_poker/leduc_poker.cc``): the deck holds two each of J < Q < K (card
ids 0..5, J1 J2 Q1 Q2 K1 K2: the rank is ``card // 2``); each seat antes 1 chip and is dealt
one card. Two betting rounds follow, seat 0 first in each; between them a public card is
shown. An action is 0, fold (only facing a raise), 1, call (match the stake; a check when
there is nothing to match) or 2, raise (match the stake and raise it by 2 chips in the first
round, 4 in the second; at most 2 raises a round). A round ends when both seats have
checked or a raise is called; a fold ends the game, the folder losing what it put in. At the
showdown a pair (the private card's rank equal to the public card's) beats any other hand,
then the higher private card wins; equal ranks split the pot. The three cards come from the
state's seeded rng when the game starts, where OpenSpiel has chance nodes; the public card is
hidden from every view until the second round. The state is one C struct
(``_leduc_poker.pxd``); ``LeducPokerState`` wraps it for Python.

>>> state = LeducPokerState.from_deal([4, 0, 2], [])  # K1 against J1; the public card Q1
>>> state.decision_name, [state.action_to_text(a) for a in state.legal_actions()]
('bet', ['check', 'raise'])
>>> state.apply(2)  # seat 0 raises 2 chips
>>> [state.action_to_text(a) for a in state.legal_actions()]
['fold', 'call', 'raise']
>>> state.apply(1)  # seat 1 calls: the first round ends, the public card is shown
>>> state.round, state.view(1).public_card, state.view(1).cards
(1, 2, [-1, 0])
>>> for a in (1, 1):  # check, check: a showdown, the King high against the Jack
...     state.apply(a)
>>> state.is_terminal(), state.returns(), state.winners()
(True, [3.0, -3.0], [0])
"""

from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, uint64_t

import numpy as np

from council.engine.position import IllegalActionError
from council.engine._raw import raw_to_struct, struct_to_raw
from council.engine._trace cimport NO_SEAT, Trace, emit, trace_bytes, trace_decode
from council.engine._random cimport game_rng, random_below, seed_word

CARD_NAMES = ("J1", "J2", "Q1", "Q2", "K1", "K2")
RANK_NAMES = ("J", "Q", "K")
NUM_ACTIONS = LD_N_ACTIONS
NUM_CARDS = LD_N_CARDS
PLAYERS = LD_PLAYERS
MAX_MOVES = LD_MAX_MOVES
MAX_RAISES = LD_MAX_RAISES
RAISE_SIZES = (LD_RAISE_FIRST, LD_RAISE_SECOND)
MAX_PUT_IN = LD_MAX_PUT_IN
ANTE = LD_ANTE
NO_CARD = LD_NO_CARD
ACTION_NAMES = ("fold", "call", "raise")  # OpenSpiel's names of the ids
# The names of the trace's event kinds (LE_* in _leduc_poker.pxd, in that order).
EVENT_KINDS = ("action", "fold", "check", "call", "raise", "public_card", "showdown", "score",
               "takes_pot", "split_pot")


# ---------------------------------------------------------------------------------------
# The rules.

cdef inline bint facing_raise(LDState* s) noexcept nogil:
    """The seat to act has put in less than the other (it may fold, and its call puts in)."""
    return s.put_in[1 - s.current] > s.put_in[s.current]


cdef void ld_new_game(LDState* s, uint64_t seed) noexcept nogil:
    cdef int8_t deck[LD_N_CARDS]
    cdef int i, j
    cdef int8_t tmp
    memset(s, 0, sizeof(LDState))
    s.rng = game_rng(seed, <uint64_t>0x6C656475636B3031)  # "leduck01"
    s.n_players = LD_PLAYERS
    s.viewer = -1
    s.folded = -1
    for i in range(LD_MAX_MOVES):
        s.moves[i] = -1
    for i in range(LD_N_CARDS):
        deck[i] = i
    for i in range(LD_N_CARDS - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    s.cards[0] = deck[0]
    s.cards[1] = deck[1]
    s.public_card = deck[2]
    s.put_in[0] = LD_ANTE
    s.put_in[1] = LD_ANTE


cdef int ld_legal_actions(LDState* s, int* out) noexcept nogil:
    """Fold (facing a raise), call, raise (below the round's cap); none at the end."""
    cdef int n = 0
    if s.current < 0:
        return 0
    if facing_raise(s):
        out[n] = LA_FOLD
        n += 1
    out[n] = LA_CALL
    n += 1
    if s.raises < LD_MAX_RAISES:
        out[n] = LA_RAISE
        n += 1
    return n


cdef inline int hand_rank(LDState* s, int seat) noexcept nogil:
    """A pair above any rank; else the private card's rank (the public card is shared)."""
    cdef int rank = s.cards[seat] // 2
    return 3 + rank if rank == s.public_card // 2 else rank


cdef int showdown_mask(LDState* s) noexcept nogil:
    """The seats whose hand is best, as a bit mask (3: a tie)."""
    cdef int r0 = hand_rank(s, 0), r1 = hand_rank(s, 1)
    if r0 == r1:
        return 3
    return 1 if r0 > r1 else 2


cdef void showdown(LDState* s, Trace* t) noexcept nogil:
    """The best hand takes what the other put in; a tie returns each its own chips."""
    cdef int mask = showdown_mask(s)
    emit(t, LE_SHOWDOWN, NO_SEAT, s.cards[0], s.cards[1], s.public_card, 0)
    if mask == 1:
        s.score[0] = s.put_in[1]
        s.score[1] = -s.put_in[1]
    elif mask == 2:
        s.score[1] = s.put_in[0]
        s.score[0] = -s.put_in[0]
    s.current = -1
    settled(s, mask, t)


cdef void settled(LDState* s, int winners, Trace* t) noexcept nogil:
    """Trace the end: each seat's score, and who takes the pot."""
    cdef int p
    if t == NULL:
        return
    for p in range(LD_PLAYERS):
        if s.score[p]:
            emit(t, LE_SCORE, p, s.score[p], 0, 0, 0)
    if winners == 3:
        emit(t, LE_SPLIT_POT, NO_SEAT, s.put_in[0] + s.put_in[1], 0, 0, 0)
    else:
        p = 0 if winners == 1 else 1
        emit(t, LE_TAKES_POT, p, s.put_in[0] + s.put_in[1], s.score[p], 0, 0)


cdef void ld_apply(LDState* s, int action) noexcept nogil:
    """Apply a legal action (the caller checks legality)."""
    ld_apply_traced(s, action, NULL)


cdef void ld_apply_traced(LDState* s, int action, Trace* t) noexcept nogil:
    cdef int seat = s.current, other = 1 - s.current, before = s.put_in[seat]
    s.moves[s.n_moves] = action
    s.n_moves += 1
    s.action_count += 1
    emit(t, LE_ACTION, seat, action, 0, 0, 0)
    if action == LA_FOLD:  # the other seat takes what the folder put in
        s.folded = seat
        s.score[other] = s.put_in[seat]
        s.score[seat] = -s.put_in[seat]
        s.current = -1
        emit(t, LE_FOLD, seat, s.put_in[0] + s.put_in[1], 0, 0, 0)
        settled(s, 1 << other, t)
        return
    if action == LA_RAISE:
        s.put_in[seat] = s.put_in[other] + (LD_RAISE_FIRST if s.round == 0 else LD_RAISE_SECOND)
        s.raises += 1
        s.calls = 0
        s.current = other
        emit(t, LE_RAISE, seat, s.put_in[seat] - before, s.put_in[0] + s.put_in[1], 0, 0)
        return
    s.put_in[seat] = s.put_in[other]  # a call, or a check
    if s.put_in[seat] != before:
        emit(t, LE_CALL, seat, s.put_in[seat] - before, s.put_in[0] + s.put_in[1], 0, 0)
    else:
        emit(t, LE_CHECK, seat, s.put_in[0] + s.put_in[1], 0, 0, 0)
    s.calls += 1
    if s.calls < (1 if s.raises > 0 else 2):
        s.current = other
    elif s.round == 0:  # the first round is over: the public card is shown, seat 0 opens
        s.round = 1
        s.round_start = s.n_moves
        s.raises = 0
        s.calls = 0
        s.current = 0
        emit(t, LE_PUBLIC_CARD, NO_SEAT, s.public_card, 0, 0, 0)
    else:
        showdown(s, t)


cdef inline bint showed_down(LDState* s) noexcept nogil:
    """The game ended with the cards shown (not with a fold)."""
    return s.current < 0 and s.folded < 0


cdef void ld_make_view(LDState* s, int seat) noexcept nogil:
    """Erase the other seat's card (unless the showdown showed it), the public card before the
    second round, and the chance state."""
    if not showed_down(s):
        s.cards[1 - seat] = LD_NO_CARD
    if s.round == 0:
        s.public_card = LD_NO_CARD
    s.viewer = seat
    s.rng = 0


cdef int draw_unseen(LDState* s, int a, int b, int c) noexcept nogil:
    """A card drawn uniformly from those other than a, b and c (LD_NO_CARD for none)."""
    cdef int8_t options[LD_N_CARDS]
    cdef int card, k = 0
    for card in range(LD_N_CARDS):
        if card != a and card != b and card != c:
            options[k] = card
            k += 1
    return options[random_below(&s.rng, k)]


cdef void ld_determinize(LDState* s, uint64_t seed) noexcept nogil:
    """The hidden cards drawn uniformly from those the viewer has not seen: the other seat's
    card, then the public card if the first round is still on (together, a uniform draw of
    the deals this view allows)."""
    cdef int other = 1 - s.viewer
    s.rng = game_rng(seed, <uint64_t>0x6C64646574657272)  # "lddeterr"
    if s.cards[other] == LD_NO_CARD:
        s.cards[other] = draw_unseen(s, s.cards[s.viewer], s.public_card, LD_NO_CARD)
    if s.public_card == LD_NO_CARD:
        s.public_card = draw_unseen(s, s.cards[0], s.cards[1], LD_NO_CARD)
    s.viewer = -1


cdef int ld_hand_start(LDState* s, int* history, int most) noexcept nogil:
    """Rewind `s` to the start of its hand (the antes in, before any bet), writing the
    actions taken since into `history` (its own record of them, `moves`, both rounds); their
    count, or -1 if more than `most`. The cards stay as they are: ld_deal_all deals them
    anew."""
    cdef int i, n = s.n_moves
    if n > most:
        return -1
    for i in range(n):
        history[i] = s.moves[i]
        s.moves[i] = -1
    s.action_count -= n
    s.n_moves = 0
    s.current = 0
    s.round = 0
    s.round_start = 0
    s.raises = 0
    s.calls = 0
    s.folded = -1
    for i in range(LD_PLAYERS):
        s.put_in[i] = LD_ANTE
        s.score[i] = 0
    return n


cdef void ld_deal_all(LDState* s, uint64_t seed) noexcept nogil:
    """A full state: both seats' cards and the public card dealt at random from the whole
    deck, the viewer's own included (from the start of the hand nothing is public)."""
    cdef int8_t deck[LD_N_CARDS]
    cdef int i, j
    cdef int8_t tmp
    s.rng = game_rng(seed, <uint64_t>0x6C646465616C616C)  # "lddealal"
    for i in range(LD_N_CARDS):
        deck[i] = i
    for i in range(LD_N_CARDS - 1, 0, -1):
        j = random_below(&s.rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    s.cards[0] = deck[0]
    s.cards[1] = deck[1]
    s.public_card = deck[2]
    s.viewer = -1


cdef int ld_winners_mask(LDState* s) noexcept nogil:
    if s.current >= 0:
        return 0
    if s.folded >= 0:
        return 1 << (1 - s.folded)
    return showdown_mask(s)


# ---------------------------------------------------------------------------------------
# Python wrapper: the methods shared with the other games' positions are in _position.pxi.

from council.engine._leduc_poker cimport LeducPokerState as _Position

ctypedef LDState _PositionStruct


cdef inline void _make_view(LDState* s, int seat) noexcept nogil:
    ld_make_view(s, seat)


cdef inline void _determinize(LDState* s, uint64_t seed) noexcept nogil:
    ld_determinize(s, seed)


cdef inline void _reseed(LDState* s, uint64_t seed) noexcept nogil:
    s.rng = game_rng(seed, <uint64_t>0x6C64726573656564)  # "ldreseed"


cdef inline int _score(LDState* s, int p) noexcept nogil:
    return s.score[p]  # zeros before the end


cdef inline int _winners_mask(LDState* s) noexcept nogil:
    return ld_winners_mask(s)


include "_position.pxi"


# Its one object member, the trace (bytes), refers to nothing: no GC tracking to pay for.
@cython.no_gc
cdef class LeducPokerState:
    """A position of Leduc poker: a full state, or one seat's view of it.

    It meets ``council.engine.position.Position``. Its ``returns()`` are the chips each seat
    gains (OpenSpiel's returns, -13..13), and so are its ``scores()``.
    """

    @classmethod
    def new_game(cls, config=None, seed=0):
        """A new game (the configuration, if given, must seat 2), the cards dealt from `seed`
        (any integer, taken modulo 2**64)."""
        if config is not None and config.validate().players != LD_PLAYERS:
            raise ValueError(f"players: Leduc poker seats {LD_PLAYERS}")
        cdef LeducPokerState st = LeducPokerState.__new__(LeducPokerState)
        ld_new_game(&st.s, seed_word(seed))
        return st

    @staticmethod
    def from_deal(cards, history, int viewer=-1, rng=0):
        """The position after `history` (action ids) from a deal of `cards`: seat 0's, seat
        1's and the public card (card ids, -1 for a card a view cannot see). The caller
        checks them (the reader, ``council.engine.leduc_poker_messages``): three different
        ids in range, the history legal."""
        cdef LeducPokerState st = LeducPokerState.__new__(LeducPokerState)
        memset(&st.s, 0, sizeof(LDState))
        st.s.n_players = LD_PLAYERS
        st.s.viewer = -1
        st.s.folded = -1
        for i in range(LD_MAX_MOVES):
            st.s.moves[i] = -1
        for p in range(LD_PLAYERS):
            st.s.cards[p] = cards[p]
            st.s.put_in[p] = LD_ANTE
        st.s.public_card = cards[LD_PLAYERS]
        for action in history:
            ld_apply(&st.s, action)
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
        """``'bet'`` (check or raise), ``'call'`` (fold, call or raise, facing a raise) or
        ``'over'``."""
        if self.s.current < 0:
            return "over"
        return "call" if facing_raise(&self.s) else "bet"

    @property
    def turn(self):
        """The actions taken so far (at most 8)."""
        return self.s.n_moves

    @property
    def action_count(self):
        return self.s.action_count

    @property
    def round(self):
        """0 in the first betting round, 1 in the second (the public card shown)."""
        return self.s.round

    @property
    def cards(self):
        """Each seat's card id (0..5: J1 J2 Q1 Q2 K1 K2; -1 where this view cannot see it)."""
        return [self.s.cards[p] for p in range(LD_PLAYERS)]

    @property
    def public_card(self):
        """The public card's id: a full state holds it from the deal, a view from the second
        round on (-1 before)."""
        return self.s.public_card

    @property
    def history(self):
        """The actions taken in both rounds, in order (0 fold, 1 call, 2 raise)."""
        return [self.s.moves[i] for i in range(self.s.n_moves)]

    @property
    def rounds(self):
        """The actions of each round begun: ``[first]`` or ``[first, second]``."""
        moves = self.history
        if self.s.round == 0:
            return [moves]
        return [moves[:self.s.round_start], moves[self.s.round_start:]]

    @property
    def put_in(self):
        """The chips each seat has put in, its ante included."""
        return [self.s.put_in[p] for p in range(LD_PLAYERS)]

    @property
    def pot(self):
        return self.s.put_in[0] + self.s.put_in[1]

    @property
    def raises(self):
        """The raises of the current round (at most 2)."""
        return self.s.raises

    @property
    def folded(self):
        """The seat that folded; -1 if none."""
        return self.s.folded

    @property
    def showed_down(self):
        """Whether the game ended with the cards shown (not with a fold)."""
        return bool(showed_down(&self.s))

    _require_full = _position_require_full

    # -- actions -------------------------------------------------------------------------
    def legal_actions(self):
        """Legal action ids for the seat to act, in id order: fold only facing a raise,
        call always, raise below the round's 2 raises; [] at the end."""
        self._require_full("legal_actions")
        cdef int buf[LD_N_ACTIONS]
        cdef int n = ld_legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, int action):
        self._require_full("is_legal")
        cdef int buf[LD_N_ACTIONS]
        cdef int n = ld_legal_actions(&self.s, buf)
        return any(buf[i] == action for i in range(n))

    def apply(self, int action):
        """Apply a legal action in place. Raises IllegalActionError otherwise."""
        self._require_full("apply")
        if self.s.current < 0:
            raise IllegalActionError("the game is over")
        if not self.is_legal(action):
            raise IllegalActionError(f"action {action} is not legal here: the legal ones are "
                                     f"{self.legal_actions()}")
        cdef Trace trace
        trace.n = trace.dropped = 0
        ld_apply_traced(&self.s, action, &trace)
        self._events = trace_bytes(&trace)

    child = _position_child

    def action_to_text(self, int action):
        """``'fold'``, ``'call'`` or ``'raise'``; a call with nothing to match is
        ``'check'``."""
        if not 0 <= action < LD_N_ACTIONS:
            raise ValueError(f"action must be in 0..{LD_N_ACTIONS - 1}, got {action}")
        if action == LA_CALL and self.s.current >= 0 and not facing_raise(&self.s):
            return "check"
        return ACTION_NAMES[action]

    def action_from_text(self, str text):
        """Inverse of action_to_text: fold is 0; call or check is 1; raise or bet is 2."""
        word = text.strip().lower()
        if word == "fold":
            return LA_FOLD
        if word in ("call", "check"):
            return LA_CALL
        if word in ("raise", "bet"):
            return LA_RAISE
        raise ValueError(f"not an action of Leduc poker: {text!r} (fold, call, check or "
                         f"raise)")

    def problems(self):
        """Every consistency problem of this position as ``(field path, problem)`` pairs;
        ``[]`` when it is consistent (``council.engine.leduc_poker_messages``)."""
        from council.engine.leduc_poker_messages import problems
        return problems(self)

    # -- hidden information --------------------------------------------------------------
    view = _position_view
    determinize = _position_determinize
    reseed = _position_reseed

    # -- outcome -------------------------------------------------------------------------
    scores = _position_scores
    winners = _position_winners

    def returns(self):
        """Each seat's chip gain once the game is over (OpenSpiel's returns: what the other
        seat put in, or 0 each for a split pot), zeros before the end."""
        return [float(self.s.score[p]) for p in range(LD_PLAYERS)]

    def adjudicated(self):
        """A finished copy of this full state: a showdown, with the public card of the deal,
        for the chips both seats have matched (an unanswered raise is returned); a finished
        state comes back as a plain copy."""
        self._require_full("adjudicated")
        cdef LeducPokerState st = _copy(self)
        cdef int matched
        if st.s.current >= 0:
            matched = min(st.s.put_in[0], st.s.put_in[1])
            st.s.put_in[0] = matched
            st.s.put_in[1] = matched
            showdown(&st.s, NULL)
        return st

    # -- raw form, pickle, equality ------------------------------------------------------
    to_raw = _position_to_raw
    from_raw = staticmethod(_position_from_raw)
    __reduce__ = _position_reduce

    def __eq__(self, other):
        if not isinstance(other, LeducPokerState):
            return NotImplemented
        return _position_eq(self, other)

    def __hash__(self):
        _position_unhashable(self)

    def __str__(self):
        from council.engine.leduc_poker import render_text
        return render_text(self)

    def __repr__(self):
        who = "full state" if self.s.viewer < 0 else f"view of seat {self.s.viewer}"
        moves = "".join("fcr"[m] for m in self.history) or "-"
        return (f"<LeducPokerState history {moves}, seat {self.s.current} to act, {who}>")


_name_methods(LeducPokerState)
