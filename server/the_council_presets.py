"""The Council's preset budgets (``council.server.presets``).

The measured figures (one seat against three of the preset below, and against the expert)
are in the README, from bench/strength.py. Its strong searches twice Council of Four's
iterations: its search still gains measurably from 5,000 to 10,000 against its expert,
Council of Four's no longer does.
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "the-council",
    {
        "beginner": Budget(50, "under 1 ms a move", "weaker than the expert planner"),
        "casual": Budget(
            300,
            "about 4 ms",
            "the default; a little stronger than the expert planner, clearly stronger "
            "than beginner",
        ),
        "strong": Budget(
            10000, "about 0.12 s on one core", "the strongest; clearly stronger than casual"
        ),
    },
)
