"""The arena's game-length cap: stalled games are adjudicated, not raised or lost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import pytest

from council.engine._council_of_four import ACTION_OFFSETS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts import agents as agents_module
from council.mcts.agents import RandomAgent
from council.mcts.arena import play_capped, play_game, run_arena

END_TURN = ACTION_OFFSETS["end_turn"]
ELECT_FIRST, ELECT_LAST = ACTION_OFFSETS["elect"], ACTION_OFFSETS["acquire"] - 1


@dataclass(frozen=True)
class StallAgent:
    """Never builds: elects a councillor, then ends the turn. Its games never end."""

    sees_true_state: ClassVar[bool] = False

    def act(self, view: CouncilOfFourState, seed: int) -> int:
        actions = view.determinize(seed).legal_actions()
        elect = [a for a in actions if ELECT_FIRST <= a <= ELECT_LAST]
        return elect[seed % len(elect)] if elect else END_TURN


@pytest.fixture
def stall_label(monkeypatch):
    monkeypatch.setitem(agents_module.AGENTS, "stall", StallAgent)


def tie_break_winners(state: CouncilOfFourState) -> list[int]:
    """Most VP, then most assistants + politics cards, from the raw struct."""
    r = state.to_raw()
    n = state.n_players
    keys = [(r["vp"][p], r["assistants"][p] + r["hand_n"][p]) for p in range(n)]
    return [p for p in range(n) if keys[p] == max(keys)]


@pytest.mark.parametrize("players", [2, 3])
def test_a_game_that_never_ends_is_adjudicated_at_the_turn_cap(players):
    lineup = [StallAgent()] * players
    state, actions, adjudicated = play_capped(
        lineup, CouncilOfFourConfig(players=players), 5, max_turns=30
    )
    assert adjudicated and state.is_terminal()
    # 29 turns of elect + end; turn 30 has begun (its player drew) when the cap stops it.
    assert state.turn == 30 and actions == 29 * 2
    assert state.to_raw()["emporia_n"][:players] == [0] * players
    # Final scoring: nobility all 0 (5 each), no permit tiles (all tie: 3 each, RULINGS 8),
    # no bonus tiles.
    assert state.scores() == [8] * players
    assert state.winners() == tie_break_winners(state)
    # play_game: the same game, same state.
    again, n = play_game(lineup, CouncilOfFourConfig(players=players), 5, max_turns=30)
    assert again == state and n == actions


def test_the_action_guard_adjudicates_too():
    lineup = [StallAgent(), StallAgent()]
    state, actions, adjudicated = play_capped(
        lineup, CouncilOfFourConfig(players=2), 1, max_actions=41, max_turns=10**6
    )
    assert adjudicated and state.is_terminal() and actions == 41
    # Stopped in the middle of a turn (after the elect): the decisions are over.
    assert state.legal_actions() == [] and state.current_player == -1


def test_finished_games_are_not_adjudicated():
    lineup = [RandomAgent(), RandomAgent()]
    state, actions, adjudicated = play_capped(lineup, CouncilOfFourConfig(players=2), 3)
    assert not adjudicated and state.is_terminal() and state.turn < 300
    assert actions == state.action_count


def test_arena_counts_adjudicated_games(stall_label):
    report = run_arena([StallAgent(), RandomAgent()], deals=2, seed=4, workers=1, max_turns=30)
    # Stall never builds; random would need far more than 30 turns to end a game.
    assert report.games == 4 and report.adjudicated == 4
    assert all(r.adjudicated and r.turns == 30 for r in report.records)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["adjudicated"] == 4
    assert "4 adjudicated at the length cap" in report.to_text()
    # Adjudicated games count: every game has at least one winner.
    assert sum(s.wins for s in report.agents.values()) == pytest.approx(4)


def test_arena_default_cap_leaves_normal_games_alone():
    report = run_arena([RandomAgent(), RandomAgent()], deals=1, seed=2, workers=1)
    assert report.adjudicated == 0 and report.to_dict()["adjudicated"] == 0
    assert not any(r.adjudicated for r in report.records)
