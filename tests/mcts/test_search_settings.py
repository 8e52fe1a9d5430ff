"""SearchConfig's settings: the search's own, and each game's own in the settings type its
game registers (issue 39), read by different compiled modules (issue 28, item 2); specs and
presets that reach both, and a config that hashes."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from council.engine._a_war_of_whispers import AWarOfWhispersState
from council.engine._kuhn_poker import KuhnPokerState
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.the_council import TheCouncilState
from council.mcts import (
    _a_war_of_whispers_search,
    _council_of_four_search,
    _kuhn_poker_search,
    _leduc_poker_search,
    _search,
    _the_council_search,
)
from council.mcts.a_war_of_whispers_agents import A_WAR_OF_WHISPERS_CONFIG
from council.mcts.agents import ISMCTSAgent, _config, parse_agent
from council.mcts.council_of_four_settings import DEFAULT_KIND_WEIGHTS, CouncilOfFourSettings
from council.mcts.games import all_search_games, search_game
from council.mcts.search import (
    SearchConfig,
    SearchLimits,
    default_config,
    game_config,
    policy_model,
    search,
    value_model,
)
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG

GAME_SETTINGS = {
    "council-of-four": _council_of_four_search.SETTINGS,
    "the-council": _the_council_search.SETTINGS,
    "kuhn-poker": _kuhn_poker_search.SETTINGS,
    "leduc-poker": _leduc_poker_search.SETTINGS,
    "a-war-of-whispers": _a_war_of_whispers_search.SETTINGS,
}
# Read in Python (search.py): the model files, handed to the tree as models, and how the
# move is chosen from the root's candidates.
READ_IN_PYTHON = {"value_model", "policy_model", "play"}
# The search's own setting that every game's module reads (refusing what it lacks).
READ_BY_EVERY_GAME = {"evaluator"}
COUNCIL_OF_FOUR = game_config(None, "council-of-four")


def test_the_config_holds_the_search_s_settings_and_its_game_s_the_game_s_type():
    own = {f.name for f in fields(SearchConfig)} - READ_IN_PYTHON - {"game"}
    assert own == set(_search.SETTINGS) | READ_BY_EVERY_GAME
    assert sorted(GAME_SETTINGS) == sorted(g.name for g in all_search_games())
    for game in all_search_games():
        theirs = {f.name for f in fields(game.settings)}
        assert theirs == set(GAME_SETTINGS[game.name]) - READ_BY_EVERY_GAME
        assert type(game.config.game) is game.settings


def _root_children(root, config: SearchConfig, params: dict) -> list:
    learned = config.evaluator == "learned"
    prior = config.policy == "learned"
    tree = _search.Tree(
        root,
        _search.INFOSET,
        params,
        5,
        10_000,
        None,
        value_model() if learned else None,
        policy_model() if prior else None,
    )
    tree.run(200)
    return tree.root_children()


@pytest.mark.parametrize(
    ("game", "root", "config"),
    [
        (
            "council-of-four",
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4).view(0),
            COUNCIL_OF_FOUR,
        ),
        (
            "council-of-four",
            CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=4).view(0),
            COUNCIL_OF_FOUR.with_settings(
                {"evaluator": "heuristic", "policy": "none", "tree_payments": 1}
            ),
        ),
        ("the-council", TheCouncilState.new_game(4, seed=4).view(0), THE_COUNCIL_CONFIG),
        (
            "a-war-of-whispers",
            AWarOfWhispersState.new_game(4, seed=4).view(0),
            A_WAR_OF_WHISPERS_CONFIG,
        ),
    ],
)
def test_a_tree_reads_only_the_search_s_settings_and_its_game_s(game, root, config):
    params = config.params()
    wanted = set(_search.SETTINGS) | set(GAME_SETTINGS[game])
    only = {name: value for name, value in params.items() if name in wanted}
    assert _root_children(root, config, only) == _root_children(root, config, params)


def test_a_config_hashes_and_takes_the_kind_weights_as_a_mapping():
    reordered = dict(reversed(list(DEFAULT_KIND_WEIGHTS.items())))
    config = SearchConfig(game=CouncilOfFourSettings(kind_weights=reordered))
    assert config == COUNCIL_OF_FOUR
    assert hash(config) == hash(COUNCIL_OF_FOUR)
    assert dict(config.game.kind_weights) == DEFAULT_KIND_WEIGHTS
    heavier = replace(config, game=CouncilOfFourSettings(kind_weights=dict(reordered, pay=2.0)))
    assert heavier != config and len({heavier, config, COUNCIL_OF_FOUR}) == 2


@pytest.mark.parametrize(
    "weights",
    [
        {k: v for k, v in DEFAULT_KIND_WEIGHTS.items() if k != "pay"},
        dict(DEFAULT_KIND_WEIGHTS, fly=1.0),
        dict(DEFAULT_KIND_WEIGHTS, pay=-1.0),
    ],
)
def test_bad_kind_weights_are_rejected(weights):
    view = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1).view(0)
    with pytest.raises(ValueError, match="kind_weights"):
        config = SearchConfig(game=CouncilOfFourSettings(kind_weights=weights))
        search(view, SearchLimits(iterations=5), config)


def test_the_hand_set_evaluation_values_a_position_of_either_game():
    for state in (
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=2),
        TheCouncilState.new_game(5, 2),
    ):
        params = default_config(state).params()
        win, margin = _search.evaluate_state(state, params)
        assert len(win) == len(margin) == state.n_players
        assert sum(win) == pytest.approx(1.0)
        with pytest.raises(ValueError, match="full state"):
            _search.evaluate_state(state.view(0), params)


def test_a_spec_reaches_the_search_s_settings_and_its_game_s():
    agent = parse_agent("ismcts:c_uct=0.5,tree_secrets=1,iterations=10", "the-council")
    assert isinstance(agent, ISMCTSAgent)
    config = _config(agent.settings, None, TheCouncilState.new_game(3, seed=1).view(0))
    assert config.c_uct == 0.5 and config.game.tree_secrets == 1
    assert config.game.temperature == THE_COUNCIL_CONFIG.game.temperature
    spec = parse_agent("ismcts:kind_pay=2.5,w_coins=0.2", "council-of-four")
    config = _config(
        spec.settings, None, CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
    )
    assert dict(config.game.kind_weights)["pay"] == 2.5 and config.game.w_coins == 0.2


@pytest.mark.parametrize(
    ("game", "spec", "key"),
    [
        ("kuhn-poker", "ismcts:tree_payments=1", "tree_payments"),
        ("the-council", "ismcts:kind_pay=2", "kind_pay"),
        ("council-of-four", "pimc:tree_secrets=1", "tree_secrets"),
        ("leduc-poker", "strong-v3:temperature=2", "temperature"),
    ],
)
def test_a_setting_the_game_lacks_is_an_error_naming_the_game_and_the_key(game, spec, key):
    with pytest.raises(ValueError, match=f"unknown option '{key}=.*' in {game}"):
        parse_agent(spec, game)
    with pytest.raises(ValueError, match=f"^{game}: unknown search setting '{key}'"):
        search_game(game).config.with_settings({key: 1})


def test_a_search_refuses_another_game_s_settings():
    view = KuhnPokerState.new_game(seed=1).view(0)
    with pytest.raises(ValueError, match="kuhn-poker searches with KuhnPokerSettings"):
        search(view, SearchLimits(iterations=5), COUNCIL_OF_FOUR)


def test_the_changed_settings_are_named_as_a_spec_takes_them():
    tuned = COUNCIL_OF_FOUR.with_settings({"c_uct": 0.5, "kind_pay": 2.0, "leaf_redeals": 2})
    changed = tuned.changes_from(COUNCIL_OF_FOUR)
    assert changed == {"c_uct": 0.5, "leaf_redeals": 2, "kind_pay": 2.0}
    assert COUNCIL_OF_FOUR.with_settings(changed) == tuned
