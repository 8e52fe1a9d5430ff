"""Search speed of two builds side by side: ``bench/search.py`` run alternately against each
build, so that both see the same machine load.

Prints one JSON object: every run's figures by build, each figure's median over the runs
by build, and each build's medians over the first build's (``ratios``).

    python bench/search_builds.py --build before=/tmp/old/pkg --build after= \\
        [--rounds 3] [-- --seconds 1 --repeats 3]

A build is ``label=PATH``: PATH goes first on PYTHONPATH (empty: this checkout's own
build). A scratch build of another commit, outside the repository::

    git archive COMMIT | tar -x -C /tmp/old/src     # then, in /tmp/old/src:
    python setup.py -q build_ext --inplace          # with this checkout's .venv
    mkdir -p /tmp/old/pkg/council && for d in engine mcts learning server ladder; do
        ln -s /tmp/old/src/$d /tmp/old/pkg/council/$d; done
    ln -s /tmp/old/src/proto/council/v1 /tmp/old/pkg/council/v1   # with its *_pb2.py

This checkout's ``bench/search.py`` runs against both builds: the positions and configs it
names must exist in each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SEARCH_BENCH = Path(__file__).with_name("search.py")


def run(path: str, bench_args: list[str]) -> dict:
    """One run of bench/search.py with `path` first on PYTHONPATH."""
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, str(SEARCH_BENCH), *bench_args],
        env=env,
        cwd="/",  # not this checkout: its folders must not shadow the build's packages
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def rates(figures: dict, prefix: str = "") -> dict[str, float]:
    """Every ``iterations_per_s`` (or ``_per_cpu_s``) figure of a run, by its dotted key."""
    out = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            out |= rates(value, f"{prefix}{key}.")
        elif key.startswith("iterations_per_"):
            out[prefix + key] = value
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", required=True, help="label=PYTHONPATH")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("bench_args", nargs="*", help="for bench/search.py (after --)")
    args = parser.parse_args(argv)
    builds = [b.partition("=")[::2] for b in args.build]
    runs: dict[str, list[dict]] = {label: [] for label, _ in builds}
    for _ in range(args.rounds):
        for label, path in builds:
            runs[label].append(run(path, args.bench_args))
    medians = {
        label: {
            key: statistics.median(rates(r)[key] for r in label_runs)
            for key in rates(label_runs[0])
        }
        for label, label_runs in runs.items()
    }
    first = builds[0][0]
    ratios = {
        label: {key: round(v / medians[first][key], 3) for key, v in m.items()}
        for label, m in medians.items()
        if label != first
    }
    figures = {
        "builds": dict(builds),
        "rounds": args.rounds,
        "bench_args": args.bench_args,
        "medians": medians,
        "ratios": ratios,
        "runs": runs,
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
