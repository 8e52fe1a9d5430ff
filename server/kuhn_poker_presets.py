"""Kuhn poker's preset budgets (``council.server.presets``).

A game is at most three actions long, so every budget searches its tiny tree many times
over: unlike the other games' presets, which each beat the one below, these were not found
to differ in play (``council-ai arena --game kuhn-poker``, the budgets head to head).
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

_SAME = "no measurably different play from the other presets (the game is tiny)"

register_budgets(
    "kuhn-poker",
    {
        "beginner": Budget(20, "well under 1 ms a move", _SAME),
        "casual": Budget(200, "about 1 ms", "the default; " + _SAME),
        "strong": Budget(2000, "a few ms", _SAME),
    },
)
