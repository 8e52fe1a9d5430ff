"""Every RPC for The Council (config.game = GAME_THE_COUNCIL) over a real gRPC server, a
whole 4-seat game played with RecommendAction for every seat, and the same calls over HTTP
(Connect, JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.duration_pb2 import Duration
from server_helpers import violations
from test_http import call, message_json

from council.engine._the_council import (
    ACTION_OFFSETS,
    CARD_NAMES,
    CARDS,
    DRAFT_ROUNDS,
    EVENTS_PER_HAND,
    NUM_ACTIONS,
    RANK_ORDER,
    SUITS,
)
from council.engine.serialize import state_from_proto, state_to_proto
from council.engine.the_council import TheCouncilState
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

THE_COUNCIL = pb.GAME_THE_COUNCIL


def new_game(stub, players=4, seed=7, **kwargs):
    config = pb.GameConfig(game=THE_COUNCIL, players=players)
    return stub.NewGame(spb.NewGameRequest(config=config, seed=seed, **kwargs))


def played(players: int, seed: int, until) -> TheCouncilState:
    """A game of first legal actions from a seeded deal, up to the first position where
    `until(state)` holds."""
    state = TheCouncilState.new_game(players, seed)
    while not until(state):
        state.apply(state.legal_actions()[0])
    return state


def in_phase(phase):
    return lambda s: s.phase == phase


def invalid(call_) -> list[tuple[str, str]]:
    with pytest.raises(grpc.RpcError) as e:
        call_()
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value.details()
    return violations(e.value)


# -- NewGame, GetView, GetEngineInfo, RenderPosition -------------------------------------------


def test_new_game_refuses_other_seat_counts_and_council_of_four_variants(stub):
    config = pb.GameConfig(game=THE_COUNCIL, players=2, layout="ABA")
    found = invalid(lambda: stub.NewGame(spb.NewGameRequest(config=config, seed=1)))
    assert found == [
        (
            "config.layout",
            "a rule variant of Council of Four: The Council's configuration is game and "
            "players only",
        )
    ]
    config.ClearField("layout")
    found = invalid(lambda: stub.NewGame(spb.NewGameRequest(config=config, seed=1)))
    assert found == [("config.players", "The Council seats 3, 4 or 5, got 2")]
    # Without players, the default of 4.
    default = stub.NewGame(spb.NewGameRequest(config=pb.GameConfig(game=THE_COUNCIL), seed=1))
    assert default.state.config.players == 4


def test_get_view_and_render(stub):
    state = played(4, 3, lambda s: s.action_count == 6)  # seats 0, 1 picked in round 2
    msg = state_to_proto(state)
    view = stub.GetView(spb.GetViewRequest(state=msg, seat=2)).state
    assert state_from_proto(view) == state.view(2)
    assert not view.the_council.deck and view.the_council.unknown_cards > 0
    svg = stub.RenderPosition(spb.RenderPositionRequest(state=msg, seat=2)).svg
    assert svg.startswith("<svg") and "The Council: 4 seats" in svg and "view of seat 2" in svg
    found = invalid(lambda: stub.GetView(spb.GetViewRequest(state=view, seat=1)))
    assert found == [("seat", "the state is seat 2's view; seat 1's is not in it")]


def test_engine_info_lists_both_games(stub):
    info = stub.GetEngineInfo(spb.GetEngineInfoRequest())
    assert info.state_format == "council-of-four/1" and info.num_actions == 605
    cof, tc = info.games[:2]  # the games registered after them follow
    assert (cof.game, cof.name, cof.min_players, cof.max_players) == (
        pb.GAME_COUNCIL_OF_FOUR,
        "council-of-four",
        2,
        4,
    )
    assert list(cof.action_ranges) == list(info.action_ranges)
    assert cof.default_config == info.default_config
    assert (tc.game, tc.name, tc.min_players, tc.max_players, tc.state_format) == (
        THE_COUNCIL,
        "the-council",
        3,
        5,
        "the-council/1",
    )
    assert tc.num_actions == NUM_ACTIONS == 83
    assert [(pb.ActionKind.Name(r.kind), r.offset, r.size) for r in tc.action_ranges] == [
        ("ACTION_KIND_PICK", 0, 44),
        ("ACTION_KIND_BID", 44, 6),
        ("ACTION_KIND_END_BID", 50, 1),
        ("ACTION_KIND_REVEAL", 51, 32),
    ]
    assert tc.default_config == pb.GameConfig(game=THE_COUNCIL, players=4)
    # Each game lists its own preset budgets; the top-level list is Council of Four's.
    assert list(cof.presets) == list(info.presets)
    assert [(p.name, p.iterations) for p in cof.presets] == [
        ("beginner", 50),
        ("casual", 300),
        ("strong", 5000),
    ]
    assert [(p.name, p.iterations) for p in tc.presets] == [
        ("beginner", 50),
        ("casual", 300),
        ("strong", 10_000),
    ]


def test_engine_info_lists_the_councils_cards(stub):
    """A front-end shows a card's rank and suits from GetEngineInfo: the core's own table, in
    its order (the PICK ids'); Council of Four has none of these fields."""
    cof, tc = stub.GetEngineInfo(spb.GetEngineInfoRequest()).games[:2]
    assert (list(cof.suits), list(cof.card_ranks), list(cof.cards)) == ([], [], [])
    assert (cof.draft_rounds, cof.events_per_hand) == (0, 0)
    assert list(tc.suits) == list(SUITS) == ["Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots"]
    assert list(tc.card_ranks) == list(RANK_ORDER)
    assert (tc.draft_rounds, tc.events_per_hand) == (DRAFT_ROUNDS, EVENTS_PER_HAND) == (5, 5)
    assert [(c.name, c.kind, c.rank, c.value, list(c.suits)) for c in tc.cards] == [
        (card.name, card.kind, RANK_ORDER[card.order], card.value, [SUITS[s] for s in card.suits])
        for card in CARDS
    ]
    assert [c.name for c in tc.cards] == list(CARD_NAMES) and len(tc.cards) == 44
    market = next(c for c in tc.cards if c.name == "The Market")
    assert (market.kind, market.rank, market.value, list(market.suits)) == (
        "number",
        "6",
        6,
        ["Leaves", "Knots"],
    )
    # The PICK ids are the cards' places in the list.
    state = TheCouncilState.new_game(3, seed=1)
    pick = ACTION_OFFSETS["pick"]
    for action in state.legal_actions():
        assert f"pick {tc.cards[action - pick].name}" == state.action_to_text(action)


# -- the rules authority ---------------------------------------------------------------------


def test_list_legal_actions_in_every_phase(stub):
    for phase, kinds in (
        ("draft", {"ACTION_KIND_PICK"}),
        ("bid", {"ACTION_KIND_BID", "ACTION_KIND_END_BID"}),
        ("reveal", {"ACTION_KIND_REVEAL"}),
    ):
        state = played(4, 5, in_phase(phase))
        for shown in (state, state.view(state.current_player)):
            request = spb.ListLegalActionsRequest(
                state=state_to_proto(shown), include_descriptions=True
            )
            response = stub.ListLegalActions(request)
            assert response.decision == phase and response.seat == state.current_player
            assert [a.id for a in response.actions] == state.legal_actions()
            assert {pb.ActionKind.Name(a.kind) for a in response.actions} <= kinds
            for a in response.actions:
                assert a.text == state.action_to_text(a.id) and a.description
                if a.kind == pb.ACTION_KIND_PICK:
                    assert a.card == CARD_NAMES[a.id] and a.text == f"pick {a.card}"
                elif a.kind == pb.ACTION_KIND_BID:
                    assert a.suit == SUITS[a.id - ACTION_OFFSETS["bid"]]
                elif a.kind == pb.ACTION_KIND_REVEAL:
                    named = ", ".join(a.reveal) if a.reveal else "nothing"
                    assert a.text == f"reveal {named}"


def test_apply_action_by_id_text_and_structure(stub):
    state = played(4, 5, in_phase("reveal"))
    msg = state_to_proto(state)
    seat = state.current_player
    mine = [CARD_NAMES[c] for c in state.drafted(seat)]
    text = f"reveal {mine[1]}, {mine[3]}"
    by_text = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_text=text))
    expected = state.child(state.action_from_text(text))
    assert state_from_proto(by_text.state) == expected
    assert by_text.applied.text == text and list(by_text.applied.reveal) == [mine[1], mine[3]]
    by_id = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=by_text.applied.id))
    assert by_id.state == by_text.state
    structured = pb.Action(kind=pb.ACTION_KIND_REVEAL, reveal=[mine[3], mine[1]])
    by_structure = stub.ApplyAction(spb.ApplyActionRequest(state=msg, structured=structured))
    assert by_structure.state == by_text.state and not by_structure.game_over
    assert list(by_structure.scores) == [0, 0, 0, 0] and not by_structure.winners
    # Picks and bids by their structure.
    draft = played(3, 2, lambda s: True)
    pick = pb.Action(kind=pb.ACTION_KIND_PICK, card=CARD_NAMES[draft.legal_actions()[2]])
    answer = stub.ApplyAction(spb.ApplyActionRequest(state=state_to_proto(draft), structured=pick))
    assert answer.applied.id == draft.legal_actions()[2] and answer.applied.card == pick.card
    bidding = played(4, 5, lambda s: s.phase == "bid" and len(s.legal_actions()) > 1)
    suit = SUITS[bidding.legal_actions()[0] - ACTION_OFFSETS["bid"]]
    answer = stub.ApplyAction(
        spb.ApplyActionRequest(
            state=state_to_proto(bidding), structured=pb.Action(kind=pb.ACTION_KIND_BID, suit=suit)
        )
    )
    assert answer.applied.text == f"bid {suit}"


