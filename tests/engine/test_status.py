"""council.engine._council_of_four_status.problems: the compiled consistency query over a loaded
position.

Positions come from seeded random play; an inconsistency is made by editing the state's raw
struct dict (``to_raw`` / ``from_raw``), and ``problems()`` must report exactly the
``(field path, problem)`` pairs listed, in order.
"""

from __future__ import annotations

import copy
import random
import re
from functools import cache

import pytest
from positions import find_position, play_random, set_bits

from council.engine import council_of_four_board as B
from council.engine._council_of_four_status import problems
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState, Decision

KING_ORDER = list(B.KING_REWARD_TILES)


@cache
def _base(name: str) -> CouncilOfFourState:
    if name == "mid3":  # a 3-player game in progress, no decision pending
        s = play_random(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=64), 64, 60
        )
        assert s.decision()[0] == "turn"
        return s
    if name == "mid4":
        return play_random(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=4), 4, 80
        )
    if name == "two":  # 2 players: neutral emporiums
        return play_random(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=15), 15, 40
        )
    if name == "pay":  # a permit payment is pending
        return find_position(
            CouncilOfFourConfig(players=3), 0, lambda s: s.decision()[0] == "pay_permit"
        )
    if name == "over":  # a finished 4-player game
        s = play_random(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=5), 5, 100_000
        )
        assert s.is_terminal()
        return s
    if name == "view":  # seat 1's view of mid3
        return _base("mid3").view(1)
    raise KeyError(name)


def _raw(name: str) -> dict:
    return copy.deepcopy(_base(name).to_raw())


# -- raw-dict helpers ----------------------------------------------------------------------


def _deck(r: dict, g: int) -> list[int]:
    return r["permit_deck"][g][: r["deck_n"][g]]


def _set_deck(r: dict, g: int, tiles: list[int]) -> None:
    r["permit_deck"][g] = tiles + [-1] * (B.TILES_PER_REGION - len(tiles))
    r["deck_n"][g] = len(tiles)
    r["deck_known"][g] = min(r["deck_known"][g], len(tiles))


def _set_pending(r: dict, *items: tuple[int, int]) -> None:
    r["pending_n"] = len(items)
    unused = len(r["pending_kind"]) - len(items)  # the core's queue slots past the live ones
    r["pending_kind"] = [k for k, _ in items] + [0] * unused
    r["pending_arg"] = [a for _, a in items] + [0] * unused


def _tile_cities(t: int) -> set[int]:
    return set(B.PERMIT_TILES[t].cities)


def _nowhere(*tiles: int) -> tuple[str, str]:
    return (
        "board.permit_decks",
        f"permit tile(s) {', '.join(map(str, tiles))} are nowhere: every tile must be in a "
        "deck, a face-up slot or a player's tiles",
    )


def _king_count(expected: int, bonus_taken: int) -> tuple[str, str]:
    return (
        "board.king_tiles_taken",
        f"must be {expected}: one king reward tile comes with each of the {bonus_taken} "
        "bonus tiles taken while any remain",
    )


# -- the inconsistencies, one function each: mutate the raw dict, return what is expected --


def card_conservation_full(r):
    r["hand"][0][0] += 1  # a 14th white card
    r["hand_n"][0] += 1
    return [
        (
            "board.politics_deck.white",
            "white cards in hands, deck and discard pile add up to 14, must be 13",
        ),
        (
            "board.politics_deck_size",
            "deck size, discard pile and hand sizes add up to 91 cards, must be 90",
        ),
    ]


def deck_size_off(r):
    r["politics_deck_n"] -= 1
    n = sum(r["politics_deck"])
    return [
        (
            "board.politics_deck_size",
            f"must equal the number of cards in board.politics_deck ({n}), got {n - 1}",
        ),
        (
            "board.politics_deck_size",
            "deck size, discard pile and hand sizes add up to 89 cards, must be 90",
        ),
    ]


def card_conservation_view(r):
    assert r["viewer"] == 1
    extra = 13 - r["discard"][1]  # black: the discard pile holds all 13 ...
    r["discard"][1] = 13
    r["politics_deck_n"] -= extra  # ... so the sizes still add up to 90
    seen = 13 + r["hand"][1][1]
    assert seen > 13
    return [
        (
            "board.discard.black",
            f"black cards in the viewer's hand and the discard pile add up to {seen}, "
            "more than the 13 in the game",
        ),
    ]


