"""The event trace the rules write as they apply an action (issue #39): the exact events of
concrete positions of each game, and the effects told from nothing else.

A position's ``events`` are what its last ``apply`` did, as the compiled core wrote them:
``(kind, seat, args)``, seat -1 for the whole table, args padded with zeros to four.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from council.engine import council_of_four_board as B
from council.engine._council_of_four import ACTION_OFFSETS
from council.engine._kuhn_poker import KuhnPokerState
from council.engine._leduc_poker import LeducPokerState
from council.engine._the_council import CARDS, EVENTS_PER_HAND, TheCouncilState
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.effects import Trace, action_effects
from council.engine.games import game_named
from tests.engine import council_positions as tcp
from tests.engine.positions import (
    KING,
    T_ASS1,
    T_COIN_ASS,
    T_COINS1,
    T_NOB_A,
    T_VP1,
    T_VP3,
    Pos,
    build_king,
    pay,
)

ROOT = Path(__file__).resolve().parents[2]


def ev(kind: str, seat: int, *args: int) -> tuple:
    """An event as a position's ``events`` holds it."""
    return (kind, seat, tuple(args) + (0,) * (4 - len(args)))


# -- Kuhn poker and Leduc poker ----------------------------------------------------------


def test_kuhn_poker_a_called_bet_goes_to_a_showdown():
    state = KuhnPokerState.new_game(seed=3)  # seat 0 holds J (0), seat 1 K (2)
    state.apply(1)
    assert state.events == (ev("action", 0, 1), ev("bet", 0, 1, 3))
    state.apply(1)
    assert state.events == (
        ev("action", 1, 1),
        ev("call", 1, 1, 4),
        ev("showdown", -1, 0, 2),
        ev("score", 0, -2),
        ev("score", 1, 2),
        ev("takes_pot", 1, 4, 2),
    )


def test_kuhn_poker_a_fold_gives_up_the_antes():
    state = KuhnPokerState.new_game(seed=3)
    state.apply(1)
    state.apply(0)
    assert state.events == (
        ev("action", 1, 0),
        ev("fold", 1, 3),
        ev("score", 0, 1),
        ev("score", 1, -1),
        ev("takes_pot", 0, 3, 1),
    )


def test_leduc_poker_the_public_card_then_a_raise_called_to_the_showdown():
    state = LeducPokerState.from_deal([4, 0, 2], [2])  # K1, J1, public Q1; seat 0 raised
    state.apply(1)  # seat 1 calls 2: the first round ends
    assert state.events == (ev("action", 1, 1), ev("call", 1, 2, 6), ev("public_card", -1, 2))
    state.apply(1)  # seat 0 checks
    assert state.events == (ev("action", 0, 1), ev("check", 0, 6))
    state.apply(2)  # seat 1 raises 4
    assert state.events == (ev("action", 1, 2), ev("raise", 1, 4, 10))
    state.apply(1)  # seat 0 calls: K beats J, 7 chips each
    assert state.events == (
        ev("action", 0, 1),
        ev("call", 0, 4, 14),
        ev("showdown", -1, 4, 0, 2),
        ev("score", 0, 7),
        ev("score", 1, -7),
        ev("takes_pot", 0, 14, 7),
    )


def test_leduc_poker_equal_ranks_split_the_pot():
    state = LeducPokerState.from_deal([4, 5, 0], [1, 1, 1])  # K1, K2, public J1; round 2
    state.apply(1)
    assert state.events == (
        ev("action", 1, 1),
        ev("check", 1, 2),
        ev("showdown", -1, 4, 5, 0),
        ev("split_pot", -1, 2),
    )


# -- The Council -------------------------------------------------------------------------


def test_the_council_the_last_pick_of_a_round_drafts_every_pick_and_its_chips():
    state = TheCouncilState.new_game(3, seed=1)
    picks = []
    for _ in range(3):
        picks.append(state.legal_actions()[0])
        state.apply(picks[-1])
    drafted = []
    for card in sorted(picks):  # the rules reveal the picks in card order (TC5)
        seat = picks.index(card)
        drafted.append(ev("draft", seat, card))
        drafted += [ev("chips", seat, x, 1) for x in CARDS[card].suits]
    assert state.events == (
        ev("action", 2, picks[2]),
        ev("pick", 2, picks[2]),
        *drafted,
    )
    assert state.event is None  # four more rounds before the event


