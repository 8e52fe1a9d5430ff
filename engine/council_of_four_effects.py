"""Council of Four's effects of an action (``Game.effects``; ``council.engine.effects``).

Everything is told from the action's event trace, the core's EV_* events as its rules ran
(``council.engine.effects.Trace``): the numbers are the sums of each seat's changes (VP,
coins, assistants, nobility, emporiums, permit tiles, politics cards, bonus and king reward
tiles), and the lines say where they came from, in the rules' words: the city tokens a build
collected through the linked cities (RULINGS 11), each move on the nobility track and the
bonus of the space where it stops (RULINGS 13, 20), the region and colour bonus tiles with
the king's reward tile (RULINGS 10), the final scoring's awards (RULINGS 17). A politics
card drawn is counted, never named (the trace knows it; no line tells it).

>>> from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
>>> state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1)
>>> after = state.child(1)  # elect white coast
>>> e = effects(state, after, 1, seat=1)
>>> [(s.seat, s.coins) for s in e.seats], e.lines[0].text
([(0, 4)], 'elects a white councillor into the coast council (white leaves): +4 coins')
"""

from __future__ import annotations

from typing import Any

from council.engine import _council_of_four
from council.engine import council_of_four_board as board
from council.engine.council_of_four_actions import BALCONY_NAMES, PAYMENTS, Action, ActionKind
from council.engine.effects import (
    EffectsBuilder,
    Event,
    Trace,
    amounts,
    names,
    signed,
    with_article,
)
from council.v1 import game_pb2 as pb

__all__ = ["effects"]

K = ActionKind
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


def _cards(payment: int) -> str:
    return "+".join(
        kind for kind, n in zip(board.CARD_KINDS, PAYMENTS[payment], strict=True) for _ in range(n)
    )


def _bonus_tile(tile: int) -> tuple[str, str]:
    """A bonus tile's kind ("Region"/"Colour") and what it is for (a region, a colour's
    cities)."""
    name = board.BONUS_TILE_NAMES[tile]
    if tile < len(board.REGIONS):
        return "Region", name
    return "Colour", f"{name} cities"


class _Explainer:
    """The lines of the mover's action, from its trace."""

    def __init__(self, out: EffectsBuilder, trace: Trace):
        self.out, self.trace, self.p = out, trace, trace.mover

    def line(self, text: str) -> None:
        self.out.line(text, self.p)

    def gain(self, what: str, bonus: dict[str, int]) -> None:
        """A bonus gained (a token's, a tile's), then the nobility moves it made."""
        self.line(f"{what}: {amounts(bonus)}")
        self.nobility_moves()

    def nobility_moves(self) -> None:
        """Each space of the nobility track whose bonus the mover gained (where a move
        stops or, with the variant, every space it passes: RULINGS 13)."""
        for e in self.trace.of("nobility_space", self.p):
            space = e.args[0]
            bonus = board.NOBILITY_SPACES.get(space)
            where = f"nobility track: moves to space {space}"
            if bonus is None:
                self.line(where)
            elif "choice" in bonus:
                self.line(f"{where}: {_CHOICES[bonus['choice']]}")
            else:
                self.line(f"{where}: {amounts(bonus)}")

    def build(self) -> None:
        """A new emporium: its cost, the 10th emporium's VP, the linked cities' tokens, the
        bonus and king reward tiles."""
        (build,) = self.trace.of("build")
        city, others = build.args[0], build.args[1]
        cost = f" (pays {others} assistant{'s' if others > 1 else ''})" if others else ""
        self.line(f"builds an emporium in {board.CITY_NAMES[city]}{cost}")
        for e in self.trace.of("tenth_emporium"):
            self.line(
                f"first to build all 10 emporiums: +{e.args[0]} VP; the others play one last turn"
            )
        tokens = self.trace.of("token")
        total: dict[str, int] = {}
        for e in tokens:
            for key, n in board.CITY_TOKENS[e.args[1]].items():
                total[key] = total.get(key, 0) + n
        if tokens:
            word = "City tokens of" if len(tokens) > 1 else "City token of"
            cities = names(board.CITY_NAMES[e.args[0]] for e in tokens)
            self.line(f"{word} {cities}: {amounts(total)}")
        self.nobility_moves()  # each token with nobility icons is a move of its own (RULINGS 20)
        for e in self.trace.events:
            if e.kind == "bonus_tile":
                what, where = _bonus_tile(e.args[0])
                self.line(f"{what} bonus: {where}, +{e.args[1]} VP")
            elif e.kind == "king_tile":
                self.line(f"King's reward tile: +{e.args[1]} VP")


