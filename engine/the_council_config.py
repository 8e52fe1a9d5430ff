"""The Council's configuration: the seat count. It makes the game's new positions."""

from __future__ import annotations

from dataclasses import dataclass

from council.engine._the_council import MAX_PLAYERS as _TC_MAX_PLAYERS
from council.engine._the_council import MIN_PLAYERS as _TC_MIN_PLAYERS

# Its seat counts.
THE_COUNCIL_PLAYERS = tuple(range(_TC_MIN_PLAYERS, _TC_MAX_PLAYERS + 1))


@dataclass(frozen=True)
class TheCouncilConfig:
    """A game of The Council, the Decktet game (docs/the-council.md): 3 to 5 seats.

    >>> TheCouncilConfig(players=5).new_game(seed=1).n_players
    5
    """

    players: int = 4

    def validate(self) -> TheCouncilConfig:
        if not isinstance(self.players, int) or self.players not in THE_COUNCIL_PLAYERS:
            raise ValueError(f"players: The Council seats 3, 4 or 5, got {self.players!r}")
        return self

    def new_game(self, seed: int = 0):
        from council.engine._the_council import TheCouncilState

        return TheCouncilState.new_game(self, seed=seed)
