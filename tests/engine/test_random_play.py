"""Random-play tests: many seeded games played to the end with every invariant checked.

Python picks uniformly random legal actions with ``random.Random(seed)``; after every action
the state's invariants hold, the legal-action list behaves, and the state survives a pickle
round trip. At a sample of positions every legal action is applied to a clone, illegal ones
are refused, and every seat's view is checked. The compiled ``random_playout`` must end every
game, the same seed and actions must give the same game, and clones must be independent.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import pickle
import random

import pytest
from invariants import check_invariants, check_raw_invariants
from positions import play_random

from council.engine import IllegalActionError
from council.engine._council_of_four import NUM_ACTIONS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState

MAX_GAME_ACTIONS = 20_000  # random games mostly end in 300-3000 actions; a hang guard
SAMPLE_RATE = 0.08  # share of positions where every legal action is tried on a clone

# (config, seeds): the three player counts on the default layout, then other layouts and the
# rule variants of RULINGS.md.
GAMES = [
    *[(CouncilOfFourConfig(players=2), s) for s in range(16)],
    *[(CouncilOfFourConfig(players=3), s) for s in range(100, 114)],
    *[(CouncilOfFourConfig(players=4), s) for s in range(200, 214)],
    (CouncilOfFourConfig(players=3, layout="AAA"), 300),
    (CouncilOfFourConfig(players=4, layout="BBB"), 301),
    (CouncilOfFourConfig(players=2, layout="BAB"), 302),
    (CouncilOfFourConfig(players=3, nobility_bonus_on_pass=True), 400),
    (CouncilOfFourConfig(players=4, nobility_bonus_on_pass=True, layout="ABB"), 401),
    (CouncilOfFourConfig(players=4, permit_tie_all_score=False), 402),
    (CouncilOfFourConfig(players=3, max_coins=13), 403),
    (CouncilOfFourConfig(players=4, assistant_supply=10), 404),
    (CouncilOfFourConfig(players=2, assistant_supply=12, max_coins=15, layout="AAB"), 405),
]


def _game_id(param) -> str:
    if isinstance(param, CouncilOfFourConfig):
        c = param
        parts = [f"{c.players}p", c.layout]
        if c.nobility_bonus_on_pass:
            parts.append("pass")
        if not c.permit_tie_all_score:
            parts.append("tie1")
        if c.max_coins != 20:
            parts.append(f"coins{c.max_coins}")
        if c.assistant_supply:
            parts.append(f"asst{c.assistant_supply}")
        return "-".join(parts)
    return f"seed{param}"


def play(config: CouncilOfFourConfig, seed: int, each=None) -> tuple[CouncilOfFourState, list[int]]:
    """Play one random game from Python; call each(state, legal, rng) before every action."""
    state = CouncilOfFourState.new_game(config, seed=seed)
    rng = random.Random(seed)
    actions: list[int] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        if each is not None:
            each(state, legal, rng)
        assert legal, f"no legal action in a running game (seed {seed}, after {actions[-20:]})"
        action = rng.choice(legal)
        state.apply(action)
        actions.append(action)
        assert len(actions) < MAX_GAME_ACTIONS, f"game with seed {seed} does not end"
    return state, actions


def check_pickle(state: CouncilOfFourState) -> None:
    back = pickle.loads(pickle.dumps(state))
    assert back == state, "pickle round trip changed the state"
    assert back.to_raw() == state.to_raw()
    assert back is not state


def check_all_actions(state: CouncilOfFourState, legal: list[int], rng: random.Random) -> None:
    """Every legal action applies to a clone; illegal ones are refused; state untouched."""
    before = state.to_raw()
    legal_set = set(legal)
    assert [a for a in range(NUM_ACTIONS) if state.is_legal(a)] == legal, (
        "is_legal disagrees with legal_actions"
    )
    for action in legal:
        child = state.clone()
        child.apply(action)
        assert child.action_count == state.action_count + 1
        check_invariants(child)
        if not child.is_terminal():
            assert child.legal_actions(), f"no legal action after {action}"
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal_set]
    for action in rng.sample(illegal, min(10, len(illegal))) + [-1, NUM_ACTIONS]:
        child = state.clone()
        with pytest.raises(IllegalActionError):
            child.apply(action)
        assert child == state, f"refused action {action} changed the state"
    assert state.to_raw() == before, "trying actions on clones changed the original"
    for p in range(state.n_players):
        check_invariants(state.view(p))


@pytest.mark.parametrize(("config", "seed"), GAMES, ids=_game_id)
def test_random_game_keeps_invariants(config: CouncilOfFourConfig, seed: int) -> None:
    positions = 0

    def each(state: CouncilOfFourState, legal: list[int], rng: random.Random) -> None:
        nonlocal positions
        positions += 1
        check_invariants(state)
        assert legal == sorted(set(legal)), "legal actions must be sorted and distinct"
        assert all(0 <= a < NUM_ACTIONS for a in legal)
        assert state.current_player == state.to_raw()["current"]
        check_pickle(state)
        if rng.random() < SAMPLE_RATE:
            check_all_actions(state, legal, rng)

    state, actions = play(config, seed, each)
    check_invariants(state)
    check_pickle(state)
    assert state.is_terminal()
    assert state.legal_actions() == [], "legal actions after the end of the game"
    assert state.current_player == -1
    assert state.action_count == len(actions) == positions
    with pytest.raises(IllegalActionError):
        state.clone().apply(actions[-1])
    raw = state.to_raw()
    assert raw["end_trigger"] >= 0 and raw["emporia_n"][raw["end_trigger"]] == 10
    winners = state.winners()
    assert winners and all(0 <= p < config.players for p in winners)
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert state.config == config


def _json_round_trip(serialize, state: CouncilOfFourState) -> CouncilOfFourState:
    data = serialize.state_to_json(state)
    if isinstance(data, (bytes, str)):
        json.loads(data)  # must be valid JSON text
        text = data
    else:
        text = json.loads(json.dumps(data))  # a JSON-able object must survive real JSON
    return serialize.state_from_json(text)


def test_json_round_trip_in_random_games() -> None:
    if importlib.util.find_spec("council.engine.serialize") is None:
        pytest.fail(
            "council.engine.serialize is missing: the JSON round trip "
            "(state_to_json / state_from_json) cannot be tested"
        )
    serialize = importlib.import_module("council.engine.serialize")
    for name in ("state_to_json", "state_from_json"):
        assert hasattr(serialize, name), f"council.engine.serialize has no {name}"
    checked = 0

    def each(state: CouncilOfFourState, legal: list[int], rng: random.Random) -> None:
        nonlocal checked
        back = _json_round_trip(serialize, state)
        assert back == state, f"JSON round trip changed the state at action {state.action_count}"
        assert back.legal_actions() == legal
        checked += 1
        if rng.random() < 0.05:
            for p in range(state.n_players):
                view = state.view(p)
                assert _json_round_trip(serialize, view) == view, "JSON round trip of a view"

    for config, seed in [
        (CouncilOfFourConfig(players=2), 11),
        (CouncilOfFourConfig(players=4, layout="BAA"), 12),
    ]:
        state, _ = play(config, seed, each)
        assert _json_round_trip(serialize, state) == state
    assert checked > 300


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_random_playout_ends_every_game(players: int) -> None:
    lengths = []
    for seed in range(40):
        layout = ["ABA", "AAA", "BBB", "BAB"][seed % 4]
        config = CouncilOfFourConfig(
            players=players, layout=layout, nobility_bonus_on_pass=seed % 3 == 0
        )
        state = CouncilOfFourState.new_game(config, seed=seed)
        n = state.random_playout(seed=seed + 1)
        assert state.is_terminal(), f"random_playout left seed {seed} unfinished after {n}"
        assert state.legal_actions() == []
        assert n == state.action_count
        check_invariants(state)
        assert state.winners()
        lengths.append(n)
    assert min(lengths) > 50  # a game needs at least 10 builds per winner and more


def test_random_playout_from_a_mid_game_position() -> None:
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=5)
    rng = random.Random(5)
    for _ in range(120):
        state.apply(rng.choice(state.legal_actions()))
    start = state.action_count
    first = state.clone()
    n = first.random_playout(seed=9)
    assert first.is_terminal() and first.action_count == start + n
    check_invariants(first)
    second = state.clone()
    assert second.random_playout(seed=9) == n
    assert second == first, "random_playout with the same seed from equal states differs"
    third = state.clone()
    third.random_playout(seed=10)
    assert third != first, "a different playout seed gave the very same game"
    assert state.action_count == start, "playouts on clones changed the original"


def test_random_playout_respects_max_actions() -> None:
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=3)
    assert state.random_playout(seed=1, max_actions=25) == 25
    assert not state.is_terminal()
    assert state.action_count == 25
    check_invariants(state)


def test_views_refuse_playing() -> None:
    view = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2).view(1)
    for call in (view.legal_actions, view.random_playout, lambda: view.apply(0)):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize(("config", "seed"), GAMES[::5], ids=_game_id)
def test_same_seed_and_actions_give_the_same_game(config: CouncilOfFourConfig, seed: int) -> None:
    trace = []
    final, actions = play(config, seed, lambda s, legal, rng: trace.append(s.to_raw()))
    replay = CouncilOfFourState.new_game(config, seed=seed)
    assert replay == CouncilOfFourState.new_game(config, seed=seed)
    for i, action in enumerate(actions):
        assert replay.to_raw() == trace[i], f"replay differs before action {i}"
        replay.apply(action)
    assert replay == final
    assert replay.scores() == final.scores() and replay.winners() == final.winners()


def test_different_seeds_give_different_games() -> None:
    config = CouncilOfFourConfig(players=4)
    starts = [CouncilOfFourState.new_game(config, seed=s).to_raw() for s in range(20)]
    assert len({repr(r) for r in starts}) == 20
    # the seed is taken modulo 2**64
    assert CouncilOfFourState.new_game(config, seed=7) == CouncilOfFourState.new_game(
        config, seed=7 + 2**64
    )


def test_clones_are_independent() -> None:
    config = CouncilOfFourConfig(players=3)
    state = CouncilOfFourState.new_game(config, seed=21)
    rng = random.Random(21)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    snapshot = state.to_raw()
    for make in (CouncilOfFourState.clone, copy.copy, copy.deepcopy):
        twin = make(state)
        assert twin == state and twin is not state
        twin.apply(twin.legal_actions()[-1])
        twin.reseed(99)
        twin.random_playout()
        assert state.to_raw() == snapshot, (
            f"{make.__name__}: changing the copy changed the original"
        )
    twin = state.clone()
    twin_snapshot = twin.to_raw()
    state.apply(state.legal_actions()[0])
    state.random_playout(seed=4)
    assert twin.to_raw() == twin_snapshot, "changing the original changed the copy"
    child = twin.child(twin.legal_actions()[0])
    assert twin.to_raw() == twin_snapshot, "child() changed its parent"
    assert child.action_count == twin.action_count + 1
    view = twin.view(0)
    assert twin.to_raw() == twin_snapshot, "view() changed the state"
    view.determinize(1)
    assert view.is_view, "determinize() changed the view in place"


# -- the checker itself must catch broken states ----------------------------------------


def _mid_game(players: int = 4, seed: int = 8, steps: int = 400) -> CouncilOfFourState:
    return play_random(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed), seed, steps
    )


def _corruptions(raw: dict):
    """(description, mutate) pairs that each break exactly one kind of invariant."""

    def moved_card(r):
        r["hand"][0][0] += 1

    def hand_n_off(r):
        r["hand_n"][1] += 1

    def deck_n_off(r):
        r["politics_deck_n"] -= 1

    def extra_councillor(r):
        r["pool"][0] += 1

    def councillor_colour(r):
        r["balcony"][0][0] = 6

    def duplicate_tile(r):
        r["face_up"][0][0] = r["face_up"][0][1]

    def tile_wrong_region(r):
        r["face_up"][1][0], r["face_up"][2][0] = r["face_up"][2][0], r["face_up"][1][0]

    def tile_lost(r):
        r["face_up"][2][1] = -1

    def tile_twice_with_player(r):
        r["permits_up"][0] |= 1 << r["face_up"][0][0]

    def deck_known_too_big(r):
        r["deck_known"][0] = r["deck_n"][0] + 1

    def negative_coins(r):
        r["coins"][2] = -1

    def too_many_coins(r):
        r["coins"][2] = r["max_coins"] + 1

    def negative_assistants(r):
        r["assistants"][3] = -2

    def nobility_too_far(r):
        r["nobility"][0] = 21

    def emporia_n_off(r):
        r["emporia_n"][0] += 1

    def eleven_emporia(r):
        r["emporia"][1] = (1 << 11) - 1
        r["emporia_n"][1] = 11

    def bonus_tile_twice(r):
        r["bonus_tiles"][0] |= 1
        r["bonus_tiles"][1] |= 1

    def king_tile_without_bonus(r):
        r["king_tiles"][0] |= 1 << r["king_tiles_taken"]

    def bad_current(r):
        r["current"] = r["n_players"]

    def bad_pending(r):
        r["pending_n"] = 17

    def bad_pending_kind(r):
        r["pending_n"] = 1
        r["pending_kind"][0] = 9

    def stale_pending(r):
        r["pending_kind"][r["pending_n"]] = 1

    def token_twice(r):
        a, b = [c for c, t in enumerate(r["city_token"]) if t >= 0][:2]
        r["city_token"][a] = r["city_token"][b]

    def absent_seat(r):
        r["n_players"] = 3

    def bytes_field(r):
        r["nobility"] = bytes(r["nobility"])

    return [
        (f.__name__, f)
        for f in (
            moved_card,
            hand_n_off,
            deck_n_off,
            extra_councillor,
            councillor_colour,
            duplicate_tile,
            tile_wrong_region,
            tile_lost,
            tile_twice_with_player,
            deck_known_too_big,
            negative_coins,
            too_many_coins,
            negative_assistants,
            nobility_too_far,
            emporia_n_off,
            eleven_emporia,
            bonus_tile_twice,
            king_tile_without_bonus,
            bad_current,
            bad_pending,
            bad_pending_kind,
            stale_pending,
            token_twice,
            absent_seat,
            bytes_field,
        )
    ]


def test_invariant_checker_catches_corruption() -> None:
    state = _mid_game()
    raw = state.to_raw()
    check_raw_invariants(raw)
    for name, mutate in _corruptions(raw):
        broken = copy.deepcopy(raw)
        mutate(broken)
        assert broken != raw, name
        with pytest.raises(AssertionError):
            check_raw_invariants(broken)
    # a view with a leaked hand is caught too
    view = state.view(0).to_raw()
    check_raw_invariants(view)
    view["hand"][1][0] = 1
    with pytest.raises(AssertionError, match="shows the hand"):
        check_raw_invariants(view)
