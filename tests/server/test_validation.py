"""Malformed and inconsistent positions: each is rejected with INVALID_ARGUMENT and a
google.rpc.BadRequest field violation naming the offending field of the request."""

from __future__ import annotations

import grpc
import pytest
from server_helpers import played, to_proto, violations

from council.v1 import council_of_four_pb2 as cof_pb
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

# A 4-player position in the middle of a game (seat 2 to move).
BASE = played(4, seed=51, actions=60)
TWO_PLAYERS = played(2, seed=6, actions=30)


def base() -> pb.GameState:
    return to_proto(BASE)


def _duplicate_tile(s):
    deck = s.board.permit_decks.coast
    deck.unknown.append(deck.unknown[0])


def _add_pending(kind, **arg):
    def mutate(s):
        s.turn.main_done = 1
        entry = s.turn.pending.add(kind=kind)
        if "permit" in arg:
            entry.permit.CopyFrom(arg["permit"])
        if "city" in arg:
            entry.city = arg["city"]

    return mutate


def _hide_own_hand(s):
    s.viewer = s.turn.current
    s.ClearField("rng")
    s.board.ClearField("politics_deck")
    for p in s.players:
        p.ClearField("hand")


def _move_token(s):
    s.board.city_tokens["Arkon"] = s.board.city_tokens["Burgen"]


# (name, mutation, field that must be named). Fields are paths in the request.
CASES = [
    ("coins out of range", lambda s: setattr(s.players[1], "coins", 99), "state.players[1].coins"),
    (
        "unknown colour",
        lambda s: s.board.balconies.king.__setitem__(0, "red"),
        "state.board.balconies.king[0]",
    ),
    ("five players", lambda s: setattr(s.config, "players", 5), "state.config.players"),
    ("bad layout", lambda s: setattr(s.config, "layout", "ABC"), "state.config.layout"),
    ("no config", lambda s: s.ClearField("config"), "state.config"),
    ("config field missing", lambda s: s.config.ClearField("max_coins"), "state.config.max_coins"),
    ("wrong format", lambda s: setattr(s, "format", "chess/1"), "state.format"),
    (
        "unknown king city",
        lambda s: setattr(s.board, "king_city", "Atlantis"),
        "state.board.king_city",
    ),
    (
        "token out of range",
        lambda s: s.board.city_tokens.__setitem__("Arkon", 77),
        "state.board.city_tokens.Arkon",
    ),
    ("token on two cities", _move_token, "state.board.city_tokens.Burgen"),
    ("balcony too short", lambda s: s.board.balconies.hills.pop(), "state.board.balconies.hills"),
    ("permit tile twice", _duplicate_tile, "state.board.permit_decks.coast.unknown[13]"),
    (
        "foreign face-up tile",
        lambda s: setattr(s.board.face_up.coast, "slot0", 44),
        "state.board.face_up.coast.slot0",
    ),
    (
        "tile out of range",
        lambda s: setattr(s.board.face_up.hills, "slot1", 45),
        "state.board.face_up.hills.slot1",
    ),
    (
        "hand size mismatch",
        lambda s: setattr(s.players[0], "hand_size", s.players[0].hand_size + 1),
        "state.players[0].hand_size",
    ),
    (
        "card conservation",
        lambda s: setattr(s.board.discard, "joker", s.board.discard.joker + 1),
        "state.board.politics_deck.joker",
    ),
    (
        "unknown emporium city",
        lambda s: s.players[2].emporiums.append("Atlantis"),
        "state.players[2].emporiums[2]",
    ),
    (
        "nobility out of range",
        lambda s: setattr(s.players[3], "nobility", 21),
        "state.players[3].nobility",
    ),
    ("missing player", lambda s: s.players.pop(), "state.players"),
    ("wrong seat to move", lambda s: setattr(s.turn, "current", 3), "state.turn.current"),
    ("turn zero", lambda s: setattr(s.turn, "number", 0), "state.turn.number"),
    ("pending kind unknown", _add_pending("dance"), "state.turn.pending[0].kind"),
    (
        "pending permit region",
        _add_pending("pay_permit", permit=cof_pb.PermitSlot(region="ocean")),
        "state.turn.pending[0].permit.region",
    ),
    ("pending king city", _add_pending("pay_king", city="Nowhere"), "state.turn.pending[0].city"),
    ("viewer out of range", lambda s: setattr(s, "viewer", 7), "state.viewer"),
    ("full state without rng", lambda s: s.ClearField("rng"), "state.rng"),
    (
        "unknown bonus tile",
        lambda s: s.board.bonus_tiles_left.__setitem__(0, "platinum"),
        "state.board.bonus_tiles_left[0]",
    ),
    (
        "king tiles taken",
        lambda s: setattr(s.board, "king_tiles_taken", 3),
        "state.board.king_tiles_taken",
    ),
    (
        "permit id out of range",
        lambda s: s.players[0].permits_face_up.append(99),
        "state.players[0].permits_face_up[0]",
    ),
    (
        "end trigger without 10 emporiums",
        lambda s: setattr(s.turn, "end_trigger", 0),
        "state.turn.end_trigger",
    ),
    ("no discard pile", lambda s: s.board.ClearField("discard"), "state.board.discard"),
    (
        "neutral emporium with 4 players",
        lambda s: s.board.neutral_emporiums.append("Arkon"),
        "state.board.neutral_emporiums",
    ),
    ("view without the viewer's hand", _hide_own_hand, "state.players[2].hand"),
    ("no board", lambda s: s.ClearField("board"), "state.board"),
]


