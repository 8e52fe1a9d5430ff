"""The fixed action space of Council of Four as small readable value types.

Every decision of the game is one integer id in ``0 .. NUM_ACTIONS - 1`` (the ranges are the core's
``council.engine._council_of_four.ACTION_KINDS``; ``docs/actions.md`` has the table). ``Action``
turns an id into a structured value and back, and into a short text form and back.

Text grammar (input is case-insensitive; ``_`` and ``-`` are interchangeable in verbs;
cities by name or letter; ``<balcony>`` is ``coast``, ``hills``, ``mountains`` or
``king``; ``<slot>`` is ``0`` or ``1``; ``<tile>`` is a permit tile number ``0..44``)::

    end                                   end the turn
    elect <colour> <balcony>              main action: elect a councillor, gain coins
    acquire <region> <slot>               main action: take a face-up permit tile
    build <city> with permit <tile>       main action: build with one of your permit tiles
    king <city>                           main action: move the king and build there
    engage                                quick action: engage an assistant for coins
    change <region>                       quick action: change a region's face-up tiles
    quick-elect <colour> <balcony>        quick action: elect a councillor for 1 assistant
    extra-main                            quick action: assistants for a main action
    pay <card>+<card>+...                 the politics cards paying a council
    token <city>                          take a city token bonus (nobility 4 and 16)
    free-permit <region> <slot>           take a face-up permit tile free (nobility 10)
    permit-bonus <tile>                   regain a permit tile's bonus (nobility 14)

What the actions cost and give is in ``ActionKind.doc`` and ``describe``, with the rule
numbers of the board data. ``action_to_proto`` / ``action_from_proto`` convert an action to
and from its structured ``council.v1.Action`` message (The Council's are in
``council.engine.the_council_actions``).

The 2nd-edition words are accepted in input (RULINGS 2): ``queen`` for ``king`` and
``servant`` for ``assistant``. The words ``with`` and ``permit`` in ``build`` may be left
out, and ``elect`` accepts the balcony before the colour.

>>> a = Action.from_text("quick-elect Black queen")
>>> a
Action(kind=ActionKind.QUICK_ELECT, balcony=3, colour=1)
>>> str(a), a.id
('quick-elect black king', 204)
>>> Action.from_id(0).to_text()
'end'
>>> Action.from_text("elect white coast").id
1
>>> Action.from_text("build I with permit 23")
Action(kind=ActionKind.BUILD_PERMIT, tile=23, position=1, city=8)
>>> str(Action.from_text("build indur 23"))
'build Indur with permit 23'
>>> str(Action.from_id(166 + 6)), str(Action.from_text("engage-servant"))
('king Graden', 'engage')
>>> a = Action.from_text("pay joker + white+joker")
>>> str(a), a.cards
('pay white+joker+joker', (1, 0, 0, 0, 0, 0, 2))
>>> [str(Action.from_text(t)) for t in ("token c", "free_permit Coast 0", "permit-bonus 23")]
['token Castrum', 'free-permit coast 0', 'permit-bonus 23']
>>> Action.from_text("elect white ocean")
Traceback (most recent call last):
...
ValueError: elect: unknown balcony 'ocean' (expected coast, hills, mountains, king)
"""

from __future__ import annotations

import bisect
import enum
import re
from dataclasses import dataclass, fields
from typing import cast

from council.engine import council_of_four_board as board
from council.engine._council_of_four import ACTION_KINDS, NUM_ACTIONS, PAYMENTS, rule_numbers
from council.engine.effects import with_article
from council.engine.position import StructuredActionError
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb

__all__ = [
    "ACTION_FIELDS",
    "ACTION_KIND_FROM_PROTO",
    "ACTION_KIND_TO_PROTO",
    "NUM_ACTIONS",
    "Action",
    "ActionKind",
    "BALCONY_NAMES",
    "StructuredActionError",
    "action_from_proto",
    "action_to_proto",
    "describe",
    "legal_action_texts",
]

BALCONY_NAMES: tuple[str, ...] = board.REGIONS + ("king",)
KING_BALCONY = 3
N_COLOURS = len(board.COUNCILLOR_COLOURS)
N_REGIONS = len(board.REGIONS)
N_CITIES = board.N_CITIES
N_TILES = len(board.PERMIT_TILES)
JOKER = len(board.CARD_KINDS) - 1
_RULES = board.RULE_NUMBERS  # the numbers in the kinds' docs (describe asks the core)


