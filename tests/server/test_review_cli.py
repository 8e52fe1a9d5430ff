"""``council-ai review`` (council.server.review_cli): the table, --json and --plot of a
recorded game's review, and clear refusals (exit 2) of what is no valid record."""

from __future__ import annotations

import json
import random
import sys

import pytest

from council.engine.games import game_named
from council.engine.record import RecordedPlayer, record_of, record_to_json
from council.mcts.review import LABELS
from council.server.cli import main

QUICK = ["--iterations", "40"]


@pytest.fixture(scope="module")
def arena_record(tmp_path_factory):
    """A record of ``ismcts:iterations=60`` against ``random``, as ``arena --record``
    writes it."""
    folder = tmp_path_factory.mktemp("records")
    args = ["arena", "ismcts:iterations=60", "random", "--deals", "1", "--workers", "1"]
    assert main(args + ["--no-progress", "--record", str(folder)]) == 0
    return folder / "council-of-four-0-0.json"


def random_record(game_name: str, seed: int):
    game = game_named(game_name)
    start = game.new_game(seed=seed)
    state, actions, rng = start.clone(), [], random.Random(seed)
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    players = [RecordedPlayer(f"p{s}", "random") for s in range(state.n_players)]
    return record_of(start, actions, players)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["review", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_table_lists_every_move_and_a_summary_per_seat(arena_record, capsys) -> None:
    code, out, _ = run(capsys, str(arena_record), *QUICK)
    assert code == 0
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.split()[:2] == ["move", "seat"]))
    record = json.loads(arena_record.read_text())
    rows = lines[header + 1 : lines.index("")]
    moves = [line for line in rows if not line.lstrip().startswith("better:")]
    assert [int(line.split()[0]) for line in moves] == list(range(len(record["moves"])))
    assert not any(line.rstrip().endswith("forced") for line in moves)
    # Each labelled move is followed by the better move, its points and its line.
    for at, line in enumerate(rows):
        labelled = line.rstrip().endswith(LABELS[1:])
        assert labelled == (at + 1 < len(rows) and "better: " in rows[at + 1])
    assert any("better: " in line and " VP" in line and "line: seat " in line for line in rows)
    summary = lines[lines.index(next(line for line in lines if "avg loss" in line)) + 1 :]
    assert [line.split()[:2] for line in summary] == [
        ["0", "ismcts:iterations=60"],
        ["1", "random"],
    ]


def test_json_has_every_move_with_its_figures_and_the_seats(arena_record, capsys) -> None:
    code, out, _ = run(capsys, str(arena_record), *QUICK, "--json", "--seed", "4")
    assert code == 0
    document = json.loads(out)
    record = json.loads(arena_record.read_text())
    assert document["game"] == "council-of-four" and document["hindsight"] is False
    assert len(document["moves"]) == len(record["moves"])
    assert document["points_unit"] == "VP"
    keys = {"seat", "move", "played", "best", "line", "line_seats", "label", "iterations"}
    keys |= {"win_probability_loss", "points_best", "points_played", "points_lost"}
    for move in document["moves"]:
        assert keys <= set(move)
        assert 0 <= move["win_probability_before"] <= 1 and move["label"] in LABELS
        assert move["points_lost"] >= 0 and move["win_probability_loss"] >= 0
    # Only a move with one legal action is left unjudged (forced): every choice is judged.
    from council.engine.record import record_from_json
    from council.engine.serialize import state_from_proto

    state = state_from_proto(record_from_json(arena_record.read_text()).start)
    for move in document["moves"]:
        assert move["forced"] == move["only_move"] == (len(state.legal_actions()) == 1)
        state.apply(move["played_id"])
    assert [s["seat"] for s in document["seats"]] == [0, 1]
    random_seat, search_seat = document["seats"][1], document["seats"][0]
    assert random_seat["average_loss"] > search_seat["average_loss"]
    again = run(capsys, str(arena_record), *QUICK, "--json", "--seed", "4")[1]
    assert json.loads(again) == document  # seeded
    code, out, _ = run(capsys, str(arena_record), *QUICK, "--json", "--seats", "1")
    assert {m["seat"] for m in json.loads(out)["moves"]} == {1}
    code, out, _ = run(capsys, str(arena_record), *QUICK, "--json", "--hindsight")
    assert json.loads(out)["hindsight"] is True


def test_a_preset_sets_the_budget(tmp_path, capsys) -> None:
    path = tmp_path / "kuhn.json"
    path.write_text(record_to_json(random_record("kuhn-poker", seed=3)))
    code, out, _ = run(capsys, str(path), "--preset", "beginner", "--json")
    assert code == 0
    from council.server.presets import BY_NAME

    budget = BY_NAME["beginner"].budget("kuhn-poker").iterations
    moves = json.loads(out)["moves"]
    assert moves and all(m["iterations"] >= budget for m in moves if not m["only_move"])
    code, _, err = run(capsys, str(path), "--preset", "grandmaster")
    assert code == 2 and "--preset" in err and "casual" in err


def test_plot_draws_a_png(arena_record, tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")  # the test extra has it
    target = tmp_path / "review.png"
    code, _, err = run(capsys, str(arena_record), *QUICK, "--plot", str(target))
    assert code == 0 and "plot written" in err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_names_the_extra(arena_record, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: not found
    code, out, err = run(capsys, str(arena_record), "--plot", str(tmp_path / "x.png"))
    assert code == 2 and out == ""
    assert "matplotlib" in err and "council-ai[plot]" in err


def refusal(capsys, tmp_path, text: str, *flags: str) -> str:
    path = tmp_path / "record.json"
    path.write_text(text)
    code, out, err = run(capsys, str(path), *QUICK, *flags)
    assert code == 2 and out == "", err
    assert err.startswith("council-ai review: ")
    return err


def test_records_that_do_not_replay_are_refused_with_their_paths(capsys, tmp_path) -> None:
    record = random_record("kuhn-poker", seed=2)
    truncated = type(record)()
    truncated.CopyFrom(record)
    del truncated.moves[-1]
    assert "moves: the game is not over" in refusal(capsys, tmp_path, record_to_json(truncated))
    mismatch = type(record)()
    mismatch.CopyFrom(record)
    mismatch.config.players = 3
    assert "config: differs from start.config" in refusal(
        capsys, tmp_path, record_to_json(mismatch)
    )
    twice = type(record)()
    twice.CopyFrom(record)
    twice.players[1].seat = 0
    assert "players: a seat is named twice" in refusal(capsys, tmp_path, record_to_json(twice))
    illegal = type(record)()
    illegal.CopyFrom(record)
    illegal.moves[0].action_id = 99
    assert "moves[0].action_id" in refusal(capsys, tmp_path, record_to_json(illegal))
    assert "(root): not JSON" in refusal(capsys, tmp_path, "{nope")
    good = record_to_json(record)
    assert "--seats: [2]" in refusal(capsys, tmp_path, good, "--seats", "0,2")


def test_a_missing_file_and_bad_flags_are_refused(capsys, tmp_path) -> None:
    code, _, err = run(capsys, str(tmp_path / "absent.json"))
    assert code == 2 and "cannot read" in err
    path = tmp_path / "kuhn.json"
    path.write_text(record_to_json(random_record("kuhn-poker", seed=1)))
    code, _, err = run(capsys, str(path), "--iterations", "0")
    assert code == 2 and "--iterations" in err
    with pytest.raises(SystemExit) as exit_:
        main(["review", str(path), "--seats", "0,x"])
    assert exit_.value.code == 2
    assert "seats" in capsys.readouterr().err
