"""Hand-made positions of The Council (Decktet) for its rules tests.

A position starts from ``TheCouncilState.new_game(players, seed).to_raw()``; the builders
overwrite the fields a test is about and keep the others consistent with them (every card
in exactly one place, ``deck``/``deck_n``, ``pack_n``, ``pack_seen``), then rebuild the
state with ``TheCouncilState.from_raw``.

Also the action ids, the constants of ``engine/_the_council.pxd`` the tests need, and
``take_bid``/``play_bids`` to play a whole event's bids.
"""

from __future__ import annotations

import random

from council.engine._the_council import (
    ACTION_OFFSETS,
    CARD_NAMES,
    EVENTS_PER_HAND,
    LOCATIONS,
    NO_CARD,  # noqa: F401 (the rules tests take it from here)
    PHASES,
    SUITS,
    TheCouncilState,
)

N_CARDS = len(CARD_NAMES)
MOONS, SUNS, WAVES, LEAVES, WYRMS, KNOTS = range(6)

# Card locations (card_loc) and phases, as the core numbers them.
LOC_DECK, LOC_PACK, LOC_DRAFTED, LOC_FACEDOWN, LOC_SPENT, LOC_EVENT, LOC_UNKNOWN = (
    LOCATIONS[name] for name in ("deck", "pack", "drafted", "facedown", "spent", "event", "unknown")
)
PH_DRAFT, PH_BID, PH_REVEAL, PH_OVER = (PHASES.index(p) for p in ("draft", "bid", "reveal", "over"))

PICK = ACTION_OFFSETS["pick"]
BID = ACTION_OFFSETS["bid"]
END_BID = ACTION_OFFSETS["end_bid"]
REVEAL = ACTION_OFFSETS["reveal"]


def card(name: str | int) -> int:
    return name if isinstance(name, int) else CARD_NAMES.index(name)


def suit(name: str | int) -> int:
    return name if isinstance(name, int) else SUITS.index(name)


def pick(name) -> int:
    return PICK + card(name)


def bid(s) -> int:
    return BID + suit(s)


def per_seat(values: dict | None, players: int, width: int = 6) -> list[list[int]]:
    """{seat: {suit: n}} as the raw 5 x 6 table (unset entries 0)."""
    table = [[0] * width for _ in range(5)]
    for seat, row in (values or {}).items():
        for x, n in row.items():
            table[seat][suit(x)] = n
    return table


def _finish_deck(raw: dict, loc: list[int], top: list | None) -> None:
    """Every card still at LOC_DECK goes in the deck, the cards of `top` last (on top, the
    last one of `top` the very top)."""
    top_ids = [card(c) for c in (top or [])]
    deck = [c for c in range(N_CARDS) if loc[c] == LOC_DECK and c not in top_ids] + top_ids
    for c in top_ids:
        assert loc[c] == LOC_DECK, f"{CARD_NAMES[c]} is not in the deck"
    raw["deck"] = deck + [-1] * (N_CARDS - len(deck))
    raw["deck_n"] = len(deck)
    raw["card_loc"] = loc
    raw["card_pending"] = [0] * N_CARDS


def _place(loc: list[int], cards, where: int) -> None:
    for c in cards:
        c = card(c)
        assert loc[c] == LOC_DECK, f"{CARD_NAMES[c]} placed twice"
        loc[c] = where


def draft_position(
    packs,
    *,
    draft_round: int = 0,
    drafted: dict | None = None,
    chips: dict | None = None,
    dealer: int = 0,
    next_starter: int = -1,
    deck_top=None,
    hand: int = 1,
    bid_table: dict | None = None,
    seed: int = 0,
) -> TheCouncilState:
    """Seat 0 to pick in `draft_round`; packs[k] is what is left of the pack dealt to seat
    k (it has been held by seats k .. k + draft_round). `drafted` is each seat's face-up
    cards; `deck_top` the cards on top of the deck (the last one the top)."""
    players = len(packs)
    raw = TheCouncilState.new_game(players, seed).to_raw()
    loc = [LOC_DECK] * N_CARDS
    for k, cards in enumerate(packs):
        _place(loc, cards, LOC_PACK + k)
    for seat, cards in (drafted or {}).items():
        _place(loc, cards, LOC_DRAFTED + seat)
    _finish_deck(raw, loc, deck_top)
    seen = [0] * 5
    for k in range(players):
        for r in range(draft_round + 1):
            seen[k] |= 1 << ((k + r) % players)
    raw.update(
        phase=PH_DRAFT,
        current=0,
        hand=hand,
        dealer=dealer,
        draft_round=draft_round,
        next_starter=next_starter,
        event=-1,
        pack_n=[len(p) for p in packs] + [0] * (5 - players),
        pack_seen=seen,
        chips=per_seat(chips, players),
        bid=per_seat(bid_table, players),
    )
    return TheCouncilState.from_raw(raw)