def test_bad_actions_name_their_field(stub):
    state = played(4, 5, in_phase("reveal"))
    msg = state_to_proto(state)
    assert invalid(lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=83))) == [
        ("action_id", "must be in 0..82, got 83")
    ]
    [(field, problem)] = invalid(
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=0))
    )
    assert field == "action_id"
    assert problem == (
        f"'pick {CARD_NAMES[0]}' (id 0) is not legal here (seat {state.current_player} to "
        "move, decision 'reveal')"
    )
    assert invalid(
        lambda: stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_text="bid Stars"))
    ) == [("action_text", "unknown suit 'Stars'; suits: " + ", ".join(SUITS))]
    for structured, expected in (
        (
            pb.Action(kind=pb.ACTION_KIND_PICK),
            [("structured.card", "required for ACTION_KIND_PICK")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_BID, suit="Moons", card="The Author"),
            [("structured.card", "does not apply to ACTION_KIND_BID")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_REVEAL, reveal=["The Joker"]),
            [("structured.reveal[0]", "unknown card 'The Joker'")],
        ),
        (
            pb.Action(kind=pb.ACTION_KIND_ELECT),
            [
                (
                    "structured.kind",
                    "must be one of The Council's kinds: ACTION_KIND_PICK, "
                    "ACTION_KIND_BID, ACTION_KIND_END_BID, ACTION_KIND_REVEAL",
                )
            ],
        ),
    ):
        request = spb.ApplyActionRequest(state=msg, structured=structured)
        assert invalid(lambda r=request: stub.ApplyAction(r)) == expected


