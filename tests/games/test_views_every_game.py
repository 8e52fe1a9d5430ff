"""Views and determinization of every registered game, at every position of seeded random
games and for every seat.

A view holds nothing its seat cannot know: full states that differ only in what the seat
cannot see (another chance seed, other hidden cards drawn by ``determinize``) give the
same view, to the byte of its message, and the view's message carries no chance state. A
determinization completes a view into a full state whose view is the original view, is a
function of the view and the seed, and is a position of play like any other.
"""

from __future__ import annotations

import pytest
from every_game import EVERY_GAME, EVERY_SEAT_COUNT, every_position

DRAWS = (0, 1, 2**63 + 5)  # the determinization seeds tried at each position


def message(game, position) -> bytes:
    return game.write(position).SerializeToString(deterministic=True)


def hidden_part(position):
    """A full state with its chance seed set to one value: what remains differs between two
    full states only where their cards (or other hidden facts) differ."""
    fixed = position.clone()
    fixed.reseed(0)
    return fixed


@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_a_view_holds_nothing_its_seat_cannot_know(game, players):
    hides_cards = [0] * players  # positions where a determinization drew other hidden cards
    for state in every_position(game, players):
        truth = hidden_part(state)
        for seat in range(players):
            view = state.view(seat)
            assert view.is_view and view.viewer == seat and view.problems() == []
            assert view.view(seat) == view
            msg = game.write(view)
            assert msg.viewer == seat and not msg.HasField("rng"), "a view names no chance state"
            # Another chance seed behind the same position: the seat cannot tell.
            reseeded = state.clone()
            reseeded.reseed(state.action_count + 7)
            assert reseeded.view(seat) == view
            # Other hidden cards behind the same position: the seat cannot tell either.
            other = view.determinize(state.action_count)
            assert message(game, other.view(seat)) == message(game, view), (
                f"{game.name}: seat {seat}'s view shows what it cannot know"
            )
            hides_cards[seat] += hidden_part(other) != truth
    # A view that leaked every hidden card would let a determinization draw only the truth.
    assert all(hides_cards), f"{game.name}: some seat's views hide nothing: {hides_cards}"


@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_determinize_is_consistent_with_the_view(game, players):
    for state in every_position(game, players):
        for seat in range(players):
            view = state.view(seat)
            before = message(game, view)
            for seed in DRAWS:
                world = view.determinize(seed)
                assert not world.is_view and world.viewer == -1
                assert world.view(seat) == view, (
                    f"{game.name}: seat {seat} can tell determinize({seed}) from the truth"
                )
                assert world == view.determinize(seed), "determinize is a function of its seed"
                assert world.is_terminal() == state.is_terminal()
                assert world.current_player == state.current_player
                if seat == state.current_player:  # its options depend on its view alone
                    assert world.problems() == []
                    assert world.legal_actions() == state.legal_actions()
            assert message(game, view) == before and view.is_view, "determinize changed the view"


def unplayable_determinizations(game, players) -> list[str]:
    """The positions where a determinization of a seat's view, for a seat not to move, is no
    position of play (``problems()`` finds something: the mover has no legal action)."""
    found = []
    for state in every_position(game, players):
        for seat in range(players):
            if seat == state.current_player:
                continue
            for seed in DRAWS:
                problems = state.view(seat).determinize(seed).problems()
                if problems:
                    found.append(f"action {state.action_count}, seat {seat}: {problems[0]}")
    return found


# A view may show that the seat to move owes a payment (Council of Four's pay_king,
# pay_permit), so its real hand can pay: a determinization must deal it one that can.
@pytest.mark.parametrize(("game", "players"), EVERY_SEAT_COUNT)
def test_a_determinization_for_any_seat_is_a_position_of_play(game, players):
    assert unplayable_determinizations(game, players) == []


@pytest.mark.parametrize("game", EVERY_GAME)
def test_views_refuse_the_rules_and_determinize_refuses_a_full_state(game):
    state = game.new_game(seed=1)
    n = state.n_players
    view = state.view(n - 1)
    for call in (view.legal_actions, lambda: view.apply(0), lambda: view.reseed(1)):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError, match="determinize needs a view"):
        state.determinize(1)
    for seat in (-1, n):
        with pytest.raises(ValueError, match=f"seat must be in 0..{n - 1}"):
            state.view(seat)
