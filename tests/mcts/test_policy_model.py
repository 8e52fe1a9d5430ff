"""The learned policy prior's inference (``council.mcts.policy_model``, NumPy only): where
the shipped model lies, the segment softmax and the files it refuses. Its training, and the
checks that need a trained model: tests/learning/test_train_policy.py."""

from __future__ import annotations

import numpy as np
import pytest

from council.mcts.policy_model import DEFAULT_POLICY_PATH, PolicyModel, segment_softmax
from council.mcts.value_model import ValueModel


def test_the_default_path_is_package_data():
    assert DEFAULT_POLICY_PATH.name == "policy.npz"
    assert DEFAULT_POLICY_PATH.parent.name == "models"


def test_segment_softmax_matches_per_position_softmax():
    rng = np.random.default_rng(2)
    counts = np.array([2, 5, 1, 3])
    offsets = np.concatenate([[0], np.cumsum(counts)])
    logits = rng.normal(size=offsets[-1]) * 50  # large: the max is subtracted per segment
    p = segment_softmax(logits, offsets)
    for a, b in zip(offsets[:-1], offsets[1:], strict=True):
        e = np.exp(logits[a:b] - logits[a:b].max())
        np.testing.assert_allclose(p[a:b], e / e.sum())


def test_other_files_are_refused(tmp_path):
    ValueModel(("a", "b"), np.zeros(2), np.ones(2), w=np.ones(2)).save(tmp_path / "value.npz")
    with pytest.raises(ValueError, match="not a policy model"):
        PolicyModel.load(tmp_path / "value.npz")
    with pytest.raises(FileNotFoundError, match="no such policy model"):
        PolicyModel.load(tmp_path / "nothing.npz")
    with pytest.raises(ValueError, match="shape"):
        PolicyModel(("a", "b"), np.zeros(2), np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match="scale"):
        PolicyModel(("a", "b"), np.zeros(2), np.zeros(2), np.ones(2))
