"""Rules of A War of Whispers on hand-built positions of the bundled content, one section per
section of the reference manual (docs/a-war-of-whispers.md, AW1 ...): setup, deployment,
control of the seats, the seats' actions, combat, supply, cards, cleanup, the swap phase,
scoring and tie-breaks, hidden information. Positions come from aww_positions.py."""

from __future__ import annotations

import pickle

import pytest
from aww_positions import (
    BEAR,
    CHANCELLOR,
    CONTENT,
    DONE,
    EAGLE,
    ELEPHANT,
    HORSE,
    LION,
    LOC_DECK,
    LOC_HAND,
    LOC_UNKNOWN,
    MARSHAL,
    PH,
    SHERIFF,
    STEWARD,
    A,
    at,
    card,
    count,
    deploy,
    discard,
    give,
    new_raw,
    option,
    pay,
    play,
    region,
    retrieve,
    seat,
    set_map,
    state,
    turn_position,
)

from council.engine._a_war_of_whispers import (
    LOCATIONS,
    LOYALTY_PAIRS,
    LOYALTY_VALUES,
    AWarOfWhispersState,
    IllegalActionError,
    current_content,
    use_content,
)
from council.engine.a_war_of_whispers_content import load_content
from council.engine.games import game_named
from council.engine.position import Position

ADD, ATTACK = option(0), option(1)  # the sheriff's options in the bundled content


def regions_of(s, empire) -> list[int]:
    return [r for r, (owner, _) in enumerate(s.regions()) if owner == empire]


# ---------------------------------------------------------------------------------------
# Setup (manual 3).


def test_setup_places_the_starting_banners_and_shuffles_loyalty():
    raw = new_raw(3, seed=5)
    for r, reg in enumerate(CONTENT.regions):
        assert raw["owner"][r] == (reg.empire if reg.banners else -1)
        assert raw["banners"][r] == reg.banners
    for e in range(5):
        start = sum(reg.banners for reg in CONTENT.regions if reg.empire == e)
        assert raw["supply"][e] == 20 - start
    for p in range(3):
        assert sorted(raw["loyalty"][p]) == [0, 1, 2, 3, 4]
    assert raw["revealed"] == [[0] * 5] * 4 and raw["swaps"] == [0] * 4
    assert raw["card_loc"] == [LOC_DECK] * 40 and raw["hand_count"] == [[0] * 5] * 4
    assert raw["phase"] == PH["deploy"] and raw["round"] == 1 and raw["current"] == 0
    # The seed deals the tokens: another seed, another deal.
    assert any(new_raw(3, seed=s)["loyalty"] != raw["loyalty"] for s in range(6, 10))


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players):
    with pytest.raises(ValueError, match="2 to 4"):
        AWarOfWhispersState.new_game(players)


# ---------------------------------------------------------------------------------------
# Deploy Agents (manual 5).


