"""Service-level golden files: recorded calls of every RPC (``golden/*.json``), replayed.

Each file holds one request and the response (or error) the service answered, in protobuf
JSON with the proto field names; ``make_golden_rpcs.py`` plays them as one short game and
writes them (its docstring has the format and when to regenerate). The replay sends every
recorded request to a fresh server and compares the answer, normalised by the same
``normalise`` the writer used, field by field with the file: any wire-visible change of an
answer fails here. A test checks that every RPC of ``council.v1.CouncilService`` has a file,
the corruption tests that the replay does notice a changed field, and the README test that
the README's API example is the recorded exchange.
"""

from __future__ import annotations

import copy
import json
import math
import re
from importlib import metadata
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from make_golden_rpcs import (
    COUNCIL_SERVICE,
    ELAPSED,
    GOLDEN_DIR,
    SERVER_CONFIG,
    call,
    method_of,
    normalise,
    playthrough,
    request_message,
    to_dict,
)

from council.server.app import start_server
from council.v1.service_pb2 import GetEngineInfoRequest
from council.v1.service_pb2_grpc import CouncilServiceStub

README = Path(__file__).resolve().parents[2] / "README.md"
MAX_TOTAL_BYTES = 300_000
FILES = sorted(GOLDEN_DIR.glob("*.json"))
NAME = re.compile(r"(?P<number>\d\d)-(?P<method>[A-Za-z]+)-(?P<what>[a-z0-9-]+)\.json")
FLOAT_REL_TOL = 1e-9  # the searches' means: exact on one build, a last-bit slack elsewhere


class GoldenMismatch(AssertionError):
    """The service no longer answers a recorded request as recorded (or the file is bad)."""


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def golden(prefix: str) -> Path:
    """The one golden file whose name starts with `prefix` ("04-RecommendAction")."""
    (path,) = [p for p in FILES if p.name.startswith(prefix)]
    return path


def differences(got, want, path: str = "") -> list[str]:
    """Where two JSON values differ, as "path: the server gives X, the file says Y" lines.
    Floats are compared to a relative 1e-9; everything else exactly."""
    where = path or "(root)"
    if isinstance(got, dict) and isinstance(want, dict):
        out = []
        for key in list(want) + [k for k in got if k not in want]:
            sub = f"{path}.{key}" if path else key
            if key not in got:
                out.append(f"{sub}: missing from the server's answer, the file says {want[key]!r}")
            elif key not in want:
                out.append(f"{sub}: the server gives {got[key]!r}, not in the file")
            else:
                out += differences(got[key], want[key], sub)
        return out
    if isinstance(got, list) and isinstance(want, list):
        out = [
            line
            for k, (a, b) in enumerate(zip(got, want, strict=False))
            for line in differences(a, b, f"{path}[{k}]")
        ]
        if len(got) != len(want):
            out.append(f"{where}: the server gives {len(got)} entries, the file {len(want)}")
        return out
    numbers = (int, float)
    if (isinstance(got, float) or isinstance(want, float)) and all(
        isinstance(v, numbers) and not isinstance(v, bool) for v in (got, want)
    ):
        if math.isclose(got, want, rel_tol=FLOAT_REL_TOL, abs_tol=1e-12):
            return []
    elif type(got) is type(want) and got == want:
        return []
    return [f"{where}: the server gives {got!r}, the file says {want!r}"]


def replay(channel: grpc.Channel, record: dict, name: str) -> None:
    """Send a golden record's request and compare the normalised answer with the record;
    raise GoldenMismatch naming the file and every differing field."""
    try:
        rpc = record["rpc"]
        method_of(rpc)
        request = record["request"]
        canonical = to_dict(request_message(rpc, request))
    except (KeyError, ValueError, json_format.ParseError) as e:
        raise GoldenMismatch(f"{name}: not a golden record: {e}") from None
    if canonical != request:
        raise GoldenMismatch(
            f"{name}: the request is not in its canonical JSON form: "
            + "; ".join(differences(canonical, request, "request"))
        )
    if ("response" in record) == ("error" in record):
        raise GoldenMismatch(f"{name}: a record holds exactly one of 'response' and 'error'")
    want = normalise(rpc, {k: v for k, v in record.items() if k != "note"})
    got = call(channel, rpc, request)
    found = differences(got, want)
    if found:
        shown = "\n  ".join(found[:10])
        more = f"\n  ... and {len(found) - 10} more" if len(found) > 10 else ""
        raise GoldenMismatch(f"{name}: the server's answer differs from the file:\n  {shown}{more}")


