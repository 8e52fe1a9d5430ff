"""Type stubs for the compiled consistency check (engine/_council_of_four_status.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from council.engine._council_of_four import CouncilOfFourState

REGIONS: tuple[str, ...]
COLOURS: tuple[str, ...]
CARD_KINDS: tuple[str, ...]
CITIES: tuple[str, ...]
BONUS_TILES: tuple[str, ...]
KING_TILES: tuple[int, ...]

def problems(state: CouncilOfFourState) -> list[tuple[str, str]]: ...
