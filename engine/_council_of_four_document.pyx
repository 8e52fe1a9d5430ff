# A position as a council.v1.GameState message, read straight into the core's struct (from
# the message's wire bytes, see _Wire) and written straight from it. The message is the one
# schema of a position: its protobuf JSON mapping is the engine's JSON form
# (council.engine.serialize), and the service receives and sends it as is. Reading checks
# what the struct could not hold (names, ranges, duplicates within a list, which parts a
# view hides); the consistency of the whole position is
# council.engine._council_of_four_status.problems, run on the loaded struct.
#
# Paths in problems are GameState field paths (`players[1].coins`,
# `board.face_up.coast.slot0`, `turn.pending[0].city`); `(root)` is the message itself.

from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from libc.string cimport memset

from council.engine._council_of_four cimport (
    BALCONY_SIZE, MAX_EMPORIUMS, MAX_PLAYERS, N_BALCONIES, N_CARD_KINDS,
    N_CITIES, N_COLOURS, N_KING_TILES, N_REGIONS, N_TILES, N_TOKENS, NOBILITY_MAX,
    P_PAY_KING, P_PAY_PERMIT, P_TOKEN_PAIR_SECOND, TILES_PER_REGION, GameState, CouncilOfFourState,
    make_view,
)

from council.engine._council_of_four_status cimport state_problems

from google.protobuf.descriptor import FieldDescriptor

from council.engine import council_of_four_board as _board
from council.engine._council_of_four import Decision
from council.engine.council_of_four_config import CouncilOfFourConfig
from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb

FORMAT = "council-of-four/1"

REGIONS = _board.REGIONS
BALCONIES = REGIONS + ("king",)
COLOURS = _board.COUNCILLOR_COLOURS
CARD_KINDS = _board.CARD_KINDS
CITIES = _board.CITY_NAMES
BONUS_TILES = _board.BONUS_TILE_NAMES
KING_TILES = _board.KING_REWARD_TILES
# At most 4 decisions are ever queued: only nobility spaces 4, 10, 14 and 16 raise one, and
# a player reaches each once; a payment is always the only pending decision.
MAX_PENDING_DECISIONS = 4
# A message lists at most this many problems, then one saying how many more it had
# ("and N more problems not listed", at "(root)"): 300,000 bad names in a 1 MB message
# would otherwise cost a second and 50 MB of sentences (council.server.errors caps replies
# the same way).
MAX_PROBLEMS = 50

cdef int INT8_MAX = 127
cdef int INT16_MAX = 32767
cdef long INT32_MAX = 2147483647
cdef int N_CARDS = (
    _board.RULE_NUMBERS["politics_cards"]["per_colour"] * N_COLOURS
    + _board.RULE_NUMBERS["politics_cards"]["jokers"]
)
cdef int CARDS_PER_COLOUR = _board.RULE_NUMBERS["politics_cards"]["per_colour"]
cdef int JOKERS = _board.RULE_NUMBERS["politics_cards"]["jokers"]
cdef int COUNCILLORS_PER_COLOUR = _board.RULE_NUMBERS["councillors_per_colour"]

cdef dict CITY_INDEX = {name: i for i, name in enumerate(CITIES)}
cdef dict COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}
cdef dict REGION_INDEX = {name: i for i, name in enumerate(REGIONS)}
cdef dict BONUS_INDEX = {name: i for i, name in enumerate(BONUS_TILES)}
cdef dict KING_TILE_INDEX = {vp: i for i, vp in enumerate(KING_TILES)}
cdef dict DECISION_INDEX = {d.name: d.value for d in Decision}
cdef tuple DECISION_NAMES = tuple(d.name for d in Decision)
cdef tuple LAYOUT_KING_CITY = tuple(
    _board.Layout.from_index(i).king_city for i in range(len(_board.LAYOUT_CODES))
)
# Paths that every read would otherwise format anew.
cdef tuple DECK_PATHS = tuple(f"board.permit_decks.{r}" for r in REGIONS)
cdef tuple FACE_UP_PATHS = tuple(f"board.face_up.{r}" for r in REGIONS)
cdef tuple PLAYER_PATHS = tuple(f"players[{p}]" for p in range(MAX_PLAYERS))
cdef tuple PENDING_PATHS = tuple(f"turn.pending[{i}]" for i in range(MAX_PENDING_DECISIONS))
CONFIG_FIELDS = tuple(CouncilOfFourConfig.__dataclass_fields__)
# How each config field reads off the wire (its protobuf type).
CONFIG_KINDS = tuple(pb.GameConfig.DESCRIPTOR.fields_by_name[f].type for f in CONFIG_FIELDS)
cdef int TYPE_STRING = FieldDescriptor.TYPE_STRING
cdef int TYPE_BOOL = FieldDescriptor.TYPE_BOOL
# Checked configurations, by their six values: a service sees few distinct ones.
cdef dict _CONFIGS = {}