@pytest.fixture(scope="module")
def golden_channel():
    running = start_server(SERVER_CONFIG)
    try:
        with grpc.insecure_channel(running.address) as channel:
            grpc.channel_ready_future(channel).result(timeout=10)
            yield channel
    finally:
        running.stop(grace=None)


# -- the recorded calls --------------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_replay_golden(golden_channel, path):
    replay(golden_channel, load(path), str(path))


def test_every_rpc_has_a_golden_file():
    # Adding an RPC to CouncilService without recording it fails here (OpenSpiel's
    # test_all_games_tested): add a call to make_golden_rpcs.playthrough and regenerate.
    recorded = {load(p)["rpc"] for p in FILES}
    missing = [
        m.name
        for m in COUNCIL_SERVICE.methods
        if f"{COUNCIL_SERVICE.full_name}/{m.name}" not in recorded
    ]
    assert not missing, f"RPCs without a golden file: {missing}"
    successful = {load(p)["rpc"] for p in FILES if "response" in load(p)}
    assert {f"{COUNCIL_SERVICE.full_name}/{m.name}" for m in COUNCIL_SERVICE.methods} <= successful


def test_golden_files_are_what_the_generator_writes(golden_channel):
    # The files are make_golden_rpcs.py's output: the same names, notes and exchanges (with
    # each request built from the responses before it).
    goldens = playthrough(golden_channel)
    assert [f"{g.name}.json" for g in goldens] == [p.name for p in FILES], (
        "run: .venv/bin/python tests/server/make_golden_rpcs.py"
    )
    for g, path in zip(goldens, FILES, strict=True):
        found = differences(json.loads(g.text()), load(path))
        assert not found, f"{path.name}: {found[:5]} (run tests/server/make_golden_rpcs.py)"


def test_golden_file_names_and_shapes():
    assert FILES, "no golden files"
    total = 0
    for number, path in enumerate(FILES, start=1):
        m = NAME.fullmatch(path.name)
        assert m, path.name
        record = load(path)
        assert int(m["number"]) == number, path.name
        assert record["rpc"].endswith(f"/{m['method']}"), path.name
        assert list(record) in (
            ["note", "rpc", "request", "response"],
            ["note", "rpc", "request", "error"],
        ), path.name
        assert record["note"].strip(), path.name
        if "error" in record:
            error = record["error"]
            assert list(error) == ["code", "details", "field_violations"], path.name
            assert all(len(v) == 2 for v in error["field_violations"]), path.name
        assert path.read_text() == json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        total += path.stat().st_size
    assert total < MAX_TOTAL_BYTES, f"the golden files take {total} bytes"


def test_the_golden_files_tell_one_game():
    # Every successful call after NewGame plays on a state (or view) an earlier call returned.
    seen: list[dict] = []
    for path in FILES:
        record = load(path)
        state = record["request"].get("state")
        if state is not None and "response" in record:
            assert state in seen, f"{path.name}: its state comes from no earlier response"
        response = record.get("response")
        if isinstance(response, dict):
            if "state" in response:
                seen.append(response["state"])
            seen += [v["state"] for v in response.get("views", [])]
    assert len(seen) >= 5


def test_golden_files_cover_the_errors():
    errors = [load(p)["error"] for p in FILES if "error" in load(p)]
    codes = [e["code"] for e in errors]
    assert codes.count("INVALID_ARGUMENT") >= 2 and "FAILED_PRECONDITION" in codes
    bad_position = [
        e for e in errors if any(f.startswith("state.") for f, _ in e["field_violations"])
    ]
    assert bad_position and len(bad_position[0]["field_violations"]) >= 2
    for e in errors:
        if e["code"] == "INVALID_ARGUMENT":
            assert e["field_violations"], e
            assert e["details"].startswith(f"{e['field_violations'][0][0]}: "), e