def test_apply_action_on_a_view_samples_the_hidden_cards(stub):
    state = played(4, 8, lambda s: s.phase == "draft" and s.current_player == 2)
    view = state_to_proto(state.view(2))
    action = state.legal_actions()[0]
    assert invalid(lambda: stub.ApplyAction(spb.ApplyActionRequest(state=view, action_id=action)))
    answer = stub.ApplyAction(spb.ApplyActionRequest(state=view, action_id=action, seed=4))
    assert answer.sampled and answer.state.viewer == 2 and not answer.state.HasField("rng")
    expected = state.view(2).determinize(4)
    expected.apply(action)
    assert state_from_proto(answer.state) == expected.view(2)


def _last_reveal_of_the_hand(s: TheCouncilState) -> bool:
    raw = s.to_raw()
    return s.phase == "reveal" and raw["events_done"] == 4 and raw["bids_done"] == 3


def test_apply_action_with_a_seed_reseeds_a_full_state(stub):
    """The next hand's deal comes from the state's rng, or from the request's seed."""
    state = played(4, 8, _last_reveal_of_the_hand)
    request = spb.ApplyActionRequest(state=state_to_proto(state), action_id=51)
    plain = state_from_proto(stub.ApplyAction(request).state)
    assert plain == state.child(51) and plain.hand == 2
    request.seed = 17
    reseeded = state_from_proto(stub.ApplyAction(request).state)
    expected = state.clone()
    expected.reseed(17)
    expected.apply(51)
    assert reseeded == expected and reseeded.hand == 2
    assert state_to_proto(reseeded).the_council.packs != state_to_proto(plain).the_council.packs


