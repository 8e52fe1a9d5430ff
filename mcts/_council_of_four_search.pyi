"""Type stubs for Council of Four's knowledge for the search (mcts/_council_of_four_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

# The action kinds by their K_* number (the rollout policy weighs them).
KIND_NAMES: tuple[str, ...]
# The SearchConfig settings this module reads.
SETTINGS: tuple[str, ...]
