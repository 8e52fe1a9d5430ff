"""Rules engines: compiled game-state cores and their Python edge.

Council of Four (``State``) and The Council, the Decktet game (``TheCouncilState``).
"""

from council.engine._core import Decision, IllegalActionError, State
from council.engine._the_council import TheCouncilState
from council.engine.config import GameConfig, TheCouncilConfig

__all__ = [
    "Decision",
    "GameConfig",
    "IllegalActionError",
    "State",
    "TheCouncilConfig",
    "TheCouncilState",
]