def test_the_council_a_bid_counts_the_event_suits():
    # The Sailor (Waves, Leaves; rank 4): seat 0 offers a Waves chip.
    state = tcp.event_position(event="The Sailor", chips={0: {tcp.WAVES: 2}})
    state.apply(tcp.bid(tcp.WAVES))
    sailor = tcp.card("The Sailor")
    assert state.events == (
        ev("action", 0, tcp.bid(tcp.WAVES)),
        ev("chips", 0, tcp.WAVES, -1),
        ev("bid", 0, tcp.WAVES, 1, 4, sailor),
    )


def test_the_council_a_failed_event_takes_back_the_rank_a_crown_just_gave():
    # The Sailor (Waves, Leaves; rank 4) draws 3 Waves chips: a failure. Seat 0 bid none and
    # revealed The Sea (the Crown of Waves): its new Waves rank is the one it trades for a
    # traitor chip (the fewest Waves, TC11); nobody bid Leaves (a tie: nobody loses).
    state = tcp.event_position(
        event="The Sailor",
        drafted={0: ["The Sea"]},
        chips={1: {tcp.WAVES: 2}, 2: {tcp.WAVES: 1}},
    )
    tcp.take_bid(state, {}, ["The Sea"])
    tcp.take_bid(state, {tcp.WAVES: 2})
    state.apply(tcp.bid(tcp.WAVES))
    state.apply(tcp.END_BID)
    before, reveal = state.clone(), tcp.reveal_mask(state, [])
    state.apply(reveal)
    sea, sailor = tcp.card("The Sea"), tcp.card("The Sailor")
    assert state.events == (
        ev("action", 2, reveal),
        ev("choose_reveal", 2, 0),
        ev("reveal", 0, sea),
        ev("crown", 0, sea),
        ev("rank", 0, tcp.WAVES, 1),
        ev("outcome", -1, sailor, 3, 0, 0),
        ev("suit", 0, tcp.WAVES, 0),
        ev("rank", 0, tcp.WAVES, -1),
        ev("traitor", 0, 1),
        ev("suit", -1, tcp.LEAVES, 1),
        ev("new_hand", -1, 2),  # the hand's last event (event_position's default)
    )
    assert EVENTS_PER_HAND == 5
    effects = action_effects(before, state, reveal)
    assert [line.text for line in effects.lines if line.seat == 0 and line.HasField("seat")] == [
        "reveals The Sea",
        "bid the fewest Waves: trades a Waves rank for a traitor",
        "The Sea: +1 Waves rank",
    ]
    assert [(s.seat, s.traitor_chips, s.HasField("ranks")) for s in effects.seats] == [
        (0, 1, False),  # +1 then -1 Waves rank: no change
    ]


# -- Council of Four ---------------------------------------------------------------------


def test_council_of_four_an_election_pays_the_elect_coins():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    leaving = state.to_raw()["balcony"][0][3]
    state.apply(1)  # elect white into the coast council
    white = B.COUNCILLOR_COLOURS.index("white")
    assert state.events == (
        ev("action", 0, 1),
        ev("elect", 0, 0, white, leaving),
        ev("coins", 0, B.RULE_NUMBERS["elect_coins"]),
    )