def test_a_bad_position_names_the_field_under_state(stub):
    msg = state_to_proto(TheCouncilState.new_game(4, seed=2))
    msg.the_council.seats[2].chips.knots = 500
    msg.the_council.packs[1].cards[0] = "The Joker"
    found = invalid(lambda: stub.ListLegalActions(spb.ListLegalActionsRequest(state=msg)))
    assert found == [
        ("state.the_council.seats[2].chips.knots", "must be in 0..100, got 500"),
    ]
    msg.the_council.seats[2].chips.knots = 0
    found = invalid(lambda: stub.RecommendAction(spb.RecommendActionRequest(state=msg)))
    assert found == [
        ("state.the_council.packs[1].cards[0]", "unknown card 'The Joker'; see the card list"),
    ]


# -- searches --------------------------------------------------------------------------------


def test_recommend_action_searches_the_seats_view(stub):
    state = played(4, 5, in_phase("bid"))
    limits = pb.SearchLimits(iterations=200)
    answers = [
        stub.RecommendAction(
            spb.RecommendActionRequest(state=state_to_proto(s), limits=limits, seed=3)
        ).result
        for s in (state, state.view(state.current_player))
    ]
    # Other seats' hidden cards (the deck's order) change nothing: the search sees the view.
    for answer in answers:
        answer.stats.ClearField("elapsed")
    assert answers[0] == answers[1]
    result = answers[0]
    assert result.seat == state.current_player and result.action.id in state.legal_actions()
    assert result.stats.iterations == 200
    assert result.stats.stop_reason == pb.STOP_REASON_ITERATIONS
    assert result.candidates and all(0 <= c.win_probability <= 1 for c in result.candidates)
    assert sum(c.visits for c in result.candidates) == 200
    assert result.principal_variation[0] == result.action
    assert result.action.text == state.action_to_text(result.action.id)
    # A preset is The Council's own budget: strong is 10,000 iterations here (Council of
    # Four's 5,000), stopped early by the time asked for.
    beginner, strong = (
        stub.RecommendAction(
            spb.RecommendActionRequest(
                state=state_to_proto(state),
                limits=pb.SearchLimits(preset=preset, max_time=Duration(nanos=50_000_000)),
                max_candidates=2,
            )
        ).result
        for preset in (pb.STRENGTH_PRESET_BEGINNER, pb.STRENGTH_PRESET_STRONG)
    )
    assert beginner.stats.iteration_budget == 50 and len(beginner.candidates) <= 2
    assert strong.stats.iteration_budget == 10_000
    # The seat to move only.
    with pytest.raises(grpc.RpcError) as e:
        stub.RecommendAction(
            spb.RecommendActionRequest(
                state=state_to_proto(state), seat=(state.current_player + 1) % 4
            )
        )
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_whole_game_over_grpc_with_recommendations_for_every_seat(stub):
    """Four seats, each move RecommendAction (50 iterations) and ApplyAction of its choice
    on the full state, until the game is over; the core replays the same actions to the
    same scores and winners."""
    msg = new_game(stub, players=4, seed=21).state
    actions = []
    answer = None
    while not state_from_proto(msg).is_terminal():
        result = stub.RecommendAction(
            spb.RecommendActionRequest(
                state=msg, limits=pb.SearchLimits(iterations=50), seed=len(actions)
            )
        ).result
        answer = stub.ApplyAction(spb.ApplyActionRequest(state=msg, action_id=result.action.id))
        assert answer.applied.id == result.action.id
        actions.append(result.action.id)
        msg = answer.state
    assert answer is not None and answer.game_over and answer.winners
    core = TheCouncilState.new_game(4, seed=21)
    for a in actions:
        core.apply(a)
    assert core.is_terminal() and state_from_proto(msg) == core
    assert list(answer.scores) == core.scores() and list(answer.winners) == core.winners()
    assert core.hand >= 2  # more than one hand: deals, events and collapses were played
    with pytest.raises(grpc.RpcError) as e:
        stub.RecommendAction(spb.RecommendActionRequest(state=msg))
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION


