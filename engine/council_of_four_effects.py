"""Council of Four's effects of an action (``Game.effects``; ``council.engine.effects``).

The numbers come from the two positions themselves (each seat's VP, coins, assistants,
nobility, emporiums, permit tiles, politics cards, bonus and king reward tiles, before and
after); the lines say where they came from, in the rules' words: the city tokens a build
collected through the linked cities (RULINGS 11), each move on the nobility track and the
bonus of the space where it stops (RULINGS 13, 20), the region and colour bonus tiles with
the king's reward tile (RULINGS 10), the final scoring's awards (RULINGS 17). Other seats'
politics cards are counted, never named: the positions compared are `seat`'s views.

>>> from council.engine import GameConfig, State
>>> state = State.new_game(GameConfig(players=2), seed=1)
>>> after = state.child(1)  # elect white coast
>>> e = effects(state, after, 1, seat=1)
>>> [(s.seat, s.coins) for s in e.seats], e.lines[0].text
([(0, 4)], 'elects a white councillor into the coast council (white leaves): +4 coins')
"""

from __future__ import annotations

from typing import Any

from council.engine import board
from council.engine.actions import BALCONY_NAMES, PAYMENTS, Action, ActionKind
from council.engine.effects import EffectsBuilder, amounts, names, raw_pair, signed, with_article
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

K = ActionKind
_RULES = board.RULE_NUMBERS
# What a nobility space's choice asks for (board.NOBILITY_SPACES' "choice").
_CHOICES = {
    "city_token": "take the bonus of one city token of a city of yours",
    "two_city_tokens": "take the bonuses of two different city tokens of cities of yours",
    "free_permit": "take a face-up permit tile for free",
    "permit_bonus": "gain again the bonus of a permit tile of yours",
}


def _tile(tile: int) -> str:
    cities = "/".join(board.CITY_NAMES[c] for c in board.PERMIT_TILES[tile].cities)
    return f"permit tile {tile} ({cities})"


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _permits(raw: dict, p: int) -> int:
    return bin(raw["permits_up"][p] | raw["permits_down"][p]).count("1")


def _payment_coins(payment: int) -> int:
    counts = PAYMENTS[payment]
    return (
        _RULES["council_cost_by_cards"][sum(counts)]
        + _RULES["council_cost_per_joker"] * (counts[-1])
    )


def _cards(payment: int) -> str:
    return "+".join(
        kind for kind, n in zip(board.CARD_KINDS, PAYMENTS[payment], strict=True) for _ in range(n)
    )