def test_deploy_one_agent_at_a_time_two_each_with_four_players():
    s = AWarOfWhispersState.new_game(4, seed=1)
    order = []
    for i in range(7):
        order.append(s.current_player)
        assert len(s.legal_actions()) == 20 - i  # the open seats
        s.apply(deploy(i % 5, i // 5))
    order.append(s.current_player)
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]
    with pytest.raises(IllegalActionError):
        s.apply(deploy(0, 0))  # taken
    s.apply(deploy(4, 3))
    assert s.phase == "turns"  # the eighth agent placed


def test_two_players_deploy_three_each():
    s = AWarOfWhispersState.new_game(2, seed=1)
    for i in range(5):
        s.apply(deploy(i, 0))
        assert s.phase == "deploy"
    s.apply(deploy(0, 1))
    assert s.phase == "turns"
    assert sum(p >= 0 for row in s.agents() for p in row) == 6


def test_from_round_two_each_player_retrieves_one_agent_first_player_first():
    raw = new_raw(3)
    raw["agent"] = [-1] * 20
    raw["agent"][0] = 0
    raw["agent"][5] = 1
    raw["agent"][6] = 1
    raw["phase"] = PH["swap"]
    raw["current"] = raw["first_player"] = 2
    raw["turn_i"] = 2  # the last of the swap phase: player 2 ... then 0 and 1 are done
    raw["revealed"][1] = [1] * 5
    raw["revealed"][0] = [1] * 5
    s = state(raw)
    s.apply(DONE)
    assert s.round == 2 and s.phase == "retrieve"
    # First player is now 0 (passed clockwise from 2); it has one agent to take back.
    assert s.current_player == 0 and s.legal_actions() == [retrieve(0, 0)]
    s.apply(retrieve(0, 0))
    assert s.current_player == 1 and s.legal_actions() == [retrieve(1, 1), retrieve(1, 2)]
    s.apply(retrieve(1, 2))
    # Player 2 has no agent on the board: placement starts with the first player.
    assert s.phase == "deploy" and s.current_player == 0
    assert s.agents()[1] == [-1, 1, -1, -1]


# ---------------------------------------------------------------------------------------
# Control of a council seat (manual 5: Empire Turns).


def test_control_agent_then_next_clockwise_then_nobody():
    s = state(turn_position({(BEAR, MARSHAL): 2, (BEAR, STEWARD): 1}, BEAR, SHERIFF))
    assert s.controller(BEAR, MARSHAL) == 2
    assert s.controller(BEAR, CHANCELLOR) == 1  # wraps round to the sheriff, then steward
    assert s.controller(BEAR, SHERIFF) == 1
    assert s.controller(LION, SHERIFF) == -1
    assert s.current_player == 1


def test_seats_with_no_agent_in_their_council_do_nothing():
    # Only the lion's council has an agent: after the bear's turn, the lion's four seats
    # all fall to player 3, and then the round's turns end.
    raw = turn_position({(BEAR, CHANCELLOR): 0, (LION, MARSHAL): 3}, BEAR, CHANCELLOR)
    s = state(raw)
    s.apply(option(1))  # add 1
    s.apply(at("Frostholm"))
    assert (s.empire, s.current_player, s.to_raw()["seat"]) == ("lion", 3, SHERIFF)


# ---------------------------------------------------------------------------------------
# Actions: add banners, attack, draw, swap; a valid action must be taken.


def test_add_banners_to_regions_the_empire_controls():
    s = state(turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF))
    assert s.legal_actions() == [ADD, ATTACK]
    assert [s.action_to_text(a) for a in s.legal_actions()] == [
        "option 0 (add 2)",
        "option 1 (attack)",
    ]
    assert s.action_from_text("option 1") == s.action_from_text("option 1 (attack)") == ATTACK
    s.apply(ADD)
    assert s.decision_name == "add"
    assert s.legal_actions() == [at(r) for r in regions_of(s, BEAR)]
    supply = s.to_raw()["supply"][BEAR]
    s.apply(at("Frostholm"))
    s.apply(at("Frostholm"))
    assert s.regions()[region("Frostholm")] == (BEAR, 4)
    assert s.to_raw()["supply"][BEAR] == supply - 2
    # The steward has no agent: the next clockwise (the sheriff's, player 0) controls it.
    assert s.to_raw()["seat"] == STEWARD and s.current_player == 0


def test_add_stops_when_the_empire_runs_out_of_banners():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(
        raw,
        {
            "Frostholm": (BEAR, 6),
            "Pinewatch": (BEAR, 6),
            "Greyridge": (BEAR, 6),
            "Ursa Ford": (BEAR, 1),
        },
    )
    assert raw["supply"][BEAR] == 1
    s = state(raw)
    s.apply(ADD)
    s.apply(at("Ursa Ford"))  # the last banner: the second is not placed
    assert s.to_raw()["supply"][BEAR] == 0 and s.decision_name == "choose"
    assert s.to_raw()["seat"] == STEWARD
    assert option(1) not in s.legal_actions()  # the steward's add 1: nothing to add


def test_attack_fort_then_losses_one_for_one_winner_controls():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(raw, {"Pinewatch": (BEAR, 5), "Goldhollow": (LION, 2)})
    s = state(raw)
    s.apply(ATTACK)
    assert s.decision_name == "from"
    s.apply(at("Pinewatch"))
    assert s.legal_actions() == [at("Goldhollow")]  # its only neighbour not the bear's
    s.apply(at("Goldhollow"))
    assert s.legal_actions() == [count(n) for n in range(1, 5)]  # one stays behind
    s.apply(count(4))
    # The fort kills one attacker (3 left), two more fall with the two defenders.
    assert s.regions()[region("Goldhollow")] == (BEAR, 1)
    assert s.regions()[region("Pinewatch")] == (BEAR, 1)
    assert s.problems() == []  # the dead went back to their supplies


def test_attack_that_kills_every_banner_leaves_the_region_empty():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(raw, {"Greyridge": (BEAR, 3), "Pridegate": (LION, 2)})
    s = state(raw)
    for a in (ATTACK, at("Greyridge"), at("Pridegate")):
        s.apply(a)
    assert s.legal_actions() == [count(1), count(2)]
    s.apply(count(2))
    assert s.regions()[region("Pridegate")] == (-1, 0)
    assert s.regions()[region("Greyridge")] == (BEAR, 1)
    assert s.problems() == []


