"""Council of Four rules engine: a compiled game-state core and its Python edge."""

from council.engine._core import IllegalActionError, State
from council.engine.config import GameConfig

__all__ = ["GameConfig", "IllegalActionError", "State"]
