"""JSON form of a Council of Four position: any full state or one seat's view of it.

The format is documented field by field in ``docs/state-json.md``. ``state_to_json`` and
``state_from_json`` are exact inverses (``state_from_json(state_to_json(s)) == s``), and
``state_from_json`` validates everything before it builds a state: the shape and type of
every field, value ranges, and the consistency of the whole position (card, councillor,
tile and token conservation, emporiums, bonus tiles, the turn and its pending decisions).
All problems found are reported together in one ``StateValidationError``.

>>> from council.engine import GameConfig, State
>>> s = State.new_game(GameConfig(players=2), seed=1)
>>> obj = state_to_json(s)
>>> obj["format"], obj["board"]["king_city"], obj["players"][1]["coins"]
('council-of-four/1', 'Juvelar', 11)
>>> state_from_json(obj) == s
True
>>> obj["players"][1]["coins"] = 99
>>> try:
...     state_from_json(obj)
... except StateValidationError as e:
...     print(e)
players[1].coins: must be in 0..20, got 99
"""

from __future__ import annotations

import json
from typing import Any

from council.engine import board as _board
from council.engine._core import State
from council.engine.config import GameConfig

FORMAT = "council-of-four/1"

# Sizes of the compiled core (engine/_core.pxd).
MAX_PLAYERS = 4
N_CITIES = _board.N_CITIES
N_TOKENS = 14
N_TILES = 45
TILES_PER_REGION = _board.TILES_PER_REGION
BALCONY_SIZE = 4
MAX_PENDING = 16  # slots of the engine's pending-decision queue
# At most 4 decisions are ever queued: only nobility spaces 4, 10, 14 and 16 raise one, and
# a player reaches each once; a payment is always the only pending decision.
MAX_PENDING_DECISIONS = 4
MAX_EMPORIUMS = 10
INT8_MAX = 127
INT16_MAX = 32767
INT32_MAX = 2**31 - 1
UINT64_MAX = 2**64 - 1

REGIONS = _board.REGIONS
BALCONIES = REGIONS + ("king",)
COLOURS = _board.COUNCILLOR_COLOURS
CARD_KINDS = _board.CARD_KINDS
CITIES = _board.CITY_NAMES
BONUS_TILES = _board.BONUS_TILE_NAMES
KING_TILES = _board.KING_REWARD_TILES  # VP of the king reward tiles, in the order taken
_CARDS = _board.RULE_NUMBERS["politics_cards"]
CARDS_PER_KIND = (_CARDS["per_colour"],) * len(COLOURS) + (_CARDS["jokers"],)  # 13 each, 12 jokers
N_CARDS = sum(CARDS_PER_KIND)
COUNCILLORS_PER_COLOUR = _board.RULE_NUMBERS["councillors_per_colour"]
TOKEN_HAS_NOBILITY = tuple(t.get("nobility", 0) > 0 for t in _board.CITY_TOKENS)

# Pending decision kinds: the core's P_* numbers and the names State.decision() uses.
PENDING_KINDS = {
    1: "pay_permit",
    2: "pay_king",
    3: "city_token",
    4: "first_of_two_city_tokens",
    5: "second_of_two_city_tokens",
    6: "free_permit",
    7: "permit_bonus",
}
PENDING_KIND_IDS = {name: kind for kind, name in PENDING_KINDS.items()}
PAYMENT_KINDS = ("pay_permit", "pay_king")

CONFIG_FIELDS = (
    "players",
    "layout",
    "max_coins",
    "assistant_supply",
    "permit_tie_all_score",
    "nobility_bonus_on_pass",
)
TOP_FIELDS = ("format", "config", "rng", "viewer", "board", "players", "turn")
BOARD_FIELDS = (
    "king_city",
    "city_tokens",
    "balconies",
    "pool",
    "permit_decks",
    "face_up",
    "politics_deck",
    "politics_deck_size",
    "discard",
    "bonus_tiles_left",
    "king_tiles_taken",
    "neutral_emporiums",
)
PLAYER_FIELDS = (
    "coins",
    "assistants",
    "vp",
    "nobility",
    "hand",
    "hand_size",
    "emporiums",
    "permits_face_up",
    "permits_face_down",
    "bonus_tiles",
    "king_tiles",
)
TURN_FIELDS = (
    "current",
    "number",
    "action_count",
    "main_left",
    "main_done",
    "quick_used",
    "end_trigger",
    "game_over",
    "pending",
)
DECK_FIELDS = ("unknown", "known_bottom")
PENDING_FIELDS = ("kind", "arg")
PAY_PERMIT_ARG_FIELDS = ("region", "slot")


class StateValidationError(ValueError):
    """A JSON position that is malformed or inconsistent.

    ``violations`` lists every problem found as ``(field, problem)``: ``field`` is a JSON
    path such as ``players[2].coins`` or ``board.balconies.hills[1]`` (``(root)`` for the
    document itself), ``problem`` a sentence. ``field`` and ``problem`` are the first one.
    """

    def __init__(self, violations: list[tuple[str, str]]):
        if not violations:
            raise ValueError("StateValidationError needs at least one violation")
        self.violations = list(violations)
        self.field, self.problem = self.violations[0]
        super().__init__("; ".join(f"{f}: {p}" for f, p in self.violations))


# ---------------------------------------------------------------------------------------
# State -> JSON


def _bits(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if (mask >> i) & 1]


