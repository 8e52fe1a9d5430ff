"""The board drawn as SVG from a state: ``render_svg(state)`` returns the text of an SVG file.

Pure Python with no dependency: it reads ``state.to_raw()``, the public ``CouncilOfFourState``
methods and the board data (``council.engine.council_of_four_board``, whose ``board.json`` holds the
city positions of each region side, ``Layout.city_positions``). A full state shows every hand; a
view (``state.view(seat)``) shows only the viewer's and the other hands' sizes.

Every piece a page may want to click or highlight has a stable id or class:

========================================  ================================================
``<g id="city-Arkon" class="city">``       a city (``data-city``, ``data-letter``,
                                          ``data-colour``, ``data-token``)
``<line class="road">``                    a road (``data-from``, ``data-to``: city letters)
``<g class="emporium seat-0">``            an emporium of seat 0 (``emporium neutral``: a
                                          neutral one), inside its city's group
``<g id="king">``                          the king, inside its city's group
``<g id="balcony-coast">``                 a council: ``coast``, ``hills``, ``mountains``,
                                          ``king``; its ``<g class="councillor">``
                                          children have ``data-index`` (0 = newest) and
                                          ``data-colour``
``<g id="tile-coast-0">``                  a face-up permit slot (region, slot 0/1):
                                          ``data-tile``, ``data-cities`` (letters) while
                                          it holds a tile, class ``empty`` otherwise
``<g id="deck-coast">``                    a permit deck (``data-size``)
``<g id="bonus-coast">``, ``bonus-gold``   a bonus tile still available (``data-vp``)
``<g id="king-tile-0">``                   a king reward tile still available, 25 first
``<g id="pool">``                          the councillors beside the board
``<g id="nobility-track">``                the track, spaces ``nobility-0`` .. ``nobility-20``
``<g id="player-0" class="player">``       a seat's panel (``data-seat``); its header
                                          strip ``<g id="seat-0" class="seat-head">``
``<g id="hand-0" class="hand">``           its hand: ``<g class="card">`` per kind held
                                          (``data-kind``, ``data-count``), or class
                                          ``hidden`` with ``data-size`` only
``<g id="permit-23">``                     a permit tile a player holds, by tile (class
                                          ``permit owned``, ``used`` once face down;
                                          ``data-tile``, ``data-seat``)
========================================  ================================================

Player colours are the Okabe-Ito colours (blue, vermillion, bluish green, reddish purple),
each with its own shape (circle, square, triangle, diamond) on its emporiums, its nobility
marker and its panel, so a seat is told apart without colour; neutral emporiums are grey
hexagons.

>>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
>>> svg = render_svg(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3))
>>> svg.startswith("<svg"), svg.count('class="city"'), 'id="balcony-king"' in svg
(True, 15, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape, quoteattr

from council.engine import council_of_four_board as board
from council.engine.text_svg import svg_to_png

__all__ = [
    "PLAYER_COLOURS",
    "PLAYER_SHAPES",
    "render_svg",
    "svg_to_png",
]

# Okabe & Ito's colour-blind-safe palette; every seat also has its own shape.
PLAYER_COLOURS: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")
PLAYER_SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "diamond")
NEUTRAL_COLOUR = "#8C8C8C"

CITY_FILL = {"gold": "#E4B83A", "silver": "#C9CDD2", "bronze": "#C27A3E", "iron": "#5F6B7A"}
KING_CITY_FILL = "#7B4EA3"
CARD_FILL = {
    "white": "#FAFAFA",
    "black": "#262626",
    "orange": "#F08A24",
    "pink": "#F3A5C8",
    "purple": "#7A48A8",
    "cyan": "#3CB9DA",
}
CARD_LABEL = {
    "white": "Wh",
    "black": "Bk",
    "orange": "Or",
    "pink": "Pk",
    "purple": "Pu",
    "cyan": "Cy",
    "joker": "J",
}
REGION_FILL = {"coast": "#D3EAF0", "hills": "#DDEBC6", "mountains": "#EADFCB"}
REGION_EDGE = {"coast": "#5B97AA", "hills": "#6E9A45", "mountains": "#9A7A52"}
BONUS_NAMES = {
    "VP": "victory points",
    "coins": "coins",
    "assistants": "assistants",
    "politics": "politics cards",
    "nobility": "nobility steps",
    "main_action": "main action",
}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK = "#2B2B2B"

# Geometry of the picture (pixels of the viewBox).
MARGIN = 18
PANEL_W, PANEL_H, GAP = 436, 500, 8
WIDTH = 2 * MARGIN + 3 * PANEL_W + 2 * GAP
MAP_X, MAP_Y, MAP_W, MAP_H = 30, 56, 370, 226  # the city frame inside a region panel
CITY_R = 20
TILE_W, TILE_H = 116, 96
KING_PANEL_H = 226

_N_BONUS_TILES = len(board.BONUS_TILE_NAMES)
_N_KING_TILES = len(board.KING_REWARD_TILES)


def _bits(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if (mask >> i) & 1]


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


class _Svg:
    """An SVG document written as text, element by element."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def open(self, tag: str, **attrs) -> None:
        self.parts.append(f"<{tag}{_attrs(attrs)}>")

    def close(self, tag: str) -> None:
        self.parts.append(f"</{tag}>")

    def el(self, tag: str, **attrs) -> None:
        self.parts.append(f"<{tag}{_attrs(attrs)}/>")

    def rect(self, x: float, y: float, width: float, height: float, **attrs) -> None:
        """A rectangle: its position and size, then any other attributes."""
        self.el("rect", x=x, y=y, width=width, height=height, **attrs)

    def text(self, x: float, y: float, content: str, size: float = 12, **attrs) -> None:
        attrs.setdefault("fill", INK)
        self.parts.append(
            f"<text{_attrs({'x': x, 'y': y, 'font_size': size, **attrs})}>{escape(content)}</text>"
        )

    def title(self, content: str) -> None:
        self.parts.append(f"<title>{escape(content)}</title>")

    def group(self, **attrs) -> _Group:
        return _Group(self, attrs)


