"""Structural invariants of a Council of Four state, checked from ``CouncilOfFourState.to_raw()``.

``check_invariants(state)`` raises AssertionError naming the first broken invariant. It
accepts a full state (``viewer == -1``) or one seat's view (other hands and the politics
deck erased, RNG zeroed). The numbers below are the physical components of the game; they
are written out here rather than read from the board data so that a data slip is caught.
"""

from __future__ import annotations

from functools import cache

from council.engine import council_of_four_board as board
from council.engine._council_of_four import Decision

N_CITIES = 15
N_REGIONS = 3
TILES_PER_REGION = 15
N_TILES = 45
N_COLOURS = 6
N_CARD_KINDS = 7
CARDS_PER_KIND = (13, 13, 13, 13, 13, 13, 12)  # six colours, then jokers
N_POLITICS = 90
COUNCILLORS_PER_COLOUR = 4
N_BALCONIES = 4
BALCONY_SIZE = 4
POOL_SIZE = 8
MAX_PLAYERS = 4
MAX_EMPORIUMS = 10
NOBILITY_MAX = 20
MAX_PENDING = 16
N_TOKENS = 14
N_BONUS_TILES = 7
N_KING_TILES = 5
ALL_BONUS_TILES = (1 << N_BONUS_TILES) - 1

# The range of each pending decision kind's argument (the kinds are the core's numbering,
# not a fact of the game: they come from the core).
PENDING_ARG_RANGE = {
    Decision.pay_permit: range(0, 6),  # region * 2 + slot
    Decision.pay_king: range(0, N_CITIES),  # destination city
    Decision.city_token: range(0, 1),
    Decision.first_of_two_city_tokens: range(0, 1),
    Decision.second_of_two_city_tokens: range(0, N_CITIES),  # arg = the first city
    Decision.free_permit: range(0, 1),
    Decision.permit_bonus: range(0, 1),
}

_INT8_FIELDS = {
    "city_token": (N_CITIES,),
    "balcony": (N_BALCONIES, BALCONY_SIZE),
    "pool": (N_COLOURS,),
    "permit_deck": (N_REGIONS, TILES_PER_REGION),
    "deck_n": (N_REGIONS,),
    "deck_known": (N_REGIONS,),
    "face_up": (N_REGIONS, 2),
    "nobility": (MAX_PLAYERS,),
    "emporia_n": (MAX_PLAYERS,),
    "bonus_tiles": (MAX_PLAYERS,),
    "king_tiles": (MAX_PLAYERS,),
    "pending_kind": (MAX_PENDING,),
    "pending_arg": (MAX_PENDING,),
    "politics_deck": (N_CARD_KINDS,),
    "discard": (N_CARD_KINDS,),
    "coins": (MAX_PLAYERS,),
    "assistants": (MAX_PLAYERS,),
    "vp": (MAX_PLAYERS,),
    "hand": (MAX_PLAYERS, N_CARD_KINDS),
    "hand_n": (MAX_PLAYERS,),
    "emporia": (MAX_PLAYERS,),
    "permits_up": (MAX_PLAYERS,),
    "permits_down": (MAX_PLAYERS,),
}

_PLAYER_FIELDS = (
    "coins",
    "assistants",
    "vp",
    "nobility",
    "hand_n",
    "emporia",
    "emporia_n",
    "permits_up",
    "permits_down",
    "bonus_tiles",
    "king_tiles",
)

_REGION_CITY_MASKS = tuple(
    sum(1 << c for c in range(N_CITIES) if board.CITY_REGION[c] == r) for r in range(N_REGIONS)
)


@cache
def _layout_facts(layout: int) -> tuple[int, tuple[int, ...]]:
    """(initial king city, city mask of each of the 4 city colours) of a layout."""
    lay = board.Layout.from_index(layout)
    colours = lay.city_colours
    masks = tuple(sum(1 << c for c in range(N_CITIES) if colours[c] == k) for k in range(4))
    return lay.king_city, masks


