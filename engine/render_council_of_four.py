"""A readable multi-line summary of a game state (``str(state)``).

Works for full states, for one seat's view (hidden hands are shown as ``?`` with their
size) and for finished games. Every number comes from ``state.to_raw()`` and the
public ``CouncilOfFourState`` methods; names come from ``council.engine.council_of_four_board``.

>>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
>>> text = render_state(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=3))
>>> text.splitlines()[0]
'Council of Four: 2 players, layout ABA, turn 1, 0 actions played'
>>> "To act: seat 0 (turn: main action owed)" in text
True
"""

from __future__ import annotations

from council.engine import council_of_four_board as board

__all__ = ["render_state"]

_N_CARD_KINDS = len(board.CARD_KINDS)
_N_BONUS_TILES = len(board.BONUS_TILE_NAMES)
_N_KING_TILES = len(board.KING_REWARD_TILES)


def _bits(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if (mask >> i) & 1]


def _cards(counts) -> str:
    parts = []
    for k, n in enumerate(counts):
        if n == 1:
            parts.append(board.CARD_KINDS[k])
        elif n > 1:
            parts.append(f"{board.CARD_KINDS[k]} x{n}")
    return ", ".join(parts) or "-"


def _bonus(bonus: dict[str, int]) -> str:
    return " ".join(f"{k}+{v}" for k, v in bonus.items() if v) or "-"


def _tile(tile: int) -> str:
    t = board.PERMIT_TILES[tile]
    return f"{tile} {'/'.join(board.CITY_LETTERS[c] for c in t.cities)} {_bonus(t.bonus)}"


def _tiles(mask: int) -> str:
    return "; ".join(_tile(t) for t in _bits(mask, len(board.PERMIT_TILES))) or "-"


def _decision(state, raw: dict) -> str:
    kind, arg = state.decision()
    if kind == "turn":
        if raw["main_left"] > 0 and raw["main_done"] == 0:
            return "turn: main action owed"
        extra = f", {raw['main_left']} main action(s) left" if raw["main_left"] > 0 else ""
        quick = "used" if raw["quick_used"] else "available"
        return f"turn: may end{extra}, quick action {quick}"
    if kind == "pay_permit":
        region, slot = divmod(arg, 2)
        tile = raw["face_up"][region][slot]
        return f"pay_permit: the {board.REGIONS[region]} council for permit {tile}, slot {slot}"
    if kind == "pay_king":
        return f"pay_king: the king's council, king to {board.CITY_NAMES[arg]}"
    if kind == "second_of_two_city_tokens":
        return f"{kind}: first was {board.CITY_NAMES[arg]}"
    return kind


