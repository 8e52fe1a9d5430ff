"""Consistency of a loaded position, compiled: ``problems(state)`` in the manner of
python-chess's ``Board.status()``.

Contract
--------
``problems(state)`` (and ``state_problems(&gs)`` for Cython callers, see
``_council_of_four_status.pxd``) returns every consistency problem of a full state or a view
as a list of ``(field path, problem sentence)`` tuples, ``[]`` for a consistent position.
The checks, their order, paths and sentences are those of the JSON reader's consistency pass
(``_Reader._check``, ``_check_cards`` and ``_check_playable`` of the former
``council.engine.serialize``), run over the ``GameState`` struct instead of parsed dicts.

What the caller (the loader) guarantees, so it is not checked again here: every field fits
its struct type and its per-field range (n_players 2..4, layout 0..7, one city token 0..13
per city except the layout's king city, where it is -1, and no token on two cities,
balcony entries 0..5, pool 0..4, deck entries 0..44 in ``permit_deck[g][:deck_n[g]]`` with
``deck_known <= deck_n <= 15``, face-up -1..44, card counts within the game's, hand and
deck sizes 0..90, coins, nobility, emporium masks with ``emporia_n == popcount``, tile
masks, king_tiles_taken 0..5, current and end_trigger seats, turn >= 1, pending_n 0..4
with a kind 1..7 and an in-range argument, viewer -1 or a seat); in a view the other
seats' hands and the politics deck are zero. Document-level problems (a politics deck or a
hidden hand given in a view, ...) are the loader's to report.

What is checked here: politics card conservation (full state: per kind and in all; view:
per kind at most the game's, sizes in all), hand sizes of the known hands, councillors per
colour, permit tiles (each exactly once across decks, face-up slots and players' tiles;
deck and slot tiles of their region; a view's unknown deck part in increasing order; empty
slots only while a decision is pending or the deck is empty; none missing), neutral
emporiums, used permits backed by an emporium, the end trigger and its VP, bonus and king
reward tiles, a limited assistant supply, the turn and its pending decisions. Only when
none of these found a problem: a game in progress whose player to act has a known hand
(a full state, or that player's own view, determinized with seed 0) must offer at least
one legal action.

Paths are GameState field paths without a prefix: ``players[1].hand_size``,
``board.politics_deck.joker``, ``board.permit_decks.coast.unknown[13]``,
``board.face_up.hills.slot1``, ``turn.pending[0].permit`` (pay_permit) or
``turn.pending[0].city`` (pay_king, second_of_two_city_tokens), ``turn.end_trigger``.
Deck parts (``unknown`` then ``known_bottom``), balconies and pending decisions are indexed
by array position; an item of a set stored as a bitmask (a player's permits_face_up,
permits_face_down, bonus_tiles, king_tiles, emporiums; board.bonus_tiles_left) by its rank
among the set bits in increasing order, which is the order the JSON writer lists them in.

The checks are C loops over the struct; Python objects (names, paths, sentences) are built
only for a problem found, so a consistent position costs about a microsecond, the
legal-action query included.
"""

from libc.string cimport memset
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t

from council.engine._council_of_four cimport (
    GameState, CouncilOfFourState, legal_actions, determinize,
    N_CITIES, N_REGIONS, N_COLOURS, N_CARD_KINDS, JOKER, N_BALCONIES, BALCONY_SIZE, N_TILES,
    TILES_PER_REGION, N_CITY_COLOURS, N_BONUS_TILES, N_KING_TILES, MAX_EMPORIUMS, N_ACTIONS,
    P_PAY_PERMIT, P_PAY_KING, P_TOKEN_PAIR_SECOND,
    LAYOUT_COLOUR_MASK, REGION_MASK, TOKEN_HAS_NOBILITY, TILE_CITIES, TILE_NCITIES,
)

from council.engine import council_of_four_board as _board

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil

# ---------------------------------------------------------------------------------------
# Names, used only to word a problem found.

