"""Hidden information over a real server: seeds, and the answers to a view.

Every call made with one seat's view (ApplyAction, ListLegalActions, RecommendAction,
AnalyzePosition, GetView) is shown to carry nothing of another seat's hand, the politics
deck, the face-down permit decks' order or the rng, in two ways:

* every GameState in the answer is the viewer's view (those fields absent, the unknown permit
  tiles in increasing order), and
* the answer is the same for every full state behind the view: two full states with the same
  view but different hidden cards (hands, deck, deck order, rng) get identical answers, and so
  does the view itself. ApplyAction on a view deals the hidden cards from the request's seed:
  there, only what the action showed the viewer (its own draws, refilled permit tiles) may
  depend on that seed.

And NewGame without a seed draws a secret one: no small seed reproduces its deal, and a new
game's rng does not give its seed back.
"""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format
from server_helpers import played, to_proto, violations

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.serialize import state_from_proto
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb

REGIONS = ("coast", "hills", "mountains")
MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # splitmix64's increment (engine/_council_of_four.pxd, next_random)


def leaks(state: pb.GameState, viewer: int) -> list[str]:
    """What a GameState sent to `viewer` shows beyond that seat's view (empty: nothing)."""
    found = []
    if not state.HasField("viewer") or state.viewer != viewer:
        found.append(f"viewer is {state.viewer if state.HasField('viewer') else None}")
    if state.HasField("rng"):
        found.append("rng")
    if state.board.HasField("politics_deck"):
        found.append("board.politics_deck")
    for seat, player in enumerate(state.players):
        if seat != viewer and player.HasField("hand"):
            found.append(f"players[{seat}].hand")
    for region in REGIONS:
        unknown = list(getattr(state.board.permit_decks, region).unknown)
        if unknown != sorted(unknown):
            found.append(f"board.permit_decks.{region}.unknown in deck order {unknown}")
    return found


def twins(state: CouncilOfFourState, seat: int) -> tuple[CouncilOfFourState, CouncilOfFourState]:
    """Two full states with `seat`'s view of `state` and different hidden cards."""
    view = state.view(seat)
    other = view.determinize(4242)
    assert other.view(seat) == view and other != state
    assert other.to_raw()["hand"] != state.to_raw()["hand"]
    assert other.to_raw()["rng"] != state.to_raw()["rng"]
    return state, other


def positions() -> list[CouncilOfFourState]:
    """Mid-game full states of 2, 3 and 4 players, each at the start of a turn with at least
    ten legal actions."""
    out = []
    for players, seed, actions in ((2, 31, 25), (3, 32, 40), (4, 33, 60)):
        state = played(players, seed, actions)
        while state.decision()[0] != "turn" or len(state.legal_actions()) < 10:
            state.apply(state.legal_actions()[-1])
        out.append(state)
    return out


def as_dict(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


# -- GetView -------------------------------------------------------------------------------


def test_get_view_is_the_engine_view_and_hides_everything_else(stub):
    for state in positions():
        for seat in range(state.n_players):
            first, second = twins(state, seat)
            answers = [
                stub.GetView(spb.GetViewRequest(state=to_proto(s), seat=seat)).state
                for s in (first, second, first.view(seat))
            ]
            assert leaks(answers[0], seat) == []
            assert state_from_proto(answers[0]) == state.view(seat)
            assert answers[1] == answers[0] and answers[2] == answers[0]


def test_get_view_of_a_partial_state_and_of_a_finished_game(stub):
    state = played(3, seed=34, actions=30)
    partial = to_proto(state)
    partial.players[2].ClearField("hand")
    answer = stub.GetView(spb.GetViewRequest(state=partial, seat=1)).state
    assert leaks(answer, 1) == [] and state_from_proto(answer) == state.view(1)
    done = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=35)
    done.random_playout(35)
    answer = stub.GetView(spb.GetViewRequest(state=to_proto(done), seat=0)).state
    assert leaks(answer, 0) == [] and state_from_proto(answer) == done.view(0)


