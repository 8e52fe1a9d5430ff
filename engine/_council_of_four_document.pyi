"""Type stubs for the compiled GameState message reader and writer
(engine/_council_of_four_document.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any

from council.engine._council_of_four import CouncilOfFourState
from council.engine.council_of_four_config import CouncilOfFourConfig as CouncilOfFourConfig
from council.v1 import game_pb2

FORMAT: str
REGIONS: tuple[str, ...]
BALCONIES: tuple[str, ...]
COLOURS: tuple[str, ...]
CARD_KINDS: tuple[str, ...]
CITIES: tuple[str, ...]
BONUS_TILES: tuple[str, ...]
KING_TILES: tuple[int, ...]
MAX_PENDING_DECISIONS: int
MAX_PROBLEMS: int
CONFIG_FIELDS: tuple[str, ...]
CONFIG_KINDS: tuple[int, ...]

# A CouncilOfFourConfig, or the [(field, problem)] list of what is wrong with `values`.
def _check_config(values: dict[str, Any]) -> CouncilOfFourConfig | list[tuple[str, str]]: ...
def read_state(
    msg: game_pb2.GameState, view_of: int = -1
) -> tuple[CouncilOfFourState | None, list[tuple[str, str]]]: ...
def write_state(state: CouncilOfFourState) -> game_pb2.GameState: ...
