"""Kuhn poker's rules (engine/_kuhn_poker.pyx) against OpenSpiel's ``kuhn_poker``: the legal
actions and returns of every history on every deal, exact positions, views and sampling,
its messages, and the equilibrium's value, -1/18 chip a game for the first seat."""

from __future__ import annotations

import importlib.util
import pickle
from fractions import Fraction
from itertools import permutations, product

import pytest

from council.engine import IllegalActionError
from council.engine._kuhn_poker import KuhnPokerState
from council.engine.games import game_named
from council.engine.kuhn_poker_messages import read, write
from council.engine.serialize import state_from_json, state_to_json
from council.mcts.kuhn_poker_agents import KuhnPokerExpertAgent, bet_chance, equilibrium_value

J, Q, K = 0, 1, 2
PASS, BET = 0, 1
DEALS = list(permutations((J, Q, K), 2))

# OpenSpiel's kuhn_poker, two players (open_spiel/games/kuhn_poker/kuhn_poker.cc,
# KuhnState::Returns and LegalActions): after the deal every decision offers [0, 1] (0 pass,
# 1 bet); a game ends after pass-pass, bet-pass, bet-bet, pass-bet-pass or pass-bet-bet. The
# returns of seat 0 (seat 1's are their negation): a fold loses the folder its ante, a
# showdown pays the higher card the other's ante (pass-pass) or ante and bet (a call).
# Each entry: history -> seat 0's return as a function of the deal (None: a showdown, +-stake).
OPENSPIEL_TERMINALS = {
    (PASS, PASS): ("showdown", 1),
    (BET, PASS): ("fixed", 1),  # seat 1 folds
    (BET, BET): ("showdown", 2),
    (PASS, BET, PASS): ("fixed", -1),  # seat 0 folds
    (PASS, BET, BET): ("showdown", 2),
}
OPENSPIEL_NONTERMINALS = [(), (PASS,), (BET,), (PASS, BET)]


def openspiel_returns(deal, history):
    """Seat 0's and seat 1's returns by the table above."""
    how, stake = OPENSPIEL_TERMINALS[history]
    first = stake if how == "fixed" else (stake if deal[0] > deal[1] else -stake)
    return [float(first), float(-first)]


def _pyspiel_table():
    """OpenSpiel's own answers, where pyspiel is installed: {(deal, history): (legal actions
    or returns)}."""
    import pyspiel

    game = pyspiel.load_game("kuhn_poker")
    table = {}
    for deal in DEALS:
        for history in OPENSPIEL_NONTERMINALS + list(OPENSPIEL_TERMINALS):
            state = game.new_initial_state()
            state.apply_action(deal[0])
            state.apply_action(deal[1])
            for a in history:
                state.apply_action(a)
            answer = state.returns() if state.is_terminal() else state.legal_actions()
            table[deal, history] = list(answer)
    return table


def test_the_table_is_openspiels_where_pyspiel_is_installed():
    # Without pyspiel, the table above is the reference (checked against the source cited);
    # with it, the table must agree with OpenSpiel itself.
    if importlib.util.find_spec("pyspiel") is None:
        assert len(OPENSPIEL_TERMINALS) == 5 and len(DEALS) == 6
        return
    table = _pyspiel_table()
    for deal in DEALS:
        for history in OPENSPIEL_NONTERMINALS:
            assert table[deal, history] == [PASS, BET]
        for history in OPENSPIEL_TERMINALS:
            assert table[deal, history] == openspiel_returns(deal, history)


@pytest.mark.parametrize("deal", DEALS, ids=["".join("JQK"[c] for c in d) for d in DEALS])
def test_legal_actions_and_returns_of_every_history_are_openspiels(deal):
    for history in OPENSPIEL_NONTERMINALS:
        state = KuhnPokerState.from_deal(list(deal), list(history))
        assert not state.is_terminal() and state.legal_actions() == [PASS, BET]
        assert state.current_player == len(history) % 2
        assert state.returns() == [0.0, 0.0] and state.winners() == []
    for history in OPENSPIEL_TERMINALS:
        state = KuhnPokerState.from_deal(list(deal), [])
        for a in history:  # played through apply, as a game is
            state.apply(a)
        assert state.is_terminal() and state.legal_actions() == []
        assert state.returns() == openspiel_returns(deal, history)
        assert state.scores() == [int(r) for r in state.returns()]
        assert state.winners() == [0 if state.returns()[0] > 0 else 1]
        with pytest.raises(IllegalActionError, match="the game is over"):
            state.apply(PASS)


def test_a_seeded_deal_and_its_exact_positions():
    state = KuhnPokerState.new_game(seed=3)
    assert state.cards == [J, K] and state.history == [] and state.decision_name == "bet"
    assert state == KuhnPokerState.new_game(seed=3) and state != KuhnPokerState.new_game(seed=1)
    deals = {tuple(KuhnPokerState.new_game(seed=s).cards) for s in range(60)}
    assert deals == set(DEALS)  # every deal comes up
    state.apply(PASS)
    assert (state.current_player, state.decision_name, state.turn) == (1, "bet", 1)
    state.apply(BET)
    assert state.decision_name == "call"
    assert [state.action_to_text(a) for a in (PASS, BET)] == ["fold", "call"]
    assert state.to_raw() | {"rng": 0} == {
        "rng": 0,
        "action_count": 2,
        "n_players": 2,
        "viewer": -1,
        "current": 0,
        "n_moves": 2,
        "moves": [PASS, BET, -1],
        "cards": [J, K],
        "score": [0, 0],
    }
    state.apply(state.action_from_text("fold"))
    assert state.decision_name == "over" and state.scores() == [-1, 1]
    assert pickle.loads(pickle.dumps(state)) == state
    with pytest.raises(ValueError, match="not an action of Kuhn poker"):
        state.action_from_text("raise")


