"""Type stubs for The Council's knowledge for the search (mcts/_the_council_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any

from council.engine._the_council import TheCouncilState

# The SearchConfig settings this module reads.
SETTINGS: tuple[str, ...]

# The cheap policy: its action in a full state or a view, drawn with `seed`.
def the_council_policy_action(state: TheCouncilState, seed: int, params: dict[str, Any]) -> int: ...
