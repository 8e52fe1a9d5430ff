"""Training the learned policy prior: the gradient, the data split by game, a tiny
reproducible fit on two games of 30-iteration IS-MCTS self-play, the model it writes, the
report and the command line. The model file's own checks: tests/mcts/test_policy_model.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("scipy")

from council.learning.selfplay import (  # noqa: E402
    SelfPlayConfig,
    read_shard,
    run_selfplay,
    shard_paths,
    shard_state,
)
from council.learning.train_policy import (  # noqa: E402
    DECISIONS,
    PolicyData,
    _Objective,
    load_policy_data,
    train_policy,
)
from council.mcts._council_of_four_evaluation import ACTION_FEATURE_NAMES, action_feature_rows  # noqa: E402
from council.mcts.policy_model import (  # noqa: E402
    ActionFeatureMismatchError,
    PolicyModel,
    segment_softmax,
)
from council.mcts.value_model import FeatureMismatchError  # noqa: E402
from council.server.cli import main  # noqa: E402

F = len(ACTION_FEATURE_NAMES)
DATA = SelfPlayConfig(agents=("ismcts:iterations=30",), players=(2,), games=2, shard_size=2, seed=3)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("policy-selfplay")
    run_selfplay(DATA, out, workers=1)
    return out


@pytest.fixture(scope="module")
def trained(data_dir, tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    report = train_policy([data_dir], path, seed=1, holdout=0.5)
    return path, report


def _random_model(seed=0) -> PolicyModel:
    rng = np.random.default_rng(seed)
    return PolicyModel(
        ACTION_FEATURE_NAMES, rng.normal(size=F), rng.uniform(0.5, 2.0, F), rng.normal(size=F)
    )


def test_numpy_priors_are_the_softmax_of_the_formula(data_dir):
    model = _random_model(1)
    state = shard_state(read_shard(shard_paths(data_dir)[0]), 5)
    legal = state.legal_actions()
    rows = np.array(action_feature_rows(state, legal))
    logits = [
        sum(model.w[j] * (row[j] - model.mean[j]) / model.scale[j] for j in range(F))
        for row in rows
    ]
    expected = np.exp(np.array(logits) - max(logits))
    expected /= expected.sum()
    np.testing.assert_allclose(model.priors(rows), expected, rtol=1e-12)
    np.testing.assert_allclose(model.priors_for(state), expected, rtol=1e-12)
    np.testing.assert_allclose(model.priors_for(state, legal[:2]), model.priors(rows[:2]))
    with pytest.raises(ValueError, match="rows must have shape"):
        model.priors(rows[:, :-1])


def test_the_gradient_is_the_derivative():
    rng = np.random.default_rng(3)
    counts = rng.integers(2, 7, 20)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    z = rng.normal(size=(offsets[-1], 4))
    y = segment_softmax(rng.normal(size=offsets[-1]), offsets)
    objective = _Objective(z, offsets, y, l2=0.01)
    w = rng.normal(size=4)
    _, grad = objective(w)
    step = 1e-6
    numeric = [
        (objective(w + step * e)[0] - objective(w - step * e)[0]) / (2 * step) for e in np.eye(4)
    ]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def test_the_data_split_by_game_with_targets_from_the_visits(data_dir):
    train_set, held, summary = load_policy_data([data_dir], holdout=0.5, seed=1)
    assert summary["games"] == 2 and summary["held_out_games"] == 1
    assert summary["positions_with_visits"] == summary["positions_in_data"] > 0
    assert len(train_set) + len(held) == summary["positions_with_visits"]
    assert set(train_set.game).isdisjoint(held.game)
    for data in (train_set, held):
        assert isinstance(data, PolicyData) and data.rows.shape == (data.offsets[-1], F)
        assert (data.counts >= 2).all()
        sums = np.add.reduceat(data.target, data.offsets[:-1])
        np.testing.assert_allclose(sums, 1.0)
    # A seeded sample per game: the same rows again, at most K positions each.
    small, _, _ = load_policy_data([data_dir], holdout=0.5, seed=1, positions_per_game=7)
    again, _, _ = load_policy_data([data_dir], holdout=0.5, seed=1, positions_per_game=7)
    assert len(small) == 7 and np.array_equal(small.rows, again.rows)


def test_the_target_is_the_most_visited_legal_action(data_dir):
    shard = read_shard(shard_paths(data_dir)[0])
    train_set, held, _ = load_policy_data([data_dir], holdout=0.0, seed=1)
    assert len(held) == 0 and len(train_set) == len(shard["game"])
    i = 11
    state = shard_state(shard, i)
    legal = state.legal_actions()
    target = train_set.target[train_set.offsets[i] : train_set.offsets[i + 1]]
    visits = dict(
        zip(shard["visit_action"][i].tolist(), shard["visit_count"][i].tolist(), strict=True)
    )
    top = max(c for a, c in visits.items() if a >= 0)
    best = [a for a in legal if visits.get(a, 0) == top]
    expected = [1 / len(best) if a in best else 0.0 for a in legal]
    np.testing.assert_allclose(target, expected)


def test_positions_without_visits_are_refused(tmp_path):
    greedy = SelfPlayConfig(agents=("greedy",), players=(2,), games=1, shard_size=1, seed=1)
    run_selfplay(greedy, tmp_path / "greedy", workers=1)
    with pytest.raises(ValueError, match="recorded root visits"):
        load_policy_data([tmp_path / "greedy"])


def test_a_tiny_fit_is_saved_reported_and_reproducible(data_dir, trained, tmp_path):
    path, report = trained
    model = PolicyModel.load(path)
    assert model.feature_names == tuple(ACTION_FEATURE_NAMES)
    assert model.mean.shape == model.scale.shape == model.w.shape == (F,)
    assert model.info["settings"]["seed"] == 1
    assert model.info["held_out"] == report["held_out"]["model"]["all"]
    # The report's shape.
    assert report["data"]["train_positions"] > 0 and report["data"]["held_out_positions"] > 0
    assert report["optimiser"]["iterations"] > 0
    for part in ("train", "held_out"):
        for prior in ("model", "uniform"):
            scores = report[part][prior]
            assert set(scores) == {"all", "by_decision", "by_players"}
            assert set(scores["by_decision"]) == set(DECISIONS)
            assert set(scores["all"]) == {
                "positions",
                "legal_actions_mean",
                "cross_entropy",
                "top1",
                "target_entropy",
            }
            assert 0 <= scores["all"]["top1"] <= 1
    assert set(report["weights"]) == set(ACTION_FEATURE_NAMES)
    # The fit beats the uniform prior on what it was fitted to.
    train_scores = report["train"]
    assert (
        train_scores["model"]["all"]["cross_entropy"]
        < train_scores["uniform"]["all"]["cross_entropy"]
    )
    # Priors: a distribution over each position's legal actions.
    train_set, held, _ = load_policy_data([data_dir], holdout=0.5, seed=1)
    for data in (train_set, held):
        p = model.priors_flat(data.rows, data.offsets)
        assert (p > 0).all()
        np.testing.assert_allclose(np.add.reduceat(p, data.offsets[:-1]), 1.0)
    # Deterministic under the seed: the same arrays and the same report.
    again = train_policy([data_dir], tmp_path / "again.npz", seed=1, holdout=0.5)
    other = PolicyModel.load(tmp_path / "again.npz")
    for name in ("mean", "scale", "w"):
        assert np.array_equal(getattr(model, name), getattr(other, name))
    for key in ("data", "optimiser", "train", "held_out", "weights"):
        assert again[key] == report[key]


def test_a_model_with_other_features_is_refused(trained, tmp_path):
    path, _ = trained
    model = PolicyModel.load(path)
    names = list(model.feature_names)
    renamed = PolicyModel(
        tuple(names[:-1] + ["token_value"]), model.mean, model.scale, model.w, info=model.info
    )
    renamed.save(tmp_path / "renamed.npz")
    with pytest.raises(ActionFeatureMismatchError) as error:
        PolicyModel.load(tmp_path / "renamed.npz")
    message = str(error.value)
    assert "missing ['token_worth']" in message and "unknown ['token_value']" in message
    assert isinstance(error.value, FeatureMismatchError)
    names[0], names[1] = names[1], names[0]
    PolicyModel(tuple(names), model.mean, model.scale, model.w).save(tmp_path / "swapped.npz")
    with pytest.raises(ActionFeatureMismatchError, match="order differs from position 0"):
        PolicyModel.load(tmp_path / "swapped.npz")
    assert PolicyModel.load(tmp_path / "swapped.npz", check_features=False).feature_names[0] == (
        "elect"
    )


def test_command_line(data_dir, tmp_path, capsys):
    out, js = tmp_path / "p.npz", tmp_path / "r.json"
    args = ["train-policy", str(data_dir), "--out", str(out), "--seed", "1", "--holdout", "0.5"]
    assert main([*args, "--positions-per-game", "20", "--json-out", str(js)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads(js.read_text())
    assert report["data"]["train_positions"] == report["data"]["held_out_positions"] == 20
    assert set(report["held_out"]) == {"model", "uniform"}
    assert PolicyModel.load(out).info["settings"]["positions_per_game"] == 20
    assert main(["train-policy", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    assert "no self-play manifest" in capsys.readouterr().err