class ActionKind(enum.Enum):
    """The thirteen kinds of action. ``value`` is the kind's name in the core's
    ``ACTION_KINDS``; ``doc`` says what the action does and which fields of ``Action`` it
    uses."""

    doc: str  # set by __new__ (not a member)

    END_TURN = ("end_turn", "End the turn (legal once the turn's first main action is done).")
    ELECT = (
        "elect",
        "Main action: elect a pool councillor `colour` into `balcony`; "
        f"+{_RULES['elect_coins']} coins.",
    )
    ACQUIRE = (
        "acquire",
        "Main action: take face-up permit tile `slot` of `region`; a PAY decision follows.",
    )
    BUILD_PERMIT = (
        "build_permit",
        "Main action: build an emporium in `city`, the `position`-th city of your face-up "
        "permit `tile`, which is then turned face down.",
    )
    BUILD_KING = (
        "build_king",
        f"Main action: move the king to `city` ({_RULES['king_cost_per_road']} coins per road) "
        "and build an emporium there; a PAY decision for the king's council follows.",
    )
    ENGAGE = (
        "engage",
        f"Quick action: pay {_RULES['engage_assistant_coins']} coins for 1 assistant.",
    )
    CHANGE = (
        "change",
        "Quick action: pay 1 assistant; the face-up tiles of `region` go under its deck "
        "and two are drawn.",
    )
    QUICK_ELECT = (
        "quick_elect",
        "Quick action: pay 1 assistant to elect pool councillor `colour` into `balcony`.",
    )
    EXTRA_MAIN = (
        "extra_main",
        f"Quick action: pay {_RULES['extra_main_assistants']} assistants for one more main action.",
    )
    PAY = (
        "pay",
        "Pay the pending council with the politics cards `cards` (counts of the six "
        "colours then jokers; `payment` is the index into PAYMENTS).",
    )
    CHOOSE_TOKEN = (
        "choose_token",
        "Take the token bonus of `city` (nobility spaces 4 and 16; a city of yours).",
    )
    CHOOSE_FREE_PERMIT = (
        "choose_free_permit",
        "Take face-up permit tile `slot` of `region` for free (nobility space 10).",
    )
    CHOOSE_PERMIT_BONUS = (
        "choose_permit_bonus",
        "Gain again the bonus of your permit `tile` (nobility space 14).",
    )

    def __new__(cls, key: str, doc: str):
        obj = object.__new__(cls)
        obj._value_ = key
        obj.doc = doc
        return obj

    @property
    def offset(self) -> int:
        """First action id of this kind."""
        return _RANGE[self.value].first

    @property
    def size(self) -> int:
        """Number of ids of this kind."""
        return _RANGE[self.value].size

    def __repr__(self) -> str:
        return f"ActionKind.{self.name}"


# The id ranges are the core's; kinds in id order (ActionKind(name) fails for a kind the
# core has and this module does not).
_RANGE = {kind.name: kind for kind in ACTION_KINDS}
_ORDER: tuple[ActionKind, ...] = tuple(
    # A lookup by value (EnumMeta.__call__), which mypy checks against __new__ instead.
    ActionKind(kind.name)  # type: ignore[call-arg]
    for kind in ACTION_KINDS
)
_STARTS: tuple[int, ...] = tuple(kind.first for kind in ACTION_KINDS)
if len(_ORDER) != len(ActionKind):  # pragma: no cover - core/module mismatch
    raise ImportError(f"the core has no action kind for {set(ActionKind) - set(_ORDER)}")

_PAYMENT_INDEX: dict[tuple[int, ...], int] = {p: i for i, p in enumerate(PAYMENTS)}

