"""A War of Whispers' registration (``council.engine.games``): its configuration, the content
it is played on, its text and SVG drawing and its record's parts. Its rules are the compiled
core (``AWarOfWhispersState``, ``_a_war_of_whispers.pyx``), its messages and action codec
``a_war_of_whispers_messages``, its content ``a_war_of_whispers_content``.

The core holds one content at a time (its tables are built from it): the project's own set
unless ``use_content_file`` loaded another (``--content FILE`` on the commands and in the
service's config). A configuration may name the content by id and digest; a game on other
content is refused.

>>> from council.engine.games import game_named
>>> game = game_named("a-war-of-whispers")
>>> state = game.new_game(AWarOfWhispersConfig(players=2), seed=5)
>>> game.render_text(state.view(0)).splitlines()[0]
'Round 1, deploy: player 0 to act (view of player 0)'
>>> AWarOfWhispersConfig(content_id="printed").validate()
Traceback (most recent call last):
...
ValueError: content_id: the engine plays 'council-ai-original-1', not 'printed'
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from council.engine import a_war_of_whispers_effects
from council.engine import a_war_of_whispers_messages as messages
from council.engine._a_war_of_whispers import (
    LOCATIONS,
    LOYALTY_VALUES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    AWarOfWhispersState,
    current_content,
    use_content,
)
from council.engine.a_war_of_whispers_content import EMPIRES, SEATS, Content, load_content
from council.engine.games import Game, Problems, played_line, register
from council.engine.render_a_war_of_whispers import render_a_war_of_whispers
from council.v1 import game_pb2 as pb

__all__ = [
    "GAME",
    "AWarOfWhispersConfig",
    "render_svg",
    "render_text",
    "use_content_file",
]

DEFAULT_PLAYERS = 4
# Each empire's colour on the map and the councils.
EMPIRE_COLOURS = {
    "bear": "#8a5a3c",
    "lion": "#d4a017",
    "horse": "#3b7a57",
    "elephant": "#6d6d8a",
    "eagle": "#2f5fa8",
}


def use_content_file(path: str | Path) -> tuple[str, str]:
    """Load a content file (a ContentError naming the path of a bad value in it) and have
    the core play it from now on: its id and digest (``Game.use_content``)."""
    content = load_content(Path(path))
    use_content(content)
    return content.id, content.digest


@dataclass(frozen=True)
class AWarOfWhispersConfig:
    """A game of A War of Whispers: 2 to 4 players, the advanced rule of agents on the map,
    and the content by id and digest ("": the content the engine holds).

    >>> AWarOfWhispersConfig(players=3).new_game(seed=1).n_players
    3
    """

    players: int = DEFAULT_PLAYERS
    agents_on_map: bool = False
    content_id: str = ""
    content_digest: str = ""

    def validate(self) -> AWarOfWhispersConfig:
        if not isinstance(self.players, int) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(
                f"players: A War of Whispers seats {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {self.players!r}"
            )
        if not isinstance(self.agents_on_map, bool):
            raise ValueError(f"agents_on_map: must be true or false, got {self.agents_on_map!r}")
        content = current_content()
        if self.content_id not in ("", content.id):  # another is loaded by --content FILE
            raise ValueError(
                f"content_id: the engine plays {content.id!r}, not {self.content_id!r}"
            )
        if self.content_digest not in ("", content.digest):
            raise ValueError(
                f"content_digest: the engine's content {content.id!r} has the digest "
                f"{content.digest}, not {self.content_digest!r} (a changed file?)"
            )
        return self

    def new_game(self, seed: int = 0) -> AWarOfWhispersState:
        self.validate()
        return AWarOfWhispersState.new_game(self, seed=seed)


_CONFIG_FIELDS = ("players", "agents_on_map", "content_id", "content_digest")


def _read_config(fields: dict[str, Any], path: str, complete: bool) -> tuple[Any, Problems]:
    """A configuration from a GameConfig's fields (its options' flattened in): players,
    and the options agents_on_map, content_id and content_digest."""
    found = [
        (f"{path}.{f}", "not a field of A War of Whispers' configuration")
        for f in fields
        if f not in _CONFIG_FIELDS
    ]
    if complete and "players" not in fields:
        found.append((f"{path}.players", "required field is missing"))
    if found:
        return None, found
    try:
        return AWarOfWhispersConfig(**fields).validate(), []
    except ValueError as e:
        field, _, problem = str(e).partition(": ")
        return None, [(f"{path}.{field}", problem)]


def _read(msg: pb.GameState, view_of: int) -> tuple[AWarOfWhispersState | None, Problems]:
    return messages.read(msg)  # a full state names every card: no partial states to read


def render_text(state: AWarOfWhispersState) -> str:
    """The councils, the map, the hands and the loyalty tokens the position shows."""
    return render_a_war_of_whispers(state)


# ---------------------------------------------------------------------------------------
# The SVG drawing.

_W = 960
_MAP_TOP, _MAP_H = 40, 340
_PANELS_TOP = _MAP_TOP + _MAP_H + 135  # below the councils
_CARDS_A_ROW = 6


def _region_positions(content: Content) -> list[tuple[float, float]]:
    """Each region's centre: a column per home empire (turn order), its regions stacked."""
    by_empire: dict[int, list[int]] = {}
    for r, region in enumerate(content.regions):
        by_empire.setdefault(region.empire, []).append(r)
    out = [(0.0, 0.0)] * len(content.regions)
    column = _W / len(EMPIRES)
    for e, regions in by_empire.items():
        step = _MAP_H / (len(regions) + 1)
        for i, r in enumerate(regions):
            shift = (i % 2) * column * 0.25 - column * 0.125
            out[r] = (column * (e + 0.5) + shift, _MAP_TOP + step * (i + 1))
    return out