def test_attack_into_an_empty_region_and_a_defence_that_holds():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(
        raw,
        {
            "Greyridge": (BEAR, 4),
            "Pridegate": (-1, 0),
            "Frostholm": (BEAR, 2),
            "Sunmere": (LION, 3),
        },
    )
    s = state(raw)
    for a in (ATTACK, at("Greyridge"), at("Pridegate"), count(2)):
        s.apply(a)
    assert s.regions()[region("Pridegate")] == (BEAR, 2)
    # The steward's turn (player 0 again): its add 1, then the marshal attacks and loses.
    s.apply(option(1))
    s.apply(at("Frostholm"))  # Frostholm: 3
    assert s.to_raw()["seat"] == MARSHAL
    for a in (option(0), at("Frostholm"), at("Sunmere"), count(2)):
        s.apply(a)
    assert s.regions()[region("Sunmere")] == (LION, 1)
    assert s.regions()[region("Frostholm")] == (BEAR, 1)


def test_draw_one_card_per_icon_the_empire_controls():
    raw = turn_position({(BEAR, STEWARD): 2}, BEAR, STEWARD)
    s = state(raw)
    icons = [r for r in regions_of(s, BEAR) if CONTENT.regions[r].icon]
    assert len(icons) == 2
    s.apply(option(0))  # draw_icons, at most 3
    r = s.to_raw()
    assert r["hand_count"][2] == [2, 0, 0, 0, 0]
    held = [c for c in range(40) if r["card_loc"][c] == LOC_HAND + 2]
    assert len(held) == 2 and all(CONTENT.cards[c].empire == BEAR for c in held)


def test_swap_agents_then_take_the_new_seats_action_at_once():
    raw = turn_position({(BEAR, CHANCELLOR): 0, (BEAR, SHERIFF): 1}, BEAR, CHANCELLOR)
    s = state(raw)
    assert s.legal_actions() == [option(0), option(1)]  # swap, add 1
    s.apply(option(0))
    assert s.decision_name == "seat" and s.legal_actions() == [seat(SHERIFF)]
    s.apply(seat(SHERIFF))
    assert s.agents()[BEAR] == [0, -1, -1, 1]
    assert s.current_player == 0 and s.decision_name == "choose"
    assert s.legal_actions() == [ADD, ATTACK]  # the sheriff's options
    s.apply(ADD)
    s.apply(at("Ursa Ford"))
    s.apply(at("Ursa Ford"))
    assert s.regions()[region("Ursa Ford")] == (BEAR, 3)
    assert s.empire != "bear"  # the chancellor was the bear's last seat


def test_swap_needs_another_agent_so_a_valid_action_must_be_taken():
    s = state(turn_position({(BEAR, CHANCELLOR): 0}, BEAR, CHANCELLOR))
    assert s.legal_actions() == [option(1)]  # no swap, and no pass while add is valid
    assert not s.is_legal(DONE)


def test_a_seat_with_no_valid_action_passes_or_plays_a_card():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(raw, {name: (-1, 0) for name in ("Frostholm", "Pinewatch", "Greyridge", "Ursa Ford")})
    give(raw, 0, "Bear Scouts")
    s = state(raw)
    assert s.legal_actions() == [play("Bear Scouts"), DONE]
    s.apply(DONE)
    assert s.to_raw()["seat"] == STEWARD  # the steward: nothing either, and no icon
    assert s.legal_actions() == [play("Bear Scouts"), DONE]


# ---------------------------------------------------------------------------------------
# Supply (manual 5: Checking Supply).


def test_supply_checked_for_the_active_empire_at_the_end_of_its_turn():
    raw = turn_position({(BEAR, CHANCELLOR): 0, (LION, SHERIFF): 1}, BEAR, CHANCELLOR)
    set_map(raw, {"Pinewatch": (BEAR, 6), "Greyridge": (BEAR, 7), "Sunmere": (LION, 7)})
    s = state(raw)
    s.apply(option(1))
    s.apply(at("Frostholm"))
    assert s.empire == "lion" and s.current_player == 1
    regions = s.regions()
    assert regions[region("Pinewatch")] == (BEAR, 4)
    assert regions[region("Greyridge")] == (BEAR, 6)  # a farm
    assert regions[region("Frostholm")] == (BEAR, 3)
    assert regions[region("Sunmere")] == (LION, 7)  # not the active empire
    assert s.problems() == []


# ---------------------------------------------------------------------------------------
# Empire cards (manual 5: Empire Cards; FAQ).