def test_applied_actions_take_each_form():
    forms = set()
    for path in FILES:
        record = load(path)
        if record["rpc"].endswith("/ApplyAction") and "response" in record:
            forms |= {"action_id", "action_text", "structured"} & set(record["request"])
    assert forms == {"action_id", "action_text", "structured"}


def test_version_is_the_installed_package(golden_channel):
    # normalise hides the version (every release changes it); here it is checked instead.
    info = CouncilServiceStub(golden_channel).GetEngineInfo(GetEngineInfoRequest(), timeout=30)
    assert info.version == metadata.version("council-ai")


# -- normalise -----------------------------------------------------------------------------


def test_normalise_masks_only_what_varies():
    path = golden("04-RecommendAction")
    record = {k: v for k, v in load(path).items() if k != "note"}
    rpc = record["rpc"]
    assert normalise(rpc, record) == record  # the files are normalised already
    raw = copy.deepcopy(record)
    raw["response"]["result"]["stats"]["elapsed"] = "0.038655866s"
    assert normalise(rpc, raw) == record
    assert normalise(rpc, normalise(rpc, raw)) == normalise(rpc, raw)
    assert record["response"]["result"]["stats"]["elapsed"] == ELAPSED
    raw["response"]["result"]["stats"]["iterations"] = "1999"
    assert normalise(rpc, raw) != record

    stream = {k: v for k, v in load(golden("09-AnalyzePosition")).items() if k != "note"}
    progress = copy.deepcopy(stream["response"][-1])
    del progress["final"]
    progress["result"]["stats"]["iterations"] = "400"
    with_progress = dict(stream, response=[progress, *stream["response"]])
    assert normalise(stream["rpc"], with_progress) == stream


# -- the replay notices changes ------------------------------------------------------------


def _visits(r):
    c = r["response"]["result"]["candidates"][0]
    c["visits"] = str(int(c["visits"]) + 1)


def _action_text(r):
    r["response"]["actions"][3]["text"] = "elect grey coast"


def _coins(r):
    r["response"]["state"]["players"][0]["coins"] += 1


def _dropped_view(r):
    del r["response"]["views"][1]


def _extra_field(r):
    r["response"]["game_over"] = True


def _win_probability(r):
    r["response"][-1]["result"]["candidates"][1]["win_probability"] += 1e-6


def _not_final(r):
    r["response"][-1]["final"] = False


def _error_code(r):
    r["error"]["code"] = "INVALID_ARGUMENT"


def _violation(r):
    r["error"]["field_violations"][1][1] = "must be in 0..30, got 99"


def _error_instead(r):
    del r["response"]
    r["error"] = {"code": "INVALID_ARGUMENT", "details": "x", "field_violations": []}


def _health(r):
    r["response"]["status"] = "NOT_SERVING"


def _enum(r):
    r["response"]["action_ranges"][1]["kind"] = "ACTION_KIND_QUICK_ELECT"


def _request_field(r):
    r["request"]["no_such_field"] = 1


