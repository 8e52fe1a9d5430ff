"""Search over Council of Four positions: Information Set MCTS, baselines and the arena."""

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
