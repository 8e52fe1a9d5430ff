"""The board as SVG (council.engine.council_of_four_svg): what the picture shows is what the state
holds.

Each test reads the SVG back as XML and checks its pieces by their ids and classes (the
ones a web page attaches clicks to): cities, roads, emporiums, the king, the balconies,
face-up and owned permit tiles, bonus and king tiles, hands (hidden in a view).
"""

from __future__ import annotations

import random
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from positions import find_position, play_random, set_bits

from council.engine import council_of_four_board as B
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_svg import PLAYER_SHAPES, render_svg, svg_to_png

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "board-example.svg"
NS = "{http://www.w3.org/2000/svg}"
BALCONIES = ("coast", "hills", "mountains", "king")


def _parse(state: CouncilOfFourState) -> ET.Element:
    return ET.fromstring(render_svg(state))


def _by_id(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("id"): e for e in root.iter() if e.get("id")}


def _classes(e: ET.Element) -> set[str]:
    return set((e.get("class") or "").split())


def _with_class(root: ET.Element, *names: str) -> list[ET.Element]:
    return [e for e in root.iter() if set(names) <= _classes(e)]


def _texts(e: ET.Element) -> list[str]:
    return [t.text or "" for t in e.iter(NS + "text")]


def _mid_game(
    players: int, layout: str = "ABA", seed: int = 3, steps: int = 400
) -> CouncilOfFourState:
    state = CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=players, layout=layout), seed=seed
    )
    return play_random(state, seed, steps)


def _check_matches_state(state: CouncilOfFourState) -> None:
    """Every check of the picture against `state` at once."""
    raw = state.to_raw()
    root = _parse(state)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    by_id = _by_id(root)
    layout = B.Layout.from_index(raw["layout"])

    # 15 cities with their names, colours and tokens.
    cities = [e for e in root.iter(NS + "g") if (e.get("id") or "").startswith("city-")]
    assert [e.get("id") for e in cities] == [f"city-{n}" for n in B.CITY_NAMES]
    for c, e in enumerate(cities):
        assert B.CITY_NAMES[c] in _texts(e)
        colour = layout.city_colours[c]
        assert e.get("data-colour") == ("king" if colour < 0 else B.CITY_COLOURS[colour])
        token = raw["city_token"][c]
        assert e.get("data-token") == (None if token < 0 else str(token))
    # The roads of the layout, and the king in his city.
    roads = {
        tuple(sorted((e.get("data-from"), e.get("data-to")))) for e in _with_class(root, "road")
    }
    assert roads == {(B.CITY_LETTERS[a], B.CITY_LETTERS[b]) for a, b in layout.roads}
    king_city = by_id[f"city-{B.CITY_NAMES[raw['king_city']]}"]
    assert [e.get("id") for e in king_city.iter() if e.get("id") == "king"] == ["king"]

    # Emporiums: one mark per emporium, in its city; neutral ones in 2-player games.
    for p in range(raw["n_players"]):
        marks = _with_class(root, "emporium", f"seat-{p}")
        assert len(marks) == raw["emporia_n"][p] == len(set_bits(raw["emporia"][p], 15))
        for c in set_bits(raw["emporia"][p], 15):
            assert _with_class(by_id[f"city-{B.CITY_NAMES[c]}"], "emporium", f"seat-{p}")
    neutral = set_bits(raw["neutral"], 15)
    assert len(_with_class(root, "emporium", "neutral")) == len(neutral)
    assert (len(neutral) > 0) == (raw["n_players"] == 2)
    for c in neutral:
        assert _with_class(by_id[f"city-{B.CITY_NAMES[c]}"], "emporium", "neutral")

    # The four councils, newest first.
    for b, name in enumerate(BALCONIES):
        members = _with_class(by_id[f"balcony-{name}"], "councillor")
        assert [m.get("data-index") for m in members] == ["0", "1", "2", "3"]
        assert [m.get("data-colour") for m in members] == [
            B.COUNCILLOR_COLOURS[c] for c in raw["balcony"][b]
        ]
    pool = {
        e.get("data-colour"): int(e.get("data-count")) for e in _with_class(root, "pool-colour")
    }
    assert pool == dict(zip(B.COUNCILLOR_COLOURS, raw["pool"][:6], strict=True))

    # Face-up permit tiles, decks, bonus and king tiles still on the board.
    for r, region in enumerate(B.REGIONS):
        for slot in range(2):
            e = by_id[f"tile-{region}-{slot}"]
            tile = raw["face_up"][r][slot]
            if tile < 0:
                assert "empty" in _classes(e) and e.get("data-tile") is None
            else:
                assert e.get("data-tile") == str(tile)
                letters = [B.CITY_LETTERS[c] for c in B.PERMIT_TILES[tile].cities]
                assert e.get("data-cities") == " ".join(letters)
                assert set(letters) <= set(_texts(e))
        assert by_id[f"deck-{region}"].get("data-size") == str(raw["deck_n"][r])
    for i, name in enumerate(B.BONUS_TILE_NAMES):
        assert (f"bonus-{name}" in by_id) == bool(raw["bonus_tiles_left"] >> i & 1)
    for i in range(5):
        assert (f"king-tile-{i}" in by_id) == (i >= raw["king_tiles_taken"])

    # Each seat's panel: figures, permits (face up / used), tiles won, hand.
    scores = state.scores()
    for p in range(raw["n_players"]):
        panel = by_id[f"player-{p}"]
        assert panel.get("data-shape") == PLAYER_SHAPES[p]
        stats = {
            (_classes(e) - {"stat"}).pop(): e.get("data-value") for e in _with_class(panel, "stat")
        }
        assert stats == {
            "vp": str(scores[p]),
            "coins": str(raw["coins"][p]),
            "assistants": str(raw["assistants"][p]),
            "nobility": str(raw["nobility"][p]),
            "emporiums": str(raw["emporia_n"][p]),
        }
        owned = {
            int(e.get("data-tile")): "used" in _classes(e) for e in _with_class(panel, "permit")
        }
        assert owned == {t: False for t in set_bits(raw["permits_up"][p], 45)} | {
            t: True for t in set_bits(raw["permits_down"][p], 45)
        }
        won = by_id[f"tiles-won-{p}"]
        assert int(won.get("data-count")) == len(set_bits(raw["bonus_tiles"][p], 7)) + len(
            set_bits(raw["king_tiles"][p], 5)
        )
        hand = by_id[f"hand-{p}"]
        assert hand.get("data-size") == str(raw["hand_n"][p])
        cards = {e.get("data-kind"): int(e.get("data-count")) for e in _with_class(hand, "card")}
        if raw["viewer"] >= 0 and p != raw["viewer"]:
            assert "hidden" in _classes(hand) and cards == {}
        else:
            assert "hidden" not in _classes(hand)
            assert cards == {k: n for k, n in zip(B.CARD_KINDS, raw["hand"][p], strict=True) if n}
    for seat in range(raw["n_players"], 4):
        assert f"player-{seat}" not in by_id