def render_svg(state: AWarOfWhispersState) -> str:
    """The map (each region a circle coloured by the empire holding it, its banners, cities,
    fort, farm and card icon; roads between adjacent regions), the five councils with their
    agents, and each player's loyalty tokens and hand as the position shows them.

    Targets the page can click: ``<g class="region" data-region="R">`` (R: the region's
    index), ``<g class="council-seat" data-empire="E" data-seat="S">``,
    ``<g class="card" data-card="C">`` in the viewer's hand.

    >>> svg = render_svg(AWarOfWhispersState.new_game(3, seed=1).view(0))
    >>> svg.startswith("<svg"), svg.count('class="region"'), svg.count('class="council-seat"')
    (True, 20, 20)
    """
    content = current_content()
    raw = state.to_raw()
    pos = _region_positions(content)
    height = _height(state, raw)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {height}" '
        f'width="{_W}" height="{height}" class="a-war-of-whispers" font-family="sans-serif" '
        f'data-players="{state.n_players}" data-viewer="{state.viewer}">',
        f'<rect width="{_W}" height="{height}" fill="#f4efe3"/>',
        f'<text x="12" y="24" font-size="16">{escape(_headline(state))}</text>',
    ]
    for r, region in enumerate(content.regions):
        for other in region.adjacent:
            if other > r:
                (x1, y1), (x2, y2) = pos[r], pos[other]
                out.append(
                    f'<line class="road" data-from="{r}" data-to="{other}" x1="{x1:.0f}" '
                    f'y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="#b9ad92"/>'
                )
    for r, region in enumerate(content.regions):
        x, y = pos[r]
        owner = raw["owner"][r]
        fill = EMPIRE_COLOURS[EMPIRES[owner]] if owner >= 0 else "#ffffff"
        marks = "".join(
            m
            for m, on in (
                ("C" * region.cities, True),
                ("F", region.fort),
                ("f", region.farm),
                ("i", region.icon),
            )
            if on
        )
        held = f"{EMPIRES[owner]} {raw['banners'][r]}" if owner >= 0 else "empty"
        out.append(
            f'<g class="region" data-region="{r}" data-name="{escape(region.name)}" '
            f'data-empire="{EMPIRES[owner] if owner >= 0 else ""}" '
            f'data-banners="{raw["banners"][r]}">'
            f"<title>{escape(region.name)}: {held}</title>"
            f'<circle cx="{x:.0f}" cy="{y:.0f}" r="22" fill="{fill}" stroke="'
            f'{EMPIRE_COLOURS[EMPIRES[region.empire]]}" stroke-width="3"/>'
            f'<text x="{x:.0f}" y="{y + 5:.0f}" text-anchor="middle" font-size="14" '
            f'fill="#fff">{raw["banners"][r] or ""}</text>'
            f'<text x="{x:.0f}" y="{y + 36:.0f}" text-anchor="middle" font-size="10">'
            f"{escape(region.name)} {marks}</text></g>"
        )
    out += _councils_svg(state)
    out += _players_svg(state, content, raw)
    out.append("</svg>")
    return "\n".join(out)


def _headline(state: AWarOfWhispersState) -> str:
    return render_text(state).splitlines()[0]


def _councils_svg(state: AWarOfWhispersState) -> list[str]:
    out = []
    top = _MAP_TOP + _MAP_H + 20
    column = _W / len(EMPIRES)
    for e, seats in enumerate(state.agents()):
        x0 = column * e + 8
        colour = EMPIRE_COLOURS[EMPIRES[e]]
        out.append(
            f'<g class="council" data-empire="{EMPIRES[e]}"><text x="{x0:.0f}" y="{top:.0f}" '
            f'font-size="13" fill="{colour}">{EMPIRES[e]} council</text></g>'
        )
        for k, p in enumerate(seats):
            y = top + 10 + 24 * k
            who = f"P{p}" if p >= 0 else "open"
            out.append(
                f'<g class="council-seat" data-empire="{EMPIRES[e]}" data-seat="{SEATS[k]}" '
                f'data-player="{p}"><rect x="{x0:.0f}" y="{y:.0f}" width="{column - 16:.0f}" '
                f'height="20" rx="4" fill="#fff" stroke="{colour}"/>'
                f'<text x="{x0 + 6:.0f}" y="{y + 14:.0f}" font-size="12">{SEATS[k]}: {who}'
                f"</text></g>"
            )
    return out


