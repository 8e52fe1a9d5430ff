"""JSON form of positions: exact round trips, validation on load, and play after loading."""

from __future__ import annotations

import copy
import json
import pickle
import random
from functools import cache

import pytest
from positions import find_position, play_random

from council.engine._council_of_four_document import FORMAT
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_board import PERMIT_TILES, city_index
from council.engine.serialize import (
    StateValidationError,
    config_from_json,
    dumps,
    loads,
    state_from_json,
    state_to_json,
)


def _play(state: CouncilOfFourState, seed: int, actions: int) -> CouncilOfFourState:
    """Play up to `actions` uniformly random legal actions (Python RNG) on a copy."""
    return play_random(state.clone(), seed, actions)


def _game_positions(config: CouncilOfFourConfig, seed: int, every: int) -> list[CouncilOfFourState]:
    """Every `every`-th position of a seeded random game, and its final position."""
    s = CouncilOfFourState.new_game(config, seed=seed)
    rng = random.Random(seed)
    out = []
    k = 0
    while not s.is_terminal():
        if k % every == 0:
            out.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
        k += 1
    out.append(s)
    return out


@cache
def _base(name: str) -> CouncilOfFourState:
    if name == "mid3":  # a 3-player game in progress
        return _play(CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=7), 7, 60)
    if name == "two":  # 2 players: neutral emporiums
        return _play(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=15), 15, 40)
    if name == "pay":  # a permit payment is pending
        return find_position(
            CouncilOfFourConfig(players=3), 3, lambda s: s.decision()[0] == "pay_permit"
        )
    if name == "over":  # a finished 4-player game
        return _play(
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=2), 2, 100_000
        )
    if name == "view":  # seat 1's view of mid3
        return _base("mid3").view(1)
    raise KeyError(name)


def _json(name: str) -> dict:
    return copy.deepcopy(state_to_json(_base(name)))


# ---------------------------------------------------------------------------------------
# Round trips.

CONFIGS = [
    CouncilOfFourConfig(players=2),
    CouncilOfFourConfig(players=3, layout="BBB", assistant_supply=48),
    CouncilOfFourConfig(players=4, layout="AAB", max_coins=30, permit_tie_all_score=False),
    CouncilOfFourConfig(players=3, layout="BAA", nobility_bonus_on_pass=True),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}p-{c.layout}")
@pytest.mark.parametrize("seed", [1, 2])
def test_round_trip_full_states_and_views(config, seed):
    positions = _game_positions(config, seed, every=9)
    assert positions[-1].is_terminal()
    for s in positions:
        for st in [s] + [s.view(p) for p in range(config.players)]:
            obj = state_to_json(st)
            text = json.dumps(obj)
            assert json.loads(text) == obj  # only JSON types
            back = state_from_json(json.loads(text))
            assert back == st
            assert dumps(back) == text  # the text is stable
            assert loads(text) == st


@pytest.mark.parametrize("name", ["mid3", "two", "pay", "over", "view"])
def test_pickle_round_trip(name):
    s = _base(name)
    t = pickle.loads(pickle.dumps(s))
    assert t == s
    assert state_to_json(t) == state_to_json(s)


def test_core_raw_form_keeps_every_array_entry():
    # The mapping relies on CouncilOfFourState.to_raw giving every array entry as an int (a struct
    # array of int8_t must not come back as NUL-terminated bytes).
    r = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=1).to_raw()
    assert isinstance(r["city_token"], list) and len(r["city_token"]) == 15
    assert sorted(r["city_token"]) == [-1, *range(14)]
    assert [len(row) for row in r["balcony"]] == [4, 4, 4, 4]
    assert r["nobility"] == [0, 0, 0, 0]
    assert len(r["pending_kind"]) == 16


