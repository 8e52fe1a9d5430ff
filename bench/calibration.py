"""Calibration of the win probability the search reports (the service's hints).

Reads self-play shards (``council-ai selfplay`` with a search agent) and scores the
``win_probability`` of each chosen move, as the search reported it to the seat that moved,
against that seat's outcome: log loss and Brier overall, by game phase (thirds of the game by
turn) and by player count, and a reliability table (predicted bins vs observed frequency).
Prints one JSON object.

    python bench/calibration.py data/gen3
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from council.learning.selfplay import read_shard, shard_paths


def scores(p: np.ndarray, y: np.ndarray) -> dict:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    log_loss = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    return {
        "positions": int(len(p)),
        "log_loss": round(float(log_loss), 4),
        "brier": round(float(((p - y) ** 2).mean()), 4),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="self-play directories")
    args = parser.parse_args(argv)
    p, y, phase, players = [], [], [], []
    for directory in args.data:
        for path in shard_paths(directory):
            s = read_shard(path)
            known = np.isfinite(s["root_value"])
            rows = np.arange(len(s["seat"]))
            p.append(s["root_value"][known])
            y.append(s["outcome"][rows, s["seat"]][known])
            phase.append((s["turn"] / s["final_turn"])[known])
            players.append(s["n_players"][known])
    if not p:
        parser.error("no shards found")
    p, y = np.concatenate(p).astype(float), np.concatenate(y).astype(float)
    phase, players = np.concatenate(phase), np.concatenate(players)
    if len(p) == 0:
        parser.error("no position with a reported win probability (a search agent is needed)")
    thirds = {"early": (0, 1 / 3), "mid": (1 / 3, 2 / 3), "late": (2 / 3, 2)}
    bins = np.minimum((p * 10).astype(int), 9)
    report = {
        "all": scores(p, y),
        "constant_base_rate": scores(np.full_like(y, y.mean()), y),
        "by_phase": {
            k: scores(p[(phase >= a) & (phase < b)], y[(phase >= a) & (phase < b)])
            for k, (a, b) in thirds.items()
        },
        "by_players": {
            f"{n}p": scores(p[players == n], y[players == n]) for n in sorted(set(players.tolist()))
        },
        "reliability": [
            {
                "bin": f"{b / 10:.1f}-{(b + 1) / 10:.1f}",
                "predicted": round(float(p[bins == b].mean()), 3),
                "observed": round(float(y[bins == b].mean()), 3),
                "positions": int((bins == b).sum()),
            }
            for b in range(10)
            if (bins == b).any()
        ],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
