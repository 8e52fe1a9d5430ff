"""The readable board summary (council.engine.render_council_of_four,
CouncilOfFourState.__str__)."""

from __future__ import annotations

import random

import pytest
from positions import play_random

from council.engine import council_of_four_board as board
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.render_council_of_four import render_state

COLOURS = board.COUNCILLOR_COLOURS


def _hand_text(counts):
    parts = []
    for k, n in enumerate(counts):
        if n:
            parts.append(board.CARD_KINDS[k] + (f" x{n}" if n > 1 else ""))
    return ", ".join(parts) or "-"


def _tile_text(t):
    tile = board.PERMIT_TILES[t]
    cities = "/".join(board.CITY_LETTERS[c] for c in tile.cities)
    return f"{t} {cities} " + " ".join(f"{k}+{v}" for k, v in tile.bonus.items())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_new_game(players):
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=5)
    raw = s.to_raw()
    text = render_state(s)
    assert str(s) == text
    lines = text.splitlines()
    assert lines[0] == f"Council of Four: {players} players, layout ABA, turn 1, 0 actions played"
    assert lines[1] == "To act: seat 0 (turn: main action owed)"
    # Starting coins 10, 11, 12, 13 and assistants 1, 2, 3, 4 by seat (rulebook).
    for p in range(players):
        mark = "*" if p == 0 else " "
        assert f" {mark}seat {p}: coins {10 + p}, assistants {1 + p}, VP 0, nobility 0\n" in text
        assert f"seat {p}: coins {raw['coins'][p]}, assistants {raw['assistants'][p]}," in text
        n = 7 if p == 0 else 6  # the first player has drawn for the first turn
        assert raw["hand_n"][p] == n
        assert f"      hand: {_hand_text(raw['hand'][p])} ({n} cards)\n" in text
    assert f"seat {players}:" not in text
    assert text.count("emporiums (0/10): -") == players
    for b, name in enumerate(("coast", "hills", "mountains", "king")):
        members = " ".join(COLOURS[c] for c in raw["balcony"][b])
        assert f"\n  {name + ':':10} {members}\n" in text
    pool = ", ".join(f"{COLOURS[c]} {raw['pool'][c]}" for c in range(6) if raw["pool"][c])
    assert f"\nPool: {pool}\n" in text
    assert sum(raw["pool"][:6]) == 8
    assert "\nKing: Juvelar (J)\n" in text
    for r, region in enumerate(board.REGIONS):
        up = "; ".join(_tile_text(t) for t in raw["face_up"][r])
        assert f"\n  {region + ':':10} {up} | deck 13\n" in text
    assert (
        "Bonus tiles left: coast 5, hills 5, mountains 5, gold 20, silver 12, bronze 8, iron 5"
        in (text)
    )
    assert "King tiles taken: 0 (left: 25 18 12 7 3)" in text
    deck_n = 90 - 6 * players - 1
    assert f"\nPolitics deck: {deck_n} cards (" in text
    assert text.endswith("; discard: -")
    # 14 tokens, none on the king's city.
    tokens = next(line for line in lines if line.startswith("Tokens: "))
    entries = tokens[len("Tokens: ") :].split(", ")
    assert len(entries) == 14
    assert not any(e.startswith("J ") for e in entries)
    for c in range(board.N_CITIES):
        t = raw["city_token"][c]
        if t >= 0:
            bonus = " ".join(f"{k}+{v}" for k, v in board.CITY_TOKENS[t].items())
            assert f"{board.CITY_LETTERS[c]} {bonus}" in tokens
    if players == 2:
        cities = [c for c in range(board.N_CITIES) if (raw["neutral"] >> c) & 1]
        assert cities
        assert "\nNeutral emporiums: " + " ".join(board.CITY_LETTERS[c] for c in cities) in text
    else:
        assert "Neutral" not in text


def test_view_hides_other_hands():
    s = play_random(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=8), seed=8, steps=40
    )
    raw = s.to_raw()
    v = s.view(1)
    text = render_state(v)
    assert "\nView of seat 1 (other hands hidden)\n" in text
    for p in (0, 2):
        assert f"      hand: ? ({raw['hand_n'][p]} cards)\n" in text
    assert f"      hand: {_hand_text(raw['hand'][1])} ({raw['hand_n'][1]} cards)\n" in text
    assert text.count("hand: ?") == 2
    # The politics deck contents are hidden too; only its size is shown.
    assert f"\nPolitics deck: {raw['politics_deck_n']} cards; discard: " in text
    # Everything public reads the same as in the full state.
    full = render_state(s).splitlines()
    shown = text.splitlines()
    assert shown[0] == full[0]
    for p in range(3):
        line = next(x for x in full if f"seat {p}: coins" in x)
        assert line in shown


