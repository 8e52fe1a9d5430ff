"""The history of The Council's draft that a position keeps (``draft_picks``): each seat's
pick of each round of this hand, public once the round's picks are revealed; in the schema
(``the_council.draft_picks``), where a message written without it reads as no history."""

from __future__ import annotations

from council.engine._the_council import CARD_NAMES, DRAFT_ROUNDS
from council.engine.serialize import state_from_proto, state_to_proto
from council.engine.the_council import TheCouncilState


def play_rounds(state: TheCouncilState, rounds: int) -> list[list[int]]:
    """Play `rounds` draft rounds, each seat taking the last card of its pack; the picks,
    round by round."""
    picks = []
    for _ in range(rounds):
        row = []
        for _ in range(state.n_players):
            card = state.legal_actions()[-1]  # pick actions are the card ids
            row.append(card)
            state.apply(card)
        picks.append(row)
    return picks


def test_each_rounds_picks_are_kept_once_revealed_and_cleared_by_a_new_hand():
    state = TheCouncilState.new_game(4, seed=11)
    assert state.to_raw()["draft_picks"] == [[-1] * DRAFT_ROUNDS] * 5
    picks = play_rounds(state, 2)
    state.apply(state.legal_actions()[0])  # seat 0's secret pick of round 2: not kept yet
    kept = state.to_raw()["draft_picks"]
    for p in range(4):
        assert kept[p] == [picks[0][p], picks[1][p], -1, -1, -1]
    assert kept[4] == [-1] * DRAFT_ROUNDS
    # A view keeps them all (they are public), and so does every deal of it.
    view = state.view(2)
    assert view.to_raw()["draft_picks"] == kept
    assert view.determinize(seed=5).to_raw()["draft_picks"] == kept
    while state.hand == 1 and not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    assert state.phase == "draft"
    assert state.to_raw()["draft_picks"] == [[-1] * DRAFT_ROUNDS] * 5


def test_the_message_names_the_picks_round_by_round_and_reads_them_back():
    state = TheCouncilState.new_game(3, seed=2)
    picks = play_rounds(state, 2)
    for position in (state, state.view(1)):
        msg = state_to_proto(position)
        assert list(msg.the_council.draft_picks) == [CARD_NAMES[c] for row in picks for c in row]
        assert state_from_proto(msg) == position


def test_a_message_without_the_history_reads_as_none_and_a_wrong_one_is_named():
    state = TheCouncilState.new_game(3, seed=2)
    play_rounds(state, 2)
    msg = state_to_proto(state.view(0))
    old = type(msg)()
    old.CopyFrom(msg)
    del old.the_council.draft_picks[:]  # as written before the field existed
    read = state_from_proto(old)
    assert read.to_raw()["draft_picks"] == [[-1] * DRAFT_ROUNDS] * 5
    raw = read.to_raw()
    raw["draft_picks"] = state.to_raw()["draft_picks"]
    assert TheCouncilState.from_raw(raw) == state.view(0)

    short = type(msg)()
    short.CopyFrom(msg)
    del short.the_council.draft_picks[-1]
    problems = _problems(short)
    assert [path for path, _ in problems] == ["the_council.draft_picks"]

    swapped = type(msg)()
    swapped.CopyFrom(msg)
    names = list(msg.the_council.draft_picks)
    names[0], names[1] = names[1], names[0]  # seat 0's pick given to seat 1 and back
    del swapped.the_council.draft_picks[:]
    swapped.the_council.draft_picks.extend(names)
    problems = _problems(swapped)
    assert [path for path, _ in problems] == [
        "the_council.draft_picks[0]",
        "the_council.draft_picks[1]",
    ]
    assert "neither before seat 0 nor spent" in problems[0][1]


def _problems(msg) -> list[tuple[str, str]]:
    from council.engine.serialize_the_council import read

    state, problems = read(msg)
    assert state is None
    return problems