REGIONS = _board.REGIONS
COLOURS = _board.COUNCILLOR_COLOURS
CARD_KINDS = _board.CARD_KINDS
CITIES = _board.CITY_NAMES
BONUS_TILES = _board.BONUS_TILE_NAMES
KING_TILES = _board.KING_REWARD_TILES  # VP of the king reward tiles, in the order taken

# ---------------------------------------------------------------------------------------
# Rule numbers and derived tables, read once at import.

cdef int CARDS_PER_KIND[N_CARD_KINDS]  # 13 per colour, 12 jokers
cdef int N_CARDS                       # 90
cdef int COUNCILLORS_PER_COLOUR        # 4
cdef int TENTH_EMPORIUM_VP             # 3
cdef uint16_t TILE_MASK[N_TILES]       # the cities of each permit tile
cdef uint16_t BONUS_NEED[8][N_BONUS_TILES]  # per layout: the cities a bonus tile needs


def _fill_tables():
    cdef int k, t, li
    cards = _board.RULE_NUMBERS["politics_cards"]
    global N_CARDS, COUNCILLORS_PER_COLOUR, TENTH_EMPORIUM_VP
    N_CARDS = 0
    for k in range(N_CARD_KINDS):
        CARDS_PER_KIND[k] = cards["jokers"] if k == JOKER else cards["per_colour"]
        N_CARDS += CARDS_PER_KIND[k]
    COUNCILLORS_PER_COLOUR = _board.RULE_NUMBERS["councillors_per_colour"]
    TENTH_EMPORIUM_VP = _board.RULE_NUMBERS["tenth_emporium_vp"]
    assert len(BONUS_TILES) == N_BONUS_TILES == N_REGIONS + N_CITY_COLOURS
    assert len(KING_TILES) == N_KING_TILES
    for t in range(N_TILES):
        TILE_MASK[t] = 0
        for k in range(TILE_NCITIES[t]):
            TILE_MASK[t] |= 1 << TILE_CITIES[t][k]
        assert _board.PERMIT_TILES[t].region == t // TILES_PER_REGION
    for li in range(8):
        for k in range(N_REGIONS):
            BONUS_NEED[li][k] = REGION_MASK[k]
        for k in range(N_CITY_COLOURS):
            BONUS_NEED[li][N_REGIONS + k] = LAYOUT_COLOUR_MASK[li][k]


_fill_tables()

# ---------------------------------------------------------------------------------------
# Where a permit tile was seen: kind << 16 | a << 8 | b, 0 = not seen yet.

cdef enum:
    AT_UNKNOWN = 1        # board.permit_decks.<region a>.unknown[b]
    AT_KNOWN = 2          # board.permit_decks.<region a>.known_bottom[b]
    AT_FACE_UP = 3        # board.face_up.<region a>.slot<b>
    AT_PLAYER_UP = 4      # players[a].permits_face_up[b]
    AT_PLAYER_DOWN = 5    # players[a].permits_face_down[b]


cdef inline int32_t _at(int kind, int a, int b) noexcept nogil:
    return (kind << 16) | (a << 8) | b


cdef str _at_path(int32_t code):
    cdef int kind = code >> 16, a = (code >> 8) & 0xFF, b = code & 0xFF
    if kind == AT_UNKNOWN:
        return f"board.permit_decks.{REGIONS[a]}.unknown[{b}]"
    if kind == AT_KNOWN:
        return f"board.permit_decks.{REGIONS[a]}.known_bottom[{b}]"
    if kind == AT_FACE_UP:
        return f"board.face_up.{REGIONS[a]}.slot{b}"
    if kind == AT_PLAYER_UP:
        return f"players[{a}].permits_face_up[{b}]"
    return f"players[{a}].permits_face_down[{b}]"


cdef inline int _bad(list out, str path, str problem) except -1:
    out.append((path, problem))
    return 0


cdef inline bint _hand_known(GameState* s, int p) noexcept nogil:
    return s.viewer < 0 or s.viewer == p


