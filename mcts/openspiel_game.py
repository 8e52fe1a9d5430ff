"""Deprecated (0.4.0 removes it): the OpenSpiel wrapper of one game moved to its own module,
``council.mcts.council_of_four_openspiel``. Importing this module still registers the game
with pyspiel; each name used from here warns and is that module's."""

import council.mcts.council_of_four_openspiel  # noqa: F401  (registers the game)
from council.engine._deprecated import moved

__getattr__ = moved(__name__, "council.mcts.council_of_four_openspiel")