def test_first_ability_costs_the_card_itself_and_returns_it_to_its_deck():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    give(raw, 0, "Bear Levy")
    s = state(raw)
    assert s.legal_actions() == [ADD, ATTACK, play("Bear Levy")]
    s.apply(play("Bear Levy"))
    assert s.decision_name == "add"
    s.apply(at("Pinewatch"))
    s.apply(at("Pinewatch"))
    r = s.to_raw()
    assert r["card_loc"][card("Bear Levy")] == LOC_DECK and r["hand_count"][0] == [0] * 5
    assert s.regions()[region("Pinewatch")] == (BEAR, 5)
    # Played before the action: the seat's action is still to take.
    assert s.decision_name == "choose" and s.legal_actions() == [ADD, ATTACK]


def test_a_further_ability_is_paid_by_discarding_cards_of_its_symbols():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    give(raw, 0, "Bear Levy", "Bear Raid", "Lion Levy")
    s = state(raw)
    legal = s.legal_actions()
    assert play("Bear Levy", 1) in legal  # bear + bear: the Raid pays
    assert play("Bear Raid", 1) in legal  # bear + lion: the Lion Levy pays
    assert play("Lion Levy", 1) not in legal  # lion + lion: no second lion card
    s.apply(play("Bear Levy", 1))
    assert s.decision_name == "pay" and s.legal_actions() == [pay("Bear Raid")]
    s.apply(pay("Bear Raid"))
    assert s.decision_name == "add"
    for _ in range(4):
        s.apply(at("Ursa Ford"))
    assert s.regions()[region("Ursa Ford")] == (BEAR, 5)
    assert s.hand(0) == [card("Lion Levy")]


def test_a_card_can_act_for_the_active_empire_and_after_the_action():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    give(raw, 0, "Lion Mercenaries")
    s = state(raw)
    s.apply(ADD)
    s.apply(at("Frostholm"))
    s.apply(at("Frostholm"))
    assert s.decision_name == "after"
    assert s.legal_actions() == [play("Lion Mercenaries"), DONE]
    s.apply(play("Lion Mercenaries"))
    assert s.legal_actions() == [at(r) for r in regions_of(s, BEAR)]  # the bear's banner
    s.apply(at("Frostholm"))
    assert s.regions()[region("Frostholm")] == (BEAR, 5)
    assert s.to_raw()["seat"] == STEWARD  # no card left: the window closes


def test_remove_banners_from_an_enemy_region_next_to_the_empire():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    give(raw, 0, "Bear Saboteurs")
    s = state(raw)
    s.apply(play("Bear Saboteurs"))
    assert s.decision_name == "remove"
    # The lion's and the eagle's regions next to the bear's.
    assert s.legal_actions() == [
        at(n)
        for n in ("Sunmere", "Goldhollow", "Pridegate", "Amber Steppe", "Skyspire", "Highwind Pass")
    ]
    s.apply(at("Highwind Pass"))  # one banner: emptied
    assert s.regions()[region("Highwind Pass")] == (-1, 0)
    assert s.problems() == []


def test_moving_an_agent_forfeits_its_action_and_play_continues_after_the_old_seat():
    raw = turn_position({(BEAR, SHERIFF): 0, (BEAR, MARSHAL): 1}, BEAR, SHERIFF)
    give(raw, 0, "Bear Envoy")
    s = state(raw)
    s.apply(play("Bear Envoy"))
    assert s.legal_actions() == [seat(STEWARD), seat(CHANCELLOR)]  # the open seats
    s.apply(seat(CHANCELLOR))
    assert s.agents()[BEAR] == [-1, -1, 1, 0]
    assert s.legal_actions() == [option(1)]  # the chancellor's add; no swap after a move
    s.apply(option(1))
    s.apply(at("Frostholm"))
    # Next: the steward (after the sheriff), now controlled by the marshal's agent.
    assert s.to_raw()["seat"] == STEWARD and s.current_player == 1


def test_a_move_cannot_abandon_a_region():
    raw = turn_position({(BEAR, MARSHAL): 0}, BEAR, MARSHAL)
    set_map(raw, {"Pinewatch": (BEAR, 3), "Greyridge": (BEAR, 1), "Frostholm": (BEAR, 1)})
    s = state(raw)
    s.apply(option(1))  # move up to 3
    assert s.legal_actions() == [at("Pinewatch")]
    s.apply(at("Pinewatch"))
    assert s.legal_actions() == [at("Frostholm"), at("Greyridge")]
    s.apply(at("Greyridge"))
    assert s.legal_actions() == [count(1), count(2)]
    s.apply(count(2))
    assert s.regions()[region("Greyridge")] == (BEAR, 3)


