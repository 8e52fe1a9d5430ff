"""Type stubs for A War of Whispers' knowledge for the search
(mcts/_a_war_of_whispers_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

# The SearchConfig settings this module reads.
SETTINGS: tuple[str, ...]