def hand_size(r):
    n = r["hand_n"][2]
    r["hand_n"][2] = n + 1
    return [
        ("players[2].hand_size", f"must equal the number of cards in the hand ({n}), got {n + 1}"),
        (
            "board.politics_deck_size",
            "deck size, discard pile and hand sizes add up to 91 cards, must be 90",
        ),
    ]


def hand_size_in_view(r):
    assert r["viewer"] == 1
    n = r["hand_n"][1]
    r["hand_n"][1] = n - 1
    r["politics_deck_n"] += 1
    return [
        ("players[1].hand_size", f"must equal the number of cards in the hand ({n}), got {n - 1}")
    ]


def hidden_hand_size_in_view(r):
    # Another seat's hand is unknown in a view: only the sizes in all are checked.
    r["hand_n"][0] -= 2
    r["politics_deck_n"] += 2
    return []


def councillors(r):
    old = r["balcony"][1][1]
    new = 0 if old != 0 else 1
    r["balcony"][1][1] = new
    lines = []
    for k in sorted((old, new)):
        on = sum(row.count(k) for row in r["balcony"])
        colour = B.COUNCILLOR_COLOURS[k]
        lines.append(
            (
                f"board.pool.{colour}",
                f"{colour} councillors: {on} in balconies + {r['pool'][k]} in the pool, "
                "must total 4",
            )
        )
    return lines


def duplicate_tile_in_deck(r):
    deck = _deck(r, 0)
    gone = deck[5]
    deck[5] = deck[1]
    _set_deck(r, 0, deck)
    return [
        (
            "board.permit_decks.coast.unknown[5]",
            f"tile {deck[1]} is also at board.permit_decks.coast.unknown[1]: each tile exists once",
        ),
        _nowhere(gone),
    ]


def tiles_missing(r):
    deck = _deck(r, 2)
    _set_deck(r, 2, deck[:-2])
    return [_nowhere(*sorted(deck[-2:]))]


def tile_in_two_places(r):
    hills, mountains = r["face_up"][1][0], r["face_up"][2][1]
    r["permits_up"][1] |= (1 << hills) | (1 << mountains)
    return [
        (
            "players[1].permits_face_up[0]",
            f"tile {hills} is also at board.face_up.hills.slot0: each tile exists once",
        ),
        (
            "players[1].permits_face_up[1]",
            f"tile {mountains} is also at board.face_up.mountains.slot1: each tile exists once",
        ),
    ]


def tile_face_up_and_face_down(r):
    # The same tile in a player's face-up and face-down lists: the later list is reported.
    deck = _deck(r, 0)
    own = r["emporia"][0]
    t = next(t for t in deck if any((own >> c) & 1 for c in _tile_cities(t)))
    deck.remove(t)
    _set_deck(r, 0, deck)
    r["permits_up"][0] |= 1 << t
    r["permits_down"][0] |= 1 << t
    return [
        (
            "players[0].permits_face_down[0]",
            f"tile {t} is also at players[0].permits_face_up[0]: each tile exists once",
        ),
    ]


def wrong_region_face_up(r):
    fu = r["face_up"]
    a, b = fu[0][0], fu[1][0]
    fu[0][0], fu[1][0] = b, a
    return [
        ("board.face_up.coast.slot0", f"tile {b} belongs to the hills"),
        ("board.face_up.hills.slot0", f"tile {a} belongs to the coast"),
    ]


def wrong_region_known_bottom(r):
    # "two" has a publicly known bottom of 2 tiles in the hills deck.
    assert r["deck_known"][1] == 2
    hills, mountains = _deck(r, 1), _deck(r, 2)
    hills[-1], mountains[0] = mountains[0], hills[-1]
    _set_deck(r, 1, hills)
    _set_deck(r, 2, mountains)
    return [
        ("board.permit_decks.hills.known_bottom[1]", f"tile {hills[-1]} belongs to the mountains"),
        ("board.permit_decks.mountains.unknown[0]", f"tile {mountains[0]} belongs to the hills"),
    ]


