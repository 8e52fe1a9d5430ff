"""A War of Whispers' preset budgets (``council.server.presets``).

Iterations of the search at the opening run at the rate bench/a_war_of_whispers_search.py
measures (docs/results.md, "A War of Whispers: search speed"); each budget is ten times the
one below, as The Council's. Their strength against one another and the expert is not yet
measured (issue #40).
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "a-war-of-whispers",
    {
        "beginner": Budget(100, "a few ms a move", "the fewest iterations"),
        "casual": Budget(1000, "a few tens of ms", "the default"),
        "strong": Budget(10000, "a few tenths of a second on one core", "the most iterations"),
    },
)