def test_views_hide_the_other_card_until_a_showdown_and_sampling_fills_it():
    state = KuhnPokerState.new_game(seed=3)  # J against K
    view = state.view(0)
    assert view.cards == [J, -1] and view.is_view and view.problems() == []
    with pytest.raises(ValueError, match="needs a full state"):
        view.legal_actions()
    sampled = {view.determinize(seed=s).cards[1] for s in range(40)}
    assert sampled == {Q, K}  # never the viewer's own card
    folded = state.child(BET).child(PASS)  # seat 1 folds: nothing shown
    assert folded.view(0).cards == [J, -1] and folded.view(1).cards == [-1, K]
    called = state.child(BET).child(BET)
    assert called.view(0).cards == [J, K] and called.view(0).returns() == [-2.0, 2.0]


def test_messages_round_trip_and_name_bad_fields():
    state = KuhnPokerState.new_game(seed=3).child(PASS)
    for position in (state, state.view(0), state.view(1), state.child(BET).child(BET).view(0)):
        assert read(write(position)) == (position, [])
        assert state_from_json(state_to_json(position)) == position
    msg = write(state.view(1))
    msg.kuhn_poker.cards[0] = "J"  # a view naming a card it cannot see
    assert read(msg)[1] == [
        ("kuhn_poker.cards[0]", "must be absent in a view: the other seat's card is hidden")
    ]
    msg = write(state)
    msg.kuhn_poker.current = 0
    assert read(msg)[1] == [("kuhn_poker.current", "must be 1 after this history, got 0")]
    msg = write(state)
    msg.the_council.phase = "draft"  # the oneof: The Council's part replaces Kuhn poker's
    assert ("kuhn_poker", "required field is missing") in read(msg)[1]


def test_the_equilibrium_family_gives_the_first_seat_minus_one_eighteenth():
    for alpha in (Fraction(0), Fraction(1, 12), Fraction(1, 6), Fraction(1, 3)):
        assert equilibrium_value(alpha) == Fraction(-1, 18)


def _value(first, second) -> Fraction:
    """Seat 0's expected chips over the 6 deals, each seat betting with the chance its
    policy (card, history) -> chance gives, by exhaustive play of the rules core."""

    def walk(state, chance):
        if state.is_terminal():
            return chance * state.scores()[0]
        policy = (first, second)[state.current_player]
        bet = Fraction(policy(state.cards[state.current_player], tuple(state.history)))
        return walk(state.child(BET), chance * bet) + walk(state.child(PASS), chance * (1 - bet))

    return sum(
        (walk(KuhnPokerState.from_deal(list(deal), []), Fraction(1, 6)) for deal in DEALS),
        Fraction(0),
    )


def _pure_strategies(histories):
    """Every deterministic policy over the information sets (card, history)."""
    infosets = [(c, h) for c in (J, Q, K) for h in histories]
    for choice in product((0, 1), repeat=len(infosets)):
        table = dict(zip(infosets, choice, strict=True))
        yield lambda card, history, table=table: table[card, history]


def test_no_pure_deviation_of_either_seat_gains_against_the_equilibrium():
    """Best responses to the other seat's equilibrium strategy earn -1/18 for seat 0: the
    strategies are an equilibrium (checked over each seat's pure strategies, exhaustively)."""
    alpha = Fraction(1, 6)

    def equilibrium(card, history):
        return bet_chance(card, history, alpha)

    first = [_value(p, equilibrium) for p in _pure_strategies(((), (PASS, BET)))]
    second = [_value(equilibrium, p) for p in _pure_strategies(((PASS,), (BET,)))]
    assert max(first) == Fraction(-1, 18) and min(second) == Fraction(-1, 18)

    # The equilibrium leaves the other seat indifferent among its sensible choices; a
    # blunder (seat 1 folding a King to a bet) does cost: the computation tells them apart.
    def blunder(card, history):
        return 0 if (card, history) == (K, (BET,)) else equilibrium(card, history)

    assert _value(equilibrium, blunder) > Fraction(-1, 18)


def test_the_expert_plays_the_equilibrium_from_its_view():
    state = KuhnPokerState.new_game(seed=3)  # seat 0: J, seat 1: K
    assert KuhnPokerExpertAgent(alpha=0.0).act(state.view(0), seed=1) == PASS
    facing = state.child(BET)
    assert all(KuhnPokerExpertAgent().act(facing.view(1), seed=s) == BET for s in range(10))
    game = game_named("kuhn-poker")
    assert game.new_game(seed=3) == state and game.players == (2,)