def _players_svg(state: AWarOfWhispersState, content: Content, raw: dict[str, Any]) -> list[str]:
    """Each player's panel (the page shows them apart, below the board): a ``<g
    class="player">`` whose first ``<rect>`` is its frame, its loyalty tokens as the position
    shows them, and its hand (the cards, where the position names them)."""
    out = []
    y = _PANELS_TOP
    for p in range(state.n_players):
        held = [c for c in range(len(content.cards)) if raw["card_loc"][c] == LOCATIONS["hand"] + p]
        rows = max(1, -(-len(held) // _CARDS_A_ROW))
        tokens = ", ".join(
            f"{EMPIRES[e]} x{LOYALTY_VALUES[slot]}" + ("*" if raw["revealed"][p][e] else "")
            for e, slot in enumerate(raw["loyalty"][p])
            if slot >= 0
        )
        mine = " (you)" if p == state.viewer else ""
        out.append(
            f'<g class="player" data-seat="{p}"><rect x="8" y="{y:.0f}" width="{_W - 16}" '
            f'height="{_panel_height(rows)}" rx="4" fill="#fbf8f1" stroke="#b9ad92"/>'
            f'<text x="14" y="{y + 16:.0f}" font-size="13">'
            f"Player {p}{mine}: loyalty [{escape(tokens) or 'hidden'}]; swaps "
            f"{raw['swaps'][p]}; {sum(raw['hand_count'][p])} cards</text>"
        )
        for i, c in enumerate(held):
            card = content.cards[c]
            colour = EMPIRE_COLOURS[EMPIRES[card.empire]]
            x, row_y = 14 + 156 * (i % _CARDS_A_ROW), y + 23 + 24 * (i // _CARDS_A_ROW)
            out.append(
                f'<g class="card" data-card="{c}" data-seat="{p}"><rect x="{x}" '
                f'y="{row_y:.0f}" width="150" height="20" rx="3" fill="{colour}"/>'
                f'<text x="{x + 5}" y="{row_y + 14:.0f}" font-size="11" fill="#fff">'
                f"{escape(card.name)}</text></g>"
            )
        out.append("</g>")
        y += _panel_height(rows) + 4
    return out


def _panel_height(rows: int) -> int:
    return 24 + 24 * rows


def _height(state: AWarOfWhispersState, raw: dict[str, Any]) -> int:
    """The drawing's height: the map and councils, then each player's panel."""
    panels = 0
    for p in range(state.n_players):
        held = sum(1 for loc in raw["card_loc"] if loc == LOCATIONS["hand"] + p)
        panels += _panel_height(max(1, -(-held // _CARDS_A_ROW))) + 4
    return _PANELS_TOP + panels + 4


def _info() -> dict[str, Any]:
    content = current_content()
    return {
        "a_war_of_whispers": {
            "empires": list(EMPIRES),
            "seats": list(SEATS),
            "content_id": content.id,
            "content_digest": content.digest,
            "regions": [r.name for r in content.regions],
            "cards": [c.name for c in content.cards],
        }
    }


def _progress(state: AWarOfWhispersState) -> str:
    empire = f", {state.empire}" if state.empire else ""
    return f"round {state.round}, {state.phase}{empire}"


GAME = register(
    Game(
        name="a-war-of-whispers",
        display_name="A War of Whispers",
        proto=pb.GAME_A_WAR_OF_WHISPERS,
        config_class=AWarOfWhispersConfig,
        state_class=AWarOfWhispersState,
        players=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        state_format=messages.FORMAT,
        num_actions=NUM_ACTIONS,
        action_ranges=tuple(messages.ACTION_RANGES),
        read=_read,
        write=messages.write,
        read_config=_read_config,
        action_to_proto=messages.action_to_proto,
        action_from_proto=messages.action_from_proto,
        public_action=messages.public_action_proto,
        line_to_protos=played_line(messages.action_to_proto, messages.ACTION_KINDS),
        describe=messages.describe,
        render_text=render_text,
        render_svg=render_svg,
        info=_info,
        progress=_progress,
        # Routine: the steps inside an action (regions, counts, payments) and Cleanup.
        routine=lambda state, action: state.decision_name not in ("deploy", "choose", "swap"),
        effects=a_war_of_whispers_effects.effects,
        fixed_action_protos=False,  # a region's or card's name is the content's
        consequence_kinds=frozenset({pb.ACTION_KIND_PAY_CARD}),  # an ability's cost
        points_unit="points",
        use_content=use_content_file,
    )
)
