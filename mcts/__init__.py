"""The players of the engine's games: Information Set MCTS (``search``), the baseline
agents and agent specs (``agents``), the arena (``arena``), the search's features and the
learned models' inference (``value_model``, ``policy_model``; NumPy only). Training those
models is council.learning's, which imports this package and never the other way round."""

from council.mcts.search import (
    Candidate,
    Search,
    SearchConfig,
    SearchLimits,
    SearchResult,
    StopFlag,
    search,
)

__all__ = [
    "Candidate",
    "Search",
    "SearchConfig",
    "SearchLimits",
    "SearchResult",
    "StopFlag",
    "search",
]
