"""Council of Four's part of the search layer (``council.mcts.games``): the search's
defaults (``SearchConfig()``, tuned on this game), its own settings
(``council_of_four_settings.CouncilOfFourSettings``) and every agent of
``council.mcts.agents``; its ladders are head to head (2 seats), as its strength figures are
measured.
"""

from __future__ import annotations

from council.mcts.agents import AGENTS
from council.mcts.council_of_four_settings import CouncilOfFourSettings
from council.mcts.games import register_search
from council.mcts.search import SearchConfig

__all__: list[str] = []

register_search(
    "council-of-four",
    config=SearchConfig(),
    settings=CouncilOfFourSettings,
    agents=AGENTS,
    table_size=2,
    review_thresholds={"inaccuracy": 0.1, "mistake": 6.0, "blunder": 15.0},  # VP
)