CORRUPTIONS = {
    "visits": ("04-", _visits, r"response\.result\.candidates\[0\]\.visits: the server gives"),
    "action_text": ("03-", _action_text, r"response\.actions\[3\]\.text"),
    "state_field": ("05-", _coins, r"response\.state\.players\[0\]\.coins"),
    "dropped_view": ("02-", _dropped_view, r"response\.views: the server gives 2 entries"),
    "extra_field": ("07-", _extra_field, r"response\.game_over: missing from the server"),
    "float": ("09-", _win_probability, r"response\[0\]\.result\.candidates\[1\]\.win_probability"),
    "stream_final": ("09-", _not_final, r"response: the server gives 1 entries, the file 0"),
    "error_code": ("15-", _error_code, r"error\.code: the server gives 'FAILED_PRECONDITION'"),
    "violation": ("13-", _violation, r"error\.field_violations\[1\]\[1\]"),
    "error_instead": ("05-", _error_instead, r"error: missing from the server's answer"),
    "health": ("11-", _health, r"response\.status"),
    "enum": ("01-", _enum, r"response\.action_ranges\[1\]\.kind"),
    "request": ("06-", _request_field, r"not a golden record"),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_replay_detects_a_changed_response(golden_channel, name, tmp_path):
    prefix, corrupt, message = CORRUPTIONS[name]
    path = golden(prefix)
    original = load(path)
    record = copy.deepcopy(original)
    corrupt(record)
    assert record != original
    copy_path = tmp_path / path.name
    copy_path.write_text(json.dumps(record, indent=2))
    with pytest.raises(GoldenMismatch, match=message) as err:
        replay(golden_channel, load(copy_path), str(copy_path))
    assert str(copy_path) in str(err.value)


def test_replay_of_an_untouched_copy_passes(golden_channel, tmp_path):
    # The corruption tests fail for their change, not for being run on a copy.
    for prefix in sorted({prefix for prefix, _, _ in CORRUPTIONS.values()}):
        path = golden(prefix)
        copy_path = tmp_path / path.name
        copy_path.write_text(path.read_text())
        replay(golden_channel, load(copy_path), str(copy_path))


def test_differences_reads_floats_and_types_strictly():
    assert differences({"a": 0.1 + 0.2}, {"a": 0.3}) == []
    assert differences({"a": 1}, {"a": 1.0}) == []
    assert differences({"a": "1"}, {"a": 1}) != []
    assert differences({"a": True}, {"a": 1}) != []
    assert differences([1, 2], [1, 2, 3]) == ["(root): the server gives 2 entries, the file 3"]


# -- the README's example ------------------------------------------------------------------


def readme_example() -> tuple[str, dict, str]:
    """The README's RecommendAction example: the grpcurl request's JSON (with its
    ``$(cat start.json)``), the response block parsed, and the whole README text."""
    text = README.read_text()
    m = re.search(
        r"```sh\n(grpcurl [^\n]*CouncilService/RecommendAction <<END)\n(?P<body>.*?)\nEND\n```"
        r"(?P<between>.*?)```json\n(?P<response>.*?)```",
        text,
        re.S,
    )
    assert m, "README.md: no grpcurl RecommendAction example followed by its JSON response"
    assert "```" not in m["between"], "README.md: the response block must follow the request"
    return m["body"], json.loads(m["response"]), text


def test_readme_example_is_the_golden_exchange():
    body, readme_response, text = readme_example()
    new_game = load(golden("02-NewGame"))
    recorded = load(golden("04-RecommendAction"))
    rpc = recorded["rpc"]

    # start.json is seat 0's view of the quick start's new game, which is the NewGame file.
    quick = re.search(r"council-ai new-game --players (\d+) --seed (\d+) --view (\d+) ", text)
    assert quick, "README.md: the quick start's new-game command"
    players, seed, seat = (int(x) for x in quick.groups())
    assert new_game["request"]["config"] == {"players": players}
    assert new_game["request"]["seed"] == str(seed)
    start = next(v["state"] for v in new_game["response"]["views"] if v.get("seat", 0) == seat)

    request = json.loads(body.replace("$(cat start.json)", json.dumps(start)))
    assert request_message(rpc, request) == request_message(rpc, recorded["request"])
    hint = re.search(
        r"council-ai hint start\.json --iterations (\d+) --seed (\d+) --candidates (\d+) --json",
        text,
    )
    assert hint, "README.md: the hint command that sends the same request"
    assert [int(x) for x in hint.groups()] == [
        request["limits"]["iterations"],
        request["seed"],
        request["max_candidates"],
    ]

    shown = normalise(
        rpc, {"rpc": rpc, "request": recorded["request"], "response": readme_response}
    )
    want = normalise(rpc, {k: v for k, v in recorded.items() if k != "note"})
    found = differences(shown["response"], want["response"], "response")
    assert not found, (
        "README.md's example response is not golden/04's (copy it from the file): " + str(found[:5])
    )
    # The README shows a real elapsed time where the file has the placeholder.
    assert readme_response["result"]["stats"]["elapsed"].endswith("s")
