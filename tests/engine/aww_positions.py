"""Hand-made positions of A War of Whispers for its rules tests, on the bundled content.

A position starts from ``AWarOfWhispersState.new_game(players, seed).to_raw()``; ``turn_position``
overwrites the fields of an empire turn's decision, ``set_map`` the banners of regions (keeping
each empire's supply the complement of its banners on the map), ``give`` cards to hands.

The bundled map is a 5 x 4 grid: empire e's home regions are 4e .. 4e + 3 (rows 0 .. 3); a
region touches the ones above, below, left and right of it, and the corners 0-16 and 3-19 meet.
Row 0: 1 city and a card icon; row 1: 2 cities and a fort (the horse's fort is in row 3);
row 2: a farm and an icon; row 3: 1 city.
"""

from __future__ import annotations

from council.engine._a_war_of_whispers import (
    ACTION_OFFSETS,
    LOCATIONS,
    PHASES,
    STEPS,
    AWarOfWhispersState,
    current_content,
)
from council.engine.a_war_of_whispers_content import EMPIRES, SEATS

CONTENT = current_content()
BEAR, LION, HORSE, ELEPHANT, EAGLE = range(5)
SHERIFF, STEWARD, MARSHAL, CHANCELLOR = range(4)
REGION = {r.name: i for i, r in enumerate(CONTENT.regions)}
CARD = {c.name: i for i, c in enumerate(CONTENT.cards)}
LOC_DECK, LOC_HAND, LOC_UNKNOWN = LOCATIONS["deck"], LOCATIONS["hand"], LOCATIONS["unknown"]
PH = {name: i for i, name in enumerate(PHASES)}
ST = {name: i for i, name in enumerate(STEPS)}
A = ACTION_OFFSETS
DONE = A["done"]

assert EMPIRES[BEAR] == "bear" and SEATS[CHANCELLOR] == "chancellor"


def region(name: str | int) -> int:
    return name if isinstance(name, int) else REGION[name]


def card(name: str | int) -> int:
    return name if isinstance(name, int) else CARD[name]


def deploy(empire: int, seat: int) -> int:
    return A["deploy"] + empire * 4 + seat


def retrieve(empire: int, seat: int) -> int:
    return A["retrieve"] + empire * 4 + seat


def option(k: int) -> int:
    return A["option"] + k


def at(name: str | int) -> int:
    return A["region"] + region(name)


def count(n: int) -> int:
    return A["count"] + n - 1


def seat(k: int) -> int:
    return A["seat"] + k


def play(name: str | int, ability: int = 0) -> int:
    return A["play"] + card(name) * 3 + ability


def pay(name: str | int) -> int:
    return A["pay"] + card(name)


def discard(name: str | int) -> int:
    return A["discard"] + card(name)


def new_raw(players: int = 4, seed: int = 1) -> dict:
    return AWarOfWhispersState.new_game(players, seed=seed).to_raw()


def set_map(raw: dict, banners: dict) -> None:
    """{region: (empire, n)} (n = 0: empty), then each supply the rest of its 20."""
    for name, (empire, n) in banners.items():
        r = region(name)
        raw["owner"][r] = empire if n > 0 else -1
        raw["banners"][r] = n
    for e in range(5):
        on_map = sum(
            n for r, n in enumerate(raw["banners"]) if raw["owner"][r] == e and r < len(REGION)
        )
        raw["supply"][e] = 20 - on_map


def give(raw: dict, player: int, *names: str) -> None:
    for name in names:
        c = card(name)
        assert raw["card_loc"][c] == LOC_DECK, f"{name} is not in the deck"
        raw["card_loc"][c] = LOC_HAND + player
        raw["hand_count"][player][CONTENT.cards[c].empire] += 1


def turn_position(
    agents: dict, empire: int, seat_k: int, players: int = 4, raw: dict | None = None
) -> dict:
    """The raw form of the empire turn of `empire` at `seat_k`: `agents` maps (empire, seat)
    to a player; the seat's controller is to choose its option."""
    raw = raw or new_raw(players)
    raw["agent"] = [-1] * 20
    for (e, k), p in agents.items():
        raw["agent"][e * 4 + k] = p
    raw["phase"] = PH["turns"]
    raw["step"] = ST["choose"]
    raw["empire"] = empire
    raw["seat"] = seat_k
    raw["acting_seat"] = seat_k
    actor = next(
        agents[(empire, (seat_k + i) % 4)] for i in range(4) if (empire, (seat_k + i) % 4) in agents
    )
    raw["actor"] = actor
    raw["current"] = actor
    raw["deploy_i"] = 0
    return raw


def state(raw: dict) -> AWarOfWhispersState:
    return AWarOfWhispersState.from_raw(raw)
