"""Rules engines: compiled game-state cores and their Python edge.

Council of Four (``State``) and The Council, the Decktet game (``TheCouncilState``); both
meet ``Position``, the contract of a position (``council.engine.position``).
"""

from council.engine._core import Decision, IllegalActionError, State
from council.engine._the_council import TheCouncilState
from council.engine.config import GameConfig, TheCouncilConfig
from council.engine.position import Position

__all__ = [
    "Decision",
    "GameConfig",
    "IllegalActionError",
    "Position",
    "State",
    "TheCouncilConfig",
    "TheCouncilState",
]
