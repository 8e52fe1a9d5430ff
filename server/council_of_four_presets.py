"""Council of Four's preset budgets (``council.server.presets``).

The measured figures (win rates between presets and against the expert, head to head, 2
players) are in the README, from bench/strength.py; a ranking only says how the presets
rank, so it cannot go stale.
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "council-of-four",
    {
        "beginner": Budget(50, "about 1 ms a move", "a little stronger than the expert planner"),
        "casual": Budget(300, "about 5 ms", "the default; clearly stronger than beginner"),
        # A larger first-play urgency (untried moves valued 0.3 below their visited
        # siblings' mean, not the search's 0.1) pays at this budget and loses at casual's
        # and beginner's (figures in docs/learning.md).
        "strong": Budget(
            5000,
            "about 0.07 s on one core",
            "the strongest; clearly stronger than casual",
            settings=(("fpu_reduction", 0.3),),
        ),
    },
)