def unsorted_unknown_in_view(r):
    deck = _deck(r, 0)
    assert deck == sorted(deck)
    deck[0], deck[1] = deck[1], deck[0]
    _set_deck(r, 0, deck)
    return [
        (
            "board.permit_decks.coast.unknown",
            "must be in increasing order in a view (the deck order is hidden)",
        ),
    ]


def unsorted_unknown_in_full_state(r):
    deck = _deck(r, 0)
    deck[0], deck[1] = max(deck[:2]), min(deck[:2])  # the deck order is free here
    _set_deck(r, 0, deck)
    return []


def empty_slot_with_deck(r):
    t = r["face_up"][0][1]
    r["face_up"][0][1] = -1
    _set_deck(r, 0, [t] + _deck(r, 0))
    return [
        (
            "board.face_up.coast.slot1",
            "is empty while the region's deck still has tiles and no decision is pending "
            "(a taken tile is replaced once its bonus has resolved)",
        ),
    ]


def empty_slot_while_pending(r):
    # A slot stays empty until the decision raised by taking its tile is resolved.
    assert r["pending_n"] == 1
    t = r["face_up"][0][1]
    r["face_up"][0][1] = -1
    _set_deck(r, 0, [t] + _deck(r, 0))
    return []


def neutral_with_four_players(r):
    r["neutral"] = 1 << B.city_index("Arkon")
    return [("board.neutral_emporiums", "must be empty: neutral emporiums need 2 players")]


def wrong_neutral_set(r):
    coast = sum(1 << c for c in range(B.N_CITIES) if B.CITY_REGION[c] == 0)
    hills = sum(1 << c for c in range(B.N_CITIES) if B.CITY_REGION[c] == 1)
    r["neutral"] = (r["neutral"] | coast) & ~hills
    names = ", ".join(B.CITY_NAMES[c] for c in set_bits(coast))
    return [
        (
            "board.neutral_emporiums",
            f"the neutral emporiums in the coast ({names}) must be the cities of one coast "
            "permit tile",
        ),
        (
            "board.neutral_emporiums",
            "the neutral emporiums in the hills (none) must be the cities of one hills permit tile",
        ),
    ]


def used_permit_without_emporium(r):
    deck = _deck(r, 1)
    own = r["emporia"][0]
    t = next(t for t in deck if not any((own >> c) & 1 for c in _tile_cities(t)))
    deck.remove(t)
    _set_deck(r, 1, deck)
    r["permits_down"][0] |= 1 << t
    return [
        (
            "players[0].permits_face_down[0]",
            f"tile {t} is used, so the player must have an emporium in one of its cities",
        ),
    ]


def end_trigger_wrong(r):
    r["end_trigger"] = 1
    return [("turn.end_trigger", "seat 1 must have built all 10 emporiums")]


def end_trigger_missing(r):
    assert r["end_trigger"] == 0 and r["emporia_n"][0] == 10
    r["end_trigger"] = -1
    return [
        ("turn.end_trigger", "must be set: seat 0 has built all 10 emporiums"),
        ("turn.game_over", "the game ends only after a player built 10 emporiums"),
    ]


def tenth_emporium_vp(r):
    r["vp"][0] = 2
    return [
        ("players[0].vp", "the player who built the 10th emporium first has scored 3 VP for it"),
    ]


def bonus_tile_held_and_left(r):
    held = set_bits(r["bonus_tiles"][0], 7)
    t = held[0]
    name = B.BONUS_TILE_NAMES[t]
    r["bonus_tiles_left"] |= 1 << t
    left = len(set_bits(r["bonus_tiles_left"], 7))
    return [
        ("players[0].bonus_tiles[0]", f"the {name} tile is also in board.bonus_tiles_left"),
        (
            "board.bonus_tiles_left",
            f"the {name} tile is taken: seat 0 has an emporium in each of its cities",
        ),
        _king_count(min(5, 7 - left), 7 - left),
    ]


def bonus_tile_held_twice(r):
    t = set_bits(r["bonus_tiles"][0], 7)[-1]
    r["bonus_tiles"][3] |= 1 << t
    name = B.BONUS_TILE_NAMES[t]
    rank = len(set_bits(r["bonus_tiles"][0], 7)) - 1
    return [
        (
            "players[3].bonus_tiles[0]",
            f"the {name} tile is also held at players[0].bonus_tiles[{rank}]",
        ),
    ]