# ---------------------------------------------------------------------------------------
# The checks, in the order of the former JSON reader.

cdef int _check_cards(GameState* s, list out) except -1:
    """Politics cards: 90 in all (13 per colour, 12 jokers)."""
    cdef int n = s.n_players, p, k, seen, total
    cdef bint view = s.viewer >= 0
    if not view:
        total = 0
        for k in range(N_CARD_KINDS):
            total += s.politics_deck[k]
        if total != s.politics_deck_n:
            _bad(out, "board.politics_deck_size",
                 f"must equal the number of cards in board.politics_deck ({total}), "
                 f"got {s.politics_deck_n}")
    for p in range(n):
        if not _hand_known(s, p):
            continue
        total = 0
        for k in range(N_CARD_KINDS):
            total += s.hand[p][k]
        if total != s.hand_n[p]:
            _bad(out, f"players[{p}].hand_size",
                 f"must equal the number of cards in the hand ({total}), got {s.hand_n[p]}")
    for k in range(N_CARD_KINDS):
        seen = s.discard[k]
        for p in range(n):
            if _hand_known(s, p):
                seen += s.hand[p][k]
        if not view:
            seen += s.politics_deck[k]
            if seen != CARDS_PER_KIND[k]:
                kind = CARD_KINDS[k]
                _bad(out, f"board.politics_deck.{kind}",
                     f"{kind} cards in hands, deck and discard pile add up to {seen}, "
                     f"must be {CARDS_PER_KIND[k]}")
        elif seen > CARDS_PER_KIND[k]:
            kind = CARD_KINDS[k]
            _bad(out, f"board.discard.{kind}",
                 f"{kind} cards in the viewer's hand and the discard pile add up to {seen}, "
                 f"more than the {CARDS_PER_KIND[k]} in the game")
    total = s.politics_deck_n
    for k in range(N_CARD_KINDS):
        total += s.discard[k]
    for p in range(n):
        total += s.hand_n[p]
    if total != N_CARDS:
        _bad(out, "board.politics_deck_size",
             f"deck size, discard pile and hand sizes add up to {total} cards, "
             f"must be {N_CARDS}")
    return 0


cdef int _check_councillors(GameState* s, list out) except -1:
    """4 councillors per colour; the balconies are full by shape, so 8 are in the pool."""
    cdef int k, b, i, on
    for k in range(N_COLOURS):
        on = 0
        for b in range(N_BALCONIES):
            for i in range(BALCONY_SIZE):
                on += s.balcony[b][i] == k
        if on + s.pool[k] != COUNCILLORS_PER_COLOUR:
            colour = COLOURS[k]
            _bad(out, f"board.pool.{colour}",
                 f"{colour} councillors: {on} in balconies + {s.pool[k]} in the pool, "
                 f"must total {COUNCILLORS_PER_COLOUR}")
    return 0


cdef inline int _place(int32_t* where, int t, int32_t at, int region, list out) except -1:
    """Record permit tile t at `at`; region >= 0: the place holds that region's tiles."""
    if region >= 0 and t // TILES_PER_REGION != region:
        _bad(out, _at_path(at), f"tile {t} belongs to the {REGIONS[t // TILES_PER_REGION]}")
    if where[t]:
        _bad(out, _at_path(at), f"tile {t} is also at {_at_path(where[t])}: each tile exists once")
    else:
        where[t] = at
    return 0


