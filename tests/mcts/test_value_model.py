"""The value model's forward pass, its file format and the feature-name check."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

import council.mcts.value_model as value_model
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts.features import FEATURE_NAMES, seat_features
from council.mcts.value_model import (
    DEFAULT_MODEL_PATH,
    FeatureMismatchError,
    ValueModel,
)

F = len(FEATURE_NAMES)


def _linear(seed=0) -> ValueModel:
    rng = np.random.default_rng(seed)
    return ValueModel(
        FEATURE_NAMES, rng.normal(size=F), rng.uniform(0.5, 2, F), w=rng.normal(size=F)
    )


def _hidden(seed=0, h=3) -> ValueModel:
    rng = np.random.default_rng(seed)
    return ValueModel(
        FEATURE_NAMES,
        rng.normal(size=F),
        rng.uniform(0.5, 2, F),
        w1=rng.normal(size=(F, h)),
        b1=rng.normal(size=h),
        w2=rng.normal(size=h),
        info={"note": "test"},
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_forward_pass_is_the_documented_formula(players):
    x = np.random.default_rng(players).normal(size=(players, F))
    for m in (_linear(), _hidden()):
        z = (x - m.mean) / m.scale
        s = z @ m.w if m.is_linear else np.tanh(z @ m.w1 + m.b1) @ m.w2
        expected = np.exp(s) / np.exp(s).sum()
        p = m.predict(x)
        assert p.shape == (players,)
        np.testing.assert_allclose(p, expected, rtol=1e-12)
        assert p.sum() == pytest.approx(1.0)


def test_batches_mask_absent_seats():
    m = _hidden()
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4, F))
    n = np.array([2, 3, 4])
    p = m.predict_batch(x, n)
    for i in range(3):
        np.testing.assert_allclose(p[i, : n[i]], m.predict(x[i, : n[i]]), rtol=1e-12)
        assert (p[i, n[i] :] == 0).all()


def test_a_state_is_scored_from_its_features():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    m = _linear()
    p = m.predict_state(state)
    np.testing.assert_allclose(p, m.predict(seat_features(state)))
    assert p.shape == (3,) and p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("make", [_linear, _hidden])
def test_save_and_load_round_trip_without_pickle(make, tmp_path):
    m = make()
    path = tmp_path / "sub" / "v.npz"
    m.save(path)
    with np.load(path, allow_pickle=False) as data:
        assert int(data["format_version"]) == value_model.FORMAT_VERSION
        assert tuple(data["feature_names"]) == FEATURE_NAMES
    back = ValueModel.load(path)
    assert back.feature_names == m.feature_names and back.hidden == m.hidden
    assert back.info == m.info
    x = np.random.default_rng(2).normal(size=(4, F))
    np.testing.assert_array_equal(back.predict(x), m.predict(x))
    assert not list(tmp_path.glob("sub/.*"))  # no temporary file left behind
    with zipfile.ZipFile(path) as z:  # plain arrays only
        assert all(not name.endswith(".pkl") for name in z.namelist())


def test_other_feature_names_are_refused_with_the_difference(tmp_path):
    m = _linear()
    renamed = (*FEATURE_NAMES[:-1], "no_such_feature")
    path = tmp_path / "old.npz"
    ValueModel(renamed, m.mean, m.scale, w=m.w).save(path)
    with pytest.raises(FeatureMismatchError, match="no_such_feature") as error:
        ValueModel.load(path)
    assert "FEATURE_NAMES" in str(error.value) and FEATURE_NAMES[-1] in str(error.value)
    swapped = (FEATURE_NAMES[1], FEATURE_NAMES[0], *FEATURE_NAMES[2:])
    ValueModel(swapped, m.mean, m.scale, w=m.w).save(path)
    with pytest.raises(FeatureMismatchError, match="order differs from position 0"):
        ValueModel.load(path)
    assert ValueModel.load(path, check_features=False).feature_names == swapped


def test_another_format_version_is_refused(tmp_path):
    path = tmp_path / "v.npz"
    m = _linear()
    ValueModel(m.feature_names, m.mean, m.scale, w=m.w, format_version=99).save(path)
    with pytest.raises(ValueError, match="format 99"):
        ValueModel.load(path)


def test_bad_shapes_are_refused():
    m = _linear()
    with pytest.raises(ValueError, match="either w"):
        ValueModel(FEATURE_NAMES, m.mean, m.scale)
    with pytest.raises(ValueError, match="w must have shape"):
        ValueModel(FEATURE_NAMES, m.mean, m.scale, w=np.zeros(F + 1))
    with pytest.raises(ValueError, match="scale"):
        ValueModel(FEATURE_NAMES, m.mean, np.zeros(F), w=m.w)
    with pytest.raises(ValueError, match="shapes"):
        ValueModel(
            FEATURE_NAMES, m.mean, m.scale, w1=np.zeros((F, 2)), b1=np.zeros(3), w2=np.zeros(2)
        )
    with pytest.raises(ValueError, match="n_players"):
        m.predict(np.zeros(F))


def test_the_default_model_is_package_data():
    package = Path(value_model.__file__).resolve().parent  # council/mcts
    assert package / "models" / "value.npz" == DEFAULT_MODEL_PATH
    model = ValueModel.load()  # shipped, and trained on today's features
    assert model.feature_names == FEATURE_NAMES
    assert model.info["settings"]["seed"] == 1  # reproducible from docs/learning.md


def test_the_shipped_model_plays_legal_deterministic_moves():
    from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
    from council.mcts.search import SearchConfig, SearchLimits, search

    assert SearchConfig().evaluator == "learned"
    for players in (2, 3, 4):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=40 + players)
        for step in range(40):
            view = state.view(state.current_player)
            result = search(view, SearchLimits(iterations=60), seed=step)
            assert result.action in state.legal_actions()
            again = search(view, SearchLimits(iterations=60), seed=step)
            assert again.action == result.action and again.candidates == result.candidates
            assert all(0.0 <= c.win_probability <= 1.0 for c in result.candidates)
            state.apply(result.action)