# -- over HTTP -------------------------------------------------------------------------------


def test_the_council_over_connect_json(http_server, grpc_stub):
    config = {"game": "GAME_THE_COUNCIL", "players": 3}
    status, _, body = call(http_server.http_address, "NewGame", {"config": config, "seed": "5"})
    assert status == 200
    started = json.loads(body)
    state = started["state"]
    assert state["theCouncil"]["phase"] == "draft" and state["format"] == "the-council/1"
    grpc_state = grpc_stub.NewGame(
        spb.NewGameRequest(config=pb.GameConfig(game=THE_COUNCIL, players=3), seed=5)
    ).state
    assert json_format.ParseDict(state, pb.GameState()) == grpc_state
    status, _, body = call(http_server.http_address, "ListLegalActions", {"state": state})
    assert status == 200
    listed = json.loads(body)
    assert listed["decision"] == "draft"
    assert listed == message_json(
        grpc_stub.ListLegalActions(spb.ListLegalActionsRequest(state=grpc_state))
    )
    state["theCouncil"]["seats"][0]["ranks"]["moons"] = 9
    status, _, body = call(http_server.http_address, "GetView", {"state": state, "seat": 0})
    assert status == 400
    assert (
        json.loads(body)["message"]
        == "state.the_council.seats[0].ranks.moons: must be in 0..6, got 9"
    )


def test_the_readme_example_is_a_live_answer(stub):
    """The README's RecommendAction example for The Council is what the server answers."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("<!-- the-council-recommend-response -->\n```json\n")[1].split("```")[0]
    documented = json.loads(block)
    request = spb.RecommendActionRequest(
        state=state_to_proto(TheCouncilState.new_game(3, seed=7).view(0)),
        limits=pb.SearchLimits(iterations=1000),
        seed=1,
        max_candidates=2,
    )
    answer = json_format.MessageToDict(
        stub.RecommendAction(request), preserving_proto_field_name=True
    )
    for reply in (documented, answer):
        del reply["result"]["stats"]["elapsed"]
        del reply["result"]["stats"]["time_budget"]  # the test server's search time cap
    assert _close(answer, documented), (answer, documented)


def _close(got, want) -> bool:
    """Equal JSON values, floats to a relative 1e-9 (the searches' means, last bits aside)."""
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(_close(got[k], want[k]) for k in want)
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_close(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, float):
        return got == pytest.approx(want, rel=1e-9)
    return got == want
