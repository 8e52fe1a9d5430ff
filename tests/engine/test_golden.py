"""Golden playthroughs: seeded games recorded as text (``golden/*.txt``) and replayed.

Each file holds a config, a seed and every action of one game as its id and its text
(the format is in ``make_golden.py``, which writes the files). The replay re-creates the
game, parses every action from its TEXT with ``Action.from_text``, checks it is the recorded
id, legal, taken by the recorded seat at the recorded decision among the recorded number of
legal actions, applies it, and after each END_TURN and at the end compares the turn, the
seat to act, the scores and a sha256 digest of the whole state; at the end the winners and
the exact ``str(state)``. Any change in how these games play fails here: after an intended
rules change, regenerate with ``.venv/bin/python tests/engine/make_golden.py`` and review
the diff. The corruption tests below make sure the replay does notice a changed game.
"""

from __future__ import annotations

import json
import re

import pytest
from make_golden import GAMES, GOLDEN_DIR, decision_text, digest, path_of, play

from council.engine import IllegalActionError
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState
from council.engine.council_of_four_actions import Action

MAX_FILE_BYTES = 150_000
END_TURN = Action.from_text("end").id

_ACTION = re.compile(
    r"(?P<count>\d+) seat=(?P<seat>\d+) decision=(?P<decision>\S+) "
    r"legal=(?P<legal>\d+) id=(?P<id>\d+) \| (?P<text>\S.*)"
)
_STATE = re.compile(
    r"= turn=(?P<turn>\d+) current=(?P<current>-?\d+) scores=(?P<scores>[\d,]+) "
    r"digest=(?P<digest>[0-9a-f]{16})"
)
_FINAL = re.compile(
    r"final scores=(?P<scores>[\d,]+) winners=(?P<winners>[\d,]+) digest=(?P<digest>[0-9a-f]{16})"
)