class _Group:
    def __init__(self, svg: _Svg, attrs: dict) -> None:
        self.svg, self.attrs = svg, attrs

    def __enter__(self) -> _Svg:
        self.svg.open("g", **self.attrs)
        return self.svg

    def __exit__(self, *exc) -> None:
        self.svg.close("g")


def _attrs(attrs: dict) -> str:
    out = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "class" if key == "cls" else key.replace("_", "-")
        if isinstance(value, float):
            value = _f(value)
        out.append(f" {name}={quoteattr(str(value))}")
    return "".join(out)


# -- small pieces ------------------------------------------------------------------------


def _shape(svg: _Svg, shape: str, x: float, y: float, size: float, fill: str, **attrs) -> None:
    """A player mark (or the neutral hexagon) of width about `size`, centred on (x, y)."""
    h = size / 2
    style = {"fill": fill, "stroke": "#1A1A1A", "stroke_width": 1.3, **attrs}
    if shape == "circle":
        svg.el("circle", cx=x, cy=y, r=h, **style)
    elif shape == "square":
        s = h * 0.9
        svg.rect(x - s, y - s, 2 * s, 2 * s, **style)
    elif shape == "triangle":
        pts = [(x, y - h * 1.05), (x + h * 1.05, y + h * 0.8), (x - h * 1.05, y + h * 0.8)]
        svg.el("polygon", points=_points(pts), **style)
    elif shape == "diamond":
        pts = [(x, y - h * 1.15), (x + h * 1.05, y), (x, y + h * 1.15), (x - h * 1.05, y)]
        svg.el("polygon", points=_points(pts), **style)
    else:  # hexagon: neutral
        k = 0.866 * h
        pts = [(x - h, y), (x - h / 2, y - k), (x + h / 2, y - k), (x + h, y)]
        pts += [(x + h / 2, y + k), (x - h / 2, y + k)]
        svg.el("polygon", points=_points(pts), **style)


