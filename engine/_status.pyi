"""Type stubs for the compiled consistency check (engine/_status.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from council.engine._core import State

REGIONS: tuple[str, ...]
COLOURS: tuple[str, ...]
CARD_KINDS: tuple[str, ...]
CITIES: tuple[str, ...]
BONUS_TILES: tuple[str, ...]
KING_TILES: tuple[int, ...]

def problems(state: State) -> list[tuple[str, str]]: ...