@pytest.mark.parametrize(
    ("seat", "of_view", "field", "problem"),
    [
        (None, False, "seat", "required"),
        (3, False, "seat", "must be in 0..2, got 3"),
        (-1, False, "seat", "must be in 0..2, got -1"),
        (0, True, "seat", "the state is seat 1's view"),
    ],
)
def test_get_view_rejects_a_bad_seat(stub, seat, of_view, field, problem):
    state = played(3, seed=36, actions=10)
    request = spb.GetViewRequest(state=to_proto(state.view(1) if of_view else state))
    if seat is not None:
        request.seat = seat
    with pytest.raises(grpc.RpcError) as info:
        stub.GetView(request)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    [(got_field, description)] = violations(info.value)
    assert got_field == field and problem in description


def test_get_view_validates_the_state(stub):
    with pytest.raises(grpc.RpcError) as info:
        stub.GetView(spb.GetViewRequest(seat=0))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(info.value)] == ["state"]
    bad = to_proto(played(2, seed=37, actions=5))
    bad.players[1].coins = 99
    with pytest.raises(grpc.RpcError) as info:
        stub.GetView(spb.GetViewRequest(state=bad, seat=0))
    assert [f for f, _ in violations(info.value)] == ["state.players[1].coins"]


# -- ApplyAction on a view -----------------------------------------------------------------

# What an action may show its mover from the deal it was played in: its own new cards and
# the permit tiles drawn to refill a face-up slot.
SHOWN_BY_AN_ACTION = ("hand", "face_up", "permit_decks")


def _without_draws(answer: spb.ApplyActionResponse, viewer: int) -> dict:
    obj = as_dict(answer)
    for state in [obj["state"]] + [v["state"] for v in obj.get("views", [])]:
        state["players"][viewer].pop("hand", None)
        state["board"].pop("face_up", None)
        state["board"].pop("permit_decks", None)
    # The effects name the tiles drawn face up (the state's face_up).
    lines = obj.get("effects", {}).get("lines", [])
    lines[:] = [line for line in lines if not line["text"].startswith("new face-up")]
    return obj


def _ask_on_views(stub, view: CouncilOfFourState, action: int) -> list[spb.ApplyActionResponse]:
    """ApplyAction of `action` on `view` with seeds 1, 2 and 3, each answer checked."""
    seat = view.viewer
    answers = [
        stub.ApplyAction(
            spb.ApplyActionRequest(
                state=to_proto(view), action_id=action, seed=seed, include_views=True
            )
        )
        for seed in (1, 2, 3)
    ]
    for seed, answer in zip((1, 2, 3), answers, strict=True):
        assert answer.sampled is True
        assert leaks(answer.state, seat) == []
        assert [v.seat for v in answer.views] == [seat]
        assert answer.views[0].state == answer.state
        world = view.determinize(seed).child(action)
        assert state_from_proto(answer.state) == world.view(seat)
        assert list(answer.scores) == world.scores()
    # The deal behind the view shows only through what the action drew for its mover.
    assert all(_without_draws(a, seat) == _without_draws(answers[0], seat) for a in answers)
    return answers


