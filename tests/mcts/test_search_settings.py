"""SearchConfig's settings: the search's own and each game's evaluation settings, read by
different compiled modules (issue 28, item 2), and a config that hashes."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from council.engine import GameConfig, State, TheCouncilState
from council.mcts import _council_of_four_search, _search, _the_council_search
from council.mcts.search import (
    DEFAULT_KIND_WEIGHTS,
    SearchConfig,
    SearchLimits,
    policy_model,
    search,
    value_model,
)
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG

GAME_SETTINGS = {
    "council-of-four": _council_of_four_search.SETTINGS,
    "the-council": _the_council_search.SETTINGS,
}
# Read in Python (search.py): the model files, handed to the tree as models, and how the
# move is chosen from the root's candidates.
READ_IN_PYTHON = {"value_model", "policy_model", "play"}


def test_every_setting_is_the_search_s_own_or_a_game_s():
    names = {f.name for f in fields(SearchConfig)} - READ_IN_PYTHON
    own = set(_search.SETTINGS)
    games = set().union(*GAME_SETTINGS.values())
    assert own | games == names
    assert own.isdisjoint(games)


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
        ("council-of-four", State.new_game(GameConfig(players=3), seed=4).view(0), SearchConfig()),
        (
            "council-of-four",
            State.new_game(GameConfig(players=2), seed=4).view(0),
            SearchConfig(evaluator="heuristic", policy="none", tree_payments=1),
        ),
        ("the-council", TheCouncilState.new_game(4, seed=4).view(0), THE_COUNCIL_CONFIG),
    ],
)
def test_a_tree_reads_only_the_search_s_settings_and_its_game_s(game, root, config):
    params = config.params()
    wanted = set(_search.SETTINGS) | set(GAME_SETTINGS[game])
    only = {name: value for name, value in params.items() if name in wanted}
    assert _root_children(root, config, only) == _root_children(root, config, params)


def test_a_config_hashes_and_takes_the_kind_weights_as_a_mapping():
    reordered = dict(reversed(list(DEFAULT_KIND_WEIGHTS.items())))
    config = SearchConfig(kind_weights=reordered)
    assert config == SearchConfig()
    assert hash(config) == hash(SearchConfig())
    assert dict(config.kind_weights) == DEFAULT_KIND_WEIGHTS
    heavier = replace(config, kind_weights=dict(config.kind_weights, pay=2.0))
    assert heavier != config and len({heavier, config, SearchConfig()}) == 2


@pytest.mark.parametrize(
    "weights",
    [
        {k: v for k, v in DEFAULT_KIND_WEIGHTS.items() if k != "pay"},
        dict(DEFAULT_KIND_WEIGHTS, fly=1.0),
        dict(DEFAULT_KIND_WEIGHTS, pay=-1.0),
    ],
)
def test_bad_kind_weights_are_rejected(weights):
    view = State.new_game(GameConfig(players=2), seed=1).view(0)
    with pytest.raises(ValueError, match="kind_weights"):
        search(view, SearchLimits(iterations=5), SearchConfig(kind_weights=weights))


def test_the_hand_set_evaluation_values_a_position_of_either_game():
    for state in (State.new_game(GameConfig(players=3), seed=2), TheCouncilState.new_game(5, 2)):
        win, margin = _search.evaluate_state(state, SearchConfig().params())
        assert len(win) == len(margin) == state.n_players
        assert sum(win) == pytest.approx(1.0)
        with pytest.raises(ValueError, match="full state"):
            _search.evaluate_state(state.view(0), SearchConfig().params())
