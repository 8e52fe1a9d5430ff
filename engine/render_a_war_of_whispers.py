"""A War of Whispers as text: the round and the decision, the councils, the map, the hands
and the loyalty tokens the position shows (a view shows only what its player may know).

>>> from council.engine._a_war_of_whispers import AWarOfWhispersState
>>> state = AWarOfWhispersState.new_game(2, seed=3)
>>> state.apply(state.action_from_text("deploy bear sheriff"))
>>> print(render_a_war_of_whispers(state.view(1)).splitlines()[0])
Round 1, deploy: player 1 to act (view of player 1)
>>> print(render_a_war_of_whispers(state).splitlines()[2])
  bear      sheriff P0 | steward -- | marshal -- | chancellor --
"""

from __future__ import annotations

from council.engine._a_war_of_whispers import (
    LOCATIONS,
    LOYALTY_VALUES,
    AWarOfWhispersState,
    current_content,
)
from council.engine.a_war_of_whispers_content import EMPIRES, SEATS

__all__ = ["render_a_war_of_whispers"]


def render_a_war_of_whispers(state: AWarOfWhispersState) -> str:
    content = current_content()
    raw = state.to_raw()
    who = f" (view of player {state.viewer})" if state.is_view else ""
    if state.is_terminal():
        head = f"Round {state.round}, over: scores {state.scores()}, winners {state.winners()}"
    else:
        empire = f" {state.empire}," if state.empire else ""
        head = (
            f"Round {state.round},{empire} {state.decision_name}: player "
            f"{state.current_player} to act{who}"
        )
    lines = [head, "Councils:"]
    for e, seats in enumerate(state.agents()):
        cells = [f"{SEATS[k]} {f'P{p}' if p >= 0 else '--'}" for k, p in enumerate(seats)]
        lines.append(f"  {EMPIRES[e]:9s} " + " | ".join(cells))
    lines.append("Map (owner banners; cities, fort, farm, icon):")
    for r, (owner, banners) in enumerate(state.regions()):
        region = content.regions[r]
        marks = "".join(
            mark for mark, on in (("F", region.fort), ("f", region.farm), ("i", region.icon)) if on
        )
        held = f"{EMPIRES[owner]} {banners}" if owner >= 0 else "empty"
        lines.append(f"  {region.name:15s} {held:11s} {'c' * region.cities}{marks}")
    lines.append(
        "Supply: " + ", ".join(f"{e} {n}" for e, n in zip(EMPIRES, raw["supply"], strict=True))
    )
    for p in range(state.n_players):
        cards = [
            content.cards[c].name
            for c, loc in enumerate(raw["card_loc"][: len(content.cards)])
            if loc == LOCATIONS["hand"] + p
        ]
        count = sum(raw["hand_count"][p])
        hand = ", ".join(cards) if len(cards) == count else f"{count} cards"
        tokens = ", ".join(
            f"{EMPIRES[e]} x{LOYALTY_VALUES[slot]}" + ("*" if raw["revealed"][p][e] else "")
            for e, slot in enumerate(raw["loyalty"][p])
            if slot >= 0
        )
        lines.append(
            f"Player {p}: hand [{hand}]; loyalty [{tokens}] (* revealed); swaps {raw['swaps'][p]}"
        )
    return "\n".join(lines)