def _cards(counts) -> dict[str, int]:
    return {k: int(counts[i]) for i, k in enumerate(CARD_KINDS)}


def _tile_or_none(t: int):
    return None if t < 0 else int(t)


def _pending_to_json(kind: int, arg: int) -> dict:
    name = PENDING_KINDS[kind]
    if name == "pay_permit":
        value: Any = {"region": REGIONS[arg >> 1], "slot": arg & 1}
    elif name in ("pay_king", "second_of_two_city_tokens"):
        value = CITIES[arg]
    else:
        value = None
    return {"kind": name, "arg": value}


def state_to_json(state: State) -> dict:
    """The JSON object (plain dicts, lists, str, int, bool, None) of a state or view."""
    r = state.to_raw()
    n = r["n_players"]
    viewer = r["viewer"]
    view = viewer >= 0
    layout = _board.Layout.from_index(r["layout"])
    home = layout.king_city
    config = {
        "players": n,
        "layout": layout.code,
        "max_coins": r["max_coins"],
        "assistant_supply": r["assistant_supply"],
        "permit_tie_all_score": bool(r["permit_tie_all"]),
        "nobility_bonus_on_pass": bool(r["nobility_on_pass"]),
    }
    decks = {}
    for g, region in enumerate(REGIONS):
        size, known = r["deck_n"][g], r["deck_known"][g]
        tiles = [int(t) for t in r["permit_deck"][g][:size]]
        decks[region] = {"unknown": tiles[: size - known], "known_bottom": tiles[size - known :]}
    board = {
        "king_city": CITIES[r["king_city"]],
        "city_tokens": {CITIES[c]: int(r["city_token"][c]) for c in range(N_CITIES) if c != home},
        "balconies": {b: [COLOURS[k] for k in r["balcony"][i]] for i, b in enumerate(BALCONIES)},
        "pool": {k: int(r["pool"][i]) for i, k in enumerate(COLOURS)},
        "permit_decks": decks,
        "face_up": {
            region: [_tile_or_none(t) for t in r["face_up"][g]] for g, region in enumerate(REGIONS)
        },
        "politics_deck": None if view else _cards(r["politics_deck"]),
        "politics_deck_size": int(r["politics_deck_n"]),
        "discard": _cards(r["discard"]),
        "bonus_tiles_left": [BONUS_TILES[i] for i in _bits(r["bonus_tiles_left"], 7)],
        "king_tiles_taken": int(r["king_tiles_taken"]),
        "neutral_emporiums": [CITIES[c] for c in _bits(r["neutral"], N_CITIES)],
    }
    players = []
    for p in range(n):
        hidden = view and p != viewer
        players.append(
            {
                "coins": int(r["coins"][p]),
                "assistants": int(r["assistants"][p]),
                "vp": int(r["vp"][p]),
                "nobility": int(r["nobility"][p]),
                "hand": None if hidden else _cards(r["hand"][p]),
                "hand_size": int(r["hand_n"][p]),
                "emporiums": [CITIES[c] for c in _bits(r["emporia"][p], N_CITIES)],
                "permits_face_up": _bits(r["permits_up"][p], N_TILES),
                "permits_face_down": _bits(r["permits_down"][p], N_TILES),
                "bonus_tiles": [BONUS_TILES[i] for i in _bits(r["bonus_tiles"][p], 7)],
                "king_tiles": [KING_TILES[i] for i in _bits(r["king_tiles"][p], 5)],
            }
        )
    turn = {
        "current": int(r["current"]),
        "number": int(r["turn"]),
        "action_count": int(r["action_count"]),
        "main_left": int(r["main_left"]),
        "main_done": int(r["main_done"]),
        "quick_used": bool(r["quick_used"]),
        "end_trigger": None if r["end_trigger"] < 0 else int(r["end_trigger"]),
        "game_over": bool(r["game_over"]),
        "pending": [
            _pending_to_json(r["pending_kind"][i], r["pending_arg"][i])
            for i in range(r["pending_n"])
        ],
    }
    return {
        "format": FORMAT,
        "config": config,
        "rng": None if view else str(r["rng"]),
        "viewer": viewer if view else None,
        "board": board,
        "players": players,
        "turn": turn,
    }


def dumps(state: State, **kwargs) -> str:
    """The JSON text of a state; keyword arguments go to ``json.dumps`` (e.g. indent=2)."""
    return json.dumps(state_to_json(state), **kwargs)


def loads(text: str | bytes) -> State:
    """Parse and validate JSON text into a State (StateValidationError if invalid)."""
    try:
        obj = json.loads(text)
    except ValueError as e:  # json.JSONDecodeError and bad UTF-8 both derive from it
        raise StateValidationError([("(root)", f"is not valid JSON: {e}")]) from None
    return state_from_json(obj)


# ---------------------------------------------------------------------------------------
# JSON -> State: parsing with type and range checks.

_MISSING = object()