class InvariantError(AssertionError):
    """A broken state invariant (an AssertionError, so pytest reports it as a failure)."""


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise InvariantError(message)


def _label(label: tuple) -> str:
    return label[0] + "".join(f"[{i}]" for i in label[1:])


def _shape_ok(value, shape: tuple[int, ...]) -> bool:
    if not isinstance(value, (list, tuple)) or len(value) != shape[0]:
        return False
    if len(shape) == 1:
        return set(map(type, value)) <= {int}
    return all(_shape_ok(v, shape[1:]) for v in value)


def check_invariants(state) -> None:
    """Raise AssertionError (InvariantError) if ``state`` breaks a structural invariant."""
    raw = state.to_raw()
    check_raw_invariants(raw)


def check_raw_invariants(raw: dict) -> None:
    """The checks of ``check_invariants`` on a ``to_raw()`` dict."""
    # -- form: every array field is a list of Python ints of the struct's shape -------------
    for name, shape in _INT8_FIELDS.items():
        _check(name in raw, f"to_raw() has no field {name!r}")
        value = raw[name]
        _check(
            _shape_ok(value, shape),
            f"to_raw()[{name!r}] must be a list of ints of shape {shape}, got "
            f"{type(value).__name__} {value!r} (int8 arrays converted to NUL-truncated bytes?)",
        )

    n = raw["n_players"]
    _check(n in (2, 3, 4), f"n_players = {n}, must be 2, 3 or 4")
    _check(0 <= raw["layout"] < 8, f"layout = {raw['layout']}, must be in 0..7")
    viewer = raw["viewer"]
    _check(-1 <= viewer < n, f"viewer = {viewer}, must be -1 or a seat in 0..{n - 1}")
    full = viewer == -1
    players = range(n)

    # -- seats beyond n_players are empty -------------------------------------------------
    for p in range(n, MAX_PLAYERS):
        for name in _PLAYER_FIELDS:
            if raw[name][p] != 0:
                raise InvariantError(f"{name}[{p}] = {raw[name][p]} for an absent seat")
        _check(raw["hand"][p] == [0] * N_CARD_KINDS, f"hand[{p}] not empty for an absent seat")

    # -- politics cards: 13 per colour + 12 jokers over hands, deck and discard -------------
    hand, hand_n = raw["hand"], raw["hand_n"]
    deck, deck_total, discard = raw["politics_deck"], raw["politics_deck_n"], raw["discard"]
    _check(min(discard) >= 0, f"discard = {discard} has a negative count")
    _check(min(deck) >= 0, f"politics_deck = {deck} has a negative count")
    for p in players:
        _check(min(hand[p]) >= 0, f"hand[{p}] = {hand[p]} has a negative count")
    _check(deck_total >= 0, f"politics_deck_n = {deck_total} < 0")
    for p in players:
        _check(hand_n[p] >= 0, f"hand_n[{p}] = {hand_n[p]} < 0")
    visible_hands = list(players) if full else [viewer]
    for p in visible_hands:
        _check(
            hand_n[p] == sum(hand[p]),
            f"hand_n[{p}] = {hand_n[p]} but hand[{p}] = {hand[p]} sums to {sum(hand[p])}",
        )
    total = deck_total + sum(discard) + sum(hand_n[p] for p in players)
    _check(
        total == N_POLITICS,
        f"politics cards: deck {deck_total} + discard {sum(discard)} + hands "
        f"{[hand_n[p] for p in players]} = {total}, expected {N_POLITICS}",
    )
    if full:
        _check(
            deck_total == sum(deck),
            f"politics_deck_n = {deck_total} but politics_deck = {deck} sums to {sum(deck)}",
        )
        for k in range(N_CARD_KINDS):
            held = deck[k] + discard[k] + sum(hand[p][k] for p in players)
            _check(
                held == CARDS_PER_KIND[k],
                f"card kind {k}: deck {deck[k]} + discard {discard[k]} + hands "
                f"{[hand[p][k] for p in players]} = {held}, expected {CARDS_PER_KIND[k]}",
            )
    else:
        _check(raw["rng"] == 0, f"view of seat {viewer} keeps the RNG ({raw['rng']})")
        _check(deck == [0] * N_CARD_KINDS, f"view of seat {viewer} shows the deck {deck}")
        for q in players:
            if q != viewer:
                _check(
                    hand[q] == [0] * N_CARD_KINDS,
                    f"view of seat {viewer} shows the hand of seat {q}: {hand[q]}",
                )
        for k in range(N_CARD_KINDS):
            seen = discard[k] + hand[viewer][k]
            _check(
                seen <= CARDS_PER_KIND[k],
                f"card kind {k}: discard {discard[k]} + viewer's hand {hand[viewer][k]} "
                f"> {CARDS_PER_KIND[k]}",
            )

    # -- councillors: 4 per colour, 4 per balcony, 8 in the pool ----------------------------
    balcony, pool = raw["balcony"], raw["pool"]
    counts = [0] * N_COLOURS
    for b in range(N_BALCONIES):
        for i, c in enumerate(balcony[b]):
            _check(0 <= c < N_COLOURS, f"balcony[{b}][{i}] = {c}, not a councillor colour")
            counts[c] += 1
    for c in range(N_COLOURS):
        _check(pool[c] >= 0, f"pool[{c}] = {pool[c]} < 0")
        counts[c] += pool[c]
    _check(sum(pool) == POOL_SIZE, f"pool {pool} holds {sum(pool)} councillors, expected 8")
    _check(
        counts == [COUNCILLORS_PER_COLOUR] * N_COLOURS,
        f"councillors per colour (balconies + pool) = {counts}, expected 4 each",
    )

    # -- permit tiles: each of the 45 exactly once -------------------------------------------
    where: dict[int, list[tuple]] = {}

    def place(tile: int, *label) -> None:
        # label: (field, index...) formatted only when something is wrong
        if not 0 <= tile < N_TILES:
            raise InvariantError(f"{_label(label)} holds {tile}, not a permit tile")
        where.setdefault(tile, []).append(label)

    permit_deck, deck_n, deck_known = raw["permit_deck"], raw["deck_n"], raw["deck_known"]
    for r in range(N_REGIONS):
        _check(
            0 <= deck_n[r] <= TILES_PER_REGION,
            f"deck_n[{r}] = {deck_n[r]}, must be in 0..{TILES_PER_REGION}",
        )
        _check(
            0 <= deck_known[r] <= deck_n[r],
            f"deck_known[{r}] = {deck_known[r]}, must be in 0..deck_n[{r}] = {deck_n[r]}",
        )
        for i in range(TILES_PER_REGION):
            tile = permit_deck[r][i]
            if i < deck_n[r]:
                place(tile, "permit_deck", r, i)
                if tile // TILES_PER_REGION != r:
                    raise InvariantError(
                        f"permit_deck[{r}][{i}] = {tile} belongs to region "
                        f"{tile // TILES_PER_REGION}"
                    )
            elif tile != -1:
                raise InvariantError(
                    f"permit_deck[{r}][{i}] = {tile} beyond deck_n[{r}] = {deck_n[r]}, expected -1"
                )
        for slot in range(2):
            tile = raw["face_up"][r][slot]
            if tile != -1:
                place(tile, "face_up", r, slot)
                _check(
                    tile // TILES_PER_REGION == r,
                    f"face_up[{r}][{slot}] = {tile} belongs to region {tile // TILES_PER_REGION}",
                )
            elif raw["pending_n"] == 0:
                # a taken tile's slot is refilled once its bonus has resolved (RULINGS 22)
                _check(
                    deck_n[r] == 0,
                    f"face_up[{r}][{slot}] is empty while the deck holds {deck_n[r]} tiles "
                    "and no decision is pending",
                )
    up, down = raw["permits_up"], raw["permits_down"]
    for p in players:
        _check(up[p] >> N_TILES == 0 and up[p] >= 0, f"permits_up[{p}] = {up[p]:#x} out of range")
        _check(
            down[p] >> N_TILES == 0 and down[p] >= 0,
            f"permits_down[{p}] = {down[p]:#x} out of range",
        )
        for name, mask in (("permits_up", up[p]), ("permits_down", down[p])):
            while mask:
                low = mask & -mask
                place(low.bit_length() - 1, name, p)
                mask ^= low
    for t in range(N_TILES):
        places = where.get(t, [])
        if len(places) != 1:
            labels = [_label(label) for label in places]
            raise InvariantError(f"permit tile {t} is in {len(places)} places: {labels}")

    # -- resources -----------------------------------------------------------------------
    max_coins = raw["max_coins"]
    for p in players:
        _check(
            0 <= raw["coins"][p] <= max_coins,
            f"coins[{p}] = {raw['coins'][p]}, must be in 0..max_coins = {max_coins}",
        )
        _check(raw["assistants"][p] >= 0, f"assistants[{p}] = {raw['assistants'][p]} < 0")
        _check(raw["vp"][p] >= 0, f"vp[{p}] = {raw['vp'][p]} < 0")
        _check(
            0 <= raw["nobility"][p] <= NOBILITY_MAX,
            f"nobility[{p}] = {raw['nobility'][p]}, must be in 0..{NOBILITY_MAX}",
        )
    supply = raw["assistant_supply"]
    _check(supply >= 0, f"assistant_supply = {supply} < 0")
    if supply > 0:
        held = sum(raw["assistants"][p] for p in players)
        _check(held <= supply, f"players hold {held} assistants, supply is {supply}")

    # -- emporiums --------------------------------------------------------------------------
    emporia, emporia_n = raw["emporia"], raw["emporia_n"]
    for p in players:
        _check(
            0 <= emporia[p] < 1 << N_CITIES,
            f"emporia[{p}] = {emporia[p]:#x} is not a mask of the 15 cities",
        )
        _check(
            emporia_n[p] == bin(emporia[p]).count("1"),
            f"emporia_n[{p}] = {emporia_n[p]} but emporia[{p}] has {bin(emporia[p]).count('1')}",
        )
        _check(
            emporia_n[p] <= MAX_EMPORIUMS,
            f"emporia_n[{p}] = {emporia_n[p]} > {MAX_EMPORIUMS}",
        )
    tenth = [p for p in players if emporia_n[p] == MAX_EMPORIUMS]
    end_trigger = raw["end_trigger"]
    if tenth:
        _check(
            end_trigger in tenth,
            f"seats {tenth} built 10 emporiums but end_trigger = {end_trigger}",
        )
    else:
        _check(end_trigger == -1, f"end_trigger = {end_trigger} but nobody has 10 emporiums")
    neutral = raw["neutral"]
    _check(0 <= neutral < 1 << N_CITIES, f"neutral = {neutral:#x} out of range")
    if n == 2:
        for r in range(N_REGIONS):
            _check(
                neutral & _REGION_CITY_MASKS[r] != 0,
                f"2 players: no neutral emporium in region {r} (neutral = {neutral:#x})",
            )
    else:
        _check(neutral == 0, f"{n} players but neutral = {neutral:#x}")

    # -- city tokens and the king -----------------------------------------------------------
    first_king, colour_masks = _layout_facts(raw["layout"])
    tokens = raw["city_token"]
    _check(
        tokens[first_king] == -1, f"city_token[{first_king}] (king's city) = {tokens[first_king]}"
    )
    others = sorted(t for c, t in enumerate(tokens) if c != first_king)
    _check(
        others == list(range(N_TOKENS)),
        f"city tokens {tokens} are not the 14 tokens once each",
    )
    _check(0 <= raw["king_city"] < N_CITIES, f"king_city = {raw['king_city']} out of range")

    # -- bonus tiles and king reward tiles ------------------------------------------------
    left = raw["bonus_tiles_left"]
    _check(0 <= left <= ALL_BONUS_TILES, f"bonus_tiles_left = {left:#x} out of range")
    seen = left
    for p in players:
        held = raw["bonus_tiles"][p]
        _check(0 <= held <= ALL_BONUS_TILES, f"bonus_tiles[{p}] = {held:#x} out of range")
        _check(
            seen & held == 0,
            f"bonus tiles {seen & held:#x} of seat {p} are also on the board or with another seat",
        )
        seen |= held
        for r in range(N_REGIONS):
            if held >> r & 1:
                _check(
                    emporia[p] & _REGION_CITY_MASKS[r] == _REGION_CITY_MASKS[r],
                    f"seat {p} holds the region {r} bonus tile without all its cities",
                )
        for k in range(4):
            if held >> (N_REGIONS + k) & 1:
                _check(
                    emporia[p] & colour_masks[k] == colour_masks[k],
                    f"seat {p} holds the colour {k} bonus tile without all its cities",
                )
    _check(seen == ALL_BONUS_TILES, f"bonus tiles missing: {ALL_BONUS_TILES & ~seen:#x}")
    taken_bonus = N_BONUS_TILES - bin(left).count("1")
    king_taken = raw["king_tiles_taken"]
    _check(
        king_taken == min(N_KING_TILES, taken_bonus),
        f"king_tiles_taken = {king_taken} but {taken_bonus} bonus tiles have been taken",
    )
    king_seen = 0
    for p in players:
        held = raw["king_tiles"][p]
        _check(
            king_seen & held == 0,
            f"king reward tiles {king_seen & held:#x} held twice (seat {p})",
        )
        king_seen |= held
    _check(
        king_seen == (1 << king_taken) - 1,
        f"king reward tiles held {king_seen:#x}, expected the first {king_taken} "
        f"({(1 << king_taken) - 1:#x})",
    )

    # -- turn --------------------------------------------------------------------------------
    current = raw["current"]
    _check(0 <= current < n, f"current = {current}, must be a seat in 0..{n - 1}")
    _check(raw["main_left"] >= 0, f"main_left = {raw['main_left']} < 0")
    _check(raw["main_done"] >= 0, f"main_done = {raw['main_done']} < 0")
    _check(raw["quick_used"] in (0, 1), f"quick_used = {raw['quick_used']}")
    _check(raw["game_over"] in (0, 1), f"game_over = {raw['game_over']}")
    if raw["game_over"]:
        _check(end_trigger >= 0, "game over without anyone building a 10th emporium")
    _check(raw["turn"] >= 1, f"turn = {raw['turn']} < 1")
    _check(raw["action_count"] >= 0, f"action_count = {raw['action_count']} < 0")
    pending_n = raw["pending_n"]
    _check(
        0 <= pending_n <= MAX_PENDING,
        f"pending_n = {pending_n}, must be in 0..{MAX_PENDING}",
    )
    for i in range(pending_n, MAX_PENDING):
        _check(
            raw["pending_kind"][i] == 0 and raw["pending_arg"][i] == 0,
            f"stale pending decision ({raw['pending_kind'][i]}, {raw['pending_arg'][i]}) in "
            f"slot {i} >= pending_n = {pending_n}: freed slots must be zeroed so that equal "
            "positions compare equal (==, pickle/JSON round trips, hashing)",
        )
    for i in range(pending_n):
        kind, arg = raw["pending_kind"][i], raw["pending_arg"][i]
        _check(kind in PENDING_ARG_RANGE, f"pending_kind[{i}] = {kind}, not a decision kind")
        _check(
            arg in PENDING_ARG_RANGE[kind],
            f"pending_arg[{i}] = {arg} out of range for decision kind {kind}",
        )
