"""A readable multi-line summary of a position of The Council (``str(state)``).

Works for full states, for one seat's view (cards the seat cannot place are counted, not
named; secret choices of other seats are not shown) and for finished games. Everything
comes from ``state.to_raw()``; card and suit names from the core's tables.

>>> from council.engine.the_council import TheCouncilState
>>> text = render_the_council(TheCouncilState.new_game(players=3, seed=4))
>>> print(text.splitlines()[0])
The Council: 3 seats, hand 1 (dealer seat 0), draft round 1 of 5, seat 0 to act
>>> print(text.splitlines()[1])
empire: Moons 6, Suns 6, Waves 6, Leaves 6, Wyrms 6, Knots 6
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from council.engine._the_council import (
    CARD_NAMES,
    DRAFT_ROUNDS,
    EVENTS_PER_HAND,
    LOCATIONS,
    NO_CARD,
    PHASES,
    RANK_ORDER,
    SUITS,
    TheCouncilState,
)

__all__ = ["render_the_council", "render_the_council_svg"]


def _suits(counts: list[int], skip_zero: bool = False) -> str:
    parts = [f"{s} {n}" for s, n in zip(SUITS, counts, strict=True) if n or not skip_zero]
    return ", ".join(parts) if parts else "none"


def _names(cards: list[int]) -> str:
    return ", ".join(CARD_NAMES[c] for c in cards) if cards else "none"


def render_the_council(state: TheCouncilState) -> str:
    raw = state.to_raw()
    n = raw["n_players"]
    loc = raw["card_loc"]
    phase = PHASES[raw["phase"]]
    where = LOCATIONS
    head = f"The Council: {n} seats, hand {raw['hand']} (dealer seat {raw['dealer']}), "
    if phase == "draft":
        head += f"draft round {raw['draft_round'] + 1} of {DRAFT_ROUNDS}, "
    elif phase != "over":
        head += f"event {raw['events_done'] + 1} of {EVENTS_PER_HAND} ({phase}), "
    head += "game over" if phase == "over" else f"seat {raw['current']} to act"
    if raw["viewer"] >= 0:
        head += f"; the view of seat {raw['viewer']}"
    lines = [head, "empire: " + _suits(raw["empire"])]
    if raw["event"] >= 0:
        lines.append(
            f"event: {CARD_NAMES[raw['event']]}; bidding started with seat {raw['starter']}"
        )
    for p in range(n):
        drafted = [c for c in range(len(loc)) if loc[c] == where["drafted"] + p]
        chosen = [c for c in drafted if raw["card_pending"][c]]
        line = (
            f"seat {p}: ranks {_suits(raw['ranks'][p], True)}; chips "
            f"{_suits(raw['chips'][p], True)}; traitors {raw['traitors'][p]}"
        )
        if any(raw["bid"][p]):
            line += f"; bid {_suits(raw['bid'][p], True)}"
        line += f"; drafted {_names(drafted)}"
        if chosen:
            line += f" (to reveal: {_names(chosen)})"
        if raw["low_card"][p] != NO_CARD:
            line += f"; lowest revealed last event: {RANK_ORDER[raw['low_card'][p]]}"
        if phase == "over":
            line += f"; score {raw['score'][p]}"
        lines.append(line)
    if phase == "draft":
        for k in range(n):
            cards = [c for c in range(len(loc)) if loc[c] == where["pack"] + k]
            holder = (k + raw["draft_round"]) % n
            hidden = raw["pack_n"][k] - len(cards)
            known = _names(cards) if cards else "no card known"
            lines.append(
                f"pack {k} (seat {holder}): {known}" + (f" and {hidden} unseen" if hidden else "")
            )
    spent = [c for c in range(len(loc)) if loc[c] == where["spent"]]
    if spent:
        lines.append(f"spent this hand: {_names(spent)}")
    unknown = loc.count(where["unknown"])
    lines.append(
        f"deck: {raw['deck_n']} cards"
        + (f"; {unknown} cards this seat cannot place" if unknown else "")
    )
    if phase == "over":
        winners = state.winners()
        lines.append("winners: " + ", ".join(f"seat {p}" for p in winners))
    return "\n".join(lines)


# The SVG of the summary: one line of monospace text a line (what RenderPosition answers).
_LINE_HEIGHT = 18
_CHAR_WIDTH = 8
_MARGIN = 12


def render_the_council_svg(state: TheCouncilState) -> str:
    """The summary of ``render_the_council`` as an SVG document, one ``<text>`` a line.

    >>> svg = render_the_council_svg(TheCouncilState.new_game(players=3, seed=4))
    >>> svg.startswith("<svg") and "empire: Moons 6" in svg
    True
    """
    lines = render_the_council(state).splitlines()
    width = 2 * _MARGIN + _CHAR_WIDTH * max(len(line) for line in lines)
    height = 2 * _MARGIN + _LINE_HEIGHT * len(lines)
    texts = [
        f'<text id="line-{i}" x="{_MARGIN}" y="{_MARGIN + _LINE_HEIGHT * (i + 1) - 4}">'
        f"{escape(line)}</text>"
        for i, line in enumerate(lines)
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="13">'
        f'<rect width="{width}" height="{height}" fill="#fdfaf2"/>' + "".join(texts) + "</svg>\n"
    )
