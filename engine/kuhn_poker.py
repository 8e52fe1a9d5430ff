"""Kuhn poker's registration (``council.engine.games``): its configuration, its text and SVG
drawing, its chance outcomes (``all_deals``) and its record's parts. It is the worked example
of CONTRIBUTING.md's "Adding a game": its rules are the compiled core (``KuhnPokerState``,
``_kuhn_poker.pyx``), its messages and action codec are ``kuhn_poker_messages``, its position
message is ``council/v1/kuhn_poker.proto``.

>>> from council.engine.games import game_named
>>> game = game_named("kuhn-poker")
>>> state = game.new_game(seed=3)
>>> print(game.render_text(state.view(0)))
Kuhn poker: seat 0 to act (pass or bet)
seat 0: J  (antes 1)
seat 1: ?  (antes 1)
betting: none yet
>>> [m.text for m in game.line_to_protos(state.view(0), [1, 1], 7)]
['bet', 'call']
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

from council.engine import kuhn_poker_effects
from council.engine import kuhn_poker_messages as messages
from council.engine._kuhn_poker import CARD_NAMES, NO_CARD, NUM_ACTIONS, PLAYERS, KuhnPokerState
from council.engine.games import Game, Problems, played_line, players_only_config, register
from council.engine.text_svg import text_svg
from council.v1 import game_pb2 as pb

__all__ = ["GAME", "KuhnPokerConfig", "all_deals", "render_svg", "render_text"]


@dataclass(frozen=True)
class KuhnPokerConfig:
    """A game of Kuhn poker: 2 seats, its only configuration.

    >>> KuhnPokerConfig().new_game(seed=1).n_players
    2
    """

    players: int = PLAYERS

    def validate(self) -> KuhnPokerConfig:
        if self.players != PLAYERS:
            raise ValueError(f"players: Kuhn poker seats {PLAYERS}, got {self.players!r}")
        return self

    def new_game(self, seed: int = 0) -> KuhnPokerState:
        return KuhnPokerState.new_game(self, seed=seed)


def all_deals() -> list[tuple[KuhnPokerState, Fraction]]:
    """Every deal as the starting full state, with its chance: each ordered pair of different
    cards at 1/6 (OpenSpiel's chance nodes), for the exact computations of
    ``council.mcts.exploitability``.

    >>> [(state.cards, p) for state, p in all_deals()][:2]
    [([0, 1], Fraction(1, 6)), ([0, 2], Fraction(1, 6))]
    """
    pairs = list(permutations(range(len(CARD_NAMES)), PLAYERS))
    return [(KuhnPokerState.from_deal(list(pair), []), Fraction(1, len(pairs))) for pair in pairs]


def _put_in(state: KuhnPokerState, seat: int) -> int:
    """The chips `seat` has put in: its ante and any bet or call."""
    return 1 + sum(1 for i, a in enumerate(state.history) if a == 1 and i % 2 == seat)


def render_text(state: KuhnPokerState) -> str:
    """A few lines: who acts, each seat's card (``?`` where the view cannot see it) and
    chips put in, the betting, and the outcome once the game is over."""
    if state.is_terminal():
        head = "Kuhn poker: over, " + ("showdown" if state.showed_down else "a fold")
    else:
        seat = state.current_player
        choice = " or ".join(state.action_to_text(a) for a in range(NUM_ACTIONS))
        head = f"Kuhn poker: seat {seat} to act ({choice})"
    lines = [head]
    for p, c in enumerate(state.cards):
        card = "?" if c == NO_CARD else CARD_NAMES[c]
        put = _put_in(state, p)
        lines.append(f"seat {p}: {card}  (antes 1" + (", bets 1)" if put > 1 else ")"))
    replay = KuhnPokerState.from_deal([0, 1], [])
    said = []
    for p, a in enumerate(state.history):
        said.append(f"seat {p % 2} {replay.action_to_text(a)}")
        replay.apply(a)
    lines.append("betting: " + (", ".join(said) if said else "none yet"))
    if state.is_terminal():
        lines.append(f"chips won: {state.scores()}")
    return "\n".join(lines)


def render_svg(state: KuhnPokerState) -> str:
    """``render_text``'s lines as an SVG document, one ``<text>`` a line.

    >>> render_svg(KuhnPokerState.new_game(seed=3)).startswith("<svg")
    True
    """
    return text_svg(render_text(state), "#f4f8f2")


def _read(msg: pb.GameState, view_of: int) -> tuple[KuhnPokerState | None, Problems]:
    return messages.read(msg)  # a full state names both cards: no partial states to read


GAME = register(
    Game(
        name="kuhn-poker",
        display_name="Kuhn poker",
        proto=pb.GAME_KUHN_POKER,
        config_class=KuhnPokerConfig,
        state_class=KuhnPokerState,
        players=(PLAYERS,),
        state_format=messages.FORMAT,
        num_actions=NUM_ACTIONS,
        action_ranges=tuple(messages.ACTION_RANGES),
        read=_read,
        write=messages.write,
        read_config=players_only_config(KuhnPokerConfig, "Kuhn poker"),
        action_to_proto=messages.action_to_proto,
        action_from_proto=messages.action_from_proto,
        public_action=messages.public_action_proto,
        line_to_protos=played_line(messages.action_to_proto, messages.ACTION_KINDS),
        describe=messages.describe,
        render_text=render_text,
        render_svg=render_svg,
        info=lambda: {"card_ranks": list(CARD_NAMES)},
        progress=lambda state: f"action {state.turn}",
        routine=lambda state, action: False,
        effects=kuhn_poker_effects.effects,
        fixed_action_protos=False,  # fold and call are named by the position
        points_unit="chips",
        points_per_margin=0.5,  # zero-sum between two seats: the margin is twice the chips
        reward_is_points=True,  # the reward is the chips rescaled
    )
)
