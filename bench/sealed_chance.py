"""What a client holding a sealed game's old blobs can foresee or re-roll (issue #35): the
attacks of the issue, run against a server on this machine, through gRPC as a client would.

1. **Resend a draw.** From one blob of a 2-seat Council of Four game, "change coast" (it
   draws two permit tiles) sent `--resends` times: how many different outcomes.
2. **Different first moves.** From one blob, six different first moves, the bot's turn, and
   seat 0's hand when its next turn begins (its drawn card): how many different hands.
3. **The throw-away record.** From the first blob, play a line to the end (seat 0 random,
   the bot at beginner), read GetGameRecord (its start holds every hand and the chance
   state), then play another line from the same blob and predict each of its positions by
   playing its moves on the record's start (positions predicted exactly), and each politics
   card seat 0 draws by playing the drawing move on the position before it (drawn cards
   predicted, against the chance of guessing them from the unseen cards' make-up). Before
   chance was drawn at each move, every position and draw was predicted.
4. **The bot.** The same bot ticket's RecommendAction sent `--resends` times from one blob:
   how many different moves (its seed and budget are the game's).

Prints one JSON object (bench/results/sealed-chance.json):

    .venv/bin/python bench/sealed_chance.py [--games 20] [--resends 5] [--line 80]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter

import grpc

from council.engine.serialize import state_from_proto
from council.server import sealing
from council.server.app import start_server
from council.server.config import ServerConfig
from council.v1 import game_pb2 as pb
from council.v1 import service_pb2 as spb
from council.v1 import service_pb2_grpc

KEYS = sealing.SealKeys.generate("bench")
BEGINNER = pb.STRENGTH_PRESET_BEGINNER


def _new(stub, bots=(1,)) -> spb.NewGameResponse:
    return stub.NewGame(
        spb.NewGameRequest(
            config=pb.GameConfig(players=2),
            sealed=True,
            bot_seats=bots,
            bot_presets={seat: BEGINNER for seat in bots},
        )
    )


def _full(blob: bytes):
    return state_from_proto(KEYS.open(blob, ttl_s=3600).state)


def _step(stub, game, blob: bytes, chooser: random.Random) -> bytes:
    """One move: seat 0 a random legal one, the bot its own."""
    state = _full(blob)
    ticket = game.tickets[state.current_player]
    sealed = spb.Sealed(blob=blob, ticket=ticket.ticket)
    if ticket.role == spb.SEAT_ROLE_BOT:
        return stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed)).sealed_state
    action = chooser.choice(state.legal_actions())
    return stub.ApplyAction(spb.ApplyActionRequest(sealed=sealed, action_id=action)).sealed_state


def resend_a_draw(stub, resends: int) -> int:
    game = _new(stub)
    sealed = spb.Sealed(blob=game.sealed_state, ticket=game.tickets[0].ticket)
    request = spb.ApplyActionRequest(sealed=sealed, action_text="change coast")
    return len(
        {
            stub.ApplyAction(request).state.SerializeToString(deterministic=True)
            for _ in range(resends)
        }
    )


def different_first_moves(stub) -> int:
    game = _new(stub)
    start = _full(game.sealed_state)
    firsts = [a for a in start.legal_actions() if start.action_to_text(a).startswith("elect ")]
    hands = set()
    for first in firsts[:6]:
        sealed = spb.Sealed(blob=game.sealed_state, ticket=game.tickets[0].ticket)
        blob = stub.ApplyAction(spb.ApplyActionRequest(sealed=sealed, action_id=first)).sealed_state
        sealed = spb.Sealed(blob=blob, ticket=game.tickets[0].ticket)
        blob = stub.ApplyAction(
            spb.ApplyActionRequest(sealed=sealed, action_text="end")
        ).sealed_state
        while _full(blob).current_player == 1:
            blob = _step(stub, game, blob, random.Random(0))
        hands.add(tuple(_full(blob).to_raw()["hand"][0]))
    return len(hands)


def throw_away_record(stub, seed: int, line: int) -> dict:
    """One trial of attack 3: positions and seat 0's draws of the second line predicted."""
    game = _new(stub)
    blob = game.sealed_state
    chooser = random.Random(seed)
    while not _full(blob).is_terminal():
        blob = _step(stub, game, blob, chooser)
    sealed = spb.Sealed(blob=blob, ticket=game.tickets[0].ticket)
    record = stub.GetGameRecord(spb.GetGameRecordRequest(sealed=sealed)).record
    # The attacker's models of the other line: the record's start played on by its moves
    # (`model`), and, for each draw, the position before it played on by one move.
    model = state_from_proto(record.start)
    blob, other = game.sealed_state, random.Random(seed + 10_000)
    found = Counter()
    for _ in range(line):
        before = _full(blob)
        if before.is_terminal():
            break
        blob = _step(stub, game, blob, other)
        actual = _full(blob)
        action = KEYS.open(blob, ttl_s=3600).actions[-1]
        predicted = before.clone()
        predicted.apply(action)
        if model.is_legal(action):
            model.apply(action)
        seen, guessed, modelled = (s.to_raw() for s in (actual, predicted, model))
        for raw in (seen, guessed, modelled):
            del raw["rng"]
        found["positions"] += 1
        found["positions_predicted"] += seen == modelled
        drawn = [a - b for a, b in zip(seen["hand"][0], before.to_raw()["hand"][0], strict=True)]
        if sum(drawn) == 1 and min(drawn) == 0:  # seat 0 drew one card (and played none)
            card = drawn.index(1)
            found["draws"] += 1
            found["draws_predicted"] += guessed["hand"][0][card] > before.to_raw()["hand"][0][card]
            found["chance_level_sum"] += _guess_chance(before)
    return dict(found)


