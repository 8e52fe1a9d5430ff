"""Position features, the expert planner and the compiled value forward pass, on concrete
positions with hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from positions import (
    END_TURN,
    ENGAGE,
    T_ASS1,
    T_COINS2,
    T_VP3,
    Pos,
    build_permit,
    city,
    tile,
)

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts import _council_of_four_evaluation
from council.mcts.agents import EXPERT_WEIGHTS, ExpertAgent
from council.mcts.features import FEATURE_NAMES, seat_features
from council.mcts.value_model import ValueModel

F = {name: i for i, name in enumerate(FEATURE_NAMES)}


def test_names_match_the_compiled_rows():
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    rows = seat_features(CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=2))
    assert rows.shape == (4, len(FEATURE_NAMES)) and np.isfinite(rows).all()


def test_a_new_game_reads_the_starting_resources():
    rows = seat_features(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=4))
    assert rows[:, F["coins"]].tolist() == [10, 11]
    assert rows[:, F["assistants"]].tolist() == [1, 2]
    assert rows[:, F["cards"]].tolist() == [7, 6]  # seat 0 has drawn its first card
    assert rows[:, F["to_move"]].tolist() == [1, 0]
    assert rows[:, F["main_left_now"]].tolist() == [1, 0]
    for name in ("vp", "emporia", "permits_unused", "permit_cities", "group_progress"):
        assert rows[:, F[name]].tolist() == [0, 0], name
    # Both seats start level with each other on the nobility track (5 VP each) and with no
    # permit tiles (a tie for most: 3 VP each, RULINGS 8).
    assert rows[:, F["awards"]].tolist() == [8, 8]


def _built_position():
    # Seat 0 owns Arkon and Burgen (coast), holds the unused tile "AE" (Arkon + Esti) and
    # the tile "CD"; seat 1 owns Castrum; two neutral emporiums sit in Dorful.
    t_ae, t_cd = tile("AE"), tile("CD")
    return (
        Pos(players=3, seed=1)
        .known_councils()
        .emporia(0, "AB")
        .emporia(1, "C")
        .emporia(2, "D")
        .permits(0, up=(t_ae, t_cd))
        .tokens({"A": T_VP3, "E": T_COINS2, "B": T_ASS1})
        .assistants(0, 1)
        .coins(0, 7)
        .bonus_left(0b1111111, king_taken=0)
        .hand(0, white=2, black=1)
        .state()
    )


def test_cities_the_permits_open_and_what_they_cost():
    rows = seat_features(_built_position())
    me = rows[0]
    assert me[F["emporia"]] == 2 and me[F["permits_unused"]] == 2
    # AE and CD open C, D and E (A is built); C and D each hold one other emporium, so
    # with one assistant all three are affordable.
    assert me[F["permit_cities"]] == 3
    assert me[F["permit_cities_affordable"]] == 3


def test_group_progress_counts_the_coast_race_with_the_king_tile():
    from council.engine import council_of_four_board as B

    state = _built_position()
    rows = seat_features(state)
    # Coast: 2 of 5 cities -> (tile + top king tile 25) * (2/5)^2; the colour groups add
    # their own shares. Computed here from the board data, independently of the core.
    layout = B.Layout.from_code(state.config.layout)
    coast = B.BONUS_TILE_VP[0]
    expected = (coast + 25) * (2 / 5) ** 2
    for k, _name in enumerate(B.CITY_COLOURS):
        members = [c for c in range(15) if layout.city_colours[c] == k]
        owned = sum(1 for c in members if c in (city("A"), city("B")))
        expected += (B.BONUS_TILE_VP[3 + k] + 25) * (owned / len(members)) ** 2
    assert rows[0][F["group_progress"]] == pytest.approx(expected)


def test_token_reach_links_the_network():
    rows = seat_features(_built_position())
    # Building Esti (coins 2, worth 0.8) links Arkon's 3 VP and Burgen's assistant (1.0)
    # only if they are joined by roads: Esti-?-Arkon is not adjacent, so compute from the
    # layout the cities linked to Esti through seat 0's emporiums.
    from council.engine import council_of_four_board as B

    state = _built_position()
    layout = B.Layout.from_code(state.config.layout)
    own = {city("A"), city("B")}
    seen, frontier = {city("E")}, [city("E")]
    while frontier:
        c = frontier.pop()
        for n in layout.neighbours(c):
            if n in own and n not in seen:
                seen.add(n)
                frontier.append(n)
    worth = {T_VP3: 3.0, T_COINS2: 0.8, T_ASS1: 1.0}
    tokens = state.to_raw()["city_token"]
    esti = sum(worth.get(tokens[c], 0) for c in seen if tokens[c] >= 0)
    # Seat 0's best reach is at least Esti's; C and D are candidates too.
    assert rows[0][F["token_reach"]] >= esti > 0


def test_ending_features_switch_on_with_the_trigger():
    state = Pos(players=2, seed=3).vp(0, 40).vp(1, 30).end_trigger(0).state()
    rows = seat_features(state)
    assert rows[:, F["vp_x_ending"]].tolist() == [40, 30]
    before = seat_features(Pos(players=2, seed=3).vp(0, 40).state())
    assert before[0][F["vp_x_ending"]] == 0


def test_features_refuse_a_view():
    with pytest.raises(ValueError, match="full state"):
        seat_features(CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=1).view(0))


def test_expert_builds_the_winning_emporium():
    # Seat 0 holds the tile AE with one assistant; building Esti is clearly best.
    state = _built_position()
    action = _council_of_four_evaluation.expert_choice(
        state, [EXPERT_WEIGHTS[n] for n in FEATURE_NAMES]
    )
    assert action in (build_permit(tile("AE"), 0), build_permit(tile("AE"), 1))
    assert action in state.legal_actions()


def test_expert_does_not_waste_a_quick_action():
    # After its main action, with nothing worth buying, the expert ends its turn rather
    # than engaging an assistant at a loss.
    state = Pos(players=2, seed=5).coins(0, 3).assistants(0, 0).turn(0, 0, 1).state()
    assert ENGAGE in state.legal_actions() and END_TURN in state.legal_actions()
    action = _council_of_four_evaluation.expert_choice(
        state, [EXPERT_WEIGHTS[n] for n in FEATURE_NAMES]
    )
    assert action == END_TURN


def test_expert_agent_is_legal_and_deterministic():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=11)
    agent = ExpertAgent()
    for step in range(60):
        view = state.view(state.current_player)
        a = agent.act(view, seed=step)
        assert a == agent.act(view, seed=step)
        assert a in state.legal_actions()
        state.apply(a)
        if state.is_terminal():
            break


def random_value_models(seed=0):
    """A linear and a one-hidden-layer ValueModel with random weights."""
    rng = np.random.default_rng(seed)
    n = len(FEATURE_NAMES)
    return (
        ValueModel(FEATURE_NAMES, rng.normal(size=n), rng.uniform(1, 3, n), w=rng.normal(size=n)),
        ValueModel(
            FEATURE_NAMES,
            rng.normal(size=n),
            rng.uniform(1, 3, n),
            w1=rng.normal(size=(n, 5)),
            b1=rng.normal(size=5),
            w2=rng.normal(size=5),
        ),
    )


def test_compiled_value_matches_numpy():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=8)
    for k in range(150):
        state.apply(state.legal_actions()[k % len(state.legal_actions())])
    for model in random_value_models(0):
        compiled = _council_of_four_evaluation.value_win_chances_of(state, model)
        assert compiled == pytest.approx(model.predict_state(state).tolist(), abs=1e-12)
        assert sum(compiled) == pytest.approx(1.0)


def test_redealt_value_with_nothing_to_redeal_is_the_value():
    # The other seats hold no cards, so every deal is the same and the incremental forward
    # pass (public part of the row, then the hand features) must give the full one.
    state = Pos(players=3, seed=2).hand(0, white=2, joker=1).hand(1).hand(2).coins(0, 9).state()
    for model in random_value_models(1):
        plain = _council_of_four_evaluation.value_win_chances_of(state, model)
        assert _council_of_four_evaluation.redealt_win_chances_of(
            state, 0, model, 5, 1
        ) == pytest.approx(plain, abs=1e-12)


def test_redealt_value_reads_only_what_the_viewer_sees_and_leaves_the_state():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    for k in range(90):
        state.apply(state.legal_actions()[k % len(state.legal_actions())])
    viewer = (state.current_player + 1) % 3
    view = state.view(viewer)
    one, other = view.determinize(1), view.determinize(2)
    assert one != other  # the other seats' hands differ between the two worlds
    for model in (*random_value_models(2), ValueModel.load()):
        before = one.clone()
        chances = _council_of_four_evaluation.redealt_win_chances_of(one, viewer, model, 8, 7)
        assert one == before
        assert (
            _council_of_four_evaluation.redealt_win_chances_of(other, viewer, model, 8, 7)
            == chances
        )
        assert sum(chances) == pytest.approx(1.0)
        # Not the value of either world: the other hands are dealt anew.
        assert chances != pytest.approx(
            _council_of_four_evaluation.value_win_chances_of(one, model)
        )


def test_redealt_value_is_the_mean_over_the_viewers_determinizations():
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2), seed=4)
    for k in range(60):
        state.apply(state.legal_actions()[(7 * k) % len(state.legal_actions())])
    model = ValueModel.load()
    view = state.view(0)
    expected = np.mean([model.predict_state(view.determinize(i)) for i in range(4000)], axis=0)
    redealt = np.mean(
        [
            _council_of_four_evaluation.redealt_win_chances_of(state, 0, model, 64, seed)
            for seed in range(64)
        ],
        axis=0,
    )
    assert redealt == pytest.approx(expected, abs=0.01)
    with pytest.raises(ValueError, match="redeals"):
        _council_of_four_evaluation.redealt_win_chances_of(state, 0, model, 0, 1)
    with pytest.raises(ValueError, match="viewer"):
        _council_of_four_evaluation.redealt_win_chances_of(state, 2, model, 4, 1)


def test_compiled_priors_match_numpy_and_favour_cheap_payments():
    from council.mcts.policy_model import PolicyModel

    model = PolicyModel.load()  # the shipped prior
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=8)
    rng = np.random.default_rng(3)
    checked_pay = False
    for _ in range(300):
        actions = state.legal_actions()
        compiled = _council_of_four_evaluation.policy_priors_of(state, actions, model)
        assert compiled == pytest.approx(model.priors_for(state, actions).tolist(), abs=1e-12)
        assert sum(compiled) == pytest.approx(1.0)
        if state.decision()[0].startswith("pay") and len(actions) > 1:
            # The favourite payment is not dominated: no other costs fewer coins and cards.
            rows = np.array(_council_of_four_evaluation.action_feature_rows(state, actions))
            coins, cards = rows[:, F_PAY_COST], rows[:, F_PAY_CARDS]
            best = int(np.argmax(compiled))
            dominated = (coins <= coins[best]) & (cards <= cards[best])
            dominated &= (coins < coins[best]) | (cards < cards[best])
            assert not dominated.any()
            checked_pay = True
        state.apply(actions[int(rng.integers(len(actions)))])
        if state.is_terminal():
            break
    assert checked_pay


F_PAY_COST = _council_of_four_evaluation.ACTION_FEATURE_NAMES.index("pay_cost")
F_PAY_CARDS = _council_of_four_evaluation.ACTION_FEATURE_NAMES.index("pay_cards")
