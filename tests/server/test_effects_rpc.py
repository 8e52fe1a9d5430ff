"""ApplyAction's `effects` and ListLegalActions' per-action `effects` (issue #30) over gRPC
and Connect JSON: the numbers and lines of the engine's Game.effects, and never a card the
receiving seat cannot see."""

from __future__ import annotations

import json
import random

from google.protobuf import json_format
from test_http import call

from council.engine import _the_council as tc
from council.engine import council_of_four_board as B
from council.engine.effects import action_effects, with_article
from council.engine.games import game_named
from council.engine.serialize import state_to_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from tests.engine import council_positions as tcp
from tests.engine.positions import Pos, pay
from tests.engine.test_effects import linked_king_build

KING_PAYMENT = pay(white=1, black=1, pink=1, purple=1)


def seat_of(effects, seat):
    return next(s for s in effects.seats if s.seat == seat)


def test_apply_action_returns_the_linked_city_tokens_over_grpc(stub):
    state = linked_king_build()
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state), action_id=KING_PAYMENT)
    )
    me = seat_of(response.effects, 0)
    assert (me.score, me.coins, me.assistants, me.nobility_steps) == (4, -2, 2, 1)
    assert list(me.city_tokens) == ["Merkatim", "Hellar", "Osium", "Esti", "Naris", "Burgen"]
    lines = [(line.seat, line.text) for line in response.effects.lines]
    assert (
        0,
        "City tokens of Merkatim, Hellar, Osium, Esti, Naris, Burgen: +4 VP, +2 coins, "
        "+2 assistants, +1 nobility step",
    ) in lines


def test_apply_action_effects_over_connect_json(http_server):
    state = linked_king_build()
    request = {
        "state": json.loads(json_format.MessageToJson(state_to_proto(state))),
        "actionId": KING_PAYMENT,
    }
    status, _, body = call(http_server.http_address, "ApplyAction", request)
    assert status == 200, body
    effects = json.loads(body)["effects"]
    assert effects["seats"][0]["cityTokens"][0] == "Merkatim"
    assert effects["seats"][0]["nobilitySteps"] == 1
    assert effects["lines"][0] == {
        "seat": 0,
        "text": "satisfies the king's council with white+black+pink+purple: no coins",
    }


def test_a_view_request_counts_an_opponents_draw_and_names_no_card(stub):
    # Seat 0's view; it ends its turn: seat 1 draws a card in the sampled continuation.
    state = Pos(players=3).turn(current=0, main_left=0, main_done=1).state()
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state.view(0)), action_id=0, seed=5)
    )
    assert response.sampled
    effects = response.effects
    assert seat_of(effects, 1).politics_cards_drawn == 1
    assert [line.text for line in effects.lines if line.seat == 1] == ["draws 1 politics card"]
    words = json_format.MessageToJson(effects).lower()
    assert not any(kind in words for kind in B.CARD_KINDS)


def test_a_sealed_game_has_effects_too(stub):
    game = stub.NewGame(spb.NewGameRequest(config=pb.GameConfig(players=2), sealed=True))
    sealed = spb.Sealed(blob=game.sealed_state, ticket=game.tickets[0].ticket)
    legal = stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=sealed)).actions
    # (The deal is random: the first councillor in the pool, whatever its colour.)
    elect = next(a for a in legal if a.kind == pb.ACTION_KIND_ELECT)
    response = stub.ApplyAction(spb.ApplyActionRequest(sealed=sealed, action_id=elect.id))
    assert seat_of(response.effects, 0).coins == 4  # elect: +4 coins
    colour = elect.text.split()[1]
    assert response.effects.lines[0].text.startswith(f"elects {with_article(colour)} councillor")


def test_the_council_event_outcome_over_grpc(stub):
    # A game played at random to an event's last reveal (a position the server reads).
    game = game_named("the-council")
    state = game.new_game(game.config_class(players=3), seed=4)
    chooser = random.Random(4)
    while not (state.phase == "reveal" and state.to_raw()["bids_done"] == 2):
        state.apply(chooser.choice(state.legal_actions()))
    action = state.legal_actions()[-1]  # reveal every drafted card
    response = stub.ApplyAction(
        spb.ApplyActionRequest(state=state_to_proto(state), action_id=action)
    )
    event = response.effects.event
    assert event.event == tcp.CARD_NAMES[state.event]
    assert event.needed == tc.CARDS[state.event].value
    assert response.effects == action_effects(state, state.child(action), action)


def test_kuhn_poker_pot_over_connect_json(http_server):
    status, _, body = call(
        http_server.http_address,
        "NewGame",
        {"config": {"game": "GAME_KUHN_POKER", "players": 2}, "seed": "3"},
    )
    assert status == 200, body
    start = json.loads(body)["state"]
    status, _, body = call(
        http_server.http_address, "ApplyAction", {"state": start, "actionText": "bet"}
    )
    assert status == 200, body
    effects = json.loads(body)["effects"]
    assert effects["pot"] == 3
    assert effects["seats"] == [{"seat": 0, "chipsBet": 1}]


def test_list_legal_actions_effects_only_when_asked(stub, http_server):
    state = linked_king_build()
    plain = stub.ListLegalActions(spb.ListLegalActionsRequest(state=state_to_proto(state)))
    assert not any(a.HasField("effects") for a in plain.actions)
    asked = stub.ListLegalActions(
        spb.ListLegalActionsRequest(state=state_to_proto(state), include_effects=True)
    )
    assert all(a.HasField("effects") for a in asked.actions)
    paid = next(a for a in asked.actions if a.id == KING_PAYMENT)
    assert seat_of(paid.effects, 0).score == 4
    assert not paid.effects.partial
    request = {
        "state": json.loads(json_format.MessageToJson(state_to_proto(state.view(0)))),
        "includeEffects": True,
    }
    status, _, body = call(http_server.http_address, "ListLegalActions", request)
    assert status == 200, body
    actions = {a["id"]: a for a in json.loads(body)["actions"]}
    assert actions[KING_PAYMENT]["effects"]["seats"][0]["cityTokens"][-1] == "Burgen"


def test_a_bot_tickets_move_has_the_effects_every_seat_may_know(stub):
    # A bot's move is played by the server (RecommendAction): its ticket's holder learns what
    # it did as every seat may, its draws as counts, never their cards.
    game = stub.NewGame(
        spb.NewGameRequest(
            config=pb.GameConfig(players=2),
            sealed=True,
            bot_seats=[1],
            bot_presets={1: pb.STRENGTH_PRESET_BEGINNER},
        )
    )
    blob, tickets = game.sealed_state, {t.seat: t.ticket for t in game.tickets}
    lines = []
    for _ in range(30):
        player = spb.Sealed(blob=blob, ticket=tickets[0])
        if stub.GetView(spb.GetViewRequest(sealed=player)).state.turn.current == 0:
            first = stub.ListLegalActions(spb.ListLegalActionsRequest(sealed=player)).actions[0]
            blob = stub.ApplyAction(spb.ApplyActionRequest(sealed=player, action_id=first.id))
            blob = blob.sealed_state
            continue
        answer = stub.RecommendAction(
            spb.RecommendActionRequest(sealed=spb.Sealed(blob=blob, ticket=tickets[1]))
        )
        assert answer.effects.lines, answer.result.action.text
        lines += [line.text for line in answer.effects.lines]
        blob = answer.sealed_state
    drawn = [text for text in lines if "draws" in text]
    assert drawn and all(text == "draws 1 politics card" for text in drawn), drawn
