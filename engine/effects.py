"""What an action did: its ``council.v1.ActionEffects`` message (issue #30), for every game.

Each game computes its own effects behind the game interface (``Game.effects``: each game's
``council.engine.<module_name>_effects``), told from the event trace its rules wrote as they applied
the action (a position's ``events``; ``Trace``), never from the rules written again; this module
holds what they share (``Trace``, ``EffectsBuilder``, the wording of signed amounts) and the two
ways the service asks for them:

- ``action_effects(before, after, action, seat)``: what an action taken in the full state
  `before` did to reach `after`, as `seat` may know it (None: everything);
- ``known_effects(position, seat)``: for each legal action of the seat to move, what it
  surely does: its cost and its gains that depend on no hidden card (``partial`` set where
  more follows from a draw or another seat's secret choice).

>>> from council.engine.games import game_named
>>> state = game_named("kuhn-poker").new_game(seed=3)
>>> after = state.child(1)
>>> effects = action_effects(state, after, 1, seat=1)
>>> [(s.seat, s.chips_bet) for s in effects.seats], effects.pot, [l.text for l in effects.lines]
([(0, 1)], 3, ['bets 1 chip: the pot is 3 chips'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from council.engine.position import Position
from council.v1 import game_pb2 as pb

__all__ = [
    "EffectsBuilder",
    "Event",
    "Trace",
    "action_effects",
    "amounts",
    "known_effects",
    "public_effects",
    "with_article",
]


class Event(NamedTuple):
    """One record of an action's trace: its kind (the core's EVENT_KINDS name it), the seat
    it is about (-1: the whole table) and its arguments (the core's .pxd says which)."""

    kind: str
    seat: int
    args: tuple[int, int, int, int]


class Trace:
    """The events the rules wrote as `action` made the full state `after` (its ``events``),
    with the look-ups the effects make. A ValueError if `after` was not made so.

    >>> from council.engine.games import game_named
    >>> state = game_named("kuhn-poker").new_game(seed=3)
    >>> trace = Trace(state.child(1), 1)
    >>> trace.mover, [e.kind for e in trace.events], trace.total("bet", 0)
    (0, ['action', 'bet'], 1)
    >>> Trace(state, 1)
    Traceback (most recent call last):
    ...
    ValueError: after: no event trace of action 1 (the position must come from applying it)
    """

    def __init__(self, after: Any, action: int):
        self.events = [Event(*event) for event in after.events]
        first = self.events[0] if self.events else None
        if first is None or first.kind != "action" or first.args[0] != action:
            raise ValueError(
                f"after: no event trace of action {action} (the position must come from "
                "applying it)"
            )
        self.mover = first.seat

    def of(self, kind: str, seat: int | None = None) -> list[Event]:
        """The events of `kind`, in order (only `seat`'s if given)."""
        return [e for e in self.events if e.kind == kind and (seat is None or e.seat == seat)]

    def has(self, kind: str) -> bool:
        return any(e.kind == kind for e in self.events)

    def total(self, kind: str, seat: int, arg: int = 0) -> int:
        """The sum of argument `arg` of `seat`'s events of `kind` (a change's amount)."""
        return sum(e.args[arg] for e in self.events if e.kind == kind and e.seat == seat)


class EffectsBuilder:
    """An ActionEffects message being built: one SeatEffects per seat, made on first use,
    and the lines in order. ``message()`` keeps only the seats that changed.

    >>> b = EffectsBuilder(3)
    >>> b.seat(2).coins = 4
    >>> b.line("elects a white councillor", seat=2)
    >>> b.seat(0).coins = 0  # no change: left out
    >>> m = b.message()
    >>> [s.seat for s in m.seats], m.lines[0].seat, m.lines[0].text
    ([2], 2, 'elects a white councillor')
    """

    def __init__(self, n_players: int):
        self.n_players = n_players
        self.effects = pb.ActionEffects()
        self._seats: dict[int, pb.SeatEffects] = {}

    def seat(self, seat: int) -> pb.SeatEffects:
        """The SeatEffects of `seat`, to fill in."""
        entry = self._seats.get(seat)
        if entry is None:
            entry = self._seats[seat] = pb.SeatEffects(seat=seat)
        return entry

    def line(self, text: str, seat: int | None = None) -> None:
        """Add a line, about `seat` (None: about the whole table)."""
        line = self.effects.lines.add(text=text)
        if seat is not None:
            line.seat = seat

    def message(self) -> pb.ActionEffects:
        """The ActionEffects message: the seats with a change, in seat order."""
        for seat in sorted(self._seats):
            entry = self._seats[seat]
            if any(field.name != "seat" for field, _ in entry.ListFields()):
                self.effects.seats.append(entry)
        return self.effects


def with_article(word: str) -> str:
    """`word` after "a" or "an", by its first letter (the councillors' colours, the suits).

    >>> with_article("orange"), with_article("white")
    ('an orange', 'a white')
    """
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def signed(n: int, unit: str, plural: str | None = None) -> str:
    """An amount with its sign and unit: ``+4 VP``, ``-1 assistant``, ``+2 coins``.

    >>> signed(4, "VP"), signed(-1, "assistant"), signed(2, "coin"), signed(1, "ally", "allies")
    ('+4 VP', '-1 assistant', '+2 coins', '+1 ally')
    """
    name = unit if abs(n) == 1 or unit == "VP" else (plural or unit + "s")
    return f"{n:+d} {name}"


# The words of the bonus keys (the default game's board's BONUS_KEYS) in a line of amounts.
_BONUS_WORDS = {
    "VP": ("VP", None),
    "coins": ("coin", None),
    "assistants": ("assistant", None),
    "politics": ("politics card", None),
    "nobility": ("nobility step", None),
    "main_action": ("main action", None),
}


def amounts(bonus: Mapping[str, int]) -> str:
    """A bonus (by key, as the board data writes them) in words, in the board's key order.

    >>> amounts({"coins": 2, "VP": 4, "assistants": 2, "nobility": 1})
    '+4 VP, +2 coins, +2 assistants, +1 nobility step'
    >>> amounts({})
    'nothing'
    """
    parts = [
        signed(bonus[key], *_BONUS_WORDS[key]) for key in _BONUS_WORDS if bonus.get(key, 0) != 0
    ]
    return ", ".join(parts) or "nothing"


def names(items: Iterable[str]) -> str:
    """Names joined for a line: ``Arkon, Burgen``."""
    return ", ".join(items)


def action_effects(
    before: Position, after: Position, action: int, seat: int | None = None
) -> pb.ActionEffects:
    """What `action`, taken in the full state `before`, did to reach the full state `after`,
    as `seat` may know it (None: everything; the game's ``Game.effects``)."""
    from council.engine.games import game_of  # the games import this module's builder

    return game_of(before).effects(before, after, action, seat, False)


def public_effects(before: Position, after: Position, action: int) -> pb.ActionEffects:
    """What `action` did as every seat may know it: the seats' effects and lines on which
    all the seats' views agree (a draw's card, named to its drawer only, is left out; its
    count stays). What a bot's move tells the holder of its ticket, who is no seat.

    >>> from council.engine.games import game_named
    >>> state = game_named("kuhn-poker").new_game(seed=3)
    >>> [l.text for l in public_effects(state, state.child(1), 1).lines]
    ['bets 1 chip: the pot is 3 chips']
    """
    views = [action_effects(before, after, action, s) for s in range(before.n_players)]
    public = pb.ActionEffects()
    public.CopyFrom(views[0])
    del public.seats[:], public.lines[:]
    public.seats.extend(s for s in views[0].seats if all(s in v.seats for v in views[1:]))
    public.lines.extend(line for line in views[0].lines if all(line in v.lines for v in views[1:]))
    if any(v.partial for v in views):
        public.partial = True
    return public


def known_effects(position: Position, seat: int) -> dict[int, pb.ActionEffects]:
    """What each legal action of `seat`, the seat to move, surely does, by action id: played
    in a full state completed from `seat`'s view, so what depends on a hidden card is left
    out (and ``partial`` set)."""
    view = position if position.is_view else position.view(seat)
    world = view.determinize(0)
    from council.engine.games import game_of  # the games import this module's builder

    effects = game_of(world).effects
    return {a: effects(world, world.child(a), a, seat, True) for a in world.legal_actions()}