cdef int _check_tiles(GameState* s, list out) except -1:
    """Each of the 45 permit tiles exactly once; decks and slots hold their region's."""
    cdef int32_t where[N_TILES]
    cdef int g, j, size, hidden, slot, t, p, i, kind
    cdef uint64_t m
    memset(where, 0, sizeof(where))
    for g in range(N_REGIONS):
        size = s.deck_n[g]
        hidden = size - s.deck_known[g]  # the unknown part, then the known bottom
        for j in range(size):
            if j < hidden:
                _place(where, s.permit_deck[g][j], _at(AT_UNKNOWN, g, j), g, out)
            else:
                _place(where, s.permit_deck[g][j], _at(AT_KNOWN, g, j - hidden), g, out)
        if s.viewer >= 0:
            for j in range(1, hidden):
                if s.permit_deck[g][j] < s.permit_deck[g][j - 1]:
                    _bad(out, f"board.permit_decks.{REGIONS[g]}.unknown",
                         "must be in increasing order in a view (the deck order is hidden)")
                    break
        for slot in range(2):
            t = s.face_up[g][slot]
            if t >= 0:
                _place(where, t, _at(AT_FACE_UP, g, slot), g, out)
            elif size and not s.pending_n:
                _bad(out, f"board.face_up.{REGIONS[g]}.slot{slot}",
                     "is empty while the region's deck still has tiles and no decision is "
                     "pending (a taken tile is replaced once its bonus has resolved)")
    for p in range(s.n_players):
        for kind in range(AT_PLAYER_UP, AT_PLAYER_DOWN + 1):
            # Rank among the set bits = index in the JSON writer's increasing list.
            m = s.permits_up[p] if kind == AT_PLAYER_UP else s.permits_down[p]
            i = 0
            while m:
                _place(where, ctz64(m), _at(kind, p, i), -1, out)
                m &= m - 1
                i += 1
    for t in range(N_TILES):
        if not where[t]:
            missing = ", ".join([str(x) for x in range(N_TILES) if not where[x]])
            _bad(out, "board.permit_decks",
                 f"permit tile(s) {missing} are nowhere: every tile must be in a deck, a "
                 "face-up slot or a player's tiles")
            break
    return 0


cdef int _check_emporiums(GameState* s, list out) except -1:
    """Neutral emporiums, used permits, the end trigger."""
    cdef int n = s.n_players, g, t, p, i, trigger
    cdef uint16_t here
    cdef uint64_t m
    cdef bint found
    if n != 2 and s.neutral:
        _bad(out, "board.neutral_emporiums", "must be empty: neutral emporiums need 2 players")
    if n == 2:
        for g in range(N_REGIONS):
            here = s.neutral & REGION_MASK[g]
            found = False
            for t in range(g * TILES_PER_REGION, (g + 1) * TILES_PER_REGION):
                if TILE_MASK[t] == here:
                    found = True
                    break
            if not found:
                region = REGIONS[g]
                names = ", ".join([CITIES[x] for x in range(N_CITIES) if (here >> x) & 1])
                _bad(out, "board.neutral_emporiums",
                     f"the neutral emporiums in the {region} ({names or 'none'}) must be the "
                     f"cities of one {region} permit tile")
    for p in range(n):
        m = s.permits_down[p]
        i = 0  # rank among the set bits, as the JSON writer lists them
        while m:
            t = ctz64(m)
            if not (s.emporia[p] & TILE_MASK[t]):
                _bad(out, f"players[{p}].permits_face_down[{i}]",
                     f"tile {t} is used, so the player must have an emporium in one of its "
                     "cities")
            m &= m - 1
            i += 1
    trigger = s.end_trigger
    if trigger >= 0:
        if s.emporia_n[trigger] != MAX_EMPORIUMS:
            _bad(out, "turn.end_trigger",
                 f"seat {trigger} must have built all {MAX_EMPORIUMS} emporiums")
        elif s.vp[trigger] < TENTH_EMPORIUM_VP:
            _bad(out, f"players[{trigger}].vp",
                 "the player who built the 10th emporium first has scored "
                 f"{TENTH_EMPORIUM_VP} VP for it")
    else:
        for p in range(n):
            if s.emporia_n[p] == MAX_EMPORIUMS:
                _bad(out, "turn.end_trigger",
                     f"must be set: seat {p} has built all {MAX_EMPORIUMS} emporiums")
                break
    return 0