# Which fields each kind uses (the others must be None).
_FIELDS: dict[ActionKind, tuple[str, ...]] = {
    ActionKind.END_TURN: (),
    ActionKind.ELECT: ("balcony", "colour"),
    ActionKind.ACQUIRE: ("region", "slot"),
    ActionKind.BUILD_PERMIT: ("tile", "position", "city"),
    ActionKind.BUILD_KING: ("city",),
    ActionKind.ENGAGE: (),
    ActionKind.CHANGE: ("region",),
    ActionKind.QUICK_ELECT: ("balcony", "colour"),
    ActionKind.EXTRA_MAIN: (),
    ActionKind.PAY: ("payment",),
    ActionKind.CHOOSE_TOKEN: ("city",),
    ActionKind.CHOOSE_FREE_PERMIT: ("region", "slot"),
    ActionKind.CHOOSE_PERMIT_BONUS: ("tile",),
}
_RANGES = {
    "balcony": 4,
    "colour": N_COLOURS,
    "region": N_REGIONS,
    "slot": 2,
    "tile": N_TILES,
    "position": 3,
    "city": N_CITIES,
    "payment": len(PAYMENTS),
}


@dataclass(frozen=True)
class Action:
    """One action: its kind and the fields that apply to it (the others are None).

    ``balcony`` 0..3 (3 = the king's council), ``colour`` a councillor colour index,
    ``region`` 0..2, ``slot`` 0..1 (face-up slot), ``tile`` a permit tile index 0..44,
    ``position`` 0..2 (which city of the tile), ``city`` a city index 0..14 (for
    BUILD_PERMIT it follows from tile and position, and is None for a position the tile
    does not have: such ids exist but are never legal), ``payment`` an index into
    ``PAYMENTS``. For BUILD_PERMIT either ``position`` or ``city`` may be given.
    """

    kind: ActionKind
    balcony: int | None = None
    colour: int | None = None
    region: int | None = None
    slot: int | None = None
    tile: int | None = None
    position: int | None = None
    city: int | None = None
    payment: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ActionKind):
            raise ValueError(f"kind must be an ActionKind, got {self.kind!r}")
        used = _FIELDS[self.kind]
        if self.kind is ActionKind.BUILD_PERMIT:
            self._fill_build_permit()
        for f in fields(self):
            if f.name == "kind":
                continue
            v = getattr(self, f.name)
            if f.name not in used:
                if v is not None:
                    raise ValueError(f"{self.kind.value}: field {f.name} does not apply")
                continue
            if f.name == "city" and self.kind is ActionKind.BUILD_PERMIT and v is None:
                continue
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < _RANGES[f.name]:
                raise ValueError(
                    f"{self.kind.value}: {f.name} must be an integer in "
                    f"0..{_RANGES[f.name] - 1}, got {v!r}"
                )

    def _fill_build_permit(self) -> None:
        tile = self.tile
        if not isinstance(tile, int) or not 0 <= tile < N_TILES:
            raise ValueError(f"build_permit: tile must be an integer in 0..44, got {tile!r}")
        cities = board.PERMIT_TILES[tile].cities
        if self.position is None:
            if self.city not in cities:
                raise ValueError(
                    f"build_permit: city {self.city!r} is not on permit tile {tile} "
                    f"({_tile_cities(tile)})"
                )
            object.__setattr__(self, "position", cities.index(self.city))
        elif isinstance(self.position, int) and 0 <= self.position < 3:
            city = cities[self.position] if self.position < len(cities) else None
            if self.city is None:
                object.__setattr__(self, "city", city)
            elif self.city != city:
                raise ValueError(
                    f"build_permit: city {self.city!r} is not city {self.position} of permit "
                    f"tile {tile} ({_tile_cities(tile)})"
                )

    # -- ids -----------------------------------------------------------------------------
    @classmethod
    def from_id(cls, action_id: int) -> Action:
        """The action with this id. Raises ValueError outside ``0..NUM_ACTIONS-1``."""
        if isinstance(action_id, bool):
            raise ValueError(f"action id must be an integer, got {action_id!r}")
        if not isinstance(action_id, int):
            try:
                action_id = int(action_id.__index__())
            except (AttributeError, TypeError):
                raise ValueError(f"action id must be an integer, got {action_id!r}") from None
        if not 0 <= action_id < NUM_ACTIONS:
            raise ValueError(f"action id {action_id} out of range 0..{NUM_ACTIONS - 1}")
        kind = _ORDER[bisect.bisect_right(_STARTS, action_id) - 1]
        i = action_id - kind.offset
        K = ActionKind
        if kind in (K.ELECT, K.QUICK_ELECT):
            return cls(kind, balcony=i // N_COLOURS, colour=i % N_COLOURS)
        if kind in (K.ACQUIRE, K.CHOOSE_FREE_PERMIT):
            return cls(kind, region=i // 2, slot=i % 2)
        if kind is K.BUILD_PERMIT:
            return cls(kind, tile=i // 3, position=i % 3)
        if kind in (K.BUILD_KING, K.CHOOSE_TOKEN):
            return cls(kind, city=i)
        if kind is K.CHANGE:
            return cls(kind, region=i)
        if kind is K.PAY:
            return cls(kind, payment=i)
        if kind is K.CHOOSE_PERMIT_BONUS:
            return cls(kind, tile=i)
        return cls(kind)

    @property
    def id(self) -> int:
        """The integer id of this action."""
        K = ActionKind
        k = self.kind
        # The fields of the kind are set (__post_init__ checked them; the asserts say so).
        if k in (K.ELECT, K.QUICK_ELECT):
            assert self.balcony is not None and self.colour is not None
            i = self.balcony * N_COLOURS + self.colour
        elif k in (K.ACQUIRE, K.CHOOSE_FREE_PERMIT):
            assert self.region is not None and self.slot is not None
            i = self.region * 2 + self.slot
        elif k is K.BUILD_PERMIT:
            assert self.tile is not None and self.position is not None
            i = self.tile * 3 + self.position
        elif k in (K.BUILD_KING, K.CHOOSE_TOKEN):
            assert self.city is not None
            i = self.city
        elif k is K.CHANGE:
            assert self.region is not None
            i = self.region
        elif k is K.PAY:
            assert self.payment is not None
            i = self.payment
        elif k is K.CHOOSE_PERMIT_BONUS:
            assert self.tile is not None
            i = self.tile
        else:
            i = 0
        return k.offset + i

    def __int__(self) -> int:
        return self.id

    __index__ = __int__

    # -- payments ------------------------------------------------------------------------
    @property
    def cards(self) -> tuple[int, ...] | None:
        """For PAY: the number of cards of each kind (6 colours, then jokers)."""
        return None if self.payment is None else PAYMENTS[self.payment]

    @classmethod
    def pay(cls, cards) -> Action:
        """The PAY action for card counts (6 colours then jokers, 1 to 4 cards)."""
        key = tuple(int(c) for c in cards)
        if key not in _PAYMENT_INDEX:
            raise ValueError(
                f"pay: {key!r} is not a payment (7 counts, colours then jokers, 1 to 4 cards "
                "with at most 4 of a kind)"
            )
        return cls(ActionKind.PAY, payment=_PAYMENT_INDEX[key])

    # -- text ----------------------------------------------------------------------------
    def to_text(self) -> str:
        """The short text form (see the module docstring)."""
        K = ActionKind
        k = self.kind
        if k is K.END_TURN:
            return "end"
        if k in (K.ELECT, K.QUICK_ELECT):
            assert self.colour is not None and self.balcony is not None  # as in id
            verb = "elect" if k is K.ELECT else "quick-elect"
            return f"{verb} {board.COUNCILLOR_COLOURS[self.colour]} {BALCONY_NAMES[self.balcony]}"
        if k in (K.ACQUIRE, K.CHOOSE_FREE_PERMIT):
            assert self.region is not None
            verb = "acquire" if k is K.ACQUIRE else "free-permit"
            return f"{verb} {board.REGIONS[self.region]} {self.slot}"
        if k is K.BUILD_PERMIT:
            where = f"#{self.position}" if self.city is None else board.CITY_NAMES[self.city]
            return f"build {where} with permit {self.tile}"
        if k is K.BUILD_KING:
            assert self.city is not None
            return f"king {board.CITY_NAMES[self.city]}"
        if k is K.ENGAGE:
            return "engage"
        if k is K.CHANGE:
            assert self.region is not None
            return f"change {board.REGIONS[self.region]}"
        if k is K.EXTRA_MAIN:
            return "extra-main"
        if k is K.PAY:
            assert self.cards is not None
            names = [board.CARD_KINDS[j] for j, n in enumerate(self.cards) for _ in range(n)]
            return "pay " + "+".join(names)
        if k is K.CHOOSE_TOKEN:
            assert self.city is not None
            return f"token {board.CITY_NAMES[self.city]}"
        return f"permit-bonus {self.tile}"

    @classmethod
    def from_text(cls, text: str) -> Action:
        """Parse the text form (case-insensitive, aliases accepted). ValueError if bad."""
        if not isinstance(text, str):
            raise ValueError(f"action text must be a string, got {text!r}")
        words = text.strip().lower().replace("_", "-").split()
        if not words:
            raise ValueError("empty action text")
        for n in (3, 2):  # verbs written as several words: "extra main action"
            if len(words) >= n and "-".join(words[:n]) in _VERBS:
                words = ["-".join(words[:n])] + words[n:]
                break
        verb, args = words[0], words[1:]
        if verb not in _VERBS:
            raise ValueError(
                f"unknown action {words[0]!r} in {text!r} (expected one of "
                f"{', '.join(_CANONICAL_VERBS)})"
            )
        kind = _VERBS[verb]
        name = _CANONICAL[kind]
        K = ActionKind
        if kind in (K.END_TURN, K.ENGAGE, K.EXTRA_MAIN):
            _expect(name, args, 0, "")
            return cls(kind)
        if kind in (K.ELECT, K.QUICK_ELECT):
            _expect(name, args, 2, "<colour> <balcony>")
            a, b = args
            if a in _BALCONY_WORDS and b not in _BALCONY_WORDS:
                a, b = b, a
            return cls(kind, colour=_colour(name, a), balcony=_balcony(name, b))
        if kind in (K.ACQUIRE, K.CHOOSE_FREE_PERMIT):
            _expect(name, args, 2, "<region> <slot>")
            return cls(kind, region=_region(name, args[0]), slot=_number(name, "slot", args[1], 2))
        if kind is K.BUILD_PERMIT:
            args = [w for w in args if w not in ("with", "permit", "tile", "in")]
            _expect(name, args, 2, "<city> with permit <tile>")
            tile = _number(name, "permit tile", args[1], N_TILES)
            if args[0].startswith("#"):
                return cls(kind, tile=tile, position=_number(name, "position", args[0][1:], 3))
            city = _city(name, args[0])
            if city not in board.PERMIT_TILES[tile].cities:
                raise ValueError(
                    f"build: {board.CITY_NAMES[city]} is not on permit tile {tile} "
                    f"({_tile_cities(tile)})"
                )
            return cls(kind, tile=tile, city=city)
        if kind in (K.BUILD_KING, K.CHOOSE_TOKEN):
            _expect(name, args, 1, "<city>")
            return cls(kind, city=_city(name, args[0]))
        if kind is K.CHANGE:
            _expect(name, args, 1, "<region>")
            return cls(kind, region=_region(name, args[0]))
        if kind is K.PAY:
            return cls.pay(_cards(text, "".join(args)))
        _expect(name, args, 1, "<tile>")
        return cls(kind, tile=_number(name, "permit tile", args[0], N_TILES))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        parts = [f"kind={self.kind!r}"]
        for name in _FIELDS[self.kind]:
            v = getattr(self, name)
            if v is not None:
                parts.append(f"{name}={v}")
        return f"Action({', '.join(parts)})"


# -- parsing helpers ---------------------------------------------------------------------

_CANONICAL = {
    ActionKind.END_TURN: "end",
    ActionKind.ELECT: "elect",
    ActionKind.ACQUIRE: "acquire",
    ActionKind.BUILD_PERMIT: "build",
    ActionKind.BUILD_KING: "king",
    ActionKind.ENGAGE: "engage",
    ActionKind.CHANGE: "change",
    ActionKind.QUICK_ELECT: "quick-elect",
    ActionKind.EXTRA_MAIN: "extra-main",
    ActionKind.PAY: "pay",
    ActionKind.CHOOSE_TOKEN: "token",
    ActionKind.CHOOSE_FREE_PERMIT: "free-permit",
    ActionKind.CHOOSE_PERMIT_BONUS: "permit-bonus",
}
_CANONICAL_VERBS = tuple(_CANONICAL.values())
_VERBS: dict[str, ActionKind] = {v: k for k, v in _CANONICAL.items()}
_VERBS.update(
    {
        "end-turn": ActionKind.END_TURN,
        "build-permit": ActionKind.BUILD_PERMIT,
        "queen": ActionKind.BUILD_KING,
        "build-king": ActionKind.BUILD_KING,
        "build-queen": ActionKind.BUILD_KING,
        "engage-assistant": ActionKind.ENGAGE,
        "engage-servant": ActionKind.ENGAGE,
        "change-permits": ActionKind.CHANGE,
        "extra-main-action": ActionKind.EXTRA_MAIN,
        "choose-token": ActionKind.CHOOSE_TOKEN,
        "city-token": ActionKind.CHOOSE_TOKEN,
        "choose-free-permit": ActionKind.CHOOSE_FREE_PERMIT,
        "choose-permit-bonus": ActionKind.CHOOSE_PERMIT_BONUS,
    }
)
_BALCONY_WORDS: dict[str, int] = {n: i for i, n in enumerate(BALCONY_NAMES)}
_BALCONY_WORDS["queen"] = KING_BALCONY


def _expect(name: str, args: list[str], n: int, usage: str) -> None:
    if len(args) != n:
        form = f"{name} {usage}".strip()
        raise ValueError(f"{name}: expected '{form}', got {len(args)} argument(s) {args!r}")


def _colour(name: str, word: str) -> int:
    if word in board.COUNCILLOR_COLOURS:
        return board.COUNCILLOR_COLOURS.index(word)
    raise ValueError(
        f"{name}: unknown councillor colour {word!r} "
        f"(expected {', '.join(board.COUNCILLOR_COLOURS)})"
    )


def _balcony(name: str, word: str) -> int:
    if word in _BALCONY_WORDS:
        return _BALCONY_WORDS[word]
    raise ValueError(f"{name}: unknown balcony {word!r} (expected {', '.join(BALCONY_NAMES)})")


def _region(name: str, word: str) -> int:
    if word in board.REGIONS:
        return board.REGIONS.index(word)
    raise ValueError(f"{name}: unknown region {word!r} (expected {', '.join(board.REGIONS)})")


def _city(name: str, word: str) -> int:
    try:
        return board.city_index(word)
    except ValueError:
        raise ValueError(
            f"{name}: unknown city {word!r} (expected a name such as Arkon or a letter A-O)"
        ) from None


def _number(name: str, what: str, word: str, n: int) -> int:
    if word.isdigit() and int(word) < n:
        return int(word)
    raise ValueError(f"{name}: {what} must be a number in 0..{n - 1}, got {word!r}")


def _cards(text: str, joined: str) -> tuple[int, ...]:
    counts = [0] * len(board.CARD_KINDS)
    names = [w for w in joined.split("+")]
    if not joined or any(not w for w in names):
        raise ValueError(f"pay: expected cards joined by '+', e.g. 'pay white+joker', got {text!r}")
    for w in names:
        if w not in board.CARD_KINDS:
            raise ValueError(
                f"pay: unknown politics card {w!r} (expected {', '.join(board.CARD_KINDS)})"
            )
        counts[board.CARD_KINDS.index(w)] += 1
    if len(names) > 4:
        raise ValueError(f"pay: at most 4 cards satisfy a council, got {len(names)}")
    return tuple(counts)


def _tile_cities(tile: int) -> str:
    return "/".join(board.CITY_NAMES[c] for c in board.PERMIT_TILES[tile].cities)


# -- with a state ------------------------------------------------------------------------


def legal_action_texts(state) -> list[str]:
    """The text form of every legal action of a full state, in id order."""
    return [Action.from_id(a).to_text() for a in state.legal_actions()]


def _bonus_text(bonus: dict[str, int]) -> str:
    return ", ".join(f"{k} +{v}" for k, v in bonus.items() if v) or "no bonus"


def _tile_text(tile: int) -> str:
    t = board.PERMIT_TILES[tile]
    return f"permit {tile} ({_tile_cities(tile)}; {_bonus_text(t.bonus)})"


def describe(state, action_id: int) -> str:
    """A longer description of an action in a state: what it costs and gives.

    The action need not be legal; the text uses the state only for what is on the board
    (face-up tiles, the king's city, tokens); the prices are the rule numbers the core plays
    by (``council.engine._council_of_four.rule_numbers()``, loaded from the board data).
    """
    a = Action.from_id(action_id)
    raw = state.to_raw()
    rules = rule_numbers()
    K = ActionKind
    k = a.kind
    layout = board.Layout.from_index(raw["layout"])
    if k is K.END_TURN:
        return "end the turn"
    # The fields of the kind are set (Action.__post_init__ checked them).
    if k in (K.ELECT, K.QUICK_ELECT):
        assert a.colour is not None and a.balcony is not None
        colour = board.COUNCILLOR_COLOURS[a.colour]
        out = board.COUNCILLOR_COLOURS[raw["balcony"][a.balcony][3]]
        where = f"the {BALCONY_NAMES[a.balcony]} council"
        cost = f"+{rules['elect_coins']} coins" if k is K.ELECT else "costs 1 assistant"
        kind = "main" if k is K.ELECT else "quick"
        return (
            f"{kind} action: elect {with_article(colour)} councillor into {where} ({out} leaves);"
            f" {cost}"
        )
    if k in (K.ACQUIRE, K.CHOOSE_FREE_PERMIT):
        assert a.region is not None
        tile = raw["face_up"][a.region][a.slot]
        what = "an empty slot" if tile < 0 else _tile_text(tile)
        where = f"{board.REGIONS[a.region]} slot {a.slot}"
        if k is K.ACQUIRE:
            region = board.REGIONS[a.region]
            return f"main action: acquire {what} from {where}; pay the {region} council"
        return f"nobility bonus: take {what} from {where} for free"
    if k is K.BUILD_PERMIT:
        if a.city is None:
            return f"build with permit {a.tile}: the tile has no city #{a.position} (never legal)"
        assert a.tile is not None
        others = _others_in_city(raw, a.city)
        return (
            f"main action: build an emporium in {board.CITY_NAMES[a.city]} using "
            f"{_tile_text(a.tile)}; costs {others} assistant(s); "
            f"{_token_text(raw, a.city)}"
        )
    if k is K.BUILD_KING:
        assert a.city is not None
        roads = layout.distance(raw["king_city"], a.city)
        frm = board.CITY_NAMES[raw["king_city"]]
        return (
            f"main action: move the king from {frm} to {board.CITY_NAMES[a.city]} "
            f"({roads} road(s), {rules['king_cost_per_road'] * roads} coins) and build an "
            f"emporium there; costs {_others_in_city(raw, a.city)} assistant(s); pay the "
            "king's council; "
            f"{_token_text(raw, a.city)}"
        )
    if k is K.ENGAGE:
        return f"quick action: pay {rules['engage_assistant_coins']} coins, gain 1 assistant"
    if k is K.CHANGE:
        assert a.region is not None
        return (
            f"quick action: pay 1 assistant; the face-up {board.REGIONS[a.region]} permit tiles "
            "go under the deck and two new ones are drawn"
        )
    if k is K.EXTRA_MAIN:
        return (
            f"quick action: pay {rules['extra_main_assistants']} assistants for one more main "
            "action this turn"
        )
    if k is K.PAY:
        assert a.cards is not None
        n = sum(a.cards)
        jokers = a.cards[JOKER]
        cost = rules["council_cost_by_cards"][n] + rules["council_cost_per_joker"] * jokers
        return f"{a.to_text()}: {n} card(s), {cost} coin(s)"
    if k is K.CHOOSE_TOKEN:
        assert a.city is not None
        return f"nobility bonus: {_token_text(raw, a.city)}"
    assert a.tile is not None
    return f"nobility bonus: gain again the bonus of {_tile_text(a.tile)}"


def _others_in_city(raw: dict, city: int) -> int:
    p = raw["current"]
    n = (raw["neutral"] >> city) & 1
    for q in range(raw["n_players"]):
        if q != p:
            n += (raw["emporia"][q] >> city) & 1
    return n


def _token_text(raw: dict, city: int) -> str:
    t = raw["city_token"][city]
    name = board.CITY_NAMES[city]
    if t < 0:
        return f"{name} has no token"
    return f"{name} token: {_bonus_text(board.CITY_TOKENS[t])}"


# -- the structured Action message (council.v1.Action) ------------------------------------

# grpc_tools' stubs type an enum field as its enum class but the enum's Value() as a plain
# int: the values of Value() are the enum's (a ValueError otherwise).
ACTION_KIND_TO_PROTO = {
    kind: cast(pb.ActionKind, pb.ActionKind.Value(f"ACTION_KIND_{kind.name}"))
    for kind in ActionKind
}
ACTION_KIND_FROM_PROTO = {v: k for k, v in ACTION_KIND_TO_PROTO.items()}
# The fields of an Action message that an Action's fields fill, by the same names.
ACTION_FIELDS = ("balcony", "colour", "region", "slot", "tile", "position", "city", "payment")


def action_to_proto(a: Action) -> pb.Action:
    """The Action message of an action: id, text, kind and the kind's fields."""
    m = pb.Action(id=a.id, text=a.to_text(), kind=ACTION_KIND_TO_PROTO[a.kind])
    for f in ACTION_FIELDS:
        v = getattr(a, f)
        if v is not None:
            setattr(m, f, v)
    if a.cards is not None:
        m.cards.CopyFrom(cof_pb.CardCounts(**dict(zip(board.CARD_KINDS, a.cards, strict=True))))
    return m


# The field an engine error names: "elect: balcony must be ...", "end_turn: field colour
# does not apply", "build_permit: city 14 is not on permit tile 3 (Dorful)".
_ENGINE_FIELD = re.compile(rf"[a-z_]+: (?:field )?({'|'.join(ACTION_FIELDS)})\b")
_CARDS_PER_PAYMENT = max(sum(cards) for cards in PAYMENTS)


def _payment(cards: cof_pb.CardCounts) -> int:
    """The index in PAYMENTS of the cards a PAY action spends."""
    counts = [getattr(cards, k) for k in board.CARD_KINDS]
    problems = [
        (f"cards.{k}", f"must be in 0..{_CARDS_PER_PAYMENT}, got {n}")
        for k, n in zip(board.CARD_KINDS, counts, strict=True)
        if not 0 <= n <= _CARDS_PER_PAYMENT
    ]
    if not problems and not 1 <= sum(counts) <= _CARDS_PER_PAYMENT:
        problems = [("cards", f"a payment spends 1 to 4 cards, got {sum(counts)}")]
    if problems:
        raise StructuredActionError(problems)
    payment = Action.pay(counts).payment
    assert payment is not None  # pay() gives a PAY action
    return payment


def action_from_proto(msg: pb.Action) -> Action:
    """The Action of a structured Action message: its kind and the fields of that kind, a
    PAY action by its `cards` or `payment` (their index; both may be given if they agree);
    id, text and description are ignored. StructuredActionError (a ValueError) naming the
    message's fields if it is not an action.

    >>> pay = pb.Action(kind=pb.ACTION_KIND_PAY, cards=cof_pb.CardCounts(white=1, joker=1))
    >>> action_from_proto(pay).to_text()
    'pay white+joker'
    >>> try:
    ...     action_from_proto(pb.Action(kind=pb.ACTION_KIND_ELECT, colour=0, balcony=9))
    ... except StructuredActionError as e:
    ...     e.violations
    [('balcony', 'elect: balcony must be an integer in 0..3, got 9')]
    """
    if msg.kind not in ACTION_KIND_FROM_PROTO:
        raise StructuredActionError([("kind", "must be set to an action kind")])
    kind = ACTION_KIND_FROM_PROTO[msg.kind]
    kind_name = pb.ActionKind.Name(msg.kind)
    fields = {f: getattr(msg, f) for f in ACTION_FIELDS if msg.HasField(f)}
    if msg.HasField("cards"):
        if kind is not ActionKind.PAY:
            raise StructuredActionError(
                [("cards", f"does not apply to {kind_name}: only a payment spends cards")]
            )
        paid = _payment(msg.cards)
        if fields.setdefault("payment", paid) != paid:
            raise StructuredActionError(
                [("cards", f"are not the cards of payment {fields['payment']}; give one of them")]
            )
    elif kind is ActionKind.PAY and "payment" not in fields:
        raise StructuredActionError(
            [("cards", f"required for {kind_name}: the cards paid (or payment, their index)")]
        )
    try:
        return Action(kind, **fields)
    except ValueError as e:
        found = _ENGINE_FIELD.match(str(e))
        field = found.group(1) if found else ""
        if field and field not in fields and str(e).endswith("got None"):
            problem = f"required for {kind_name}"
        else:
            problem = str(e)
        raise StructuredActionError([(field, problem)]) from None
