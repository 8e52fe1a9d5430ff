"""The AI-vs-AI ladder: seeded round-robin matches of any registered game between
built-in agents and remote ``council.v1`` endpoints, stored in SQLite, rated with OpenSkill
(Plackett-Luce) and a pairwise win-rate table with 95% intervals; resumable, and scalable
out on Ray.

* ``games``: the games a ladder plays (every registered game) and their table sizes.
* ``schedule``: the deterministic list of games (stable ids).
* ``entrants``: entrant specs (built-in agents, ``remote:HOST:PORT``).
* ``store``: the SQLite file (settings and one transaction per game).
* ``runner``: plays the games not yet stored (in-process, process pool or Ray).
* ``ratings`` / ``report``: standings, head to head, the PNG plot.
* ``cli``: the ``council-ladder`` command line (``council-ladder run`` / ``report``,
  docs/ladder.md).

The ladder sits above the service: it may import ``council.server``, ``council.mcts``,
``council.engine`` and ``council.v1``; none of them imports it. Its ratings and plot need the
``ladder`` extra (``pip install 'council-ai[ladder]'``: OpenSkill, matplotlib); Ray for
``--ray-address`` comes with the ``ladder-ray`` extra.
"""

from council.ladder.entrants import Entrant, Forfeit, RemoteAgent, parse_entrant
from council.ladder.report import LadderReport, load, plot
from council.ladder.runner import RunSummary, play_scheduled, run_ladder
from council.ladder.schedule import ScheduledGame, schedule
from council.ladder.store import GameResult, LadderConfig, LadderMismatch, Store

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
