"""Our IS-MCTS against OpenSpiel's IS-MCTS, 2 players, at equal iterations and equal time.

Needs the optional extra: ``pip install -e ".[openspiel]"``. Prints one JSON object.

    python bench/openspiel_compare.py                       # the defaults of docs/openspiel.md
    python bench/openspiel_compare.py --games 8 --modes iterations --iterations 200

OpenSpiel's bot is ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on the Python game
``python_council_of_four`` (``council.mcts.council_of_four_openspiel``). The C++
``pyspiel.ISMCTSBot`` cannot run it: OpenSpiel's Python-game bridge does not forward
``ResampleFromInfostate`` to Python, so the C++ bot stops on "ResampleFromInfostate() not
implemented".

Fairness:

* Same deals: deal ``d`` is the game seeded ``seed + d``, played twice with the seats
  swapped, so each bot plays each seat on every deal.
* Same information: our bot gets ``state.view(seat)``; OpenSpiel's bot gets a state
  re-dealt from that view (``view.determinize``), never the true hidden cards, and its
  search samples its worlds through ``resample_from_infostate`` (``view.determinize`` with a
  seed from the bot's own RNG).
* Same seeds per move: both derive their per-move seed as the arena does.
* Equal iterations: ``--iterations`` simulations each (ours: one tree descent + its
  40-action rollout and evaluation; theirs: one tree descent + one random rollout to the
  end). Equal time: ``--time-s`` seconds of search per move each, one thread each (ours
  with ``time_s``; theirs runs OpenSpiel's simulation loop until the same deadline).
* Their evaluator: ``engine`` (default) is OpenSpiel's RandomRolloutEvaluator algorithm
  with the rollout run in C by the engine (about 10x faster than the Python loop);
  ``openspiel`` is OpenSpiel's own ``RandomRolloutEvaluator`` unchanged.
* Their ``uct_c`` is 1.0: OpenSpiel's usual 2.0 for returns in [-1, 1], rescaled to this
  game's returns in [0, 1]. Final move: the most visited (``MAX_VISIT_COUNT``), as ours.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts import council_of_four_openspiel as openspiel_game
from council.mcts.arena import wilson_interval
from council.mcts.search import SearchConfig, SearchLimits, search

OURS, THEIRS = "ours", "openspiel"


class TimedISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot whose simulation loop can stop at a deadline.

    With ``time_s=None`` it is the unchanged bot (``max_simulations`` simulations). With a
    time it runs OpenSpiel's own steps (``sample_root_state``, ``run_simulation``,
    ``get_final_policy``) until ``time_s`` seconds have passed (at least two simulations:
    the first only expands the root).
    """

    def __init__(self, *args, time_s: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.time_s = time_s
        self.simulations = 0

    def run_search(self, state):
        if self.time_s is None:
            self.simulations = self._max_simulations
            return super().run_search(state)
        deadline = time.perf_counter() + self.time_s
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            self.simulations = 0
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        root_key = self.get_state_key(state)
        n = 0
        while n < 2 or time.perf_counter() < deadline:  # the 1st only expands the root
            sampled_root_state = self.sample_root_state(state)
            assert root_key == self.get_state_key(sampled_root_state)
            self.run_simulation(sampled_root_state)
            n += 1
        self.simulations = n
        return self.get_final_policy(state, self._root_node)


@dataclass(frozen=True)
class Budget:
    mode: str  # "iterations" or "time"
    iterations: int | None
    time_s: float | None
    evaluator: str  # "engine" or "openspiel"
    uct_c: float


def move_seed(deal_seed: int, actions: int) -> int:
    return (deal_seed * 7919 + actions) & 0xFFFFFFFF  # as council.mcts.arena.play_game


def their_bot(game, budget: Budget, seed: int) -> TimedISMCTSBot:
    rng = np.random.RandomState(seed)
    if budget.evaluator == "engine":
        evaluator = openspiel_game.EngineRolloutEvaluator(1, rng)
    else:
        evaluator = mcts.RandomRolloutEvaluator(1, rng)
    timed = budget.mode == "time"
    return TimedISMCTSBot(
        game,
        evaluator,
        budget.uct_c,
        max_simulations=10**9 if timed else budget.iterations,
        random_state=rng,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        time_s=budget.time_s if timed else None,
    )


def play(job) -> dict:
    """One game: ``ours_seat`` is our bot's seat in a 2-player game dealt from ``deal``."""
    deal, ours_seat, budget = job
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 2, "seed": deal})
    # What ISMCTSAgent(iterations=..., time_s=...).act does, keeping the iteration count.
    ours_limits = SearchLimits(iterations=budget.iterations, time_s=budget.time_s, threads=1)
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=deal)
    actions = 0
    clock = {OURS: 0.0, THEIRS: 0.0}
    moves = {OURS: 0, THEIRS: 0}
    their_sims: list[int] = []
    our_iterations: list[int] = []
    while not state.is_terminal():
        seat = state.current_player
        seed = move_seed(deal, actions)
        view = state.view(seat)
        start = time.perf_counter()
        if seat == ours_seat:
            result = search(view, ours_limits, SearchConfig(), seed=seed)
            action = result.action
            our_iterations.append(result.iterations)
            side = OURS
        else:
            bot = their_bot(game, budget, seed)
            # A world re-dealt from the seat's view: the bot cannot see the true hidden cards.
            world = game.state_from_engine(view.determinize(seed ^ 0x5EED5EED))
            action = int(bot.step(world))
            side = THEIRS
            if bot.simulations:
                their_sims.append(bot.simulations)
        clock[side] += time.perf_counter() - start
        moves[side] += 1
        state.apply(action)
        actions += 1
        if actions >= openspiel_game.MAX_GAME_LENGTH:
            raise RuntimeError(f"deal {deal} passed {actions} actions")
    scores = state.scores()
    share = state.returns()
    return {
        "deal": deal,
        "ours_seat": ours_seat,
        "ours_win": share[ours_seat],
        "theirs_win": share[1 - ours_seat],
        "ours_vp": scores[ours_seat],
        "theirs_vp": scores[1 - ours_seat],
        "actions": actions,
        "turns": state.turn,
        "seconds": clock,
        "moves": moves,
        "their_simulations": their_sims,
        "our_iterations": our_iterations,
    }


