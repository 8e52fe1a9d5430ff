"""What Council of Four's two message forms cost (docs/state-json.md, "Two forms"), printed as
one JSON object.

    python bench/position_forms.py            # full run (a few seconds)
    python bench/position_forms.py --quick    # a smoke check

On mid-game 4-player states and views: reading and validating a ``council.v1.GameState``
in full (what the service does for every request) in the deprecated form and in the member
form (``council_of_four``; read through the deprecated form's compiled reader after a copy),
writing each form, and converting a whole ``ListLegalActions`` reply with effects into the
members (``council.engine.members.to_members``, what the service does for a member-form
request), beside what computing those effects costs. Medians of several repetitions timed
with ``time.perf_counter``; nothing here asserts anything about speed.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time

from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.effects import known_effects
from council.engine.members import to_members
from council.engine.serialize import state_from_proto, state_to_proto
from council.server import convert


def _positions(n: int, seed: int) -> list[CouncilOfFourState]:
    out = []
    for g in range(n):
        state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=4), seed=seed + g)
        rng = random.Random(seed + g)
        for _ in range(rng.randrange(40, 160)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            out += [state, state.view(state.current_player)]
    return out


def _per_call_us(fn, items: list, calls: int, repeats: int) -> float:
    def run():
        for i in range(calls):
            fn(items[i % len(items)])

    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / calls * 1e6


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short run for a smoke check")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    positions = _positions(6 if args.quick else 24, args.seed)
    calls, repeats = (200, 3) if args.quick else (2000, 7)
    deprecated = [state_to_proto(s) for s in positions]
    members = [state_to_proto(s, member_form=True) for s in positions]
    replies = []
    full = positions[::2][:4]
    for state in full:  # full states: the seat to move's legal actions
        reply = convert.legal_actions_response(state.current_player, state)
        known = known_effects(state, state.current_player)
        for m in reply.actions:
            m.effects.CopyFrom(known[m.id])
        replies.append(reply)
    report = {
        "benchmark": "council.engine position forms",
        "quick": args.quick,
        "positions": len(positions),
        "repeats": repeats,
        "read_deprecated_form_us": _per_call_us(state_from_proto, deprecated, calls, repeats),
        "read_member_form_us": _per_call_us(state_from_proto, members, calls, repeats),
        "write_deprecated_form_us": _per_call_us(state_to_proto, positions, calls, repeats),
        "write_member_form_us": _per_call_us(
            lambda s: state_to_proto(s, member_form=True), positions, calls, repeats
        ),
        "list_legal_actions_reply_actions": statistics.median(len(r.actions) for r in replies),
        "list_legal_actions_reply_to_members_us": _per_call_us(
            lambda r: to_members(_copy(r), "council_of_four"), replies, calls // 20, repeats
        ),
        "list_legal_actions_reply_copy_only_us": _per_call_us(_copy, replies, calls // 20, repeats),
        # For scale: what the reply's effects cost to compute (every legal action played).
        "list_legal_actions_known_effects_us": _per_call_us(
            lambda s: known_effects(s, s.current_player), full, calls // 20, repeats
        ),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
    }
    return report


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