def test_apply_action_on_a_view_answers_with_the_view(stub):
    checked = differing = 0
    for state in positions():
        seat = state.current_player
        view = state.view(seat)
        actions = view.determinize(0).legal_actions()
        for action in actions[:: max(1, len(actions) // 12)]:
            answers = _ask_on_views(stub, view, action)
            checked += 1
            # Still the mover's decision (a payment, a bonus choice, another main action):
            # one more action on the returned view.
            after = state_from_proto(answers[0].state)
            if after.current_player == seat:
                follow = after.determinize(0).legal_actions()
                later = _ask_on_views(stub, after, follow[len(follow) // 2])
                differing += len({a.SerializeToString() for a in later}) > 1
                checked += 1
    assert checked >= 30
    assert differing >= 1  # some action drew, and its draw came from the request's seed


def test_apply_action_on_a_partial_state_answers_with_the_movers_view(stub):
    state = played(3, seed=38, actions=30)
    seat = state.current_player
    partial = to_proto(state)
    for p in range(3):
        if p != seat:
            partial.players[p].ClearField("hand")
    action = state.legal_actions()[0]
    answer = stub.ApplyAction(spb.ApplyActionRequest(state=partial, action_id=action, seed=9))
    assert answer.sampled is True and leaks(answer.state, seat) == []
    assert state_from_proto(answer.state) == state.view(seat).determinize(9).child(action).view(
        seat
    )


def test_apply_action_on_a_full_state_is_not_sampled(stub):
    state = played(2, seed=39, actions=12)
    action = state.legal_actions()[0]
    answer = stub.ApplyAction(spb.ApplyActionRequest(state=to_proto(state), action_id=action))
    assert answer.sampled is False
    assert state_from_proto(answer.state) == state.child(action)


def test_apply_action_on_another_seats_view_is_refused(stub):
    state = played(3, seed=40, actions=10)
    other = (state.current_player + 1) % 3
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyAction(
            spb.ApplyActionRequest(state=to_proto(state.view(other)), action_id=0, seed=1)
        )
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


# -- the other calls answer a view as they answer any full state behind it ------------------


def test_list_legal_actions_depends_on_the_view_only(stub):
    for state in positions():
        seat = state.current_player
        first, second = twins(state, seat)
        answers = [
            stub.ListLegalActions(
                spb.ListLegalActionsRequest(state=to_proto(s), seat=seat, include_descriptions=True)
            )
            for s in (first.view(seat), first, second)
        ]
        assert answers[1] == answers[0] and answers[2] == answers[0]


def _search_result(result: pb.SearchResult) -> pb.SearchResult:
    out = pb.SearchResult()
    out.CopyFrom(result)
    out.stats.ClearField("elapsed")
    return out


def test_searches_depend_on_the_view_only(stub):
    state = played(3, seed=41, actions=30)
    seat = state.current_player
    first, second = twins(state, seat)
    limits = pb.SearchLimits(iterations=300)
    recommended = []
    analysed = []
    for s in (first.view(seat), first, second):
        recommended.append(
            _search_result(
                stub.RecommendAction(
                    spb.RecommendActionRequest(state=to_proto(s), seat=seat, limits=limits, seed=3)
                ).result
            )
        )
        stream = stub.AnalyzePosition(
            spb.AnalyzePositionRequest(state=to_proto(s), seat=seat, limits=limits, seed=3)
        )
        analysed.append([_search_result(m.result) for m in stream if m.final])
    assert recommended[1] == recommended[0] and recommended[2] == recommended[0]
    assert analysed[0] == [recommended[0]]
    assert analysed[1] == analysed[0] and analysed[2] == analysed[0]


# -- seeds ---------------------------------------------------------------------------------


def test_new_game_without_a_seed_draws_a_secret_one(stub):
    config = pb.GameConfig(players=3)
    deals = [stub.NewGame(spb.NewGameRequest(config=config)).state for _ in range(3)]
    assert len({d.rng for d in deals}) == 3
    # A view of such a game is no small seed's: trying seeds finds nothing.
    view = state_from_proto(deals[0]).view(1)
    engine_config = CouncilOfFourConfig(players=3)
    assert not any(
        CouncilOfFourState.new_game(engine_config, seed=s).view(1) == view for s in range(2000)
    )
    # An explicit seed, 0 included, is the engine's deal.
    for seed in (0, 1234):
        answer = stub.NewGame(spb.NewGameRequest(config=config, seed=seed)).state
        assert state_from_proto(answer) == CouncilOfFourState.new_game(engine_config, seed=seed)


def _unmix(z: int) -> int:
    """The inverse of splitmix64's output function."""
    z = (z ^ (z >> 31) ^ (z >> 62)) & MASK64
    z = (z * 0x319642B2D24D8EC3) & MASK64
    z = (z ^ (z >> 27) ^ (z >> 54)) & MASK64
    z = (z * 0x96DE1B173F119089) & MASK64
    return (z ^ (z >> 30) ^ (z >> 60)) & MASK64


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def test_a_new_games_rng_does_not_give_its_seed_back():
    assert all(_unmix(_mix(x)) == x for x in (0, 1, GAMMA, MASK64, 0x123456789ABCDEF))
    for players in (2, 3, 4):
        for seed in (0, 7, 1234, 0xDEADBEEFCAFEF00D):
            rng = (
                CouncilOfFourState.new_game(
                    CouncilOfFourConfig(players=players), seed=seed
                ).to_raw()["rng"]
                & MASK64
            )
            # The rng word is the setup's start word plus GAMMA per draw (fewer than 100).
            # Were the start word the seed plus GAMMA (as it was), or splitmix64's output for
            # the seed, undoing the draws (and the mix) would give the seed back.
            starts = [(rng - k * GAMMA) & MASK64 for k in range(200)]
            recovered = {(start - GAMMA) & MASK64 for start in starts}
            recovered |= {(_unmix(start) - GAMMA) & MASK64 for start in starts}
            assert seed not in recovered
