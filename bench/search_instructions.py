"""Instructions per search iteration of one or more builds, counted by callgrind.

A count is the same on a loaded machine as on an idle one (the shared development machine
runs other jobs; wall-clock rates there move by tens of percent between runs), and the
searches are the same in every build (fixed seeds and iterations, bit-for-bit results), so
two builds compare exactly. Only ``Tree.run`` and what it calls are counted (callgrind's
``--toggle-collect``): not Python's start-up nor the position's set-up. Prints one JSON
object: instructions per iteration by build and case, and each build's over the first's.

    python bench/search_instructions.py --build before=/tmp/old/pkg --build after= \\
        [--cases kuhn_poker,council_of_four] [--out-dir /tmp/counts] [--reuse]

A build is ``label=PATH`` as in ``bench/search_builds.py`` (PATH first on PYTHONPATH;
empty: this checkout's build). Each case runs in its own ``valgrind`` process (about a
minute each, most of it Python's start-up under valgrind); ``--reuse`` reads the callgrind
files a previous run left in ``--out-dir`` instead of running them again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

# Each case's iterations: enough that the counted part dwarfs a search's set-up.
CASES = {
    "council_of_four": 3000,
    "ismcts_v1": 5000,
    "the_council": 5000,
    "kuhn_poker": 20000,
    "kuhn_poker_view": 20000,
    "leduc_poker": 20000,
}


def one(case: str, iterations: int) -> None:
    """Run one case's search (in the valgrind process): the positions and configs of
    bench/search.py."""
    from council.engine._kuhn_poker import KuhnPokerState
    from council.engine._leduc_poker import LeducPokerState
    from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
    from council.engine.the_council import TheCouncilConfig
    from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG, KUHN_POKER_V3_CONFIG
    from council.mcts.leduc_poker_agents import LEDUC_POKER_CONFIG
    from council.mcts.search import Search, SearchConfig
    from council.mcts.the_council_agents import THE_COUNCIL_CONFIG

    try:
        from council.mcts.council_of_four_settings import V1_CONFIG
    except ImportError:  # a build before the search settings per game (issue #39)
        from council.mcts.search import V1_CONFIG

    opening = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=1).view(0)
    kuhn = KuhnPokerState.new_game(seed=1).view(0)
    positions = {
        "council_of_four": (opening, SearchConfig()),
        "ismcts_v1": (opening, V1_CONFIG),
        "the_council": (TheCouncilConfig(players=4).new_game(seed=1).view(0), THE_COUNCIL_CONFIG),
        "kuhn_poker": (kuhn, KUHN_POKER_CONFIG),
        "kuhn_poker_view": (kuhn, KUHN_POKER_V3_CONFIG),
        "leduc_poker": (LeducPokerState.new_game(seed=1).view(0), LEDUC_POKER_CONFIG),
    }
    view, config = positions[case]
    Search.from_view(view, config, seed=1)._trees[0].run(iterations)


def count(label: str, path: str, case: str, out_dir: Path, reuse: bool) -> int:
    """The instructions callgrind counted in ``Tree.run`` for one case of one build."""
    out = out_dir / f"out.{label}.{case}"
    if not (reuse and out.exists()):
        env = dict(os.environ)
        if path:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH", "")]))
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            "--toggle-collect=*Tree_*run*",
            sys.executable,
            str(Path(__file__).resolve()),
            "--one",
            case,
        ]
        subprocess.run(command, env=env, cwd="/", check=True, capture_output=True)
    found = re.search(r"^summary: (\d+)$", out.read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"{out}: no callgrind summary")
    return int(found.group(1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", help="label=PYTHONPATH")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--out-dir", type=Path, default=Path("/tmp/search-instructions"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one(args.one, CASES[args.one])
        return 0
    args.out_dir.mkdir(parents=True, exist_ok=True)
    builds = [b.partition("=")[::2] for b in args.build]
    cases = args.cases.split(",")
    per_iteration = {
        label: {
            case: round(count(label, path, case, args.out_dir, args.reuse) / CASES[case], 1)
            for case in cases
        }
        for label, path in builds
    }
    first = builds[0][0]
    ratios = {
        label: {case: round(v / per_iteration[first][case], 4) for case, v in counts.items()}
        for label, counts in per_iteration.items()
        if label != first
    }
    figures = {
        "builds": dict(builds),
        "iterations": {case: CASES[case] for case in cases},
        "instructions_per_iteration": per_iteration,
        "ratios": ratios,
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