def render_state(state) -> str:
    """A multi-line board summary of `state` (full state, view, or finished game)."""
    raw = state.to_raw()
    n = raw["n_players"]
    layout = board.LAYOUT_CODES[raw["layout"]]
    viewer = raw["viewer"]
    scores = state.scores()
    lines = [
        f"Council of Four: {n} players, layout {layout}, turn {raw['turn']}, "
        f"{raw['action_count']} actions played"
    ]
    if viewer >= 0:
        lines.append(f"View of seat {viewer} (other hands hidden)")
    if raw["game_over"]:
        winners = ", ".join(str(p) for p in state.winners())
        lines.append(
            f"Game over. Final VP: {' '.join(map(str, scores))}; winner(s): seat {winners}"
        )
    else:
        lines.append(f"To act: seat {raw['current']} ({_decision(state, raw)})")
    if raw["end_trigger"] >= 0:
        lines.append(f"Final round: seat {raw['end_trigger']} built a 10th emporium")

    lines.append("Players:")
    for p in range(n):
        mark = "*" if not raw["game_over"] and p == raw["current"] else " "
        vp = f"VP {scores[p]}"
        if not raw["game_over"] and scores[p] != raw["vp"][p]:
            vp += f" (track {raw['vp'][p]} + tiles)"
        lines.append(
            f" {mark}seat {p}: coins {raw['coins'][p]}, assistants {raw['assistants'][p]}, "
            f"{vp}, nobility {raw['nobility'][p]}"
        )
        hand_n = raw["hand_n"][p]
        if viewer >= 0 and p != viewer:
            hand = f"? ({hand_n} cards)"
        else:
            hand = f"{_cards(raw['hand'][p])} ({hand_n} cards)"
        lines.append(f"      hand: {hand}")
        cities = _bits(raw["emporia"][p], board.N_CITIES)
        letters = " ".join(board.CITY_LETTERS[c] for c in cities) or "-"
        lines.append(f"      emporiums ({raw['emporia_n'][p]}/10): {letters}")
        lines.append(f"      permits up: {_tiles(raw['permits_up'][p])}")
        lines.append(f"      permits used: {_tiles(raw['permits_down'][p])}")
        bonus = _bits(raw["bonus_tiles"][p], _N_BONUS_TILES)
        king = _bits(raw["king_tiles"][p], _N_KING_TILES)
        if bonus or king:
            names = " ".join(board.BONUS_TILE_NAMES[i] for i in bonus) or "-"
            kings = " ".join(str(board.KING_REWARD_TILES[i]) for i in king) or "-"
            lines.append(f"      bonus tiles: {names}; king tiles: {kings}")
    if raw["neutral"]:
        cities = _bits(raw["neutral"], board.N_CITIES)
        lines.append("Neutral emporiums: " + " ".join(board.CITY_LETTERS[c] for c in cities))

    lines.append("Councils (slot 0 newest first):")
    balconies = board.REGIONS + ("king",)
    for b, name in enumerate(balconies):
        members = " ".join(board.COUNCILLOR_COLOURS[c] for c in raw["balcony"][b])
        lines.append(f"  {name + ':':10} {members}")
    pool = ", ".join(
        f"{board.COUNCILLOR_COLOURS[c]} {k}" for c, k in enumerate(raw["pool"][:6]) if k
    )
    lines.append(f"Pool: {pool or '-'}")
    king = raw["king_city"]
    lines.append(f"King: {board.CITY_NAMES[king]} ({board.CITY_LETTERS[king]})")

    lines.append("Permit tiles (face up; deck):")
    for r, region in enumerate(board.REGIONS):
        up = [t for t in raw["face_up"][r] if t >= 0]
        shown = "; ".join(_tile(t) for t in up) or "-"
        deck_n, known = raw["deck_n"][r], raw["deck_known"][r]
        deck = f"deck {deck_n}"
        if known:
            under = raw["permit_deck"][r][deck_n - known : deck_n]
            deck += f", known at the bottom: {' '.join(map(str, under))}"
        lines.append(f"  {region + ':':10} {shown} | {deck}")

    tokens = []
    for c in range(board.N_CITIES):
        t = raw["city_token"][c]
        if t >= 0:
            tokens.append(f"{board.CITY_LETTERS[c]} {_bonus(board.CITY_TOKENS[t])}")
    lines.append("Tokens: " + ", ".join(tokens))

    left = _bits(raw["bonus_tiles_left"], _N_BONUS_TILES)
    lines.append(
        "Bonus tiles left: "
        + (", ".join(f"{board.BONUS_TILE_NAMES[i]} {board.BONUS_TILE_VP[i]}" for i in left) or "-")
    )
    taken = raw["king_tiles_taken"]
    rest = " ".join(map(str, board.KING_REWARD_TILES[taken:])) or "-"
    lines.append(f"King tiles taken: {taken} (left: {rest})")
    deck = f"Politics deck: {raw['politics_deck_n']} cards"
    if viewer < 0:
        deck += f" ({_cards(raw['politics_deck'][:_N_CARD_KINDS])})"
    lines.append(f"{deck}; discard: {_cards(raw['discard'])}")
    return "\n".join(lines)
