"""ServerConfig: its resolution and its deadline margin."""

from __future__ import annotations

import os

import pytest

from council.server.config import ServerConfig


def test_resolution_fills_in_the_automatic_sizes():
    config = ServerConfig(search_slots=2, search_queue=3, cheap_workers=4, call_backlog=50)
    assert config.resolved().threads == 9
    assert config.resolved().max_concurrent_rpcs == 59
    assert ServerConfig(search_slots=3).resolved().search_queue == 6
    assert ServerConfig(search_slots=3, search_queue=0).resolved().search_queue == 0
    assert ServerConfig().resolved().search_slots == (os.cpu_count() or 1)
    config = ServerConfig(search_slots=1)
    assert config.resolved().resolved() == config.resolved()


@pytest.mark.parametrize(
    "changes",
    [
        {"default_preset": "godlike"},
        {"max_search_time_s": 0.0},
        {"max_iterations": 0},
        {"max_nodes": 0},
        {"cheap_workers": 0},
        {"call_backlog": -1},
    ],
)
def test_resolution_refuses_bad_settings(changes):
    with pytest.raises(ValueError):
        ServerConfig(**changes).resolved()


def test_deadline_margin_is_fixed_plus_a_tenth_of_the_time_left():
    config = ServerConfig(deadline_margin_s=0.02)
    assert config.deadline_margin(0.0) == pytest.approx(0.02)
    assert config.deadline_margin(1.0) == pytest.approx(0.12)
    assert config.deadline_margin(10.0) == pytest.approx(1.02)