def test_the_table_is_large_and_distinct():
    assert len(CASES) >= 20
    assert len({name for name, _, _ in CASES}) == len(CASES)
    assert len({field for _, _, field in CASES}) >= 25


@pytest.mark.parametrize(("name", "mutate", "field"), CASES, ids=[c[0] for c in CASES])
def test_rejected_with_the_field(stub, name, mutate, field):
    state = base()
    mutate(state)
    for call, request in (
        (stub.ListLegalActions, spb.ListLegalActionsRequest(state=state)),
        (
            stub.RecommendAction,
            spb.RecommendActionRequest(state=state, limits=pb.SearchLimits(iterations=10)),
        ),
    ):
        with pytest.raises(grpc.RpcError) as info:
            call(request)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        fields = [f for f, _ in violations(info.value)]
        assert field in fields, fields
        assert all(f.startswith("state") for f in fields)
        assert field in info.value.details()


def test_the_base_position_is_valid(stub):
    response = stub.ListLegalActions(spb.ListLegalActionsRequest(state=base()))
    assert response.seat == BASE.current_player == 2
    assert len(response.actions) > 0


def test_neutral_emporiums_of_a_two_player_game(stub):
    state = to_proto(TWO_PLAYERS)
    state.board.neutral_emporiums.pop()
    with pytest.raises(grpc.RpcError) as info:
        stub.ListLegalActions(spb.ListLegalActionsRequest(state=state))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "state.board.neutral_emporiums" in [f for f, _ in violations(info.value)]


def test_missing_state(stub):
    with pytest.raises(grpc.RpcError) as info:
        stub.RecommendAction(spb.RecommendActionRequest())
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(info.value) == [("state", "required field is missing")]


def test_every_violation_is_listed(stub):
    state = base()
    state.players[1].coins = 99
    state.players[2].nobility = -1
    state.board.balconies.coast[3] = "gold"
    with pytest.raises(grpc.RpcError) as info:
        stub.ListLegalActions(spb.ListLegalActionsRequest(state=state))
    assert sorted(f for f, _ in violations(info.value)) == [
        "state.board.balconies.coast[3]",
        "state.players[1].coins",
        "state.players[2].nobility",
    ]
