"""Playing strength of the service's search against the strongest opponents we have.

Prints one JSON object: each match-up plays seeded deals once per rotation of the seats
(duplicate deals, every agent in every seat) and reports the first agent's win rate with
its 95% Wilson interval (an agent in several seats also reports the share of games one of
them won). The opponents are the expert planner (``expert``), version 0.1's search frozen
as ``ismcts-v1``, and the search itself at twice the budget (the doubling test). Budgets
are iterations per decision unless the name says equal time. Match-ups named
``the_council_*`` are games of The Council (docs/the-council.md) at its own preset budgets,
against its expert planner, random seats and its weaker presets.

    python bench/strength.py                       # every match-up (long: see --only)
    python bench/strength.py --only casual_vs_expert_2p --only strong_vs_expert_2p
    python bench/strength.py --quick               # a smoke run, 2 deals each
    python bench/strength.py --out results.json    # resumable: finished match-ups are kept

The value model's calibration is printed by ``council-ai train`` (docs/learning.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from council.engine.council_of_four import CouncilOfFourConfig
from council.engine.the_council import TheCouncilConfig
from council.mcts.agents import agent_label, parse_agent
from council.mcts.arena import run_arena
from council.server.presets import BY_NAME
from council.v1 import game_pb2 as pb


def _preset(
    name: str, factor: int = 1, engine: str = "ismcts", game: int = pb.GAME_COUNCIL_OF_FOUR
) -> str:
    budget = BY_NAME[name].budget(game)
    # ismcts-v1 is frozen with its own settings; the others search with the preset's.
    settings = "" if engine == "ismcts-v1" else "".join(f",{k}={v}" for k, v in budget.settings)
    return f"{engine}:iterations={budget.iterations * factor}{settings}"


# The strong preset as it shipped before its settings were tuned (first-play urgency 0.1):
# the previous version, kept as a baseline.
PREVIOUS_STRONG = f"ismcts:iterations={BY_NAME['strong'].budget().iterations}"


def matchups() -> list[tuple[str, list[str], int]]:
    """(name, lineup specs with the measured agent first, deals)."""
    casual, strong = _preset("casual"), _preset("strong")
    table = [
        ("casual_vs_expert_2p", [casual, "expert"], 100),
        ("strong_vs_expert_2p", [strong, "expert"], 100),
        ("casual_vs_v1_casual_2p", [casual, _preset("casual", engine="ismcts-v1")], 100),
        ("strong_vs_previous_2p", [strong, PREVIOUS_STRONG], 100),
        # Equal time: 0.05 s a move is about what ismcts-v1 spends on strong's 5,000 iterations.
        ("strong_vs_v1_equal_time_2p", ["ismcts:time_s=0.05", "ismcts-v1:time_s=0.05"], 100),
        ("strong_vs_3_experts_4p", [strong, "expert", "expert", "expert"], 50),
        ("cheat_vs_ismcts_equal_time_2p", ["cheat:time_s=0.01", "ismcts:time_s=0.01"], 100),
        ("expert_vs_greedy_2p", ["expert", "greedy"], 100),
        ("expert_vs_v1_strong_2p", ["expert", _preset("strong", engine="ismcts-v1")], 100),
    ]
    names = list(BY_NAME)
    for preset in names:
        table.append((f"doubling_{preset}_2p", [_preset(preset, 2), _preset(preset)], 100))
    # The same doubling when both seats see every card: how much of the flattening at
    # strong is the price of hidden information rather than of the game or the evaluation.
    table.append(
        (
            "doubling_strong_cheat_2p",
            [_preset("strong", 2, "cheat"), _preset("strong", 1, "cheat")],
            100,
        )
    )
    table.append((f"preset_{names[0]}_vs_expert_2p", [_preset(names[0]), "expert"], 100))
    for lower, upper in zip(names, names[1:], strict=False):
        table.append((f"preset_{upper}_vs_{lower}_2p", [_preset(upper), _preset(lower)], 100))
    # The Council's match-ups search at its own preset budgets.
    tc_preset = {p: _preset(p, game=pb.GAME_THE_COUNCIL) for p in names}
    council = tc_preset["strong"]
    # Against the previous version (uniformly random rollouts, secret choices searched as
    # tree nodes, c_uct 0.2) at 1,000 iterations, as every seat searches.
    gate = "ismcts:iterations=1000"
    previous = f"{gate},uniform_rollout=1,tree_secrets=1,c_uct=0.2"
    table += [
        ("the_council_ismcts_vs_3_random_4p", [council, "random", "random", "random"], 50),
        ("the_council_ismcts_vs_3_experts_4p", [council, "expert", "expert", "expert"], 50),
        # Two search seats against two experts: the share of games a search seat wins
        # (games_won, fair share 0.5) is the team reading of "beats".
        ("the_council_2_ismcts_vs_2_experts_4p", [council, council, "expert", "expert"], 50),
        ("the_council_ismcts_vs_3_previous_4p", [gate, previous, previous, previous], 50),
        ("the_council_expert_vs_3_random_4p", ["expert", "random", "random", "random"], 50),
    ]
    # The Council's presets: each one seat against three of the preset below, the weakest
    # against three experts.
    table.append(
        (
            f"the_council_preset_{names[0]}_vs_3_experts_4p",
            [tc_preset[names[0]]] + ["expert"] * 3,
            50,
        )
    )
    for lower, upper in zip(names, names[1:], strict=False):
        table.append(
            (
                f"the_council_preset_{upper}_vs_3_{lower}_4p",
                [tc_preset[upper]] + [tc_preset[lower]] * 3,
                50,
            )
        )
    table.append(("the_council_casual_vs_3_experts_4p", [tc_preset["casual"]] + ["expert"] * 3, 50))
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 deals per match-up")
    parser.add_argument("--only", action="append", help="run only these match-ups")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", type=Path, help="JSON file: finished match-ups are kept")
    args = parser.parse_args(argv)

    results = json.loads(args.out.read_text()) if args.out and args.out.exists() else {}
    for name, specs, deals in matchups():
        if (args.only and name not in args.only) or name in results:
            continue
        council = name.startswith("the_council_")
        game = "the-council" if council else "council-of-four"
        lineup = [parse_agent(s, game) for s in specs]
        started = time.perf_counter()
        report = run_arena(
            lineup,
            deals=2 if args.quick else deals,
            seed=args.seed,
            config=(TheCouncilConfig if council else CouncilOfFourConfig)(players=len(lineup)),
            workers=args.workers,
        )
        summary = report.to_dict()
        summary["focus"] = agent_label(lineup[0])
        summary["seconds"] = round(time.perf_counter() - started, 1)
        results[name] = summary
        focus = summary["agents"][summary["focus"]]
        line = (
            f"{name}: {summary['focus']} wins {focus['win_rate']:.3f} "
            f"{focus['win_rate_95ci']} over {focus['seats_played']} seats; beats others "
            f"{focus.get('beats_others')} {focus.get('beats_others_95ci')}"
        )
        if "games_won" in focus:
            line += f"; games won {focus['games_won']} {focus['games_won_95ci']}"
        print(line, file=sys.stderr, flush=True)
        if args.out:
            args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
