"""A server's settings (the ``council-ai serve`` flags) and their resolution.

>>> config = ServerConfig(search_slots=2).resolved()
>>> config.search_queue, config.threads, config.max_concurrent_rpcs
(4, 14, 270)
"""

from __future__ import annotations

import hmac
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from council.mcts.games import all_search_games
from council.mcts.search import SearchConfig, game_config
from council.server import presets
from council.server.game_store import GameStore, check_game_store_url
from council.server.sealing import DEFAULT_TTL_S, SealKeys

__all__ = ["DEFAULT_HTTP_ADDRESS", "ServerConfig", "accepted_token", "parse_tokens"]

# `council-ai serve`'s HTTP (Connect) address, beside the gRPC one (--http-address "": none).
DEFAULT_HTTP_ADDRESS = "127.0.0.1:8080"


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server (``council-ai serve`` flags; their defaults are these)."""

    address: str = "127.0.0.1:50051"
    search_slots: int = 0  # searches running at once; 0 = one per CPU core
    search_queue: int = -1  # admitted searches waiting for a slot; -1 = 2 x slots
    # Searches one caller (a bearer token, else a connection) may have running or queued;
    # 0 = automatic, see `searches_per_caller`.
    max_searches_per_caller: int = 0
    # A queued call that has waited this long stops the newest search of a caller running
    # two more than its own (council.server.admission). 1 s: a call with the 2 s deadline of
    # an interactive hint still has most of a second to search after it; a hog's search,
    # stopped, still answers with the best action it found.
    max_queue_wait_s: float = 1.0
    cheap_workers: int = 8  # threads for the calls that do not search
    call_backlog: int = 256  # calls waiting for a thread before gRPC refuses more: see threads
    max_iterations: int = 2_000_000
    max_search_time_s: float = 30.0
    max_nodes: int = 2_000_000
    # AnalyzeGame (council.server.analyze_game): a record's moves at most (a real game has a
    # few hundred; the arena's cap is 20,000 actions), and the longest review, whatever the
    # request's total_time (each decision's search is also capped by max_search_time_s).
    max_record_moves: int = 5_000
    max_review_time_s: float = 600.0
    default_preset: str = presets.DEFAULT_PRESET
    deadline_margin_s: float = 0.02  # plus 10% of the remaining time: see deadline_margin
    grace_s: float = 5.0  # SIGTERM: in-flight calls get this long, then are cancelled
    # Bearer tokens: a call must carry one of auth_tokens or auth_token (see `tokens`), one
    # per client; none at all: no token needed.
    auth_token: str | None = None
    auth_tokens: tuple[str, ...] = ()
    tls_cert: str | None = None
    tls_key: str | None = None
    # The same RPCs over HTTP with the Connect protocol (council.server.connect) on this
    # host:port; None: no HTTP server (`council-ai serve` gives DEFAULT_HTTP_ADDRESS).
    http_address: str | None = None
    # The origins whose browser pages may call the HTTP server (CORS): None = pages served
    # from this machine (http(s)://localhost, 127.x.x.x or [::1], any port); () = none;
    # ("*",) = any; else the exact origins, e.g. ("https://play.example.com",).
    cors_origins: tuple[str, ...] | None = None
    # The HTTP port's guard (council.server.http_guard): a request's head must arrive within
    # http_header_timeout_s, its body within http_body_timeout_s after; an idle kept-alive
    # connection is closed after http_keep_alive_s (long enough for a player's next move to
    # reuse it, short enough that idle ones do not crowd the cap); past
    # max_http_connections_per_address open from one client address (0: no such cap), or
    # max_http_connections open in all, new ones get 503. The Host names answered: None = on a
    # loopback address localhost, 127.x.x.x and [::1] only (DNS rebinding), any elsewhere;
    # else those three and these names; ("*",) = any.
    http_header_timeout_s: float = 10.0
    http_body_timeout_s: float = 30.0
    http_keep_alive_s: float = 20.0
    max_http_connections: int = 1000
    # A tenth of the cap: one address cannot fill it. A browser opens 6 at most per server,
    # so many players behind one NAT fit; behind a proxy, every connection is the proxy's.
    max_http_connections_per_address: int = 100
    allowed_hosts: tuple[str, ...] | None = None
    # Prometheus metrics (council.server.metrics, docs/metrics.md): on this host:port of
    # their own, without a token; None = GET /metrics on the HTTP port, where a server with
    # bearer tokens asks for one. access_log: a log line per call (council.server.logs;
    # `council-ai serve` turns it on).
    metrics_address: str | None = None
    access_log: bool = False
    # Sealed games (council.server.sealing): the key ring, the first key sealing; None = a
    # random key of this process only (`council-ai serve` keeps one in a file instead, so
    # that games outlive a restart). A blob sealed longer than seal_ttl_s ago is refused.
    seal_keys: SealKeys | None = None
    seal_ttl_s: float = DEFAULT_TTL_S
    # Strict mode (`serve --no-rewind`, council.server.game_store): each sealed game's latest
    # move sequence number is kept in a store, and an older blob of the game is refused.
    # game_store: the store's URL (None: an SQLite file beside the default seal-key file);
    # game_store_instance: the store opened, which the servicer uses (start_server opens
    # game_store when it is None, and closes it on stop).
    no_rewind: bool = False
    game_store: str | None = None
    # Content files, "FILE" or "GAME=FILE", for the games played on content (their maps and
    # cards; council.engine.games.use_content_file), loaded when the server starts; a
    # position made on other content (its digest differs) is then refused.
    content: tuple[str, ...] = ()
    game_store_instance: GameStore | None = field(default=None, compare=False, repr=False)
    # Search settings (name, value) over every game's defaults, the search's own (c_uct...)
    # or a game's (each must be one every game has: resolved() names the game that lacks
    # one); a preset's settings apply over them.
    search_settings: tuple[tuple[str, Any], ...] = ()

    def game_search_config(self, game: str) -> SearchConfig:
        """The search's settings in `game`: its defaults with ``search_settings``."""
        return game_config(None, game).with_settings(dict(self.search_settings)).validate()

    def resolved(self) -> ServerConfig:
        """The config with the automatic sizes filled in (ValueError if out of range)."""
        if self.default_preset not in presets.BY_NAME:
            raise ValueError(f"default_preset: unknown preset {self.default_preset!r}")
        for game in all_search_games():
            try:
                self.game_search_config(game.name)
            except ValueError as e:
                raise ValueError(f"search_settings: {e}") from None
        if not self.max_search_time_s > 0 or self.max_iterations < 1 or self.max_nodes < 1:
            raise ValueError("max_search_time_s, max_iterations and max_nodes must be positive")
        if self.cheap_workers < 1 or self.call_backlog < 0 or self.grace_s < 0:
            raise ValueError("cheap_workers must be positive, call_backlog and grace_s >= 0")
        if self.max_searches_per_caller < 0 or not self.max_queue_wait_s > 0:
            raise ValueError("max_searches_per_caller must be >= 0, max_queue_wait_s positive")
        if not self.seal_ttl_s > 0:
            raise ValueError("seal_ttl_s must be positive")
        if self.game_store is not None:
            if not self.no_rewind:
                raise ValueError("game_store: used with no_rewind (--no-rewind) only")
            check_game_store_url(self.game_store)
        if self.max_record_moves < 1 or not self.max_review_time_s > 0:
            raise ValueError("max_record_moves and max_review_time_s must be positive")
        timeouts = (self.http_header_timeout_s, self.http_body_timeout_s, self.http_keep_alive_s)
        if not min(timeouts) > 0 or self.max_http_connections < 1:
            raise ValueError("the HTTP timeouts and max_http_connections must be positive")
        if self.max_http_connections_per_address < 0:
            raise ValueError("max_http_connections_per_address must be >= 0 (0: no such cap)")
        for name in ("http_address", "metrics_address"):
            address = getattr(self, name)
            if address and not address.rpartition(":")[2].isdigit():
                raise ValueError(f"{name}: expected host:port, got {address!r}")
        for token in self.tokens:
            if not _TOKEN.fullmatch(token):
                raise ValueError(
                    "a bearer token must be printable ASCII without spaces"
                    f" ({len(token)} characters given)"  # not the token: it is a secret
                )
        slots = self.search_slots or (os.cpu_count() or 1)
        queue = 2 * slots if self.search_queue < 0 else self.search_queue
        return replace(self, search_slots=slots, search_queue=queue)

    @property
    def searches_per_caller(self) -> int:
        """Searches one caller may have running or queued (of a resolved config):
        `max_searches_per_caller`, by default the slots, one fewer without a queue (at least
        one). So one caller can keep every slot busy but alone never holds every slot and
        queue place: another caller finds a place, where it waits about `max_queue_wait_s`
        at most behind a caller running two more searches than its own."""
        if self.max_searches_per_caller:
            return self.max_searches_per_caller
        return max(1, min(self.search_slots, self.search_slots + self.search_queue - 1))

    @property
    def tokens(self) -> tuple[str, ...]:
        """Every bearer token a call may carry: `auth_tokens` and `auth_token`."""
        return (*self.auth_tokens, self.auth_token) if self.auth_token else self.auth_tokens

    # What bounds the server's threads and memory. The synchronous gRPC server runs each call
    # on a thread of one pool from its start to its end, a search waiting in the admission
    # queue too. The pool has `threads` threads: search_slots + search_queue for searches
    # (admission refuses at once a search beyond those) and cheap_workers for the calls
    # that do not search, which admitted searches therefore can never take, however many
    # arrive or however long they run. A call that finds every thread busy waits in the
    # executor's queue, which has no bound of its own: that is what gRPC's
    # maximum_concurrent_rpcs (`max_concurrent_rpcs`, every call in progress, searches
    # and health checks alike) bounds, at `call_backlog` calls past the pool. It used to
    # equal the pool, so 32 clients sending nothing but health checks were refused 21% of
    # the time: now a cheap call is refused only past cheap_workers + call_backlog other
    # calls in progress beyond the admitted searches, a real overload. Each call holds its
    # request (at most 1 MiB; a position is a few KB), each running search a tree of at
    # most max_nodes nodes of 48 bytes: memory is bounded by search_slots trees and
    # max_concurrent_rpcs requests.
    @property
    def threads(self) -> int:
        """The server's thread pool: a thread per search slot and queue place, and
        `cheap_workers` for the calls that do not search."""
        return self.search_slots + self.search_queue + self.cheap_workers

    @property
    def max_concurrent_rpcs(self) -> int:
        """Calls in progress at most (gRPC refuses more): the pool's threads, and
        `call_backlog` more calls waiting for one."""
        return self.threads + self.call_backlog

    def deadline_margin(self, remaining_s: float) -> float:
        """The part of a call's remaining time kept back from its search, so that the best
        action so far reaches the client before the deadline.

        The fixed part covers turning the result into a message and sending it. The tenth
        of the time left grows with the budget because what it covers does too: a search
        reads the clock only every few iterations, searches share the cores (a loaded
        machine stops them late), and the answer's trip back is not known to the server.
        """
        return self.deadline_margin_s + 0.1 * remaining_s


