"""Leduc poker's registration (``council.engine.games``): its configuration, its text and SVG
drawing, its chance outcomes (``all_deals``: every deal with its probability, for the exact
computations of ``council.mcts.exploitability``) and its record's parts. Its rules are the
compiled core (``LeducPokerState``, ``_leduc_poker.pyx``), its messages and action codec are
``leduc_poker_messages``, its position message is ``council/v1/leduc_poker.proto``.

>>> from council.engine.games import game_named
>>> game = game_named("leduc-poker")
>>> state = game.state_class.from_deal([4, 0, 2], [2, 1])  # K1, J1, public Q1
>>> print(game.render_text(state.view(1)))
Leduc poker: seat 0 to act (check or raise), round 2 of 2
seat 0: ?  (put in 3)
seat 1: J1  (put in 3)
public card: Q1
round 1: seat 0 raises, seat 1 calls
round 2: none yet
>>> [m.text for m in game.line_to_protos(state.view(1), [2, 2, 1], 7)]
['raise', 'raise', 'call']
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

from council.engine import leduc_poker_effects
from council.engine import leduc_poker_messages as messages
from council.engine._leduc_poker import (
    CARD_NAMES,
    MAX_RAISES,
    NO_CARD,
    NUM_ACTIONS,
    NUM_CARDS,
    PLAYERS,
    RANK_NAMES,
    LeducPokerState,
)
from council.engine.games import Game, Problems, played_line, players_only_config, register
from council.engine.text_svg import text_svg
from council.v1 import game_pb2 as pb

__all__ = ["GAME", "LeducPokerConfig", "all_deals", "render_svg", "render_text"]


@dataclass(frozen=True)
class LeducPokerConfig:
    """A game of Leduc poker: 2 seats, its only configuration.

    >>> LeducPokerConfig().new_game(seed=1).n_players
    2
    """

    players: int = PLAYERS

    def validate(self) -> LeducPokerConfig:
        if self.players != PLAYERS:
            raise ValueError(f"players: Leduc poker seats {PLAYERS}, got {self.players!r}")
        return self

    def new_game(self, seed: int = 0) -> LeducPokerState:
        return LeducPokerState.new_game(self, seed=seed)


def all_deals() -> list[tuple[LeducPokerState, Fraction]]:
    """Every deal as the starting full state, with its chance: seat 0's card, seat 1's and
    the public card, each ordered triple of different cards at 1/120 (OpenSpiel's chance
    nodes, uniform over the cards left).

    >>> deals = all_deals()
    >>> len(deals), sum(p for _, p in deals), deals[0][0].cards, deals[0][0].public_card
    (120, Fraction(1, 1), [0, 1], 2)
    """
    triples = list(permutations(range(NUM_CARDS), 3))
    chance = Fraction(1, len(triples))
    return [(LeducPokerState.from_deal(list(t), []), chance) for t in triples]


def _card(card: int) -> str:
    return "?" if card == NO_CARD else CARD_NAMES[card]


def render_text(state: LeducPokerState) -> str:
    """A few lines: who acts, each seat's card (``?`` where the view cannot see it) and
    chips put in, the public card, each round's betting, and the outcome once the game is
    over."""
    if state.is_terminal():
        head = "Leduc poker: over, " + ("showdown" if state.showed_down else "a fold")
    else:
        seat = state.current_player
        facing = state.decision_name == "call"  # a view has no legal_actions: the betting says
        legal = (["fold"] if facing else []) + [state.action_to_text(1)]
        legal += ["raise"] if state.raises < MAX_RAISES else []
        choice = ", ".join(legal[:-1]) + " or " + legal[-1]
        head = f"Leduc poker: seat {seat} to act ({choice}), round {state.round + 1} of 2"
    lines = [head]
    for p, c in enumerate(state.cards):
        lines.append(f"seat {p}: {_card(c)}  (put in {state.put_in[p]})")
    if state.round == 1 or state.public_card == NO_CARD:
        lines.append(f"public card: {_card(state.public_card)}")
    else:  # a full state in the first round: the deal's card, not shown yet
        lines.append(f"public card: {_card(state.public_card)} (shown in the second round)")
    replay = LeducPokerState.from_deal([0, 2, 4], [])
    for r, actions in enumerate(state.rounds):
        said = []
        for a in actions:
            said.append(f"seat {replay.current_player} {_verb(replay.action_to_text(a))}")
            replay.apply(a)
        lines.append(f"round {r + 1}: " + (", ".join(said) if said else "none yet"))
    if state.is_terminal():
        lines.append(f"chips won: {state.scores()}")
    return "\n".join(lines)


def _verb(word: str) -> str:
    return {"fold": "folds", "check": "checks", "call": "calls", "raise": "raises"}[word]


def render_svg(state: LeducPokerState) -> str:
    """``render_text``'s lines as an SVG document, one ``<text>`` a line.

    >>> render_svg(LeducPokerState.new_game(seed=3)).startswith("<svg")
    True
    """
    return text_svg(render_text(state), "#f2f4f8")


def _read(msg: pb.GameState, view_of: int) -> tuple[LeducPokerState | None, Problems]:
    return messages.read(msg)  # a full state names every card: no partial states to read


GAME = register(
    Game(
        name="leduc-poker",
        display_name="Leduc poker",
        proto=pb.GAME_LEDUC_POKER,
        config_class=LeducPokerConfig,
        state_class=LeducPokerState,
        players=(PLAYERS,),
        state_format=messages.FORMAT,
        num_actions=NUM_ACTIONS,
        action_ranges=tuple(messages.ACTION_RANGES),
        read=_read,
        write=messages.write,
        read_config=players_only_config(LeducPokerConfig, "Leduc poker"),
        action_to_proto=messages.action_to_proto,
        action_from_proto=messages.action_from_proto,
        public_action=messages.public_action_proto,
        line_to_protos=played_line(messages.action_to_proto, messages.ACTION_KINDS),
        describe=messages.describe,
        render_text=render_text,
        render_svg=render_svg,
        info=lambda: {"card_ranks": list(RANK_NAMES)},
        progress=lambda state: f"round {state.round + 1}, action {state.turn}",
        routine=lambda state, action: False,
        effects=leduc_poker_effects.effects,
        fixed_action_protos=False,  # a call is named check where there is nothing to call
        points_unit="chips",
        points_per_margin=0.5,  # zero-sum between two seats: the margin is twice the chips
        reward_is_points=True,  # the reward is the chips rescaled
    )
)