cdef int _check_reward_tiles(GameState* s, list out) except -1:
    """Bonus tiles (held once, earned, or still on the board) and king reward tiles."""
    cdef int n = s.n_players, p, i, t, k, taken, expected, n_left
    cdef uint16_t* need = BONUS_NEED[s.layout]
    cdef uint8_t left = s.bonus_tiles_left, held = 0, kheld = 0
    cdef uint64_t m
    cdef int8_t holder[N_BONUS_TILES][2]   # (seat, rank) of the first holder
    cdef int8_t kholder[N_KING_TILES][2]
    for p in range(n):
        m = s.bonus_tiles[p]
        i = 0  # rank among the set bits, as the JSON writer lists them
        while m:
            t = ctz64(m)
            m &= m - 1
            if (held >> t) & 1:
                _bad(out, f"players[{p}].bonus_tiles[{i}]",
                     f"the {BONUS_TILES[t]} tile is also held at "
                     f"players[{holder[t][0]}].bonus_tiles[{holder[t][1]}]")
                i += 1
                continue
            held |= 1 << t
            holder[t][0] = p
            holder[t][1] = i
            if (left >> t) & 1:
                _bad(out, f"players[{p}].bonus_tiles[{i}]",
                     f"the {BONUS_TILES[t]} tile is also in board.bonus_tiles_left")
            if need[t] & ~s.emporia[p]:
                _bad(out, f"players[{p}].bonus_tiles[{i}]",
                     f"the {BONUS_TILES[t]} tile needs an emporium in each of its cities")
            i += 1
    for t in range(N_BONUS_TILES):
        if not (left >> t) & 1:
            if not (held >> t) & 1:
                _bad(out, "board.bonus_tiles_left",
                     f"the {BONUS_TILES[t]} tile is neither on the board nor held by a player")
            continue
        for p in range(n):
            if not (need[t] & ~s.emporia[p]):
                _bad(out, "board.bonus_tiles_left",
                     f"the {BONUS_TILES[t]} tile is taken: seat {p} has an emporium in each "
                     "of its cities")
                break
    taken = s.king_tiles_taken
    n_left = popcount64(left)
    expected = min(<int>N_KING_TILES, N_BONUS_TILES - n_left)
    if taken != expected:
        _bad(out, "board.king_tiles_taken",
             f"must be {expected}: one king reward tile comes with each of the "
             f"{N_BONUS_TILES - n_left} bonus tiles taken while any remain")
    for p in range(n):
        if popcount64(s.king_tiles[p]) > popcount64(s.bonus_tiles[p]):
            _bad(out, f"players[{p}].king_tiles",
                 "a player holds at most one king reward tile per bonus tile")
        m = s.king_tiles[p]
        i = 0  # rank among the set bits, as the JSON writer lists them
        while m:
            k = ctz64(m)
            m &= m - 1
            if (kheld >> k) & 1:
                _bad(out, f"players[{p}].king_tiles[{i}]",
                     f"king reward tile {KING_TILES[k]} is also held at "
                     f"players[{kholder[k][0]}].king_tiles[{kholder[k][1]}]")
            else:
                kheld |= 1 << k
                kholder[k][0] = p
                kholder[k][1] = i
            if k >= taken:
                _bad(out, f"players[{p}].king_tiles[{i}]",
                     f"king reward tile {KING_TILES[k]} is still on the board: the tiles are "
                     f"taken in the order {list(KING_TILES)} and {taken} have been taken")
            i += 1
    for k in range(min(taken, <int>N_KING_TILES)):
        if not (kheld >> k) & 1:
            _bad(out, "board.king_tiles_taken",
                 f"king reward tile {KING_TILES[k]} has been taken but no player holds it")
    return 0


cdef int _check_assistants(GameState* s, list out) except -1:
    cdef int p, total = 0
    if s.assistant_supply:
        for p in range(s.n_players):
            total += s.assistants[p]
        if total > s.assistant_supply:
            _bad(out, "players",
                 f"the players hold {total} assistants, more than the supply of "
                 f"{s.assistant_supply}")
    return 0


