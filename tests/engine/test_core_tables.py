"""The numbering the compiled core exports once for the Python layer: the pending-decision
kinds (``Decision``) and the action-kind table (``ACTION_KINDS``)."""

from __future__ import annotations

import random

from council.engine._council_of_four import ACTION_KINDS, ACTION_OFFSETS, NUM_ACTIONS, Decision
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.mcts import _council_of_four_search


def test_decision_kinds():
    assert [d.name for d in Decision] == [
        "pay_permit",
        "pay_king",
        "city_token",
        "first_of_two_city_tokens",
        "second_of_two_city_tokens",
        "free_permit",
        "permit_bonus",
    ]
    # 0 marks a free slot of the queue, so no kind is 0.
    assert sorted(Decision) == list(range(1, len(Decision) + 1))
    assert str(Decision.pay_king) == f"{Decision.pay_king}" == "pay_king"
    assert Decision["free_permit"] == Decision.free_permit and Decision(2) is Decision.pay_king


def test_decision_names_the_head_of_the_queue():
    seen = set()
    for seed in range(6):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=2 + seed % 3), seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            kind, arg = state.decision()
            raw = state.to_raw()
            if raw["pending_n"]:
                assert kind == Decision(raw["pending_kind"][0]).name
                assert arg == raw["pending_arg"][0]
                seen.add(Decision(raw["pending_kind"][0]))
            else:
                assert (kind, arg) == ("turn", None)
            state.apply(rng.choice(state.legal_actions()))
        assert state.decision() == ("game_over", None)
    assert {Decision.pay_permit, Decision.pay_king} <= seen


def test_action_kinds_cover_the_ids_in_order():
    first = 0
    for kind in ACTION_KINDS:
        assert kind.first == first and kind.size > 0
        first += kind.size
    assert first == NUM_ACTIONS
    assert {kind.name: kind.first for kind in ACTION_KINDS} == ACTION_OFFSETS
    # The search's rollout policy weighs the kinds under the same names, in the core's K_*
    # order.
    assert tuple(kind.name for kind in ACTION_KINDS) == _council_of_four_search.KIND_NAMES
