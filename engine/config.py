"""Deprecated (0.4.0 removes it): each game's configuration moved to its own module
(``council.engine.<module_name>``), the default game's name to ``council.engine.games``; each
name used from here warns and is the moved one."""

from council.engine._deprecated import moved

__getattr__ = moved(
    __name__,
    {
        "GameConfig": "council.engine.council_of_four_config:CouncilOfFourConfig",
        "COUNCIL_OF_FOUR_PLAYERS": "council.engine.council_of_four_config:COUNCIL_OF_FOUR_PLAYERS",
        "TheCouncilConfig": "council.engine.the_council_config:TheCouncilConfig",
        "THE_COUNCIL_PLAYERS": "council.engine.the_council_config:THE_COUNCIL_PLAYERS",
        "DEFAULT_GAME": "council.engine.games:DEFAULT_GAME",
    },
)
