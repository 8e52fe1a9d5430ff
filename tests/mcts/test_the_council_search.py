"""The compiled IS-MCTS on The Council: the same search as Council of Four's, through the
narrow game interface (mcts/_games.pxd)."""

from __future__ import annotations

import pytest
from council_positions import (
    BID,
    END_BID,
    MOONS,
    PH_BID,
    REVEAL,
    SUNS,
    card,
    draft_position,
    event_position,
    random_positions,
    reveal_mask,
    take_bid,
)

from council.engine.council_of_four import CouncilOfFourConfig
from council.engine.the_council import TheCouncilConfig, TheCouncilState
from council.mcts._the_council_search import the_council_policy_action
from council.mcts.agents import ISMCTSAgent, RandomAgent
from council.mcts.arena import play_game
from council.mcts.council_of_four_settings import CouncilOfFourSettings
from council.mcts.search import (
    SearchConfig,
    SearchLimits,
    default_config,
    search,
    search_full_state,
)
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG, TheCouncilSettings


def positions(players: int):
    """Positions along a seeded random game: draft, bids and reveals."""
    return random_positions(players, seed=50 + players, every=5)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_search_answers_a_legal_action_in_every_phase(players):
    phases = set()
    for state in positions(players):
        view = state.view(state.current_player)
        result = search(view, SearchLimits(iterations=60), seed=4)
        assert result.action in state.legal_actions()
        assert result.iterations == (32 if result.forced else 60)
        assert sum(c.visits for c in result.candidates) == result.iterations
        phases.add(state.phase)
    assert phases == {"draft", "bid", "reveal"}


def test_search_is_deterministic_and_sees_only_the_view():
    state = TheCouncilState.new_game(4, seed=8)
    for _ in range(5):  # into the second draft round: seat 1 has seen two packs
        state.apply(state.legal_actions()[0])
    view = state.view(state.current_player)
    other = view.determinize(seed=77)  # another full state behind the same view
    assert other != state and other.view(state.current_player) == view
    results = [
        search(s.view(state.current_player), SearchLimits(iterations=400), seed=3)
        for s in (state, other, state)
    ]
    assert len({(r.action, r.candidates) for r in results}) == 1


def test_root_parallel_trees_sum_their_iterations():
    state = TheCouncilState.new_game(5, seed=2)
    result = search(state.view(0), SearchLimits(iterations=300, threads=2), seed=1)
    assert result.iterations == 300 and result.action in state.legal_actions()


def test_the_default_config_follows_the_game():
    assert default_config(TheCouncilState.new_game(3)) == THE_COUNCIL_CONFIG
    assert default_config(CouncilOfFourConfig(players=2).new_game()) == SearchConfig(
        game=CouncilOfFourSettings()
    )
    assert THE_COUNCIL_CONFIG.evaluator == "heuristic" and THE_COUNCIL_CONFIG.policy == "none"


@pytest.mark.parametrize(
    "setting", [{"evaluator": "learned", "policy": "none"}, {"evaluator": "heuristic"}]
)
def test_learned_models_are_refused_for_the_council_by_name(setting):
    state = TheCouncilState.new_game(4, seed=1)
    with pytest.raises(ValueError, match="The Council has no learned models"):
        search(state.view(0), SearchLimits(iterations=10), SearchConfig(**setting))


def test_a_full_state_search_and_a_finished_game():
    state = TheCouncilState.new_game(3, seed=6)
    assert search_full_state(state, SearchLimits(iterations=50)).action in state.legal_actions()
    state.random_playout(seed=1)
    with pytest.raises(ValueError, match="over"):
        search(state.view(0), SearchLimits(iterations=10))


def test_the_arena_plays_the_council_with_any_agent():
    final, actions = play_game(
        [ISMCTSAgent(iterations=30), RandomAgent(), RandomAgent()], TheCouncilConfig(3), seed=9
    )
    assert final.is_terminal() and actions == final.action_count
    assert sorted(final.winners()) == final.winners() and final.winners()


PARAMS = THE_COUNCIL_CONFIG.params()


def policy_actions(state: TheCouncilState, draws: int = 200) -> list[int]:
    return [the_council_policy_action(state, seed, PARAMS) for seed in range(draws)]


