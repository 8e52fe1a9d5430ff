"""Where ``council.mcts.review.THRESHOLDS`` and each game's ``review_thresholds`` come from: the
distribution of per-decision losses of strong and of random play, as the review measures them.

Plays seeded games of each game (``--games``; Council of Four by default) in two lineups,
``ismcts`` against ``ismcts`` (strong against strong) and ``ismcts`` against ``random``
(``--player-iterations`` for the search seats), reviews every seat of every game with
``review_game`` (``--review-iterations`` per decision) and prints one JSON object: per
game and lineup, the losses' percentiles (50, 75, 90, 95, 97.5, 99, 99.5, max) of the
search seats' decisions and of the random seats', their mean, and the share of each kind's
decisions that each threshold candidate (``--candidates``) would label: under
``win_probability`` for the loss in win probability, under ``points`` for the points lost
(the game's unit; candidates ``--points-candidates``, as multiples of the unit).

Decisions are the moves ``summarize`` counts (more than one legal action). One process, one
search thread.

    python bench/review_thresholds.py                     # Council of Four, 8 deals each
    python bench/review_thresholds.py --games the-council kuhn-poker --deals 4
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from council.engine.games import game_named
from council.engine.record import record_from_json
from council.mcts.agents import parse_agent
from council.mcts.arena import run_arena
from council.mcts.games import search_game
from council.mcts.review import OPEN, review_game
from council.mcts.search import SearchLimits

PERCENTILES = (50, 75, 90, 95, 97.5, 99, 99.5, 100)


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of sorted values (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


def losses_of(
    game: str, specs: list[str], args: argparse.Namespace
) -> dict[str, list[tuple[float, float, bool]]]:
    """The decisions' (loss, points lost, decided) of each agent spec over the lineup's
    games; decided: the seat's win probability before the move outside ``OPEN``."""
    found: dict[str, list[tuple[float, float, bool]]] = {spec: [] for spec in set(specs)}
    with tempfile.TemporaryDirectory() as folder:
        lineup = [parse_agent(spec, game) for spec in specs]
        config = game_named(game).config_class(players=len(specs))
        run_arena(
            lineup,
            deals=args.deals,
            seed=args.seed,
            config=config,
            workers=1,
            record_dir=folder,
            specs=specs,
        )
        limits = SearchLimits(iterations=args.review_iterations)
        for path in sorted(Path(folder).glob("*.json")):
            record = record_from_json(path.read_text())
            agent_of = {p.seat: p.agent for p in record.players}
            for r in review_game(record, limits=limits, seed=args.seed):
                if not r.only_move:
                    decided = not OPEN[0] <= r.win_probability_before <= OPEN[1]
                    found[agent_of[r.seat]].append((r.loss, r.points_lost, decided))
    return found


def describe(found: list[tuple[float, float, bool]], args: argparse.Namespace) -> dict:
    """The win-probability losses' and the points lost's distributions, the points also
    over the decided positions alone."""
    return {
        "win_probability": distribution([loss for loss, _, _ in found], args.candidates),
        "points": distribution([points for _, points, _ in found], args.points_candidates),
        "points_decided": distribution(
            [points for _, points, decided in found if decided], args.points_candidates
        ),
    }


def distribution(losses: list[float], candidates: list[float]) -> dict:
    ordered = sorted(losses)
    n = len(ordered)
    return {
        "decisions": n,
        "mean": sum(ordered) / n if n else 0.0,
        "percentiles": {str(q): round(percentile(ordered, q), 4) for q in PERCENTILES},
        "share_at_or_above": {
            str(c): round(sum(x >= c for x in ordered) / n, 4) if n else 0.0 for c in candidates
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["council-of-four"])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--player-iterations", type=int, default=300)
    parser.add_argument("--review-iterations", type=int, default=300)
    parser.add_argument(
        "--candidates", type=float, nargs="+", default=[0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2]
    )
    parser.add_argument(
        "--points-candidates",
        type=float,
        nargs="+",
        default=[0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 8, 13, 20],
    )
    args = parser.parse_args(argv)
    out: dict = {"settings": vars(args).copy(), "games": {}}
    for game in args.games:
        seats = search_game(game).table_size
        strong = f"ismcts:iterations={args.player_iterations}"
        started = time.perf_counter()
        both = losses_of(game, [strong] * seats, args)
        mixed = losses_of(game, [strong] + ["random"] * (seats - 1), args)
        out["games"][game] = {
            "strong_vs_strong": describe(both[strong], args),
            "strong_vs_random": {
                "strong": describe(mixed[strong], args),
                "random": describe(mixed["random"], args),
            },
            "seconds": round(time.perf_counter() - started, 1),
        }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
