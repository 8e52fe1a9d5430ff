"""Search budgets from a request's SearchLimits: presets, explicit limits and the caps."""

from __future__ import annotations

import math

import grpc
import pytest
from google.protobuf import duration_pb2

from council.engine.games import all_games
from council.mcts.search import game_config
from council.server import presets
from council.server.errors import RpcError
from council.v1 import game_pb2 as pb

CAPS = {"max_iterations": 2_000_000, "max_time_s": 30.0}


def budget(limits: pb.SearchLimits, default: str = "casual", **options):
    return presets.search_budget(limits, default, **{**CAPS, **options})


def seconds(s: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(s * 1e9))
    return d


def test_default_preset_when_nothing_is_asked():
    assert budget(pb.SearchLimits()) == (300, 30.0)
    assert budget(pb.SearchLimits(), "strong") == (5000, 30.0)


def test_a_preset_gives_the_budget_and_explicit_limits_only_shorten_it():
    strong = pb.STRENGTH_PRESET_STRONG
    assert budget(pb.SearchLimits(preset=strong)) == (5000, 30.0)
    assert budget(pb.SearchLimits(preset=strong, iterations=100)) == (100, 30.0)
    assert budget(pb.SearchLimits(preset=strong, iterations=10**6)) == (5000, 30.0)
    assert budget(pb.SearchLimits(preset=strong, max_time=seconds(0.5))) == (5000, 0.5)


def test_each_game_has_its_own_budgets():
    the_council = {"game": pb.GAME_THE_COUNCIL}
    strong = pb.SearchLimits(preset=pb.STRENGTH_PRESET_STRONG)
    assert budget(strong, **the_council) == (10_000, 30.0)
    assert budget(pb.SearchLimits(), "strong", **the_council) == (10_000, 30.0)
    assert budget(pb.SearchLimits(), **the_council) == (300, 30.0)
    # GAME_UNSPECIFIED is Council of Four, the default game.
    assert budget(strong, game=pb.GAME_UNSPECIFIED) == budget(strong) == (5000, 30.0)
    # Every preset has a budget in every game served, by its name (or its Game value).
    games = {g.name for g in all_games()}
    assert all(set(p.budgets) == games for p in presets.PRESETS)
    assert budget(strong, game="the-council") == budget(strong, **the_council)


def test_explicit_limits_alone_are_used_as_given_within_the_caps():
    assert budget(pb.SearchLimits(iterations=7)) == (7, 30.0)
    assert budget(pb.SearchLimits(max_time=seconds(2))) == (None, 2.0)
    assert budget(pb.SearchLimits(iterations=10**7)) == (2_000_000, 30.0)
    assert budget(pb.SearchLimits(max_time=seconds(100)), max_time_s=math.inf) == (None, 100.0)
    assert budget(pb.SearchLimits(max_time=seconds(100))) == (None, 30.0)


def test_every_bad_field_is_named():
    limits = pb.SearchLimits(preset=99, iterations=0, max_time=seconds(-1))
    with pytest.raises(RpcError) as info:
        budget(limits)
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in info.value.violations] == [
        "limits.preset",
        "limits.iterations",
        "limits.max_time",
    ]


def test_preset_value_and_search_limits():
    assert presets.preset_value("Casual") == pb.STRENGTH_PRESET_CASUAL
    with pytest.raises(ValueError):
        presets.preset_value("max")
    assert presets.search_limits("beginner", 20, 0.25) == pb.SearchLimits(
        preset=pb.STRENGTH_PRESET_BEGINNER, iterations=20, max_time=seconds(0.25)
    )


def test_a_preset_s_setting_the_game_lacks_is_refused_naming_both():
    budgets = {
        name: presets.Budget(10, "", "", (("tree_payments", 1),)) for name in presets.BY_NAME
    }
    with pytest.raises(ValueError, match="kuhn-poker: unknown search setting 'tree_payments'"):
        presets.register_budgets("kuhn-poker", budgets)
    assert presets.BY_NAME["beginner"].budget("kuhn-poker").settings == (("hand_focus", 0.5),)


def test_the_preset_that_sets_the_budget_brings_its_search_settings():
    settings = presets.search_settings
    strong = pb.STRENGTH_PRESET_STRONG
    tuned = {"fpu_reduction": 0.3}  # measured best at strong's budget only
    assert settings(pb.SearchLimits(preset=strong), "casual") == tuned
    assert settings(pb.SearchLimits(preset=strong, iterations=40), "casual") == tuned
    assert settings(pb.SearchLimits(), "strong") == tuned  # the default preset
    assert settings(pb.SearchLimits(), "casual") == {}
    assert settings(pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER), "strong") == {}
    # Explicit limits alone keep the server's settings; so does The Council's strong.
    assert settings(pb.SearchLimits(iterations=5000), "strong") == {}
    assert settings(pb.SearchLimits(preset=strong), "casual", pb.GAME_THE_COUNCIL) == {}
    # Every preset's settings name its game's search settings, with valid values.
    for p in presets.PRESETS:
        for game, b in p.budgets.items():
            game_config(None, game).with_settings(dict(b.settings)).validate()