def test_the_policy_reveals_crowns_and_cards_of_the_event_suits_and_keeps_the_rest():
    # The Mountain (Moons, Suns), the hand's second event: the Ace and the number of an
    # event suit act, the Crown gains a rank anywhere; the Ace and the number of other
    # suits are kept for a later event.
    drafted = ["Ace of Moons", "The Diplomat", "The Huntress", "Ace of Waves", "The Sailor"]
    s = event_position(event="The Mountain", drafted={0: drafted}, events_done=1)
    take_bid(s.clone(), {}, ())  # the position is playable
    s.apply(END_BID)
    want = reveal_mask(s, ["Ace of Moons", "The Diplomat", "The Huntress"])
    assert set(policy_actions(s)) == {want}


def test_the_policy_reveals_a_court_at_a_chance_and_everything_at_the_last_event():
    s = event_position(
        event="The Mountain", drafted={0: ["The Consul", "Ace of Waves"]}, events_done=1
    )
    s.apply(END_BID)
    assert set(policy_actions(s)) == {REVEAL, reveal_mask(s, ["The Consul"])}
    last = event_position(event="The Mountain", drafted={0: ["The Consul", "Ace of Waves"]})
    last.apply(END_BID)
    assert set(policy_actions(last)) == {reveal_mask(last, ["The Consul", "Ace of Waves"])}


def test_the_policy_bids_only_until_it_leads_a_suit():
    # Seat 0 offered two Moons; seat 1 (four Moons, one Sun) adds chips in a suit it does
    # not lead yet, or ends its offer.
    s = event_position(event="The Mountain", chips={0: {MOONS: 2}, 1: {MOONS: 4, SUNS: 1}})
    take_bid(s, {MOONS: 2}, ())
    assert s.current_player == 1 and s.to_raw()["phase"] == PH_BID
    first = policy_actions(s, 400)
    assert set(first) == {BID + MOONS, BID + SUNS, END_BID}
    assert 0.08 < first.count(END_BID) / len(first) < 0.25  # TC_BID_ON = 0.85
    for _ in range(3):
        s.apply(BID + MOONS)  # now leading Moons 3 to 2; Suns is the only chip left to lead
    assert set(policy_actions(s)) == {BID + SUNS, END_BID}
    s.apply(BID + SUNS)  # leads both suits
    assert set(policy_actions(s)) == {END_BID}


def test_the_policy_drafts_crowns_and_cards_of_more_suits_more_often():
    pack = ["The Huntress", "The Author", "Ace of Moons", "The Watchman", "The Journey", "The Pact"]
    others = [
        ["The Desert", "The Origin", "The Savage", "The Sailor", "The Battle", "The Forest"],
        ["The Soldier", "The Lunatic", "The Penitent", "The Market", "The Castle", "The Cave"],
    ]
    s = draft_position([pack] + others)
    picks = policy_actions(s, 2000)
    share = {name: picks.count(card(name)) / len(picks) for name in pack}
    # e^(suits + 2 for a Crown, + 1.5 for an Ace): Crown 3, Pawn 3, Ace 2.5, numbers 2.
    assert share["The Huntress"] > share["Ace of Moons"] > share["The Author"]
    assert share["The Watchman"] > share["The Journey"]
    assert abs(share["The Huntress"] - share["The Watchman"]) < 0.05


def _secret(action: int) -> bool:
    return action < BID or action >= REVEAL


@pytest.mark.parametrize("players", (3, 4))
def test_secret_choices_below_the_root_are_not_tree_nodes_by_default(players):
    found_searched = False
    for state in positions(players):
        view = state.view(state.current_player)
        limits = SearchLimits(iterations=1500)
        default = search(view, limits, seed=2)
        searched = search(
            view, limits, THE_COUNCIL_CONFIG.with_settings({"tree_secrets": 1}), seed=2
        )
        assert not any(_secret(a) for a in default.principal_variation[1:])
        found_searched |= any(_secret(a) for a in searched.principal_variation[1:])
    # With tree_secrets=1 the lines do go through other seats' picks and reveals.
    assert found_searched
    assert TheCouncilSettings().tree_secrets == 0


def test_tree_secrets_must_be_0_or_1():
    view = TheCouncilState.new_game(4, seed=1).view(0)
    with pytest.raises(ValueError, match="tree_secrets"):
        search(
            view, SearchLimits(iterations=5), THE_COUNCIL_CONFIG.with_settings({"tree_secrets": 2})
        )
