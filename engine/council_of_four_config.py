"""Council of Four's configuration: the player count, the board layout and the rule variants
of RULINGS.md. It makes the game's new positions."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from council.engine.council_of_four_board import DEFAULT_LAYOUT, LAYOUT_CODES

# Its seat counts.
COUNCIL_OF_FOUR_PLAYERS = (2, 3, 4)


@dataclass(frozen=True)
class CouncilOfFourConfig:
    """Everything fixed before the first turn.

    >>> CouncilOfFourConfig(players=2).layout_index
    2
    >>> CouncilOfFourConfig(players=5).validate()
    Traceback (most recent call last):
    ...
    ValueError: players: must be 2, 3 or 4, got 5
    """

    players: int = 4
    layout: str = DEFAULT_LAYOUT  # coast, hills, mountains sides; RULINGS 19
    max_coins: int = 20  # RULINGS 4: coins above the cap are lost
    assistant_supply: int = 0  # RULINGS 5: 0 = unlimited
    permit_tie_all_score: bool = True  # RULINGS 8: every tied player scores 3 VP
    nobility_bonus_on_pass: bool = False  # RULINGS 13: only the space where it stops pays

    @property
    def layout_index(self) -> int:
        return LAYOUT_CODES.index(self.layout)

    def new_game(self, seed: int = 0):
        """``CouncilOfFourState.new_game(self, seed)``: a new Council of Four game."""
        from council.engine._council_of_four import CouncilOfFourState

        return CouncilOfFourState.new_game(self, seed=seed)

    def validate(self) -> CouncilOfFourConfig:
        """Raise ValueError naming the field if anything is out of range."""
        if not isinstance(self.players, int) or self.players not in COUNCIL_OF_FOUR_PLAYERS:
            raise ValueError(f"players: must be 2, 3 or 4, got {self.players!r}")
        if self.layout not in LAYOUT_CODES:
            raise ValueError(
                f"layout: must be 3 letters A/B for coast, hills, mountains, got {self.layout!r}"
            )
        if not isinstance(self.max_coins, int) or not 13 <= self.max_coins <= 30000:
            raise ValueError(f"max_coins: must be an integer in 13..30000, got {self.max_coins!r}")
        if not isinstance(self.assistant_supply, int) or not (
            self.assistant_supply == 0 or 10 <= self.assistant_supply <= 30000
        ):
            raise ValueError(
                "assistant_supply: must be 0 (unlimited) or an integer in 10..30000, "
                f"got {self.assistant_supply!r}"
            )
        for name in ("permit_tie_all_score", "nobility_bonus_on_pass"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: must be true or false")
        return self

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> CouncilOfFourConfig:
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"config: unknown field(s) {', '.join(sorted(unknown))}")
        return cls(**data).validate()
