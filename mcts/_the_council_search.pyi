"""Type stubs for The Council's knowledge for the search (mcts/_the_council_search.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any

from council.engine._the_council import TheCouncilState

# The SearchConfig settings this module reads.
SETTINGS: tuple[str, ...]

# The cheap policy: its action in a full state or a view, drawn with `seed`.
def the_council_policy_action(state: TheCouncilState, seed: int, params: dict[str, Any]) -> int: ...

# The cheap policy's chance of revealing a Court (its other reveals are certain or never).
COURT_REVEAL: float
# The most deals a determinization with beliefs draws (belief_samples).
MAX_BELIEF_SAMPLES: int

# Beliefs from the others' actions: how likely a full state `deal` of `view` makes the
# others' picks this hand from the packs the viewer has not held (chances mixed with a
# uniform pick at `floor`).
def the_council_history_weight(
    deal: TheCouncilState, view: TheCouncilState, floor: float
) -> float: ...

# A full state of `view` as the search deals it with a SearchConfig's params.
def the_council_belief_determinize(
    view: TheCouncilState, seed: int, params: dict[str, Any]
) -> TheCouncilState: ...
