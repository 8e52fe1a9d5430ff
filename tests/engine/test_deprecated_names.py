"""The names Council of Four's modules and classes had before they were named after it still
import for one version (0.4.0 removes them): each is the same object as the new name, and
each use warns (DeprecationWarning) saying where it went."""

from __future__ import annotations

import importlib

import pytest

# (old module, old name) -> (new module, new name)
MOVED = {
    ("council.engine", "State"): ("council.engine.council_of_four", "CouncilOfFourState"),
    ("council.engine", "GameConfig"): ("council.engine.council_of_four", "CouncilOfFourConfig"),
    ("council.engine", "Decision"): ("council.engine._council_of_four", "Decision"),
    ("council.engine", "TheCouncilState"): ("council.engine._the_council", "TheCouncilState"),
    ("council.engine", "TheCouncilConfig"): (
        "council.engine.the_council_config",
        "TheCouncilConfig",
    ),
    ("council.engine.config", "GameConfig"): (
        "council.engine.council_of_four_config",
        "CouncilOfFourConfig",
    ),
    ("council.engine.config", "TheCouncilConfig"): (
        "council.engine.the_council_config",
        "TheCouncilConfig",
    ),
    ("council.engine.config", "DEFAULT_GAME"): ("council.engine.games", "DEFAULT_GAME"),
    ("council.engine.actions", "Action"): ("council.engine.council_of_four_actions", "Action"),
    ("council.engine.actions", "describe"): (
        "council.engine.council_of_four_actions",
        "describe",
    ),
    ("council.engine.board", "LAYOUT_CODES"): (
        "council.engine.council_of_four_board",
        "LAYOUT_CODES",
    ),
    ("council.engine.svg", "render_svg"): ("council.engine.council_of_four_svg", "render_svg"),
    ("council.engine.svg", "svg_to_png"): ("council.engine.text_svg", "svg_to_png"),
    ("council.engine.render", "render_state"): (
        "council.engine.render_council_of_four",
        "render_state",
    ),
    ("council.engine.serialize", "FORMAT"): ("council.engine._council_of_four_document", "FORMAT"),
}


@pytest.mark.parametrize("old, new", MOVED.items(), ids=[".".join(o) for o in MOVED])
def test_an_old_name_is_the_new_object_and_warns(old, new):
    module, name = old
    expected = getattr(importlib.import_module(new[0]), new[1])
    with pytest.warns(DeprecationWarning, match=rf"^{module}\.{name} is deprecated \(0\.4\.0"):
        assert getattr(importlib.import_module(module), name) is expected


def test_the_from_import_form_works_too_and_names_the_new_place():
    with pytest.warns(DeprecationWarning, match="use council.engine.council_of_four.Council"):
        from council.engine import GameConfig, State  # noqa: F401
    assert State.new_game(GameConfig(players=2), seed=1).n_players == 2


def test_a_name_that_never_was_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'council.engine' has no attribute 'Stat'"):
        importlib.import_module("council.engine").Stat  # noqa: B018
    with pytest.raises(AttributeError, match="'council.engine.actions' has no attribute 'nope'"):
        importlib.import_module("council.engine.actions").nope  # noqa: B018
