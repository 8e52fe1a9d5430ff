"""The self-play data both trainers read (``council.learning.train`` for the value model,
``council.learning.train_policy`` for the policy prior): the shards of one or more self-play
directories, a key for every game unique over those directories, the seeded split of the
*games* (never the positions of one game) into a training and a held-out set, and a seeded
sample of positions per game.

A game's key is its directory's index in the high bits and its id within that directory
(``game_id`` in a shard) in the low 40:

>>> import numpy as np
>>> game_keys(1, np.array([0, 7])).tolist()
[1099511627776, 1099511627783]

The held-out games are a seeded choice among the distinct keys, never all of them:

>>> games = np.array([3, 3, 5, 8, 8, 8, 13])
>>> split_games(games, holdout=0.5, seed=1).tolist() == split_games(games, 0.5, 1).tolist()
True
>>> len(split_games(games, holdout=0.5, seed=1)), len(split_games(games, 0.0, seed=1))
(2, 0)
>>> sample_positions(games, per_game=1, seed=0).size  # one position of each of 4 games
4
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from council.learning.selfplay import read_manifest, shard_paths

__all__ = ["data_shards", "game_keys", "sample_positions", "shard_game_keys", "split_games"]

GAME_ID_BITS = 40  # a directory holds fewer than 2**40 games


def data_shards(data_dirs: Sequence[str | os.PathLike]) -> list[tuple[int, Path]]:
    """(directory index, shard path) for every shard of ``data_dirs``, in order; a
    directory that is no self-play directory or holds no shard yet is a ``ValueError``."""
    out = []
    for d, directory in enumerate(data_dirs):
        if read_manifest(directory) is None:
            raise ValueError(f"{directory}: no self-play manifest.json (council-ai selfplay)")
        paths = shard_paths(directory)
        if not paths:
            raise ValueError(f"{directory}: no shards yet")
        out += [(d, p) for p in paths]
    return out


def game_keys(directory: int, game_id: np.ndarray) -> np.ndarray:
    """The keys of games ``game_id`` of the ``directory``-th data directory (int64)."""
    return (np.int64(directory) << np.int64(GAME_ID_BITS)) + game_id.astype(np.int64)


def split_games(games: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """The held-out game keys: a seeded shuffle of the sorted unique keys."""
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout: must be in [0, 1), got {holdout}")
    keys = np.unique(games)
    if holdout == 0 or len(keys) < 2:
        return keys[:0]
    n = min(len(keys) - 1, max(1, int(round(holdout * len(keys)))))
    order = np.random.default_rng(seed).permutation(len(keys))
    return np.sort(keys[order[:n]])


def shard_game_keys(shards: Sequence[tuple[int, Path]]) -> np.ndarray:
    """The key of the game of every position of ``shards`` (``data_shards``), in order."""
    keys = []
    for d, path in shards:
        with np.load(path, allow_pickle=False) as z:
            keys.append(game_keys(d, z["game_id"]))
    return np.concatenate(keys) if keys else np.zeros(0, np.int64)


def sample_positions(game: np.ndarray, per_game: int, seed: int) -> np.ndarray:
    """Row indices keeping at most ``per_game`` positions of each game (0: all), chosen by
    a generator seeded with ``seed`` and the game's key, in their original order."""
    if per_game <= 0:
        return np.arange(len(game))
    keep = []
    for key in np.unique(game):
        rows = np.flatnonzero(game == key)
        if len(rows) > per_game:
            rng = np.random.default_rng([seed & 0xFFFFFFFF, int(key)])
            rows = np.sort(rng.choice(rows, per_game, replace=False))
        keep.append(rows)
    return np.sort(np.concatenate(keep)) if keep else np.zeros(0, np.int64)
