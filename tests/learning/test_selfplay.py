"""Self-play data: shard contents, resuming, determinism, the turn cap, the command line and
Ray. A handful of tiny games (greedy and a 20-iteration IS-MCTS)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from council.engine.council_of_four import CouncilOfFourConfig
from council.learning.selfplay import (
    MAX_CANDIDATES,
    MAX_SEATS,
    SelfPlayConfig,
    read_manifest,
    read_shard,
    run_selfplay,
    shard_name,
    shard_paths,
    shard_state,
)
from council.mcts.agents import parse_agent
from council.mcts.arena import play_game
from council.mcts.features import FEATURE_NAMES, seat_features
from council.server.cli import main

SEARCH = "ismcts:iterations=20"
# Two players: the search agent and greedy in every game, seats rotated by game.
MIXED = SelfPlayConfig(agents=(SEARCH, "greedy"), players=(2,), games=3, shard_size=2, seed=5)
# Two and three players by turns, the search agent in every seat.
CYCLED = SelfPlayConfig(agents=(SEARCH,), players=(2, 3), games=3, shard_size=3, seed=9)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    out = tmp_path_factory.mktemp("mixed")
    summary = run_selfplay(MIXED, out, workers=2)  # a process pool
    return out, summary


@pytest.fixture(scope="module")
def cycled(tmp_path_factory):
    out = tmp_path_factory.mktemp("cycled")
    run_selfplay(CYCLED, out, workers=1)
    return out


def _all(directory) -> list[dict]:
    return [read_shard(p) for p in shard_paths(directory)]


def test_config_seeds_players_and_lineups():
    cfg = SelfPlayConfig(agents=("a", "b", "c"), players=(3,), games=10, shard_size=4, seed=1)
    assert cfg.n_shards == 3 and list(cfg.shard_games(2)) == [8, 9]
    assert cfg.lineup(0) == ("a", "b", "c") and cfg.lineup(1) == ("b", "c", "a")
    seeds = [cfg.game_seed(i) for i in range(10)]
    assert len(set(seeds)) == 10
    assert SelfPlayConfig(("a",), (3,), 99, seed=1).game_seed(4) == seeds[4]  # seed + index
    assert SelfPlayConfig(("a",), (3,), 10, seed=2).game_seed(4) != seeds[4]
    cycled = SelfPlayConfig(("x",), (2, 3, 4), 10)
    assert [cycled.game_players(i) for i in range(4)] == [2, 3, 4, 2]
    with pytest.raises(ValueError, match="every game needs 2 players"):
        SelfPlayConfig(("greedy", "random"), (2, 3), 4).validate()
    with pytest.raises(ValueError, match="unknown agent"):
        SelfPlayConfig(("nosuch",), (2,), 4).validate()
    with pytest.raises(ValueError, match="players"):
        SelfPlayConfig(("greedy",), (5,), 4).validate()


def test_shards_hold_every_decision_with_outcomes_and_search_statistics(mixed):
    out, summary = mixed
    assert summary.shards_written == 2 and summary.games_played == 3
    assert [p.name for p in shard_paths(out)] == [shard_name(0), shard_name(1)]
    f = len(FEATURE_NAMES)
    searched = greedy = 0
    for s in _all(out):
        n = len(s["game"])
        assert n > 0 and s["features"].shape == (n, MAX_SEATS, f)
        assert s["visit_action"].shape == s["visit_count"].shape == (n, MAX_CANDIDATES)
        assert len(s["state_offsets"]) == n + 1 and s["state_offsets"][-1] == len(s["state_bytes"])
        assert tuple(s["feature_names"]) == FEATURE_NAMES
        assert json.loads(str(s["settings"])) == MIXED.to_dict()
        assert (s["n_legal"] > 1).all() and (s["n_players"] == 2).all()
        assert (s["seat"] < s["n_players"]).all()
        assert (s["features"][:, 2:] == 0).all()  # absent seats
        # Outcomes: 1/k for each of k winners, the same for every position of a game.
        assert np.allclose(s["game_outcome"].sum(axis=1), 1.0)
        assert np.allclose(s["outcome"].sum(axis=1), 1.0)
        assert (s["outcome"][:, 2:] == 0).all()
        for g, gid in enumerate(s["game_id"]):
            rows = s["game"] == gid
            assert (s["outcome"][rows] == s["game_outcome"][g]).all()
            assert (s["final_turn"][rows] == s["game_final_turn"][g]).all()
            assert (s["final_vp"][rows] == s["game_final_vp"][g]).all()
            assert (s["turn"][rows] <= s["game_final_turn"][g]).all()
            assert list(s["game_agents"][g][:2]) == list(MIXED.lineup(int(gid)))
        for i in range(n):
            agent = s["game_agents"][list(s["game_id"]).index(s["game"][i])][s["seat"][i]]
            counts = s["visit_count"][i]
            if agent == SEARCH:
                searched += 1
                assert 0 <= s["root_value"][i] <= 1
                assert counts[0] > 0 and 0 < counts.sum() <= 20
                assert s["visit_action"][i, 0] == s["action"][i]  # the most visited
                k = (s["visit_action"][i] >= 0).sum()
                assert (counts[:k] > 0).all() and (counts[k:] == 0).all()
                assert np.isfinite(s["visit_value"][i, :k]).all()
            else:
                greedy += 1
                assert np.isnan(s["root_value"][i])
                assert (s["visit_action"][i] == -1).all() and (counts == 0).all()
        # The stored state is the position the features describe.
        for i in (0, n // 2, n - 1):
            state = shard_state(s, i)
            assert not state.is_view and state.turn == s["turn"][i]
            assert state.current_player == s["seat"][i]
            assert len(state.legal_actions()) == s["n_legal"][i]
            assert state.action_count == s["action_index"][i]
            assert np.allclose(seat_features(state), s["features"][i, :2], rtol=1e-6, atol=1e-5)
    assert searched > 0 and greedy > 0


def test_games_are_the_arenas_games(mixed):
    # Same seats, seeds and per-move seeds as council.mcts.arena.play_game.
    out, _ = mixed
    for s in _all(out):
        for g, gid in enumerate(s["game_id"]):
            lineup = [parse_agent(spec) for spec in MIXED.lineup(int(gid))]
            state, _ = play_game(lineup, CouncilOfFourConfig(players=2), int(s["game_seed"][g]))
            assert list(state.scores()) == list(s["game_final_vp"][g][:2])
            assert state.turn == s["game_final_turn"][g]


def test_cycled_player_counts(cycled):
    (s,) = _all(cycled)
    assert list(s["game_players"]) == [2, 3, 2]
    for g, gid in enumerate(s["game_id"]):
        n = s["game_players"][g]
        rows = s["game"] == gid
        assert (s["n_players"][rows] == n).all()
        assert np.allclose(s["outcome"][rows][:, :n].sum(axis=1), 1.0)
        assert (s["features"][rows][:, n:] == 0).all()
    assert np.isfinite(s["root_value"]).all()


def test_a_rerun_writes_nothing_and_a_lost_shard_comes_back_identical(mixed, tmp_path):
    out, _ = mixed
    before = {p.name: (p.stat().st_mtime_ns, read_shard(p)) for p in shard_paths(out)}
    again = run_selfplay(MIXED, out, workers=1)
    assert again.shards_written == 0 and again.shards_skipped == 2 and again.games_played == 0
    assert {p.name: p.stat().st_mtime_ns for p in shard_paths(out)} == {
        k: v[0] for k, v in before.items()
    }
    # Determinism: the same settings elsewhere (in-process this time) give the same arrays.
    copy = tmp_path / "copy"
    run_selfplay(MIXED, copy, workers=1)
    (copy / shard_name(1)).unlink()
    redo = run_selfplay(MIXED, copy, workers=1)
    assert redo.written == [shard_name(1)] and redo.games_played == 1
    for name, (_, arrays) in before.items():
        other = read_shard(copy / name)
        assert sorted(other) == sorted(arrays)
        for key in arrays:
            np.testing.assert_array_equal(other[key], arrays[key], err_msg=key)
    assert read_manifest(copy)["totals"] == read_manifest(out)["totals"]


def test_other_settings_are_refused_on_resume(mixed):
    out, _ = mixed
    changed = SelfPlayConfig(MIXED.agents, MIXED.players, 4, MIXED.shard_size, MIXED.seed)
    with pytest.raises(ValueError, match="other settings.*games: stored 3, now 4"):
        run_selfplay(changed, out, workers=1)
    other_seed = SelfPlayConfig(MIXED.agents, MIXED.players, 3, MIXED.shard_size, seed=6)
    with pytest.raises(ValueError, match="seed: stored 5, now 6"):
        run_selfplay(other_seed, out, workers=1)


def test_games_past_the_turn_cap_are_dropped_and_counted(tmp_path):
    cfg = SelfPlayConfig(("greedy",), (2,), games=2, shard_size=2, seed=1, max_turns=3)
    summary = run_selfplay(cfg, tmp_path, workers=1)
    assert summary.games_dropped == 2 and summary.positions == 0
    (s,) = _all(tmp_path)
    assert len(s["game"]) == 0 and len(s["game_id"]) == 0
    assert list(s["dropped_game_id"]) == [0, 1] and (s["dropped_turns"] == 3).all()
    manifest = read_manifest(tmp_path)
    assert manifest["totals"]["dropped_games"] == 2
    assert manifest["shards"][shard_name(0)]["dropped"] == [0, 1]


def test_command_line(tmp_path, capsys):
    args = ["selfplay", "--agent", "greedy", "--players", "2,3", "--games", "2"]
    args += ["--shard-size", "1", "--seed", "3", "--out", str(tmp_path), "--workers", "1"]
    assert main([*args, "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["shards_written"] == 2 and summary["games_played"] == 2
    assert read_manifest(tmp_path)["settings"]["players"] == [2, 3]
    assert main([*args, "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["shards_written"] == 0
    assert main([*args[:-6], "--seed", "4", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "other settings" in capsys.readouterr().err
    bad = ["selfplay", "--agent", "nosuch", "--games", "1", "--out", str(tmp_path / "x")]
    assert main(bad) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_ray_tasks_write_the_same_shards(tmp_path, cycled):
    # As the ladder's Ray test: the command in its own process, a private local instance.
    pytest.importorskip("ray")
    command = [sys.executable, "-m", "council.server.cli", "selfplay", "--agent", SEARCH]
    command += ["--players", "2,3", "--games", "3", "--shard-size", "3", "--seed", "9"]
    command += ["--out", str(tmp_path), "--ray-address", "local", "--workers", "2"]
    run = subprocess.run([*command, "--no-progress"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    (on_ray,) = _all(tmp_path)
    (local,) = _all(cycled)
    for key in local:
        np.testing.assert_array_equal(on_ray[key], local[key], err_msg=key)
