"""Game review honesty: does ``council.mcts.review`` blame the moves it should, and only those?

Plays seeded games, records them (``council.engine.record``), reviews every seat of each with
``review_game`` and prints one JSON object:

* ``search_vs_random``: games between a strong-like search seat (the ``strong`` preset's
  iterations and settings, or ``--player-iterations``) and ``random`` seats: each side's
  average loss per decision and label rates, and in how many games the random seat lost
  more on average than the search seat (expected: every game, by far); ``open_*``: the
  same over the decisions taken while the game was open (the seat's win probability
  before the move in ``OPEN``), since in a decided game no move loses much;
* ``search_vs_search``: search seats only: the label rates per decision (a blunder by the
  strong search should be rare);
* ``seed_stability``: the same games reviewed with ``--seeds`` review seeds: per seed the
  label counts and loss percentiles, their spread (max - min over seeds), and the share of
  decisions labelled alike under every seed;
* ``calibration``: ``win_probability_before`` (the seat's chance as the review saw it then,
  from the seat's own view) against the seat's result (1 for a win, 1/k for a k-way shared
  win, else 0): log loss, Brier, the constant base-rate baseline and a reliability table,
  over the search-vs-search games and over each side of the search-vs-random ones (a
  review's probability assumes good play from then on, so the random seat's is expected to
  be too high); with matplotlib and ``--plot``, a reliability plot (PNG);
* ``planted``: sensitivity. Games of search seats only (``--planted-games`` of each game of
  ``--planted-in``, at the game's table size) where one seat's decisions are, with
  probability ``--planted-share``, replaced by a random legal action (``random``) or, in a
  second set of games, by the worst of its own search's candidates (``worst``: the lowest
  mean reward among the visited root actions). Each game is reviewed at every budget of
  ``--budgets``; per game, kind and budget: the planted seat's decisions that were planted
  and flagged (any label), ``recall`` (flagged planted / planted) and ``precision``
  (planted flagged / flagged), in decided positions (win probability before the move
  outside ``OPEN``) and open ones, and each side's accuracy (the planted seat's against
  the other seats'). A planted random move may lose nothing (another way to the same end),
  and the players' own moves may lose: so a *reference* review (``--planted-reference``,
  default the ``strong`` preset, ``--reference-seeds`` seeds, its severities averaged)
  judges the planted seat's decisions too, and the check also gives ``recall_of_losing``
  (flagged / the planted moves the reference finds losing at least the inaccuracy
  threshold) and ``precision_by_reference`` (flags on planted moves or on moves the
  reference finds losing / flags), beside the raw figures;
* ``cost``: seconds per reviewed game (every seat) at each budget of ``--budgets`` (preset
  names or iteration counts), over the first games played: wall-clock and this process's
  CPU time (the figure to read on a machine shared with other jobs).

Decisions are moves with more than one legal action (the ones ``summarize`` counts). One
process, one search thread: the seconds are one core's.

    python bench/review.py > bench/results/review.json   # the full run: 20 games a kind, 3 seeds
    python bench/review.py --quick                       # a few minutes
    python bench/review.py --games 6 --seeds 3 --plot docs/review-calibration.png
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from council.engine.games import game_named
from council.engine.record import RecordedPlayer, record_of
from council.mcts import review as review_module
from council.mcts.agents import agent_label, parse_agent
from council.mcts.arena import MAX_ACTIONS, MAX_TURNS, cap_reason, play_capped
from council.mcts.games import all_search_games, search_game
from council.mcts.review import LABELS, THRESHOLDS, MoveReview, review_game, summarize
from council.mcts.search import SearchLimits, default_config
from council.server.presets import PRESETS

NAMED = LABELS[1:]  # the labels proper ("" is none)
PERCENTILES = (50, 75, 90, 95, 99)
# Planted games per --planted-games, by game: a Kuhn poker game is one or two decisions a seat.
PLANTED_GAMES_FACTOR = {"kuhn-poker": 10}
OPEN = review_module.OPEN  # win probability before the move of a game still open


def _points_thresholds() -> dict[str, dict[str, float]]:
    """Every game's review thresholds in its points (as the report states them)."""
    return {g.name: dict(g.review_thresholds) for g in all_search_games()}