def event_position(
    players: int = 3,
    event="The Journey",
    *,
    drafted: dict | None = None,
    chips: dict | None = None,
    ranks: dict | None = None,
    empire: dict | None = None,
    traitors: dict | None = None,
    starter: int = 0,
    dealer: int | None = None,
    hand: int = 1,
    events_done: int = EVENTS_PER_HAND - 1,
    seed: int = 0,
) -> TheCouncilState:
    """The event `event` just turned, `starter` to bid first; by default the hand's last
    event (`events_done` of the hand resolved before it). Each seat's face-up cards are
    `drafted[seat]`; one face-down discard per pack (the first cards left in id order),
    the rest in the deck. `empire` gives the suits not at 6."""
    raw = TheCouncilState.new_game(players, seed).to_raw()
    loc = [LOC_DECK] * N_CARDS
    loc[card(event)] = LOC_EVENT
    for seat, cards in (drafted or {}).items():
        assert len(cards) <= 5
        _place(loc, cards, LOC_DRAFTED + seat)
    left = [c for c in range(N_CARDS) if loc[c] == LOC_DECK]
    for k in range(players):
        loc[left[k]] = LOC_FACEDOWN + k
    _finish_deck(raw, loc, None)
    emp = [6] * 6
    for x, n in (empire or {}).items():
        emp[suit(x)] = n
    tr = [0] * 5
    for p, n in (traitors or {}).items():
        tr[p] = n
    raw.update(
        phase=PH_BID,
        current=starter,
        starter=starter,
        dealer=starter if dealer is None else dealer,
        next_starter=-1,
        hand=hand,
        draft_round=5,
        event=card(event),
        bids_done=0,
        events_done=events_done,
        bid_floor=0,
        pack_n=[0] * 5,
        pack_seen=[(1 << players) - 1] * players + [0] * (5 - players),
        chips=per_seat(chips, players),
        bid=per_seat(None, players),
        ranks=per_seat(ranks, players),
        empire=emp,
        traitors=tr,
    )
    return TheCouncilState.from_raw(raw)


def reveal_mask(state: TheCouncilState, cards) -> int:
    """The reveal action of the seat to act for these of its drafted cards."""
    mine = state.drafted(state.current_player)
    m = 0
    for c in cards:
        m |= 1 << mine.index(card(c))
    return REVEAL + m


def take_bid(state: TheCouncilState, chips: dict | None = None, reveal=()) -> None:
    """The seat to act offers `chips` ({suit: n}, played in suit order), ends its offer
    and reveals `reveal`."""
    for x in sorted((chips or {}), key=suit):
        for _ in range(chips[x]):
            state.apply(bid(x))
    state.apply(END_BID)
    state.apply(reveal_mask(state, reveal))


def play_bids(state: TheCouncilState, bids: dict | None = None) -> None:
    """Every seat bids once in turn from the seat to act; bids[seat] = (chips, reveal)."""
    bids = bids or {}
    for _ in range(state.n_players):
        seat = state.current_player
        chips, reveal = bids.get(seat, ({}, ()))
        take_bid(state, chips, reveal)


def random_positions(players: int, seed: int, every: int, games: int = 1, final: bool = False):
    """Every `every`-th position of `games` uniformly random games (game g dealt with seed
    `seed + g`, actions drawn from Random(seed)), and with `final` each finished one."""
    rng = random.Random(seed)
    for game in range(games):
        state = TheCouncilState.new_game(players, seed=seed + game)
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                yield state.clone()
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        if final:
            yield state.clone()