class GoldenMismatch(AssertionError):
    """The game no longer plays as recorded (or the file is malformed)."""


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def replay(text: str, name: str = "golden") -> CouncilOfFourState:
    """Replay a golden file's text; raise GoldenMismatch at the first difference."""
    lines = text.split("\n")
    i = 0

    def fail(msg: str) -> GoldenMismatch:
        return GoldenMismatch(f"{name} line {i + 1}: {msg}\n  line: {lines[i]!r}")

    def expect(what: str, got, want) -> None:
        if got != want:
            raise fail(f"{what}: the game gives {got!r}, the file says {want!r}")

    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    if not lines[i].startswith("config "):
        raise fail("expected 'config {...}'")
    config = CouncilOfFourConfig.from_dict(json.loads(lines[i][len("config ") :]))
    i += 1
    if not lines[i].startswith("seed "):
        raise fail("expected 'seed <n>'")
    state = CouncilOfFourState.new_game(config, seed=int(lines[i][len("seed ") :]))
    i += 1

    need_state_line = True  # at the start and after every END_TURN
    actions = 0
    while i < len(lines) and not lines[i].startswith("final "):
        line = lines[i]
        m = _STATE.fullmatch(line)
        if m:
            if not need_state_line:
                raise fail("a state line where none belongs (only at the start, after END_TURN)")
            expect("turn", state.turn, int(m["turn"]))
            expect("seat to act", state.current_player, int(m["current"]))
            expect("scores", state.scores(), _ints(m["scores"]))
            expect("state digest", digest(state), m["digest"])
            need_state_line = False
            i += 1
            continue
        if need_state_line:
            raise fail("expected a state line '= turn=... digest=...'")
        m = _ACTION.fullmatch(line)
        if not m:
            raise fail("not an action line '<count> seat=.. decision=.. legal=.. id=.. | text'")
        if state.is_terminal():
            raise fail("the game is already over")
        expect("action count", state.action_count, int(m["count"]))
        expect("seat to act", state.current_player, int(m["seat"]))
        expect("decision", decision_text(state), m["decision"])
        legal = state.legal_actions()
        expect("number of legal actions", len(legal), int(m["legal"]))
        try:
            action = Action.from_text(m["text"])
        except ValueError as e:
            raise fail(f"the action text does not parse: {e}") from None
        expect("id of the action text", action.id, int(m["id"]))
        if action.id not in legal:
            raise fail(f"{action} (id {action.id}) is not legal here")
        try:
            state.apply(action.id)
        except IllegalActionError as e:  # legal_actions and apply disagree
            raise fail(f"apply refused a listed legal action: {e}") from None
        actions += 1
        need_state_line = action.id == END_TURN
        i += 1

    if i >= len(lines):
        raise GoldenMismatch(f"{name}: no 'final ...' line")
    if need_state_line:
        raise fail("expected a state line after END_TURN")
    if actions == 0:
        raise fail("no actions recorded")
    m = _FINAL.fullmatch(lines[i])
    if not m:
        raise fail("expected 'final scores=.. winners=.. digest=..'")
    if not state.is_terminal():
        raise fail(f"the game is not over after {actions} actions")
    expect("final scores", state.scores(), _ints(m["scores"]))
    expect("winners", state.winners(), _ints(m["winners"]))
    expect("final state digest", digest(state), m["digest"])
    i += 1
    if i >= len(lines) or lines[i] != "render:":
        raise fail("expected 'render:'")
    recorded = "\n".join(lines[i + 1 :])
    rendered = str(state) + "\n"
    if rendered != recorded:
        got, want = rendered.split("\n"), recorded.split("\n")
        k = next(
            (k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
            min(len(got), len(want)),
        )
        i += 1 + k
        raise GoldenMismatch(
            f"{name} line {i + 1}: str(state) differs from the recorded rendering at its line "
            f"{k + 1}:\n  game: {got[k] if k < len(got) else '<end>'!r}\n"
            f"  file: {want[k] if k < len(want) else '<end>'!r}"
        )
    return state


def _read(game) -> str:
    return path_of(game).read_text()


# -- the recorded games ------------------------------------------------------------------


def test_golden_files_are_the_listed_games():
    on_disk = sorted(p.name for p in GOLDEN_DIR.glob("*.txt"))
    assert on_disk == sorted(f"{g.name}.txt" for g in GAMES)
    assert len(GAMES) == 4
    configs = [g.config for g in GAMES]
    assert sorted(c.players for c in configs if c.layout == CouncilOfFourConfig().layout) == [
        2,
        3,
        4,
    ]
    variant = next(c for c in configs if c.layout != CouncilOfFourConfig().layout)
    default = CouncilOfFourConfig(players=variant.players, layout=variant.layout)
    for field in (
        "max_coins",
        "assistant_supply",
        "permit_tie_all_score",
        "nobility_bonus_on_pass",
    ):
        assert getattr(variant, field) != getattr(default, field), field
    for game in GAMES:
        size = path_of(game).stat().st_size
        assert size < MAX_FILE_BYTES, f"{game.name}: {size} bytes"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_replay_golden(game):
    state = replay(_read(game), game.name)
    assert state.is_terminal()
    assert state.config == game.config


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_generator_reproduces_golden(game):
    # The same seed must choose the same actions: the files are what make_golden.py writes.
    assert play(game) == _read(game), "run: .venv/bin/python tests/engine/make_golden.py"


def test_golden_games_meet_every_decision_kind():
    seen = set()
    for game in GAMES:
        seen.update(re.findall(r" decision=([a-z_]+)", _read(game)))
    assert {"turn", "pay_permit", "pay_king", "city_token", "free_permit", "permit_bonus"} <= seen


# -- the replay notices changes ----------------------------------------------------------

GAME = GAMES[0]


def _action_lines(lines: list[str]) -> list[int]:
    return [k for k, line in enumerate(lines) if _ACTION.fullmatch(line)]


def _other_legal_action(lines: list[str], k: int, avoid: tuple[int, ...] = ()) -> int:
    """A legal action other than the recorded one (and those in avoid) at action line k."""
    config = CouncilOfFourConfig.from_dict(
        json.loads(next(ln for ln in lines if ln[:7] == "config ")[7:])
    )
    seed = int(next(ln for ln in lines if ln.startswith("seed "))[5:])
    state = CouncilOfFourState.new_game(config, seed=seed)
    for j in _action_lines(lines):
        recorded = int(_ACTION.fullmatch(lines[j])["id"])
        if j == k:
            others = [a for a in state.legal_actions() if a != recorded and a not in avoid]
            return others[len(others) // 2]
        state.apply(recorded)
    raise AssertionError("line k is not an action line")


def _replace_action(lines: list[str], k: int, action: int, text: str | None = None) -> None:
    m = _ACTION.fullmatch(lines[k])
    text = Action.from_id(action).to_text() if text is None else text
    lines[k] = lines[k][: m.start("id")] + f"{action} | {text}"


def _corrupt_played_action(lines):
    # Another legal action, id and text consistent: what a changed rule or chooser would
    # record. The replay must notice the game diverging from the recording.
    candidates = [k for k in _action_lines(lines) if int(_ACTION.fullmatch(lines[k])["legal"]) > 2]
    k = candidates[len(candidates) // 2]
    _replace_action(lines, k, _other_legal_action(lines, k))


def _corrupt_last_action(lines):
    # The last choice of the game other than ending a turn, with an alternative that does
    # not end the turn either: the divergence shows only near the end.
    def choice(k):
        m = _ACTION.fullmatch(lines[k])
        return int(m["legal"]) > 2 and int(m["id"]) != END_TURN

    k = [k for k in _action_lines(lines) if choice(k)][-1]
    _replace_action(lines, k, _other_legal_action(lines, k, avoid=(END_TURN,)))


def _corrupt_text_only(lines):
    k = [k for k in _action_lines(lines) if int(_ACTION.fullmatch(lines[k])["legal"]) > 2][10]
    m = _ACTION.fullmatch(lines[k])
    _replace_action(lines, k, int(m["id"]), Action.from_id(_other_legal_action(lines, k)).to_text())


def _corrupt_variant(lines):
    k = next(k for k, ln in enumerate(lines) if ln.startswith("config "))
    config = json.loads(lines[k][7:])
    config["nobility_bonus_on_pass"] = not config["nobility_bonus_on_pass"]
    lines[k] = "config " + json.dumps(config, sort_keys=True)


def _corrupt_seed(lines):
    k = next(k for k, ln in enumerate(lines) if ln.startswith("seed "))
    lines[k] = f"seed {int(lines[k][5:]) + 1}"


def _corrupt_digest(lines):
    k = [k for k, ln in enumerate(lines) if _STATE.fullmatch(ln)][5]
    old = lines[k][-16:]
    lines[k] = lines[k][:-16] + ("0" if old[0] != "0" else "1") + old[1:]


def _corrupt_scores(lines):
    k = next(k for k, ln in enumerate(lines) if ln.startswith("final "))
    lines[k] = re.sub(r"scores=(\d+)", lambda m: f"scores={int(m[1]) + 1}", lines[k])


def _corrupt_rendering(lines):
    k = next(k for k, ln in enumerate(lines) if ln.startswith("  king:"))
    lines[k] = lines[k].replace("  king:", "  queen:")


def _drop_state_line(lines):
    k = [k for k, ln in enumerate(lines) if _STATE.fullmatch(ln)][3]
    del lines[k]


def _truncate(lines):
    k = _action_lines(lines)[-40]
    del lines[k:]


CORRUPTIONS = {
    "played_action": (_corrupt_played_action, None),
    "last_action": (_corrupt_last_action, None),
    "text_only": (_corrupt_text_only, "id of the action text"),
    "variant": (_corrupt_variant, "digest"),
    "seed": (_corrupt_seed, None),
    "digest": (_corrupt_digest, "state digest"),
    "scores": (_corrupt_scores, "final scores"),
    "rendering": (_corrupt_rendering, "str\\(state\\) differs"),
    "dropped_state_line": (_drop_state_line, "expected a state line"),
    "truncated": (_truncate, "no 'final"),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_replay_detects_a_changed_game(name, tmp_path):
    corrupt, message = CORRUPTIONS[name]
    original = _read(GAME)
    lines = original.split("\n")
    corrupt(lines)
    changed = "\n".join(lines)
    assert changed != original
    copy = tmp_path / f"{GAME.name}.txt"
    copy.write_text(changed)
    with pytest.raises(GoldenMismatch, match=message) as err:
        replay(copy.read_text(), str(copy))
    assert str(copy) in str(err.value)


def test_replay_of_the_untouched_copy_passes(tmp_path):
    # The corruption tests above fail for their change, not for being run on a copy.
    copy = tmp_path / f"{GAME.name}.txt"
    copy.write_text(_read(GAME))
    replay(copy.read_text(), str(copy))


def test_digest_covers_the_whole_state():
    state = CouncilOfFourState.new_game(GAME.config, seed=GAME.seed)
    base = digest(state)
    assert base == digest(state.clone())
    moved = state.clone()
    moved.reseed(GAME.seed + 1)  # only the chance seed differs
    assert digest(moved) != base
    played = state.child(state.legal_actions()[0])
    assert digest(played) != base
    assert re.fullmatch(r"[0-9a-f]{16}", base)


def test_file_without_final_line_is_refused():
    with pytest.raises(GoldenMismatch):
        replay("config " + json.dumps(CouncilOfFourConfig(players=2).to_dict()) + "\nseed 1\n", "x")