def preset_budget(game: str, name: str) -> tuple[int, dict]:
    """(iterations, search settings) of a preset in ``game``, or of an iteration count."""
    for preset in PRESETS:
        if preset.name == name:
            budget = preset.budget(game)
            return budget.iterations, dict(budget.settings)
    return int(name), {}


def search_spec(iterations: int, settings: dict) -> str:
    """The agent spec of a search seat with this budget and these settings."""
    options = "".join(f",{key}={value}" for key, value in settings.items())
    return f"ismcts:iterations={iterations}{options}"


def play_records(game: str, lineup: Sequence[str], games: int, players: int, seed: int) -> list:
    """``games`` seeded games of ``lineup`` (one spec per seat, rotated by game) as records."""
    config = game_named(game).config_class(players=players).validate()
    out = []
    for g in range(games):
        specs = [lineup[(s + g) % players] for s in range(players)]
        agents = [parse_agent(spec, game) for spec in specs]
        played: list[int] = []
        _, _, adjudicated = play_capped(agents, config, seed + g, played=played)
        names = [
            RecordedPlayer(agent_label(a), spec) for a, spec in zip(agents, specs, strict=True)
        ]
        out.append(record_of(config.new_game(seed + g), played, names, adjudicated=adjudicated))
    return out


def review(
    record, iterations: int, settings: dict, seed: int, seats: Sequence[int] | None = None
) -> list[MoveReview]:
    """The moves of ``seats`` (None: every seat) of ``record`` reviewed at ``iterations``
    per decision."""
    from council.engine.serialize import state_from_proto

    config = default_config(state_from_proto(record.start)).with_settings(settings)
    limits = SearchLimits(iterations=iterations)
    return list(review_game(record, limits=limits, seed=seed, config=config, seats=seats))


def is_decision(r: MoveReview) -> bool:
    return not r.only_move


def is_open(r: MoveReview) -> bool:
    return not r.decided


def label_rates(reviews: Sequence[MoveReview]) -> dict:
    """Decisions, average loss and each label's count and rate per decision."""
    decided = [r for r in reviews if is_decision(r)]
    n = len(decided)
    out: dict = {
        "decisions": n,
        "average_loss": round(sum(r.loss for r in decided) / n, 4) if n else 0.0,
    }
    # Once a game is all but decided every move keeps the seat's chance near 0 or 1, so
    # loses next to nothing: the loss over the decisions taken while the game was open.
    open_ = [r for r in decided if is_open(r)]
    out["open_decisions"] = len(open_)
    out["open_average_loss"] = round(sum(r.loss for r in open_) / len(open_), 4) if open_ else 0.0
    out["average_points_lost"] = round(sum(r.points_lost for r in decided) / n, 3) if n else 0.0
    counts = {name: sum(r.label == name for r in decided) for name in NAMED}
    out["counts"] = counts
    out["rate_per_decision"] = {k: round(v / n, 4) if n else 0.0 for k, v in counts.items()}
    out["mistake_or_blunder_rate"] = (
        round((counts["mistake"] + counts["blunder"]) / n, 4) if n else 0.0
    )
    out["accuracy"] = (
        round(statistics.mean(review_module.accuracy_of_loss(r.severity) for r in decided), 1)
        if n
        else 100.0
    )
    return out


def percentiles(reviews: Sequence[MoveReview]) -> dict:
    losses = np.array([r.loss for r in reviews if is_decision(r)] or [0.0])
    return {f"p{q}": round(float(np.percentile(losses, q)), 4) for q in PERCENTILES}


def outcome(record, seat: int) -> float:
    winners = list(record.winners)
    return 1 / len(winners) if seat in winners else 0.0


