"""Hand-made positions for the rules tests.

A ``Pos`` starts from ``CouncilOfFourState.new_game(CouncilOfFourConfig(...), seed)``, takes
``to_raw()``, lets a test overwrite fields (hands, coins, balconies, emporia, tokens, permit tiles,
nobility, pending decisions ...) and rebuilds a ``CouncilOfFourState`` with
``CouncilOfFourState.from_raw``. Derived fields are kept consistent: ``hand_n``,
``politics_deck_n``, the councillor pool (4 of each colour in all), ``emporia_n``, and each permit
deck (every tile of the region that is neither face up nor owned, unless a deck is set explicitly).

Also action-id helpers (``elect``, ``acquire``, ``pay`` ...) and small readers.
"""

from __future__ import annotations

import random

from council.engine import council_of_four_board as B
from council.engine._council_of_four import ACTION_OFFSETS, PAYMENTS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState

A = ACTION_OFFSETS
BALCONIES = ("coast", "hills", "mountains", "king")
KING = 3

# City tokens by index (board.json order).
T_COINS1, T_COINS2, T_COINS3 = 0, 1, 2
T_VP1, T_VP2, T_VP3 = 3, 4, 5
T_ASS1, T_ASS2 = 6, 7
T_POL1 = 8
T_NOB_A, T_NOB_B = 9, 10
T_COIN_ASS, T_ASS_POL, T_VP_POL = 11, 12, 13


def city(name) -> int:
    return name if isinstance(name, int) else B.city_index(name)


def colour(c) -> int:
    return c if isinstance(c, int) else B.CARD_KINDS.index(c)


def balcony_index(b) -> int:
    return b if isinstance(b, int) else BALCONIES.index(b)


def region_index(r) -> int:
    return r if isinstance(r, int) else B.REGIONS.index(r)


def tile(cities: str, region=None) -> int:
    """Index of the permit tile showing exactly these city letters, e.g. ``tile("AE")``."""
    want = tuple(sorted(city(c) for c in cities))
    for t in B.PERMIT_TILES:
        if tuple(sorted(t.cities)) == want:
            return t.index
    raise ValueError(f"no tile {cities!r}")


def mask(cities) -> int:
    m = 0
    for c in cities:
        m |= 1 << city(c)
    return m


def cards(**counts) -> tuple[int, ...]:
    """A 7-tuple of card counts from keyword colours, e.g. ``cards(white=2, joker=1)``."""
    out = [0] * len(B.CARD_KINDS)
    for k, v in counts.items():
        out[colour(k)] = v
    return tuple(out)


# -- action ids ----------------------------------------------------------------------------
END_TURN = A["end_turn"]
ENGAGE = A["engage"]
EXTRA_MAIN = A["extra_main"]


def elect(b, c) -> int:
    return A["elect"] + balcony_index(b) * 6 + colour(c)


def quick_elect(b, c) -> int:
    return A["quick_elect"] + balcony_index(b) * 6 + colour(c)


def acquire(region, slot) -> int:
    return A["acquire"] + region_index(region) * 2 + slot


def build_permit(t, k=0) -> int:
    return A["build_permit"] + t * 3 + k


def build_king(c) -> int:
    return A["build_king"] + city(c)


def change(region) -> int:
    return A["change"] + region_index(region)


def pay(**counts) -> int:
    return A["pay"] + PAYMENTS.index(cards(**counts))


def pay_tuple(counts) -> int:
    return A["pay"] + PAYMENTS.index(tuple(counts))


def choose_token(c) -> int:
    return A["choose_token"] + city(c)


def choose_free_permit(region, slot) -> int:
    return A["choose_free_permit"] + region_index(region) * 2 + slot


def choose_permit_bonus(t) -> int:
    return A["choose_permit_bonus"] + t


def of_kind(actions, kind: str) -> list[int]:
    """The actions of one kind (offset name), as offsets from its base."""
    lo = A[kind]
    his = sorted(v for v in A.values() if v > lo)
    hi = his[0] if his else 10**9
    return [a - lo for a in actions if lo <= a < hi]