# -- a message read from its wire bytes ---------------------------------------------------
# upb's Python attribute access costs 150-200 ns a field (a wrapper object for every
# sub-message and repeated field), which made reading a position cost more than the RPC
# around it. The board and the players are read from the message's serialized bytes instead
# (SerializeToString is one C call): a scan of a few hundred bytes, with field numbers taken
# from the descriptors, so the schema stays the one source of the layout.
#
# The bytes are those of a message protobuf has parsed: its known fields come out canonical,
# but what it kept as *unknown fields* comes out verbatim, and the scan must ignore exactly
# those, or the engine would read another position than protobuf's accessors give
# (tests/engine/test_wire_agreement.py compares the two readings over mutated messages):
# - a field number the message does not declare (_Type.accepts has no wire type for it);
# - a declared number with another wire type than its type's (a repeated number also
#   accepts the packed form, wire type 2);
# - groups (wire types 3 and 4), which no field of ours is: skipped whole;
# - a map entry holding anything but its key and value: upb moves the whole entry to the
#   parent's unknown fields, under the map's own number and wire type (str_int_map).
# Dropping the unknown fields from a copy first (DiscardUnknownFields) would read the same,
# at the cost of copying every message read.

ctypedef const unsigned char* cbytes

cdef enum:
    MAX_FIELD_NUMBER = 31  # the largest field number of the position's messages (checked)


class _Malformed(ValueError):
    """Bytes the scan cannot read. Never raised for a message protobuf parsed; read_state
    reports it as a problem rather than letting it out."""


cdef cbytes _varint(cbytes p, cbytes end, uint64_t* out) noexcept nogil:
    cdef uint64_t v = 0
    cdef int shift = 0
    while p < end and shift < 64:
        v |= (<uint64_t>(p[0] & 0x7F)) << shift
        if p[0] < 0x80:
            out[0] = v
            return p + 1
        p += 1
        shift += 7
    return NULL


cdef cbytes _skip(cbytes p, cbytes end, int wire) noexcept nogil:
    """The end of a value of wire type 0, 1, 2 or 5 starting at `p`, or NULL."""
    cdef uint64_t size
    if wire == 0:
        return _varint(p, end, &size)
    if wire == 2:
        p = _varint(p, end, &size)
        if p == NULL or size > <uint64_t>(end - p):
            return NULL
        return p + size
    if wire == 1 and end - p >= 8:
        return p + 8
    if wire == 5 and end - p >= 4:
        return p + 4
    return NULL


cdef cbytes _field(cbytes p, cbytes end, int* number, int* wire, cbytes* value,
                   cbytes* value_end) noexcept nogil:
    """Read one field's key at `p`: its number (0 for one above MAX_FIELD_NUMBER: no field
    of ours) and wire type, where its value starts and ends (for a varint, the varint
    itself; for a group, its fields); the next field's position, or NULL."""
    cdef uint64_t key, size
    cdef int depth
    p = _varint(p, end, &key)
    if p == NULL:
        return NULL
    number[0] = <int>(key >> 3) if key >> 3 <= MAX_FIELD_NUMBER else 0
    wire[0] = <int>(key & 7)
    value[0] = p
    if wire[0] == 2:
        p = _varint(p, end, &size)
        if p == NULL or size > <uint64_t>(end - p):
            return NULL
        value[0] = p
        p += size
    elif wire[0] == 3:
        # A group ends at the end-group key that closes it; protobuf has checked that the
        # numbers of nested start and end keys match.
        depth = 1
        while True:
            value_end[0] = p
            p = _varint(p, end, &key)
            if p == NULL:
                return NULL
            if (key & 7) == 3:
                depth += 1
            elif (key & 7) == 4:
                depth -= 1
                if depth == 0:
                    return p
            else:
                p = _skip(p, end, key & 7)
                if p == NULL:
                    return NULL
    else:
        p = _skip(p, end, wire[0])
        if p == NULL:
            return NULL
    value_end[0] = p
    return p


# The field types the scan reads, and their wire type.
cdef dict _WIRE_OF_TYPE = {
    FieldDescriptor.TYPE_INT32: 0,
    FieldDescriptor.TYPE_UINT64: 0,
    FieldDescriptor.TYPE_BOOL: 0,
    FieldDescriptor.TYPE_ENUM: 0,
    FieldDescriptor.TYPE_STRING: 2,
    FieldDescriptor.TYPE_MESSAGE: 2,
}


cdef class _Type:
    """What the scan knows of one message type, from its descriptor."""

    cdef str name
    cdef dict fields  # field name -> (number, nested _Type or None)
    # Per field number, a bit for each wire type protobuf reads as the declared field.
    cdef unsigned char accepts[MAX_FIELD_NUMBER + 1]


cdef dict _TYPES = {}  # message full name -> _Type


cdef _Type _describe(descriptor):
    cdef _Type t = _TYPES.get(descriptor.full_name)
    if t is not None:
        return t
    t = _Type.__new__(_Type)
    t.name = descriptor.full_name
    t.fields = {}
    memset(t.accepts, 0, sizeof(t.accepts))
    _TYPES[t.name] = t  # before the nested types: a type may nest itself
    for f in descriptor.fields:
        if f.number > MAX_FIELD_NUMBER:
            raise ImportError(f"{f.full_name}: field number {f.number} > {MAX_FIELD_NUMBER}")
        if f.type not in _WIRE_OF_TYPE:
            raise ImportError(f"{f.full_name}: the wire scan reads no field of type {f.type}")
        t.accepts[f.number] = 1 << _WIRE_OF_TYPE[f.type]
        if f.is_repeated and _WIRE_OF_TYPE[f.type] == 0:
            t.accepts[f.number] |= 1 << 2  # packed
        nested = f.message_type
        t.fields[f.name] = (f.number, _describe(nested) if nested is not None else None)
    return t


