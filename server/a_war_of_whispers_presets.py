"""A War of Whispers' preset budgets (``council.server.presets``).

Each budget is ten times the one below, as The Council's. Their speed at the opening and
their strength (one seat against three of the expert or of the preset below) are in
docs/results.md, "A War of Whispers": each beats the expert, casual beats beginner, and strong
beats casual head to head (0.658 [0.589, 0.720] over 200 two-player games).
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "a-war-of-whispers",
    {
        "beginner": Budget(100, "a few ms a move", "stronger than the expert heuristic"),
        "casual": Budget(1000, "a few tens of ms", "the default; stronger than beginner"),
        "strong": Budget(
            10000, "a few tenths of a second on one core", "the strongest against the expert"
        ),
    },
)