def _join(path: str, key: str) -> str:
    return key if path in ("", "(root)") else f"{path}.{key}"


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Checker:
    """Collects violations while reading a JSON object; readers return None when invalid."""

    def __init__(self):
        self.violations: list[tuple[str, str]] = []

    def bad(self, path: str, problem: str) -> None:
        self.violations.append((path, problem))

    def obj(self, value, path: str, fields, *, what: str = "an object", required=True):
        """A dict with exactly `fields`: missing ones map to _MISSING (and are reported when
        `required`), unknown ones are reported. None if `value` is not a dict."""
        if value is _MISSING:
            return None
        if not isinstance(value, dict):
            self.bad(path, f"must be {what}")
            return None
        out = {}
        for key in value:
            if key not in fields:
                self.bad(_join(path, str(key)), "unknown field")
        for key in fields:
            if key in value:
                out[key] = value[key]
            else:
                out[key] = _MISSING
                if required:
                    self.bad(_join(path, key), "required field is missing")
        return out

    def int_(self, value, path: str, lo: int, hi: int):
        if value is _MISSING:
            return None
        if not _is_int(value):
            self.bad(path, "must be an integer")
            return None
        if not lo <= value <= hi:
            self.bad(path, f"must be in {lo}..{hi}, got {value}")
            return None
        return value

    def bool_(self, value, path: str):
        if value is _MISSING:
            return None
        if not isinstance(value, bool):
            self.bad(path, "must be true or false")
            return None
        return value

    def name(self, value, path: str, names, what: str):
        """Index of `value` in `names`, or None."""
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.bad(path, f"must be {what} (a string)")
            return None
        if value not in names:
            shown = ", ".join(map(str, names))
            self.bad(path, f"unknown {what} {value!r}; one of {shown}")
            return None
        return names.index(value)

    def list_(self, value, path: str, max_len: int, exact: int | None = None):
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            self.bad(path, "must be a list")
            return None
        if exact is not None and len(value) != exact:
            self.bad(path, f"must have exactly {exact} entries, got {len(value)}")
            return None
        if len(value) > max_len:
            self.bad(path, f"must have at most {max_len} entries, got {len(value)}")
            return None
        return value

    def unique_list(self, value, path: str, max_len: int, read):
        """A list of distinct items, each read by `read(item, item_path)`; None if invalid.
        Items that fail to read are dropped from the result (and reported)."""
        items = self.list_(value, path, max_len)
        if items is None:
            return None
        out = []
        seen: dict = {}
        for i, item in enumerate(items):
            v = read(item, f"{path}[{i}]")
            if v is None:
                continue
            if v in seen:
                self.bad(f"{path}[{i}]", f"duplicate of {path}[{seen[v]}]")
                continue
            seen[v] = i
            out.append(v)
        return out

    def city(self, value, path: str):
        return self.name(value, path, CITIES, "city")

    def tile(self, value, path: str):
        return self.int_(value, path, 0, N_TILES - 1)

    def cards(self, value, path: str):
        """A card count per kind; None if invalid."""
        d = self.obj(value, path, CARD_KINDS, what="an object of card counts per kind")
        if d is None:
            return None
        counts = [
            self.int_(d[k], _join(path, k), 0, CARDS_PER_KIND[i]) for i, k in enumerate(CARD_KINDS)
        ]
        if any(c is None for c in counts):
            return None
        return counts


def config_from_json(obj, path: str = "config", *, complete: bool = True) -> GameConfig:
    """A GameConfig from its JSON object (the field names of GameConfig).

    With ``complete=False`` missing fields take GameConfig's defaults. Raises
    StateValidationError naming ``<path>.<field>`` for every problem.
    """
    c = _Checker()
    cfg = _read_config(c, obj, path, complete)
    if c.violations:
        raise StateValidationError(c.violations)
    return cfg


def _read_config(c: _Checker, obj, path: str, complete: bool) -> GameConfig | None:
    d = c.obj(obj, path, CONFIG_FIELDS, required=complete)
    if d is None:
        return None
    start = len(c.violations)
    data = {k: v for k, v in d.items() if v is not _MISSING}
    for key in ("players", "max_coins", "assistant_supply"):
        if key in data and not _is_int(data[key]):
            c.bad(_join(path, key), "must be an integer")
    for key in ("permit_tie_all_score", "nobility_bonus_on_pass"):
        if key in data and not isinstance(data[key], bool):
            c.bad(_join(path, key), "must be true or false")
    if "layout" in data and not isinstance(data["layout"], str):
        c.bad(_join(path, "layout"), "must be a string")
    if len(c.violations) > start or (complete and any(v is _MISSING for v in d.values())):
        return None
    # GameConfig.validate stops at the first problem: check each field on its own.
    for key, value in data.items():
        try:
            GameConfig.from_dict({key: value})
        except ValueError as e:
            name, _, problem = str(e).partition(": ")
            c.bad(_join(path, key if name != key else name), problem or str(e))
    if len(c.violations) > start:
        return None
    return GameConfig.from_dict(data)


# ---------------------------------------------------------------------------------------
# JSON -> State: the whole position.


def state_from_json(obj) -> State:
    """Validate a JSON object and build the State it describes.

    Raises StateValidationError listing every violation found.
    """
    c = _Checker()
    raw = _Reader(c).read(obj)
    if c.violations or raw is None:
        raise StateValidationError(c.violations or [("(root)", "is not a valid position")])
    return State.from_raw(raw)