cdef _Type GAME_STATE = _describe(pb.GameState.DESCRIPTOR)


cdef inline bint _known(const unsigned char* accepts, int number, int wire) noexcept nogil:
    """Whether protobuf reads a field of this number and wire type as the declared field
    (if not, it keeps it as an unknown field)."""
    return (accepts[number] >> wire) & 1


cdef class _Wire:
    """One message's fields, read from its serialized bytes by field name. Absent fields
    read as their zero value, as protobuf's own accessors give them; unknown fields are
    not read."""

    cdef bytes data   # keeps the bytes alive
    cdef cbytes start
    cdef cbytes end
    cdef _Type type
    cdef int last[MAX_FIELD_NUMBER + 1]  # offset of each field's last value, -1 absent
    cdef int last_end[MAX_FIELD_NUMBER + 1]

    @staticmethod
    cdef _Wire over(bytes data, Py_ssize_t lo, Py_ssize_t hi, _Type type):
        cdef _Wire w = _Wire.__new__(_Wire)
        cdef int number, wire
        cdef cbytes p, value, value_end
        w.data = data
        w.start = <cbytes>(<const char*>data) + lo
        w.end = <cbytes>(<const char*>data) + hi
        w.type = type
        for number in range(MAX_FIELD_NUMBER + 1):
            w.last[number] = -1
        p = w.start
        while p != NULL and p < w.end:
            p = _field(p, w.end, &number, &wire, &value, &value_end)
            if p != NULL and _known(type.accepts, number, wire):
                w.last[number] = value - w.start
                w.last_end[number] = value_end - w.start
        if p == NULL:
            raise _Malformed(f"malformed {type.name} message")
        return w

    cdef int number(self, str name) except -1:
        return self.type.fields[name][0]

    cdef bint has(self, str name) except -1:
        return self.last[self.number(name)] >= 0

    cdef uint64_t uint64_(self, str name) except? 0:
        cdef int i = self.number(name)
        cdef uint64_t v = 0
        if self.last[i] >= 0:
            _varint(self.start + self.last[i], self.end, &v)
        return v

    cdef object value(self, str name, int kind):
        """A scalar field as Python gives it: str for TYPE_STRING, bool for TYPE_BOOL, else
        int (int32)."""
        if kind == TYPE_STRING:
            return self.string(name)
        if kind == TYPE_BOOL:
            return self.int_(name) != 0
        return self.int_(name)

    cdef long int_(self, str name) except? -1:
        """An int32 field (int64 for other varint fields is not needed here)."""
        cdef int i = self.number(name)
        cdef uint64_t v = 0
        if self.last[i] < 0:
            return 0
        _varint(self.start + self.last[i], self.end, &v)
        return <int32_t>v

    cdef str string(self, str name):
        cdef int i = self.number(name)
        if self.last[i] < 0:
            return ""
        return (<const char*>self.start)[self.last[i]:self.last_end[i]].decode("utf-8")

    cdef _Wire sub(self, str name):
        """The sub-message (an empty one when absent)."""
        number, nested = self.type.fields[name]
        cdef Py_ssize_t base = self.start - <cbytes>(<const char*>self.data)
        if self.last[number] < 0:
            return _Wire.over(self.data, base, base, nested)
        return _Wire.over(self.data, base + self.last[number], base + self.last_end[number],
                          nested)

    cdef list ints(self, str name):
        """A repeated int32 field, packed or not."""
        cdef int want = self.number(name), number, wire
        cdef uint64_t v = 0
        cdef cbytes p = self.start, q, value, value_end
        out = []
        if self.last[want] < 0:
            return out
        while p < self.end:
            p = _field(p, self.end, &number, &wire, &value, &value_end)
            if number != want or not _known(self.type.accepts, number, wire):
                continue
            q = value
            while q != NULL and q < value_end:
                q = _varint(q, value_end, &v)
                out.append(<int32_t>v)
        return out

    cdef list strings(self, str name):
        """A repeated string field."""
        cdef int want = self.number(name), number, wire
        cdef cbytes p = self.start, value, value_end
        out = []
        if self.last[want] < 0:
            return out
        while p < self.end:
            p = _field(p, self.end, &number, &wire, &value, &value_end)
            if number == want and _known(self.type.accepts, number, wire):
                out.append((<const char*>value)[:value_end - value].decode("utf-8"))
        return out

    cdef list subs(self, str name):
        """A repeated message field."""
        cdef int want = self.number(name), number, wire
        cdef cbytes base = <cbytes>(<const char*>self.data), p = self.start, value, value_end
        nested = self.type.fields[name][1]
        out = []
        if self.last[want] < 0:
            return out
        while p < self.end:
            p = _field(p, self.end, &number, &wire, &value, &value_end)
            if number == want and _known(self.type.accepts, number, wire):
                out.append(_Wire.over(self.data, value - base, value_end - base, nested))
        return out

    cdef dict str_int_map(self, str name):
        """A map<string, int32> field. Its entries are messages whose key is field 1 and
        value field 2 (fixed by the protobuf encoding of maps). An entry holding any other
        field is not in protobuf's map (upb keeps it as an unknown field): skipped."""
        cdef int want = self.number(name), number, wire, inner_number, inner_wire
        cdef cbytes p = self.start, value, value_end, q, v, v_end
        cdef uint64_t n
        cdef bint entry
        out = {}
        if self.last[want] < 0:
            return out
        while p < self.end:
            p = _field(p, self.end, &number, &wire, &value, &value_end)
            if number != want or not _known(self.type.accepts, number, wire):
                continue
            key, n, entry = "", 0, True
            q = value
            while q != NULL and q < value_end and entry:
                q = _field(q, value_end, &inner_number, &inner_wire, &v, &v_end)
                if inner_number == 1 and inner_wire == 2:
                    key = (<const char*>v)[:v_end - v].decode("utf-8")
                elif inner_number == 2 and inner_wire == 0:
                    _varint(v, v_end, &n)
                else:
                    entry = False
            if entry:
                out[key] = <int32_t>n
        return out