# What a token may hold: printable ASCII without spaces, as gRPC metadata and HTTP headers carry.
_TOKEN = re.compile(r"[!-~]+")


def parse_tokens(text: str) -> tuple[str, ...]:
    r"""The bearer tokens of an ``--auth-token-file``: one per line, blank lines and lines
    starting with ``#`` ignored, spaces around a token dropped.

    >>> parse_tokens("# the page\nabc123\n\n  # the ladder\ndef456  \n")
    ('abc123', 'def456')
    """
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def accepted_token(authorization: str | bytes | None, tokens: Iterable[str]) -> str | None:
    """The token of `tokens` that an ``authorization`` header value (``Bearer <token>``, the
    scheme in any case: RFC 7235) carries, or None. Every token is compared, in constant
    time, whichever matches: the time taken says nothing about which is near.

    >>> accepted_token("Bearer abc", ("xyz", "abc")), accepted_token("bearer abc", ["abc"])
    ('abc', 'abc')
    >>> accepted_token("Bearer abd", ["abc"]), accepted_token("Basic abc", ["abc"])
    (None, None)
    """
    if authorization is None:
        return None
    if isinstance(authorization, str):
        authorization = authorization.encode("utf-8", "replace")
    scheme, _, given = authorization.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    given = given.strip()
    found = None
    for token in tokens:
        if hmac.compare_digest(given, token.encode()):
            found = token
    return found
