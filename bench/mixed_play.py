"""The search with mixed play and beliefs (issue #36) against the search before, by
exploitability in Kuhn and Leduc poker (``council.mcts.exploitability``: exact best
responses over every deal; OpenSpiel's NashConv / 2, in chips a game).

For each game and budget (each preset's, and ten times strong's), the game's search
(``default_config``, with the preset's own settings) and the search before
(``STRONG_V3``'s settings, the view-rooted search that plays its most visited move) at the
same iterations. A search's policy at an
information state is read from ``--seeds`` searches of the seat's view, two ways: the share
of the searches that chose each action (``chosen``: how the issue measured it) and the mean
of the policies they return (``returned``: CandidateMove.policy; the same expectation with
less noise). Prints one JSON object::

    python bench/mixed_play.py --game kuhn-poker --seeds 1000
    python bench/mixed_play.py --game leduc-poker --seeds 3 --budgets beginner casual strong
    python bench/mixed_play.py --game kuhn-poker --seeds 50 --settings c_uct=0.5   # tuning
    python bench/mixed_play.py --game leduc-poker --speed   # iterations/s, before and now

``--speed`` measures the cost of an iteration instead: one search of the first seat's view
at the opening (a Jack; ``--state``: another information state, by its index in
``game_tree``), the game's search, it without Smooth UCT, and the search before,
alternated, the median of ``--repeats``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

from council.mcts.agents import STRONG_V3, parse_agent
from council.mcts.exploitability import exploitability, game_tree
from council.mcts.games import search_game
from council.mcts.search import SearchConfig, SearchLimits, search
from council.server.presets import BY_NAME

TEN_TIMES = 10


def measure(name: str, config: SearchConfig, iterations: int, seeds: int) -> dict:
    tree = game_tree(name)
    chosen, returned = {}, {}
    start = time.perf_counter()
    for info in tree.infosets:
        counts = dict.fromkeys(info.actions, 0.0)
        shares = dict.fromkeys(info.actions, 0.0)
        for seed in range(seeds):
            result = search(info.view, SearchLimits(iterations=iterations), config, seed=seed)
            counts[result.action] += 1 / seeds
            for action, p in result.policy.items():
                shares[action] += p / seeds
        chosen[info.key] = counts
        returned[info.key] = shares
    return {
        "iterations": iterations,
        "chosen": round(exploitability(tree, chosen), 4),
        "returned": round(exploitability(tree, returned), 4),
        "seconds": round(time.perf_counter() - start, 1),
    }


def speed(
    name: str, config: SearchConfig, repeats: int, state: int = 0, iterations: int = 200_000
) -> dict:
    # By default the first seat at the opening, a Jack
    view = game_tree(name).infosets[state].view
    variants = {
        "search": config,
        "search_without_smooth_uct": replace(config, smooth_eta=0.0),
        "before": STRONG_V3[name][0],
    }
    runs: dict[str, list[float]] = {k: [] for k in variants}
    for seed in range(repeats):
        for label, variant in variants.items():
            start = time.perf_counter()
            search(view, SearchLimits(iterations=iterations), variant, seed=seed)
            runs[label].append(iterations / (time.perf_counter() - start))
    return {f"{k}_iterations_per_s": round(sorted(v)[len(v) // 2]) for k, v in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kuhn-poker", choices=("kuhn-poker", "leduc-poker"))
    parser.add_argument("--seeds", type=int, default=1000, help="searches per information state")
    parser.add_argument(
        "--budgets", nargs="+", default=[*BY_NAME, "strong_x10"], help="presets, strong_x10"
    )
    parser.add_argument("--settings", default="", help="key=value,... over the game's search")
    parser.add_argument("--no-before", action="store_true", help="the game's search only")
    parser.add_argument("--speed", action="store_true", help="iterations/s instead")
    parser.add_argument("--repeats", type=int, default=5, help="--speed's runs of each")
    parser.add_argument(
        "--state", type=int, default=0, help="--speed's information state (its index)"
    )
    args = parser.parse_args()
    config = search_game(args.game).config
    if args.settings:
        overrides = parse_agent(f"ismcts:{args.settings}", args.game).settings
        config = config.with_settings(dict(overrides)).validate()
    if args.speed:
        figures = speed(args.game, config, args.repeats, args.state)
        print(json.dumps({"game": args.game, "state": args.state, **figures}, indent=2))
        return
    before = STRONG_V3[args.game][0]
    out: dict = {"game": args.game, "seeds": args.seeds, "settings": args.settings}
    for budget in args.budgets:
        # A preset's budget, with the settings it carries (ten times strong: strong's).
        preset = BY_NAME["strong" if budget == "strong_x10" else budget].budget(args.game)
        factor = TEN_TIMES if budget == "strong_x10" else 1
        iterations = preset.iterations * factor
        searched = config.with_settings(dict(preset.settings)).validate()
        row = {"search": measure(args.game, searched, iterations, args.seeds)}
        if not args.no_before:
            row["before"] = measure(args.game, before, iterations, args.seeds)
        out[budget] = row
        print(budget, json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