def calibration(pairs: Sequence[tuple[float, float]]) -> dict:
    """Log loss and Brier of predictions against outcomes, the base-rate baseline and a
    reliability table (ten bins of the prediction), as bench/calibration.py."""
    if not pairs:
        return {"positions": 0}
    p = np.clip(np.array([a for a, _ in pairs], float), 1e-6, 1 - 1e-6)
    y = np.array([b for _, b in pairs], float)

    def scores(q):
        return {
            "log_loss": round(float(-(y * np.log(q) + (1 - y) * np.log(1 - q)).mean()), 4),
            "brier": round(float(((q - y) ** 2).mean()), 4),
        }

    base = np.clip(np.full_like(y, y.mean()), 1e-6, 1 - 1e-6)
    bins = np.minimum((p * 10).astype(int), 9)
    return {
        "positions": len(y),
        **scores(p),
        "constant_base_rate": scores(base),
        "mean_predicted": round(float(p.mean()), 4),
        "mean_observed": round(float(y.mean()), 4),
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


def calibration_pairs(records, reviews, seats=None) -> list[tuple[float, float]]:
    """(win_probability_before, the seat's result) of every decision of ``seats`` (a set
    per game, or every seat)."""
    out = []
    for g, (record, moves) in enumerate(zip(records, reviews, strict=True)):
        for r in moves:
            if is_decision(r) and (seats is None or r.seat in seats[g]):
                out.append((r.win_probability_before, outcome(record, r.seat)))
    return out


def versus_random_check(reviews: list[list[MoveReview]], search_seats: list[set[int]]) -> dict:
    """(1): each side's loss and labels, and game by game the two sides' average loss."""
    per_game = []
    for moves, mine in zip(reviews, search_seats, strict=True):
        summaries = {s.seat: s for s in summarize(moves)}
        search_loss = statistics.mean(summaries[s].average_loss for s in mine)
        others = [s.average_loss for s in summaries.values() if s.seat not in mine]
        per_game.append((search_loss, statistics.mean(others)))
    sides = [
        label_rates(
            [
                r
                for moves, mine in zip(reviews, search_seats, strict=True)
                for r in moves
                if (r.seat in mine) == searching
            ]
        )
        for searching in (True, False)
    ]
    search_stats, random_stats = sides
    return {
        "games": len(reviews),
        "search_seat": search_stats,
        "random_seat": random_stats,
        "loss_ratio_random_over_search": round(
            random_stats["average_loss"] / max(search_stats["average_loss"], 1e-9), 1
        ),
        "games_random_lost_more": sum(rand > mine for mine, rand in per_game),
        "per_game_average_loss": [
            {"search": round(mine, 4), "random": round(rand, 4)} for mine, rand in per_game
        ],
    }


def seed_check(by_seed: list[list[MoveReview]]) -> dict:
    """(3): the same moves reviewed under each seed: per seed the label counts and loss
    percentiles, their spread, and how often the seeds agree on a decision's label."""
    per_seed = [
        {"seed": s, **label_rates(moves), **percentiles(moves)} for s, moves in enumerate(by_seed)
    ]

    def spread_of(values) -> float:
        return round(max(values) - min(values), 4)

    spread = {"average_loss": spread_of([p["average_loss"] for p in per_seed])}
    spread["counts"] = {k: spread_of([p["counts"][k] for p in per_seed]) for k in NAMED}
    spread |= {f"p{q}": spread_of([p[f"p{q}"] for p in per_seed]) for q in PERCENTILES}
    # The decisions are the same moves in the same order under every seed.
    labels = list(
        zip(*([r.label for r in moves if is_decision(r)] for moves in by_seed), strict=True)
    )
    labelled = [set(ls) for ls in labels if any(ls)]
    return {
        "seeds": len(by_seed),
        "per_seed": per_seed,
        "spread_max_minus_min": spread,
        "decisions_labelled_alike_under_every_seed": round(
            sum(len(set(ls)) == 1 for ls in labels) / max(len(labels), 1), 4
        ),
        "labelled_decisions_labelled_alike": round(
            sum(len(ls) == 1 for ls in labelled) / len(labelled), 4
        )
        if labelled
        else None,
    }


def play_planted(
    game: str, player: str, seed: int, share: float, kind: str
) -> tuple[object, int, set[int]]:
    """A game of ``player`` in every seat in which one seat (``seed`` mod the seats) plays,
    at each decision with probability ``share``, a random legal action other than the
    search's choice (``kind`` "random") or the worst of its search's visited candidates
    ("worst") instead of the search's choice: (record, that seat, the indices of the
    planted moves)."""
    import random

    seats = search_game(game).table_size
    config = game_named(game).config_class(players=seats).validate()
    agent = parse_agent(player, game)
    planted_seat, draw = seed % seats, random.Random(seed * 31 + 7)
    state, played, planted = config.new_game(seed), [], set()
    adjudicated = False
    while not state.is_terminal():
        if cap_reason(state, len(played), MAX_TURNS, MAX_ACTIONS) is not None:
            adjudicated = True
            break
        seat, view = state.current_player, state.view(state.current_player)
        move_seed = (seed * 7919 + len(played)) & 0xFFFFFFFF
        legal = state.legal_actions()
        if seat == planted_seat and len(legal) > 1 and draw.random() < share:
            result = agent.analyse(view, move_seed)
            if kind == "random":  # any legal action but the one the seat would have played
                action = draw.choice([a for a in legal if a != result.action])
            else:
                visited = [c for c in result.candidates if c.visits > 0]
                action = min(visited, key=lambda c: c.mean_reward).action
            planted.add(len(played))
        else:
            action = agent.act(view, move_seed)
        state.apply(action)
        played.append(action)
    names = [RecordedPlayer(agent_label(agent), player) for _ in range(seats)]
    record = record_of(config.new_game(seed), played, names, adjudicated=adjudicated)
    return record, planted_seat, planted


def reference_severities(game: str, games: list, budget: str, seeds: int) -> list[dict]:
    """Per planted game, the planted seat's decisions judged by a stronger review: each
    move index's ``severity`` averaged over ``seeds`` review seeds at ``budget`` (the
    planted check's reference, the module's docstring)."""
    iterations, settings = preset_budget(game, budget)
    out = []
    for record, seat, _ in games:
        runs = [review(record, iterations, settings, 1000 + s, seats=[seat]) for s in range(seeds)]
        out.append(
            {
                moves[0].index: statistics.mean(r.severity for r in moves)
                for moves in zip(*runs, strict=True)
                if is_decision(moves[0])
            }
        )
    return out


def review_decided(record, iterations: int, settings: dict, factor: int) -> list[MoveReview]:
    """``review`` (seed 0) with ``DECIDED_BUDGET_FACTOR`` set to ``factor`` for it."""
    saved = review_module.DECIDED_BUDGET_FACTOR
    review_module.DECIDED_BUDGET_FACTOR = factor
    try:
        return review(record, iterations, settings, 0)
    finally:
        review_module.DECIDED_BUDGET_FACTOR = saved


def tally_planted(rows: Sequence[dict]) -> dict:
    """Recall and precision of the flags (any label) on the planted seat's decisions
    ``rows``, in decided and open positions and over all; against the reference too where
    the rows carry one (``reference``: its severity)."""
    inaccuracy = THRESHOLDS["inaccuracy"]
    out: dict = {}
    for part in ("decided", "open", "all"):
        mine = [r for r in rows if part == "all" or (part == "decided") == r["decided"]]
        flagged = [r for r in mine if r["label"]]
        hit = sum(r["planted"] for r in flagged)
        planted = sum(r["planted"] for r in mine)
        tally: dict = {
            "planted": planted,
            "flagged": len(flagged),
            "planted_flagged": hit,
            "recall": round(hit / planted, 3) if planted else None,
            "precision": round(hit / len(flagged), 3) if flagged else None,
        }
        if mine and all(r["reference"] is not None for r in mine):
            # A planted move the reference finds no worse than the inaccuracy threshold lost
            # nothing to find; a flag on a move the reference finds losing is no false flag.
            losing = [r for r in mine if r["planted"] and r["reference"] >= inaccuracy]
            found = sum(bool(r["label"]) for r in losing)
            sound = sum(r["planted"] or r["reference"] >= inaccuracy for r in flagged)
            tally |= {
                "planted_losing_by_reference": len(losing),
                "planted_losing_flagged": found,
                "recall_of_losing": round(found / len(losing), 3) if losing else None,
                "flags_losing_or_planted": sound,
                "precision_by_reference": round(sound / len(flagged), 3) if flagged else None,
            }
        out[part] = tally
    return out


def planted_check(args, player_budget: str, budgets: list[str]) -> dict:
    """The ``planted`` check (the module's docstring): per game, kind and review budget.
    With ``--planted-rows`` every reviewed decision is written there, one JSON line each."""
    out: dict = {}
    rows_out = open(args.planted_rows, "w") if args.planted_rows else None  # noqa: SIM115
    for game in args.planted_in:
        player = search_spec(*preset_budget(game, player_budget))
        per_kind: dict = {}
        for kind in args.planted_kinds:
            games = [
                play_planted(game, player, args.seed + 20_000 + g, args.planted_share, kind)
                for g in range(args.planted_games * PLANTED_GAMES_FACTOR.get(game, 1))
            ]
            references = (
                reference_severities(game, games, args.planted_reference, args.reference_seeds)
                if args.planted_reference
                else [{} for _ in games]
            )
            per_budget: dict = {}
            for name in budgets:
                iterations, settings = preset_budget(game, name)
                mine, others, rows = [], [], []
                for g, (record, seat, planted) in enumerate(games):
                    for r in review_decided(record, iterations, settings, args.decided_factor):
                        if not is_decision(r):
                            continue
                        (mine if r.seat == seat else others).append(r)
                        row = {
                            "game": game,
                            "kind": kind,
                            "budget": name,
                            "record": g,
                            "move": r.index,
                            "planted_seat": r.seat == seat,
                            "planted": r.index in planted,
                            "decided": not is_open(r),
                            "win_probability_before": round(r.win_probability_before, 4),
                            "loss": round(r.loss, 4),
                            "points_lost": round(r.points_lost, 3),
                            "severity": round(r.severity, 4),
                            "label": r.label,
                            "reference": references[g].get(r.index) if r.seat == seat else None,
                        }
                        if r.seat == seat:
                            rows.append(row)
                        if rows_out is not None:
                            rows_out.write(json.dumps(row) + "\n")
                per_budget[name] = {
                    "iterations": iterations,
                    **tally_planted(rows),
                    "planted_seat": label_rates(mine),
                    "other_seats": label_rates(others),
                }
            per_kind[kind] = {
                "games": len(games),
                "planted_moves": sum(len(p) for _, _, p in games),
                "budgets": per_budget,
            }
        out[game] = {
            "player_spec": player,
            "share": args.planted_share,
            "reference": {"budget": args.planted_reference, "seeds": args.reference_seeds}
            if args.planted_reference
            else None,
            "decided_budget_factor": args.decided_factor,
            **per_kind,
        }
    if rows_out is not None:
        rows_out.close()
    return out


def plot_reliability(tables: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for name, table in tables.items():
        rows = table.get("reliability", [])
        if rows:
            ax.plot(
                [r["predicted"] for r in rows],
                [r["observed"] for r in rows],
                marker="o",
                label=f"{name} (n={table['positions']}, Brier {table['brier']})",
            )
    ax.set_xlabel("win probability before the move (review, seat's view)")
    ax.set_ylabel("observed result")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Game review: reliability of win_probability_before", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="council-of-four")
    parser.add_argument("--players", type=int, default=2, help="seats per game")
    parser.add_argument("--games", type=int, default=20, help="games of each kind")
    parser.add_argument("--seed", type=int, default=0, help="the first game's deal seed")
    parser.add_argument(
        "--player-iterations",
        help="the search seats' budget: a preset name or iterations (default strong)",
        default="strong",
    )
    parser.add_argument(
        "--review", default="strong", help="the review's budget: a preset name or iterations"
    )
    parser.add_argument("--seeds", type=int, default=3, help="review seeds (stability)")
    parser.add_argument(
        "--budgets",
        default="beginner,casual,strong",
        help="budgets timed (preset names or iteration counts, comma-separated)",
    )
    parser.add_argument("--cost-games", type=int, default=2, help="games reviewed per budget")
    parser.add_argument("--plot", help="write the reliability plot (PNG) here")
    parser.add_argument(
        "--planted-in",
        nargs="+",
        default=["council-of-four", "the-council", "kuhn-poker"],
        help="the games of the planted-mistakes check",
    )
    parser.add_argument(
        "--planted-games", type=int, default=10, help="planted games of each game and kind"
    )
    parser.add_argument(
        "--planted-share",
        type=float,
        default=1 / 3,
        help="the share of the planted seat's decisions replaced",
    )
    parser.add_argument(
        "--planted-player",
        default="strong",
        help="the planted games' search seats: a preset name or iterations",
    )
    parser.add_argument(
        "--planted-kinds",
        nargs="+",
        default=["random", "worst"],
        choices=["random", "worst"],
        help="the kinds of planted moves",
    )
    parser.add_argument(
        "--planted-reference",
        default="strong",
        help="the reference review's budget (a preset name or iterations; '' for none): a "
        "planted move it finds losing less than the inaccuracy threshold lost nothing",
    )
    parser.add_argument(
        "--reference-seeds", type=int, default=2, help="the reference review's seeds, averaged"
    )
    parser.add_argument(
        "--decided-factor",
        type=int,
        default=review_module.DECIDED_BUDGET_FACTOR,
        help="the planted check's reviews: a decided position's budget, times the budget",
    )
    parser.add_argument("--planted-rows", help="write every reviewed decision here (JSON lines)")
    parser.add_argument(
        "--only-planted", action="store_true", help="run the planted-mistakes check alone"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a few minutes: 2 games of each kind, players at 300 iterations, "
        "review at 1000, 2 seeds, budgets beginner,casual, 1 cost game, 2 planted games",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.player_iterations, args.review = 2, "300", "1000"
        args.seeds, args.budgets, args.cost_games = 2, "beginner,casual", 1
        args.planted_games, args.planted_reference, args.reference_seeds = 2, "1000", 1
    began = time.perf_counter()
    game, n = args.game, args.players
    if args.only_planted:
        budgets = [name.strip() for name in args.budgets.split(",")]
        report = {
            "thresholds": THRESHOLDS,
            "points_thresholds": {g.name: dict(g.review_thresholds) for g in all_search_games()},
            "review_source_sha256": hashlib.sha256(
                Path(review_module.__file__).read_bytes()
            ).hexdigest()[:12],
            "planted": planted_check(args, args.planted_player, budgets),
            "command": "python bench/review.py "
            + " ".join(argv if argv is not None else sys.argv[1:]),
            "seconds_total": round(time.perf_counter() - began, 1),
            "cpu_seconds_total": round(time.process_time(), 1),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        }
        print(json.dumps(report, indent=2))
        return 0

    player = search_spec(*preset_budget(game, args.player_iterations))
    review_iterations, review_settings = preset_budget(game, args.review)
    versus_random = play_records(game, [player] + ["random"] * (n - 1), args.games, n, args.seed)
    searches = play_records(game, [player] * n, args.games, n, args.seed + 10_000)
    played_s = time.perf_counter() - began

    def search_seats(records) -> list[set[int]]:
        return [{p.seat for p in r.players if p.agent == player} for r in records]

    # Every game reviewed once per seed; seed 0's reviews are the checks' (1), (2), (4).
    by_seed: dict[int, tuple[list, list]] = {}
    for s in range(args.seeds):
        by_seed[s] = (
            [review(r, review_iterations, review_settings, s) for r in versus_random],
            [review(r, review_iterations, review_settings, s) for r in searches],
        )
    random_reviews, search_reviews = by_seed[0]
    seats_of_search = search_seats(versus_random)

    check_random = versus_random_check(random_reviews, seats_of_search)
    check_search = {
        "games": len(searches),
        **label_rates([r for moves in search_reviews for r in moves]),
    }
    check_seeds = seed_check(
        [[r for group in by_seed[s] for moves in group for r in moves] for s in range(args.seeds)]
    )

    # (4) calibration of the review's win probability against the results.
    tables = {
        "search_vs_search": calibration(calibration_pairs(searches, search_reviews)),
        "search_seat_vs_random": calibration(
            calibration_pairs(versus_random, random_reviews, seats_of_search)
        ),
        "random_seat": calibration(
            calibration_pairs(
                versus_random,
                random_reviews,
                [set(range(n)) - mine for mine in seats_of_search],
            )
        ),
    }
    plotted = None
    if args.plot:
        try:
            plot_reliability(tables, args.plot)
            plotted = args.plot
        except ImportError:
            plotted = "matplotlib is not installed: no plot"

    # (5) what a review costs at each budget.
    cost = []
    timed = (searches + versus_random)[: args.cost_games]
    for name in args.budgets.split(","):
        iterations, settings = preset_budget(game, name.strip())
        seconds, cpu_seconds, decisions = [], [], 0
        for record in timed:
            start, cpu = time.perf_counter(), time.process_time()
            moves = review(record, iterations, settings, 0)
            seconds.append(time.perf_counter() - start)
            cpu_seconds.append(time.process_time() - cpu)
            decisions += sum(is_decision(r) for r in moves)
        reviewed = sum(len(r.moves) for r in timed)
        cost.append(
            {
                "budget": name.strip(),
                "iterations": iterations,
                "games": len(timed),
                "seconds_per_game": round(statistics.mean(seconds), 2),
                # This process's CPU time: what the review costs on a core of its own.
                "cpu_seconds_per_game": round(statistics.mean(cpu_seconds), 2),
                "moves_per_game": round(reviewed / len(timed), 1),
                "decisions_per_game": round(decisions / len(timed), 1),
                "ms_per_move": round(1000 * sum(seconds) / max(reviewed, 1), 2),
            }
        )

    planted = planted_check(
        args, args.planted_player, [name.strip() for name in args.budgets.split(",")]
    )

    report = {
        "game": game,
        "players": n,
        "thresholds": THRESHOLDS,
        "points_thresholds": _points_thresholds(),
        # Which version of the review was measured (its method is still being refined).
        "review_source_sha256": hashlib.sha256(
            Path(review_module.__file__).read_bytes()
        ).hexdigest()[:12],
        "player_spec": player,
        "review_iterations": review_iterations,
        "review_settings": review_settings,
        "search_vs_random": check_random,
        "search_vs_search": check_search,
        "seed_stability": check_seeds,
        "planted": planted,
        "calibration": tables,
        "reliability_plot": plotted,
        "cost": cost,
        "settings": {
            "games": args.games,
            "seed": args.seed,
            "seeds": args.seeds,
            "quick": args.quick,
            "command": "python bench/review.py "
            + " ".join(argv if argv is not None else sys.argv[1:]),
        },
        "seconds_playing": round(played_s, 1),
        "seconds_total": round(time.perf_counter() - began, 1),
        "cpu_seconds_total": round(time.process_time(), 1),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
