"""The contract every game's position meets: ``Position``.

A position is a full state of one game, or one seat's view of it (``is_view``): every
game's position class meets it with the same methods, so code above the engine (the
service, the CLI, the arena, the ladder) can hold any without asking which. The wrapper
methods they share are written once, in ``engine/_position.pxi``; what is a game's own
(its rules, its action text, its consistency checks) each class supplies.

>>> from council.engine import Position
>>> from council.engine.games import all_games
>>> positions = [g.new_game(g.config_class(players=3), seed=1) for g in all_games()[:2]]
>>> all(isinstance(p, Position) for p in positions)
True
>>> [p.decision_name for p in positions]
['turn', 'draft']
>>> [p.problems() for p in positions]
[[], []]
>>> [p.view(1).determinize(seed=2).current_player for p in positions]
[0, 0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from typing_extensions import Self  # typing's from Python 3.11

__all__ = ["IllegalActionError", "Position", "StructuredActionError"]


class IllegalActionError(ValueError):
    """An action that is not legal in the position it was applied to (every game's ``apply``)."""


class StructuredActionError(ValueError):
    """An Action message that is no action: `violations` lists (field, problem), the field a
    path in the message ("balcony", "cards.white"; "" for the message as a whole)."""

    def __init__(self, violations):
        self.violations: list[tuple[str, str]] = list(violations)
        super().__init__("; ".join(f"{f}: {p}" if f else p for f, p in self.violations))


@runtime_checkable
class Position(Protocol):
    """A position of a game: a full state, or one seat's view of it.

    A view (``viewer`` >= 0) holds only what its seat may know; the rules queries
    (``legal_actions``, ``apply``, ...) need a full state and raise ValueError on a view,
    which ``determinize(seed)`` completes into one. Actions are integer ids in the game's
    fixed action space. ``isinstance(x, Position)`` checks the method names only.
    """

    @classmethod
    def new_game(cls, config: Any = None, seed: int = 0) -> Self:
        """A new game from the game's configuration (its defaults if None) and a seed."""
        ...

    @property
    def n_players(self) -> int: ...
    @property
    def current_player(self) -> int:
        """The seat to act (-1 once the game is over)."""
        ...

    @property
    def viewer(self) -> int:
        """-1 for a full state; the seat whose view this is otherwise."""
        ...

    @property
    def is_view(self) -> bool: ...
    @property
    def decision_name(self) -> str:
        """The name of the decision to take now, in the game's own words (a turn, a pending
        decision's name, a phase; at the end ``'game_over'`` or ``'over'``)."""
        ...

    @property
    def turn(self) -> int:
        """The game's length so far, in the unit that match caps count."""
        ...

    @property
    def action_count(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self) -> list[int]: ...
    def is_legal(self, action: int) -> bool: ...
    def apply(self, action: int) -> None:
        """Apply a legal action in place (IllegalActionError otherwise)."""
        ...

    def child(self, action: int) -> Self: ...
    def action_to_text(self, action: int) -> str: ...
    def action_from_text(self, text: str) -> int: ...
    def clone(self) -> Self: ...
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: object) -> Self: ...
    def view(self, seat: int) -> Self: ...
    def determinize(self, seed: int) -> Self: ...
    def reseed(self, seed: int) -> None: ...
    def scores(self) -> list[int]: ...
    def winners(self) -> list[int]: ...
    def returns(self) -> list[float]: ...
    def adjudicated(self) -> Self: ...
    def problems(self) -> list[tuple[str, str]]:
        """Every consistency problem as ``(field path, problem)``; ``[]`` if none."""
        ...

    def to_raw(self) -> dict[str, Any]: ...
