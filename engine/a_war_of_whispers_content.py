"""A War of Whispers' content: the map, the councils' seats and the cards, read from one JSON
file and checked whole before the rules core builds its tables from it.

The rules (docs/a-war-of-whispers.md) fix the five empires, in turn order, and the four seats
of each council; everything printed on the board and the cards is content. The file's schema
(version 1) is documented in docs/a-war-of-whispers.md, "The content file". A broken file is
refused with a ``ContentError`` naming the path of the offending value:

>>> content = bundled_content()
>>> content.id, len(content.regions), len(content.cards)
('council-ai-original-1', 20, 40)
>>> len(content.digest)
64
>>> data = content.to_json()
>>> data["regions"][0]["adjacent"].append(data["regions"][0]["name"])
>>> try:
...     load_content(data)
... except ContentError as error:
...     print(error.path, "-", error.problem)
regions[0].adjacent[3] - a region is not adjacent to itself

Cards' abilities are data too: a cost in empire symbols (the played card pays one of its
own empire) and an effect, a list of operations from a small vocabulary (``OPERATIONS``)
that the core interprets.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "CARD_OPERATIONS",
    "EMPIRES",
    "OPERATIONS",
    "SCHEMA_VERSION",
    "SEATS",
    "SEAT_OPERATIONS",
    "Ability",
    "Card",
    "Content",
    "ContentError",
    "Operation",
    "Region",
    "bundled_content",
    "canonical_json",
    "load_content",
]

SCHEMA_VERSION = 1
# The rules' empires in turn order and the seats of each council in resolution order.
EMPIRES = ("bear", "lion", "horse", "elephant", "eagle")
SEATS = ("sheriff", "steward", "marshal", "chancellor")

# Each operation and the one amount field it takes (None: no amount), with that amount's
# bounds. The core numbers them in this order (OP_* in _a_war_of_whispers.pxd).
OPERATIONS: dict[str, tuple[str | None, int, int]] = {
    "add": ("banners", 1, 6),  # add banners, one at a time, to regions the empire controls
    "attack": (None, 0, 0),  # one attack from a region of the empire into an adjacent one
    "draw": ("cards", 1, 5),  # draw this many cards from the empire's deck
    "draw_icons": ("max", 1, 5),  # one card per card icon the empire controls, at most max
    "swap": (None, 0, 0),  # swap the agent with another of the council, take its action
    "remove": ("banners", 1, 6),  # remove banners from one enemy region next to the empire
    "move": ("banners", 1, 6),  # move banners to an adjacent friendly or empty region
    "move_agent": (None, 0, 0),  # move the agent to an open seat of its council, take it
    "raze": (None, 0, 0),  # an attack that kills every banner involved, on both sides
}
SEAT_OPERATIONS = frozenset(OPERATIONS) - {"move_agent"}
CARD_OPERATIONS = frozenset(OPERATIONS) - {"swap"}
# Whose banners or deck a card's operation uses: the card's empire or the active empire.
CARD_TARGETS = ("card", "active")

MAX_REGIONS = 32
MAX_ADJACENT = 8
MAX_START_BANNERS = 6
MAX_CITIES = 3
BANNERS_PER_EMPIRE = 20
CARDS_PER_EMPIRE = 8
MAX_SEAT_OPTIONS = 4
MAX_ABILITIES = 3
MAX_EFFECT = 3
MAX_COST = 4
NAME_LENGTH = 40


class ContentError(ValueError):
    """A content file that cannot be played: ``path`` names the value (``regions[3].adjacent[1]``,
    ``""`` for the whole file), the message says what is wrong with it."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}" if path else problem)
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class Region:
    name: str
    empire: int  # its home empire (index in EMPIRES): whose banners start there
    adjacent: tuple[int, ...]  # region indices
    cities: int
    fort: bool
    farm: bool
    icon: bool  # a card icon: the draw_icons operation counts it
    banners: int  # starting banners of its empire


@dataclass(frozen=True)
class Operation:
    op: str
    amount: int  # the operation's amount field, 0 if it has none
    target: str  # "card" or "active" (seat options always act for the active empire)


@dataclass(frozen=True)
class Ability:
    cost: tuple[int, ...]  # empire symbols to discard, the played card's own included
    effect: tuple[Operation, ...]


@dataclass(frozen=True)
class Card:
    name: str
    empire: int
    abilities: tuple[Ability, ...]


@dataclass(frozen=True)
class Content:
    """A checked content set. ``seats[e][k]``: the options of empire e's seat k."""

    id: str
    title: str
    regions: tuple[Region, ...]
    seats: tuple[tuple[tuple[Operation, ...], ...], ...]
    cards: tuple[Card, ...]
    digest: str  # sha256 of the canonical JSON: what a game names beside the id
    data: str  # the canonical JSON itself

    def to_json(self) -> dict[str, Any]:
        """The file's data (a fresh copy)."""
        return json.loads(self.data)