def _points(pts: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{_f(a)},{_f(b)}" for a, b in pts)


def _seat_mark(svg: _Svg, seat: int, x: float, y: float, size: float) -> None:
    _shape(svg, PLAYER_SHAPES[seat], x, y, size, PLAYER_COLOURS[seat])


def _icon(svg: _Svg, key: str, x: float, y: float, value: int | None, size: float = 22) -> None:
    """A bonus icon centred on (x, y) with its amount inside (none when `value` is None)."""
    h = size / 2
    label = "" if value is None else str(value)
    text_fill = "#FFFFFF"
    if key == "coins":
        svg.el("circle", cx=x, cy=y, r=h, fill="#F2C230", stroke="#7A5C00", stroke_width=1.2)
        text_fill = "#3A2A00"
    elif key == "VP":  # a laurel-green shield
        pts = [(x - h, y - h), (x + h, y - h), (x + h, y + h * 0.2), (x, y + h * 1.05)]
        pts.append((x - h, y + h * 0.2))
        svg.el("polygon", points=_points(pts), fill="#2E7D32", stroke="#123F14", stroke_width=1)
    elif key == "assistants":  # a pawn: head and body
        svg.el("circle", cx=x, cy=y - h * 0.55, r=h * 0.42, fill="#8D5524", stroke="#3B1F08")
        svg.el(
            "path",
            d=f"M{_f(x - h * 0.85)},{_f(y + h)} Q{_f(x - h * 0.85)},{_f(y - h * 0.2)} "
            f"{_f(x)},{_f(y - h * 0.2)} Q{_f(x + h * 0.85)},{_f(y - h * 0.2)} "
            f"{_f(x + h * 0.85)},{_f(y + h)} Z",
            fill="#8D5524",
            stroke="#3B1F08",
        )
        y += h * 0.3
    elif key == "politics":  # a card
        svg.rect(
            x - h * 0.72,
            y - h,
            h * 1.44,
            2 * h,
            rx=2,
            fill="#FFFFFF",
            stroke="#555555",
            stroke_width=1.2,
        )
        svg.rect(x - h * 0.72, y - h, h * 1.44, h * 0.45, rx=2, fill="#7A48A8")
        text_fill = INK
        y += h * 0.2
    elif key == "nobility":  # a pennant pointing up
        pts = [(x, y - h * 1.1), (x + h, y - h * 0.2), (x + h, y + h), (x - h, y + h)]
        pts.append((x - h, y - h * 0.2))
        svg.el("polygon", points=_points(pts), fill="#B3261E", stroke="#4A0E0A", stroke_width=1)
        y += h * 0.15
    else:  # main_action: a blue hexagon marked M
        k = 0.866 * h
        pts = [(x - h, y), (x - h / 2, y - k * 1.1), (x + h / 2, y - k * 1.1), (x + h, y)]
        pts += [(x + h / 2, y + k * 1.1), (x - h / 2, y + k * 1.1)]
        svg.el("polygon", points=_points(pts), fill="#1F5FAF", stroke="#0B2A52", stroke_width=1)
        label = "M" if value in (None, 1) else f"M{value}"
    if label:
        svg.text(
            x,
            y + size * 0.17,
            label,
            size=size * 0.5,
            fill=text_fill,
            text_anchor="middle",
            font_weight="bold",
        )


def _bonus_text(bonus: dict[str, int]) -> str:
    return ", ".join(f"{BONUS_NAMES[k]} +{v}" for k, v in bonus.items() if v) or "nothing"


def _icons(svg: _Svg, bonus: dict[str, int], x: float, y: float, size: float = 22) -> None:
    """The icons of a bonus in a row centred on (x, y)."""
    items = [(k, v) for k, v in bonus.items() if v]
    step = size + 4
    x0 = x - step * (len(items) - 1) / 2
    for i, (k, v) in enumerate(items):
        _icon(svg, k, x0 + i * step, y, v, size)


def _councillor(svg: _Svg, colour: int, x: float, y: float, index: int, r: float = 13) -> None:
    name = board.COUNCILLOR_COLOURS[colour]
    with svg.group(cls="councillor", data_index=index, data_colour=name):
        svg.title(f"{name} councillor" + (" (newest)" if index == 0 else ""))
        svg.el("circle", cx=x, cy=y, r=r, fill=CARD_FILL[name], stroke="#1A1A1A", stroke_width=1.5)
        light = name in ("white", "pink", "cyan", "orange")
        svg.text(
            x,
            y + r * 0.33,
            CARD_LABEL[name],
            size=r * 0.78,
            text_anchor="middle",
            fill=INK if light else "#FFFFFF",
            font_weight="bold",
        )


def _balcony(svg: _Svg, name: str, members: Sequence[int], x: float, y: float) -> None:
    """A council: a stone balcony with its 4 councillors, the newest (index 0) on the left."""
    with svg.group(id=f"balcony-{name}", cls="balcony", data_balcony=name):
        svg.title(f"{name} council (left: newest; right: the next to leave)")
        svg.rect(x, y - 18, 150, 36, rx=6, fill="#ECE6DA", stroke="#7D7464", stroke_width=1.5)
        svg.el("line", x1=x + 6, y1=y + 14, x2=x + 144, y2=y + 14, stroke="#A59C8A", stroke_width=3)
        for i, c in enumerate(members):
            _councillor(svg, c, x + 24 + 34 * i, y - 1, i)


def _card(svg: _Svg, kind: str, count: int, x: float, y: float, w: float = 26) -> None:
    h = w * 1.35
    with svg.group(cls="card", data_kind=kind, data_count=count):
        svg.title(f"{count} {kind}")
        fill = "#FFFFFF" if kind == "joker" else CARD_FILL[kind]
        svg.rect(x, y, w, h, rx=3, fill=fill, stroke="#1A1A1A", stroke_width=1.2)
        if kind == "joker":  # white, with a band of every colour
            svg.rect(x + 1, y + 1, w - 2, h * 0.2, rx=2, fill="url(#council-joker)")
        dark = kind in ("black", "purple")
        svg.text(
            x + w / 2,
            y + h * 0.42,
            CARD_LABEL[kind],
            size=w * 0.36,
            text_anchor="middle",
            fill="#FFFFFF" if dark else INK,
            font_weight="bold",
        )
        svg.text(
            x + w / 2,
            y + h * 0.86,
            f"×{count}",
            size=w * 0.42,
            text_anchor="middle",
            fill="#FFFFFF" if dark else INK,
            font_weight="bold",
        )


def _card_back(svg: _Svg, x: float, y: float, w: float = 26) -> None:
    h = w * 1.35
    svg.rect(x, y, w, h, rx=3, fill="#3B3550", stroke="#1A1A1A", stroke_width=1.2)
    svg.rect(x + 4, y + 4, w - 8, h - 8, rx=2, fill="none", stroke="#B9A76A", stroke_width=1)


def _permit(
    svg: _Svg, tile: int, colours: Sequence[int], x: float, y: float, scale: float = 1.0
) -> None:
    """A permit tile's face, TILE_W x TILE_H at `scale`, top left at (x, y)."""
    t = board.PERMIT_TILES[tile]
    svg.open(
        "g", transform=f"translate({_f(x)},{_f(y)})" + (f" scale({scale})" if scale != 1 else "")
    )
    svg.title(
        f"permit {tile}: {'/'.join(board.CITY_NAMES[c] for c in t.cities)}; {_bonus_text(t.bonus)}"
    )
    svg.rect(0, 0, TILE_W, TILE_H, rx=8, fill="#F6E7C1", stroke="#8A6A2E", stroke_width=2)
    n = len(t.cities)
    step = 30
    x0 = TILE_W / 2 - step * (n - 1) / 2
    for i, c in enumerate(t.cities):
        colour = colours[c]
        fill = KING_CITY_FILL if colour < 0 else CITY_FILL[board.CITY_COLOURS[colour]]
        dark = colour < 0 or board.CITY_COLOURS[colour] == "iron"
        svg.rect(x0 + i * step - 13, 9, 26, 28, rx=5, fill=fill, stroke="#1A1A1A", stroke_width=1.2)
        svg.text(
            x0 + i * step,
            30,
            board.CITY_LETTERS[c],
            size=19,
            text_anchor="middle",
            font_weight="bold",
            fill="#FFFFFF" if dark else INK,
        )
    svg.el("line", x1=10, y1=47, x2=TILE_W - 10, y2=47, stroke="#C9AD72", stroke_width=1.5)
    _icons(svg, t.bonus, TILE_W / 2, 70, size=26)
    svg.close("g")


def _crown(svg: _Svg, x: float, y: float, size: float = 26) -> None:
    h = size / 2
    pts = [(x - h, y + h * 0.55), (x - h, y - h * 0.45), (x - h * 0.5, y), (x, y - h * 0.75)]
    pts += [(x + h * 0.5, y), (x + h, y - h * 0.45), (x + h, y + h * 0.55)]
    svg.el("polygon", points=_points(pts), fill="#F5C518", stroke="#5A4500", stroke_width=1.5)


def _bonus_tile(
    svg: _Svg,
    ident: str,
    fill: str,
    vp: int,
    label: str,
    x: float,
    y: float,
    w: float = 56,
    h: float = 40,
    dark: bool = False,
) -> None:
    with svg.group(id=ident, cls="bonus-tile", data_vp=vp):
        svg.title(f"{label} bonus tile: {vp} VP")
        svg.rect(x, y, w, h, rx=6, fill=fill, stroke="#1A1A1A", stroke_width=1.5)
        ink = "#FFFFFF" if dark else INK
        svg.text(
            x + w / 2,
            y + h * 0.52,
            str(vp),
            size=h * 0.42,
            text_anchor="middle",
            font_weight="bold",
            fill=ink,
        )
        svg.text(x + w / 2, y + h * 0.86, label, size=h * 0.22, text_anchor="middle", fill=ink)


def _taken(svg: _Svg, x: float, y: float, w: float, h: float, label: str) -> None:
    svg.rect(
        x, y, w, h, rx=6, fill="none", stroke="#9A9A9A", stroke_width=1.2, stroke_dasharray="4 3"
    )
    svg.text(x + w / 2, y + h / 2 + 4, label, size=10, text_anchor="middle", fill="#8A8A8A")


# -- the picture -------------------------------------------------------------------------


class _Board:
    def __init__(self, state) -> None:
        self.state = state
        self.raw = raw = state.to_raw()
        self.n = raw["n_players"]
        self.layout = board.Layout.from_index(raw["layout"])
        self.colours = self.layout.city_colours
        self.viewer = raw["viewer"]
        self.scores = state.scores()
        fw, fh = board.MAP_FRAME
        self.city_xy: list[tuple[float, float]] = []
        for c, (fx, fy) in enumerate(self.layout.city_positions):
            px = MARGIN + board.CITY_REGION[c] * (PANEL_W + GAP)
            self.city_xy.append((px + MAP_X + fx / fw * MAP_W, 48 + MAP_Y + fy / fh * MAP_H))

    # The header line.
    def header(self, svg: _Svg) -> None:
        raw, state = self.raw, self.state
        svg.text(MARGIN, 32, "Council of Four", size=22, font_weight="bold")
        info = f"{self.n} players · layout {self.layout.code} · turn {raw['turn']}"
        info += f" · {raw['action_count']} actions played"
        if self.viewer >= 0:
            info += f" · seat {self.viewer}'s view"
        svg.text(MARGIN + 200, 31, info, size=15)
        if raw["game_over"]:
            winners = ", ".join(f"seat {p}" for p in state.winners())
            final = " / ".join(map(str, self.scores))
            status = f"Game over: final VP {final}; winner {winners}"
        else:
            status = f"Seat {raw['current']} to act: {decision_words(state, raw)}"
        if raw["end_trigger"] >= 0 and not raw["game_over"]:
            status += f" · last round (seat {raw['end_trigger']} built 10)"
        with svg.group(id="status", data_current=raw["current"]):
            svg.text(WIDTH - MARGIN, 31, status, size=15, text_anchor="end", font_weight="bold")

    # The three region boards.
    def regions(self, svg: _Svg) -> None:
        for r, region in enumerate(board.REGIONS):
            x = MARGIN + r * (PANEL_W + GAP)
            self.region_panel(svg, r, region, x, 48)
        self.roads(svg)
        for c in range(board.N_CITIES):
            self.city(svg, c)
        for r, region in enumerate(board.REGIONS):
            x = MARGIN + r * (PANEL_W + GAP)
            self.region_pieces(svg, r, region, x, 48)

    def region_panel(self, svg: _Svg, r: int, region: str, x: float, y: float) -> None:
        side = self.layout.code[r]
        with svg.group(id=f"region-{region}", cls="region", data_side=side):
            svg.rect(
                x,
                y,
                PANEL_W,
                PANEL_H,
                rx=10,
                fill=REGION_FILL[region],
                stroke=REGION_EDGE[region],
                stroke_width=2,
            )
            self.scenery(svg, region, x, y)
            svg.text(
                x + 16,
                y + 26,
                region.upper(),
                size=17,
                font_weight="bold",
                letter_spacing=2,
                fill=REGION_EDGE[region],
            )
            svg.text(
                x + PANEL_W - 16,
                y + 26,
                f"side {side}",
                size=13,
                text_anchor="end",
                fill=REGION_EDGE[region],
            )
            svg.el(
                "line",
                x1=x + 10,
                y1=y + MAP_Y + MAP_H + 44,
                x2=x + PANEL_W - 10,
                y2=y + MAP_Y + MAP_H + 44,
                stroke=REGION_EDGE[region],
                stroke_width=1,
                stroke_dasharray="2 4",
            )

    def scenery(self, svg: _Svg, region: str, x: float, y: float) -> None:
        """Faint decoration: the sea on the coast's left, hills, mountain peaks."""
        with svg.group(cls="scenery", opacity=0.45):
            if region == "coast":
                d = f"M{x + 2},{y + 40} "
                for i in range(9):
                    yy = y + 40 + i * 30
                    d += f"Q{x + 16},{yy + 8} {x + 8},{yy + 15} T{x + 10},{yy + 30} "
                d += f"L{x + 2},{y + 310} Z"
                svg.el("path", d=d, fill="#7FB9CF")
            elif region == "hills":
                for hx, hy in ((x + 300, y + 150), (x + 120, y + 190), (x + 350, y + 300)):
                    svg.el(
                        "path",
                        d=f"M{hx - 40},{hy} Q{hx},{hy - 34} {hx + 40},{hy}",
                        fill="none",
                        stroke="#7FA35A",
                        stroke_width=3,
                    )
            else:
                for mx, my in (
                    (x + 190, y + 150),
                    (x + 398, y + 185),
                    (x + 235, y + 305),
                    (x + 392, y + 305),
                ):
                    pts = [(mx - 30, my), (mx, my - 40), (mx + 30, my)]
                    svg.el("polygon", points=_points(pts), fill="#C9B28F", stroke="#9A7A52")

    def roads(self, svg: _Svg) -> None:
        with svg.group(id="roads"):
            for a, b in self.layout.roads:
                (x1, y1), (x2, y2) = self.city_xy[a], self.city_xy[b]
                la, lb = board.CITY_LETTERS[a], board.CITY_LETTERS[b]
                with svg.group(cls="road", data_from=la, data_to=lb):
                    for colour, width in (("#6E5234", 8), ("#D8C39C", 4)):  # edge, then surface
                        svg.el(
                            "line",
                            x1=x1,
                            y1=y1,
                            x2=x2,
                            y2=y2,
                            stroke=colour,
                            stroke_width=width,
                            stroke_linecap="round",
                        )

    def city(self, svg: _Svg, c: int) -> None:
        raw = self.raw
        x, y = self.city_xy[c]
        name, letter = board.CITY_NAMES[c], board.CITY_LETTERS[c]
        colour = self.colours[c]
        colour_name = "king" if colour < 0 else board.CITY_COLOURS[colour]
        token = raw["city_token"][c]
        with svg.group(
            id=f"city-{name}",
            cls="city",
            data_city=name,
            data_letter=letter,
            data_colour=colour_name,
            data_token=token if token >= 0 else None,
        ):
            tip = f"{name} ({colour_name} city)"
            if token >= 0:
                tip += f"; token: {_bonus_text(board.CITY_TOKENS[token])}"
            svg.title(tip)
            fill = KING_CITY_FILL if colour < 0 else CITY_FILL[colour_name]
            dark = colour < 0 or colour_name == "iron"
            svg.el(
                "circle",
                cx=x,
                cy=y,
                r=CITY_R + 3,
                fill="#FFFFFF",
                stroke="#1A1A1A",
                stroke_width=1.5,
            )
            svg.el("circle", cx=x, cy=y, r=CITY_R, fill=fill, stroke="#1A1A1A", stroke_width=1.2)
            svg.text(
                x,
                y + 8,
                letter,
                size=22,
                text_anchor="middle",
                font_weight="bold",
                fill="#FFFFFF" if dark else INK,
            )
            # The name on a white halo (drawn twice: CairoSVG has no paint-order).
            svg.text(
                x,
                y + CITY_R + 17,
                name,
                size=13,
                text_anchor="middle",
                font_weight="bold",
                stroke="#FFFFFF",
                stroke_width=3.5,
                stroke_linejoin="round",
                fill="#FFFFFF",
            )
            svg.text(x, y + CITY_R + 17, name, size=13, text_anchor="middle", font_weight="bold")
            if token >= 0:
                bonus = {k: v for k, v in board.CITY_TOKENS[token].items() if v}
                w = 24 * len(bonus) + 6
                with svg.group(cls="token", data_token=token):
                    svg.rect(
                        x + CITY_R + 4,
                        y - 15,
                        w,
                        30,
                        rx=15,
                        fill="#FFFDF5",
                        stroke="#6E5234",
                        stroke_width=1.2,
                    )
                    _icons(svg, bonus, x + CITY_R + 4 + w / 2, y, size=20)
            marks = [p for p in range(self.n) if (raw["emporia"][p] >> c) & 1]
            neutral = bool((raw["neutral"] >> c) & 1)
            count = len(marks) + neutral
            step = 17
            mx = x - step * (count - 1) / 2
            my = y + CITY_R + 33
            for p in marks:
                with svg.group(cls=f"emporium seat-{p}", data_seat=p):
                    svg.title(f"emporium of seat {p}")
                    _seat_mark(svg, p, mx, my, 14)
                mx += step
            if neutral:
                with svg.group(cls="emporium neutral"):
                    svg.title("neutral emporium")
                    _shape(svg, "hexagon", mx, my, 14, NEUTRAL_COLOUR)
            if raw["king_city"] == c:
                with svg.group(id="king", data_city=name):
                    svg.title(f"the king, in {name}")
                    _crown(svg, x, y - CITY_R - 12, 28)

    def region_pieces(self, svg: _Svg, r: int, region: str, x: float, y: float) -> None:
        raw = self.raw
        top = y + MAP_Y + MAP_H + 54
        svg.text(x + 16, top + 22, "council", size=13, font_weight="bold")
        _balcony(svg, region, raw["balcony"][r], x + 80, top + 18)
        if raw["bonus_tiles_left"] >> r & 1:
            _bonus_tile(
                svg,
                f"bonus-{region}",
                REGION_EDGE[region],
                board.BONUS_TILE_VP[r],
                region,
                x + PANEL_W - 80,
                top,
                w=64,
                h=40,
                dark=True,
            )
        else:
            _taken(svg, x + PANEL_W - 80, top, 64, 40, "taken")
        svg.text(x + PANEL_W - 90, top + 24, "bonus", size=11, text_anchor="end")
        ty = top + 52
        for slot in range(2):
            tile = raw["face_up"][r][slot]
            tx = x + 16 + slot * (TILE_W + 12)
            ident = f"tile-{region}-{slot}"
            if tile < 0:
                with svg.group(
                    id=ident, cls="permit-slot empty", data_region=region, data_slot=slot
                ):
                    _taken(svg, tx, ty, TILE_W, TILE_H, "empty")
                continue
            cities = " ".join(board.CITY_LETTERS[c] for c in board.PERMIT_TILES[tile].cities)
            with svg.group(
                id=ident,
                cls="permit-slot face-up",
                data_region=region,
                data_slot=slot,
                data_tile=tile,
                data_cities=cities,
            ):
                _permit(svg, tile, self.colours, tx, ty)
        dx = x + 16 + 2 * (TILE_W + 12)
        deck_n = raw["deck_n"][r]
        with svg.group(id=f"deck-{region}", cls="permit-deck", data_size=deck_n):
            svg.title(f"{region} permit deck: {deck_n} tiles face down")
            if deck_n:
                for k in (2, 1, 0):
                    if deck_n > k:
                        svg.rect(
                            dx + 3 * k,
                            ty + 3 * k,
                            70,
                            TILE_H - 6,
                            rx=8,
                            fill="#B9965A",
                            stroke="#6B4F1F",
                            stroke_width=1.5,
                        )
                svg.text(
                    dx + 35,
                    ty + 42,
                    str(deck_n),
                    size=22,
                    text_anchor="middle",
                    font_weight="bold",
                    fill="#FFFFFF",
                )
                svg.text(dx + 35, ty + 62, "deck", size=12, text_anchor="middle", fill="#FFFFFF")
            else:
                _taken(svg, dx, ty, 70, TILE_H - 6, "no deck")

    # The king's board: his council, the pool, the reward tiles, nobility, the deck.
    def king_board(self, svg: _Svg, y: float) -> None:
        raw = self.raw
        x = MARGIN
        w = WIDTH - 2 * MARGIN
        with svg.group(id="king-board"):
            svg.rect(x, y, w, KING_PANEL_H, rx=10, fill="#E9E1F1", stroke="#7B4EA3", stroke_width=2)
            svg.text(
                x + 16,
                y + 26,
                "KING'S BOARD",
                size=17,
                font_weight="bold",
                letter_spacing=2,
                fill="#5B3A80",
            )
            row = y + 62
            svg.text(x + 16, row + 5, "king's council", size=13, font_weight="bold")
            _balcony(svg, "king", raw["balcony"][3], x + 122, row)
            # The councillors beside the board.
            px = x + 300
            svg.text(px, row + 5, "pool", size=13, font_weight="bold")
            with svg.group(id="pool", cls="pool"):
                for colour, name in enumerate(board.COUNCILLOR_COLOURS):
                    k = raw["pool"][colour]
                    cx = px + 52 + colour * 46
                    with svg.group(
                        cls="pool-colour", data_colour=name, data_count=k, opacity=1 if k else 0.3
                    ):
                        svg.title(f"{k} {name} councillor(s) waiting")
                        svg.el(
                            "circle",
                            cx=cx,
                            cy=row,
                            r=12,
                            fill=CARD_FILL[name],
                            stroke="#1A1A1A",
                            stroke_width=1.5,
                        )
                        svg.text(cx + 15, row + 5, f"{k}", size=13, font_weight="bold")
            # King reward tiles: the first ones are taken first.
            kx = px + 340
            svg.text(kx, row + 5, "king tiles", size=13, font_weight="bold")
            for i, vp in enumerate(board.KING_REWARD_TILES):
                tx = kx + 72 + i * 46
                if i >= raw["king_tiles_taken"]:
                    _bonus_tile(
                        svg,
                        f"king-tile-{i}",
                        "#7B4EA3",
                        vp,
                        "king",
                        tx,
                        row - 20,
                        w=40,
                        h=40,
                        dark=True,
                    )
                else:
                    _taken(svg, tx, row - 20, 40, 40, "taken")
            # Colour bonus tiles.
            cx0 = kx + 72 + 5 * 46 + 24
            svg.text(cx0, row + 5, "colour tiles", size=13, font_weight="bold")
            for i, tint in enumerate(board.CITY_COLOURS):
                b = 3 + i
                tx = cx0 + 86 + i * 54
                if raw["bonus_tiles_left"] >> b & 1:
                    _bonus_tile(
                        svg,
                        f"bonus-{tint}",
                        CITY_FILL[tint],
                        board.BONUS_TILE_VP[b],
                        tint,
                        tx,
                        row - 20,
                        w=48,
                        h=40,
                        dark=tint == "iron",
                    )
                else:
                    _taken(svg, tx, row - 20, 48, 40, "taken")
            self.nobility(svg, x + 16, y + 104)
            self.politics(svg, x + w - 250, y + 104)
            self.legend(svg, x + 16, y + KING_PANEL_H - 16)

    def nobility(self, svg: _Svg, x: float, y: float) -> None:
        raw = self.raw
        svg.text(x, y - 4, "nobility track", size=13, font_weight="bold")
        with svg.group(id="nobility-track"):
            for space in range(board.NOBILITY_MAX + 1):
                sx = x + space * 46
                bonus = board.NOBILITY_SPACES.get(space)
                with svg.group(id=f"nobility-{space}", cls="nobility-space", data_space=space):
                    fill = "#F4E4B0" if bonus else "#FBF8F0"
                    svg.rect(sx, y, 44, 70, rx=4, fill=fill, stroke="#8A7A55", stroke_width=1)
                    svg.text(
                        sx + 22, y + 13, str(space), size=11, text_anchor="middle", fill="#6B5A30"
                    )
                    if bonus and "choice" in bonus:
                        svg.title(f"space {space}: {bonus['choice'].replace('_', ' ')}")
                        words = {
                            "city_token": ("1 city", "token"),
                            "two_city_tokens": ("2 city", "tokens"),
                            "free_permit": ("free", "permit"),
                            "permit_bonus": ("permit", "bonus"),
                        }[bonus["choice"]]
                        for k, word in enumerate(words):
                            svg.text(
                                sx + 22,
                                y + 28 + 10 * k,
                                word,
                                size=9,
                                text_anchor="middle",
                                font_weight="bold",
                            )
                    elif bonus:
                        svg.title(f"space {space}: {_bonus_text(bonus)}")
                        _icons(svg, bonus, sx + 22, y + 31, size=17)
                    on = [p for p in range(self.n) if raw["nobility"][p] == space]
                    for k, p in enumerate(on):
                        _seat_mark(svg, p, sx + 7 + k * 10, y + 58, 9)

    def politics(self, svg: _Svg, x: float, y: float) -> None:
        raw = self.raw
        svg.text(x, y - 4, "politics cards", size=13, font_weight="bold")
        with svg.group(id="politics-deck", data_size=raw["politics_deck_n"]):
            svg.title(f"politics deck: {raw['politics_deck_n']} cards")
            _card_back(svg, x, y + 4, 34)
            svg.text(
                x + 17,
                y + 68,
                f"{raw['politics_deck_n']}",
                size=13,
                text_anchor="middle",
                font_weight="bold",
            )
        with svg.group(id="discard", data_size=sum(raw["discard"])):
            svg.text(x + 48, y + 14, f"discard ({sum(raw['discard'])})", size=11)
            k = 0
            for kind, count in zip(board.CARD_KINDS, raw["discard"], strict=True):
                if count:
                    _card(svg, kind, count, x + 48 + k * 27, y + 22, 24)
                    k += 1

    def legend(self, svg: _Svg, x: float, y: float) -> None:
        with svg.group(id="legend"):
            cx = x
            for key in ("VP", "coins", "assistants", "politics", "nobility", "main_action"):
                _icon(svg, key, cx + 8, y - 4, None, 16)
                svg.text(cx + 20, y, BONUS_NAMES[key], size=11)
                cx += 34 + 6.4 * len(BONUS_NAMES[key])
            cx += 16
            for p in range(self.n):
                _seat_mark(svg, p, cx + 6, y - 4, 12)
                svg.text(cx + 16, y, f"seat {p}", size=11)
                cx += 62
            _shape(svg, "hexagon", cx + 6, y - 4, 12, NEUTRAL_COLOUR)
            svg.text(cx + 16, y, "neutral", size=11)
            cx += 70
            _crown(svg, cx + 8, y - 4, 16)
            svg.text(cx + 20, y, "king", size=11)

    # One panel per seat.
    def players(self, svg: _Svg, y: float) -> float:
        gap = GAP
        w = (WIDTH - 2 * MARGIN - gap * (self.n - 1)) / self.n
        per_row = int((w - 24) // 64)
        rows = [self._permit_rows(p, per_row) for p in range(self.n)]
        chips = _chips_per_row(w)
        won_rows = [max(1, -(-len(self._won(p)) // chips)) for p in range(self.n)]
        h = 192 + 26 * max(won_rows) + 56 * max(1, max(rows))
        for p in range(self.n):
            self.player(svg, p, MARGIN + p * (w + gap), y, w, h, per_row)
        return h

    def _permit_rows(self, p: int, per_row: int) -> int:
        n = len(_bits(self.raw["permits_up"][p] | self.raw["permits_down"][p], 45))
        return -(-n // per_row)

    def player(
        self, svg: _Svg, p: int, x: float, y: float, w: float, h: float, per_row: int
    ) -> None:
        raw, state = self.raw, self.state
        to_act = not raw["game_over"] and raw["current"] == p
        winner = raw["game_over"] and p in state.winners()
        with svg.group(
            id=f"player-{p}",
            cls="player" + (" to-act" if to_act else ""),
            data_seat=p,
            data_shape=PLAYER_SHAPES[p],
        ):
            svg.rect(
                x,
                y,
                w,
                h,
                rx=10,
                fill="#FCFBF7",
                stroke=PLAYER_COLOURS[p],
                stroke_width=5 if to_act else 2.5,
            )
            tags = []
            if p == self.viewer:
                tags.append("you (this view)")
            if to_act:
                tags.append("▶ to act")
            if winner:
                tags.append("winner")
            if raw["end_trigger"] == p:
                tags.append("built 10")
            # The seat's header strip, a piece of its own: a page plays the turn's moves
            # about no other piece (end the turn, engage, extra main action) on it.
            with svg.group(id=f"seat-{p}", cls="seat-head", data_seat=p):
                svg.title(f"Seat {p}" + "".join(f", {tag}" for tag in tags))
                svg.rect(x + 6, y + 4, w - 12, 36, rx=6, fill="#FFFFFF", fill_opacity=0)
                _seat_mark(svg, p, x + 22, y + 22, 20)
                svg.text(x + 40, y + 28, f"Seat {p}", size=17, font_weight="bold")
                svg.text(
                    x + w - 12,
                    y + 27,
                    " · ".join(tags),
                    size=13,
                    text_anchor="end",
                    font_weight="bold",
                    fill=PLAYER_COLOURS[p],
                )
            # VP, coins, assistants, nobility, emporiums built.
            sy = y + 58
            stats: list[tuple[Callable[[float], None], str, str]] = [
                (
                    lambda cx: _icon(svg, "VP", cx, sy, None, 22),
                    str(self.scores[p]),
                    f"VP {self.scores[p]}"
                    + (
                        "" if self.scores[p] == raw["vp"][p] else f" (track {raw['vp'][p]} + tiles)"
                    ),
                ),
                (lambda cx: _icon(svg, "coins", cx, sy, None, 22), str(raw["coins"][p]), "coins"),
                (
                    lambda cx: _icon(svg, "assistants", cx, sy, None, 22),
                    str(raw["assistants"][p]),
                    "assistants",
                ),
                (
                    lambda cx: _icon(svg, "nobility", cx, sy, None, 22),
                    str(raw["nobility"][p]),
                    "nobility",
                ),
                (
                    lambda cx: _seat_mark(svg, p, cx, sy, 18),
                    f"{raw['emporia_n'][p]}/10",
                    "emporiums built",
                ),
            ]
            cx = x + 22
            step = (w - 30) / len(stats)
            for i, (draw, value, what) in enumerate(stats):
                key = ("vp", "coins", "assistants", "nobility", "emporiums")[i]
                with svg.group(cls=f"stat {key}", data_value=value.split("/")[0]):
                    svg.title(what)
                    draw(cx)
                    svg.text(cx + 16, sy + 6, value, size=16, font_weight="bold")
                cx += step
            if self.scores[p] != raw["vp"][p]:
                svg.text(
                    x + 22,
                    sy + 28,
                    f"track {raw['vp'][p]} + bonus/king tiles",
                    size=10,
                    fill="#555555",
                )
            self.hand(svg, p, x + 14, y + 96, w)
            self.owned(svg, p, x + 14, y + 150, w, per_row)

    def hand(self, svg: _Svg, p: int, x: float, y: float, w: float) -> None:
        raw = self.raw
        size = raw["hand_n"][p]
        hidden = self.viewer >= 0 and p != self.viewer
        svg.text(x, y + 6, f"hand ({size})", size=12, font_weight="bold")
        with svg.group(id=f"hand-{p}", cls="hand hidden" if hidden else "hand", data_size=size):
            if hidden:
                for k in range(min(size, 8)):
                    _card_back(svg, x + 70 + k * 10, y - 8, 26)
                svg.text(
                    x + 70 + min(size, 8) * 10 + 34,
                    y + 16,
                    f"{size} cards, hidden",
                    size=12,
                    fill="#555555",
                )
                return
            k = 0
            for kind, count in zip(board.CARD_KINDS, raw["hand"][p], strict=True):
                if count:
                    _card(svg, kind, count, x + 70 + k * 31, y - 8, 28)
                    k += 1
            if not k:
                svg.text(x + 70, y + 6, "no cards", size=12, fill="#555555")

    def _won(self, p: int) -> list[tuple[str, str, int, bool]]:
        """Bonus and king tiles seat `p` won: (name, fill, VP, dark ink)."""
        raw = self.raw
        won = []
        for i in _bits(raw["bonus_tiles"][p], _N_BONUS_TILES):
            name = board.BONUS_TILE_NAMES[i]
            if i < 3:
                won.append((name, REGION_EDGE[name], board.BONUS_TILE_VP[i], True))
            else:
                won.append((name, CITY_FILL[name], board.BONUS_TILE_VP[i], name == "iron"))
        for i in _bits(raw["king_tiles"][p], _N_KING_TILES):
            won.append(("king", KING_CITY_FILL, board.KING_REWARD_TILES[i], True))
        return won

    def owned(self, svg: _Svg, p: int, x: float, y: float, w: float, per_row: int) -> None:
        raw = self.raw
        won = self._won(p)
        chips = _chips_per_row(w)
        with svg.group(id=f"tiles-won-{p}", cls="tiles-won", data_count=len(won)):
            svg.text(x, y + 4, "tiles won", size=12, font_weight="bold")
            if not won:
                svg.text(x + 70, y + 4, "none yet", size=12, fill="#555555")
            for k, (name, fill, vp, dark) in enumerate(won):
                cx = x + 70 + (k % chips) * 38
                cy = y - 12 + (k // chips) * 26
                with svg.group(cls="won-tile", data_tile=name, data_vp=vp):
                    svg.title(f"{name} tile: {vp} VP")
                    svg.rect(cx, cy, 34, 22, rx=4, fill=fill, stroke="#1A1A1A", stroke_width=1)
                    svg.text(
                        cx + 17,
                        cy + 16,
                        str(vp),
                        size=13,
                        text_anchor="middle",
                        font_weight="bold",
                        fill="#FFFFFF" if dark else INK,
                    )
        y += 26 * max(1, -(-len(won) // chips)) + 10
        up = _bits(raw["permits_up"][p], 45)
        down = _bits(raw["permits_down"][p], 45)
        svg.text(x, y, f"permits: {len(up)} face up, {len(down)} used", size=12, font_weight="bold")
        for k, tile in enumerate(up + down):
            used = tile in down
            tx = x + (k % per_row) * 64
            ty = y + 8 + (k // per_row) * 56
            with svg.group(
                id=f"permit-{tile}",
                cls="permit owned" + (" used" if used else ""),
                data_tile=tile,
                data_seat=p,
                opacity=0.45 if used else None,
            ):
                _permit(svg, tile, self.colours, tx, ty, scale=0.52)
                if used:
                    svg.text(
                        tx + 30,
                        ty + 30,
                        "used",
                        size=12,
                        text_anchor="middle",
                        font_weight="bold",
                        fill="#000000",
                    )


def _chips_per_row(w: float) -> int:
    return max(1, int((w - 100) // 38))


def decision_words(state, raw: dict) -> str:
    """The decision to take now in a player's words (the board's header): never a rule's
    internal name such as ``pay_permit``.

    >>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
    >>> state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3)
    >>> decision_words(state, state.to_raw())
    'a main action to take'
    """
    kind, arg = state.decision()
    if kind == "turn":
        if raw["main_left"] > 0 and raw["main_done"] == 0:
            return "a main action to take"
        left = raw["main_left"]
        more = f", {left} more main action{'s' if left > 1 else ''}" if left > 0 else ""
        quick = "quick action used" if raw["quick_used"] else "a quick action left"
        return f"may end the turn{more}, {quick}"
    if kind == "pay_permit":
        region, slot = divmod(arg, 2)
        tile = raw["face_up"][region][slot]
        return f"pay the {board.REGIONS[region]} council for permit tile {tile}"
    if kind == "pay_king":
        return f"pay the king's council, the king to {board.CITY_NAMES[arg]}"
    if kind == "second_of_two_city_tokens":
        return f"the second of two city token bonuses (the first: {board.CITY_NAMES[arg]})"
    return DECISION_WORDS.get(kind, kind.replace("_", " "))


# The other pending decisions, in words.
DECISION_WORDS = {
    "city_token": "choose a city token bonus",
    "first_of_two_city_tokens": "choose two city token bonuses",
    "free_permit": "take a face-up permit tile for free",
    "permit_bonus": "choose a permit tile whose bonus you gain again",
}


def render_svg(state) -> str:
    """The SVG text of `state` (a full state, one seat's view, or a finished game)."""
    b = _Board(state)
    body = _Svg()
    b.header(body)
    b.regions(body)
    king_y = 48 + PANEL_H + GAP
    b.king_board(body, king_y)
    players_y = king_y + KING_PANEL_H + GAP
    players_h = b.players(body, players_y)
    height = players_y + players_h + MARGIN
    defs = (
        '<defs><linearGradient id="council-joker" x1="0" y1="0" x2="1" y2="0">'
        + "".join(
            f'<stop offset="{i / 5:.1f}" stop-color="{CARD_FILL[c]}"/>'
            for i, c in enumerate(("orange", "pink", "purple", "cyan", "white", "black"))
        )
        + "</linearGradient></defs>"
    )
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{_f(height)}" '
        f'viewBox="0 0 {WIDTH} {_f(height)}" font-family={quoteattr(FONT)} '
        f'data-layout="{b.layout.code}" data-players="{b.n}" data-viewer="{b.viewer}">'
    )
    title = f"<title>Council of Four, {b.n} players, layout {b.layout.code}</title>"
    background = f'<rect width="{WIDTH}" height="{_f(height)}" fill="#FFFFFF"/>'
    return "\n".join([head, title, defs, background, *body.parts, "</svg>"]) + "\n"
