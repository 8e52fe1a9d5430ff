"""Training the value model: the gradient, the split by game, a tiny reproducible fit on a
handful of self-play games, the report and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("scipy")

from council.learning.data import split_games  # noqa: E402
from council.learning.selfplay import (  # noqa: E402
    MAX_SEATS,
    SelfPlayConfig,
    read_shard,
    run_selfplay,
    shard_paths,
    write_shard,
)
from council.learning.train import (  # noqa: E402
    PHASES,
    Dataset,
    _Objective,
    fit,
    load_data,
    mix_targets,
    phase_of,
    train,
)
from council.mcts.features import FEATURE_NAMES  # noqa: E402
from council.mcts.value_model import ValueModel  # noqa: E402
from council.server.cli import main  # noqa: E402

DATA = SelfPlayConfig(agents=("greedy",), players=(2, 3), games=6, shard_size=3, seed=2)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    run_selfplay(DATA, out, workers=1)
    return out


def _synthetic(n=400, f=4, seed=0, w=None):
    rng = np.random.default_rng(seed)
    players = rng.integers(2, 5, n)
    mask = np.arange(MAX_SEATS)[None, :] < players[:, None]
    x = np.where(mask[..., None], rng.normal(size=(n, MAX_SEATS, f)), 0.0)
    w = rng.normal(size=f) if w is None else w
    s = np.where(mask, x @ w, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = np.zeros((n, MAX_SEATS))
    for i in range(n):
        y[i, rng.choice(MAX_SEATS, p=p[i])] = 1.0
    data = Dataset(x, players, y, rng.uniform(size=n), np.arange(n))
    return data, w


@pytest.mark.parametrize("hidden", [0, 3])
def test_the_gradient_is_the_derivative(hidden):
    data, _ = _synthetic(n=30, f=5)
    objective = _Objective(data.features, data.mask, data.outcome, hidden, l2=0.01)
    size = 5 if hidden == 0 else 5 * hidden + 2 * hidden
    theta = np.random.default_rng(1).normal(size=size)
    _, grad = objective(theta)
    step = 1e-6
    numeric = np.array(
        [
            (objective(theta + step * e)[0] - objective(theta - step * e)[0]) / (2 * step)
            for e in np.eye(size)
        ]
    )
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def test_a_linear_fit_recovers_the_generating_weights():
    data, w = _synthetic(n=3000, f=3, w=np.array([1.0, -0.5, 0.25]))
    model, info = fit(data, ("a", "b", "c"), hidden=0, l2=0.0)
    assert info["converged"]
    # The model standardises: its weights on raw features are w / scale.
    np.testing.assert_allclose(model.w / model.scale, w, atol=0.12)


def test_games_are_split_whole_and_by_seed():
    games = np.repeat(np.arange(10), 3)
    held = split_games(games, 0.3, seed=4)
    assert len(held) == 3 and set(held) <= set(range(10))
    assert (split_games(games, 0.3, seed=4) == held).all()
    assert len(split_games(games, 0.0, seed=4)) == 0
    assert len(split_games(np.arange(2), 0.9, seed=0)) == 1  # one game is always kept
    with pytest.raises(ValueError, match="holdout"):
        split_games(games, 1.0, seed=0)


def test_load_data_splits_by_game(data_dir):
    train_set, held, summary = load_data([data_dir], holdout=0.34, seed=3)
    assert summary["games"] == 6 and summary["held_out_games"] == 2
    assert set(np.unique(train_set.game)).isdisjoint(np.unique(held.game))
    assert len(train_set) + len(held) == sum(
        len(read_shard(p)["game"]) for p in shard_paths(data_dir)
    )
    assert summary["train_positions"] == len(train_set)
    assert np.allclose(train_set.outcome.sum(axis=1), 1.0)
    # The old evaluator's win chances for every held-out position.
    assert np.allclose(held.evaluator.sum(axis=1), 1.0)
    assert (held.evaluator[~held.mask] == 0).all()
    assert ((held.phase >= 0) & (held.phase <= 1)).all()
    assert set(phase_of(np.array([0.0, 0.34, 0.67, 1.0]))) == {0, 1, 2}


def test_a_seeded_sample_of_positions_per_game(data_dir):
    full, _, _ = load_data([data_dir], holdout=0.0)
    few, _, summary = load_data([data_dir], holdout=0.0, seed=1, positions_per_game=5)
    again, _, _ = load_data([data_dir], holdout=0.0, seed=1, positions_per_game=5)
    assert summary["train_positions"] == len(few) == 5 * 6
    assert (np.unique(few.game, return_counts=True)[1] == 5).all()
    np.testing.assert_array_equal(few.features, again.features)
    assert len(np.unique(full.game)) == 6 and len(full) > len(few)


def test_shards_with_other_features_are_featurised_again(data_dir, tmp_path):
    copy = tmp_path / "old-features"
    copy.mkdir()
    (copy / "manifest.json").write_text((data_dir / "manifest.json").read_text())
    for path in shard_paths(data_dir):
        arrays = read_shard(path)
        arrays["feature_names"] = np.array(["old_a", "old_b"])
        arrays["features"] = np.zeros((len(arrays["game"]), MAX_SEATS, 2), np.float32)
        write_shard(copy / path.name, arrays)
    fresh, _, _ = load_data([data_dir], holdout=0.0)
    again, _, summary = load_data([copy], holdout=0.0)
    assert summary["refeaturised_positions"] == len(fresh)
    np.testing.assert_allclose(again.features, fresh.features, rtol=1e-6, atol=1e-4)


def test_root_values_blend_into_the_targets_of_searched_positions():
    y = np.array(
        [
            [0.0, 1.0, 0.0, 0.0],  # 4 seats, the mover (seat 2) lost
            [0.0, 0.0, 1.0, 0.0],  # 3 seats, the mover (seat 2) won
            [0.5, 0.5, 0.0, 0.0],  # 2 seats, a shared win; no search (no root value)
        ]
    )
    n, seat, q = np.array([4, 3, 2]), np.array([2, 2, 0]), np.array([0.4, 0.7, np.nan])
    t = mix_targets(y, n, seat, q, 0.25)
    # Mover: 0.75 * outcome + 0.25 * root value; the others share the rest as they won.
    assert np.allclose(t[0], [0.0, 0.9, 0.1, 0.0])
    # The mover won outright: the rest is shared equally by the other seats.
    assert np.allclose(t[1], [0.0375, 0.0375, 0.925, 0.0])
    assert np.array_equal(t[2], y[2])
    assert np.allclose(t.sum(axis=1), 1.0)
    assert np.array_equal(mix_targets(y, n, seat, q, 0.0)[:2], y[:2])
    with pytest.raises(ValueError, match="root_value_weight"):
        mix_targets(y, n, seat, q, 1.5)


def test_blended_targets_train_only_and_searched_positions_only(tmp_path):
    data = SelfPlayConfig(
        agents=("ismcts:iterations=20", "greedy"), players=(2,), games=2, shard_size=2, seed=3
    )
    run_selfplay(data, tmp_path, workers=1)
    plain_train, plain_held, _ = load_data([tmp_path], holdout=0.5, seed=1)
    train_set, held, _ = load_data([tmp_path], holdout=0.5, seed=1, root_value_weight=0.5)
    assert np.array_equal(held.outcome, plain_held.outcome)  # scored against outcomes
    changed = ~np.all(train_set.outcome == plain_train.outcome, axis=1)
    assert 0 < changed.sum() < len(train_set)  # the search's decisions, not greedy's
    assert np.allclose(train_set.outcome.sum(axis=1), 1.0)


@pytest.mark.parametrize("hidden", [0, 4])
def test_a_tiny_training_run_is_reproducible_and_reported(data_dir, tmp_path, hidden):
    runs = []
    for k in range(2):
        out = tmp_path / f"model-{k}.npz"
        png = tmp_path / f"calibration-{k}.png"
        report = train(
            [data_dir],
            out,
            hidden=hidden,
            l2=1e-3,
            seed=7,
            holdout=0.34,
            max_iter=150,
            report_png=png,
        )
        runs.append((ValueModel.load(out), report))
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (m, report), (m2, report2) = runs
    assert m.hidden == hidden and m.feature_names == FEATURE_NAMES
    for key in ("mean", "scale", "w", "w1", "b1", "w2"):
        a, b = getattr(m, key), getattr(m2, key)
        assert (a is None and b is None) or np.array_equal(a, b), key
    del report["seconds"], report2["seconds"]
    report["model"] = report2["model"] = report["reliability_plot"] = report2["reliability_plot"]
    assert report == report2
    assert m.info["settings"]["seed"] == 7 and m.info["held_out"]["positions"] > 0
    # The report: held-out scores overall and by phase, for the model and two baselines.
    assert set(report["held_out"]) == {"model", "uniform", "evaluator"}
    for scores in report["held_out"].values():
        assert set(scores["by_phase"]) == set(PHASES)
        assert {"log_loss", "brier", "cross_entropy", "positions"} <= set(scores["all"])
        assert (
            sum(s["positions"] for s in scores["by_phase"].values()) == scores["all"]["positions"]
        )
        assert set(scores["by_players"]) <= {"2p", "3p"}
    assert 0 < report["held_out"]["uniform"]["all"]["brier"] < 0.25
    # Predictions on the held-out positions are distributions over the game's seats.
    _, held, _ = load_data([data_dir], holdout=0.34, seed=7)
    p = m.predict_batch(held.features, held.n_players)
    assert np.allclose(p.sum(axis=1), 1.0) and (p[~held.mask] == 0).all()
    json.dumps(report)  # plain JSON


def test_another_seed_gives_another_hidden_model(data_dir, tmp_path):
    models = []
    for seed in (1, 2):
        train([data_dir], tmp_path / f"{seed}.npz", hidden=3, seed=seed, holdout=0.34, max_iter=20)
        models.append(ValueModel.load(tmp_path / f"{seed}.npz"))
    assert not np.array_equal(models[0].w1, models[1].w1)


def test_command_line(data_dir, tmp_path, capsys):
    out, png, js = tmp_path / "v.npz", tmp_path / "cal.png", tmp_path / "r.json"
    args = ["train", str(data_dir), "--out", str(out), "--seed", "1", "--holdout", "0.34"]
    assert main([*args, "--report", str(png), "--json-out", str(js)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["root_value_weight"] == 0.0
    assert report == json.loads(js.read_text())
    assert set(report["held_out"]["model"]["by_phase"]) == set(PHASES)
    assert ValueModel.load(out).is_linear and png.exists()
    assert main(["train", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    assert "no self-play manifest" in capsys.readouterr().err
    assert main([*args[:-2], "--holdout", "0", "--report", str(png)]) == 2
    assert "held-out" in capsys.readouterr().err
    assert main([*args, "--root-value-weight", "2"]) == 2
    assert "root_value_weight: must be in [0, 1], got 2.0" in capsys.readouterr().err
