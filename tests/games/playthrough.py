"""Golden playthroughs of every registered game: one JSON file per game,
``tests/games/golden/<game>.json``, written by ``make_golden.py`` and replayed by
``test_golden_playthroughs.py``.

A file holds one seeded game per seat count of its game, played by fixed agents from the
game's registered search agents (``council.mcts.games``): seat 0 an IS-MCTS search of
``SEARCH_ITERATIONS`` iterations, the other seats random; each agent acts on its seat's
view with the seed ``game seed * 1000 + action number``. For each game the file records
every action (the seat, the number of legal actions, the id, the text), the final scores
and winners and a digest of the final state's message::

    {
      "game": "the-council",
      "format": "the-council/1",
      "playthroughs": [
        {
          "players": 3, "seed": 10, "agents": ["ismcts iterations=16", "random", "random"],
          "actions": [
            [0, 6, 11, "pick The Savage"],
            ...
          ],
          "scores": [3, 0, 8], "winners": [2], "final_state": "<16 hex digits>"
        }
      ]
    }

Any change in how a game deals, plays, names its actions, scores or writes its messages, or
in how its search chooses, shows up as a difference; after an intended change, regenerate
the file and review its diff.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from council.engine.games import Game, all_games
from council.mcts.games import search_game

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REPOSITORY = GOLDEN_DIR.parents[2]
SEARCH_ITERATIONS = 16


def golden_path(game: Game) -> Path:
    return GOLDEN_DIR / f"{game.name}.json"


def how_to_write(game: Game) -> str:
    """The failure of a game without its golden file: the file, and the command that
    writes it."""
    where = golden_path(game).relative_to(REPOSITORY)
    return f"{where}: missing; write it with `python tests/games/make_golden.py {game.name}`"


def digest(game: Game, position: Any) -> str:
    """The first 16 hex digits of the sha256 of the position's message."""
    data = game.write(position).SerializeToString(deterministic=True)
    return hashlib.sha256(data).hexdigest()[:16]


def _lineup(game: Game, players: int) -> tuple[list[Any], list[str]]:
    agents = search_game(game.name).agents
    search = agents["ismcts"](iterations=SEARCH_ITERATIONS)
    names = [f"ismcts iterations={SEARCH_ITERATIONS}"] + ["random"] * (players - 1)
    return [search] + [agents["random"]()] * (players - 1), names


def play(game: Game, players: int, seed: int) -> dict[str, Any]:
    """The record of one seeded game of the fixed agents."""
    agents, names = _lineup(game, players)
    state = game.new_game(game.config_class(players=players), seed=seed)
    actions = []
    while not state.is_terminal():
        seat, legal = state.current_player, state.legal_actions()
        action = agents[seat].act(state.view(seat), seed * 1000 + state.action_count)
        actions.append([seat, len(legal), action, state.action_to_text(action)])
        state.apply(action)
    return {
        "players": players,
        "seed": seed,
        "agents": names,
        "actions": actions,
        "scores": state.scores(),
        "winners": state.winners(),
        "final_state": digest(game, state),
    }


def record(game: Game) -> dict[str, Any]:
    """The golden record of a game: one playthrough per seat count."""
    return {
        "game": game.name,
        "format": game.state_format,
        "playthroughs": [play(game, players, 10 * players) for players in game.players],
    }


def to_text(golden: dict[str, Any]) -> str:
    """The JSON text of a record, one action a line (readable diffs)."""
    lines = ["{", f'  "game": {json.dumps(golden["game"])},']
    lines += [f'  "format": {json.dumps(golden["format"])},', '  "playthroughs": [']
    for i, p in enumerate(golden["playthroughs"]):
        head = {k: p[k] for k in ("players", "seed", "agents")}
        lines += ["    {", "      " + json.dumps(head)[1:-1] + ",", '      "actions": [']
        lines += [f"        {json.dumps(a)}," for a in p["actions"]]
        if p["actions"]:
            lines[-1] = lines[-1][:-1]
        tail = {k: p[k] for k in ("scores", "winners", "final_state")}
        lines += ["      ],", "      " + json.dumps(tail)[1:-1]]
        lines.append("    }," if i + 1 < len(golden["playthroughs"]) else "    }")
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def replay(game: Game, golden: dict[str, Any]) -> None:
    """Replay a record action by action from the texts; AssertionError naming the game, the
    seat count and the action at the first difference."""
    assert (golden["game"], golden["format"]) == (game.name, game.state_format)
    assert [p["players"] for p in golden["playthroughs"]] == list(game.players)
    for p in golden["playthroughs"]:
        state = game.new_game(game.config_class(players=p["players"]), seed=p["seed"])
        for number, (seat, count, action, text) in enumerate(p["actions"]):
            where = f"{game.name}, {p['players']} seats, action {number} ({text!r})"
            assert not state.is_terminal(), f"{where}: the game is over"
            assert state.action_from_text(text) == action, f"{where}: the text is another id"
            assert state.action_to_text(action) == text, f"{where}: the id has another text"
            assert state.current_player == seat, f"{where}: seat {state.current_player} moves"
            legal = state.legal_actions()
            assert len(legal) == count, f"{where}: {len(legal)} legal actions, not {count}"
            assert action in legal, f"{where}: not legal"
            state.apply(action)
        where = f"{game.name}, {p['players']} seats, the end"
        assert state.is_terminal(), f"{where}: the game is not over"
        assert state.scores() == p["scores"], f"{where}: scores {state.scores()}"
        assert state.winners() == p["winners"], f"{where}: winners {state.winners()}"
        assert digest(game, state) == p["final_state"], f"{where}: another final state"


def games_named(names: list[str]) -> list[Game]:
    """The registered games of some names (every game if none)."""
    games = {g.name: g for g in all_games()}
    unknown = [n for n in names if n not in games]
    if unknown:
        raise SystemExit(f"unknown game {', '.join(unknown)}; choose from {', '.join(games)}")
    return [games[n] for n in names] if names else list(games.values())
