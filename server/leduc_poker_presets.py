"""Leduc poker's preset budgets (``council.server.presets``).

Ten times Kuhn poker's: Leduc's tree is about a thousand times larger (936 information
sets against 12), and its second round is searched below a public card the first round's
iterations average over. How far each budget is from an equilibrium is measured exactly
(its exploitability, ``python bench/exploitability.py``; docs/results.md, "Exploitability").
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "leduc-poker",
    {
        "beginner": Budget(200, "about 1 ms a move", "the weakest preset"),
        "casual": Budget(2000, "a few ms", "the default"),
        "strong": Budget(20000, "a few tens of ms", "the strongest preset"),
    },
)
