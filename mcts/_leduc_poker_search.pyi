"""Type stubs for Leduc poker's knowledge for the search (mcts/_leduc_poker_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

# The SearchConfig settings this module reads.
SETTINGS: tuple[str, ...]
