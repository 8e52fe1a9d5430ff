"""The Council's registration (``council.engine.games``): its record's parts.

Its rules are the compiled core (``TheCouncilState``, ``_the_council.pyx``), its messages are
read and written by ``serialize_the_council``, its actions' messages by
``the_council_actions``: a reveal names the drafted cards of the seat to act, so an action's
message is built from the position it is taken in, and picks and reveals are secret moves.

>>> from council.engine.games import game_named
>>> game = game_named("the-council")
>>> state = game.new_game(game.config_class(players=3), seed=1)
>>> [m.text for m in game.line_to_protos(state.view(0), state.legal_actions()[:1], 7)]
['pick The Battle']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from council.engine import _the_council as tc
from council.engine import serialize_the_council, the_council_actions, the_council_effects
from council.engine._the_council import TheCouncilState
from council.engine.games import Game, Problems, players_only_config, register
from council.engine.render_the_council import render_the_council, render_the_council_svg
from council.engine.the_council_config import THE_COUNCIL_PLAYERS, TheCouncilConfig
from council.v1 import game_pb2 as pb

__all__ = ["GAME", "TheCouncilConfig", "TheCouncilState"]


def _read(msg: pb.GameState, view_of: int) -> tuple[TheCouncilState | None, Problems]:
    return serialize_the_council.read(msg)  # it has no partial full states to read as views


def _line(view: TheCouncilState, line: Sequence[int], seed: int) -> list[pb.Action]:
    """The principal variation's actions, each named in the position it is taken in: played
    in one world sampled from the view; from the first action that world does not allow
    (another seat's pick of a card it deals elsewhere), without the cards of reveals. A full
    state (a review with hindsight) is played as it is."""
    world: TheCouncilState | None = view.determinize(seed) if view.is_view else view.clone()
    out = []
    for a in line:
        if world is not None and world.is_legal(a):
            out.append(the_council_actions.action_to_proto(world, a))
            world.apply(a)
            continue
        world = None
        name = the_council_actions.kind_of(a)
        m = pb.Action(id=a, kind=the_council_actions.ACTION_KINDS[name])
        if name == "reveal":
            m.text = f"reveal mask {a - tc.ACTION_OFFSETS[name]}"
        else:
            m.MergeFrom(the_council_actions.action_to_proto(view, a))
        out.append(m)
    return out


def _info() -> dict[str, Any]:
    """Its suits, card ranks, cards and counts (GameInfo's fields), from the core's tables."""
    return {
        "suits": list(tc.SUITS),
        "card_ranks": list(tc.RANK_ORDER),
        "cards": [
            {
                "name": card.name,
                "kind": card.kind,
                "rank": tc.RANK_ORDER[card.order],
                "value": card.value,
                "suits": [tc.SUITS[s] for s in card.suits],
            }
            for card in tc.CARDS
        ],
        "draft_rounds": tc.DRAFT_ROUNDS,
        "events_per_hand": tc.EVENTS_PER_HAND,
    }


GAME = register(
    Game(
        name="the-council",
        display_name="The Council",
        proto=pb.GAME_THE_COUNCIL,
        config_class=TheCouncilConfig,
        state_class=TheCouncilState,
        players=THE_COUNCIL_PLAYERS,
        state_format=serialize_the_council.FORMAT,
        num_actions=tc.NUM_ACTIONS,
        action_ranges=tuple(the_council_actions.ACTION_RANGES),
        read=_read,
        write=serialize_the_council.write,
        read_config=players_only_config(TheCouncilConfig, "The Council"),
        action_to_proto=the_council_actions.action_to_proto,
        action_from_proto=the_council_actions.action_from_proto,
        public_action=the_council_actions.public_action_proto,
        line_to_protos=_line,
        describe=the_council_actions.describe,
        render_text=render_the_council,
        render_svg=render_the_council_svg,
        info=_info,
        progress=lambda state: f"hand {state.hand:2d}  {state.phase:6s}",
        routine=lambda state, action: state.phase == "bid",  # one chip of a bid
        effects=the_council_effects.effects,
        # Council of Four's parts of a GameState (players is written empty).
    )
)