cdef int _check_turn(GameState* s, list out) except -1:
    """The seat to act, the turn's main actions and the pending decisions."""
    cdef int n = s.n_players, cur = s.current, trigger = s.end_trigger, i, kind, arg, g, slot
    cdef int64_t number = s.turn
    cdef int expect = <int>((number - 1) % n)
    if cur != expect:
        _bad(out, "turn.current",
             f"must be {expect}: seat 0 plays turn 1 and seats follow in order (turn {number})")
    if s.action_count < number - 1:
        _bad(out, "turn.action_count",
             f"must be at least {number - 1}: each turn ends by an action")
    if s.game_over:
        if trigger < 0:
            _bad(out, "turn.game_over", "the game ends only after a player built 10 emporiums")
        elif cur != (trigger - 1 + n) % n:
            _bad(out, "turn.current",
                 f"must be {(trigger - 1 + n) % n} in a finished game: the last turn is the "
                 f"one before seat {trigger}'s")
        if s.pending_n:
            _bad(out, "turn.pending", "must be empty once the game is over")
        if s.main_done < 1:
            _bad(out, "turn.main_done", "a turn ends only after a main action")
    elif s.main_left + s.main_done < 1:
        _bad(out, "turn.main_left",
             "every turn has at least one main action: main_left + main_done must be ≥ 1")
    for i in range(s.pending_n):
        kind = s.pending_kind[i]
        arg = s.pending_arg[i]
        if s.main_done < 1:
            _bad(out, f"turn.pending[{i}]",
                 "decisions are pending only during a main action (main_done ≥ 1)")
        if kind == P_PAY_PERMIT or kind == P_PAY_KING:
            if s.pending_n != 1:
                _bad(out, f"turn.pending[{i}]", "a payment must be the only pending decision")
            if kind == P_PAY_PERMIT:
                g = arg >> 1
                slot = arg & 1
                if s.face_up[g][slot] < 0:
                    _bad(out, f"turn.pending[{i}].permit",
                         f"the {REGIONS[g]} face-up slot {slot} is empty")
            elif (s.emporia[cur] >> arg) & 1:
                _bad(out, f"turn.pending[{i}].city",
                     f"seat {cur} already has an emporium in {CITIES[arg]}")
            elif s.emporia_n[cur] >= MAX_EMPORIUMS:
                _bad(out, f"turn.pending[{i}].city", f"seat {cur} has no emporium left to build")
        elif kind == P_TOKEN_PAIR_SECOND:
            if i != 0:
                _bad(out, f"turn.pending[{i}]",
                     "the second of two city tokens is chosen right after the first")
            if (not (s.emporia[cur] >> arg) & 1 or s.city_token[arg] < 0
                    or TOKEN_HAS_NOBILITY[s.city_token[arg]]):
                _bad(out, f"turn.pending[{i}].city",
                     f"{CITIES[arg]} is not a city whose token seat {cur} could have chosen")
    return 0


cdef bint _unplayable(GameState* s) noexcept nogil:
    """A game in progress whose player to act has a known hand and no legal action."""
    cdef GameState copy
    cdef int buf[N_ACTIONS]
    if s.game_over or (s.viewer >= 0 and s.viewer != s.current):
        return False
    copy = s[0]
    if copy.viewer >= 0:
        determinize(&copy, 0)
    return legal_actions(&copy, buf) == 0


cdef list state_problems(GameState* s):
    cdef list out = []
    _check_cards(s, out)
    _check_councillors(s, out)
    _check_tiles(s, out)
    _check_emporiums(s, out)
    _check_reward_tiles(s, out)
    _check_assistants(s, out)
    _check_turn(s, out)
    if not out and _unplayable(s):
        _bad(out, "turn.pending[0]" if s.pending_n else "turn",
             "the player to act has no legal action in this position")
    return out


def problems(CouncilOfFourState state not None):
    """Every consistency problem of ``state`` as ``(field path, problem)`` pairs, in a
    fixed order; ``[]`` when the position is consistent (see the module docstring)."""
    return state_problems(&state.s)
