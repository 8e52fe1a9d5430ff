"""Leduc poker's rules (engine/_leduc_poker.pyx) against OpenSpiel's ``leduc_poker``: the legal
actions and returns of every history on every deal, exact positions (raise caps, the round
transition, showdowns with a pair, a high card and a split pot), views and sampling, its
messages and effects, and its chance outcomes."""

from __future__ import annotations

import importlib.util
import pickle
from collections import Counter
from fractions import Fraction
from itertools import permutations

import pytest

from council.engine import IllegalActionError
from council.engine._leduc_poker import LeducPokerState
from council.engine.games import game_named
from council.engine.leduc_poker import all_deals
from council.engine.leduc_poker_effects import effects
from council.engine.leduc_poker_messages import read, write
from council.engine.serialize import state_from_json, state_to_json
from council.mcts.leduc_poker_agents import LeducPokerExpertAgent

J1, J2, Q1, Q2, K1, K2 = range(6)
FOLD, CALL, RAISE = 0, 1, 2
DEALS = list(permutations(range(6), 3))  # seat 0's card, seat 1's, the public card


# OpenSpiel's leduc_poker, two players (open_spiel/games/leduc_poker/leduc_poker.cc), restated
# from its source independently of the engine: LeducState::LegalActions (fold only when the
# stake is above the seat's contribution, call always, raise below 2 raises a round),
# DoApplyAction (a raise matches the stake, then raises it by 2 in round 1, 4 in round 2), the
# round's end (ReadyForNextRound: no raise and both called, or a raise and one call), RankHand
# (a pair above every other hand; else the higher card, then the lower, by rank = card / 2)
# and ResolveWinner (the pot split among the best hands; returns are money less 100).
def openspiel_reference(deal, history):
    """(legal actions, None) before the end, (None, returns) at the end, or None for a
    history that is not a line of play."""
    cards, public = deal[:2], deal[2]
    ante, stakes, raises, calls, rnd, player = [1, 1], 1, 0, 0, 1, 0
    for action in history:
        legal = ([FOLD] if stakes > ante[player] else []) + [CALL]
        legal += [RAISE] if raises < 2 else []
        if action not in legal:
            return None
        if action == FOLD:
            winner = 1 - player
            return None, [ante[player] if p == winner else -ante[p] for p in (0, 1)]
        if action == RAISE:
            stakes += 2 if rnd == 1 else 4
            ante[player] = stakes
            raises, calls = raises + 1, 0
            player = 1 - player
            continue
        ante[player] = stakes
        calls += 1
        if (raises == 0 and calls == 2) or (raises > 0 and calls == 1):
            if rnd == 2:
                ranks = []
                for p in (0, 1):
                    low, high = sorted((public, cards[p]))
                    pair = low % 2 == 0 and high == low + 1
                    ranks.append(36 + low if pair else (high // 2) * 6 + low // 2)
                pot = sum(ante)
                winners = [p for p in (0, 1) if ranks[p] == max(ranks)]
                return None, [(pot / len(winners) if p in winners else 0) - ante[p] for p in (0, 1)]
            rnd, raises, calls, player = 2, 0, 0, 0
        else:
            player = 1 - player
    legal = ([FOLD] if stakes > ante[player] else []) + [CALL] + ([RAISE] if raises < 2 else [])
    return legal, None


def every_history(deal):
    """Every line of play on a deal (by the reference), ends included."""
    lines, stack = [], [()]
    while stack:
        history = stack.pop()
        lines.append(history)
        legal, _ = openspiel_reference(deal, history)
        stack.extend(history + (a,) for a in legal or ())
    return lines


def test_the_reference_is_openspiels_where_pyspiel_is_installed():
    # Without pyspiel, the reference above (restated from the source cited) is the oracle;
    # with it, the reference must agree with OpenSpiel itself on every history of every deal.
    histories = every_history(DEALS[0])
    if importlib.util.find_spec("pyspiel") is None:
        assert len(histories) == 36 + 49  # decisions and ends (test_the_tree_has_openspiels_counts)
        return
    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    for deal in DEALS:
        for history in every_history(deal):
            state = game.new_initial_state()
            state.apply_action(deal[0])
            state.apply_action(deal[1])
            round_one = True
            for a in history:
                if state.is_chance_node():  # the public card, between the rounds
                    state.apply_action(deal[2])
                    round_one = False
                state.apply_action(a)
            if round_one and state.is_chance_node():
                state.apply_action(deal[2])
            legal, returns = openspiel_reference(deal, history)
            if state.is_terminal():
                assert (None, list(state.returns())) == (legal, returns), (deal, history)
            else:
                assert (list(state.legal_actions()), None) == (legal, returns), (deal, history)


@pytest.mark.parametrize("public", [J1, Q2, K1], ids=["public-J1", "public-Q2", "public-K1"])
def test_legal_actions_and_returns_of_every_history_are_openspiels(public):
    count = 0
    for deal in (d for d in DEALS if d[2] == public):
        for history in every_history(deal):
            legal, returns = openspiel_reference(deal, history)
            state = LeducPokerState.from_deal(list(deal), [])
            for a in history:  # played through apply, as a game is
                state.apply(a)
            if returns is None:
                assert not state.is_terminal() and state.legal_actions() == legal
                assert state.returns() == [0.0, 0.0] and state.winners() == []
            else:
                assert state.is_terminal() and state.legal_actions() == []
                assert state.returns() == returns and state.scores() == [int(r) for r in returns]
                best = max(returns)
                assert state.winners() == [p for p in (0, 1) if returns[p] == best]
            count += 1
    assert count == 20 * 85  # the 20 deals with this public card, 85 histories each


def test_the_tree_has_openspiels_counts():
    # Per deal: 6 decisions of the first round, 5 ways into the second, 6 decisions in each;
    # OpenSpiel's 936 information states are these decisions over the cards a seat can tell.
    histories = every_history(DEALS[0])
    decisions = [h for h in histories if openspiel_reference(DEALS[0], h)[1] is None]
    assert len(decisions) == 6 + 5 * 6
    assert len(histories) - len(decisions) == 4 + 5 * 9  # folds, and the second round's ends


def test_the_raise_cap_and_the_round_transition():
    state = LeducPokerState.from_deal([K1, J1, Q1], [])
    assert state.legal_actions() == [CALL, RAISE] and state.decision_name == "bet"
    assert state.action_to_text(CALL) == "check"
    state.apply(RAISE)  # seat 0: 1 + 2
    state.apply(RAISE)  # seat 1 matches 3 and raises 2: 5
    assert state.put_in == [3, 5] and state.pot == 8 and state.raises == 2
    assert state.legal_actions() == [FOLD, CALL]  # two raises a round: no third
    with pytest.raises(IllegalActionError, match="not legal here"):
        state.apply(RAISE)
    assert state.round == 0 and state.current_player == 0
    state.apply(CALL)  # the round ends: the second opens with seat 0, no raise yet
    assert (state.round, state.current_player, state.raises, state.put_in) == (1, 0, 0, [5, 5])
    assert state.rounds == [[RAISE, RAISE, CALL], []]
    assert state.legal_actions() == [CALL, RAISE]
    state.apply(CALL)  # check
    state.apply(RAISE)  # seat 1 raises 4 in the second round
    assert state.put_in == [5, 9] and state.legal_actions() == [FOLD, CALL, RAISE]
    state.apply(FOLD)
    assert state.is_terminal() and state.folded == 0 and not state.showed_down
    assert state.returns() == [-5.0, 5.0] and state.winners() == [1]
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(CALL)


def test_check_check_ends_a_round_and_a_check_then_raise_does_not():
    state = LeducPokerState.from_deal([K1, J1, Q1], [CALL])
    assert state.round == 0 and state.current_player == 1
    assert state.child(CALL).round == 1 and state.child(CALL).current_player == 0
    raised = state.child(RAISE)
    assert (
        raised.round == 0
        and raised.current_player == 0
        and raised.legal_actions()
        == [
            FOLD,
            CALL,
            RAISE,
        ]
    )


@pytest.mark.parametrize(
    ("deal", "returns", "winners"),
    [
        ([J1, K1, J2], [5.0, -5.0], [0]),  # seat 0 pairs its Jack: a pair beats a King
        ([Q1, K1, J1], [-5.0, 5.0], [1]),  # no pair: the King is high
        ([K1, K2, Q1], [0.0, 0.0], [0, 1]),  # two Kings, no pair: a split pot
        ([Q2, K2, Q1], [5.0, -5.0], [0]),  # a pair of Queens over a King
    ],
    ids=["pair", "high-card", "tie", "pair-over-king"],
)
def test_showdowns(deal, returns, winners):
    # Raise and call in the first round (3 each), check and check in the second... then a
    # second-round raise and call: 5 each.
    state = LeducPokerState.from_deal(deal, [RAISE, CALL, CALL, CALL])
    assert state.is_terminal() and state.showed_down and state.put_in == [3, 3]
    assert state.returns() == [r * 3 / 5 for r in returns] and state.winners() == winners
    state = LeducPokerState.from_deal(deal, [RAISE, CALL, RAISE, CALL])
    assert state.put_in == [7, 7] and state.returns() == [r * 7 / 5 for r in returns]


def test_a_seeded_deal_and_its_exact_positions():
    state = LeducPokerState.new_game(seed=3)
    assert state == LeducPokerState.new_game(seed=3) and state != LeducPokerState.new_game(seed=1)
    deals = Counter(
        (s.cards[0], s.cards[1], s.public_card)
        for s in (LeducPokerState.new_game(seed=k) for k in range(3000))
    )
    assert set(deals) == set(DEALS)  # every deal comes up, none twice a card
    state = LeducPokerState.from_deal([K1, J1, Q1], [RAISE, CALL, CALL])
    assert state.to_raw() | {"rng": 0} == {
        "rng": 0,
        "action_count": 3,
        "n_players": 2,
        "viewer": -1,
        "current": 1,
        "round": 1,
        "round_start": 2,
        "raises": 0,
        "calls": 1,
        "folded": -1,
        "n_moves": 3,
        "moves": [RAISE, CALL, CALL, -1, -1, -1, -1, -1],
        "cards": [K1, J1],
        "public_card": Q1,
        "put_in": [3, 3],
        "score": [0, 0],
    }
    assert pickle.loads(pickle.dumps(state)) == state
    assert state.action_from_text("check") == CALL and state.action_from_text("bet") == RAISE
    with pytest.raises(ValueError, match="not an action of Leduc poker"):
        state.action_from_text("all-in")


def test_adjudication_shows_down_what_both_matched():
    state = LeducPokerState.from_deal([K1, J1, Q1], [RAISE, CALL, RAISE])  # 3 + 4 unanswered
    done = state.adjudicated()
    assert done.is_terminal() and done.put_in == [3, 3]  # seat 0's raise of 4 returned
    assert done.returns() == [3.0, -3.0] and done.winners() == [0]


def test_views_hide_the_other_card_and_the_public_card_until_shown():
    state = LeducPokerState.from_deal([K1, J1, Q1], [RAISE])
    view = state.view(1)
    assert view.cards == [-1, J1] and view.public_card == -1 and view.problems() == []
    with pytest.raises(ValueError, match="needs a full state"):
        view.legal_actions()
    second = state.child(CALL)  # the public card is shown
    assert second.view(0).public_card == Q1 and second.view(0).cards == [K1, -1]
    folded = second.child(RAISE).child(FOLD)  # seat 1 folds: its card stays hidden
    assert folded.view(0).cards == [K1, -1] and folded.view(1).cards == [-1, J1]
    shown = second.child(CALL).child(CALL)  # a showdown shows both
    assert shown.view(0).cards == [K1, J1] and shown.view(0).returns() == [3.0, -3.0]


def test_determinize_deals_only_cards_the_view_allows():
    first = LeducPokerState.from_deal([K1, J1, Q1], [RAISE]).view(1)
    worlds = [first.determinize(seed=s) for s in range(600)]
    assert all(w.cards[1] == J1 and w.history == [RAISE] and not w.is_view for w in worlds)
    pairs = Counter((w.cards[0], w.public_card) for w in worlds)
    # The other card and the public card: any ordered pair of the 5 cards left, 20 in all.
    assert set(pairs) == {(a, b) for a, b in permutations([J2, Q1, Q2, K1, K2], 2)}
    second = LeducPokerState.from_deal([K1, J1, Q1], [RAISE, CALL]).view(0)
    seen = Counter(second.determinize(seed=s).cards[1] for s in range(400))
    assert set(seen) == {J1, J2, Q2, K2}  # never the viewer's King nor the public Queen
    assert all(second.determinize(seed=s).public_card == Q1 for s in range(20))


def test_messages_round_trip_and_name_bad_fields():
    state = LeducPokerState.from_deal([K1, J1, Q1], [RAISE, CALL, CALL])
    ends = (state.child(CALL), state.child(RAISE).child(FOLD))
    for position in (state, state.view(0), state.view(1), *ends, ends[0].view(1)):
        assert read(write(position)) == (position, [])
        assert state_from_json(state_to_json(position)) == position
    msg = write(state.view(1))
    assert (list(msg.leduc_poker.cards), msg.leduc_poker.public_card) == (["", "J1"], "Q1")
    msg.leduc_poker.cards[0] = "K1"  # a view naming a card it cannot see
    assert read(msg)[1] == [
        ("leduc_poker.cards[0]", "must be absent in a view: the other seat's card is hidden")
    ]
    msg = write(LeducPokerState.from_deal([K1, J1, Q1], [RAISE]).view(0))
    msg.leduc_poker.public_card = "Q1"
    assert read(msg)[1] == [
        ("leduc_poker.public_card", "must be absent in a view before the second round")
    ]
    msg = write(state)
    msg.leduc_poker.public_card = "K1"
    assert read(msg)[1] == [("leduc_poker.cards", "the deal names one card twice")]
    msg = write(state)
    msg.leduc_poker.history[:] = ["fold"]
    assert read(msg)[1] == [
        ("leduc_poker.history[0]", "fold is not legal here: nothing to fold to")
    ]
    msg.leduc_poker.history[:] = ["raise", "raise", "raise"]
    assert read(msg)[1] == [
        ("leduc_poker.history[2]", "raise is not legal here: the round's raises are used up")
    ]
    msg = write(state)
    msg.leduc_poker.current = 0
    assert read(msg)[1] == [("leduc_poker.current", "must be 1 after this history, got 0")]


def test_effects_name_the_chips_the_public_card_and_the_showdown():
    state = LeducPokerState.from_deal([K1, J1, Q1], [RAISE])
    after = state.child(CALL)
    e = effects(state, after, CALL, None)
    assert [line.text for line in e.lines] == [
        "calls 2 chips: the pot is 6 chips",
        "the public card: Q1",
    ]
    assert effects(state, after, CALL, 1, True).partial  # the card is not known before
    state = after.child(RAISE)
    e = effects(state, state.child(CALL), CALL, None)
    assert [line.text for line in e.lines] == [
        "calls 4 chips: the pot is 14 chips",
        "showdown: K1 against J1, the public card Q1: takes the pot of 14 chips, +7",
    ]
    assert [(s.seat, s.score, s.chips_bet) for s in e.seats] == [(0, 7, 0), (1, -7, 4)]
    tie = LeducPokerState.from_deal([K1, K2, Q1], [CALL, CALL, CALL])
    e = effects(tie, tie.child(CALL), CALL, None)
    assert e.lines[-1].text == "showdown: K1 against K2, the public card Q1: a split pot, 0 each"
    e = effects(state, state.child(FOLD), FOLD, None)
    assert [line.text for line in e.lines] == [
        "folds: gives up the pot",
        "takes the pot of 10 chips, +3",
    ]


def test_all_deals_are_the_120_deals_at_equal_chance():
    deals = all_deals()
    assert sorted((s.cards[0], s.cards[1], s.public_card) for s, _ in deals) == sorted(DEALS)
    assert {p for _, p in deals} == {Fraction(1, 120)} and all(s.history == [] for s, _ in deals)


def test_the_expert_raises_strong_hands_and_folds_weak_ones_to_a_raise():
    expert = LeducPokerExpertAgent()
    assert expert.act(LeducPokerState.from_deal([K1, J1, Q1], []).view(0), seed=1) == RAISE
    assert expert.act(LeducPokerState.from_deal([Q1, J1, K1], []).view(0), seed=1) == CALL
    facing = LeducPokerState.from_deal([K1, J1, Q1], [RAISE, RAISE])
    assert expert.act(facing.view(0), seed=1) == CALL  # the round's raises are used up
    second = LeducPokerState.from_deal([K1, J1, J2], [CALL, CALL, RAISE])
    assert expert.act(second.view(1), seed=1) == RAISE  # a pair of Jacks
    second = LeducPokerState.from_deal([J1, Q1, K1], [CALL, CALL, RAISE])
    assert expert.act(second.view(1), seed=1) == FOLD  # a Queen under the public King
    game = game_named("leduc-poker")
    assert game.players == (2,) and game.new_game(seed=3) == LeducPokerState.new_game(seed=3)
