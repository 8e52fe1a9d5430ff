"""A fourth game added from outside the shared files (issue #39): a tiny pure-Python game,
take-away ("fake-nim": two seats take 1 or 2 stones in turn, who takes the last one wins),
registered by a fixture through each layer's registration function alone
(``council.engine.games.register``, ``council.mcts.games.register_search``,
``council.server.presets.register_budgets``), then driven through what needs no compiled
search: the registry's lookups, the record's checks of tests/test_games.py, the message and
JSON forms (``council.engine.serialize``), views, the commands (``demo``, ``new-game``, an
``arena`` of random players), and the service's NewGame, ListLegalActions, ApplyAction and
GetEngineInfo.

What it cannot reach without a shared edit, by design: its own member of ``GameState``'s
``oneof position`` and its ``council.v1.Game`` value (registration lines in game.proto: the
fake packs its position into the shared ``rng`` field and uses an unnamed Game number),
and the compiled search (its branch in mcts/_games.pxd: the search agents and
RecommendAction do not play it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from test_games import missing_parts

from council.engine import IllegalActionError, games, serialize
from council.engine.games import Game, all_games, game_named, game_of, game_of_proto
from council.engine.text_svg import text_svg
from council.mcts import games as search_games
from council.mcts.agents import ISMCTSAgent, RandomAgent
from council.mcts.search import GameSettings, SearchConfig
from council.server import presets
from council.server.cli import main
from council.server.service import CouncilServicer
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

NAME = "fake-nim"
PROTO = 99  # a council.v1.Game number no game has (enums are open: the wire carries it)
FORMAT = "fake-nim/1"
TAKES = (1, 2)  # action id i takes TAKES[i] stones


@dataclass(frozen=True)
class NimConfig:
    players: int = 2

    def validate(self) -> NimConfig:
        if self.players != 2:
            raise ValueError(f"players: fake-nim seats 2, got {self.players!r}")
        return self

    def new_game(self, seed: int = 0) -> NimState:
        return NimState.new_game(self, seed=seed)


class NimState:
    """A position: the pile, the seat to move, the actions played; ``viewer`` -1 or a seat
    (nothing is hidden, so a view holds the same facts)."""

    def __init__(self, pile: int, to_move: int = 0, count: int = 0, viewer: int = -1):
        self.pile, self.to_move, self.count, self.viewer = pile, to_move, count, viewer

    @classmethod
    def new_game(cls, config: Any = None, seed: int = 0) -> NimState:
        (config or NimConfig()).validate()
        return cls(pile=5 + seed % 3)

    def _key(self) -> tuple[int, int, int, int]:
        return (self.pile, self.to_move, self.count, self.viewer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NimState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like every game's position

    n_players = 2
    decision_name = "take"

    @property
    def current_player(self) -> int:
        return self.to_move

    @property
    def is_view(self) -> bool:
        return self.viewer >= 0

    @property
    def turn(self) -> int:
        return self.count + 1

    @property
    def action_count(self) -> int:
        return self.count

    def is_terminal(self) -> bool:
        return self.pile == 0

    def legal_actions(self) -> list[int]:
        return [i for i, take in enumerate(TAKES) if take <= self.pile]

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        if not self.is_legal(action):
            raise IllegalActionError(f"action {action} is not legal here")
        self.pile -= TAKES[action]
        self.to_move, self.count = (1 - self.to_move if self.pile else self.to_move), self.count + 1

    def child(self, action: int) -> NimState:
        after = self.clone()
        after.apply(action)
        return after

    def action_to_text(self, action: int) -> str:
        return f"take {TAKES[action]}"

    def action_from_text(self, text: str) -> int:
        return [self.action_to_text(a) for a in range(len(TAKES))].index(text)

    def clone(self) -> NimState:
        return NimState(*self._key())

    __copy__ = clone

    def __deepcopy__(self, memo: object) -> NimState:
        return self.clone()

    def view(self, seat: int) -> NimState:
        return NimState(self.pile, self.to_move, self.count, seat)

    def determinize(self, seed: int) -> NimState:
        return NimState(self.pile, self.to_move, self.count)

    def reseed(self, seed: int) -> None:
        pass  # no chance

    def scores(self) -> list[int]:
        return [int(self.is_terminal() and seat == self.to_move) for seat in range(2)]

    def winners(self) -> list[int]:
        return [self.to_move] if self.is_terminal() else []

    def returns(self) -> list[float]:
        return [float(s) for s in self.scores()]

    def adjudicated(self) -> NimState:
        return self.clone()

    def problems(self) -> list[tuple[str, str]]:
        return [] if 0 <= self.pile <= 7 else [("rng", f"pile must be in 0..7, got {self.pile}")]

    def to_raw(self) -> dict[str, Any]:
        return dict(zip(("pile", "to_move", "count", "viewer"), self._key(), strict=True))


def _write(state: NimState) -> pb.GameState:
    """Its position in the shared fields (a real game has its member in GameState.position)."""
    msg = pb.GameState(format=FORMAT, rng=state.pile | state.to_move << 8 | state.count << 16)
    msg.config.game, msg.config.players = PROTO, 2  # type: ignore[assignment]
    if state.is_view:
        msg.viewer = state.viewer
    return msg


def _read(msg: pb.GameState, view_of: int) -> tuple[NimState | None, list[tuple[str, str]]]:
    found = games.own_part_problems(
        msg, display_name="Fake Nim", part="rng", state_format=FORMAT, players=2
    )
    found = [f for f in found if f[0] != "rng"]  # its view keeps the rng (no chance in it)
    if found:
        return None, found
    state = NimState(msg.rng & 0xFF, msg.rng >> 8 & 0xFF, msg.rng >> 16, msg.viewer)
    if not msg.HasField("viewer"):
        state.viewer = -1
    found = state.problems()
    return (None, found) if found else (state, [])


def _action_proto(state: Any, action: int) -> pb.Action:
    return pb.Action(id=action, text=f"take {TAKES[action]}")


GAME = Game(
    name=NAME,
    display_name="Fake Nim",
    proto=PROTO,  # type: ignore[arg-type]
    config_class=NimConfig,
    state_class=NimState,
    players=(2,),
    state_format=FORMAT,
    num_actions=len(TAKES),
    action_ranges=((pb.ACTION_KIND_UNSPECIFIED, 0, len(TAKES)),),
    read=_read,
    write=_write,
    read_config=games.players_only_config(NimConfig, "Fake Nim"),
    action_to_proto=_action_proto,
    action_from_proto=lambda state, msg: msg.id,
    public_action=lambda state, action: (_action_proto(state, action), False),
    line_to_protos=lambda view, line, seed: [_action_proto(view, a) for a in line],
    describe=lambda state, action: f"takes {TAKES[action]} of the {state.pile} stones",
    render_text=lambda state: f"pile {state.pile}, seat {state.to_move} to move",
    render_svg=lambda state: text_svg(f"pile {state.pile}", "#ffffff"),
    info=dict,
    progress=lambda state: f"pile {state.pile}",
    routine=lambda state, action: False,
    effects=lambda before, after, action, seat, known_only: pb.ActionEffects(),
)


@dataclass(frozen=True)
class NimSettings(GameSettings):
    """Its own search settings: none."""

    game = NAME


BUDGETS = {
    p.name: presets.Budget(10 * (i + 1), "instant", f"the {p.name} one")
    for i, p in enumerate(presets.PRESETS)
}


@pytest.fixture
def fake_nim() -> Iterator[Game]:
    """The game registered for the test, and unregistered after it (every index)."""
    games.register(GAME)
    try:
        search_games.register_search(
            NAME,
            config=SearchConfig(evaluator="heuristic", policy="none"),
            settings=NimSettings,
            agents={"random": RandomAgent, "ismcts": ISMCTSAgent},
            table_size=2,
            review_thresholds={"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3},
        )
        presets.register_budgets(NAME, BUDGETS)
        yield GAME
    finally:
        search_games._REGISTERED.pop(NAME, None)
        for index, key in (
            (games._BY_NAME, NAME),
            (games._BY_PROTO, PROTO),
            (games._BY_CLASS, NimState),
            (games._BY_CLASS, NimConfig),
        ):
            index.pop(key, None)
        for preset in presets.PRESETS:
            preset.budgets.pop(NAME, None)


class _Aborted(Exception):
    pass


class _Context:
    """The part of a grpc.ServicerContext the servicer's error path uses."""

    def abort_with_status(self, status):
        raise _Aborted(status.code, status.details)

    def abort(self, code, details):
        raise _Aborted(code, details)


