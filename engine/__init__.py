"""Council of Four rules engine: a compiled game-state core and its Python edge."""

from council.engine._core import Decision, IllegalActionError, State
from council.engine.config import GameConfig

__all__ = ["Decision", "GameConfig", "IllegalActionError", "State"]
