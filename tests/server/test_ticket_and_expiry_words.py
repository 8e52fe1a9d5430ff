"""A sealed game's ticket and expiry (council.server.sealing), as a client meets them: a
seat is written one way only, and an expired blob says its age in a unit that fits."""

from __future__ import annotations

import pytest

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_to_proto
from council.server.sealing import (
    ExpiredBlob,
    MalformedTicket,
    SealKeys,
    check_ticket,
    mint_ticket,
    new_game_secret,
)
from council.v1 import service_pb2 as spb

SECRET = new_game_secret()


@pytest.mark.parametrize(
    "seat",
    ["00", "01", "\u0660", "\u0661", "\uff10", "+1", " 1"],
    ids=["00", "01", "arabic-indic-0", "arabic-indic-1", "fullwidth-0", "plus-1", "space-1"],
)
def test_a_seat_is_ascii_decimal_without_a_leading_zero(seat):
    """The MAC is that of the seat's number, so each spelling of 0 or 1 would pass as that
    seat's ticket if it were read as a number."""
    role = spb.SEAT_ROLE_PLAYER
    number = 1 if seat.strip() in ("01", "\u0661", "+1", "1") else 0
    genuine = mint_ticket(SECRET, number, role)
    assert check_ticket(SECRET, genuine).seat == number
    respelled = seat + genuine[genuine.index(".") :]
    with pytest.raises(MalformedTicket, match="expected '<seat>.<player|bot>.<MAC>'"):
        check_ticket(SECRET, respelled)


def test_two_digit_seats_still_parse():
    ticket = mint_ticket(SECRET, 10, spb.SEAT_ROLE_BOT)
    assert ticket.startswith("10.bot.") and check_ticket(SECRET, ticket).seat == 10


@pytest.mark.parametrize(
    ("age_s", "ttl_s", "said"),
    [
        (25, 20, "sealed 25 seconds ago, past this server's limit of 20 seconds"),
        (5400, 3600, "sealed 90 minutes ago, past this server's limit of 60 minutes"),
        (
            31 * 86400,
            30 * 86400,
            "sealed 31 days ago, past this server's limit of 30 days",
        ),
        (30 * 3600, 86400, "sealed 30 hours ago, past this server's limit of 24 hours"),
    ],
)
def test_an_expired_blob_says_its_age_in_a_unit_that_fits(age_s, ttl_s, said):
    keys = SealKeys.generate()
    state = state_to_proto(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1))
    blob = keys.seal(state, SECRET, now=1_000_000)
    with pytest.raises(ExpiredBlob) as error:
        keys.open(blob, ttl_s=ttl_s, now=1_000_000 + age_s)
    assert str(error.value) == f"{said} (--seal-ttl): the game has expired"
