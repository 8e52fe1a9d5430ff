"""Type stubs for the compiled benchmark loops (engine/_bench.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from council.engine._core import State

# (total actions, total games)
def bench_random_games(
    n_players: int, n_games: int, seed: int, layout: int = 2
) -> tuple[int, int]: ...
def bench_clone(state: State, n: int) -> int: ...
def bench_legal_actions(state: State, n: int) -> int: ...
def bench_determinize(view: State, n: int, seed: int) -> int: ...