def bonus_tile_not_earned(r):
    assert r["bonus_tiles_left"] == 127
    r["bonus_tiles_left"] &= ~1
    r["bonus_tiles"][1] = 1  # the coast tile, with its king reward tile
    r["king_tiles"][1] = 1
    r["king_tiles_taken"] = 1
    return [("players[1].bonus_tiles[0]", "the coast tile needs an emporium in each of its cities")]


def bonus_tile_lost(r):
    r["bonus_tiles_left"] &= ~(1 << 6)
    return [
        ("board.bonus_tiles_left", "the iron tile is neither on the board nor held by a player"),
        _king_count(1, 1),
    ]


def king_tiles_taken_count(r):
    r["king_tiles_taken"] = 1
    return [
        _king_count(0, 0),
        (
            "board.king_tiles_taken",
            f"king reward tile {KING_ORDER[0]} has been taken but no player holds it",
        ),
    ]


def king_tile_order(r):
    taken = r["king_tiles_taken"]
    p = next(p for p in range(4) if r["king_tiles"][p] & 1)  # the holder of the first one
    r["king_tiles"][p] = (r["king_tiles"][p] & ~1) | (1 << 4)
    rank = len(set_bits(r["king_tiles"][p], 5)) - 1
    return [
        (
            f"players[{p}].king_tiles[{rank}]",
            f"king reward tile {KING_ORDER[4]} is still on the board: the tiles are taken "
            f"in the order {KING_ORDER} and {taken} have been taken",
        ),
        (
            "board.king_tiles_taken",
            f"king reward tile {KING_ORDER[0]} has been taken but no player holds it",
        ),
    ]


def king_tile_without_bonus_tile(r):
    assert r["bonus_tiles"][1] == 0 and r["king_tiles"][1] == 0
    k = set_bits(r["king_tiles"][0], 5)[0]
    r["king_tiles"][1] = 1 << k  # held twice, by a seat without a bonus tile
    return [
        ("players[1].king_tiles", "a player holds at most one king reward tile per bonus tile"),
        (
            "players[1].king_tiles[0]",
            f"king reward tile {KING_ORDER[k]} is also held at players[0].king_tiles[0]",
        ),
    ]


def assistant_supply(r):
    r["assistant_supply"] = 10
    total = sum(r["assistants"][:3]) + 11 - r["assistants"][2]
    r["assistants"][2] = 11
    return [("players", f"the players hold {total} assistants, more than the supply of 10")]


def wrong_current_seat(r):
    n, number = r["n_players"], r["turn"]
    r["current"] = (r["current"] + 1) % n
    return [
        (
            "turn.current",
            f"must be {(number - 1) % n}: seat 0 plays turn 1 and seats follow in order "
            f"(turn {number})",
        ),
    ]


def action_count(r):
    r["action_count"] = r["turn"] - 2
    return [("turn.action_count", f"must be at least {r['turn'] - 1}: each turn ends by an action")]


def no_main_action(r):
    r["main_left"] = r["main_done"] = 0
    return [
        (
            "turn.main_left",
            "every turn has at least one main action: main_left + main_done must be ≥ 1",
        ),
    ]


def game_over_wrong_last_seat(r):
    n, trigger = r["n_players"], r["end_trigger"]
    r["turn"] += 1
    r["action_count"] += 1
    r["current"] = (r["current"] + 1) % n
    return [
        (
            "turn.current",
            f"must be {(trigger - 1) % n} in a finished game: the last turn is the one "
            f"before seat {trigger}'s",
        ),
    ]


def game_over_with_pending(r):
    _set_pending(r, (Decision.city_token, 0))
    return [("turn.pending", "must be empty once the game is over")]


def game_over_without_main_action(r):
    r["main_done"] = 0
    return [("turn.main_done", "a turn ends only after a main action")]


def pending_before_main_action(r):
    r["main_done"] = 0
    r["main_left"] = 1
    return [("turn.pending[0]", "decisions are pending only during a main action (main_done ≥ 1)")]


