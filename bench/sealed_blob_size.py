"""The size of a sealed game's blob (council.server.sealing) at the end of a whole game, with
and without the history that GetGameRecord reads (the start, every action, the players).

Plays seeded games of each registered game with random legal moves (a random game runs
longer than a bot's: a larger blob than a real game's) and prints one JSON object: per game
the actions played and the final blob's bytes without a history (as before) and with it, the
bytes of its `actions` (packed varints), `chance` (a fixed 8-byte seed per action) and
`start` fields, and the base64 characters a
Connect JSON request carries. The request limit is 1 MiB
(council.server.connect.MAX_REQUEST_BYTES, the gRPC server's too).

    .venv/bin/python bench/sealed_blob_size.py [--games 5]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics

from council.engine.games import all_games
from council.engine.serialize import state_to_proto
from council.server import sealing
from council.server.connect import MAX_REQUEST_BYTES
from council.v1 import service_pb2 as spb


def measure(game, seed: int) -> dict:
    start = game.new_game(seed=seed)
    state, actions, chooser = start.clone(), [], random.Random(seed)
    while not state.is_terminal():
        actions.append(chooser.choice(state.legal_actions()))
        state.apply(actions[-1])
    keys, secret = sealing.SealKeys.generate("k1"), sealing.new_game_secret()
    chance = [random.Random(seed).getrandbits(64) or 1 for _ in actions]  # as sealed_games
    history = spb.SealedContent(start=state_to_proto(start), actions=actions, chance=chance)
    for seat in range(start.n_players):
        history.players.add(seat=seat, name="bot (strong)", agent="ismcts:iterations=5000")
    before = len(keys.seal(state_to_proto(state), secret))
    after = keys.seal(state_to_proto(state), secret, history=history)
    return {
        "actions": len(actions),
        "actions_field_bytes": len(spb.SealedContent(actions=actions).SerializeToString()),
        "chance_field_bytes": len(spb.SealedContent(chance=chance).SerializeToString()),
        "start_field_bytes": len(spb.SealedContent(start=history.start).SerializeToString()),
        "bytes_before": before,
        "bytes_after": len(after),
        "base64_after": len(base64.b64encode(after)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games of each game (seeds 1..N)")
    args = parser.parse_args()
    report: dict = {"request_limit_bytes": MAX_REQUEST_BYTES, "games": {}}
    for game in all_games():
        runs = [measure(game, seed) for seed in range(1, args.games + 1)]
        largest = max(runs, key=lambda r: r["bytes_after"])
        report["games"][game.name] = {
            "runs": runs,
            "mean_actions": statistics.mean(r["actions"] for r in runs),
            "mean_bytes_before": statistics.mean(r["bytes_before"] for r in runs),
            "mean_bytes_after": statistics.mean(r["bytes_after"] for r in runs),
            "actions_field_bytes_per_action": round(
                statistics.mean(r["actions_field_bytes"] / r["actions"] for r in runs), 2
            ),
            "largest_base64": largest["base64_after"],
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
