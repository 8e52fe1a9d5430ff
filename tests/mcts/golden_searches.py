"""Fixed-seed searches of every game whose results must not change when the search's code
moves (issue 28, item 2: the games' knowledge behind ``_games.pxd``; issue 39: the search
compiled once per game).

``results()`` runs every case and returns its figures (root visits, mean rewards, win
chances, margins, the principal variation, the tree's size; the heuristic evaluation and
The Council's cheap policy on a few positions too). ``test_search_golden.py`` compares
them with ``golden/searches.json``; rewrite that file only for a change meant to change
the search:

    python tests/mcts/golden_searches.py > tests/mcts/golden/searches.json
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace

from council.engine._kuhn_poker import KuhnPokerState
from council.engine._leduc_poker import LeducPokerState
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.the_council import TheCouncilState
from council.mcts import _search
from council.mcts._the_council_search import the_council_policy_action
from council.mcts.agents import PIMCAgent, parse_agent
from council.mcts.council_of_four_settings import V1_CONFIG
from council.mcts.kuhn_poker_agents import KUHN_POKER_CONFIG, KUHN_POKER_V3_CONFIG
from council.mcts.leduc_poker_agents import LEDUC_POKER_CONFIG, LEDUC_POKER_V3_CONFIG
from council.mcts.search import (
    SearchConfig,
    SearchLimits,
    game_config,
    search,
    search_full_state,
)
from council.mcts.the_council_agents import THE_COUNCIL_CONFIG


def played(start, actions: int, seed: int):
    """`start` after `actions` seeded random legal actions, then on to the first position
    with three legal actions or more (a choice worth searching), or to the end."""
    state = start.clone()
    rng = random.Random(seed)
    done = 0
    while not state.is_terminal() and (done < actions or len(state.legal_actions()) < 3):
        state.apply(rng.choice(state.legal_actions()))
        done += 1
    return state


def paying(players: int, seed: int) -> CouncilOfFourState:
    """The first position of a seeded random game where a payment is to be chosen."""
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed)
    rng = random.Random(seed)
    while not state.decision()[0].startswith("pay"):
        state.apply(rng.choice(state.legal_actions()))
    return state


def cof(players: int, actions: int, seed: int) -> CouncilOfFourState:
    """A Council of Four position."""
    return played(
        CouncilOfFourState.new_game(CouncilOfFourConfig(players=players), seed=seed), actions, seed
    )


def tc(players: int, actions: int, seed: int) -> TheCouncilState:
    """A position of The Council."""
    return played(TheCouncilState.new_game(players, seed=seed), actions, seed)


def betting(start, actions: int, seed: int):
    """A poker position: `start` after `actions` seeded random legal actions (a poker
    decision has two or three)."""
    state = start.clone()
    rng = random.Random(seed)
    for _ in range(actions):
        state.apply(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    return state


def kp(actions: int, seed: int) -> KuhnPokerState:
    """A position of Kuhn poker."""
    return betting(KuhnPokerState.new_game(seed=seed), actions, seed)


def ld(actions: int, seed: int) -> LeducPokerState:
    """A position of Leduc poker."""
    return betting(LeducPokerState.new_game(seed=seed), actions, seed)


def figures(result) -> dict:
    return {
        "action": result.action,
        "candidates": [
            [c.action, c.visits, c.mean_reward, c.win_probability, c.vp_margin]
            for c in result.candidates
        ],
        "pv": list(result.principal_variation),
        "iterations": result.iterations,
        "tree_nodes": result.tree_nodes,
        "forced": result.forced,
    }


V1 = V1_CONFIG
TC = THE_COUNCIL_CONFIG
LEARNED = game_config(SearchConfig(), "council-of-four")
HEURISTIC_PUCT = game_config(SearchConfig(evaluator="heuristic"), "council-of-four")
KIND_WEIGHTS = V1.with_settings({"kind_build_permit": 2.0, "kind_pay": 3.0, "pay_decay": 0.6})
LEARNED_UCB = game_config(SearchConfig(policy="none"), "council-of-four")

# (name, position, config, iterations, threads): information-set searches from the view of
# the seat to move.
COUNCIL_OF_FOUR_CASES = [
    ("cof2 opening learned", cof(2, 0, 1), LEARNED, 400, 1),
    ("cof3 midgame learned", cof(3, 40, 2), LEARNED, 400, 1),
    ("cof4 midgame learned", cof(4, 60, 3), LEARNED, 400, 1),
    ("cof4 late learned", cof(4, 200, 4), LEARNED, 300, 1),
    ("cof3 redeals", cof(3, 40, 2), LEARNED.with_settings({"leaf_redeals": 4}), 150, 1),
    ("cof4 redeals", cof(4, 60, 5), LEARNED.with_settings({"leaf_redeals": 2}), 150, 1),
    ("cof2 tree payments", cof(2, 30, 6), LEARNED.with_settings({"tree_payments": 1}), 400, 1),
    ("cof4 tree payments", cof(4, 80, 7), LEARNED.with_settings({"tree_payments": 1}), 400, 1),
    ("cof3 learned ucb", cof(3, 40, 2), LEARNED_UCB, 400, 1),
    ("cof3 learned ucb no tree payments", cof(3, 50, 8), LEARNED_UCB, 400, 1),
    ("cof4 heuristic puct", cof(4, 60, 3), HEURISTIC_PUCT, 400, 1),
    ("cof2 v1", cof(2, 30, 6), V1, 600, 1),
    ("cof4 v1", cof(4, 60, 3), V1, 600, 1),
    ("cof3 v1 no tree payments", cof(3, 50, 8), V1.with_settings({"tree_payments": 0}), 600, 1),
    ("cof4 v1 uniform", cof(4, 60, 3), V1.with_settings({"uniform_rollout": 1}), 500, 1),
    ("cof3 v1 to the end", cof(3, 150, 9), V1.with_settings({"rollout_actions": -1}), 60, 1),
    ("cof4 margin", cof(4, 60, 3), LEARNED.with_settings({"margin_weight": 0.4}), 300, 1),
    (
        "cof3 finish off",
        cof(3, 40, 2),
        LEARNED.with_settings({"finish_decisions": 0, "rollout_actions": 3}),
        300,
        1,
    ),
    (
        "cof4 fpu",
        cof(4, 60, 3),
        LEARNED.with_settings({"fpu_reduction": 0.3, "c_puct": 1.5}),
        300,
        1,
    ),
    ("cof2 kind weights", cof(2, 30, 6), KIND_WEIGHTS, 500, 1),
    ("cof3 two threads", cof(3, 40, 2), LEARNED, 400, 2),
    ("cof2 paying learned", paying(2, 11), LEARNED, 300, 1),
    ("cof4 paying v1", paying(4, 12), V1, 300, 1),
    ("cof3 small tree", cof(3, 40, 2), LEARNED, 500, 1),
]

THE_COUNCIL_CASES = [
    ("tc3 draft", tc(3, 2, 21), TC, 500, 1),
    ("tc4 opening", tc(4, 0, 1), TC, 500, 1),
    ("tc4 bid", tc(4, 30, 22), TC, 500, 1),
    ("tc5 reveal or bid", tc(5, 60, 23), TC, 500, 1),
    ("tc4 late", tc(4, 120, 24), TC, 500, 1),
    ("tc4 tree secrets", tc(4, 30, 22), TC.with_settings({"tree_secrets": 1}), 500, 1),
    ("tc3 tree secrets draft", tc(3, 2, 21), TC.with_settings({"tree_secrets": 1}), 500, 1),
    ("tc4 uniform", tc(4, 30, 22), TC.with_settings({"uniform_rollout": 1}), 400, 1),
    ("tc5 to the end", tc(5, 60, 23), TC.with_settings({"rollout_actions": -1}), 100, 1),
    (
        "tc4 margin",
        tc(4, 30, 22),
        TC.with_settings({"margin_weight": 0.3, "margin_scale": 3.0, "temperature": 1.5}),
        400,
        1,
    ),
    ("tc3 two threads", tc(3, 40, 25), TC, 400, 2),
]

# Kuhn and Leduc poker: from the start of the hand with Smooth UCT and sampled play (the
# game's defaults), and over the view (strong-v3's).
POKER_CASES = [
    ("kp opening hand", kp(0, 31), KUHN_POKER_CONFIG, 300, 1),
    ("kp after a bet hand", kp(1, 32), KUHN_POKER_CONFIG, 300, 1),
    ("kp opening view", kp(0, 31), KUHN_POKER_V3_CONFIG, 300, 1),
    ("kp focused", kp(1, 33), replace(KUHN_POKER_CONFIG, hand_focus=0.5), 300, 1),
    ("ld opening", ld(0, 41), LEDUC_POKER_V3_CONFIG, 500, 1),
    ("ld after three actions", ld(3, 42), LEDUC_POKER_V3_CONFIG, 500, 1),
    ("ld two threads", ld(1, 43), LEDUC_POKER_V3_CONFIG, 400, 2),
    ("ld smooth", ld(2, 44), replace(LEDUC_POKER_V3_CONFIG, smooth_eta=0.9), 400, 1),
    ("ld mccfr opening", ld(0, 41), LEDUC_POKER_CONFIG, 500, 1),
    ("ld mccfr after three actions", ld(3, 42), LEDUC_POKER_CONFIG, 500, 1),
    ("ld mccfr two threads", ld(1, 43), LEDUC_POKER_CONFIG, 400, 2),
    (
        "ld mccfr without baseline",
        ld(3, 42),
        replace(LEDUC_POKER_CONFIG, mccfr_baseline=0.0),
        400,
        1,
    ),
]


def results() -> dict:
    out: dict[str, object] = {}
    cases = COUNCIL_OF_FOUR_CASES + THE_COUNCIL_CASES + POKER_CASES
    for name, state, config, iterations, threads in cases:
        limits = SearchLimits(iterations=iterations, threads=threads)
        if name == "cof3 small tree":
            limits = replace(limits, max_nodes=120)
        view = state.view(state.current_player)
        out[name] = figures(search(view, limits, config, seed=7))
    # Perfect-information UCT (the cheat, and PIMC's worlds) on full states.
    for name, state, config in [
        ("cof3 full learned", cof(3, 40, 2), LEARNED),
        ("cof4 full v1", cof(4, 60, 3), V1_CONFIG),
        ("tc4 full", tc(4, 30, 22), THE_COUNCIL_CONFIG),
        ("tc5 full draft", tc(5, 3, 26), THE_COUNCIL_CONFIG),
        ("kp full", kp(1, 34), KUHN_POKER_V3_CONFIG),
        ("ld full", ld(2, 45), LEDUC_POKER_V3_CONFIG),
    ]:
        out[name] = figures(search_full_state(state, SearchLimits(iterations=300), config, seed=3))
    for name, game, state in [
        ("cof3 pimc", "council-of-four", cof(3, 40, 2)),
        ("tc4 pimc", "the-council", tc(4, 30, 22)),
    ]:
        agent = parse_agent("pimc:worlds=3,iterations=240", game)
        assert isinstance(agent, PIMCAgent)
        out[name] = agent.act(state.view(state.current_player), 5)
    for name, game, state in [
        ("cof4 cheat", "council-of-four", cof(4, 60, 3)),
        ("tc3 cheat", "the-council", tc(3, 40, 25)),
    ]:
        out[name] = parse_agent("cheat:iterations=200", game).act(state, 9)
    # The heuristic evaluation (the greedy agent's) and The Council's cheap policy.
    evaluations = []
    for players, actions, seed in [(2, 0, 1), (3, 40, 2), (4, 60, 3), (4, 200, 4), (4, 2000, 5)]:
        state = cof(players, actions, seed)
        for config in (V1_CONFIG, LEARNED):
            evaluations.append(_search.evaluate_state(state, config.params()))
    out["evaluate_state"] = evaluations
    out["greedy"] = []
    for seed in (2, 3):
        state = cof(3, 40, seed)
        out["greedy"].append(parse_agent("greedy").act(state.view(state.current_player), seed))
    policy = []
    for players, actions, seed in [(3, 2, 21), (4, 30, 22), (5, 60, 23), (4, 120, 24)]:
        state = tc(players, actions, seed)
        for config in (
            THE_COUNCIL_CONFIG,
            THE_COUNCIL_CONFIG.with_settings({"uniform_rollout": 1}),
        ):
            params = config.params()
            policy.append([the_council_policy_action(state, s, params) for s in range(20)])
            view = state.view(state.current_player)
            policy.append([the_council_policy_action(view, s, params) for s in range(5)])
    out["the_council_policy"] = policy
    return out


if __name__ == "__main__":
    json.dump(results(), sys.stdout, indent=1)
    sys.stdout.write("\n")