class _Explainer:
    """The lines of the mover's action, with the nobility moves it makes (to check the
    explanation against the positions' numbers)."""

    def __init__(self, out: EffectsBuilder, b: dict, a: dict, p: int):
        self.out, self.b, self.a, self.p = out, b, a, p
        self.nobility = b["nobility"][p]
        self.layout = board.Layout.from_index(b["layout"])

    def line(self, text: str) -> None:
        self.out.line(text, self.p)

    def gain(self, what: str, bonus: dict[str, int]) -> None:
        """A bonus gained (a token's, a tile's), then the nobility move it makes."""
        self.line(f"{what}: {amounts(bonus)}")
        self.nobility_move(bonus.get("nobility", 0))

    def nobility_move(self, steps: int) -> None:
        """One move on the nobility track and the bonus of where it stops (or, with the
        variant, of every space it passes: RULINGS 13)."""
        new = min(self.nobility + steps, board.NOBILITY_MAX)
        if steps <= 0 or new == self.nobility:
            return
        spaces = range(self.nobility + 1, new + 1) if self.b["nobility_on_pass"] else [new]
        self.nobility = new
        for space in spaces:
            bonus = board.NOBILITY_SPACES.get(space)
            where = f"nobility track: moves to space {space}"
            if bonus is None:
                self.line(where)
            elif "choice" in bonus:
                self.line(f"{where}: {_CHOICES[bonus['choice']]}")
            else:
                self.line(f"{where}: {amounts(bonus)}")

    def build(self, city: int) -> list[str]:
        """A new emporium in `city`: its cost, the 10th emporium's VP, the linked cities'
        tokens, the bonus and king reward tiles. The names of the token cities."""
        b, a, p = self.b, self.a, self.p
        others = ((b["neutral"] >> city) & 1) + sum(
            (b["emporia"][q] >> city) & 1 for q in range(b["n_players"]) if q != p
        )
        cost = f" (pays {others} assistant{'s' if others > 1 else ''})" if others else ""
        self.line(f"builds an emporium in {board.CITY_NAMES[city]}{cost}")
        if a["end_trigger"] == p and b["end_trigger"] < 0:
            vp = _RULES["tenth_emporium_vp"]
            self.line(f"first to build all 10 emporiums: +{vp} VP; the others play one last turn")
        linked = self._linked(city, a["emporia"][p])
        tokens = [c for c in linked if b["city_token"][c] >= 0]
        total: dict[str, int] = {}
        for c in tokens:
            for key, n in board.CITY_TOKENS[b["city_token"][c]].items():
                total[key] = total.get(key, 0) + n
        if tokens:
            word = "City tokens of" if len(tokens) > 1 else "City token of"
            self.line(f"{word} {names(board.CITY_NAMES[c] for c in tokens)}: {amounts(total)}")
        for c in tokens:  # each token with nobility icons is a move of its own (RULINGS 20)
            self.nobility_move(board.CITY_TOKENS[b["city_token"][c]].get("nobility", 0))
        won = a["bonus_tiles"][p] & ~b["bonus_tiles"][p]
        kings = _bits(a["king_tiles"][p] & ~b["king_tiles"][p])
        for i, tile in enumerate(_bits(won)):
            name = board.BONUS_TILE_NAMES[tile]
            what = "Region bonus" if tile < len(board.REGIONS) else "Colour bonus"
            where = name if tile < len(board.REGIONS) else f"{name} cities"
            self.line(f"{what}: {where}, +{board.BONUS_TILE_VP[tile]} VP")
            if i < len(kings):
                self.line(f"King's reward tile: +{board.KING_REWARD_TILES[kings[i]]} VP")
        return [board.CITY_NAMES[c] for c in tokens]

    def _linked(self, city: int, own: int) -> list[int]:
        """`city` and the cities linked to it through roads whose cities all hold the
        builder's emporiums, in the core's order (breadth first, by index in each ring)."""
        order, visited, frontier = [], {city}, [city]
        while frontier:
            order += frontier
            ring = {n for c in frontier for n in self.layout.neighbours(c) if own >> n & 1}
            frontier = sorted(ring - visited)
            visited |= ring
        return order


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: only what does not depend on a hidden draw
    (counts of cards drawn are kept, ``partial`` is set)."""
    b, a = raw_pair(before, after, seat)
    n, p = b["n_players"], b["current"]
    out = EffectsBuilder(n)
    move = Action.from_id(action)
    explain = _Explainer(out, b, a, p)
    played = sum(PAYMENTS[move.payment]) if move.kind is K.PAY and move.payment is not None else 0
    scores_before, scores_after = before.scores(), after.scores()
    drew = False
    for q in range(n):
        e = out.seat(q)
        e.score = scores_after[q] - scores_before[q]
        e.coins = a["coins"][q] - b["coins"][q]
        e.assistants = a["assistants"][q] - b["assistants"][q]
        e.nobility_steps = a["nobility"][q] - b["nobility"][q]
        e.emporiums_built = a["emporia_n"][q] - b["emporia_n"][q]
        e.permit_tiles_gained = _permits(a, q) - _permits(b, q)
        e.politics_cards_played = played if q == p else 0
        e.politics_cards_drawn = a["hand_n"][q] - b["hand_n"][q] + e.politics_cards_played
        drew = drew or e.politics_cards_drawn > 0
        e.bonus_tiles.extend(
            board.BONUS_TILE_NAMES[t] for t in _bits(a["bonus_tiles"][q] & ~b["bonus_tiles"][q])
        )
        e.king_tiles.extend(
            board.KING_REWARD_TILES[t] for t in _bits(a["king_tiles"][q] & ~b["king_tiles"][q])
        )
    if move.kind is not K.END_TURN:
        main = (a["main_left"] + a["main_done"]) - (b["main_left"] + b["main_done"])
        out.seat(p).main_actions = max(main, 0)
    tokens = _explain(explain, move, b, a)
    out.seat(p).city_tokens.extend(tokens)
    if move.kind is K.END_TURN:
        _end_of_turn(out, b, a, scores_after, after)
    for q in range(n):  # the mover's draws are its bonuses' (their lines say so)
        drawn = out.seat(q).politics_cards_drawn
        if drawn > 0 and q != p:
            out.line(f"draws {drawn} politics card{'s' if drawn > 1 else ''}", q)
    new_tiles = [
        t
        for r in range(len(board.REGIONS))
        for t in a["face_up"][r]
        if t >= 0 and t not in b["face_up"][r]
    ]
    message = out.message()
    if known_only:
        message.partial = drew or bool(new_tiles)
    elif new_tiles:
        message.lines.add(text=f"new face-up {names(_tile(t) for t in new_tiles)}")
    return message


def _explain(x: _Explainer, move: Action, b: dict, a: dict) -> list[str]:
    """The lines of the mover's action; the cities whose tokens it collected."""
    k = move.kind
    if k in (K.ELECT, K.QUICK_ELECT):
        assert move.balcony is not None and move.colour is not None
        colour = board.COUNCILLOR_COLOURS[move.colour]
        out = board.COUNCILLOR_COLOURS[b["balcony"][move.balcony][3]]
        gain = signed(a["coins"][x.p] - b["coins"][x.p], "coin") if k is K.ELECT else "-1 assistant"
        x.line(
            f"elects {with_article(colour)} councillor into the "
            f"{BALCONY_NAMES[move.balcony]} council ({out} leaves): {gain}"
        )
    elif k is K.ACQUIRE:
        assert move.region is not None and move.slot is not None
        region = board.REGIONS[move.region]
        tile = b["face_up"][move.region][move.slot]
        x.line(f"chooses {_tile(tile)} of the {region}: the {region} council is paid next")
    elif k is K.BUILD_PERMIT:
        assert move.tile is not None and move.city is not None
        x.line(f"uses {_tile(move.tile)}")
        return x.build(move.city)
    elif k is K.BUILD_KING:
        assert move.city is not None
        x.line(
            f"will move the king to {board.CITY_NAMES[move.city]} and build there: the king's "
            "council is paid next"
        )
    elif k is K.ENGAGE:
        x.line(f"engages an assistant: -{_RULES['engage_assistant_coins']} coins, +1 assistant")
    elif k is K.CHANGE:
        assert move.region is not None
        x.line(f"changes the {board.REGIONS[move.region]} permit tiles: -1 assistant")
    elif k is K.EXTRA_MAIN:
        x.line(f"-{_RULES['extra_main_assistants']} assistants: one more main action")
    elif k is K.PAY:
        assert move.payment is not None
        return _pay(x, move.payment, b)
    elif k is K.CHOOSE_TOKEN:
        assert move.city is not None
        name = board.CITY_NAMES[move.city]
        x.gain(f"City token of {name}", board.CITY_TOKENS[b["city_token"][move.city]])
        return [name]
    elif k is K.CHOOSE_FREE_PERMIT:
        assert move.region is not None and move.slot is not None
        tile = b["face_up"][move.region][move.slot]
        x.gain(f"takes {_tile(tile)} for free", board.PERMIT_TILES[tile].bonus)
    elif k is K.CHOOSE_PERMIT_BONUS:
        assert move.tile is not None
        x.gain(f"gains again the bonus of {_tile(move.tile)}", board.PERMIT_TILES[move.tile].bonus)
    return []


