"""The server's search settings (ServerConfig.search_settings) apply to every game's search,
under the preset's: before, only the default game took the server's search config."""

from __future__ import annotations

import pytest

from council.engine.games import all_games
from council.engine.serialize import state_to_proto
from council.mcts.games import all_search_games
from council.mcts.search import default_config
from council.server.config import ServerConfig
from council.server.service import CouncilServicer
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

SETTINGS = (("c_uct", 0.9), ("margin_scale", 7.0))


def planned_config(config: ServerConfig, position, limits: pb.SearchLimits):
    """The search config the servicer plans for a RecommendAction on `position`."""
    request = spb.RecommendActionRequest(state=state_to_proto(position), limits=limits, seed=1)
    return CouncilServicer(config.resolved())._plan(request).search_config


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_the_server_s_search_settings_apply_in_every_game(game):
    view = game.new_game(seed=2).view(0)
    config = ServerConfig(search_settings=SETTINGS)
    planned = planned_config(config, view, pb.SearchLimits(iterations=50))
    expected = default_config(view).with_settings(dict(SETTINGS))
    assert planned == expected
    assert (
        (planned.c_uct, planned.margin_scale)
        == (0.9, 7.0)
        != (
            default_config(view).c_uct,
            default_config(view).margin_scale,
        )
    )
    # The preset that sets the budget tunes them further (Council of Four's strong).
    strong = planned_config(config, view, pb.SearchLimits(preset=pb.STRENGTH_PRESET_STRONG))
    assert strong.c_uct == 0.9
    plain = planned_config(ServerConfig(), view, pb.SearchLimits(iterations=50))
    assert plain == default_config(view)


def test_a_server_setting_a_game_lacks_is_refused_naming_the_game():
    lacking = [g.name for g in all_search_games() if g.name != "council-of-four"]
    with pytest.raises(ValueError, match=f"search_settings: {lacking[0]}: .*'tree_payments'"):
        ServerConfig(search_settings=(("tree_payments", 1),)).resolved()