# ---------------------------------------------------------------------------------------
# Cleanup: the hand limit (manual 5).


def test_cleanup_discards_down_to_five():
    raw = turn_position({(BEAR, CHANCELLOR): 0}, BEAR, CHANCELLOR)
    cards = [
        "Horse Levy",
        "Horse Raid",
        "Horse Scouts",
        "Eagle Levy",
        "Eagle Raid",
        "Eagle Scouts",
        "Eagle Tithe",
    ]
    give(raw, 1, *cards)
    s = state(raw)
    s.apply(option(1))
    s.apply(at("Frostholm"))  # the turns end: no agent elsewhere
    assert s.phase == "cleanup" and s.current_player == 1
    assert s.legal_actions() == sorted(discard(c) for c in cards)
    s.apply(discard("Eagle Tithe"))
    assert s.phase == "cleanup"
    s.apply(discard("Horse Raid"))
    assert s.phase == "swap" and s.current_player == 0
    assert len(s.hand(1)) == 5


# ---------------------------------------------------------------------------------------
# Swap phase and scoring (manual 4, 6).


def test_swap_two_unrevealed_tokens_both_revealed():
    raw = new_raw(2)
    raw["phase"] = PH["swap"]
    raw["loyalty"][0] = [0, 1, 2, 3, 4]
    s = state(raw)
    assert s.legal_actions() == [A["loyalty"] + i for i in range(10)] + [DONE]
    s.apply(A["loyalty"] + LOYALTY_PAIRS.index((BEAR, EAGLE)))
    r = s.to_raw()
    assert r["loyalty"][0] == [4, 1, 2, 3, 0]
    assert r["revealed"][0] == [1, 0, 0, 0, 1] and r["swaps"][0] == 1
    assert s.current_player == 1
    s.apply(DONE)
    assert s.round == 2 and s.phase == "deploy" and s.current_player == 1  # no agents
    raw = s.to_raw()
    raw["phase"], raw["current"], raw["turn_i"] = PH["swap"], 0, 0
    legal = state(raw).legal_actions()
    assert A["loyalty"] + LOYALTY_PAIRS.index((BEAR, LION)) not in legal
    assert A["loyalty"] + LOYALTY_PAIRS.index((LION, HORSE)) in legal


def test_game_ends_after_the_fourth_rounds_turns_and_scores_loyalty_times_cities():
    raw = turn_position({(BEAR, CHANCELLOR): 0}, BEAR, CHANCELLOR, players=3)
    raw["round"] = 4
    raw["loyalty"][0] = [0, 1, 2, 3, 4]  # bear x4, lion x3, horse x2, elephant x0, eagle x-1
    raw["loyalty"][1] = [4, 3, 2, 1, 0]
    raw["loyalty"][2] = [2, 0, 4, 3, 1]
    set_map(raw, {"Goldhollow": (BEAR, 2)})  # the bear took 2 cities from the lion
    give(raw, 2, "Eagle Levy")
    s = state(raw)
    s.apply(option(1))
    s.apply(at("Frostholm"))
    assert s.is_terminal() and s.current_player == -1
    cities = {BEAR: 6, LION: 2, HORSE: 4, ELEPHANT: 4, EAGLE: 4}
    values = (4, 3, 2, 0, -1)
    expected = [sum(values[raw["loyalty"][p][e]] * cities[e] for e in range(5)) for p in range(3)]
    assert s.scores() == expected == [24 + 6 + 8 + 0 - 4, -6 + 0 + 8 + 12 + 16, 12 + 8 - 4 + 0 + 12]
    assert s.winners() == [0] and s.returns() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "swaps, hands, winners",
    [
        ([1, 0, 0], [0, 0, 0], [1, 2]),
        ([0, 1, 1], [0, 2, 3], [0]),
        ([1, 1, 0], [2, 3, 0], [2]),
        ([1, 1, 1], [2, 3, 0], [1]),
    ],
)
def test_ties_fewest_swaps_then_most_cards(swaps, hands, winners):
    raw = new_raw(3)
    raw["phase"], raw["current"] = PH["over"], -1
    raw["score"] = [10, 10, 10, 0]
    raw["swaps"] = swaps + [0]
    for p, n in enumerate(hands):
        give(raw, p, *[c.name for c in CONTENT.cards if c.empire == p][:n])
    assert state(raw).winners() == winners


