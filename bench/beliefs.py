"""The cost of The Council's beliefs from the others' actions (issue #36): the search's
iterations per second with them off and on, in positions where they do something.

Prints one JSON object: for each position (seat to act's view), the median iterations/s
of THE_COUNCIL_CONFIG without beliefs and with them (``beliefs=1``, its default samples and
floor), measured alternately so that both see the same machine load, their ratio, and the
microseconds per iteration the beliefs add. The positions: the 4-seat opening (bench/
search.py's: no history yet, nothing to weigh), draft rounds 1, 2 and 3 of the same game
(the deals resampled by the others' picks from unseen packs), and a bid after two seats have
bid (their secret reveals drawn from the model).

    python bench/beliefs.py [--seconds 1] [--repeats 3]

The matches that measure what beliefs are worth are ``council-ai arena --json`` runs (their
commands and figures in docs/results.md, "Beliefs: The Council"); ``--combine LABEL
RUN.json ...`` pools one agent's figures over such runs: games, win rate (Wilson interval),
beats others with its 95% normal interval over seats (each run's variance recovered from
its printed interval, the runs' sums of squares pooled).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys

from council.engine.the_council import TheCouncilState
from council.mcts.arena import wilson_interval
from council.mcts.search import SearchLimits, search
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG


def positions() -> dict[str, TheCouncilState]:
    """Named positions of one seeded 4-seat game, each the seat to act's view."""
    state = TheCouncilState.new_game(4, seed=1)
    out = {"opening": state.view(0)}
    while state.phase != "bid" or state.to_raw()["bids_done"] < 2:
        raw = state.to_raw()
        if state.phase == "draft" and state.current_player == 0 and raw["draft_round"] in (1, 2, 3):
            out[f"draft_round_{raw['draft_round']}"] = state.view(0)
        state.apply(state.legal_actions()[-1 if state.phase != "bid" else 0])
    out["bid_after_two_bids"] = state.view(state.current_player)
    return out


def rate(view: TheCouncilState, seconds: float, seed: int, beliefs: int) -> float:
    config = THE_COUNCIL_CONFIG.with_settings({"beliefs": beliefs})
    result = search(view, SearchLimits(time_s=seconds), config, seed=seed)
    return result.iterations / result.elapsed_s


def combine(label: str, paths: list[str]) -> dict:
    """One agent's figures pooled over arena JSON runs (see the module's doc)."""
    runs = []
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        agent = report["agents"][label]
        n = agent["seats_played"]
        low, high = agent["beats_others_95ci"]
        runs.append(
            {
                "file": path,
                "games": report["games"],
                "seats": n,
                "wins": agent["wins"],
                "beats_others": agent["beats_others"],
                "variance": ((high - low) / 2 / 1.96) ** 2 * n,
            }
        )
    n = sum(r["seats"] for r in runs)
    wins = sum(r["wins"] for r in runs)
    mean = sum(r["beats_others"] * r["seats"] for r in runs) / n
    squares = sum(
        (r["seats"] - 1) * r["variance"] + r["seats"] * (r["beats_others"] - mean) ** 2
        for r in runs
    )
    half = 1.96 * math.sqrt(squares / (n - 1) / n)
    low, high = wilson_interval(wins, n)
    return {
        "agent": label,
        "seats_played": n,
        "win_rate": round(wins / n, 4),
        "win_rate_95ci": [round(low, 4), round(high, 4)],
        "beats_others": round(mean, 4),
        "beats_others_95ci": [round(mean - half, 4), round(mean + half, 4)],
        "runs": [{k: v for k, v in r.items() if k != "variance"} for r in runs],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--combine", nargs="+", metavar=("LABEL", "RUN"))
    args = parser.parse_args(argv)
    if args.combine:
        print(json.dumps(combine(args.combine[0], args.combine[1:]), indent=1))
        return 0
    out: dict = {
        "what": __doc__.split("\n\n")[1].replace("\n", " "),
        "command": "python bench/beliefs.py " + " ".join(sys.argv[1:]),
        "machine": platform.machine(),
        "belief_samples": THE_COUNCIL_CONFIG.belief_samples,
        "belief_floor": THE_COUNCIL_CONFIG.belief_floor,
        "positions": {},
    }
    for name, view in positions().items():
        off, on = [], []
        for r in range(args.repeats):
            off.append(rate(view, args.seconds, r, 0))
            on.append(rate(view, args.seconds, r, 1))
        a, b = statistics.median(off), statistics.median(on)
        out["positions"][name] = {
            "iterations_per_s_off": round(a),
            "iterations_per_s_on": round(b),
            "on_over_off": round(b / a, 3),
            "added_us_per_iteration": round(1e6 / b - 1e6 / a, 2),
        }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
