"""Every registered game, generically (OpenSpiel's ``test_all_games_tested``): each game has
every part of its record (``council.engine.games``) and a registration in each layer above
the rules (the search's settings and agents, ``council.mcts.games``; the service's preset
budgets, ``council.server.presets``), and those parts work together. A game that lacks one
fails ``test_every_game_has_every_part`` with the game and the part named. How every game
plays (random play, views, round trips, every RPC, a golden playthrough) is tested over
the registry in tests/games/."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from google.protobuf import json_format

from council.engine.games import (
    Game,
    all_games,
    default_game,
    game_named,
    game_of,
    game_of_proto,
    register,
)
from council.mcts.games import search_game
from council.server import convert, presets
from council.server.cli import main
from council.v1 import service_pb2 as spb

GAMES = all_games()
IDS = [g.name for g in GAMES]


def _record_problems(game: Game) -> list[str]:
    """What is missing or wrong in a game's record."""
    found = []
    for name in ("name", "display_name", "state_format"):
        if not isinstance(getattr(game, name), str) or not getattr(game, name):
            found.append(f"{name}: a non-empty string")
    callables = [f.name for f in dataclasses.fields(game) if f.type.startswith("Callable")]
    found += [f"{name}: not callable" for name in callables if not callable(getattr(game, name))]
    if not game.players or list(game.players) != sorted(set(game.players)):
        found.append(f"players: seat counts in increasing order, got {game.players!r}")
    elif game.config_class().players not in game.players:
        found.append("config_class: its default seat count is not one of players")
    ends = [offset + size for _, offset, size in game.action_ranges]
    starts = [offset for _, offset, _ in game.action_ranges]
    if not starts or starts != [0, *ends[:-1]] or ends[-1] != game.num_actions:
        found.append("action_ranges: must cover 0..num_actions - 1 in order, without a gap")
    return found


def _layer_problems(game: Game) -> list[str]:
    """The layers above the rules where the game has no registration."""
    found = []
    try:
        part = search_game(game.name)
        if "random" not in part.agents or "ismcts" not in part.agents:
            found.append("council.mcts.games: its agents lack random or ismcts")
        part.config.validate()
    except ValueError as e:
        found.append(f"council.mcts.games (search settings and agents): {e}")
    missing = [p.name for p in presets.PRESETS if game.name not in p.budgets]
    if missing:
        found.append(f"council.server.presets: no budget for {', '.join(missing)}")
    return found


def missing_parts(game: Game) -> list[str]:
    """Every part of `game` that is missing, each naming the game."""
    return [f"{game.name}: {p}" for p in _record_problems(game) + _layer_problems(game)]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_game_has_every_part(game):
    assert missing_parts(game) == []


def test_a_game_missing_a_part_is_named():
    # A game added to the engine alone: the layers above have nothing for it.
    half = dataclasses.replace(GAMES[0], name="half-game", players=(3, 2), info=None)
    found = missing_parts(half)
    assert "half-game: info: not callable" in found
    assert "half-game: players: seat counts in increasing order, got (3, 2)" in found
    assert any(p.startswith("half-game: council.mcts.games") for p in found)
    assert "half-game: council.server.presets: no budget for beginner, casual, strong" in found


def test_the_registry_looks_games_up_three_ways_and_refuses_a_second_registration():
    assert [g.name for g in GAMES][0] == default_game().name
    for game in GAMES:
        assert game_named(game.name) is game_of_proto(game.proto) is game
        assert game_of(game.new_game()) is game_of(game.config_class()) is game
    with pytest.raises(ValueError, match="unknown game 'chess'; choose from council-of-four"):
        game_named("chess")
    with pytest.raises(ValueError, match="unknown game 99"):
        game_of_proto(99)
    with pytest.raises(TypeError, match="not a position or configuration"):
        game_of(object())
    first = GAMES[0]
    for taken in (
        {},  # its name
        {"name": "other"},  # its Game value
        {"name": "other", "proto": 99},  # its state class
    ):
        with pytest.raises(ValueError, match="is " + first.name):
            register(dataclasses.replace(first, **taken))
    assert all_games() == GAMES  # nothing was added


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_config_messages_drawing_and_engine_info(game):
    default = game.config_class()
    config, problems = game.read_config(dataclasses.asdict(default), "config", True)
    assert (config, problems) == (default, [])
    state = game.new_game(seed=3)
    assert game.render_text(state) and game.render_svg(state.view(0)).startswith("<svg")
    info = convert.engine_info_proto(max_iterations=1, max_search_time_s=1.0, search_slots=1)
    (listed,) = [i for i in info.games if i.name == game.name]
    assert (listed.game, listed.display_name) == (game.proto, game.display_name)
    assert (listed.min_players, listed.max_players) == (game.min_players, game.max_players)
    assert listed.num_actions == game.num_actions and len(listed.presets) == len(presets.PRESETS)
    json_format.ParseDict(game.info(), spb.GameInfo())  # its own facts are GameInfo fields


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_commands_play_every_game(game, capsys):
    seats = str(game.min_players)
    assert main(["demo", "--game", game.name, "--players", seats, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{game.display_name} demo: {seats} random players")
    assert "final scores: [" in out
    lineup = ["random"] * game.min_players
    args = ["arena", "--game", game.name, *lineup, "--deals", "1", "--workers", "1"]
    assert main([*args, "--json", "--no-progress"]) == 0
    assert main(["new-game", "--game", game.name, "--seed", "4"]) == 0
    assert '"format": "' + game.state_format in capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_games_register_in_order_whichever_games_module_is_imported_first(game):
    # A game's classes are its own module's: a program that imports that module first still
    # gets every game, in the registry's order, the default game first.
    code = (
        f"import council.engine.{game.module_name}\n"
        "from council.engine.games import DEFAULT_GAME, all_games\n"
        "print(DEFAULT_GAME, *(g.name for g in all_games()))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == [default_game().name, *IDS]