def test_the_final_scoring_names_the_tie_break_that_decided_it():
    raw = turn_position({(BEAR, CHANCELLOR): 0}, BEAR, CHANCELLOR, players=3)
    raw["round"] = 4
    raw["loyalty"][0] = raw["loyalty"][1] = [0, 1, 2, 3, 4]  # both 24 + 6 + 8 + 0 - 4
    raw["loyalty"][2] = [2, 0, 4, 3, 1]
    raw["revealed"][1] = [1, 1, 0, 0, 0]
    raw["swaps"] = [0, 1, 0, 0]  # seat 1 swapped once: seat 0 wins the tie
    set_map(raw, {"Goldhollow": (BEAR, 2)})
    give(raw, 2, "Eagle Levy")
    s = state(raw)
    s.apply(option(1))
    before, action = s.clone(), at("Frostholm")
    s.apply(action)
    lines = [
        line.text
        for line in game_named("a-war-of-whispers").effects(before, s, action, None, False).lines
    ]
    assert s.scores() == [34, 34, 28] and s.winners() == [0]
    assert lines[-2:] == [
        "won by seat 0",
        "tie-break: seat 0 and seat 1 tied at 34; loyalty swaps made: seat 0 0, seat 1 1: "
        "seat 0 made the fewest and wins",
    ]


# ---------------------------------------------------------------------------------------
# Hidden information: views and determinization.


def test_a_view_hides_other_hands_and_unrevealed_loyalty():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    give(raw, 0, "Bear Levy")
    give(raw, 1, "Lion Levy", "Lion Raid", "Eagle Tithe")
    raw["revealed"][2] = [0, 1, 1, 0, 0]
    s = state(raw)
    v = s.view(0)
    r = v.to_raw()
    assert r["card_loc"][card("Bear Levy")] == LOC_HAND
    assert r["card_loc"].count(LOC_UNKNOWN) == 39
    assert r["hand_count"][1] == [0, 2, 0, 0, 1]  # public
    assert r["loyalty"][0] == raw["loyalty"][0]
    assert r["loyalty"][1] == [-1] * 5
    assert r["loyalty"][2] == [-1, raw["loyalty"][2][1], raw["loyalty"][2][2], -1, -1]
    with pytest.raises(ValueError, match="full state"):
        v.legal_actions()
    for seed in range(20):
        d = v.determinize(seed).to_raw()
        assert d["hand_count"] == raw["hand_count"]
        held = [c for c in range(40) if d["card_loc"][c] == LOC_HAND + 1]
        assert sorted(CONTENT.cards[c].empire for c in held) == [LION, LION, EAGLE]
        assert d["card_loc"][card("Bear Levy")] == LOC_HAND
        for p in range(4):
            assert sorted(d["loyalty"][p]) == [0, 1, 2, 3, 4]
        assert d["loyalty"][2][1:3] == raw["loyalty"][2][1:3]
        assert state(d).problems() == []
    # Different seeds find different worlds.
    worlds = {tuple(v.determinize(seed).to_raw()["loyalty"][1]) for seed in range(20)}
    assert len(worlds) > 1


def test_round_trips_and_reseed():
    s = AWarOfWhispersState.new_game(3, seed=4)
    for _ in range(30):
        s.apply(s.legal_actions()[-1])
    assert pickle.loads(pickle.dumps(s)) == s
    assert AWarOfWhispersState.from_raw(s.to_raw()) == s
    other = s.clone()
    other.reseed(99)
    assert other != s and other.to_raw()["agent"] == s.to_raw()["agent"]
    for a in s.legal_actions():
        assert s.action_from_text(s.action_to_text(a)) == a


# ---------------------------------------------------------------------------------------
# Content: the core's tables come from the content it is given; a position names its own.


def test_the_core_plays_the_content_it_was_given():
    bundled = current_content()
    data = bundled.to_json()
    data["id"] = "test-small"
    data["regions"][0]["banners"] = 5
    data["cards"] = [c for c in data["cards"] if c["name"].endswith("Levy")]
    small = load_content(data)
    old = AWarOfWhispersState.new_game(2, seed=1)
    try:
        use_content(small)
        s = AWarOfWhispersState.new_game(2, seed=1)
        assert s.regions()[0] == (BEAR, 5) and s.content_digest_prefix == small.digest[:16]
        assert s.to_raw()["card_loc"] == [LOC_DECK] * 5 + [LOCATIONS["absent"]] * 35
        s.random_playout(3)
        assert s.is_terminal() and s.problems() == []
        with pytest.raises(ValueError, match="use_content"):
            old.legal_actions()
    finally:
        use_content(bundled)
    assert old.legal_actions() and old.content_digest_prefix == bundled.digest[:16]
    with pytest.raises(ValueError, match="use_content"):
        s.apply(DONE)
    with pytest.raises(TypeError, match="Content"):
        use_content(data)