def test_core_pending_queue_leaves_no_stale_entries():
    # Equal positions must have equal structs: a resolved decision must not linger in the
    # unused part of the pending queue (the JSON form, which has only the live entries,
    # could not restore it).
    s = _base("pay")
    s = s.child(s.legal_actions()[0])  # pay: the queue empties
    r = s.to_raw()
    assert r["pending_n"] == 0
    assert r["pending_kind"] == [0] * 16 and r["pending_arg"] == [0] * 16


def test_json_fields_of_a_known_position():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    obj = state_to_json(s)
    # A full state has no viewer: absent fields are absent, not null (the protobuf JSON
    # mapping writes neither).
    assert list(obj) == ["format", "config", "rng", "board", "players", "turn"]
    assert obj["format"] == FORMAT
    assert obj["config"] == CouncilOfFourConfig(players=2).to_dict()
    assert obj["rng"] == str(s.to_raw()["rng"])
    board = obj["board"]
    assert board["king_city"] == "Juvelar"
    assert "Juvelar" not in board["city_tokens"] and len(board["city_tokens"]) == 14
    assert sorted(board["city_tokens"].values()) == list(range(14))
    assert list(board["balconies"]) == ["coast", "hills", "mountains", "king"]
    assert sum(board["pool"].values()) == 8
    for r, region in enumerate(["coast", "hills", "mountains"]):
        deck = board["permit_decks"][region]
        assert len(deck["unknown"]) == 13 and deck["known_bottom"] == []
        slots = board["face_up"][region]
        assert list(slots) == ["slot0", "slot1"]
        assert all(t // 15 == r for t in deck["unknown"] + list(slots.values()))
    assert board["politics_deck_size"] == 90 - 13 == sum(board["politics_deck"].values())
    assert board["discard"] == dict.fromkeys(board["discard"], 0)
    assert board["bonus_tiles_left"] == [
        "coast", "hills", "mountains", "gold", "silver", "bronze", "iron"
    ]  # fmt: skip
    assert board["king_tiles_taken"] == 0
    assert 3 <= len(board["neutral_emporiums"]) <= 9
    p0, p1 = obj["players"]
    assert (p0["coins"], p0["assistants"], p0["hand_size"]) == (10, 1, 7)
    assert (p1["coins"], p1["assistants"], p1["hand_size"]) == (11, 2, 6)
    assert sum(p0["hand"].values()) == 7 and p0["emporiums"] == []
    assert obj["turn"] == {
        "current": 0,
        "number": 1,
        "action_count": 0,
        "main_left": 1,
        "main_done": 0,
        "quick_used": False,
        "game_over": False,
        "pending": [],
    }


def test_view_json_hides_what_the_viewer_cannot_know():
    v = _base("view")
    obj = state_to_json(v)
    assert obj["viewer"] == 1 and "rng" not in obj
    assert "politics_deck" not in obj["board"]
    assert obj["board"]["politics_deck_size"] == _base("mid3").to_raw()["politics_deck_n"]
    assert ["hand" in p for p in obj["players"]] == [False, True, False]
    assert [p["hand_size"] for p in obj["players"]] == _base("mid3").to_raw()["hand_n"][:3]
    for deck in obj["board"]["permit_decks"].values():
        assert deck["unknown"] == sorted(deck["unknown"])
    loaded = state_from_json(obj)
    assert loaded.is_view and loaded.viewer == 1
    assert loaded.determinize(5) == v.determinize(5)


def test_pending_decisions_in_json():
    obj = _json("pay")
    (entry,) = obj["turn"]["pending"]
    assert entry["kind"] == "pay_permit"
    assert set(entry["permit"]) == {"region", "slot"}
    slot = f"slot{entry['permit']['slot']}"
    assert slot in obj["board"]["face_up"][entry["permit"]["region"]]
    king = find_position(CouncilOfFourConfig(players=2), 4, lambda s: s.decision()[0] == "pay_king")
    obj = state_to_json(king)
    (entry,) = obj["turn"]["pending"]
    assert list(entry) == ["kind", "city"] and entry["kind"] == "pay_king"
    assert city_index(entry["city"]) == king.decision()[1]
    assert state_from_json(obj) == king


def test_finished_game_json():
    obj = _json("over")
    t = obj["turn"]
    assert t["game_over"] is True and t["pending"] == []
    assert "end_trigger" in t
    assert len(obj["players"][t["end_trigger"]]["emporiums"]) == 10
    assert t["current"] == (t["end_trigger"] - 1) % 4


# ---------------------------------------------------------------------------------------
# Validation: a table of malformed or inconsistent positions.


def _set(path):
    """A mutation that sets a value at a path of keys/indices."""

    def make(value):
        def mutate(j):
            obj = j
            for key in path[:-1]:
                obj = obj[key]
            obj[path[-1]] = value

        return mutate

    return make


def _other_colour(colour):
    return "black" if colour != "black" else "white"


def _swap_coast_hills_face_up(j):
    fu = j["board"]["face_up"]
    fu["coast"]["slot0"], fu["hills"]["slot0"] = fu["hills"]["slot0"], fu["coast"]["slot0"]


def _drop_a_mountains_tile(j):
    j["board"]["permit_decks"]["mountains"]["unknown"].pop()


def _duplicate_face_up_tile(j):
    j["players"][1]["permits_face_up"].append(j["board"]["face_up"]["coast"]["slot0"])
    j["_expect"] = [f"players[1].permits_face_up[{len(j['players'][1]['permits_face_up']) - 1}]"]


def _empty_slot_with_deck_left(j):
    assert j["turn"]["pending"] == []
    tile = j["board"]["face_up"]["coast"].pop("slot1")
    j["board"]["permit_decks"]["coast"]["unknown"].append(tile)


def _extra_white_card(j):
    j["players"][0]["hand"]["white"] += 1
    j["players"][0]["hand_size"] += 1


def _hand_size_off(j):
    j["players"][2]["hand_size"] += 1


def _duplicate_token(j):
    tokens = j["board"]["city_tokens"]
    tokens["Burgen"] = tokens["Arkon"]


def _councillor_recoloured(j):
    row = j["board"]["balconies"]["hills"]
    old = row[1]
    row[1] = _other_colour(old)
    j["_expect"] = sorted([f"board.pool.{old}", f"board.pool.{row[1]}"])


def _used_tile_without_emporium(j):
    own = {city_index(c) for c in j["players"][0]["emporiums"]}
    deck = j["board"]["permit_decks"]["hills"]["unknown"]
    tile = next(t for t in deck if not own & set(PERMIT_TILES[t].cities))
    deck.remove(tile)
    j["players"][0]["permits_face_down"].append(tile)
    j["_expect"] = [
        f"players[0].permits_face_down[{len(j['players'][0]['permits_face_down']) - 1}]"
    ]


def _gold_tile_without_cities(j):
    assert j["board"]["bonus_tiles_left"] == [
        "coast", "hills", "mountains", "gold", "silver", "bronze", "iron"
    ]  # fmt: skip
    j["board"]["bonus_tiles_left"].remove("gold")
    j["players"][0]["bonus_tiles"] = ["gold"]
    j["players"][0]["king_tiles"] = [25]
    j["board"]["king_tiles_taken"] = 1


def _bonus_tile_held_and_left(j):
    j["players"][2]["bonus_tiles"] = ["iron"]  # still on the board, and no iron cities


def _neutral_city_removed(j):
    j["board"]["neutral_emporiums"].pop()


def _pay_before_main_action(j):
    j["turn"]["main_done"] = 0
    j["turn"]["main_left"] = 1


def _pay_not_alone(j):
    j["turn"]["pending"].append({"kind": "free_permit"})


def _pay_without_cards(j):
    p = j["turn"]["current"]
    hand = j["players"][p]["hand"]
    for kind, n in hand.items():
        j["board"]["discard"][kind] += n
        hand[kind] = 0
    j["players"][p]["hand_size"] = 0


def _pay_from_empty_slot(j):
    arg = j["turn"]["pending"][0]["permit"]
    region = arg["region"]
    tile = j["board"]["face_up"][region].pop(f"slot{arg['slot']}")
    j["players"][0]["permits_face_up"].append(tile)
    # the region's deck must be empty too, or the slot would have been refilled
    deck = j["board"]["permit_decks"][region]["unknown"]
    j["players"][1]["permits_face_up"].extend(deck)
    deck.clear()


def _other_hand_shown(j):
    j["players"][0]["hand"] = {k: 0 for k in j["players"][1]["hand"]}


def _unsorted_view_deck(j):
    deck = j["board"]["permit_decks"]["coast"]["unknown"]
    deck[0], deck[1] = deck[1], deck[0]


def _game_over_without_trigger(j):
    del j["turn"]["end_trigger"]


def _game_over_with_pending(j):
    j["turn"]["pending"] = [{"kind": "city_token"}]


def _eleven_emporiums(j):
    j["players"][0]["emporiums"] = [
        "Arkon", "Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar", "Indur",
        "Kultos", "Lyram",
    ]  # fmt: skip


def _duplicate_emporium(j):
    j["players"][1]["emporiums"] = ["Esti", "Esti"]


def _too_many_assistants(j):
    j["config"]["assistant_supply"] = 10
    j["players"][0]["assistants"] = 11


def _trigger_without_ten(j):
    j["turn"]["end_trigger"] = 1


def _king_tiles_taken_without_bonus(j):
    j["board"]["king_tiles_taken"] = 1


S = _set
CASES = [
    # (id, base, mutation, expected fields in order of sorted list)
    ("format", "mid3", S(["format"])("council-of-four/2"), ["format"]),
    ("unknown top field", "mid3", S(["comment"])("hi"), ["comment"]),
    ("missing config field", "mid3", lambda j: j["config"].pop("max_coins"), ["config.max_coins"]),
    ("players 5", "mid3", S(["config", "players"])(5), ["config.players"]),
    ("bad layout", "mid3", S(["config", "layout"])("ABC"), ["config.layout"]),
    ("rng negative", "mid3", S(["rng"])("-5"), ["rng"]),
    ("rng above 2**64", "mid3", S(["rng"])(str(2**64)), ["rng"]),
    ("rng as a fraction", "mid3", S(["rng"])(5.5), ["rng"]),
    ("king city unknown", "mid3", S(["board", "king_city"])("Atlantis"), ["board.king_city"]),
    ("token duplicated", "mid3", _duplicate_token, ["board.city_tokens.Burgen"]),
    (
        "token missing",
        "mid3",
        lambda j: j["board"]["city_tokens"].pop("Arkon"),
        ["board.city_tokens.Arkon"],
    ),
    (
        "token on king city",
        "mid3",
        S(["board", "city_tokens", "Juvelar"])(3),
        ["board.city_tokens.Juvelar"],
    ),
    (
        "token out of range",
        "mid3",
        S(["board", "city_tokens", "Osium"])(14),
        ["board.city_tokens.Osium"],
    ),
    (
        "councillor colour unknown",
        "mid3",
        lambda j: j["board"]["balconies"]["hills"].__setitem__(1, "gold"),
        ["board.balconies.hills[1]"],
    ),
    (
        "balcony of 3",
        "mid3",
        lambda j: j["board"]["balconies"]["king"].pop(),
        ["board.balconies.king"],
    ),
    ("councillor recoloured", "mid3", _councillor_recoloured, None),
    ("pool above 4", "mid3", S(["board", "pool", "white"])(5), ["board.pool.white"]),
    (
        "tiles in the wrong region",
        "mid3",
        _swap_coast_hills_face_up,
        ["board.face_up.coast.slot0", "board.face_up.hills.slot0"],
    ),
    ("tile missing", "mid3", _drop_a_mountains_tile, ["board.permit_decks"]),
    ("tile twice", "mid3", _duplicate_face_up_tile, None),
    (
        "tile id 45",
        "mid3",
        lambda j: j["board"]["permit_decks"]["coast"]["unknown"].__setitem__(0, 45),
        ["board.permit_decks.coast.unknown[0]"],
    ),
    (
        "empty slot, deck not empty",
        "mid3",
        _empty_slot_with_deck_left,
        ["board.face_up.coast.slot1"],
    ),
    (
        "91 politics cards",
        "mid3",
        _extra_white_card,
        ["board.politics_deck.white", "board.politics_deck_size"],
    ),
    ("hand size off", "mid3", _hand_size_off, ["board.politics_deck_size", "players[2].hand_size"]),
    (
        "deck size off",
        "mid3",
        lambda j: j["board"].__setitem__(
            "politics_deck_size", j["board"]["politics_deck_size"] + 1
        ),
        ["board.politics_deck_size", "board.politics_deck_size"],
    ),
    ("full state hides a hand", "mid3", S(["players", 0, "hand"])(None), ["players[0].hand"]),
    ("coins above max", "mid3", S(["players", 1, "coins"])(21), ["players[1].coins"]),
    ("coins as bool", "mid3", S(["players", 1, "coins"])(True), ["players[1].coins"]),
    ("assistants negative", "mid3", S(["players", 0, "assistants"])(-1), ["players[0].assistants"]),
    ("assistants beyond supply", "mid3", _too_many_assistants, ["players"]),
    ("vp as string", "mid3", S(["players", 2, "vp"])("3"), ["players[2].vp"]),
    ("nobility 21", "mid3", S(["players", 0, "nobility"])(21), ["players[0].nobility"]),
    ("unknown player field", "mid3", S(["players", 0, "shoes"])(2), ["players[0].shoes"]),
    (
        "four players in a 3-player game",
        "mid3",
        lambda j: j["players"].append(j["players"][0]),
        ["players"],
    ),
    ("11 emporiums", "mid3", _eleven_emporiums, ["players[0].emporiums"]),
    ("emporium twice", "mid3", _duplicate_emporium, ["players[1].emporiums[1]"]),
    (
        "neutral with 3 players",
        "mid3",
        S(["board", "neutral_emporiums"])(["Arkon"]),
        ["board.neutral_emporiums"],
    ),
    ("neutral not one tile", "two", _neutral_city_removed, ["board.neutral_emporiums"]),
    ("used tile, no emporium", "mid3", _used_tile_without_emporium, None),
    ("gold tile without cities", "mid3", _gold_tile_without_cities, ["players[0].bonus_tiles[0]"]),
    (
        "bonus tile held and left",
        "mid3",
        _bonus_tile_held_and_left,
        ["players[2].bonus_tiles[0]", "players[2].bonus_tiles[0]"],
    ),
    (
        "king tile taken, none held",
        "mid3",
        _king_tiles_taken_without_bonus,
        ["board.king_tiles_taken", "board.king_tiles_taken"],
    ),
    (
        "king tile of 24",
        "mid3",
        S(["players", 0, "king_tiles"])([24]),
        ["players[0].king_tiles[0]"],
    ),
    ("end trigger without 10", "mid3", _trigger_without_ten, ["turn.end_trigger"]),
    (
        "wrong current player",
        "mid3",
        lambda j: j["turn"].__setitem__("current", (j["turn"]["current"] + 1) % 3),
        ["turn.current"],
    ),
    (
        "no main action at all",
        "mid3",
        lambda j: j["turn"].update(main_left=0, main_done=0),
        ["turn.main_left"],
    ),
    ("missing turn number", "mid3", lambda j: j["turn"].pop("number"), ["turn.number"]),
    ("quick_used as int", "mid3", S(["turn", "quick_used"])(0), ["turn.quick_used"]),
    (
        "unknown decision kind",
        "pay",
        S(["turn", "pending", 0, "kind"])("bribe"),
        ["turn.pending[0].kind"],
    ),
    ("payment before a main action", "pay", _pay_before_main_action, ["turn.pending[0]"]),
    ("payment not alone", "pay", _pay_not_alone, ["turn.pending[0]"]),
    (
        "payment slot 2",
        "pay",
        S(["turn", "pending", 0, "permit", "slot"])(2),
        ["turn.pending[0].permit.slot"],
    ),
    ("payment from an empty slot", "pay", _pay_from_empty_slot, ["turn.pending[0].permit"]),
    ("payment without cards", "pay", _pay_without_cards, ["turn.pending[0]"]),
    (
        "token choice with an arg",
        "pay",
        S(["turn", "pending", 0])({"kind": "city_token", "city": "Arkon"}),
        ["turn.pending[0].city"],
    ),
    ("viewer out of range", "view", S(["viewer"])(3), ["viewer"]),
    ("view shows a hidden hand", "view", _other_hand_shown, ["players[0].hand"]),
    ("view with an rng", "view", S(["rng"])("12"), ["rng"]),
    (
        "view with the deck",
        "view",
        lambda j: j["board"].__setitem__("politics_deck", _json("mid3")["board"]["politics_deck"]),
        ["board.politics_deck"],
    ),
    ("view deck order", "view", _unsorted_view_deck, ["board.permit_decks.coast.unknown"]),
    (
        "game over without trigger",
        "over",
        _game_over_without_trigger,
        ["turn.end_trigger", "turn.game_over"],
    ),
    ("game over with pending", "over", _game_over_with_pending, ["turn.pending"]),
]


@pytest.mark.parametrize("base,mutate,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_positions_are_rejected_with_their_field(base, mutate, expected):
    obj = _json(base)
    state_from_json(copy.deepcopy(obj))  # the base is valid
    mutate(obj)
    if expected is None:
        expected = obj.pop("_expect")
    with pytest.raises(StateValidationError) as info:
        state_from_json(obj)
    err = info.value
    assert sorted(f for f, _ in err.violations) == sorted(expected)
    assert all(isinstance(p, str) and p for _, p in err.violations)
    assert (err.field, err.problem) == err.violations[0]
    assert str(err) == "; ".join(f"{f}: {p}" for f, p in err.violations)


def test_table_is_large_and_distinct():
    assert len(CASES) >= 25
    assert len({c[0] for c in CASES}) == len(CASES)


def test_error_message_and_fields():
    obj = _json("mid3")
    obj["players"][1]["coins"] = 99
    obj["board"]["balconies"]["hills"][1] = "gold"
    with pytest.raises(StateValidationError) as info:
        state_from_json(obj)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.violations == [
        ("board.balconies.hills[1]", "unknown colour 'gold'; one of "
         "white, black, orange, pink, purple, cyan"),
        ("players[1].coins", "must be in 0..20, got 99"),
    ]  # fmt: skip
    assert err.field == "board.balconies.hills[1]"
    assert str(err).endswith("; players[1].coins: must be in 0..20, got 99")


def test_root_errors():
    with pytest.raises(StateValidationError) as info:
        loads("{not json")
    assert info.value.field == "(root)"
    with pytest.raises(StateValidationError) as info:
        state_from_json([1, 2])
    assert info.value.violations == [("(root)", "must be an object")]
    with pytest.raises(StateValidationError) as info:
        state_from_json({})
    # Absent fields take their defaults (format "" reads as the current format; viewer
    # absent is a full state): what is left missing is reported.
    assert info.value.violations == [
        ("config", "required field is missing"),
        ("rng", "required in a full state (viewer is absent)"),
        ("board", "required field is missing"),
        ("players", "must have 2 to 4 entries, got 0"),
        ("turn", "required field is missing"),
    ]


# ---------------------------------------------------------------------------------------
# Configuration.


def test_config_from_json():
    cfg = config_from_json(CouncilOfFourConfig(players=3, layout="BBA", max_coins=25).to_dict())
    assert cfg == CouncilOfFourConfig(players=3, layout="BBA", max_coins=25)
    assert config_from_json({"players": 2}, complete=False) == CouncilOfFourConfig(players=2)
    with pytest.raises(StateValidationError) as info:
        config_from_json({"players": 2})
    assert [f for f, _ in info.value.violations] == [
        "config.layout", "config.max_coins", "config.assistant_supply",
        "config.permit_tie_all_score", "config.nobility_bonus_on_pass",
    ]  # fmt: skip
    bad = {
        "players": 1,
        "layout": "AAA",
        "max_coins": 5,
        "assistant_supply": "lots",
        "permit_tie_all_score": 1,
        "nobility_bonus_on_pass": False,
        "seed": 3,
    }
    with pytest.raises(StateValidationError) as info:
        config_from_json(bad, path="new_game.config")
    assert sorted(f for f, _ in info.value.violations) == [
        "new_game.config.assistant_supply",
        "new_game.config.permit_tie_all_score",
        "new_game.config.seed",
    ]
    del bad["seed"]
    bad.update(assistant_supply=0, permit_tie_all_score=True)
    with pytest.raises(StateValidationError) as info:
        config_from_json(bad)
    assert info.value.violations == [
        ("config.players", "must be 2, 3 or 4, got 1"),
        ("config.max_coins", "must be an integer in 13..30000, got 5"),
    ]


# ---------------------------------------------------------------------------------------
# A loaded state plays on.


@pytest.mark.parametrize("name", ["mid3", "two", "pay"])
def test_loaded_state_plays_on_identically(name):
    s = _base(name)
    t = state_from_json(json.loads(dumps(s)))
    assert t.legal_actions() == s.legal_actions()
    assert t.decision() == s.decision()
    a = s.clone()
    n_a = a.random_playout(seed=9)
    n_b = t.random_playout(seed=9)
    assert n_a == n_b and a == t
    assert t.is_terminal() and t.scores() == a.scores() and t.winners() == a.winners()


def test_edited_position_plays_to_the_end():
    obj = _json("mid3")
    cur = obj["turn"]["current"]
    obj["players"][cur]["coins"] = 20
    obj["players"][cur]["assistants"] = 7
    obj["rng"] = "12345"
    s = state_from_json(obj)
    assert state_to_json(s) == obj
    actions = s.legal_actions()
    assert 181 in actions  # engage an assistant: 20 coins, quick action unused
    assert s.random_playout() > 0 and s.is_terminal()
    assert s.winners()


def test_loaded_view_determinizes_and_plays_on():
    v = state_from_json(_json("view"))
    s = v.determinize(3)
    assert s.viewer == -1
    assert state_to_json(s.view(1)) == _json("view")
    s.random_playout(seed=4)
    assert s.is_terminal()


def test_finished_game_loads_as_finished():
    s = state_from_json(_json("over"))
    assert s == _base("over")
    assert s.is_terminal() and s.legal_actions() == [] and s.current_player == -1


def test_more_pending_decisions_than_a_game_can_queue_are_rejected():
    # Nobility spaces 4, 10, 14 and 16 each raise one decision, once per player: a fifth
    # queued decision cannot happen in play (and would overrun the engine's queue).
    obj = _json("mid3")
    obj["turn"]["main_done"] = 1
    obj["turn"]["pending"] = [{"kind": "free_permit"}] * 5
    with pytest.raises(StateValidationError) as info:
        state_from_json(obj)
    assert ("turn.pending", "must have at most 4 entries, got 5") in info.value.violations