def payment_not_alone(r):
    kind, arg = r["pending_kind"][0], r["pending_arg"][0]
    _set_pending(r, (kind, arg), (Decision.free_permit, 0))
    return [("turn.pending[0]", "a payment must be the only pending decision")]


def pay_permit_from_empty_slot(r):
    arg = r["pending_arg"][0]
    g, s = arg >> 1, arg & 1
    t = r["face_up"][g][s]
    r["face_up"][g][s] = -1
    _set_deck(r, g, [t] + _deck(r, g))
    return [("turn.pending[0].permit", f"the {B.REGIONS[g]} face-up slot {s} is empty")]


def pay_king_to_own_city(r):
    cur = r["current"]
    c = set_bits(r["emporia"][cur], 15)[0]
    _set_pending(r, (Decision.pay_king, c))
    return [("turn.pending[0].city", f"seat {cur} already has an emporium in {B.CITY_NAMES[c]}")]


def second_token_city_without_emporium(r):
    cur = r["current"]
    c = next(c for c in range(15) if not (r["emporia"][cur] >> c) & 1)
    _set_pending(r, (Decision.second_of_two_city_tokens, c))
    return [
        (
            "turn.pending[0].city",
            f"{B.CITY_NAMES[c]} is not a city whose token seat {cur} could have chosen",
        ),
    ]


def second_token_city_with_nobility_token(r):
    cur = r["current"]
    c = set_bits(r["emporia"][cur], 15)[0]
    nobility = next(t for t, token in enumerate(B.CITY_TOKENS) if token.get("nobility", 0))
    other = r["city_token"].index(nobility)
    tokens = r["city_token"]
    tokens[c], tokens[other] = tokens[other], tokens[c]
    _set_pending(r, (Decision.city_token, 0), (Decision.second_of_two_city_tokens, c))
    return [
        ("turn.pending[1]", "the second of two city tokens is chosen right after the first"),
        (
            "turn.pending[1].city",
            f"{B.CITY_NAMES[c]} is not a city whose token seat {cur} could have chosen",
        ),
    ]


def _stuck(r):
    """The player to act must pay for a permit with no card left."""
    p = r["current"]
    for k in range(7):
        r["discard"][k] += r["hand"][p][k]
        r["hand"][p][k] = 0
    r["hand_n"][p] = 0


def no_legal_action(r):
    _stuck(r)
    return [("turn.pending[0]", "the player to act has no legal action in this position")]


def no_legal_action_in_own_view(r):
    _stuck(r)
    v = CouncilOfFourState.from_raw(r).view(r["current"]).to_raw()
    r.clear()
    r.update(v)
    return [("turn.pending[0]", "the player to act has no legal action in this position")]


def no_legal_action_unseen_in_other_view(r):
    # Another seat's view does not know the hand of the player to act: nothing to check.
    _stuck(r)
    v = CouncilOfFourState.from_raw(r).view((r["current"] + 1) % r["n_players"]).to_raw()
    r.clear()
    r.update(v)
    return []


CASES = [
    ("mid3", card_conservation_full),
    ("mid3", deck_size_off),
    ("view", card_conservation_view),
    ("mid3", hand_size),
    ("view", hand_size_in_view),
    ("view", hidden_hand_size_in_view),
    ("mid3", councillors),
    ("mid3", duplicate_tile_in_deck),
    ("mid3", tiles_missing),
    ("mid3", tile_in_two_places),
    ("mid3", tile_face_up_and_face_down),
    ("mid3", wrong_region_face_up),
    ("two", wrong_region_known_bottom),
    ("view", unsorted_unknown_in_view),
    ("mid3", unsorted_unknown_in_full_state),
    ("mid3", empty_slot_with_deck),
    ("pay", empty_slot_while_pending),
    ("mid4", neutral_with_four_players),
    ("two", wrong_neutral_set),
    ("mid3", used_permit_without_emporium),
    ("mid3", end_trigger_wrong),
    ("over", end_trigger_missing),
    ("over", tenth_emporium_vp),
    ("over", bonus_tile_held_and_left),
    ("over", bonus_tile_held_twice),
    ("mid3", bonus_tile_not_earned),
    ("mid3", bonus_tile_lost),
    ("mid3", king_tiles_taken_count),
    ("over", king_tile_order),
    ("over", king_tile_without_bonus_tile),
    ("mid3", assistant_supply),
    ("mid3", wrong_current_seat),
    ("mid3", action_count),
    ("mid3", no_main_action),
    ("over", game_over_wrong_last_seat),
    ("over", game_over_with_pending),
    ("over", game_over_without_main_action),
    ("pay", pending_before_main_action),
    ("pay", payment_not_alone),
    ("pay", pay_permit_from_empty_slot),
    ("pay", pay_king_to_own_city),
    ("pay", second_token_city_without_emporium),
    ("pay", second_token_city_with_nobility_token),
    ("pay", no_legal_action),
    ("pay", no_legal_action_in_own_view),
    ("pay", no_legal_action_unseen_in_other_view),
]
IDS = [f.__name__ for _, f in CASES]