def canonical_json(data: Any) -> str:
    """The content's canonical JSON: keys sorted, no spaces, UTF-8 text kept as is."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def bundled_content() -> Content:
    """The project's own map and cards (NOT the printed game's): engine/data/
    a_war_of_whispers_original.json."""
    text = resources.files("council.engine").joinpath("data/a_war_of_whispers_original.json")
    return load_content(json.loads(text.read_text(encoding="utf-8")))


def load_content(source: dict[str, Any] | str | Path) -> Content:
    """Read and check a content set (a parsed dict, or a path to its JSON file)."""
    if isinstance(source, (str, Path)):
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ContentError("", f"not JSON: {e}") from None
    else:
        data = copy.deepcopy(source)
    return _Checker(data).content()


# ---------------------------------------------------------------------------------------
# The checks.


def _fields(
    path: str, value: Any, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> None:
    if not isinstance(value, dict):
        raise ContentError(path, f"must be an object, got {type(value).__name__}")
    for key in required:
        if key not in value:
            raise ContentError(_join(path, key), "missing")
    for key in value:
        if key not in required | optional:
            raise ContentError(_join(path, str(key)), "unknown field")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _int(path: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ContentError(path, f"must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ContentError(path, f"must be in {low}..{high}, got {value}")
    return value


def _bool(path: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ContentError(path, f"must be true or false, got {value!r}")
    return value


def _name(path: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > NAME_LENGTH:
        raise ContentError(path, f"must be a non-empty name of at most {NAME_LENGTH} characters")
    return value


def _list(path: str, value: Any, low: int, high: int) -> list[Any]:
    if not isinstance(value, list):
        raise ContentError(path, f"must be a list, got {type(value).__name__}")
    if not low <= len(value) <= high:
        raise ContentError(path, f"must hold {low} to {high} entries, got {len(value)}")
    return value


def _empire(path: str, value: Any) -> int:
    if value not in EMPIRES:
        raise ContentError(path, f"unknown empire {value!r}; empires: {', '.join(EMPIRES)}")
    return EMPIRES.index(value)


class _Checker:
    def __init__(self, data: Any):
        self.data = data

    def content(self) -> Content:
        data = self.data
        _fields("", data, {"schema", "id", "title", "regions", "councils", "cards"}, {"notice"})
        if data["schema"] != SCHEMA_VERSION:
            raise ContentError(
                "schema", f"this engine reads schema {SCHEMA_VERSION}, got {data['schema']!r}"
            )
        content_id = _name("id", data["id"])
        title = _name("title", data["title"])
        if "notice" in data and not isinstance(data["notice"], str):
            raise ContentError("notice", "must be a string")
        regions = self.regions(data["regions"])
        seats = self.councils(data["councils"])
        cards = self.cards(data["cards"])
        text = canonical_json(data)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return Content(content_id, title, regions, seats, cards, digest, text)

    def regions(self, value: Any) -> tuple[Region, ...]:
        items = _list("regions", value, 2, MAX_REGIONS)
        names: dict[str, int] = {}
        for i, item in enumerate(items):
            path = f"regions[{i}]"
            _fields(
                path,
                item,
                {"name", "empire", "adjacent"},
                {"cities", "fort", "farm", "icon", "banners"},
            )
            name = _name(f"{path}.name", item["name"])
            if name in names:
                raise ContentError(f"{path}.name", f"{name!r} is also regions[{names[name]}]")
            names[name] = i
        out = []
        start = [0] * len(EMPIRES)
        for i, item in enumerate(items):
            path = f"regions[{i}]"
            empire = _empire(f"{path}.empire", item["empire"])
            adjacent = []
            for j, other in enumerate(_list(f"{path}.adjacent", item["adjacent"], 1, MAX_ADJACENT)):
                where = f"{path}.adjacent[{j}]"
                if other not in names:
                    raise ContentError(where, f"unknown region {other!r}")
                if names[other] == i:
                    raise ContentError(where, "a region is not adjacent to itself")
                if names[other] in adjacent:
                    raise ContentError(where, f"{other!r} is listed twice")
                adjacent.append(names[other])
            banners = _int(f"{path}.banners", item.get("banners", 0), 0, MAX_START_BANNERS)
            start[empire] += banners
            out.append(
                Region(
                    name=item["name"],
                    empire=empire,
                    adjacent=tuple(adjacent),
                    cities=_int(f"{path}.cities", item.get("cities", 0), 0, MAX_CITIES),
                    fort=_bool(f"{path}.fort", item.get("fort", False)),
                    farm=_bool(f"{path}.farm", item.get("farm", False)),
                    icon=_bool(f"{path}.icon", item.get("icon", False)),
                    banners=banners,
                )
            )
        for i, region in enumerate(out):
            for j, other in enumerate(region.adjacent):
                if i not in out[other].adjacent:
                    raise ContentError(
                        f"regions[{i}].adjacent[{j}]",
                        f"{out[other].name!r} does not list {region.name!r} back "
                        f"(adjacency must be symmetric)",
                    )
        for e, empire_name in enumerate(EMPIRES):
            if not any(r.empire == e for r in out):
                raise ContentError("regions", f"empire {empire_name!r} has no home region")
            if start[e] > BANNERS_PER_EMPIRE:
                raise ContentError(
                    "regions",
                    f"{empire_name}'s starting banners are {start[e]}, "
                    f"more than its {BANNERS_PER_EMPIRE}",
                )
        return tuple(out)

    def operation(self, path: str, value: Any, allowed: frozenset[str], card: bool) -> Operation:
        if not isinstance(value, dict) or "op" not in value:
            raise ContentError(path, "must be an object with an op")
        op = value["op"]
        if op not in OPERATIONS:
            raise ContentError(
                f"{path}.op", f"unknown operation {op!r}; operations: {', '.join(OPERATIONS)}"
            )
        if op not in allowed:
            where = "a card's effect" if card else "a seat's option"
            raise ContentError(f"{path}.op", f"{op!r} cannot be {where}")
        field, low, high = OPERATIONS[op]
        optional = {"empire"} if card else set()
        _fields(path, value, {"op"} | ({field} if field else set()), optional)
        amount = _int(f"{path}.{field}", value[field], low, high) if field else 0
        target = value.get("empire", "card") if card else "active"
        if target not in CARD_TARGETS:
            raise ContentError(
                f"{path}.empire", f"must be one of {', '.join(CARD_TARGETS)}, got {target!r}"
            )
        return Operation(op, amount, target)

    def councils(self, value: Any) -> tuple[tuple[tuple[Operation, ...], ...], ...]:
        _fields("councils", value, set(EMPIRES))
        out = []
        for empire in EMPIRES:
            path = f"councils.{empire}"
            _fields(path, value[empire], set(SEATS))
            seats = []
            for seat in SEATS:
                where = f"{path}.{seat}"
                options = _list(where, value[empire][seat], 1, MAX_SEAT_OPTIONS)
                seats.append(
                    tuple(
                        self.operation(f"{where}[{k}]", o, SEAT_OPERATIONS, card=False)
                        for k, o in enumerate(options)
                    )
                )
            out.append(tuple(seats))
        return tuple(out)

    def cards(self, value: Any) -> tuple[Card, ...]:
        items = _list("cards", value, len(EMPIRES), CARDS_PER_EMPIRE * len(EMPIRES))
        out = []
        names: dict[str, int] = {}
        per_empire = [0] * len(EMPIRES)
        for i, item in enumerate(items):
            path = f"cards[{i}]"
            _fields(path, item, {"name", "empire", "abilities"})
            name = _name(f"{path}.name", item["name"])
            if name in names:
                raise ContentError(f"{path}.name", f"{name!r} is also cards[{names[name]}]")
            names[name] = i
            empire = _empire(f"{path}.empire", item["empire"])
            per_empire[empire] += 1
            if per_empire[empire] > CARDS_PER_EMPIRE:
                raise ContentError(
                    f"{path}.empire", f"more than {CARDS_PER_EMPIRE} cards of {item['empire']}"
                )
            abilities = []
            for a, ability in enumerate(
                _list(f"{path}.abilities", item["abilities"], 1, MAX_ABILITIES)
            ):
                where = f"{path}.abilities[{a}]"
                _fields(where, ability, {"cost", "effect"})
                cost = tuple(
                    _empire(f"{where}.cost[{k}]", symbol)
                    for k, symbol in enumerate(_list(f"{where}.cost", ability["cost"], 1, MAX_COST))
                )
                if empire not in cost:
                    raise ContentError(
                        f"{where}.cost",
                        f"must include the card's own empire "
                        f"{item['empire']!r} (the played card pays one symbol)",
                    )
                if a == 0 and cost != (empire,):
                    raise ContentError(
                        f"{where}.cost",
                        "a card's first ability costs only the card itself: its own empire, once",
                    )
                effect = _list(f"{where}.effect", ability["effect"], 1, MAX_EFFECT)
                abilities.append(
                    Ability(
                        cost,
                        tuple(
                            self.operation(f"{where}.effect[{k}]", op, CARD_OPERATIONS, card=True)
                            for k, op in enumerate(effect)
                        ),
                    )
                )
            out.append(Card(name, empire, tuple(abilities)))
        for e, empire_name in enumerate(EMPIRES):
            if per_empire[e] == 0:
                raise ContentError(
                    "cards", f"empire {empire_name!r} has no card (its deck is empty)"
                )
        return tuple(out)