def _guess_chance(before) -> float:
    """The chance that a guess from the unseen cards' make-up names a drawn card: the sum of
    the squares of each kind's share of the cards seat 0 cannot see."""
    rules = before.to_raw()
    unseen = [
        rules["politics_deck"][k] + sum(rules["hand"][p][k] for p in range(1, before.n_players))
        for k in range(len(rules["politics_deck"]))
    ]
    total = sum(unseen) or 1
    return sum((n / total) ** 2 for n in unseen)


def bot_moves(stub, resends: int) -> int:
    game = _new(stub, bots=(0,))
    sealed = spb.Sealed(blob=game.sealed_state, ticket=game.tickets[0].ticket)
    moves = set()
    for _ in range(resends):
        answer = stub.RecommendAction(spb.RecommendActionRequest(sealed=sealed))
        moves.add(KEYS.open(answer.sealed_state, ttl_s=3600).actions[-1])
    return len(moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="trials of each attack")
    parser.add_argument("--resends", type=int, default=5, help="the same call sent again")
    parser.add_argument("--line", type=int, default=80, help="positions of the second line")
    args = parser.parse_args()
    running = start_server(ServerConfig(address="127.0.0.1:0", search_slots=1, seal_keys=KEYS))
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = service_pb2_grpc.CouncilServiceStub(channel)
            resent = [resend_a_draw(stub, args.resends) for _ in range(args.games)]
            firsts = [different_first_moves(stub) for _ in range(args.games)]
            records = Counter()
            for seed in range(args.games):
                records.update(throw_away_record(stub, seed, args.line))
            bots = [bot_moves(stub, args.resends) for _ in range(args.games)]
    finally:
        running.stop(grace=None)
    print(
        json.dumps(
            {
                "games": args.games,
                "resends": args.resends,
                "change_coast_distinct_outcomes": {
                    "min": min(resent),
                    "mean": sum(resent) / len(resent),
                    "trials_with_one_outcome": resent.count(1),
                },
                "six_first_moves_distinct_next_hands": {
                    "min": min(firsts),
                    "mean": sum(firsts) / len(firsts),
                    "trials_with_one_hand": firsts.count(1),
                },
                "throw_away_record": {
                    "positions": records["positions"],
                    "positions_predicted": records["positions_predicted"],
                    "seat0_draws": records["draws"],
                    "seat0_draws_predicted": records["draws_predicted"],
                    "seat0_draws_expected_by_chance": round(records["chance_level_sum"], 2),
                },
                "bot_same_blob_distinct_moves": {"max": max(bots), "trials": len(bots)},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
