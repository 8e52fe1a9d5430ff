"""Sealed games: the full state of a game, encrypted and authenticated by the server, held by
a front-end that cannot read it (docs/service.md, "Sealed games").

The service keeps no game: a front-end that plays one must send the whole position with
each call. Sealed, that position is a blob only the server opens, with AES-256-GCM
(``cryptography``'s AESGCM; a random 96-bit nonce per blob). A blob is::

    version (1 byte) | key id length (1 byte) | key id (ASCII) | nonce (12 bytes) | ciphertext

whose ciphertext is a ``council.v1.SealedContent`` (the full state, the game's secret, the
time it was sealed, and the game's history for its record: its start, actions and players)
and whose first three parts are the associated data: a blob whose key id or version was
changed does not open. The key id picks the key in a `SealKeys` ring, whose
first key seals and all of which open, so a new key can be put first while the blobs of
games in progress still open (rotation); a key removed from the ring retires its blobs.

Each game has its secret, 32 random bytes drawn by NewGame and sealed with its state. A
seat's ticket is ``<seat>.<role>.<MAC>``, the MAC an HMAC-SHA256 of the seat and role keyed
with that secret: a ticket is valid for one game, seat and role only, whatever key sealed
the blob it is sent with, and a blob of another game does not accept it.

>>> keys = SealKeys.generate("k1")
>>> secret = new_game_secret()
>>> blob = keys.seal(pb.GameState(format="a-game/1"), secret)
>>> content = keys.open(blob, ttl_s=60)
>>> content.state.format, content.game_secret == secret
('a-game/1', True)
>>> ticket = mint_ticket(secret, 2, spb.SEAT_ROLE_BOT)
>>> ticket.startswith("2.bot."), check_ticket(secret, ticket)
(True, Ticket(seat=2, role=2))
>>> try:
...     keys.open(blob[:-1] + bytes([blob[-1] ^ 1]), ttl_s=60)  # one bit changed
... except TamperedBlob as error:
...     print(error)
not a state sealed by this service (tampered, truncated or sealed with another server's key)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError

from council.server.errors import duration_words
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

__all__ = [
    "DEFAULT_TTL_S",
    "ENV_KEYS",
    "ExpiredBlob",
    "MalformedTicket",
    "RetiredKey",
    "SealError",
    "SealKeys",
    "TamperedBlob",
    "Ticket",
    "WrongTicket",
    "check_ticket",
    "default_key_file",
    "load_or_create_key_file",
    "mint_ticket",
    "new_game_secret",
    "parse_ticket",
]

log = logging.getLogger(__name__)

VERSION = 1
NONCE_BYTES = 12  # AES-GCM's standard 96-bit nonce, random per blob
KEY_BYTES = 32  # AES-256
SECRET_BYTES = 32  # a game's secret, the key of its tickets
MAC_BYTES = 18  # a ticket's HMAC-SHA256, cut to 144 bits (24 base64url characters)
KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,32}")
# A game idle this long (its last blob sealed this long ago) can no longer be played: a
# blob a player kept is not valid for ever. Thirty days outlasts any paused game.
DEFAULT_TTL_S = 30 * 24 * 3600.0
# The environment variable that can hold the key ring (the key file's format).
ENV_KEYS = "COUNCIL_SEAL_KEYS"

ROLE_NAMES: dict[int, str] = {spb.SEAT_ROLE_PLAYER: "player", spb.SEAT_ROLE_BOT: "bot"}
ROLES_BY_NAME = {name: role for role, name in ROLE_NAMES.items()}


class SealError(ValueError):
    """A sealed state or ticket that cannot be used; `field` is the request field at fault
    (relative to the request's Sealed message)."""

    field = "blob"


class TamperedBlob(SealError):
    """Not a blob this server sealed: garbled, truncated, changed, or another key's."""

    def __init__(self) -> None:
        super().__init__(
            "not a state sealed by this service (tampered, truncated or sealed with another "
            "server's key)"
        )


class RetiredKey(SealError):
    """A blob sealed with a key the server no longer holds."""


class ExpiredBlob(SealError):
    """A blob sealed longer ago than the server's TTL."""


class MalformedTicket(SealError):
    """A ticket that is not of the form ``<seat>.<role>.<MAC>``."""

    field = "ticket"


class WrongTicket(SealError):
    """A well-formed ticket that is not one of this game's (or not for this seat and role)."""

    field = "ticket"


@dataclass(frozen=True)
class Ticket:
    """What a checked ticket allows: a seat, as a SeatRole."""

    seat: int
    role: int


class SealKeys:
    """A ring of AES-256 keys by id: the first seals, every one opens (rotation)."""

    def __init__(self, keys: Iterable[tuple[str, bytes]]):
        self._ciphers: dict[str, AESGCM] = {}
        self._headers: dict[str, bytes] = {}
        for key_id, key in keys:
            if not KEY_ID.fullmatch(key_id):
                raise ValueError(f"key id {key_id!r}: 1 to 32 of A-Z a-z 0-9 _ . -")
            if len(key) != KEY_BYTES:
                raise ValueError(f"key {key_id!r}: {len(key)} bytes, expected {KEY_BYTES}")
            if key_id in self._ciphers:
                raise ValueError(f"key id {key_id!r} is given twice")
            self._ciphers[key_id] = AESGCM(key)
            self._headers[key_id] = bytes([VERSION, len(key_id)]) + key_id.encode("ascii")
        if not self._ciphers:
            raise ValueError("no seal key: give at least one line 'KEY_ID BASE64KEY'")
        self.current = next(iter(self._ciphers))

    @property
    def ids(self) -> tuple[str, ...]:
        """The key ids, the sealing one first."""
        return tuple(self._ciphers)

    def __repr__(self) -> str:  # never the keys
        return f"SealKeys(ids={self.ids!r})"

    @classmethod
    def parse(cls, text: str) -> SealKeys:
        """The ring of a key file's text: a line ``KEY_ID BASE64KEY`` per key, the sealing
        key first; blank lines and ``#`` comments are skipped. ValueError names the line."""
        keys = []
        for number, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(f"seal keys, line {number}: expected 'KEY_ID BASE64KEY'")
            try:
                key = base64.b64decode(parts[1], validate=True)
            except binascii.Error:
                raise ValueError(f"seal keys, line {number}: the key is not base64") from None
            keys.append((parts[0], key))
        try:
            return cls(keys)
        except ValueError as error:
            raise ValueError(f"seal keys: {error}") from None

    @classmethod
    def generate(cls, key_id: str | None = None) -> SealKeys:
        """A ring of one fresh random key."""
        return cls.parse(new_key_line(key_id))

    def seal(
        self,
        state: pb.GameState,
        game_secret: bytes,
        *,
        now: float | None = None,
        history: spb.SealedContent | None = None,
    ) -> bytes:
        """The blob of `state` in the game of `game_secret`, sealed with the current key;
        with `history`, whose every field but the state, the secret and the time it keeps
        (the game's record, the blob's number: ``council.server.sealed_games``)."""
        content = spb.SealedContent()
        if history is not None:
            content.CopyFrom(history)
        content.game_secret = game_secret
        content.issued_at = int(time.time() if now is None else now)
        content.state.CopyFrom(state)
        header = self._headers[self.current]
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[self.current].encrypt(nonce, content.SerializeToString(), header)
        return header + nonce + sealed

    def open(self, blob: bytes, *, ttl_s: float, now: float | None = None) -> spb.SealedContent:
        """The content of a blob this ring sealed: TamperedBlob if it is not one (or was
        changed), RetiredKey if its key left the ring, ExpiredBlob if it is older than
        `ttl_s` seconds."""
        if len(blob) < 2 or blob[0] != VERSION:
            raise TamperedBlob()
        end = 2 + blob[1]
        try:
            key_id = blob[2:end].decode("ascii")
        except UnicodeDecodeError:
            raise TamperedBlob() from None
        if len(blob) < end + NONCE_BYTES + 16 or not KEY_ID.fullmatch(key_id):
            raise TamperedBlob()
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise RetiredKey(
                f"sealed with key {key_id!r}, which this server does not hold (retired, or "
                "the blob was changed): the game cannot go on; start a new one"
            )
        try:
            nonce, sealed = blob[end : end + NONCE_BYTES], blob[end + NONCE_BYTES :]
            plain = cipher.decrypt(nonce, sealed, blob[:end])
            content = spb.SealedContent.FromString(plain)
        except (InvalidTag, DecodeError):
            raise TamperedBlob() from None
        age = (time.time() if now is None else now) - content.issued_at
        if age > ttl_s:
            raise ExpiredBlob(
                f"sealed {duration_words(age)} ago, past this server's limit of "
                f"{duration_words(ttl_s)} (--seal-ttl): the game has expired"
            )
        return content


def new_key_line(key_id: str | None = None) -> str:
    """A key file line with a fresh random key (``council-ai seal-key`` prints one)."""
    key_id = key_id or time.strftime("k%Y%m%d") + "-" + secrets.token_hex(2)
    return f"{key_id} {base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()}"


def new_game_secret() -> bytes:
    """A new game's secret, the key of its tickets."""
    return secrets.token_bytes(SECRET_BYTES)


def _mac(game_secret: bytes, seat: int, role_name: str) -> str:
    mac = hmac.new(game_secret, f"council-ai ticket {seat} {role_name}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:MAC_BYTES]).decode()


def mint_ticket(game_secret: bytes, seat: int, role: int) -> str:
    """The ticket of `seat` as `role` (a SeatRole) in the game of `game_secret`."""
    name = ROLE_NAMES[role]
    return f"{seat}.{name}.{_mac(game_secret, seat, name)}"


_SEAT = re.compile(r"0|[1-9][0-9]?", re.ASCII)


def parse_ticket(ticket: str) -> Ticket:
    """The seat and role a ticket claims (unchecked): MalformedTicket if it has no such
    form."""
    seat, _, rest = ticket.partition(".")
    name, _, mac = rest.partition(".")
    # As NewGame writes a seat: ASCII digits without a leading zero (str.isdigit takes
    # "٠", and "00" would be a second spelling of seat 0).
    if not (_SEAT.fullmatch(seat) and name in ROLES_BY_NAME and mac):
        raise MalformedTicket(
            "not a seat ticket: expected '<seat>.<player|bot>.<MAC>' as NewGame returned it"
        )
    return Ticket(int(seat), ROLES_BY_NAME[name])


def check_ticket(game_secret: bytes, ticket: str) -> Ticket:
    """The seat and role of a ticket of this game: WrongTicket if it is another game's (or
    its seat or role was changed)."""
    claimed = parse_ticket(ticket)
    expected = _mac(game_secret, claimed.seat, ROLE_NAMES[claimed.role])
    if not hmac.compare_digest(expected, ticket.rpartition(".")[2]):
        raise WrongTicket(
            "not a ticket of this game for its seat and role (a ticket of another game, or "
            "changed): send the ticket NewGame returned for this seat"
        )
    return claimed


def default_key_file() -> Path:
    """Where ``council-ai serve`` keeps the key it generated when given none:
    ``$XDG_STATE_HOME/council-ai/seal-keys`` (default ``~/.local/state``)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "council-ai" / "seal-keys"


def load_or_create_key_file(path: Path) -> tuple[SealKeys, bool]:
    """The ring of the key file at `path`, created first (a fresh key, mode 0600, its folder
    0700) when missing; and whether it was created."""
    created = False
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another server created it meanwhile: read theirs
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(
                    "# council-ai seal keys: KEY_ID BASE64KEY per line, the first seals.\n"
                    + new_key_line()
                    + "\n"
                )
            created = True
    return SealKeys.parse(path.read_text()), created
