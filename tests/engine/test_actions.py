"""Action ids <-> structured values <-> text (council.engine.council_of_four_actions)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from council.engine import council_of_four_board as board
from council.engine._council_of_four import ACTION_KINDS, ACTION_OFFSETS, NUM_ACTIONS, PAYMENTS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import (
    Action,
    ActionKind,
    describe,
    legal_action_texts,
)

ALL = [Action.from_id(i) for i in range(NUM_ACTIONS)]


def test_num_actions_and_ranges():
    assert NUM_ACTIONS == 605
    expected = {
        ActionKind.END_TURN: (0, 1),
        ActionKind.ELECT: (1, 24),
        ActionKind.ACQUIRE: (25, 6),
        ActionKind.BUILD_PERMIT: (31, 135),
        ActionKind.BUILD_KING: (166, 15),
        ActionKind.ENGAGE: (181, 1),
        ActionKind.CHANGE: (182, 3),
        ActionKind.QUICK_ELECT: (185, 24),
        ActionKind.EXTRA_MAIN: (209, 1),
        ActionKind.PAY: (210, 329),
        ActionKind.CHOOSE_TOKEN: (539, 15),
        ActionKind.CHOOSE_FREE_PERMIT: (554, 6),
        ActionKind.CHOOSE_PERMIT_BONUS: (560, 45),
    }
    assert {k: (k.offset, k.size) for k in ActionKind} == expected
    assert {k.value for k in ActionKind} == set(ACTION_OFFSETS)
    assert sum(k.size for k in ActionKind) == NUM_ACTIONS
    for k in ActionKind:
        assert len(k.doc) > 20 and k.doc.endswith(".")


def test_the_core_action_table_fits_the_board():
    # The core's ACTION_KINDS, in id order with no gap, each range as large as the board
    # facts make it (what council_of_four_actions.py checked at import before it read the table).
    n_colours, n_regions = len(board.COUNCILLOR_COLOURS), len(board.REGIONS)
    n_tiles, n_cities = len(board.PERMIT_TILES), board.N_CITIES
    sizes = {
        "end_turn": 1,
        "elect": 4 * n_colours,
        "acquire": 2 * n_regions,
        "build_permit": 3 * n_tiles,
        "build_king": n_cities,
        "engage": 1,
        "change": n_regions,
        "quick_elect": 4 * n_colours,
        "extra_main": 1,
        "pay": len(PAYMENTS),
        "choose_token": n_cities,
        "choose_free_permit": 2 * n_regions,
        "choose_permit_bonus": n_tiles,
    }
    assert [k.name for k in ACTION_KINDS] == list(sizes)
    assert {k.name: k.size for k in ACTION_KINDS} == sizes
    first = 0
    for k in ACTION_KINDS:
        assert k.first == first == ACTION_OFFSETS[k.name] == ActionKind(k.name).offset
        first += k.size
    assert first == NUM_ACTIONS


def test_every_id_round_trips():
    for i, a in enumerate(ALL):
        assert a.id == i
        assert int(a) == i
        assert a.kind.offset <= i < a.kind.offset + a.kind.size
        text = a.to_text()
        assert str(a) == text
        assert Action.from_text(text) == a, text
        assert Action.from_text(text.upper()) == a, text
        assert eval(repr(a), {"Action": Action, "ActionKind": ActionKind}) == a


def test_texts_are_distinct_and_ids_equal_values():
    texts = [a.to_text() for a in ALL]
    assert len(set(texts)) == NUM_ACTIONS
    assert len(set(ALL)) == NUM_ACTIONS  # frozen, hashable, distinct


def test_structured_fields():
    a = Action.from_id(204)
    assert (a.kind, a.balcony, a.colour) == (ActionKind.QUICK_ELECT, 3, 1)
    assert a.region is None and a.city is None and a.payment is None
    b = Action.from_id(101)
    assert (b.kind, b.tile, b.position, b.city) == (ActionKind.BUILD_PERMIT, 23, 1, 8)
    dead = Action.from_id(102)  # tile 23 shows two cities (H/I): position 2 is empty
    assert (dead.tile, dead.position, dead.city) == (23, 2, None)
    assert dead.to_text() == "build #2 with permit 23"
    pay = Action.from_id(538)
    assert pay.cards == (0, 0, 0, 0, 0, 0, 4)
    assert Action.from_id(210).cards == (1, 0, 0, 0, 0, 0, 0)
    assert all(Action.from_id(210 + i).cards == PAYMENTS[i] for i in range(len(PAYMENTS)))
    assert Action.pay((1, 0, 0, 0, 0, 0, 2)).id == 272


@pytest.mark.parametrize(
    "text, action_id",
    [
        ("end", 0),
        ("elect white coast", 1),
        ("elect cyan king", 24),
        ("acquire hills 1", 28),
        ("build Indur with permit 23", 101),
        ("build Hellar with permit 23", 100),
        ("king Graden", 172),
        ("engage", 181),
        ("change mountains", 184),
        ("quick-elect black king", 204),
        ("extra-main", 209),
        ("pay white", 210),
        ("pay joker", 216),
        ("pay white+white", 217),
        ("pay white+joker+joker", 272),
        ("pay joker+joker+joker+joker", 538),
        ("token Castrum", 539 + 2),
        ("free-permit coast 0", 554),
        ("free-permit mountains 1", 559),
        ("permit-bonus 23", 583),
    ],
)
def test_canonical_texts(text, action_id):
    assert Action.from_text(text).id == action_id
    assert Action.from_id(action_id).to_text() == text


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("quick-elect black queen", "quick-elect black king"),
        ("quick elect BLACK Queen", "quick-elect black king"),
        ("quick_elect black king", "quick-elect black king"),
        ("elect king black", "elect black king"),
        ("elect queen white", "elect white king"),
        ("queen Graden", "king Graden"),
        ("queen g", "king Graden"),
        ("build-queen graden", "king Graden"),
        ("build-king G", "king Graden"),
        ("engage-servant", "engage"),
        ("engage servant", "engage"),
        ("engage-assistant", "engage"),
        ("ENGAGE", "engage"),
        ("end turn", "end"),
        ("end-turn", "end"),
        ("extra main action", "extra-main"),
        ("extra_main", "extra-main"),
        ("build i with permit 23", "build Indur with permit 23"),
        ("build indur 23", "build Indur with permit 23"),
        ("build-permit I permit 23", "build Indur with permit 23"),
        ("build #1 with permit 23", "build Indur with permit 23"),
        ("  token   c ", "token Castrum"),
        ("city-token castrum", "token Castrum"),
        ("choose_token Castrum", "token Castrum"),
        ("pay joker + white+joker", "pay white+joker+joker"),
        ("Pay Cyan+White", "pay white+cyan"),
        ("free permit Coast 0", "free-permit coast 0"),
        ("choose-free-permit coast 0", "free-permit coast 0"),
        ("permit bonus 23", "permit-bonus 23"),
        ("change-permits Hills", "change hills"),
        ("acquire HILLS 1", "acquire hills 1"),
    ],
)
def test_aliases(text, canonical):
    assert Action.from_text(text).to_text() == canonical


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty action text"),
        ("   ", "empty action text"),
        ("fly coast", "unknown action 'fly'"),
        ("elect white ocean", "unknown balcony 'ocean'"),
        ("elect grey coast", "unknown councillor colour 'grey'"),
        ("elect white", "expected 'elect <colour> <balcony>'"),
        ("elect white coast hills", "got 3 argument(s)"),
        ("acquire coast 2", "slot must be a number in 0..1, got '2'"),
        ("acquire sea 0", "unknown region 'sea'"),
        ("acquire coast -1", "slot must be a number in 0..1"),
        ("build Arkon with permit 23", "Arkon is not on permit tile 23 (Hellar/Indur)"),
        ("build Indur with permit 45", "permit tile must be a number in 0..44, got '45'"),
        ("build #3 with permit 23", "position must be a number in 0..2"),
        ("build Indur", "expected 'build <city> with permit <tile>'"),
        ("king Atlantis", "unknown city 'atlantis'"),
        ("king", "got 0 argument(s)"),
        ("end now", "got 1 argument(s)"),
        ("engage 2", "got 1 argument(s)"),
        ("change", "expected 'change <region>'"),
        ("pay", "expected cards joined by '+'"),
        ("pay white++joker", "expected cards joined by '+'"),
        ("pay gold", "unknown politics card 'gold'"),
        ("pay joker+joker+joker+joker+joker", "at most 4 cards"),
        ("token 3", "unknown city '3'"),
        ("permit-bonus x", "permit tile must be a number in 0..44, got 'x'"),
        ("permit-bonus 1.5", "permit tile must be a number"),
    ],
)
def test_bad_text(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Action.from_text(text)


def test_bad_text_type():
    with pytest.raises(ValueError, match="must be a string"):
        Action.from_text(12)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10_000])
def test_bad_ids(bad):
    with pytest.raises(ValueError, match=rf"action id {bad} out of range 0\.\.604"):
        Action.from_id(bad)


@pytest.mark.parametrize("bad", ["3", 1.5, None, True])
def test_bad_id_types(bad):
    with pytest.raises(ValueError, match="action id must be an integer"):
        Action.from_id(bad)


def test_numpy_integer_ids():
    import numpy as np

    assert Action.from_id(np.int64(204)).to_text() == "quick-elect black king"


def test_constructor_validates():
    assert Action(ActionKind.ELECT, balcony=3, colour=1).id == 20
    assert Action(ActionKind.BUILD_PERMIT, tile=23, city=8).position == 1
    with pytest.raises(ValueError, match=r"elect: balcony must be an integer in 0\.\.3, got 4"):
        Action(ActionKind.ELECT, balcony=4, colour=0)
    with pytest.raises(ValueError, match="colour must be an integer"):
        Action(ActionKind.ELECT, balcony=0)
    with pytest.raises(ValueError, match="end_turn: field city does not apply"):
        Action(ActionKind.END_TURN, city=1)
    with pytest.raises(ValueError, match="city 0 is not on permit tile 23"):
        Action(ActionKind.BUILD_PERMIT, tile=23, city=0)
    with pytest.raises(ValueError, match="city 7 is not city 1 of permit tile 23"):
        Action(ActionKind.BUILD_PERMIT, tile=23, position=1, city=7)
    with pytest.raises(ValueError, match="kind must be an ActionKind"):
        Action("elect", balcony=0, colour=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not a payment"):
        Action.pay((0, 0, 0, 0, 0, 0, 5))
    with pytest.raises(ValueError, match="is not a payment"):
        Action.pay((0, 0, 0, 0, 0, 0, 0))


def _random_states(players, seed, steps):
    """States met along random play (legal actions chosen by a Python RNG)."""
    rng = random.Random(seed)
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    out = [s.clone()]
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
        out.append(s.clone())
    return out


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13)])
def test_legal_actions_of_real_states_render_and_parse(players, seed):
    kinds_seen = set()
    for s in _random_states(players, seed, 400):
        ids = s.legal_actions()
        texts = legal_action_texts(s)
        assert len(texts) == len(ids)
        for a, text in zip(ids, texts, strict=True):
            assert Action.from_text(text).id == a
            kinds_seen.add(Action.from_id(a).kind)
            assert describe(s, a)
        if s.decision()[0] in ("pay_permit", "pay_king"):
            assert all(t.startswith("pay ") for t in texts)
        # Only ids whose build position exists on the tile are ever legal.
        for a in ids:
            act = Action.from_id(a)
            if act.kind is ActionKind.BUILD_PERMIT:
                assert act.city is not None
    assert {ActionKind.END_TURN, ActionKind.ELECT, ActionKind.PAY} <= kinds_seen


def test_new_game_legal_texts():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=1)
    texts = legal_action_texts(s)
    assert "engage" in texts
    assert "end" not in texts  # the first main action is owed
    assert all(not t.startswith("pay") for t in texts)
    raw = s.to_raw()
    pool = [c for c in range(6) if raw["pool"][c] > 0]
    for b, balcony in enumerate(("coast", "hills", "mountains", "king")):
        for c in range(6):
            text = f"elect {board.COUNCILLOR_COLOURS[c]} {balcony}"
            assert (text in texts) == (c in pool), text
            assert s.is_legal(Action.from_text(text).id) == (c in pool)
            assert Action.from_text(text).id == 1 + 6 * b + c


def test_describe():
    s = CouncilOfFourState.new_game(
        CouncilOfFourConfig(players=3), seed=1
    )  # layout ABA: the king is in Juvelar
    raw = s.to_raw()
    assert describe(s, 181) == "quick action: pay 3 coins, gain 1 assistant"
    assert describe(s, 272) == "pay white+joker+joker: 3 card(s), 6 coin(s)"
    assert describe(s, 538) == "pay joker+joker+joker+joker: 4 card(s), 4 coin(s)"
    assert describe(s, 210) == "pay white: 1 card(s), 10 coin(s)"
    graden_token = board.CITY_TOKENS[raw["city_token"][6]]
    text = describe(s, 172)
    assert text.startswith(
        "main action: move the king from Juvelar to Graden (1 road(s), 2 coins) and build"
    )
    assert "costs 0 assistant(s)" in text
    for key, value in graden_token.items():
        assert f"{key} +{value}" in text
    tile = raw["face_up"][1][1]
    assert describe(s, 28).startswith(f"main action: acquire permit {tile} (")
    assert describe(s, 28).endswith("from hills slot 1; pay the hills council")
    assert "never legal" in describe(s, 102)
    out = board.COUNCILLOR_COLOURS[raw["balcony"][3][3]]
    assert describe(s, 24) == (
        f"main action: elect a cyan councillor into the king council ({out} leaves); +4 coins"
    )


def test_docs_table_matches_the_code():
    doc = Path(__file__).resolve().parents[2] / "docs" / "actions.md"
    text = doc.read_text()
    for k in ActionKind:
        first, last = k.offset, k.offset + k.size - 1
        rng = f"{first}" if first == last else f"{first}–{last}"
        assert f"| {rng} | `{k.name}` |" in text, k
    # Every "`text` = id" example in the document is right.
    examples = re.findall(r"`([a-z][^`]*)` = (\d+)", text)
    assert len(examples) >= 15
    for t, i in examples:
        assert Action.from_text(t).id == int(i), t