# -- readers -------------------------------------------------------------------------------
def raw(state: CouncilOfFourState) -> dict:
    return state.to_raw()


def hand(state: CouncilOfFourState, p: int) -> tuple[int, ...]:
    return tuple(state.to_raw()["hand"][p])


def owned_tiles(bits: int) -> set[int]:
    return {t for t in range(45) if (bits >> t) & 1}


def cities_of(bits: int) -> set[str]:
    return {B.CITY_NAMES[c] for c in range(B.N_CITIES) if (bits >> c) & 1}


def pending(state: CouncilOfFourState) -> list[tuple[int, int]]:
    r = state.to_raw()
    return [(r["pending_kind"][i], r["pending_arg"][i]) for i in range(r["pending_n"])]


# -- the builder ---------------------------------------------------------------------------
class Pos:
    """Mutable raw position; every setter returns self so calls can be chained."""

    def __init__(self, players=4, layout="ABA", seed=0, **variants):
        self.config = CouncilOfFourConfig(players=players, layout=layout, **variants)
        self.raw = CouncilOfFourState.new_game(self.config, seed).to_raw()
        self._explicit_deck: set[int] = set()

    # players
    def hand(self, p, **counts):
        """Set p's exact hand; cards come from / go back to the politics deck."""
        r = self.raw
        new = cards(**counts)
        for k in range(7):
            delta = new[k] - r["hand"][p][k]
            r["politics_deck"][k] -= delta
            if r["politics_deck"][k] < 0:
                raise ValueError("not enough cards of that kind left in the deck")
            r["hand"][p][k] = new[k]
        return self

    def coins(self, p, n):
        self.raw["coins"][p] = n
        return self

    def assistants(self, p, n):
        self.raw["assistants"][p] = n
        return self

    def vp(self, p, n):
        self.raw["vp"][p] = n
        return self

    def nobility(self, p, n):
        self.raw["nobility"][p] = n
        return self

    def emporia(self, p, cities):
        self.raw["emporia"][p] = mask(cities)
        return self

    def neutral(self, cities):
        self.raw["neutral"] = mask(cities)
        return self

    def permits(self, p, up=(), down=()):
        """Give p these tiles (face up / used); they leave the face-up slots if there."""
        r = self.raw
        r["permits_up"][p] = sum(1 << t for t in up)
        r["permits_down"][p] = sum(1 << t for t in down)
        for t in (*up, *down):
            for reg in range(3):
                for s in range(2):
                    if r["face_up"][reg][s] == t:
                        r["face_up"][reg][s] = -1
        return self

    def bonus_tiles(self, p, bits, king_bits=0):
        self.raw["bonus_tiles"][p] = bits
        self.raw["king_tiles"][p] = king_bits
        return self

    # board
    def balcony(self, b, colours):
        self.raw["balcony"][balcony_index(b)] = [colour(c) for c in colours]
        return self

    def known_councils(self):
        """The councils most rules tests use: coast W W K O, hills K O P U, mountains U C C W,
        king W K P U (pool: no white, one black, one purple, two orange, pink and cyan)."""
        return (
            self.balcony("coast", ["white", "white", "black", "orange"])
            .balcony("hills", ["black", "orange", "pink", "purple"])
            .balcony("mountains", ["purple", "cyan", "cyan", "white"])
            .balcony("king", ["white", "black", "pink", "purple"])
        )

    def token(self, c, t):
        """Put token t on city c (swapping with the city that held it)."""
        r = self.raw
        c = city(c)
        if r["city_token"][c] < 0:
            raise ValueError("the king's city has no token")
        old = r["city_token"].index(t)
        r["city_token"][old], r["city_token"][c] = r["city_token"][c], t
        return self

    def tokens(self, mapping):
        for c, t in mapping.items():
            self.token(c, t)
        return self

    def face_up(self, region, t0, t1):
        """Show tiles t0, t1 (-1 = empty) in a region; the deck is rebuilt from the rest."""
        reg = region_index(region)
        self.raw["face_up"][reg] = [t0, t1]
        return self

    def deck(self, region, tiles, known=0):
        """Set a permit deck exactly (index 0 = top); the last `known` are public."""
        reg = region_index(region)
        self.raw["permit_deck"][reg] = list(tiles) + [-1] * (15 - len(tiles))
        self.raw["deck_n"][reg] = len(tiles)
        self.raw["deck_known"][reg] = known
        self._explicit_deck.add(reg)
        return self

    def politics(self, deck=None, discard=None):
        """Set the politics deck and/or discard pile (7-tuples of counts)."""
        if deck is not None:
            self.raw["politics_deck"] = list(deck)
        if discard is not None:
            self.raw["discard"] = list(discard)
        return self

    def king(self, c):
        self.raw["king_city"] = city(c)
        return self

    def bonus_left(self, bits, king_taken=0):
        self.raw["bonus_tiles_left"] = bits
        self.raw["king_tiles_taken"] = king_taken
        return self

    # turn
    def turn(self, current=0, main_left=1, main_done=0, quick_used=0):
        r = self.raw
        r["current"], r["main_left"], r["main_done"] = current, main_left, main_done
        r["quick_used"] = quick_used
        return self

    def pending(self, *items):
        r = self.raw
        r["pending_n"] = len(items)
        r["pending_kind"] = [k for k, _ in items] + [0] * (16 - len(items))
        r["pending_arg"] = [a for _, a in items] + [0] * (16 - len(items))
        return self

    def end_trigger(self, p):
        self.raw["end_trigger"] = p
        return self

    def set(self, **fields):
        self.raw.update(fields)
        return self

    # result
    def _fix(self):
        r = self.raw
        n = r["n_players"]
        r["hand_n"] = [sum(r["hand"][p]) if p < n else 0 for p in range(4)]
        r["politics_deck_n"] = sum(r["politics_deck"])
        counts = [0] * 6
        for b in r["balcony"]:
            for c in b:
                counts[c] += 1
        r["pool"] = [4 - x for x in counts]
        if min(r["pool"]) < 0:
            raise ValueError(f"more than 4 councillors of a colour: {r['balcony']}")
        r["emporia_n"] = [bin(e).count("1") for e in r["emporia"]]
        owned = 0
        for p in range(4):
            owned |= r["permits_up"][p] | r["permits_down"][p]
        for reg in range(3):
            if reg in self._explicit_deck:
                continue
            shown = set(r["face_up"][reg])
            rest = [
                t for t in range(reg * 15, reg * 15 + 15) if t not in shown and not (owned >> t) & 1
            ]
            r["permit_deck"][reg] = rest + [-1] * (15 - len(rest))
            r["deck_n"][reg] = len(rest)
            r["deck_known"][reg] = 0

    def state(self) -> CouncilOfFourState:
        self._fix()
        return CouncilOfFourState.from_raw(self.raw)


def play(state: CouncilOfFourState, *actions) -> CouncilOfFourState:
    """Apply actions in order (each must be legal) and return the state."""
    for a in actions:
        state.apply(a)
    return state


def set_bits(mask: int, n: int = 64) -> list[int]:
    """The indices of the set bits of `mask` below `n`, in increasing order."""
    return [i for i in range(n) if mask >> i & 1]


def find_position(config: CouncilOfFourConfig, seed: int, pred) -> CouncilOfFourState:
    """The first position of a seeded random game (Python RNG from `seed`) that satisfies
    `pred`."""
    s = CouncilOfFourState.new_game(config, seed=seed)
    rng = random.Random(seed)
    while not pred(s):
        assert not s.is_terminal(), "the game ended before the wanted position"
        s.apply(rng.choice(s.legal_actions()))
    return s


def play_random(state: CouncilOfFourState, seed: int, steps: int) -> CouncilOfFourState:
    """Apply up to `steps` uniformly random legal actions (Python RNG from `seed`) in place,
    stopping at the end of the game; returns the state."""
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state