cdef class _Reader:
    """Reads one GameState message into a struct, collecting (path, problem) pairs."""

    cdef GameState* g
    cdef list problems
    cdef long unlisted    # problems found beyond MAX_PROBLEMS
    cdef int n            # players, or 0 when config is unusable
    cdef int max_coins
    cdef int layout
    cdef int viewer       # -1: full state
    cdef bint demote      # a full state whose missing hands make it view_of's view
    # Demoted, or the viewer is unreadable: what a view hides (hands, deck, rng) is not
    # checked.
    cdef bint hiding_unchecked

    def __cinit__(self):
        self.problems = []

    cdef bad(self, str path, str problem):
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((path, problem))
        else:
            self.unlisted += 1

    cdef bint listing(self):
        """Whether one more problem would be listed. If not, it is counted here: the caller
        skips building its sentence (a repeated field can hold 100,000 bad items)."""
        if len(self.problems) < MAX_PROBLEMS:
            return True
        self.unlisted += 1
        return False

    # The path of a problem is built only when there is one: `path`, then `.field` if
    # given, then `[item]` if item >= 0. Building it for every field read would cost more
    # than the reading.
    cdef bint out_of(self, long value, long lo, long hi, str path, str field="",
                     int item=-1):
        """Report the path unless lo <= value <= hi; True when it was out of range."""
        if lo <= value <= hi:
            return False
        if self.listing():
            self.bad(_path(path, field, item), f"must be in {lo}..{hi}, got {value}")
        return True

    cdef bint in_range(self, _Wire msg, str field, long lo, long hi, str path,
                       long* value) except -1:
        """Read an int field into `value`; False (reported) when it is out of lo..hi."""
        value[0] = msg.int_(field)
        return not self.out_of(value[0], lo, hi, path, field)

    cdef int name(self, dict index, str value, str what, tuple names, str path, str field="",
                  int item=-1) except -2:
        """Index of `value` among `names`, or -1 (reported)."""
        cdef object i = index.get(value)
        if i is None:
            if self.listing():
                self.bad(_path(path, field, item),
                         f"unknown {what} {value!r}; one of {', '.join(map(str, names))}")
            return -1
        return i

    cdef bint has(self, _Wire msg, str field, str path) except -1:
        """Whether the message has the field; its absence is reported at `path`."""
        if msg.has(field):
            return True
        self.bad(path, "required field is missing")
        return False

    # -- top level ---------------------------------------------------------------------
    cdef void read(self, _Wire msg, int view_of) except *:
        cdef GameState* g = self.g
        cdef str format = msg.string("format")
        if format and format != FORMAT:
            self.bad("format", f"must be {FORMAT!r}, got {format!r}")
        self.n = 0
        self.max_coins = INT16_MAX
        if self.has(msg, "config", "config"):
            self.read_config(msg.sub("config"))
        self.viewer = -1
        if msg.has("viewer"):
            if self.out_of(msg.int_("viewer"), 0, (self.n or MAX_PLAYERS) - 1, "viewer"):
                self.hiding_unchecked = True
            else:
                self.viewer = msg.int_("viewer")
        players = msg.subs("players")
        if not msg.has("viewer") and view_of >= 0:
            self.demote = any([not (<_Wire>p).has("hand") for p in players])
            self.hiding_unchecked = self.demote
        g.viewer = self.viewer
        if self.viewer >= 0:
            if msg.has("rng"):
                self.bad("rng", "must be absent in a view (a view carries no chance state)")
        elif msg.has("rng"):
            g.rng = msg.uint64_("rng")
        elif not self.hiding_unchecked:
            self.bad("rng", "required in a full state (viewer is absent)")
        if self.has(msg, "board", "board"):
            self.read_board(msg.sub("board"))
        self.read_players(players)
        if self.has(msg, "turn", "turn"):
            self.read_turn(msg.sub("turn"))

    cdef void read_config(self, _Wire cfg) except *:
        cdef GameState* g = self.g
        cdef tuple key
        missing = [f for f in CONFIG_FIELDS if not cfg.has(f)]
        for f in missing:
            self.bad(f"config.{f}", "required field is missing")
        if missing:
            return
        key = tuple([cfg.value(f, k) for f, k in zip(CONFIG_FIELDS, CONFIG_KINDS)])
        checked = _CONFIGS.get(key)
        if checked is None:
            checked = _check_config(dict(zip(CONFIG_FIELDS, key)))
            if len(_CONFIGS) < 256:
                _CONFIGS[key] = checked
        if isinstance(checked, list):
            for path, problem in checked:
                self.bad(f"config.{path}", problem)
            return
        self.n = checked.players
        self.max_coins = checked.max_coins
        self.layout = checked.layout_index
        g.n_players = self.n
        g.layout = self.layout
        g.max_coins = self.max_coins
        g.assistant_supply = checked.assistant_supply
        g.permit_tie_all = checked.permit_tie_all_score
        g.nobility_on_pass = checked.nobility_bonus_on_pass

    # -- board -------------------------------------------------------------------------
    cdef void read_board(self, _Wire b) except *:
        cdef GameState* g = self.g
        cdef int i, k, r, c
        cdef _Wire balconies, pool, decks, face_up, slots
        c = self.name(CITY_INDEX, b.string("king_city"), "city", CITIES, "board.king_city")
        g.king_city = c
        self.read_tokens(b.str_int_map("city_tokens"))
        if self.has(b, "balconies", "board.balconies"):
            balconies = b.sub("balconies")
            for i in range(N_BALCONIES):
                row = balconies.strings(BALCONIES[i])
                if len(row) != BALCONY_SIZE:
                    self.bad(f"board.balconies.{BALCONIES[i]}",
                             f"must have exactly {BALCONY_SIZE} entries, got {len(row)}")
                    continue
                for k in range(BALCONY_SIZE):
                    g.balcony[i][k] = self.name(
                        COLOUR_INDEX, row[k], "colour", COLOURS, "board.balconies", BALCONIES[i],
                        k)
        if self.has(b, "pool", "board.pool"):
            pool = b.sub("pool")
            for k in range(N_COLOURS):
                v = pool.int_(COLOURS[k])
                if not self.out_of(v, 0, COUNCILLORS_PER_COLOUR, "board.pool", COLOURS[k]):
                    g.pool[k] = v
        if self.has(b, "permit_decks", "board.permit_decks"):
            decks = b.sub("permit_decks")
            for r in range(N_REGIONS):
                if self.has(decks, REGIONS[r], DECK_PATHS[r]):
                    self.read_deck(decks.sub(REGIONS[r]), r, DECK_PATHS[r])
        if self.has(b, "face_up", "board.face_up"):
            face_up = b.sub("face_up")
            for r in range(N_REGIONS):
                g.face_up[r][0] = g.face_up[r][1] = -1
                if self.has(face_up, REGIONS[r], FACE_UP_PATHS[r]):
                    slots = face_up.sub(REGIONS[r])
                    for k, slot in enumerate(("slot0", "slot1")):
                        if slots.has(slot) and not self.out_of(
                            slots.int_(slot), 0, N_TILES - 1, FACE_UP_PATHS[r], slot
                        ):
                            g.face_up[r][k] = slots.int_(slot)
        if b.has("politics_deck"):
            if self.viewer >= 0:
                self.bad("board.politics_deck", "must be absent in a view (the deck is hidden)")
            elif not self.demote:  # a demoted state's deck is dropped unread
                self.read_cards(b.sub("politics_deck"), g.politics_deck, "board",
                                "politics_deck")
        elif self.viewer < 0 and not self.hiding_unchecked:
            self.bad("board.politics_deck", "required in a full state (viewer is absent)")
        if not self.out_of(b.int_("politics_deck_size"), 0, N_CARDS, "board.politics_deck_size"):
            g.politics_deck_n = b.int_("politics_deck_size")
        if self.has(b, "discard", "board.discard"):
            self.read_cards(b.sub("discard"), g.discard, "board", "discard")
        g.bonus_tiles_left = self.name_set(
            b.strings("bonus_tiles_left"), "board", "bonus_tiles_left", BONUS_INDEX,
            "bonus tile", BONUS_TILES)
        if not self.out_of(b.int_("king_tiles_taken"), 0, N_KING_TILES,
                           "board.king_tiles_taken"):
            g.king_tiles_taken = b.int_("king_tiles_taken")
        g.neutral = self.name_set(
            b.strings("neutral_emporiums"), "board", "neutral_emporiums", CITY_INDEX, "city",
            CITIES)

    cdef void read_tokens(self, dict tokens) except *:
        cdef GameState* g = self.g
        cdef int c, t, home = -1
        cdef int8_t seen[N_TOKENS]
        memset(seen, -1, sizeof(seen))
        if self.n:
            home = LAYOUT_KING_CITY[self.layout]
        # In name order: the order of a map's entries on the wire is protobuf's to choose
        # (upb's hash table order), and one map must give one reading.
        unknown = [key for key in tokens if key not in CITY_INDEX or CITY_INDEX[key] == home]
        for key in sorted(unknown):
            if self.listing():
                self.bad(f"board.city_tokens.{key}", "unknown field")
        for c in range(N_CITIES):
            g.city_token[c] = -1
            if c == home:
                continue
            name = CITIES[c]
            if name not in tokens:
                if self.n:  # without a layout the king's city (no token) is unknown
                    self.bad(f"board.city_tokens.{name}", "required field is missing")
                continue
            t = tokens[name]
            if self.out_of(t, 0, N_TOKENS - 1, "board.city_tokens", name):
                continue
            if seen[t] >= 0:
                self.bad(f"board.city_tokens.{name}",
                         f"token {t} is also on {CITIES[seen[t]]}: each token lies on one city")
                continue
            seen[t] = c
            g.city_token[c] = t

    cdef void read_deck(self, _Wire deck, int r, str path) except *:
        cdef GameState* g = self.g
        cdef int i, n = 0, t
        unknown, known = deck.ints("unknown"), deck.ints("known_bottom")
        if len(unknown) + len(known) > TILES_PER_REGION:
            self.bad(path, f"must hold at most {TILES_PER_REGION} tiles, got "
                           f"{len(unknown) + len(known)}")
            return
        for part, items in (("unknown", unknown), ("known_bottom", known)):
            for i in range(len(items)):
                t = items[i]
                if not self.out_of(t, 0, N_TILES - 1, path, part, i):
                    g.permit_deck[r][n] = t
                    n += 1
        for i in range(n, TILES_PER_REGION):
            g.permit_deck[r][i] = -1
        g.deck_n[r] = n
        g.deck_known[r] = len(known)

    cdef void read_cards(self, _Wire cards, int16_t* out, str path, str field="") except *:
        cdef int k, v
        for k in range(N_CARD_KINDS):
            v = cards.int_(CARD_KINDS[k])
            if v < 0 or v > (JOKERS if k == N_COLOURS else CARDS_PER_COLOUR):
                self.out_of(v, 0, JOKERS if k == N_COLOURS else CARDS_PER_COLOUR,
                            _path(path, field, -1), CARD_KINDS[k])
            else:
                out[k] = v

    cdef uint64_t name_set(self, items, str path, str field, dict index, str what,
                           tuple names) except? 0:
        """A bitmask of the named items; unknown names and repeats are reported."""
        cdef uint64_t mask = 0
        cdef int i, j
        for i in range(len(items)):
            j = self.name(index, items[i], what, names, path, field, i)
            if j < 0:
                continue
            if (mask >> j) & 1 and self.listing():
                self.bad(_path(path, field, i),
                         f"duplicate of {_path(path, field, list(items).index(items[i]))}")
            mask |= (<uint64_t>1) << j
        return mask

    cdef uint64_t tile_set(self, items, str path, str field) except? 0:
        cdef uint64_t mask = 0
        cdef int i, t
        for i in range(len(items)):
            t = items[i]
            if self.out_of(t, 0, N_TILES - 1, path, field, i):
                continue
            if (mask >> t) & 1 and self.listing():
                self.bad(_path(path, field, i),
                         f"duplicate of {_path(path, field, list(items).index(t))}")
            mask |= (<uint64_t>1) << t
        return mask

    # -- players -----------------------------------------------------------------------
    cdef void read_players(self, list players) except *:
        cdef int p, n = len(players)
        if self.n and n != self.n:
            self.bad("players", f"must have one entry per player ({self.n}), got {n}")
            return
        if not 2 <= n <= MAX_PLAYERS:
            self.bad("players", f"must have 2 to {MAX_PLAYERS} entries, got {n}")
            return
        for p in range(n):
            self.read_player(players[p], p, PLAYER_PATHS[p])

    cdef void read_player(self, _Wire pl, int p, str path) except *:
        cdef GameState* g = self.g
        cdef uint64_t mask
        cdef int i, k
        cdef long v
        if self.in_range(pl, "coins", 0, self.max_coins, path, &v):
            g.coins[p] = v
        if self.in_range(pl, "assistants", 0, INT16_MAX, path, &v):
            g.assistants[p] = v
        if self.in_range(pl, "vp", 0, INT16_MAX, path, &v):
            g.vp[p] = v
        if self.in_range(pl, "nobility", 0, NOBILITY_MAX, path, &v):
            g.nobility[p] = v
        if self.in_range(pl, "hand_size", 0, N_CARDS, path, &v):
            g.hand_n[p] = v
        hidden = self.viewer >= 0 and p != self.viewer
        if pl.has("hand"):
            if hidden:
                self.bad(path + ".hand",
                         f"must be absent: seat {p}'s hand is hidden in seat {self.viewer}'s view")
            else:
                self.read_cards(pl.sub("hand"), g.hand[p], path, "hand")
        elif self.viewer < 0 and not self.hiding_unchecked:
            self.bad(path + ".hand", "required in a full state (viewer is absent)")
        elif p == self.viewer:
            self.bad(path + ".hand", "the viewer's own hand must be given")
        emporiums = pl.strings("emporiums")
        if len(emporiums) > MAX_EMPORIUMS:
            self.bad(path + ".emporiums",
                     f"must have at most {MAX_EMPORIUMS} entries, got {len(emporiums)}")
        else:
            mask = self.name_set(emporiums, path, "emporiums", CITY_INDEX, "city", CITIES)
            g.emporia[p] = mask
            g.emporia_n[p] = _popcount(mask)
        g.permits_up[p] = self.tile_set(pl.ints("permits_face_up"), path, "permits_face_up")
        g.permits_down[p] = self.tile_set(pl.ints("permits_face_down"), path,
                                          "permits_face_down")
        g.bonus_tiles[p] = self.name_set(
            pl.strings("bonus_tiles"), path, "bonus_tiles", BONUS_INDEX, "bonus tile",
            BONUS_TILES)
        mask = 0
        king_tiles = pl.ints("king_tiles")
        for i in range(len(king_tiles)):
            k = KING_TILE_INDEX.get(king_tiles[i], -1)
            if k < 0:
                if self.listing():
                    self.bad(f"{path}.king_tiles[{i}]",
                             f"must be the VP of a king reward tile: one of {list(KING_TILES)}")
            elif (mask >> k) & 1:
                if self.listing():
                    self.bad(f"{path}.king_tiles[{i}]", f"duplicate of {path}.king_tiles["
                             f"{king_tiles.index(king_tiles[i])}]")
            else:
                mask |= 1 << k
        g.king_tiles[p] = mask

    # -- turn --------------------------------------------------------------------------
    cdef void read_turn(self, _Wire t) except *:
        cdef GameState* g = self.g
        cdef int seats = (self.n or MAX_PLAYERS) - 1, i
        cdef long v
        if self.in_range(t, "current", 0, seats, "turn", &v):
            g.current = v
        if self.in_range(t, "number", 1, INT32_MAX, "turn", &v):
            g.turn = v
        if self.in_range(t, "action_count", 0, INT32_MAX, "turn", &v):
            g.action_count = v
        if self.in_range(t, "main_left", 0, INT8_MAX, "turn", &v):
            g.main_left = v
        if self.in_range(t, "main_done", 0, INT8_MAX, "turn", &v):
            g.main_done = v
        g.quick_used = t.int_("quick_used") != 0
        g.game_over = t.int_("game_over") != 0
        g.end_trigger = -1
        if t.has("end_trigger"):
            v = t.int_("end_trigger")
            if not self.out_of(v, 0, seats, "turn.end_trigger"):
                g.end_trigger = v
        pending = t.subs("pending")
        if len(pending) > MAX_PENDING_DECISIONS:
            self.bad("turn.pending", f"must have at most {MAX_PENDING_DECISIONS} entries, got "
                                     f"{len(pending)}")
            return
        g.pending_n = len(pending)
        for i in range(len(pending)):
            self.read_pending(pending[i], i, PENDING_PATHS[i])

    cdef void read_pending(self, _Wire d, int i, str path) except *:
        cdef GameState* g = self.g
        cdef int kind, region, arg = 0
        cdef _Wire permit
        cdef str kind_name = d.string("kind")
        kind = self.name(DECISION_INDEX, kind_name, "decision kind", DECISION_NAMES, path,
                         "kind")
        if kind < 0:
            return
        # The oneof `arg`: the member that was set (the last one on the wire).
        given = None
        if d.has("permit") or d.has("city"):
            given = "permit" if d.last[d.number("permit")] > d.last[d.number("city")] else "city"
        wanted = ("permit" if kind == P_PAY_PERMIT
                  else "city" if kind in (P_PAY_KING, P_TOKEN_PAIR_SECOND) else None)
        if given != wanted:
            if given is not None:
                self.bad(f"{path}.{given}", f"must be absent for {kind_name}")
            if wanted is not None:
                self.bad(f"{path}.{wanted}", f"required for {kind_name}")
            return
        if wanted == "permit":
            permit = d.sub("permit")
            region = self.name(REGION_INDEX, permit.string("region"), "region", REGIONS, path,
                               "permit.region")
            if self.out_of(permit.int_("slot"), 0, 1, path, "permit.slot") or region < 0:
                return
            arg = region * 2 + permit.int_("slot")
        elif wanted == "city":
            arg = self.name(CITY_INDEX, d.string("city"), "city", CITIES, path, "city")
            if arg < 0:
                return
        g.pending_kind[i] = kind
        g.pending_arg[i] = arg