def test_it_meets_the_position_contract():
    s = AWarOfWhispersState.new_game(3, seed=2)
    assert isinstance(s, Position)
    assert s.decision_name == "deploy" and s.turn == 1 and s.problems() == []
    assert s.scores() == [0, 0, 0] and s.winners() == [] and s.returns() == [0.0] * 3
    done = s.adjudicated()
    assert done.is_terminal() and not s.is_terminal()
    assert done.scores() == [
        sum(LOYALTY_VALUES[s.to_raw()["loyalty"][p][e]] * 4 for e in range(5)) for p in range(3)
    ]


def test_cards_for_a_seat_controlled_without_an_agent_several_in_a_turn():
    # FAQ: the steward is player 2's through its sheriff's agent; two cards before the action.
    raw = turn_position({(BEAR, SHERIFF): 2}, BEAR, STEWARD)
    give(raw, 2, "Bear Levy", "Bear March")
    s = state(raw)
    assert s.current_player == 2 and s.agents()[BEAR][STEWARD] == -1
    s.apply(play("Bear Levy"))
    s.apply(at("Ursa Ford"))
    s.apply(at("Ursa Ford"))
    assert s.decision_name == "choose" and play("Bear March") in s.legal_actions()
    s.apply(play("Bear March"))  # move up to 2
    s.apply(at("Ursa Ford"))
    s.apply(at("Greyridge"))
    s.apply(count(2))
    assert s.regions()[region("Ursa Ford")] == (BEAR, 1)
    assert s.regions()[region("Greyridge")] == (BEAR, 4)
    assert s.legal_actions() == [option(0), option(1)]  # the steward's action is still due
    assert s.hand(2) == []


def test_an_agents_move_after_a_payment_and_another_operation_is_still_before_the_action():
    bundled = current_content()
    data = bundled.to_json()
    envoy = next(c for c in data["cards"] if c["name"] == "Bear Envoy")
    envoy["abilities"].append(
        {"cost": ["bear", "bear"], "effect": [{"op": "add", "banners": 1}, {"op": "move_agent"}]}
    )
    try:
        use_content(load_content(data))
        raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
        give(raw, 0, "Bear Envoy", "Bear Levy")
        s = state(raw)
        s.apply(play("Bear Envoy", 1))
        s.apply(pay("Bear Levy"))
        s.apply(at("Frostholm"))
        assert s.decision_name == "seat"
        assert s.legal_actions() == [seat(STEWARD), seat(MARSHAL), seat(CHANCELLOR)]
        s.apply(seat(MARSHAL))
        assert s.agents()[BEAR] == [-1, -1, 0, -1] and s.legal_actions() == [option(0), option(1)]
    finally:
        use_content(bundled)


# ---------------------------------------------------------------------------------------
# Advanced rule: agents on the map (manual 5), an option off by default (AW22).


def test_agents_on_the_map_only_when_the_option_is_on():
    assert AWarOfWhispersState.new_game(3, seed=1).legal_actions() == [deploy(e, k)
        for e in range(5) for k in range(4)]  # fmt: skip
    s = AWarOfWhispersState.new_game(3, seed=1, agents_on_map=True)
    assert s.agents_on_map and len(s.legal_actions()) == 20 + len(CONTENT.regions)
    s.apply(A["deploy_map"] + region("Goldhollow"))
    assert s.map_agents(0) == [region("Goldhollow")] and s.current_player == 1
    s.apply(A["deploy_map"] + region("Goldhollow"))  # another player may share the region
    s.apply(deploy(BEAR, SHERIFF))
    # Player 0's second: not Goldhollow again; then no third.
    legal = s.legal_actions()
    assert A["deploy_map"] + region("Goldhollow") not in legal
    assert A["deploy_map"] + region("Frostholm") in legal
    s.apply(A["deploy_map"] + region("Frostholm"))
    assert s.action_to_text(A["deploy_map"] + region("Frostholm")) == "deploy map Frostholm"
    s.apply(deploy(BEAR, STEWARD))
    s.apply(deploy(BEAR, MARSHAL))
    assert s.phase == "turns" and s.map_agents(0) == [region("Goldhollow"), region("Frostholm")]


