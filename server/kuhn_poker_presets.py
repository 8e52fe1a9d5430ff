"""Kuhn poker's preset budgets (``council.server.presets``).

The search plays the whole hand for both seats and mixes its moves (``KUHN_POKER_CONFIG``),
so more iterations bring it nearer an equilibrium: each preset is less exploitable than the
one below (exact best responses: docs/results.md, "Mixed play and beliefs"). A game is at
most three actions long, so even strong's budget takes a few tens of milliseconds.
"""

from __future__ import annotations

from council.server.presets import Budget, register_budgets

__all__: list[str] = []

register_budgets(
    "kuhn-poker",
    {
        # Half its iterations dealt its own card and replaying its own betting (hand_focus):
        # at 200 iterations the whole hand is too thin for its own position (exploitability
        # 0.136 with, 0.188 without, 300 searches a state; docs/results.md).
        "beginner": Budget(
            200,
            "well under 1 ms a move",
            "the most exploitable preset",
            settings=(("hand_focus", 0.5),),
        ),
        "casual": Budget(2000, "about 2 ms", "the default; less exploitable than beginner"),
        "strong": Budget(20000, "about 20 ms", "the least exploitable; near an equilibrium's play"),
    },
)