def side_stats(records: list[dict], side: str) -> dict:
    key = "ours" if side == OURS else "theirs"
    wins = sum(r[f"{key}_win"] for r in records)
    n = len(records)
    low, high = wilson_interval(wins, n)
    return {
        "wins": wins,
        "win_rate": round(wins / n, 4),
        "win_rate_95ci": [round(low, 4), round(high, 4)],
        "mean_vp": round(sum(r[f"{key}_vp"] for r in records) / n, 2),
        "mean_seconds_per_move": round(
            sum(r["seconds"][side] for r in records)
            / max(1, sum(r["moves"][side] for r in records)),
            4,
        ),
    }


def run_mode(budget: Budget, deals: int, seed: int, pool) -> dict:
    jobs = [(seed + d, ours_seat, budget) for d in range(deals) for ours_seat in (0, 1)]
    start = time.perf_counter()
    records = list(pool.imap_unordered(play, jobs)) if pool else [play(j) for j in jobs]
    wall = time.perf_counter() - start
    records.sort(key=lambda r: (r["deal"], r["ours_seat"]))
    sims = [s for r in records for s in r["their_simulations"]]
    ours_its = [s for r in records for s in r["our_iterations"]]
    budgets = {
        OURS: {"iterations": budget.iterations}
        if budget.mode == "iterations"
        else {"time_s": budget.time_s},
        THEIRS: {
            "simulations": budget.iterations if budget.mode == "iterations" else None,
            "time_s": budget.time_s if budget.mode == "time" else None,
            "evaluator": budget.evaluator,
            "uct_c": budget.uct_c,
        },
    }
    if budget.mode == "time":
        budgets[OURS]["iterations_per_move_median"] = int(statistics.median(ours_its))
        budgets[THEIRS]["simulations_per_move_median"] = (
            int(statistics.median(sims)) if sims else None
        )
    return {
        "mode": budget.mode,
        "games": len(records),
        "deals": deals,
        "budgets": budgets,
        OURS: side_stats(records, OURS),
        THEIRS: side_stats(records, THEIRS),
        "ours_seat0_win_rate": round(
            statistics.mean(r["ours_win"] for r in records if r["ours_seat"] == 0), 4
        ),
        "ours_seat1_win_rate": round(
            statistics.mean(r["ours_win"] for r in records if r["ours_seat"] == 1), 4
        ),
        "mean_game_length_actions": round(statistics.mean(r["actions"] for r in records), 1),
        "mean_game_length_turns": round(statistics.mean(r["turns"] for r in records), 1),
        "wall_s": round(wall, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=32,
        help="games per mode (even: each deal is played with both seatings)",
    )
    parser.add_argument("--seed", type=int, default=1000, help="first deal's seed")
    parser.add_argument(
        "--modes", default="iterations,time", help="comma-separated: iterations, time"
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=500,
        help="simulations per move for both bots (mode iterations)",
    )
    parser.add_argument(
        "--time-s",
        type=float,
        default=0.1,
        help="search seconds per move for both bots (mode time)",
    )
    parser.add_argument(
        "--evaluator",
        choices=("engine", "openspiel"),
        default="engine",
        help="their leaf evaluator: random rollouts run by the engine in C, "
        "or OpenSpiel's RandomRolloutEvaluator in Python",
    )
    parser.add_argument("--uct-c", type=float, default=1.0, help="their UCT constant")
    parser.add_argument("--workers", type=int, default=2, help="game processes")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be an even number >= 2")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - {"iterations", "time"}:
        parser.error("--modes takes iterations and/or time")

    pool = multiprocessing.get_context("fork").Pool(args.workers) if args.workers > 1 else None
    results = []
    try:
        for mode in modes:
            budget = Budget(
                mode=mode,
                iterations=args.iterations if mode == "iterations" else None,
                time_s=args.time_s if mode == "time" else None,
                evaluator=args.evaluator,
                uct_c=args.uct_c,
            )
            results.append(run_mode(budget, args.games // 2, args.seed, pool))
    finally:
        if pool is not None:
            pool.terminate()
    report = {
        "comparison": "council.mcts ISMCTSAgent vs open_spiel.python.algorithms.ismcts.ISMCTSBot",
        "players": 2,
        "seed": args.seed,
        "results": results,
        "open_spiel": _version("open_spiel"),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "workers": args.workers,
        "command": "python bench/openspiel_compare.py " + " ".join(argv or sys.argv[1:]),
    }
    print(json.dumps(report, indent=2))
    return 0


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist.replace("_", "-"))
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
