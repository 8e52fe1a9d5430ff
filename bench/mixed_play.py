"""Kuhn poker's search against an exact best response (issue #36: mixed play and beliefs).

Prints one JSON object: for each agent, its policy at each of the game's 12 information
sets and its exploitability (OpenSpiel's ``exploitability``: the mean of the two seats'
best-response values against it; uniform random play 11/24 = 0.458, an equilibrium 0). A
search's policy at an information set is measured two ways over ``--seeds`` seeds: the
share of seeds whose search chose to bet or call (``chosen``: how the issue measured it),
and the mean of the searches' own policies (``policy``: CandidateMove.policy, the same
expectation with less noise). The agents: the three presets and ten times strong's budget
with the game's search (``KUHN_POKER_CONFIG``), and ``strong-v3`` (the search before).

    python bench/mixed_play.py > bench/results/mixed-play.json
    python bench/mixed_play.py --seeds 50 --only strong     # a quicker look
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from council.engine._kuhn_poker import KuhnPokerState
from council.mcts.agents import STRONG_V3
from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG
from council.mcts.search import SearchConfig, SearchLimits, search
from council.server.presets import BY_NAME

PASS, BET = 0, 1
CARDS = "JQK"
# Each seat's decisions: (seat, the betting before it).
DECISIONS = ((0, ()), (1, (PASS,)), (1, (BET,)), (0, (PASS, BET)))
# The betting lines that end the hand, and who takes the pot: the seat holding the higher
# card ("showdown") or the one that did not fold.
ENDS = {
    (PASS, PASS): (1, "showdown"),
    (BET, BET): (2, "showdown"),
    (PASS, BET, BET): (2, "showdown"),
    (BET, PASS): (1, 0),
    (PASS, BET, PASS): (1, 1),
}

Policy = dict[tuple[int, tuple[int, ...]], float]  # (card, betting) -> chance to bet/call


def best_response_value(policy: Policy, seat: int) -> float:
    """`seat`'s expected chips when it best-responds to `policy` played by the other seat
    (a best response picks one action per information set: its card and the betting)."""

    def value(card: int, line: tuple[int, ...], weights: dict[int, float]) -> float:
        if line in ENDS:
            stake, winner = ENDS[line]
            total = 0.0
            for other, w in weights.items():
                won = (card > other) if winner == "showdown" else (winner == seat)
                total += w * (stake if won else -stake)
            return total
        if len(line) % 2 == seat:
            return max(value(card, line + (a,), weights) for a in (PASS, BET))
        total = 0.0
        for a in (PASS, BET):
            reach = {
                o: w * (policy[(o, line)] if a == BET else 1 - policy[(o, line)])
                for o, w in weights.items()
            }
            total += value(card, line + (a,), reach)
        return total

    return sum(value(c, (), {o: 1 / 6 for o in range(3) if o != c}) for c in range(3))


def exploitability(policy: Policy) -> float:
    return (best_response_value(policy, 0) + best_response_value(policy, 1)) / 2


def measure(config: SearchConfig, iterations: int, seeds: int) -> dict:
    chosen: Policy = {}
    mixed: Policy = {}
    start = time.perf_counter()
    for seat, line in DECISIONS:
        for card in range(3):
            cards = [-1, -1]
            cards[seat] = card
            view = KuhnPokerState.from_deal(cards, list(line), viewer=seat)
            bets, share = 0, 0.0
            for seed in range(seeds):
                result = search(view, SearchLimits(iterations=iterations), config, seed=seed)
                bets += result.action == BET
                share += sum(c.policy for c in result.candidates if c.action == BET)
            chosen[(card, line)] = bets / seeds
            mixed[(card, line)] = share / seeds

    def named(policy: Policy) -> dict[str, float]:
        return {
            CARDS[c] + "".join("pb"[a] for a in line): round(p, 4)
            for (c, line), p in sorted(policy.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        }

    return {
        "iterations": iterations,
        "exploitability_chosen": round(exploitability(chosen), 4),
        "exploitability_policy": round(exploitability(mixed), 4),
        "bet_or_call_chosen": named(chosen),
        "bet_or_call_policy": named(mixed),
        "seconds": round(time.perf_counter() - start, 1),
    }


def agents() -> dict[str, tuple[SearchConfig, int]]:
    budgets = {name: p.budget("kuhn-poker").iterations for name, p in BY_NAME.items()}
    table = {name: (KUHN_POKER_CONFIG, n) for name, n in budgets.items()}
    table["strong_x10"] = (KUHN_POKER_CONFIG, 10 * budgets["strong"])
    table["strong-v3"] = STRONG_V3["kuhn-poker"]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="searches per information set")
    parser.add_argument("--only", action="append", help="an agent's name (repeatable)")
    args = parser.parse_args()
    out: dict = {
        "uniform_random": round(
            exploitability({(c, line): 0.5 for c in range(3) for _, line in DECISIONS}), 4
        ),
        "seeds": args.seeds,
    }
    for name, (config, iterations) in agents().items():
        if args.only and name not in args.only:
            continue
        out[name] = measure(config, iterations, args.seeds)
        print(name, out[name]["exploitability_chosen"], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