class _Reader:
    def __init__(self, c: _Checker):
        self.c = c

    # -- top level -----------------------------------------------------------------------
    def read(self, obj):
        c = self.c
        top = c.obj(obj, "(root)", TOP_FIELDS)
        if top is None:
            return None
        if top["format"] is not _MISSING and top["format"] != FORMAT:
            c.bad("format", f"must be {FORMAT!r}, got {top['format']!r}")
        cfg = _read_config(c, top["config"], "config", True)
        self.cfg = cfg
        self.n = cfg.players if cfg else None
        self.layout = _board.Layout(cfg.layout) if cfg else None
        self.max_coins = cfg.max_coins if cfg else INT16_MAX
        self.viewer = None
        self.viewer_known = top["viewer"] is not _MISSING
        if top["viewer"] is not None and top["viewer"] is not _MISSING:
            self.viewer = c.int_(top["viewer"], "viewer", 0, (self.n or MAX_PLAYERS) - 1)
            self.viewer_known = self.viewer is not None
        self.view = self.viewer is not None
        self.rng = self._read_rng(top["rng"], self.viewer_known)
        b = self._read_board(top["board"])
        players = self._read_players(top["players"])
        turn = self._read_turn(top["turn"])
        if c.violations:
            # Consistency checks only make sense on a well-formed document.
            return None
        self._check(b, players, turn)
        if c.violations:
            return None
        raw = self._raw(b, players, turn)
        self._check_playable(raw, turn)
        return raw

    def _read_rng(self, value, viewer_known: bool):
        c = self.c
        if value is _MISSING:
            return None
        if self.view:
            if value is not None:
                c.bad("rng", "must be null in a view (a view carries no chance state)")
            return 0
        if value is None:
            if viewer_known:
                c.bad("rng", "must be a decimal string in a full state (viewer is null)")
            return None
        if not isinstance(value, str) or not value.isascii() or not value.isdigit():
            c.bad("rng", "must be a string of decimal digits (an unsigned 64-bit integer)")
            return None
        if (len(value) > 1 and value[0] == "0") or int(value) > UINT64_MAX:
            c.bad("rng", f"must be in 0..{UINT64_MAX} without leading zeros, got {value!r}")
            return None
        return int(value)

    # -- board ---------------------------------------------------------------------------
    def _read_board(self, value):
        c = self.c
        d = c.obj(value, "board", BOARD_FIELDS)
        if d is None:
            return None
        b: dict[str, Any] = {}
        b["king_city"] = c.city(d["king_city"], "board.king_city")
        b["city_tokens"] = self._read_tokens(d["city_tokens"])
        balconies = c.obj(d["balconies"], "board.balconies", BALCONIES)
        if balconies is not None:
            b["balconies"] = []
            for name in BALCONIES:
                path = f"board.balconies.{name}"
                items = c.list_(balconies[name], path, BALCONY_SIZE, exact=BALCONY_SIZE)
                row = None
                if items is not None:
                    row = [
                        c.name(x, f"{path}[{i}]", COLOURS, "colour") for i, x in enumerate(items)
                    ]
                b["balconies"].append(row)
        pool = c.obj(d["pool"], "board.pool", COLOURS)
        if pool is not None:
            b["pool"] = [
                c.int_(pool[k], f"board.pool.{k}", 0, COUNCILLORS_PER_COLOUR) for k in COLOURS
            ]
        decks = c.obj(d["permit_decks"], "board.permit_decks", REGIONS)
        if decks is not None:
            b["permit_decks"] = []
            for region in REGIONS:
                path = f"board.permit_decks.{region}"
                deck = c.obj(decks[region], path, DECK_FIELDS)
                if deck is None:
                    b["permit_decks"].append(None)
                    continue
                parts = []
                for part in DECK_FIELDS:
                    items = c.list_(deck[part], f"{path}.{part}", TILES_PER_REGION)
                    parts.append(
                        None
                        if items is None
                        else [c.tile(x, f"{path}.{part}[{i}]") for i, x in enumerate(items)]
                    )
                b["permit_decks"].append(parts)
        face_up = c.obj(d["face_up"], "board.face_up", REGIONS)
        if face_up is not None:
            b["face_up"] = []
            for region in REGIONS:
                path = f"board.face_up.{region}"
                items = c.list_(face_up[region], path, 2, exact=2)
                b["face_up"].append(
                    None
                    if items is None
                    else [
                        -1 if x is None else c.tile(x, f"{path}[{i}]") for i, x in enumerate(items)
                    ]
                )
        b["politics_deck"] = (
            None
            if d["politics_deck"] is None
            else c.cards(d["politics_deck"], "board.politics_deck")
        )
        b["politics_deck_given"] = d["politics_deck"] is not None
        b["politics_deck_size"] = c.int_(
            d["politics_deck_size"], "board.politics_deck_size", 0, N_CARDS
        )
        b["discard"] = c.cards(d["discard"], "board.discard")
        b["bonus_tiles_left"] = c.unique_list(
            d["bonus_tiles_left"],
            "board.bonus_tiles_left",
            len(BONUS_TILES),
            lambda x, p: c.name(x, p, BONUS_TILES, "bonus tile"),
        )
        b["king_tiles_taken"] = c.int_(
            d["king_tiles_taken"], "board.king_tiles_taken", 0, len(KING_TILES)
        )
        b["neutral_emporiums"] = c.unique_list(
            d["neutral_emporiums"], "board.neutral_emporiums", N_CITIES, c.city
        )
        return b

    def _read_tokens(self, value):
        c = self.c
        if self.layout is not None:
            home = self.layout.king_city
            fields = tuple(name for i, name in enumerate(CITIES) if i != home)
        else:
            home = None
            fields = CITIES
        d = c.obj(value, "board.city_tokens", fields, required=self.layout is not None)
        if d is None:
            return None
        tokens = [-1] * N_CITIES
        seen: dict[int, str] = {}
        for name in fields:
            path = f"board.city_tokens.{name}"
            t = c.int_(d[name], path, 0, N_TOKENS - 1)
            if t is None:
                continue
            if t in seen:
                c.bad(path, f"token {t} is also on {seen[t]}: each token lies on one city")
                continue
            seen[t] = name
            tokens[CITIES.index(name)] = t
        return tokens

    # -- players -------------------------------------------------------------------------
    def _read_players(self, value):
        c = self.c
        items = c.list_(value, "players", MAX_PLAYERS)
        if items is None:
            return None
        if self.n is not None and len(items) != self.n:
            c.bad("players", f"must have one entry per player ({self.n}), got {len(items)}")
            return None
        if len(items) < 2:
            c.bad("players", f"must have 2 to 4 entries, got {len(items)}")
            return None
        players = []
        for p, item in enumerate(items):
            path = f"players[{p}]"
            d = c.obj(item, path, PLAYER_FIELDS)
            if d is None:
                players.append(None)
                continue
            pl: dict[str, Any] = {
                "coins": c.int_(d["coins"], f"{path}.coins", 0, self.max_coins),
                "assistants": c.int_(d["assistants"], f"{path}.assistants", 0, INT16_MAX),
                "vp": c.int_(d["vp"], f"{path}.vp", 0, INT16_MAX),
                "nobility": c.int_(d["nobility"], f"{path}.nobility", 0, _board.NOBILITY_MAX),
                "hand_size": c.int_(d["hand_size"], f"{path}.hand_size", 0, N_CARDS),
            }
            hidden = self.view and p != self.viewer
            if d["hand"] is None:
                pl["hand"] = None
                if not self.viewer_known:
                    pass
                elif not self.view:
                    c.bad(f"{path}.hand", "must be given in a full state (viewer is null)")
                elif not hidden:
                    c.bad(f"{path}.hand", "the viewer's own hand must be given")
            else:
                pl["hand"] = c.cards(d["hand"], f"{path}.hand")
                if hidden:
                    c.bad(
                        f"{path}.hand",
                        f"must be null: seat {p}'s hand is hidden in seat {self.viewer}'s view",
                    )
            pl["emporiums"] = c.unique_list(
                d["emporiums"], f"{path}.emporiums", MAX_EMPORIUMS, c.city
            )
            for key in ("permits_face_up", "permits_face_down"):
                pl[key] = c.unique_list(d[key], f"{path}.{key}", N_TILES, c.tile)
            pl["bonus_tiles"] = c.unique_list(
                d["bonus_tiles"],
                f"{path}.bonus_tiles",
                len(BONUS_TILES),
                lambda x, q: c.name(x, q, BONUS_TILES, "bonus tile"),
            )
            pl["king_tiles"] = c.unique_list(
                d["king_tiles"],
                f"{path}.king_tiles",
                len(KING_TILES),
                self._king_tile,
            )
            players.append(pl)
        return players

    def _king_tile(self, value, path):
        if value is _MISSING:
            return None
        if not _is_int(value) or value not in KING_TILES:
            self.c.bad(path, f"must be the VP of a king reward tile: one of {list(KING_TILES)}")
            return None
        return KING_TILES.index(value)

    # -- turn ----------------------------------------------------------------------------
    def _read_turn(self, value):
        c = self.c
        d = c.obj(value, "turn", TURN_FIELDS)
        if d is None:
            return None
        seats = (self.n or MAX_PLAYERS) - 1
        t: dict[str, Any] = {
            "current": c.int_(d["current"], "turn.current", 0, seats),
            "number": c.int_(d["number"], "turn.number", 1, INT32_MAX),
            "action_count": c.int_(d["action_count"], "turn.action_count", 0, INT32_MAX),
            "main_left": c.int_(d["main_left"], "turn.main_left", 0, INT8_MAX),
            "main_done": c.int_(d["main_done"], "turn.main_done", 0, INT8_MAX),
            "quick_used": c.bool_(d["quick_used"], "turn.quick_used"),
            "game_over": c.bool_(d["game_over"], "turn.game_over"),
        }
        t["end_trigger"] = (
            -1
            if d["end_trigger"] is None
            else c.int_(d["end_trigger"], "turn.end_trigger", 0, seats)
        )
        items = c.list_(d["pending"], "turn.pending", MAX_PENDING_DECISIONS)
        t["pending"] = None
        if items is not None:
            t["pending"] = [
                self._read_pending(x, f"turn.pending[{i}]") for i, x in enumerate(items)
            ]
        return t

    def _read_pending(self, value, path):
        c = self.c
        d = c.obj(value, path, PENDING_FIELDS)
        if d is None:
            return None
        kind = c.name(d["kind"], f"{path}.kind", tuple(PENDING_KIND_IDS), "decision kind")
        if kind is None or d["arg"] is _MISSING:
            return None
        name = tuple(PENDING_KIND_IDS)[kind]
        arg_path = f"{path}.arg"
        arg = d["arg"]
        if name == "pay_permit":
            a = c.obj(arg, arg_path, PAY_PERMIT_ARG_FIELDS, what='an object {"region", "slot"}')
            if a is None:
                return None
            region = c.name(a["region"], f"{arg_path}.region", REGIONS, "region")
            slot = c.int_(a["slot"], f"{arg_path}.slot", 0, 1)
            if region is None or slot is None:
                return None
            return (name, region * 2 + slot)
        if name in ("pay_king", "second_of_two_city_tokens"):
            city = c.city(arg, arg_path)
            return None if city is None else (name, city)
        if arg is not None:
            c.bad(arg_path, f"must be null for {name}")
            return None
        return (name, 0)

    # -- consistency ---------------------------------------------------------------------
    def _check(self, b, players, turn):
        c = self.c
        n = self.n
        layout = self.layout

        self._check_cards(b, players)

        # Councillors: 4 per colour, 4 per balcony (by shape), so 8 in the pool.
        for k, colour in enumerate(COLOURS):
            on = sum(row.count(k) for row in b["balconies"])
            if on + b["pool"][k] != COUNCILLORS_PER_COLOUR:
                c.bad(
                    f"board.pool.{colour}",
                    f"{colour} councillors: {on} in balconies + {b['pool'][k]} in the pool, "
                    f"must total {COUNCILLORS_PER_COLOUR}",
                )

        # Permit tiles: each of the 45 exactly once; decks and slots hold their region's.
        where: dict[int, str] = {}

        def place(tile, path, region=None):
            if region is not None and tile // TILES_PER_REGION != region:
                c.bad(path, f"tile {tile} belongs to the {REGIONS[tile // TILES_PER_REGION]}")
            if tile in where:
                c.bad(path, f"tile {tile} is also at {where[tile]}: each tile exists once")
            else:
                where[tile] = path

        for g, region in enumerate(REGIONS):
            for part, items in zip(DECK_FIELDS, b["permit_decks"][g], strict=True):
                for i, t in enumerate(items):
                    place(t, f"board.permit_decks.{region}.{part}[{i}]", g)
            unknown = b["permit_decks"][g][0]
            if self.view and unknown != sorted(unknown):
                c.bad(
                    f"board.permit_decks.{region}.unknown",
                    "must be in increasing order in a view (the deck order is hidden)",
                )
            deck_size = sum(map(len, b["permit_decks"][g]))
            for s, t in enumerate(b["face_up"][g]):
                path = f"board.face_up.{region}[{s}]"
                if t >= 0:
                    place(t, path, g)
                elif deck_size and not turn["pending"]:
                    c.bad(
                        path,
                        "is empty while the region's deck still has tiles and no decision is "
                        "pending (a taken tile is replaced once its bonus has resolved)",
                    )
        for p, pl in enumerate(players):
            for key in ("permits_face_up", "permits_face_down"):
                for i, t in enumerate(pl[key]):
                    place(t, f"players[{p}].{key}[{i}]")
        missing = [t for t in range(N_TILES) if t not in where]
        if missing:
            c.bad(
                "board.permit_decks",
                f"permit tile(s) {', '.join(map(str, missing))} are nowhere: every tile must be "
                "in a deck, a face-up slot or a player's tiles",
            )

        # Emporiums.
        neutral = set(b["neutral_emporiums"])
        if n != 2 and neutral:
            c.bad("board.neutral_emporiums", "must be empty: neutral emporiums need 2 players")
        if n == 2:
            for g, region in enumerate(REGIONS):
                here = {x for x in neutral if _board.CITY_REGION[x] == g}
                if not any(set(t.cities) == here for t in _board.PERMIT_TILES if t.region == g):
                    names = ", ".join(CITIES[x] for x in sorted(here)) or "none"
                    c.bad(
                        "board.neutral_emporiums",
                        f"the neutral emporiums in the {region} ({names}) must be the cities "
                        f"of one {region} permit tile",
                    )
        for p, pl in enumerate(players):
            own = set(pl["emporiums"])
            for i, t in enumerate(pl["permits_face_down"]):
                if not own & set(_board.PERMIT_TILES[t].cities):
                    c.bad(
                        f"players[{p}].permits_face_down[{i}]",
                        f"tile {t} is used, so the player must have an emporium in one of its "
                        "cities",
                    )
        trigger = turn["end_trigger"]
        full = [p for p, pl in enumerate(players) if len(pl["emporiums"]) == MAX_EMPORIUMS]
        if trigger >= 0:
            if trigger not in full:
                c.bad(
                    "turn.end_trigger",
                    f"seat {trigger} must have built all {MAX_EMPORIUMS} emporiums",
                )
            elif players[trigger]["vp"] < _board.RULE_NUMBERS["tenth_emporium_vp"]:
                c.bad(
                    f"players[{trigger}].vp",
                    "the player who built the 10th emporium first has scored "
                    f"{_board.RULE_NUMBERS['tenth_emporium_vp']} VP for it",
                )
        elif full:
            c.bad(
                "turn.end_trigger",
                f"must be set: seat {full[0]} has built all {MAX_EMPORIUMS} emporiums",
            )

        # Bonus tiles and king reward tiles.
        region_cities = [
            {x for x in range(N_CITIES) if _board.CITY_REGION[x] == g} for g in range(len(REGIONS))
        ]
        colours = layout.city_colours
        colour_cities = [
            {x for x in range(N_CITIES) if colours[x] == k} for k in range(len(_board.CITY_COLOURS))
        ]
        needed = region_cities + colour_cities
        left = set(b["bonus_tiles_left"])
        holder: dict[int, str] = {}
        for p, pl in enumerate(players):
            for i, t in enumerate(pl["bonus_tiles"]):
                path = f"players[{p}].bonus_tiles[{i}]"
                if t in holder:
                    c.bad(path, f"the {BONUS_TILES[t]} tile is also held at {holder[t]}")
                    continue
                holder[t] = path
                if t in left:
                    c.bad(path, f"the {BONUS_TILES[t]} tile is also in board.bonus_tiles_left")
                if not needed[t] <= set(pl["emporiums"]):
                    c.bad(
                        path,
                        f"the {BONUS_TILES[t]} tile needs an emporium in each of its cities",
                    )
        for t in range(len(BONUS_TILES)):
            if t not in left and t not in holder:
                c.bad(
                    "board.bonus_tiles_left",
                    f"the {BONUS_TILES[t]} tile is neither on the board nor held by a player",
                )
            if t in left:
                for p, pl in enumerate(players):
                    if needed[t] <= set(pl["emporiums"]):
                        c.bad(
                            "board.bonus_tiles_left",
                            f"the {BONUS_TILES[t]} tile is taken: seat {p} has an emporium in "
                            "each of its cities",
                        )
                        break
        taken = b["king_tiles_taken"]
        expected = min(len(KING_TILES), len(BONUS_TILES) - len(left))
        if taken != expected:
            c.bad(
                "board.king_tiles_taken",
                f"must be {expected}: one king reward tile comes with each of the "
                f"{len(BONUS_TILES) - len(left)} bonus tiles taken while any remain",
            )
        kholder: dict[int, str] = {}
        for p, pl in enumerate(players):
            if len(pl["king_tiles"]) > len(pl["bonus_tiles"]):
                c.bad(
                    f"players[{p}].king_tiles",
                    "a player holds at most one king reward tile per bonus tile",
                )
            for i, k in enumerate(pl["king_tiles"]):
                path = f"players[{p}].king_tiles[{i}]"
                if k in kholder:
                    c.bad(path, f"king reward tile {KING_TILES[k]} is also held at {kholder[k]}")
                else:
                    kholder[k] = path
                if k >= taken:
                    c.bad(
                        path,
                        f"king reward tile {KING_TILES[k]} is still on the board: the tiles are "
                        f"taken in the order {list(KING_TILES)} and {taken} have been taken",
                    )
        for k in range(min(taken, len(KING_TILES))):
            if k not in kholder:
                c.bad(
                    "board.king_tiles_taken",
                    f"king reward tile {KING_TILES[k]} has been taken but no player holds it",
                )

        # Assistants in a limited supply.
        supply = self.cfg.assistant_supply
        if supply and sum(pl["assistants"] for pl in players) > supply:
            c.bad(
                "players",
                f"the players hold {sum(pl['assistants'] for pl in players)} assistants, more "
                f"than the supply of {supply}",
            )

        # The turn.
        cur, number = turn["current"], turn["number"]
        if cur != (number - 1) % n:
            c.bad(
                "turn.current",
                f"must be {(number - 1) % n}: seat 0 plays turn 1 and seats follow in order "
                f"(turn {number})",
            )
        if turn["action_count"] < number - 1:
            c.bad(
                "turn.action_count", f"must be at least {number - 1}: each turn ends by an action"
            )
        pending = turn["pending"]
        if turn["game_over"]:
            if trigger < 0:
                c.bad("turn.game_over", "the game ends only after a player built 10 emporiums")
            elif cur != (trigger - 1) % n:
                c.bad(
                    "turn.current",
                    f"must be {(trigger - 1) % n} in a finished game: the last turn is the one "
                    f"before seat {trigger}'s",
                )
            if pending:
                c.bad("turn.pending", "must be empty once the game is over")
            if turn["main_done"] < 1:
                c.bad("turn.main_done", "a turn ends only after a main action")
        elif turn["main_left"] + turn["main_done"] < 1:
            c.bad(
                "turn.main_left",
                "every turn has at least one main action: main_left + main_done must be ≥ 1",
            )
        me = players[cur]
        for i, (name, arg) in enumerate(pending):
            path = f"turn.pending[{i}]"
            if turn["main_done"] < 1:
                c.bad(path, "decisions are pending only during a main action (main_done ≥ 1)")
            if name in PAYMENT_KINDS:
                if len(pending) != 1:
                    c.bad(path, "a payment must be the only pending decision")
                if name == "pay_permit":
                    g, s = arg >> 1, arg & 1
                    if b["face_up"][g][s] < 0:
                        c.bad(f"{path}.arg", f"the {REGIONS[g]} face-up slot {s} is empty")
                elif arg in me["emporiums"]:
                    c.bad(f"{path}.arg", f"seat {cur} already has an emporium in {CITIES[arg]}")
                elif len(me["emporiums"]) >= MAX_EMPORIUMS:
                    c.bad(f"{path}.arg", f"seat {cur} has no emporium left to build")
            elif name == "second_of_two_city_tokens":
                if i != 0:
                    c.bad(path, "the second of two city tokens is chosen right after the first")
                token = b["city_tokens"][arg]
                if arg not in me["emporiums"] or token < 0 or TOKEN_HAS_NOBILITY[token]:
                    c.bad(
                        f"{path}.arg",
                        f"{CITIES[arg]} is not a city whose token seat {cur} could have chosen",
                    )

    def _check_cards(self, b, players):
        """Politics cards: 90 in all (13 per colour, 12 jokers)."""
        c = self.c
        deck = b["politics_deck"]
        if self.view and b["politics_deck_given"]:
            c.bad("board.politics_deck", "must be null in a view (the deck is hidden)")
            return
        if not self.view and not b["politics_deck_given"]:
            c.bad("board.politics_deck", "must be given in a full state (viewer is null)")
            return
        if deck is not None and sum(deck) != b["politics_deck_size"]:
            c.bad(
                "board.politics_deck_size",
                f"must equal the number of cards in board.politics_deck ({sum(deck)}), "
                f"got {b['politics_deck_size']}",
            )
        for p, pl in enumerate(players):
            if pl["hand"] is not None and sum(pl["hand"]) != pl["hand_size"]:
                c.bad(
                    f"players[{p}].hand_size",
                    f"must equal the number of cards in the hand ({sum(pl['hand'])}), "
                    f"got {pl['hand_size']}",
                )
        for i, kind in enumerate(CARD_KINDS):
            seen = b["discard"][i] + sum(pl["hand"][i] for pl in players if pl["hand"] is not None)
            if deck is not None:
                seen += deck[i]
                if seen != CARDS_PER_KIND[i]:
                    c.bad(
                        f"board.politics_deck.{kind}",
                        f"{kind} cards in hands, deck and discard pile add up to {seen}, "
                        f"must be {CARDS_PER_KIND[i]}",
                    )
            elif seen > CARDS_PER_KIND[i]:
                c.bad(
                    f"board.discard.{kind}",
                    f"{kind} cards in the viewer's hand and the discard pile add up to {seen}, "
                    f"more than the {CARDS_PER_KIND[i]} in the game",
                )
        total = b["politics_deck_size"] + sum(b["discard"]) + sum(pl["hand_size"] for pl in players)
        if total != N_CARDS:
            c.bad(
                "board.politics_deck_size",
                f"deck size, discard pile and hand sizes add up to {total} cards, "
                f"must be {N_CARDS}",
            )

    def _raw(self, b, players, turn) -> dict:
        """The core's raw struct dict (State.to_raw form) of a validated position."""
        n = self.n
        permit_deck, deck_n, deck_known = [], [], []
        for g in range(len(REGIONS)):
            unknown, known = b["permit_decks"][g]
            tiles = unknown + known
            permit_deck.append(tiles + [-1] * (TILES_PER_REGION - len(tiles)))
            deck_n.append(len(tiles))
            deck_known.append(len(known))

        def per_player(f, default=0):
            return [f(players[p]) if p < n else default for p in range(MAX_PLAYERS)]

        def mask(items):
            return sum(1 << i for i in items)

        pending = turn["pending"]
        hidden_hand = [0] * len(CARD_KINDS)
        raw = {
            "n_players": n,
            "layout": self.layout.index,
            "max_coins": self.cfg.max_coins,
            "assistant_supply": self.cfg.assistant_supply,
            "permit_tie_all": int(self.cfg.permit_tie_all_score),
            "nobility_on_pass": int(self.cfg.nobility_bonus_on_pass),
            "rng": self.rng,
            "city_token": b["city_tokens"],
            "king_city": b["king_city"],
            "balcony": b["balconies"],
            "pool": b["pool"],
            "permit_deck": permit_deck,
            "deck_n": deck_n,
            "deck_known": deck_known,
            "face_up": b["face_up"],
            "politics_deck": b["politics_deck"] or [0] * len(CARD_KINDS),
            "politics_deck_n": b["politics_deck_size"],
            "discard": b["discard"],
            "bonus_tiles_left": mask(b["bonus_tiles_left"]),
            "king_tiles_taken": b["king_tiles_taken"],
            "neutral": mask(b["neutral_emporiums"]),
            "coins": per_player(lambda pl: pl["coins"]),
            "assistants": per_player(lambda pl: pl["assistants"]),
            "vp": per_player(lambda pl: pl["vp"]),
            "nobility": per_player(lambda pl: pl["nobility"]),
            "hand": per_player(lambda pl: pl["hand"] or hidden_hand, hidden_hand),
            "hand_n": per_player(lambda pl: pl["hand_size"]),
            "emporia": per_player(lambda pl: mask(pl["emporiums"])),
            "emporia_n": per_player(lambda pl: len(pl["emporiums"])),
            "permits_up": per_player(lambda pl: mask(pl["permits_face_up"])),
            "permits_down": per_player(lambda pl: mask(pl["permits_face_down"])),
            "bonus_tiles": per_player(lambda pl: mask(pl["bonus_tiles"])),
            "king_tiles": per_player(lambda pl: mask(pl["king_tiles"])),
            "current": turn["current"],
            "main_left": turn["main_left"],
            "main_done": turn["main_done"],
            "quick_used": int(turn["quick_used"]),
            "end_trigger": turn["end_trigger"],
            "game_over": int(turn["game_over"]),
            "pending_n": len(pending),
            "pending_kind": [PENDING_KIND_IDS[k] for k, _ in pending]
            + [0] * (MAX_PENDING - len(pending)),
            "pending_arg": [a for _, a in pending] + [0] * (MAX_PENDING - len(pending)),
            "turn": turn["number"],
            "action_count": turn["action_count"],
            "viewer": -1 if self.viewer is None else self.viewer,
        }
        return raw

    def _check_playable(self, raw, turn):
        """A game in progress must offer its player at least one legal action. Checked where
        the player's hand is known: in a full state, or in the view of the player to act."""
        if turn["game_over"] or (self.view and self.viewer != turn["current"]):
            return
        state = State.from_raw(raw)
        if self.view:
            state = state.determinize(0)
        if not state.legal_actions():
            where = "turn.pending[0]" if turn["pending"] else "turn"
            self.c.bad(where, "the player to act has no legal action in this position")