def test_after_actions_players_and_pending_decision():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=21)
    rng = random.Random(21)
    seen_pay = False
    for _ in range(300):
        kind, arg = s.decision()
        raw = s.to_raw()
        text = render_state(s)
        if kind == "pay_permit":
            seen_pay = True
            region, slot = divmod(arg, 2)
            tile = raw["face_up"][region][slot]
            assert (
                f"To act: seat {raw['current']} (pay_permit: the {board.REGIONS[region]} "
                f"council for permit {tile}, slot {slot})"
            ) in text
        elif kind == "pay_king":
            assert f"(pay_king: the king's council, king to {board.CITY_NAMES[arg]})" in text
        elif kind == "turn":
            assert f"To act: seat {raw['current']} (turn: " in text
        else:
            assert f"To act: seat {raw['current']} ({kind}" in text
        assert f"*seat {raw['current']}: coins {raw['coins'][raw['current']]}," in text
        scores = s.scores()
        for p in range(4):
            emporia = [board.CITY_LETTERS[c] for c in range(15) if (raw["emporia"][p] >> c) & 1]
            assert len(emporia) == raw["emporia_n"][p]
            assert f"emporiums ({len(emporia)}/10): {' '.join(emporia) or '-'}\n" in text
            assert f"seat {p}: coins {raw['coins'][p]}, assistants {raw['assistants'][p]}, " in text
            assert f", VP {scores[p]}" in text
            assert f"nobility {raw['nobility'][p]}\n" in text
            up = [_tile_text(t) for t in range(45) if (raw["permits_up"][p] >> t) & 1]
            assert f"permits up: {'; '.join(up) or '-'}\n" in text
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    assert seen_pay


def test_known_tiles_under_the_deck():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2)
    raw = s.to_raw()
    first = list(raw["face_up"][2])
    s.apply(184)  # change mountains (quick action, 1 assistant)
    raw = s.to_raw()
    assert raw["deck_known"][2] == 2
    text = render_state(s)
    assert f"| deck 13, known at the bottom: {first[0]} {first[1]}\n" in text
    assert "(turn: main action owed)" in text


def test_finished_game():
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    s.random_playout(seed=4)
    assert s.is_terminal()
    raw = s.to_raw()
    text = render_state(s)
    scores = s.scores()
    winners = s.winners()
    assert "To act" not in text
    assert "*seat" not in text
    assert (
        f"\nGame over. Final VP: {' '.join(map(str, scores))}; "
        f"winner(s): seat {', '.join(map(str, winners))}\n"
    ) in text
    assert f"\nFinal round: seat {raw['end_trigger']} built a 10th emporium\n" in text
    assert raw["emporia_n"][raw["end_trigger"]] == 10
    assert "emporiums (10/10): " in text
    for p in range(3):
        assert (
            f"  seat {p}: coins {raw['coins'][p]}, assistants {raw['assistants'][p]}, "
            f"VP {raw['vp'][p]}, nobility {raw['nobility'][p]}\n"
        ) in text
        held = [board.KING_REWARD_TILES[i] for i in range(5) if (raw["king_tiles"][p] >> i) & 1]
        if held:
            assert f"king tiles: {' '.join(map(str, held))}\n" in text
    taken = raw["king_tiles_taken"]
    left = " ".join(map(str, board.KING_REWARD_TILES[taken:])) or "-"
    assert f"King tiles taken: {taken} (left: {left})" in text
    assert (
        f"King: {board.CITY_NAMES[raw['king_city']]} ({board.CITY_LETTERS[raw['king_city']]})"
        in (text)
    )
    # A view of a finished game renders too.
    assert "Game over." in render_state(s.view(0))


def test_provisional_vp_shows_track_and_tiles():
    # Play until someone holds a bonus tile before the end; scores() adds its VP.
    for seed in range(40):
        s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            raw = s.to_raw()
            p = next((q for q in range(2) if raw["bonus_tiles"][q]), None)
            if p is not None:
                text = render_state(s)
                score = s.scores()[p]
                assert score > raw["vp"][p]
                assert f", VP {score} (track {raw['vp'][p]} + tiles), " in text
                names = [
                    board.BONUS_TILE_NAMES[i] for i in range(7) if (raw["bonus_tiles"][p] >> i) & 1
                ]
                assert f"bonus tiles: {' '.join(names)}; king tiles: 25" in text
                return
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no bonus tile taken before the end in 40 random games")
