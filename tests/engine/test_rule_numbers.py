"""The rule numbers of board.json are the core's: it loads each one (no copy in the rules
code), and a changed number changes play."""

from __future__ import annotations

import copy

import pytest
from positions import END_TURN, T_VP1, Pos, acquire, build_king, city, elect, of_kind, pay, play

from council.engine import _council_of_four
from council.engine import council_of_four_board as board
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import Action, describe

ENGAGE = Action.from_text("engage").id
EXTRA_MAIN = Action.from_text("extra-main").id


@pytest.fixture
def rules():
    """A copy of the board's rule numbers; what the test writes into it is loaded into the
    core with load(), and the board's own numbers are loaded back afterwards."""
    numbers = copy.deepcopy(board.RULE_NUMBERS)

    def load():
        _council_of_four._fill_rule_numbers(numbers)
        return numbers

    try:
        yield numbers, load
    finally:
        _council_of_four._fill_rule_numbers(board.RULE_NUMBERS)
    assert _council_of_four.rule_numbers() == board.RULE_NUMBERS


def test_the_core_plays_by_the_board_numbers():
    assert _council_of_four.rule_numbers() == board.RULE_NUMBERS


def _leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if v is not None:
                yield from _leaves(v, (*path, i))
    else:
        yield path


def _changed(value, path):
    """Another value the rule can take: council costs must not rise with more cards."""
    if path[0] == "council_cost_by_cards":
        return value + 5 - path[1]  # [None, 14, 10, 6, 1] one at a time
    return value + 1


def test_every_rule_number_is_read_by_the_core(rules):
    numbers, load = rules
    leaves = list(_leaves(board.RULE_NUMBERS))
    assert len(leaves) >= 20
    for path in leaves:
        changed = copy.deepcopy(board.RULE_NUMBERS)
        holder = changed
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = _changed(holder[path[-1]], path)
        numbers.clear()
        numbers.update(changed)
        load()
        assert _council_of_four.rule_numbers() == changed, path


def _turn_state() -> CouncilOfFourState:
    return Pos(players=3).known_councils().coins(0, 10).assistants(0, 3).state()


def test_elect_coins(rules):
    numbers, load = rules
    numbers["elect_coins"] = 7
    load()
    s = play(_turn_state(), elect("coast", "black"))
    assert s.to_raw()["coins"][0] == 17
    assert "+7 coins" in describe(s, elect("coast", "black"))


def test_engage_and_extra_main_prices(rules):
    numbers, load = rules
    numbers["engage_assistant_coins"] = 11
    numbers["extra_main_assistants"] = 4
    load()
    s = _turn_state()
    assert ENGAGE not in s.legal_actions() and EXTRA_MAIN not in s.legal_actions()
    numbers["engage_assistant_coins"] = 5
    numbers["extra_main_assistants"] = 2
    load()
    s = _turn_state()
    play(s, ENGAGE)
    assert s.to_raw()["coins"][0] == 5 and s.to_raw()["assistants"][0] == 4
    s = play(_turn_state(), EXTRA_MAIN)
    r = s.to_raw()
    assert r["assistants"][0] == 1 and r["main_left"] == 2


def test_king_cost_per_road(rules):
    numbers, load = rules
    numbers["king_cost_per_road"] = 3
    load()
    # King council white black pink purple: 4 matching cards cost 0; Juvelar-Graden 1 road.
    p = Pos(players=4).known_councils().hand(0, white=1, black=1, pink=1, purple=1)
    s = p.coins(0, 3).token("Graden", T_VP1).state()  # a token that pays no coins
    reachable = of_kind(s.legal_actions(), "build_king")
    assert city("Graden") in reachable and city("Dorful") not in reachable  # 2 roads: 6
    play(s, build_king("Graden"), pay(white=1, black=1, pink=1, purple=1))
    assert s.to_raw()["coins"][0] == 0
    assert "(1 road(s), 3 coins)" in describe(p.state(), build_king("Graden"))


def test_joker_cost(rules):
    numbers, load = rules
    numbers["council_cost_per_joker"] = 3
    load()
    # Coast council white white black orange; one white + one joker: 7 + 3 coins.
    s = Pos(players=3).known_councils().hand(0, white=1, joker=1).coins(0, 10).state()
    play(s, acquire("coast", 0))
    assert of_kind(s.legal_actions(), "pay") != []
    assert pay(white=1, joker=1) in s.legal_actions()
    play(s, pay(white=1, joker=1))
    assert s.to_raw()["coins"][0] == 0
    s = Pos(players=3).known_councils().hand(0, white=2, joker=1).coins(0, 9).state()
    play(s, acquire("coast", 0))
    legal = s.legal_actions()
    assert pay(white=2) in legal and pay(white=2, joker=1) in legal  # 7 and 4 + 3
    assert pay(white=1, joker=1) not in legal  # 7 + 3: it would be 8 at 1 coin a joker


def test_end_awards_and_tenth_emporium(rules):
    numbers, load = rules
    numbers.update(nobility_first_vp=9, nobility_second_vp=4, most_permits_vp=6)
    numbers["tenth_emporium_vp"] = 8
    load()
    s = Pos(players=3).nobility(0, 5).nobility(1, 3).permits(2, up=(20,)).state().adjudicated()
    assert s.scores() == [9, 4, 6]
    nine = ["Arkon", "Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar", "Indur"]
    p = Pos(players=3).emporia(0, nine).hand(0, white=1, black=1, pink=1, purple=1)
    s = p.known_councils().coins(0, 20).state()
    play(s, build_king("Juvelar"), pay(white=1, black=1, pink=1, purple=1))
    assert s.to_raw()["end_trigger"] == 0 and s.to_raw()["vp"][0] >= 8


def test_politics_cards_councillors_and_start_hand(rules):
    numbers, load = rules
    numbers["politics_cards"] = {"per_colour": 15, "jokers": 3}
    numbers["councillors_per_colour"] = 5
    numbers["start"]["hand"] = 4
    load()
    s = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2)
    r = s.to_raw()
    assert r["hand_n"][:3] == [5, 4, 4]  # seat 0 has drawn for its turn
    assert sum(r["politics_deck"]) == r["politics_deck_n"] == 6 * 15 + 3 - 13
    assert sum(r["pool"]) == 6 * 5 - 16
    view = s.view(1)
    dealt = view.determinize(5).to_raw()
    assert [dealt["politics_deck"][k] + sum(h[k] for h in dealt["hand"]) for k in range(7)] == [
        15
    ] * 6 + [3]


def test_a_turn_with_the_board_numbers_is_unchanged(rules):
    # Loading the board's numbers again changes nothing: the same game as before.
    _, load = rules
    before = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=9)
    play(before, before.legal_actions()[1], END_TURN)
    load()
    after = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=9)
    play(after, after.legal_actions()[1], END_TURN)
    assert after == before