def _case(base: str, mutate) -> tuple[CouncilOfFourState, list[tuple[str, str]]]:
    r = _raw(base)
    expected = mutate(r)
    return CouncilOfFourState.from_raw(r), expected


@pytest.mark.parametrize("base,mutate", CASES, ids=IDS)
def test_inconsistent_positions_report_their_problems(base, mutate):
    assert problems(_base(base)) == []
    state, expected = _case(base, mutate)
    assert problems(state) == expected


def test_cases_cover_the_check_families():
    assert len(IDS) == len(set(IDS))
    sentences = set()
    for base, mutate in CASES:
        for _, sentence in _case(base, mutate)[1]:
            sentences.add(re.sub(r"\d+|\(.*\)", "#", sentence))
    assert len(sentences) >= 35


# -- consistent positions ------------------------------------------------------------------

CONFIGS = [
    CouncilOfFourConfig(players=2),
    CouncilOfFourConfig(players=3, layout="BBB", assistant_supply=48),
    CouncilOfFourConfig(players=4, layout="AAB", max_coins=30, permit_tie_all_score=False),
    CouncilOfFourConfig(players=3, layout="BAA", nobility_bonus_on_pass=True),
    CouncilOfFourConfig(players=4, assistant_supply=40),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}p-{c.layout}")
def test_positions_of_random_games_have_no_problem(config):
    checked = 0
    for seed in (1, 2):
        s = CouncilOfFourState.new_game(config, seed=seed)
        rng = random.Random(seed)
        k = 0
        while True:
            if k % 7 == 0 or s.is_terminal():
                for st in [s] + [s.view(p) for p in range(config.players)]:
                    assert problems(st) == [], (seed, k, st.viewer)
                    checked += 1
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_actions()))
            k += 1
    assert checked >= 150


def test_problems_leaves_the_state_unchanged():
    for name in ("pay", "view", "over"):
        s = _base(name)
        raw = s.to_raw()
        problems(s)
        assert s.to_raw() == raw


# -- differential: the former Python checker -----------------------------------------------


def _reference(state: CouncilOfFourState, expected: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The former JSON reader's consistency problems for `state`, with today's paths; the
    explicit expected list once that reader (serialize._Reader) is gone."""
    try:
        from council.engine import serialize
    except ImportError:
        return expected
    if not all(hasattr(serialize, name) for name in ("_Reader", "_Checker", "state_to_json")):
        return expected
    checker = serialize._Checker()
    serialize._Reader(checker).read(serialize.state_to_json(state))
    raw = state.to_raw()
    slot = re.compile(r"face_up\.(\w+)\[(\d)\]")
    out = []
    for path, problem in checker.violations:
        path, problem = (
            slot.sub(r"face_up.\1.slot\2", path),
            slot.sub(r"face_up.\1.slot\2", problem),
        )
        arg = re.fullmatch(r"turn\.pending\[(\d+)\]\.arg", path)
        if arg:
            kind = raw["pending_kind"][int(arg.group(1))]
            path = path[: -len("arg")] + ("permit" if kind == Decision.pay_permit else "city")
        out.append((path, problem))
    return out


@pytest.mark.parametrize("base,mutate", CASES, ids=IDS)
def test_same_problems_as_the_python_checker(base, mutate):
    state, expected = _case(base, mutate)
    assert problems(state) == _reference(state, expected)
