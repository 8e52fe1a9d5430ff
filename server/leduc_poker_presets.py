"""Leduc poker's preset budgets (``council.server.presets``).

Five times Kuhn poker's: Leduc's tree is far larger (936 information states against 12),
and its second round is searched below a public card the first round's iterations average
over. How far each budget is from an equilibrium is measured exactly (its exploitability, and
its expected chips against one: ``python bench/exploitability.py``; docs/results.md,
"Exploitability"): more iterations are not always closer.
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "leduc-poker",
    {
        "beginner": Budget(100, "well under 1 ms a move", "loses the most to an equilibrium"),
        "casual": Budget(1000, "a few ms", "the default; loses the least to an equilibrium"),
        "strong": Budget(
            10000, "about 15 ms", "loses more to an equilibrium than casual, less than beginner"
        ),
    },
)