def _pay(x: _Explainer, payment: int, b: dict) -> list[str]:
    """A council paid, then the tile taken or the king moved and the emporium built."""
    kind, arg = b["pending_kind"][0], b["pending_arg"][0]
    coins = _payment_coins(payment)
    paid = f"-{coins} coins" if coins else "no coins"
    cards = _cards(payment)
    if kind == 1:  # the core's P_PAY_PERMIT: arg = region * 2 + slot
        region = board.REGIONS[arg >> 1]
        x.line(f"satisfies the {region} council with {cards}: {paid}")
        tile = b["face_up"][arg >> 1][arg & 1]
        x.gain(f"acquires {_tile(tile)}", board.PERMIT_TILES[tile].bonus)
        return []
    roads = x.layout.distance(b["king_city"], arg)
    travel = _RULES["king_cost_per_road"] * roads
    x.line(f"satisfies the king's council with {cards}: {paid}")
    if roads:
        x.line(
            f"moves the king from {board.CITY_NAMES[b['king_city']]} to "
            f"{board.CITY_NAMES[arg]} ({roads} road{'s' if roads > 1 else ''}): -{travel} coins"
        )
    return x.build(arg)


def _end_of_turn(
    out: EffectsBuilder, b: dict, a: dict, scores_after: list[int], after: Any
) -> None:
    """The end of a turn: the next seat's turn, or the end of the game and its scoring."""
    p = b["current"]
    if not a["game_over"]:
        out.line(f"ends the turn; seat {a['current']} is to move", p)
        return
    out.line("ends the turn: the game is over; final scoring", p)
    awards = _awards(a)
    # Each seat's final score in parts that sum to it: the VP track as play left it, then
    # what final scoring adds to it (RULINGS 17).
    for q in range(b["n_players"]):
        out.line(f"final scoring: VP track, {b['vp'][q]} VP", q)
        for text, vp in _tiles(a, q) + awards[q]:
            out.line(f"final scoring: {text}, +{vp} VP", q)
    winners = ", ".join(f"seat {q}" for q in after.winners())
    final = ", ".join(f"seat {q} {vp} VP" for q, vp in enumerate(scores_after))
    out.line(f"final scores: {final}; won by {winners}")
    tie_break = _tie_break(a, scores_after, after.winners())
    if tie_break:
        out.line(tie_break)


