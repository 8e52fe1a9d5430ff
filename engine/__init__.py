"""Rules engines: each game's compiled core and its Python edge, registered in
``council.engine.games``; every game's position meets ``Position``, the contract of a
position (``council.engine.position``). A game's classes are its own module's
(``council.engine.<module_name>``: its state and config classes).
"""

from council.engine._deprecated import moved
from council.engine.position import IllegalActionError, Position

# The registry before any game's module: importing a game's module first (for its classes)
# would otherwise import the registry from inside it, and that game would register after
# the ones the registry imports next, out of their order (and the default game's name,
# the first registered, would be another's).
from council.engine import games as _games  # noqa: F401  # isort: skip

__all__ = ["IllegalActionError", "Position"]

# Deprecated: the names this package exported before each game's classes moved to its own
# module (CHANGELOG 0.3.0).
__getattr__ = moved(
    __name__,
    {
        "State": "council.engine.council_of_four:CouncilOfFourState",
        "GameConfig": "council.engine.council_of_four:CouncilOfFourConfig",
        "Decision": "council.engine.council_of_four:Decision",
        "TheCouncilState": "council.engine.the_council:TheCouncilState",
        "TheCouncilConfig": "council.engine.the_council:TheCouncilConfig",
    },
)