def effects(
    before: Any, after: Any, action: int, seat: int | None, known_only: bool = False
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach `after`, as `seat`
    sees it (None: everything); `known_only`: only what does not depend on a hidden draw
    (counts of cards drawn are kept, ``partial`` is set)."""
    trace = Trace(after, action)
    n, p = before.n_players, trace.mover
    out = EffectsBuilder(n)
    move = Action.from_id(action)
    played = [sum(PAYMENTS[e.args[0]]) for e in trace.of("pay")]
    for q in range(n):
        e = out.seat(q)
        e.score = trace.total("score", q)
        e.coins = trace.total("coins", q)
        e.assistants = trace.total("assistants", q)
        e.nobility_steps = sum(m.args[1] - m.args[0] for m in trace.of("nobility", q))
        e.emporiums_built = len(trace.of("build", q))
        e.permit_tiles_gained = len(trace.of("take_permit", q))
        e.politics_cards_played = sum(played) if q == p else 0
        e.politics_cards_drawn = len(trace.of("draw", q))
        e.bonus_tiles.extend(
            board.BONUS_TILE_NAMES[t] for t in sorted(b.args[0] for b in trace.of("bonus_tile", q))
        )
        e.king_tiles.extend(
            board.KING_REWARD_TILES[t] for t in sorted(k.args[0] for k in trace.of("king_tile", q))
        )
    out.seat(p).main_actions = trace.total("main_actions", p)
    _explain(_Explainer(out, trace), move)
    out.seat(p).city_tokens.extend(board.CITY_NAMES[e.args[0]] for e in trace.of("token"))
    if move.kind is K.END_TURN:
        _end_of_turn(out, trace)
    for q in range(n):  # the mover's draws are its bonuses' (their lines say so)
        drawn = out.seat(q).politics_cards_drawn
        if drawn > 0 and q != p:
            out.line(f"draws {drawn} politics card{'s' if drawn > 1 else ''}", q)
    # A change may turn the tiles it put under face up again: they are not new.
    put_under = {t for e in trace.of("change") for t in e.args[1:3]}
    new_tiles = [
        e.args[2]
        for e in sorted(trace.of("face_up"), key=lambda e: e.args[:2])
        if e.args[2] not in put_under
    ]
    message = out.message()
    if known_only:
        message.partial = trace.has("draw") or bool(new_tiles)
    elif new_tiles:
        message.lines.add(text=f"new face-up {names(_tile(t) for t in new_tiles)}")
    return message


def _explain(x: _Explainer, move: Action) -> None:
    """The lines of the mover's action."""
    k, trace = move.kind, x.trace
    if k in (K.ELECT, K.QUICK_ELECT):
        (elect,) = trace.of("elect")
        balcony, colour, leaves = elect.args[:3]
        gain = (
            signed(trace.total("coins", x.p), "coin")
            if k is K.ELECT
            else signed(trace.total("assistants", x.p), "assistant")
        )
        x.line(
            f"elects {with_article(board.COUNCILLOR_COLOURS[colour])} councillor into the "
            f"{BALCONY_NAMES[balcony]} council ({board.COUNCILLOR_COLOURS[leaves]} leaves): {gain}"
        )
    elif k is K.ACQUIRE:
        (acquire,) = trace.of("acquire")
        region = board.REGIONS[acquire.args[0]]
        x.line(
            f"chooses {_tile(acquire.args[2])} of the {region}: the {region} council is paid next"
        )
    elif k is K.BUILD_PERMIT:
        x.line(f"uses {_tile(trace.of('use_permit')[0].args[0])}")
        x.build()
    elif k is K.BUILD_KING:
        city = board.CITY_NAMES[trace.of("king_target")[0].args[0]]
        x.line(f"will move the king to {city} and build there: the king's council is paid next")
    elif k is K.ENGAGE:
        x.line(f"engages an assistant: -{trace.of('engage')[0].args[0]} coins, +1 assistant")
    elif k is K.CHANGE:
        region = board.REGIONS[trace.of("change")[0].args[0]]
        x.line(f"changes the {region} permit tiles: -1 assistant")
    elif k is K.EXTRA_MAIN:
        x.line(f"-{trace.of('extra_main')[0].args[0]} assistants: one more main action")
    elif k is K.PAY:
        _pay(x, trace.of("pay")[0])
    elif k is K.CHOOSE_TOKEN:
        (token,) = trace.of("token")
        x.gain(f"City token of {board.CITY_NAMES[token.args[0]]}", board.CITY_TOKENS[token.args[1]])
    elif k is K.CHOOSE_FREE_PERMIT:
        tile = trace.of("take_permit")[0].args[0]
        x.gain(f"takes {_tile(tile)} for free", board.PERMIT_TILES[tile].bonus)
    elif k is K.CHOOSE_PERMIT_BONUS:
        tile = trace.of("permit_bonus")[0].args[0]
        x.gain(f"gains again the bonus of {_tile(tile)}", board.PERMIT_TILES[tile].bonus)


def _pay(x: _Explainer, pay: Event) -> None:
    """A council paid, then the tile taken or the king moved and the emporium built."""
    payment, coins, balcony = pay.args[:3]
    paid = f"-{coins} coins" if coins else "no coins"
    cards = _cards(payment)
    if balcony < len(board.REGIONS):
        x.line(f"satisfies the {board.REGIONS[balcony]} council with {cards}: {paid}")
        tile = x.trace.of("take_permit")[0].args[0]
        x.gain(f"acquires {_tile(tile)}", board.PERMIT_TILES[tile].bonus)
        return
    x.line(f"satisfies the king's council with {cards}: {paid}")
    (king,) = x.trace.of("king_move")
    start, city, roads, travel = king.args
    if roads:
        x.line(
            f"moves the king from {board.CITY_NAMES[start]} to "
            f"{board.CITY_NAMES[city]} ({roads} road{'s' if roads > 1 else ''}): -{travel} coins"
        )
    x.build()


def _end_of_turn(out: EffectsBuilder, trace: Trace) -> None:
    """The end of a turn: the next seat's turn, or the end of the game and its scoring."""
    p = trace.mover
    if not trace.has("game_over"):
        out.line(f"ends the turn; seat {trace.of('next_turn')[0].args[0]} is to move", p)
        return
    out.line("ends the turn: the game is over; final scoring", p)
    # Each seat's final score in parts that sum to it: the VP track as play left it, then
    # what final scoring adds to it (RULINGS 17).
    for q in range(out.n_players):
        for e in trace.of("final_track", q):
            out.line(f"final scoring: VP track, {e.args[0]} VP", q)
        for e in trace.of("final_bonus_tile", q):
            kind, what = _bonus_tile(e.args[0])
            out.line(f"final scoring: {kind.lower()} bonus tile ({what}), +{e.args[1]} VP", q)
        for e in trace.of("final_king_tile", q):
            out.line(f"final scoring: king's reward tile, +{e.args[1]} VP", q)
        for e in trace.of("award", q):
            out.line(
                f"final scoring: {_council_of_four.AWARD_NAMES[e.args[0]]}, +{e.args[1]} VP", q
            )
    finals = trace.of("final")
    winners_mask = trace.of("winners")[0].args[0]
    winners = [q for q in range(out.n_players) if winners_mask >> q & 1]
    final = ", ".join(f"seat {e.seat} {e.args[0]} VP" for e in finals)
    out.line(f"final scores: {final}; won by {', '.join(f'seat {q}' for q in winners)}")
    tie_break = _tie_break(finals, winners)
    if tie_break:
        out.line(tie_break)


def _tie_break(finals: list[Event], winners: list[int]) -> str:
    """What decided a tie for the most VP (RULINGS 9: the most assistants and politics cards
    in hand, then a shared win); "" when no seat tied with the winner. `finals`: each seat's
    final event (its VP, its assistants and politics cards held)."""
    top = max(e.args[0] for e in finals)
    tied = [e for e in finals if e.args[0] == top]
    if len(tied) < 2:
        return ""
    held = ", ".join(f"seat {e.seat} {e.args[1]}" for e in tied)
    seats = " and ".join(f"seat {e.seat}" for e in tied)
    said = f"tie-break: {seats} tied at {top} VP; assistants and politics cards held: {held}"
    if len(winners) == 1:
        return f"{said}: seat {winners[0]} holds the most and wins"
    return f"{said}: still tied, a shared win"
