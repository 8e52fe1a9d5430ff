"""Rules engines: compiled game-state cores and their Python edge.

Council of Four (``State``) and The Council, the Decktet game (``TheCouncilState``).
"""

from typing import TypeAlias

from council.engine._core import Decision, IllegalActionError, State
from council.engine._the_council import TheCouncilState
from council.engine.config import GameConfig, TheCouncilConfig

# A position of either game, as the engine holds it.
Position: TypeAlias = State | TheCouncilState

__all__ = [
    "Decision",
    "GameConfig",
    "IllegalActionError",
    "Position",
    "State",
    "TheCouncilConfig",
    "TheCouncilState",
]