def test_it_is_found_by_every_lookup_and_gone_after(fake_nim):
    registered = all_games()
    assert registered[-1] is fake_nim and registered[0].name == games.DEFAULT_GAME != NAME
    state = fake_nim.new_game(seed=1)
    assert game_named(NAME) is game_of_proto(PROTO) is game_of(state) is game_of(NimConfig())
    assert missing_parts(fake_nim) == []  # its record, its search settings, its budgets


def test_after_the_fixture_it_is_unknown():
    assert NAME not in [g.name for g in all_games()]
    with pytest.raises(ValueError, match="unknown game 99"):
        game_of_proto(PROTO)


def test_its_positions_round_trip_through_the_message_and_json_forms(fake_nim):
    state = fake_nim.new_game(seed=2)  # a pile of 7
    state.apply(1)  # seat 0 takes 2
    msg = serialize.state_to_proto(state)
    assert (msg.format, msg.config.game, msg.rng) == (FORMAT, PROTO, 5 | 1 << 8 | 1 << 16)
    assert serialize.state_from_proto(msg) == state
    assert serialize.state_from_json(serialize.state_to_json(state)) == state
    view = state.view(0)
    assert serialize.state_from_proto(serialize.state_to_proto(view)) == view
    with pytest.raises(serialize.StateValidationError, match="config.players: Fake Nim seats 2"):
        msg.config.players = 3
        serialize.state_from_proto(msg)


