"""The AI-vs-AI ladder: seeded round-robin matches between built-in agents and remote
``council.v1`` endpoints, stored in SQLite, rated with OpenSkill (Plackett-Luce) and a
pairwise win-rate table with 95% intervals; resumable, and scalable out on Ray.

* ``schedule``: the deterministic list of games (stable ids).
* ``entrants``: entrant specs (built-in agents, ``remote:HOST:PORT``).
* ``store``: the SQLite file (settings and one transaction per game).
* ``runner``: plays the games not yet stored (in-process, process pool or Ray).
* ``ratings`` / ``report``: standings, head to head, the PNG plot.

``council-ai ladder run`` and ``council-ai ladder report`` are the command line
(docs/ladder.md).
"""

from council.server.ladder.entrants import Entrant, Forfeit, RemoteAgent, parse_entrant
from council.server.ladder.report import LadderReport, load, plot
from council.server.ladder.runner import RunSummary, play_scheduled, run_ladder
from council.server.ladder.schedule import ScheduledGame, schedule
from council.server.ladder.store import GameResult, LadderConfig, LadderMismatch, Store

__all__ = [
    "Entrant",
    "Forfeit",
    "GameResult",
    "LadderConfig",
    "LadderMismatch",
    "LadderReport",
    "RemoteAgent",
    "RunSummary",
    "ScheduledGame",
    "Store",
    "load",
    "parse_entrant",
    "play_scheduled",
    "plot",
    "run_ladder",
    "schedule",
]