def test_council_of_four_a_king_build_collects_the_linked_tokens_in_order():
    # Seat 0 pays the king's council with four cards (no coins) to move him from Juvelar
    # to Merkatim (2 roads, 4 coins) and builds there, linked to five cities of its own.
    state = (
        Pos(players=3)
        .known_councils()
        .tokens(
            {
                "Merkatim": T_NOB_A,
                "Hellar": T_VP3,
                "Osium": T_ASS1,
                "Esti": T_COIN_ASS,
                "Naris": T_VP1,
                "Burgen": T_COINS1,
            }
        )
        .emporia(0, ["Hellar", "Osium", "Esti", "Naris", "Burgen"])
        .emporia(1, [])
        .emporia(2, [])
        .neutral([])
        .nobility(0, 3)
        .coins(0, 10)
        .assistants(0, 1)
        .hand(0, white=1, black=1, pink=1, purple=1)
        .king("Juvelar")
        .state()
    )
    merkatim = B.city_index("Merkatim")
    state.apply(build_king(merkatim))
    action = pay(white=1, black=1, pink=1, purple=1)
    state.apply(action)
    city = B.city_index
    assert state.events == (
        ev("action", 0, action),
        ev("pay", 0, action - ACTION_OFFSETS["pay"], 0, KING),  # four cards: no coins
        ev("king_move", 0, city("Juvelar"), merkatim, 2, 4),
        ev("coins", 0, -4),
        ev("build", 0, merkatim, 0),
        ev("token", 0, merkatim, T_NOB_A),
        ev("nobility", 0, 3, 4),
        ev("nobility_space", 0, 4),  # a choice: the city token decision comes next
        ev("token", 0, city("Hellar"), T_VP3),
        ev("token", 0, city("Osium"), T_ASS1),
        ev("assistants", 0, 1),
        ev("token", 0, city("Esti"), T_COIN_ASS),
        ev("coins", 0, 1),
        ev("assistants", 0, 1),
        ev("token", 0, city("Naris"), T_VP1),
        ev("token", 0, city("Burgen"), T_COINS1),
        ev("coins", 0, 1),
        ev("score", 0, 4),  # Hellar's 3 VP and Naris's 1
    )


# -- the effects come from the trace alone -----------------------------------------------


def test_a_position_no_apply_made_has_no_events():
    state = KuhnPokerState.new_game(seed=3)
    after = state.child(1)
    assert state.events == () and after.clone().events == () and after.view(0).events == ()
    with pytest.raises(ValueError, match="after: no event trace of action 1"):
        Trace(after.clone(), 1)
    with pytest.raises(ValueError, match="after: no event trace of action 0"):
        Trace(after, 0)  # the trace of another action


EFFECTS_MODULES = sorted((ROOT / "engine").glob("*_effects.py"))


def test_every_game_has_an_effects_module_checked_here():
    assert [p.name for p in EFFECTS_MODULES] == [
        "a_war_of_whispers_effects.py",
        "council_of_four_effects.py",
        "kuhn_poker_effects.py",
        "leduc_poker_effects.py",
        "the_council_effects.py",
    ]


@pytest.mark.parametrize("path", EFFECTS_MODULES, ids=lambda p: p.stem)
def test_an_effects_module_reads_no_position_but_its_trace(path):
    """No raw form, view, score or field of the positions compared: the facts come from
    the trace (``Trace(after, action)``), and `before` gives its seat count only."""
    tree = ast.parse(path.read_text())
    read = sorted(
        {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("before", "after", "state", "world")
        }
    )
    assert read == ["n_players"]
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not used & {"to_raw", "raw_pair", "view", "scores", "winners", "determinize"}


GAMES = {
    "council-of-four": 60,
    "the-council": 60,
    "kuhn-poker": 4,
    "leduc-poker": 6,
    "a-war-of-whispers": 120,
}


@pytest.mark.parametrize("name", GAMES)
def test_effects_told_from_the_trace_alone_are_the_effects(name):
    """Each action of a random game: its effects from stand-ins that hold only the seat
    count (`before`) and the trace (`after`) equal its effects from the positions, for every
    seat, and so do its known effects."""
    game = game_named(name)
    rng = random.Random(5)
    state = game.new_game(seed=5)
    for _ in range(GAMES[name]):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        after = state.child(action)
        bare_before = SimpleNamespace(n_players=state.n_players)
        bare_after = SimpleNamespace(events=after.events)
        for seat in [None, *range(state.n_players)]:
            for known in (False, True):
                told = game.effects(bare_before, bare_after, action, seat, known)
                assert told == game.effects(state, after, action, seat, known)
        state = after
