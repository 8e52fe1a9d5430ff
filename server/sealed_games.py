"""How a sealed game goes on: its chance, its blobs' numbers, takebacks and its bots' searches
(docs/service.md, "Sealed games"). ``council.server.sealing`` seals and opens the blobs;
this module decides what goes in them.

- **Chance when it happens.** Before each move the server replaces the full state's chance
  state (``Position.reseed``: the rng and the order of every unseen deck) from 64 random
  bits it creates then, so nothing a client ever held decides a draw: an older blob sent
  again with the same move draws afresh, and a finished game's record says nothing of the
  draws of another line from the same start. The seed is kept with the move, in the blob's
  history, so the record replays (``council.engine.record.play_move``).
- **A start from a position** (``dealt_from``: NewGame's ``start_position``). Of a position
  the game keeps what one seat may know (``Position.view``), and deals every other hidden
  card and the order of every unseen deck from a fresh seed (``Position.determinize``): the
  request decides no card, and its rng is dropped with the rest of the chance state.
- **Numbers.** Each blob has its number in its game (``SealedContent.sequence``): NewGame's
  is 0, every later blob one more, so a server that keeps each game's latest number
  (``serve --no-rewind``, ``council.server.game_store``) can refuse an older one.
- **Takebacks.** ``take_back`` returns a game to an earlier move, counted for the seat.
- **Bots.** A bot seat's search seed comes from the game's secret and the move number, and
  its budget from the preset chosen at NewGame: asking again gives the same move, and the
  ticket's holder can re-roll nothing.

>>> from council.engine.games import game_named
>>> state = game_named("kuhn-poker").new_game(seed=1)
>>> play(state, state.legal_actions()[0]) > 0  # the move's fresh chance seed
True
>>> dealt_from(state, 0).view(0) == state.view(0)  # seat 0's view kept, the rest dealt anew
True
>>> bot_search_seed(b"k" * 32, 3) == bot_search_seed(b"k" * 32, 3) != bot_search_seed(b"k" * 32, 4)
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from council.engine import Position
from council.engine.record import play_move
from council.engine.serialize import state_from_proto
from council.v1 import record_pb2 as rpb
from council.v1 import service_pb2 as spb

__all__ = ["bot_search_seed", "dealt_from", "game_id", "next_history", "play", "take_back"]


def fresh_chance_seed() -> int:
    """64 bits from the operating system's secure source (never 0: 0 means "no reseed")."""
    return secrets.randbits(64) or 1


def play(state: Position, action: int) -> int:
    """Play `action` on a sealed game's full state, its draws decided now by a fresh seed;
    that seed, which the record keeps with the move (every move's: which moves draw, and
    from what, is the rules' to say). IllegalActionError leaves the state's rules as they
    were (its chance state is new)."""
    seed = fresh_chance_seed()
    state.reseed(seed)
    state.apply(action)
    return seed


def dealt_from(position: Position, seat: int) -> Position:
    """The full state a sealed game started from `position` begins at: `seat`'s view of it
    (a full state's, or the view itself), every card hidden from that seat and every unseen
    deck's order dealt from a fresh seed, so the chance state is the server's alone."""
    shown = position.view(seat)
    return shown.determinize(fresh_chance_seed())


def game_id(game_secret: bytes) -> bytes:
    """A game's name in a store of games (the secret itself stays in the blobs)."""
    return hashlib.sha256(b"council-ai game id\0" + game_secret).digest()[:16]


def bot_search_seed(game_secret: bytes, move_number: int) -> int:
    """The search seed of the bot's move after `move_number` moves of the game: the game's,
    so the same position asked again gives the same move, and unknown to every client."""
    mac = hmac.new(game_secret, f"council-ai bot search {move_number}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "little")


def next_history(
    content: spb.SealedContent,
    action: int,
    chance_seed: int,
    player: rpb.RecordedPlayer | None = None,
) -> spb.SealedContent:
    """The history of the blob after `content`'s: one number more, the move and its chance
    seed added (`player`, the bot that chose it, replaces its seat's entry)."""
    history = spb.SealedContent()
    history.CopyFrom(content)
    history.ClearField("state")
    history.sequence = content.sequence + 1
    if not content.HasField("start"):  # sealed before blobs kept a history: none to add to
        return history
    # A blob of an older server kept no seeds: its moves drew from the state's rng (0).
    history.chance.extend([0] * (len(history.actions) - len(history.chance)))
    history.actions.append(action)
    history.chance.append(chance_seed)
    if player is not None and player.seat < len(history.players):
        takebacks = history.players[player.seat].takebacks
        history.players[player.seat].CopyFrom(player)
        history.players[player.seat].takebacks = takebacks
    return history


def record_moves(content: spb.SealedContent) -> list[rpb.RecordedMove]:
    """The history's moves as a record's (id and chance seed; no seat or text)."""
    chance = list(content.chance)
    return [
        rpb.RecordedMove(action_id=a, chance_seed=chance[i] if i < len(chance) else 0)
        for i, a in enumerate(content.actions)
    ]


def take_back(
    content: spb.SealedContent, to_move: int, seat: int
) -> tuple[Position, spb.SealedContent]:
    """The full state after the first `to_move` moves of the game of `content` (replayed
    from its start with the draws they made) and its history: those moves, one number
    more, a takeback more for `seat`. ValueError if `to_move` is not below the number of
    moves played."""
    played = len(content.actions)
    if not 0 <= to_move < played:
        raise ValueError(f"must be below the {played} moves played, got {to_move}")
    state = state_from_proto(content.start)
    for move in record_moves(content)[:to_move]:
        play_move(state, move)
    history = spb.SealedContent()
    history.CopyFrom(content)
    history.ClearField("state")
    history.sequence = content.sequence + 1
    del history.actions[to_move:]
    del history.chance[to_move:]
    if seat < len(history.players):
        history.players[seat].takebacks += 1
    return state, history
