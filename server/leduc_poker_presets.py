"""Leduc poker's preset budgets (``council.server.presets``).

Five times Kuhn poker's: Leduc's tree is far larger (936 information states against 12).
The search solves the whole hand from the deal by Monte Carlo CFR and draws its move from
the average strategy (``LEDUC_POKER_CONFIG``), so more iterations bring it nearer an
equilibrium: each preset is less exploitable than the one below (exact best responses:
``python bench/exploitability.py``; docs/results.md, "Leduc poker by Monte Carlo CFR").
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "leduc-poker",
    {
        "beginner": Budget(100, "under 1 ms a move", "the most exploitable preset"),
        "casual": Budget(1000, "about 1 ms", "the default; less exploitable than beginner"),
        "strong": Budget(10000, "about 10 ms", "the least exploitable preset"),
    },
)