cdef str _path(str path, str field, int item):
    if field:
        path = f"{path}.{field}"
    return f"{path}[{item}]" if item >= 0 else path


cdef inline int _popcount(uint64_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


def _check_config(dict values):
    """A CouncilOfFourConfig, or the [(field, problem)] list of what is wrong with `values`."""
    found = []
    # CouncilOfFourConfig.validate stops at the first problem: check each field on its own.
    for key, value in values.items():
        try:
            CouncilOfFourConfig.from_dict({key: value})
        except ValueError as e:
            _, _, problem = str(e).partition(": ")
            found.append((key, problem or str(e)))
    return found or CouncilOfFourConfig.from_dict(values)


def read_state(msg, int view_of=-1):
    """``(state, problems)`` for a GameState message: the CouncilOfFourState (None if the
    message could not be read) and every problem found as ``(field path, problem)``.

    Reading stops before the consistency checks when a field is unreadable or out of range,
    so that one typo does not cause a cascade of follow-on problems. With ``view_of`` set, a
    full state (no viewer) whose other seats' hands are missing is read as that seat's view:
    what the seat cannot know is dropped before the checks.
    """
    cdef CouncilOfFourState st = CouncilOfFourState.__new__(CouncilOfFourState)
    memset(&st.s, 0, sizeof(GameState))
    cdef _Reader reader = _Reader()
    reader.g = &st.s
    data = msg.SerializeToString()
    try:
        reader.read(_Wire.over(data, 0, len(data), GAME_STATE), view_of)
    except _Malformed as e:  # not for bytes protobuf wrote; a problem, never an error
        return None, [("(root)", str(e))]
    if reader.unlisted:
        reader.problems.append(("(root)", f"and {reader.unlisted} more problems not listed"))
    if reader.problems:
        return None, reader.problems
    if reader.demote:
        if view_of >= reader.n:
            return None, [("viewer", f"seat {view_of} is not a seat of this "
                                     f"{reader.n}-player game")]
        if not msg.players[view_of].HasField("hand"):
            return None, [(f"players[{view_of}].hand", "the viewer's own hand must be given")]
        make_view(&st.s, view_of)
    found = state_problems(&st.s)
    return (None, found) if found else (st, [])


# -- writing ---------------------------------------------------------------------------

cdef list _names_of(uint64_t mask, tuple names):
    return [names[i] for i in range(len(names)) if (mask >> i) & 1]


cdef dict _cards(int16_t* counts):
    return {CARD_KINDS[k]: counts[k] for k in range(N_CARD_KINDS)}


def write_state(CouncilOfFourState state):
    """The GameState message of a state or view (the inverse of read_state)."""
    cdef GameState* g = &state.s
    cdef int n = g.n_players, p, r, i, home = LAYOUT_KING_CITY[g.layout]
    cdef bint view = g.viewer >= 0
    msg = pb.GameState(
        format=FORMAT,
        config=pb.GameConfig(
            players=n, layout=_board.LAYOUT_CODES[g.layout], max_coins=g.max_coins,
            assistant_supply=g.assistant_supply, permit_tie_all_score=g.permit_tie_all != 0,
            nobility_bonus_on_pass=g.nobility_on_pass != 0,
        ),
    )
    if view:
        msg.viewer = g.viewer
    else:
        msg.rng = g.rng
    b = msg.board
    b.king_city = CITIES[g.king_city]
    tokens = b.city_tokens
    for i in range(N_CITIES):
        if i != home:
            tokens[CITIES[i]] = g.city_token[i]
    for i in range(N_BALCONIES):
        getattr(b.balconies, BALCONIES[i]).extend(
            [COLOURS[g.balcony[i][k]] for k in range(BALCONY_SIZE)])
    for i in range(N_COLOURS):
        setattr(b.pool, COLOURS[i], g.pool[i])
    for r in range(N_REGIONS):
        size, known = g.deck_n[r], g.deck_known[r]
        deck = getattr(b.permit_decks, REGIONS[r])
        deck.SetInParent()  # an empty deck is still present
        deck.unknown.extend([g.permit_deck[r][i] for i in range(size - known)])
        deck.known_bottom.extend([g.permit_deck[r][i] for i in range(size - known, size)])
        slots = getattr(b.face_up, REGIONS[r])
        slots.SetInParent()
        if g.face_up[r][0] >= 0:
            slots.slot0 = g.face_up[r][0]
        if g.face_up[r][1] >= 0:
            slots.slot1 = g.face_up[r][1]
    if not view:
        b.politics_deck.CopyFrom(cof_pb.CardCounts(**_cards(g.politics_deck)))
    b.politics_deck_size = g.politics_deck_n
    b.discard.CopyFrom(cof_pb.CardCounts(**_cards(g.discard)))
    b.bonus_tiles_left.extend(_names_of(g.bonus_tiles_left, BONUS_TILES))
    b.king_tiles_taken = g.king_tiles_taken
    b.neutral_emporiums.extend(_names_of(g.neutral, CITIES))
    for p in range(n):
        pl = msg.players.add(
            coins=g.coins[p], assistants=g.assistants[p], vp=g.vp[p], nobility=g.nobility[p],
            hand_size=g.hand_n[p],
            emporiums=_names_of(g.emporia[p], CITIES),
            permits_face_up=[i for i in range(N_TILES) if (g.permits_up[p] >> i) & 1],
            permits_face_down=[i for i in range(N_TILES) if (g.permits_down[p] >> i) & 1],
            bonus_tiles=_names_of(g.bonus_tiles[p], BONUS_TILES),
            king_tiles=_names_of(g.king_tiles[p], KING_TILES),
        )
        if not view or p == g.viewer:
            pl.hand.CopyFrom(cof_pb.CardCounts(**_cards(g.hand[p])))
    t = msg.turn
    t.current = g.current
    t.number = g.turn
    t.action_count = g.action_count
    t.main_left = g.main_left
    t.main_done = g.main_done
    t.quick_used = g.quick_used != 0
    t.game_over = g.game_over != 0
    if g.end_trigger >= 0:
        t.end_trigger = g.end_trigger
    for i in range(g.pending_n):
        kind, arg = g.pending_kind[i], g.pending_arg[i]
        entry = t.pending.add(kind=Decision(kind).name)
        if kind == P_PAY_PERMIT:
            entry.permit.region = REGIONS[arg >> 1]
            entry.permit.slot = arg & 1
        elif kind in (P_PAY_KING, P_TOKEN_PAIR_SECOND):
            entry.city = CITIES[arg]
    return msg
