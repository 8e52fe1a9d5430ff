"""Board facts of Council of Four: cities, roads of the 8 layouts, tokens, permit tiles.

The facts live in ``data/board.json``; this module turns them into the small integer
tables the compiled core uses and the names people read.

>>> CITY_NAMES[9], CITY_LETTERS[9], REGIONS[CITY_REGION[9]]
('Juvelar', 'J', 'hills')
>>> layout = Layout.from_code("ABA")
>>> layout.index, CITY_NAMES[layout.king_city]
(2, 'Juvelar')
>>> sorted(CITY_LETTERS[c] for c in layout.neighbours(city_index("Indur")))
['F', 'J', 'K']
>>> layout.distance(city_index("A"), city_index("O"))  # Arkon-Burgen-Esti-Hellar-Merkatim-Osium
5
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import cache
from importlib import resources

_DATA = json.loads(resources.files(__package__).joinpath("data/board.json").read_text())

BONUS_KEYS: tuple[str, ...] = tuple(_DATA["bonus_keys"])  # VP, coins, assistants, politics, ...
REGIONS: tuple[str, ...] = tuple(_DATA["regions"])
CITY_COLOURS: tuple[str, ...] = tuple(_DATA["city_colours"])
COUNCILLOR_COLOURS: tuple[str, ...] = tuple(_DATA["councillor_colours"])
CARD_KINDS: tuple[str, ...] = COUNCILLOR_COLOURS + ("joker",)
CITY_NAMES: tuple[str, ...] = tuple(c["name"] for c in _DATA["cities"])
CITY_LETTERS: tuple[str, ...] = tuple(c["letter"] for c in _DATA["cities"])
CITY_REGION: tuple[int, ...] = tuple(REGIONS.index(c["region"]) for c in _DATA["cities"])
N_CITIES = len(CITY_NAMES)
LAYOUT_CODES: tuple[str, ...] = tuple(
    a + b + c for a in "AB" for b in "AB" for c in "AB"
)  # index = 4*coast + 2*hills + mountains, side A = 0
DEFAULT_LAYOUT = _DATA["default_layout"]

CITY_TOKENS: tuple[dict[str, int], ...] = tuple(_DATA["city_tokens"])
KING_REWARD_TILES: tuple[int, ...] = tuple(_DATA["king_reward_tiles"])
# Bonus tiles: the three regions, then the four city colours.
BONUS_TILE_NAMES: tuple[str, ...] = REGIONS + CITY_COLOURS
BONUS_TILE_VP: tuple[int, ...] = tuple(_DATA["region_bonus_tiles"][r] for r in REGIONS) + tuple(
    _DATA["colour_bonus_tiles"][c] for c in CITY_COLOURS
)
NOBILITY_MAX: int = _DATA["nobility_track"]["max"]
# The frame of the city positions on a region board (Layout.city_positions): width, height.
MAP_FRAME: tuple[int, int] = (_DATA["map_frame"]["width"], _DATA["map_frame"]["height"])
NOBILITY_SPACES: dict[int, dict] = {int(k): v for k, v in _DATA["nobility_track"]["spaces"].items()}
# The rule numbers: the compiled core loads them (council.engine._council_of_four.rule_numbers()
# gives back what it plays by) and holds no copy of its own.
RULE_NUMBERS = {
    k: _DATA[k]
    for k in (
        "start",
        "politics_cards",
        "councillors_per_colour",
        "council_cost_by_cards",
        "council_cost_per_joker",
        "elect_coins",
        "king_cost_per_road",
        "engage_assistant_coins",
        "extra_main_assistants",
        "tenth_emporium_vp",
        "nobility_first_vp",
        "nobility_second_vp",
        "most_permits_vp",
    )
}


def city_index(name: str) -> int:
    """Index of a city given its name or letter (case-insensitive).

    >>> city_index("graden"), city_index("G")
    (6, 6)
    """
    key = name.strip().lower()
    for i, (n, letter) in enumerate(zip(CITY_NAMES, CITY_LETTERS, strict=True)):
        if key in (n.lower(), letter.lower()):
            return i
    raise ValueError(f"unknown city {name!r}")


@dataclass(frozen=True)
class PermitTile:
    """One of the 45 business permit tiles. ``index`` is region * 15 + position."""

    index: int
    region: int
    cities: tuple[int, ...]
    bonus: dict[str, int]

    def to_text(self) -> str:
        """Short label, e.g. ``'A/E nobility+2'``."""
        cities = "/".join(CITY_LETTERS[c] for c in self.cities)
        bonus = " ".join(f"{k}+{v}" for k, v in self.bonus.items())
        return f"{cities} {bonus}"


PERMIT_TILES: tuple[PermitTile, ...] = tuple(
    PermitTile(
        index=r * 15 + i,
        region=r,
        cities=tuple(city_index(c) for c in t["cities"]),
        bonus=dict(t["bonus"]),
    )
    for r, region in enumerate(REGIONS)
    for i, t in enumerate(_DATA["permit_tiles"][region])
)
TILES_PER_REGION = 15


@dataclass(frozen=True)
class Layout:
    """One of the 8 board layouts: a side (A or B) for each of the three region boards."""

    code: str

    @classmethod
    def from_code(cls, code: str) -> Layout:
        code = code.strip().upper()
        if code not in LAYOUT_CODES:
            raise ValueError(
                f"layout must be 3 letters A/B (coast, hills, mountains), got {code!r}"
            )
        return cls(code)

    @classmethod
    def from_index(cls, index: int) -> Layout:
        return cls(LAYOUT_CODES[index])

    @property
    def index(self) -> int:
        return LAYOUT_CODES.index(self.code)

    def _side(self, region: int) -> dict:
        return _DATA["region_sides"][REGIONS[region]][self.code[region]]

    @property
    def king_city(self) -> int:
        return city_index(self._side(1)["king_city"])

    @property
    def city_colours(self) -> tuple[int, ...]:
        """Colour index of each city (``-1`` for the king's city)."""
        colours = {}
        for r in range(3):
            for letter, colour in self._side(r)["colours"].items():
                colours[city_index(letter)] = -1 if colour is None else CITY_COLOURS.index(colour)
        return tuple(colours[c] for c in range(N_CITIES))

    @property
    def roads(self) -> tuple[tuple[int, int], ...]:
        names = [road for r in range(3) for road in self._side(r)["roads"]]
        names += _DATA["cross_region_roads"]
        names.append(_DATA["cross_region_road_by_hills_side"][self.code[1]])
        ends = (sorted(map(city_index, n.split("-"))) for n in names)  # "A-B": two cities
        return tuple(sorted((a, b) for a, b in ends))

    @property
    def city_positions(self) -> tuple[tuple[float, float], ...]:
        """Where each city is drawn on its own region board (this layout's side of it):
        ``(x, y)`` in a ``MAP_FRAME`` frame, x to the right, y down; the three boards lie
        side by side, coast on the left.

        >>> Layout.from_code("ABA").city_positions[city_index("Juvelar")]
        (60.0, 60.0)
        """
        positions: dict[int, tuple[float, float]] = {}
        for r in range(3):
            for letter, (x, y) in self._side(r)["positions"].items():
                positions[city_index(letter)] = (float(x), float(y))
        return tuple(positions[c] for c in range(N_CITIES))

    def neighbours(self, city: int) -> tuple[int, ...]:
        return tuple(b if a == city else a for a, b in self.roads if city in (a, b))

    def distance(self, a: int, b: int) -> int:
        return _distances(self.code)[a][b]


@cache
def _distances(code: str) -> tuple[tuple[int, ...], ...]:
    layout = Layout(code)
    rows = []
    for start in range(N_CITIES):
        dist = [-1] * N_CITIES
        dist[start] = 0
        queue = deque([start])
        while queue:
            c = queue.popleft()
            for n in layout.neighbours(c):
                if dist[n] < 0:
                    dist[n] = dist[c] + 1
                    queue.append(n)
        rows.append(tuple(dist))
    return tuple(rows)