@pytest.mark.parametrize("players", [2, 3, 4])
def test_opening_matches_the_state(players):
    _check_matches_state(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=players)
    )


@pytest.mark.parametrize("code", B.LAYOUT_CODES)
def test_every_layout_renders(code):
    state = _mid_game(3, code, seed=B.LAYOUT_CODES.index(code), steps=150)
    _check_matches_state(state)
    root = _parse(state)
    assert root.get("data-layout") == code
    for r, region in enumerate(B.REGIONS):
        assert _by_id(root)[f"region-{region}"].get("data-side") == code[r]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_positions_through_a_game(players):
    # Emporiums, permits, taken tiles, pending decisions, empty slots: a seeded random game
    # checked every 60 actions, to its end.
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=10 + players)
    rng = random.Random(players)
    step = 0
    while not state.is_terminal():
        if step % 60 == 0:
            _check_matches_state(state)
            _check_matches_state(state.view(step % players))
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    _check_matches_state(state)
    raw = state.to_raw()
    assert max(raw["emporia_n"]) == 10
    header = " ".join(_texts(_by_id(_parse(state))["status"]))
    assert header.startswith("Game over") and f"seat {state.winners()[0]}" in header


def test_an_empty_face_up_slot():
    state = find_position(
        CouncilOfFourConfig(players=2), 4, lambda s: -1 in sum(s.to_raw()["face_up"], [])
    )
    _check_matches_state(state)


def test_a_view_hides_the_other_hands():
    full = _mid_game(4, steps=200)
    for seat in range(4):
        view = full.view(seat)
        _check_matches_state(view)
        root = _parse(view)
        assert root.get("data-viewer") == str(seat)
        hands = {p: _by_id(root)[f"hand-{p}"] for p in range(4)}
        assert all(("hidden" in _classes(h)) == (p != seat) for p, h in hands.items())
        # The same view drawn from another full state with other hidden hands: same picture.
        other = view.determinize(seed=9)
        assert other.to_raw()["hand"] != full.to_raw()["hand"]
        assert render_svg(other.view(seat)) == render_svg(view)
    root = _parse(full)
    assert root.get("data-viewer") == "-1"
    assert not _with_class(root, "hand", "hidden")


def test_docs_example_is_current():
    # docs/board-example.svg: `council-ai new-game --seed 7 --view 0 | council-ai render -
    # -o docs/board-example.svg` (the default opening, 4 players, seat 0's view).
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(), seed=7).view(0)
    assert EXAMPLE.read_text() == render_svg(state), "regenerate docs/board-example.svg"


def test_png():
    png = svg_to_png(
        render_svg(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)), scale=0.5
    )
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert width == 680 and 500 < height < 600