def _tie_break(a: dict, scores: list[int], winners: list[int]) -> str:
    """What decided a tie for the most VP (RULINGS 9: the most assistants and politics cards
    in hand, then a shared win); "" when no seat tied with the winner."""
    top = max(scores)
    tied = [q for q, vp in enumerate(scores) if vp == top]
    if len(tied) < 2:
        return ""
    held = ", ".join(f"seat {q} {a['assistants'][q] + a['hand_n'][q]}" for q in tied)
    seats = " and ".join(f"seat {q}" for q in tied)
    said = f"tie-break: {seats} tied at {top} VP; assistants and politics cards held: {held}"
    if len(winners) == 1:
        return f"{said}: seat {winners[0]} holds the most and wins"
    return f"{said}: still tied, a shared win"


def _tiles(a: dict, q: int) -> list[tuple[str, int]]:
    """The bonus and king's reward tiles `q` holds, with their VP (the core's tiles_vp)."""
    tiles = []
    for tile in _bits(a["bonus_tiles"][q]):
        name = board.BONUS_TILE_NAMES[tile]
        what = (
            f"region bonus tile ({name})"
            if tile < len(board.REGIONS)
            else (f"colour bonus tile ({name} cities)")
        )
        tiles.append((what, board.BONUS_TILE_VP[tile]))
    for tile in _bits(a["king_tiles"][q]):
        tiles.append(("king's reward tile", board.KING_REWARD_TILES[tile]))
    return tiles


def _awards(a: dict) -> list[list[tuple[str, int]]]:
    """Each seat's awards of final scoring (the core's end_awards, in words)."""
    n = a["n_players"]
    awards: list[list[tuple[str, int]]] = [[] for _ in range(n)]
    nobility = a["nobility"][:n]
    best = max(nobility)
    first = [q for q in range(n) if nobility[q] == best]
    for q in first:
        awards[q].append(("nobility track, first", _RULES["nobility_first_vp"]))
    rest = [v for v in nobility if v < best]
    if len(first) == 1 and rest:
        for q in range(n):
            if nobility[q] == max(rest):
                awards[q].append(("nobility track, second", _RULES["nobility_second_vp"]))
    permits = [_permits(a, q) for q in range(n)]
    most = [q for q in range(n) if permits[q] == max(permits)]
    if len(most) == 1 or a["permit_tie_all"]:
        for q in most:
            awards[q].append(("most permit tiles", _RULES["most_permits_vp"]))
    return awards
