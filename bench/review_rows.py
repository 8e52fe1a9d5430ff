"""What-if figures over the planted check's decisions: the accuracy curve's slope and the
Council of Four points inaccuracy threshold, read again from ``bench/review.py
--planted-rows`` without reviewing again.

Prints one JSON object:

* ``accuracy_slopes``: per slope ``k`` of ``clamp(103.1668 * exp(-k * severity) - 3.1668,
  0, 100)``: what a decision at the inaccuracy threshold scores, the mean accuracy of the
  planted moves, of the planted seat, of the other seats, and the gap (the other seats'
  less the planted seat's), per review budget;
* ``points_inaccuracy``: per candidate points threshold, over the planted seat's decisions
  in decided positions (Council of Four only): flagged if the loss reaches the inaccuracy
  threshold or the points lost reach the candidate; recall and precision as the planted
  check counts them, and against its reference (``recall_of_losing``,
  ``precision_by_reference``) where the rows carry one.

    python bench/review.py --only-planted --planted-in council-of-four --planted-kinds random \\
        --planted-games 8 --planted-player casual --budgets casual --planted-rows rows.jsonl
    python bench/review_rows.py rows.jsonl
    python bench/review_rows.py rows.jsonl --from-record 8   # the games after the first 8
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import statistics
import sys

from council.mcts.review import THRESHOLDS

SLOPES = (4.354, 8.0, 10.0, 12.0, math.log(103.1668 / 53.1668) / 0.05, 16.0)
POINTS_CANDIDATES = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0)


def accuracy(severity: float, slope: float) -> float:
    return min(100.0, max(0.0, 103.1668 * math.exp(-slope * severity) - 3.1668))


def slopes_table(rows: list[dict]) -> list[dict]:
    groups = {
        "planted_moves": [r for r in rows if r["planted"]],
        "planted_seat": [r for r in rows if r["planted_seat"]],
        "other_seats": [r for r in rows if not r["planted_seat"]],
    }
    out = []
    for slope in SLOPES:
        means = {
            name: round(statistics.mean(accuracy(r["severity"], slope) for r in group), 1)
            for name, group in groups.items()
            if group
        }
        out.append(
            {
                "slope": round(slope, 3),
                "at_inaccuracy": round(accuracy(THRESHOLDS["inaccuracy"], slope), 1),
                **means,
                "gap": round(means["other_seats"] - means["planted_seat"], 1),
            }
        )
    return out


def points_table(rows: list[dict]) -> list[dict]:
    decided = [r for r in rows if r["planted_seat"] and r["decided"]]
    planted = [r for r in decided if r["planted"]]
    inaccuracy = THRESHOLDS["inaccuracy"]
    out = []
    for points in POINTS_CANDIDATES:
        flagged = [r for r in decided if r["loss"] >= inaccuracy or r["points_lost"] >= points]
        hit = sum(r["planted"] for r in flagged)
        row = {
            "points": points,
            "planted": len(planted),
            "flagged": len(flagged),
            "recall": round(hit / len(planted), 3) if planted else None,
            "precision": round(hit / len(flagged), 3) if flagged else None,
        }
        if decided and all(r["reference"] is not None for r in decided):
            losing = [r for r in planted if r["reference"] >= inaccuracy]
            found = sum(r in flagged for r in losing)
            sound = sum(r["planted"] or r["reference"] >= inaccuracy for r in flagged)
            row["recall_of_losing"] = round(found / len(losing), 3) if losing else None
            row["precision_by_reference"] = round(sound / len(flagged), 3) if flagged else None
        out.append(row)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "rows", help="the JSON lines of bench/review.py --planted-rows (.gz: compressed)"
    )
    parser.add_argument(
        "--from-record",
        type=int,
        default=0,
        help="only the games from this index on (games not used to choose the settings)",
    )
    args = parser.parse_args(argv)
    with (gzip.open if args.rows.endswith(".gz") else open)(args.rows, "rt") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = [r for r in rows if r["record"] >= args.from_record]
    report: dict = {"rows": args.rows, "from_record": args.from_record, "by": {}}
    for key in sorted({(r["game"], r["kind"], r["budget"]) for r in rows}):
        game, kind, budget = key
        mine = [r for r in rows if (r["game"], r["kind"], r["budget"]) == key]
        entry: dict = {"decisions": len(mine), "accuracy_slopes": slopes_table(mine)}
        if game == "council-of-four":
            entry["points_inaccuracy"] = points_table(mine)
        report["by"][f"{game} {kind} {budget}"] = entry
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