def test_its_config_message_is_read_and_another_games_part_refused(fake_nim):
    config = pb.GameConfig(game=PROTO, players=2)  # type: ignore[arg-type]
    assert serialize.config_from_proto(config) == NimConfig()
    config.max_coins = 20  # a field of another game's (deprecated top-level) options
    with pytest.raises(serialize.StateValidationError, match="max_coins"):
        serialize.config_from_proto(config)


def test_it_is_played_through_the_service(fake_nim):
    servicer, context = CouncilServicer(), _Context()
    config = pb.GameConfig(game=PROTO, players=2)  # type: ignore[arg-type]
    started = servicer.NewGame(spb.NewGameRequest(config=config, seed=1000), context)
    assert started.state.rng & 0xFF == 5 + 1000 % 3  # a pile of 6
    listed = servicer.ListLegalActions(
        spb.ListLegalActionsRequest(state=started.state, include_descriptions=True), context
    )
    assert [(a.id, a.text, a.description) for a in listed.actions] == [
        (0, "take 1", "takes 1 of the 6 stones"),
        (1, "take 2", "takes 2 of the 6 stones"),
    ]
    state, seen = started.state, []
    for action in (1, 1, 0):  # seat 0 takes 2, seat 1 takes 2, seat 0 takes 1: a pile of 1
        applied = servicer.ApplyAction(
            spb.ApplyActionRequest(state=state, action_id=action), context
        )
        state = applied.state
        seen.append((applied.applied.text, state.rng & 0xFF, applied.game_over))
    assert seen == [("take 2", 4, False), ("take 2", 2, False), ("take 1", 1, False)]
    with pytest.raises(_Aborted) as refused:
        servicer.ApplyAction(spb.ApplyActionRequest(state=state, action_id=1), context)
    assert refused.value.args[0] == grpc.StatusCode.INVALID_ARGUMENT
    assert "'take 2' (id 1) is not legal here (seat 1 to move" in refused.value.args[1]
    last = servicer.ApplyAction(spb.ApplyActionRequest(state=state, action_id=0), context)
    assert last.game_over and list(last.winners) == [1] and list(last.scores) == [0, 1]
    info = servicer.GetEngineInfo(spb.GetEngineInfoRequest(), context)
    (listed_info,) = [g for g in info.games if g.name == NAME]
    assert (listed_info.display_name, listed_info.num_actions) == ("Fake Nim", 2)


def test_the_commands_play_it(fake_nim, capsys):
    assert main(["demo", "--game", NAME, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Fake Nim demo: 2 random players") and "final scores: [" in out
    assert main(["new-game", "--game", NAME, "--seed", "4"]) == 0
    assert f'"format": "{FORMAT}"' in capsys.readouterr().out
    arena = ["arena", "--game", NAME, "random", "random", "--deals", "2", "--workers", "1"]
    assert main([*arena, "--json", "--no-progress"]) == 0


def test_the_record_check_names_a_missing_part_of_it(fake_nim):
    broken = dataclasses.replace(fake_nim, name="fake-nim-2", render_svg=None)
    assert "fake-nim-2: render_svg: not callable" in missing_parts(broken)