def test_a_map_agent_counts_as_a_city_of_the_regions_empire_and_comes_back_next_round():
    raw = turn_position({(BEAR, CHANCELLOR): 0}, BEAR, CHANCELLOR, players=2)
    raw["agents_on_map"] = 1
    raw["round"] = 4
    raw["loyalty"][0] = [0, 1, 2, 3, 4]  # bear x4, lion x3, ...
    raw["loyalty"][1] = [4, 3, 2, 1, 0]
    raw["map_agent"][0] = [region("Sunmere"), region("Pridegate")]  # the lion's
    raw["map_agent"][1] = [region("Frostholm"), -1]  # the bear's
    set_map(raw, {"Pridegate": (-1, 0)})  # empty: no empire, nothing
    s = state(raw)
    s.apply(option(1))
    s.apply(at("Frostholm"))
    # Every empire keeps its 4 cities (Pridegate has none). Player 0: 16 + 12 + 8 + 0 - 4,
    # and Sunmere, the lion's, at x3. Player 1: -4 + 0 + 8 + 12 + 16, and Frostholm at x-1.
    assert s.scores() == [32 + 3, 32 - 1]
    # Before the last round: the map agents come back with the next deployment.
    raw["round"] = 1
    s = state(raw)
    s.apply(option(1))
    s.apply(at("Frostholm"))
    while s.phase != "retrieve":
        s.apply(DONE)
    assert s.map_agents(0) == [] and s.map_agents(1) == []


def test_a_raze_kills_every_banner_involved_in_the_attack():
    # FAQ: "kill all banners involved in attack" includes both attackers and defenders.
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(raw, {"Pinewatch": (BEAR, 5), "Goldhollow": (LION, 3)})
    give(raw, 0, "Bear Saboteurs", "Bear Levy", "Lion Levy")
    s = state(raw)
    s.apply(play("Bear Saboteurs", 2))  # bear + bear + lion
    assert s.legal_actions() == [pay("Bear Levy"), pay("Lion Levy")]
    s.apply(pay("Lion Levy"))
    s.apply(pay("Bear Levy"))
    for a in (at("Pinewatch"), at("Goldhollow"), count(2)):
        s.apply(a)
    assert s.regions()[region("Goldhollow")] == (-1, 0)
    assert s.regions()[region("Pinewatch")] == (BEAR, 3)
    assert s.problems() == [] and s.hand(0) == []


def test_a_seat_reached_by_a_swap_acts_once():
    # A content whose sheriff can swap: the marshal's action is taken at once, not again.
    bundled = current_content()
    data = bundled.to_json()
    data["councils"]["bear"]["sheriff"] = [{"op": "swap"}, {"op": "add", "banners": 1}]
    try:
        use_content(load_content(data))
        s = state(turn_position({(BEAR, SHERIFF): 0, (BEAR, MARSHAL): 1}, BEAR, SHERIFF))
        s.apply(option(0))
        s.apply(seat(MARSHAL))
        assert s.agents()[BEAR] == [1, -1, 0, -1]
        for a in (option(0), at("Frostholm"), at("Sunmere"), count(1)):  # the marshal attacks
            s.apply(a)
        assert s.regions()[region("Sunmere")] == (LION, 1)
        assert (s.to_raw()["seat"], s.current_player) == (STEWARD, 0)
        s.apply(option(1))
        s.apply(at("Ursa Ford"))
        # The marshal has acted: next the chancellor, through the sheriff's agent (player 1).
        assert (s.to_raw()["seat"], s.current_player) == (CHANCELLOR, 1)
    finally:
        use_content(bundled)


@pytest.mark.parametrize(
    "field, value, path",
    [
        ("round", 5, "round"),
        ("current", 3, "current"),
        ("agent", [0] * 19 + [4], "agent[19]"),
        ("supply", [12, 12, 12, 12, 11], "supply[4]"),
        ("owner", [-1] + [r // 4 for r in range(1, 20)] + [-1] * 12, "owner[0]"),
        ("card_loc", [0] * 39 + [4], "card_loc[39]"),
        ("hand_count", [[1, 0, 0, 0, 0]] + [[0] * 5] * 3, "hand_count[0][0]"),
    ],
)
def test_problems_name_the_field(field, value, path):
    raw = new_raw(3)
    assert state(raw).problems() == []
    raw[field] = value
    assert path in [p for p, _ in state(raw).problems()]


def test_problems_of_loyalty_tokens():
    raw = new_raw(2)
    raw["loyalty"][1] = [0, 0, 1, 2, 3]
    assert [p for p, _ in state(raw).problems()] == ["loyalty[1]"]
    raw["loyalty"][1] = [0, -1, -1, 2, 3]  # unknown to a view of player 0, not to player 1
    raw["viewer"] = 0
    assert state(raw).problems() == []
    raw["viewer"] = 1
    assert [p for p, _ in state(raw).problems()] == ["loyalty[1]"]
