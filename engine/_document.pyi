"""Type stubs for the compiled GameState message reader and writer (engine/_document.pyx).

Kept in step with the extension by tests/test_stubs.py.
"""

from typing import Any

from council.engine._core import State
from council.engine.config import GameConfig as GameConfig
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

# A GameConfig, or the [(field, problem)] list of what is wrong with `values`.
def _check_config(values: dict[str, Any]) -> GameConfig | list[tuple[str, str]]: ...
def read_state(
    msg: game_pb2.GameState, view_of: int = -1
) -> tuple[State | None, list[tuple[str, str]]]: ...
def write_state(state: State) -> game_pb2.GameState: ...
