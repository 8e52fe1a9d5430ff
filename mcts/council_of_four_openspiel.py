"""Council of Four as an OpenSpiel Python game, for comparing bots with OpenSpiel's.

Needs the optional extra ``open-spiel`` (``pip install -e ".[openspiel]"``). Importing
this module registers the game ``python_council_of_four`` with pyspiel::

    >>> import pyspiel
    >>> import council.mcts.council_of_four_openspiel  # noqa: F401  (registers the game)
    >>> game = pyspiel.load_game("python_council_of_four", {"players": 2, "seed": 3})
    >>> state = game.new_initial_state()
    >>> state.current_player(), len(state.legal_actions()) > 0
    (0, True)

Modelling choices (see docs/openspiel.md):

* **Chance is sampled, not explicit.** The engine draws politics cards and permit
  tiles from the RNG inside its state, so the game is ``SAMPLED_STOCHASTIC``: there are no
  chance nodes and ``apply_action`` of a move that draws a card already contains the draw.
  Two clones applying the same action draw the same card (the RNG is part of the state);
  a search that must not know the future gets a state re-dealt by ``determinize`` (a fresh
  RNG and fresh hidden cards), which is what ``resample_from_infostate`` hands out.
* **Information states are the engine's views.** ``information_state_string(p)`` is a
  canonical encoding of ``state.view(p)``: the public board plus p's own hand, with the other
  hands, the order of the unknown permit tiles and the RNG erased (RULINGS 7). It is not
  a perfect-recall history: two histories that lead to the same view share one string.
  The same string serves as ``observation_string``.
* **resample_from_infostate(p, sampler)** returns ``view(p).determinize(seed)`` with the
  64-bit seed drawn from the ``sampler`` callable (uniform floats in [0, 1)), so a bot
  seeded through its sampler is reproducible and never sees the true hidden cards.
* **Returns** are the engine's: 1/k for each of k tied winners, 0 for the others; they
  sum to 1 at the end (``CONSTANT_SUM``), all zeros before.
"""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel

from council.engine._council_of_four import NUM_ACTIONS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import Action

SHORT_NAME = "python_council_of_four"
# A safe bound on the number of actions in one game. Uniformly random 2-player games take
# about 400 actions; the game always ends (the politics deck and the emporia run out),
# and the arena guards real games with 20_000 actions.
MAX_GAME_LENGTH = 20_000

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Council of Four",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification={"players": 2, "seed": 0},
)


def _game_info(players: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=0,
        num_players=players,
        min_utility=0.0,
        max_utility=1.0,
        utility_sum=1.0,
        max_game_length=MAX_GAME_LENGTH,
    )


def view_string(state: CouncilOfFourState, player: int) -> str:
    """A canonical string of what ``player`` knows in ``state`` (a full state or its view).

    The hex of the pickled ``view(player).to_raw()`` (every field of the C struct, in a
    fixed order): equal strings if and only if equal views. Not meant to be read, but
    about 4x faster than ``repr``, and OpenSpiel's IS-MCTS asks for it at every tree node.
    """
    view = state if state.viewer == player else state.view(player)
    return pickle.dumps(view.to_raw(), protocol=5).hex()


class CouncilGame(pyspiel.Game):
    """Council of Four with ``players`` seats dealt from ``seed`` (default rule variants)."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.players = int(params.get("players", 2))
        self.seed = int(params.get("seed", 0))
        self.config = CouncilOfFourConfig(players=self.players).validate()
        super().__init__(_GAME_TYPE, _game_info(self.players), params)
        self._initial = CouncilOfFourState.new_game(self.config, seed=self.seed)

    def new_initial_state(self) -> CouncilState:
        # OpenSpiel's C++ PyState::Clone starts from a new initial state: keep it cheap.
        return CouncilState(self, self._initial.clone())

    def state_from_engine(self, engine_state: CouncilOfFourState) -> CouncilState:
        """Wrap a full engine state (copied) of this game's player count."""
        if engine_state.is_view:
            raise ValueError("an OpenSpiel state needs a full state, not a view")
        if engine_state.n_players != self.players:
            raise ValueError(
                f"the game has {self.players} seats, the state {engine_state.n_players}"
            )
        return CouncilState(self, engine_state.clone())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _ViewObserver(params)


class CouncilState(pyspiel.State):
    """An OpenSpiel state around a full ``CouncilOfFourState`` (``.engine``)."""

    def __init__(self, game: CouncilGame, engine_state: CouncilOfFourState):
        super().__init__(game)
        self.engine = engine_state

    # -- the pyspiel.State API ----------------------------------------------------------
    def current_player(self) -> int:
        if self.engine.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.engine.current_player or self.engine.is_terminal():
            return []
        return self.engine.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return Action.from_id(action).to_text()

    def is_terminal(self) -> bool:
        return self.engine.is_terminal()

    def returns(self) -> list[float]:
        return self.engine.returns()

    def information_state_string(self, player: int | None = None) -> str:
        return view_string(self.engine, self.current_player() if player is None else player)

    def observation_string(self, player: int | None = None) -> str:
        return self.information_state_string(player)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CouncilState:
        """A state the seat ``player_id`` cannot tell from this one: its view re-dealt.

        The seed comes from two draws of ``probability_sampler`` (floats in [0, 1)).
        """
        high = int(probability_sampler() * (1 << 32)) & 0xFFFFFFFF
        low = int(probability_sampler() * (1 << 32)) & 0xFFFFFFFF
        world = self.engine.view(player_id).determinize((high << 32) | low)
        return CouncilState(self.get_game(), world)

    def clone(self) -> CouncilState:
        return CouncilState(self.get_game(), self.engine.clone())

    def __deepcopy__(self, memo) -> CouncilState:
        return self.clone()

    def __str__(self) -> str:
        return repr(self.engine)


class _ViewObserver:
    """String-only observer (the PyObserver interface): the view of the observing seat."""

    def __init__(self, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: CouncilState, player: int) -> None:
        pass

    def string_from(self, state: CouncilState, player: int) -> str:
        return view_string(state.engine, player)


class EngineRolloutEvaluator:
    """OpenSpiel's ``RandomRolloutEvaluator`` with the rollout played by the engine in C.

    The same algorithm (uniformly random legal actions to the end of the game, the mean
    returns as the value, a uniform prior); only the loop runs in compiled code instead of
    one Python call per action. Implements ``open_spiel.python.algorithms.mcts.Evaluator``.
    """

    def __init__(self, n_rollouts: int = 1, random_state: np.random.RandomState | None = None):
        self.n_rollouts = n_rollouts
        self._random_state = random_state or np.random.RandomState()

    def evaluate(self, state: CouncilState) -> np.ndarray:
        total = np.zeros(state.engine.n_players)
        for _ in range(self.n_rollouts):
            world = state.engine.clone()
            world.random_playout(seed=int(self._random_state.randint(1 << 62)))
            total += world.returns()
        return total / self.n_rollouts

    def prior(self, state: CouncilState) -> list[tuple[int, float]]:
        actions = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(actions)) for a in actions]


pyspiel.register_game(_GAME_TYPE, CouncilGame)
