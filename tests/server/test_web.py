"""The web page on the HTTP port (server/web/, served by council.server.connect) and the
RenderPosition RPC it draws the board with.

Until the browser tests (headless Chromium, a later increment),
`test_the_pages_calls_play_a_whole_game` stands in for the page: it makes the page's
sequence of calls (app.js) over HTTP with Connect JSON, as the page's `fetch` does, from
NewGame to the final scoring."""

from __future__ import annotations

import json
import posixpath
import random
import re
import shutil
import struct
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from server_helpers import finished, played, to_proto, violations
from test_http import bad_request

from council.engine import _the_council as tc
from council.engine import council_of_four_board as board
from council.engine.council_of_four_svg import CARD_FILL
from council.v1 import service_pb2 as spb

HERE = Path(__file__).resolve().parent

SERVICE = "council.v1.CouncilService"


def get(address: str, path: str, method: str = "GET"):
    """(status, content type, body) of a GET (or HEAD) of `path`."""
    request = urllib.request.Request(f"http://{address}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


def rpc(address: str, method: str, request: dict) -> dict:
    """One Connect JSON call as the page makes it; the answer's JSON, or HTTPError."""
    call = urllib.request.Request(
        f"http://{address}/{SERVICE}/{method}",
        data=json.dumps(request).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(call, timeout=30) as answer:
        assert answer.headers["Content-Type"] == "application/json"
        return json.load(answer)


def cities(svg: str) -> list[str]:
    return re.findall(r'<g id="city-(\w+)" class="city"', svg)


# -- the static files ------------------------------------------------------------------------


WEB = HERE.parents[1] / "server" / "web"
# An ES module's static imports and its dynamic ones: `from "./x.js"`, `import "./x.js"`.
IMPORTS = re.compile(r'^\s*(?:import|export)\b[^;]*?["\'](\.{1,2}/[^"\']+)["\']', re.M)


def test_the_page_and_its_files(http_server):
    status, kind, page = get(http_server.http_address, "/")
    assert (status, kind) == (200, "text/html; charset=utf-8")
    text = page.decode()
    assert "<title>council-ai</title>" in text
    # Everything the page loads is the project's own, under /web/ (no CDN): its stylesheets and
    # one ES module (app.js), which imports the others.
    # (The skip links' "#play" and "#board-panel" are places in the page: nothing loaded.)
    loaded = [url for url in re.findall(r'(?:src|href)="([^"]+)"', text) if not url.startswith("#")]
    # (data:, is the empty icon: no request for /favicon.ico, a 404 in the console.)
    assert sorted(loaded) == ["/web/app.js", "/web/review.css", "/web/style.css", "data:,"]
    assert '<script type="module" src="/web/app.js"></script>' in text
    assert get(http_server.http_address, "/web/index.html")[2] == page
    status, kind, script = get(http_server.http_address, "/web/page.js")
    assert (status, kind) == (200, "text/javascript; charset=utf-8")
    assert b"/council.v1.CouncilService/" in script
    assert b"://" not in page  # no CDN
    for sheet in ("/web/style.css", "/web/review.css", "/web/games/the_council.css"):
        status, kind, _ = get(http_server.http_address, sheet)
        assert (status, kind) == (200, "text/css; charset=utf-8")
    assert get(http_server.http_address, "/", method="HEAD")[:2] == (
        200,
        "text/html; charset=utf-8",
    )
    for missing in ("/web/nothing.js", "/web/../connect.py", "/web/", "/web/games/nothing.js"):
        assert get(http_server.http_address, missing)[0] == 404


def test_the_pages_modules_are_served_as_modules(http_server):
    """Every ES module the page imports, from app.js on, is served from /web/ as JavaScript
    (a module script needs a JavaScript MIME type: Chromium refuses any other), with no
    address outside the page (no CDN), and the page's files are all reached."""
    svg_namespace = b"http://www.w3.org/2000/svg"  # a name, not an address
    seen, waiting = set(), ["/web/app.js"]
    while waiting:
        path = waiting.pop()
        if path in seen:
            continue
        seen.add(path)
        status, kind, script = get(http_server.http_address, path)
        assert (status, kind) == (200, "text/javascript; charset=utf-8"), path
        assert b"://" not in script.replace(svg_namespace, b""), path
        here = path.rsplit("/", 1)[0]
        for relative in IMPORTS.findall(script.decode()):
            waiting.append(posixpath.normpath(f"{here}/{relative}"))
    files = {f"/web/{p.relative_to(WEB).as_posix()}" for p in WEB.rglob("*.js")}
    assert seen == files
    # Each game's stylesheet that games/index.js links is served.
    registry = (WEB / "games" / "index.js").read_text()
    sheets = re.findall(r'"(\w+\.css)"', registry)
    assert sheets and {f"/web/games/{s}" for s in sheets} == {
        f"/web/{p.relative_to(WEB).as_posix()}" for p in (WEB / "games").glob("*.css")
    }
    for sheet in sheets:
        assert get(http_server.http_address, f"/web/games/{sheet}")[:2] == (
            200,
            "text/css; charset=utf-8",
        )


def test_the_pages_card_facts_are_the_engines(http_server):
    """The page reads The Council's cards from GetEngineInfo (Connect JSON, as app.js's
    loadGames does), the engine's own table; no copy of it is served."""
    games = rpc(http_server.http_address, "GetEngineInfo", {})["games"]
    council_of_four, the_council = games[:2]  # the games registered after them follow
    assert council_of_four["name"] == "council-of-four"
    assert not {"suits", "cardRanks", "cards", "draftRounds", "eventsPerHand"} & set(
        council_of_four
    )
    assert the_council["name"] == "the-council"
    assert the_council["suits"] == list(tc.SUITS)
    assert (the_council["draftRounds"], the_council["eventsPerHand"]) == (
        tc.DRAFT_ROUNDS,
        tc.EVENTS_PER_HAND,
    )
    cards = {card["name"]: card for card in the_council["cards"]}
    assert list(cards) == list(tc.CARD_NAMES) and len(cards) == 44
    assert cards["The Market"] == {
        "name": "The Market",
        "kind": "number",
        "rank": "6",
        "value": 6,
        "suits": ["Leaves", "Knots"],
    }
    assert "value" not in cards["The Huntress"]  # a Crown asks nothing of a bid (0, absent)
    assert get(http_server.http_address, "/web/the-council-facts.js")[0] == 404


def test_the_pages_council_of_four_names_are_the_engines(http_server):
    """The page reads Council of Four's names of regions, councils, cities and colours, and
    the cards' fills, from GetEngineInfo (as loadGames does); none of its files holds a copy
    (issue #38: its city list was copied into the page)."""
    (facts,) = [
        g["councilOfFour"]
        for g in rpc(http_server.http_address, "GetEngineInfo", {})["games"]
        if g["name"] == "council-of-four"
    ]
    assert facts["cities"] == list(board.CITY_NAMES) and facts["regions"] == list(board.REGIONS)
    assert facts["balconies"] == [*board.REGIONS, "king"]
    assert facts["colours"] == list(board.COUNCILLOR_COLOURS)
    assert facts["cardFills"] == {c: CARD_FILL[c] for c in board.COUNCILLOR_COLOURS}
    for path in WEB.rglob("*.*"):
        text = path.read_text()
        assert sum(city in text for city in board.CITY_NAMES) <= 1, path  # (an example at most)
        assert not [f for f in CARD_FILL.values() if f.lower() in text.lower()], path


def test_the_rpcs_still_answer_beside_the_page(http_server):
    # A GET outside / and /web/ is not the page's: it reaches the Connect application.
    assert get(http_server.http_address, f"/{SERVICE}/GetEngineInfo")[2] != b"not found\n"
    assert rpc(http_server.http_address, "GetEngineInfo", {})["stateFormat"] == "council-of-four/1"


# -- RenderPosition --------------------------------------------------------------------------


def test_render_position_over_grpc(grpc_stub):
    state = played(2, 3, 10)
    full = grpc_stub.RenderPosition(spb.RenderPositionRequest(state=to_proto(state))).svg
    assert len(cities(full)) == 15
    seat = grpc_stub.RenderPosition(spb.RenderPositionRequest(state=to_proto(state), seat=1)).svg
    view = grpc_stub.RenderPosition(spb.RenderPositionRequest(state=to_proto(state.view(1)))).svg
    assert seat == view and len(cities(view)) == 15
    assert 'data-viewer="1"' in view and seat != full
    over = grpc_stub.RenderPosition(spb.RenderPositionRequest(state=to_proto(finished(2, 5)))).svg
    assert len(cities(over)) == 15


def test_render_position_refuses_a_bad_position_over_grpc(grpc_stub):
    broken = to_proto(played(2, 3, 4))
    broken.players[1].coins = 99
    with pytest.raises(grpc.RpcError) as caught:
        grpc_stub.RenderPosition(spb.RenderPositionRequest(state=broken))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(caught.value)] == ["state.players[1].coins"]
    for seat, problem in ((2, "must be in 0..1, got 2"), (-1, "must be in 0..1, got -1")):
        with pytest.raises(grpc.RpcError) as caught:
            grpc_stub.RenderPosition(
                spb.RenderPositionRequest(state=to_proto(played(2, 3, 4)), seat=seat)
            )
        assert violations(caught.value) == [("seat", problem)]
    with pytest.raises(grpc.RpcError) as caught:
        grpc_stub.RenderPosition(
            spb.RenderPositionRequest(state=to_proto(played(2, 3, 4).view(0)), seat=1)
        )
    assert violations(caught.value) == [
        ("seat", "the state is seat 0's view; seat 1's is not in it")
    ]
    with pytest.raises(grpc.RpcError) as caught:
        grpc_stub.RenderPosition(spb.RenderPositionRequest())
    assert violations(caught.value) == [("state", "required field is missing")]


def test_render_position_over_connect_json(http_server):
    state = json.loads(json_format.MessageToJson(to_proto(played(2, 3, 10))))
    svg = rpc(http_server.http_address, "RenderPosition", {"state": state, "seat": 0})["svg"]
    assert svg.startswith("<svg") and len(cities(svg)) == 15 and 'data-viewer="0"' in svg
    state["players"][1]["coins"] = 99
    with pytest.raises(urllib.error.HTTPError) as caught:
        rpc(http_server.http_address, "RenderPosition", {"state": state, "seat": 0})
    assert caught.value.code == 400
    error = json.loads(caught.value.read())
    caught.value.close()
    assert error["code"] == "invalid_argument"
    assert [f for f, _ in bad_request(error)] == ["state.players[1].coins"]


# -- the page's calls ------------------------------------------------------------------------


def test_the_pages_calls_play_a_whole_game(http_server):
    """app.js's sequence, over HTTP/JSON: seat 0 is "human" (it asks a hint, as the Hint
    button does, and clicks its top candidate, one of the listed actions), seat 1 a casual
    bot that sees only its view (GetView, then RecommendAction); every move is drawn."""
    address = http_server.http_address
    chooser = random.Random(11)
    state = rpc(address, "NewGame", {"config": {"players": 2}, "seed": "11"})["state"]
    svg = rpc(address, "RenderPosition", {"state": state, "seat": 0})["svg"]
    assert len(cities(svg)) == 15
    over, moves = False, 0
    while not over:
        assert moves < 3000, "the game did not end"
        seat = state["turn"].get("current", 0)
        if seat == 0:
            listed = rpc(
                address,
                "ListLegalActions",
                {"state": state, "seat": 0, "includeDescriptions": True},
            )
            ids = [a.get("id", 0) for a in listed["actions"]]
            assert all(a["text"] and a["description"] for a in listed["actions"])
            if moves < 20 or chooser.random() < 0.1:  # the Hint button, now and then
                hint = rpc(
                    address,
                    "RecommendAction",
                    {
                        "state": state,
                        "seat": 0,
                        "limits": {"preset": "STRENGTH_PRESET_BEGINNER"},
                        "maxCandidates": 5,
                    },
                )["result"]
                candidates = hint["candidates"]
                assert 1 <= len(candidates) <= 5
                assert all(0 <= c.get("winProbability", 0) <= 1 for c in candidates)
                assert int(candidates[0]["visits"]) >= 1
                action = candidates[0]["action"].get("id", 0)
            else:
                action = chooser.choice(ids)
            assert action in ids
        else:
            view = rpc(address, "GetView", {"state": state, "seat": seat})["state"]
            assert view["viewer"] == seat and "rng" not in view
            result = rpc(
                address,
                "RecommendAction",
                {"state": view, "limits": {"preset": "STRENGTH_PRESET_CASUAL"}, "seed": "3"},
            )["result"]
            action = result["action"].get("id", 0)
        answer = rpc(address, "ApplyAction", {"state": state, "actionId": action})
        assert answer["applied"].get("id", 0) == action and answer["applied"]["text"]
        state, over, moves = answer["state"], answer.get("gameOver", False), moves + 1
        request = {"state": state} if over else {"state": state, "seat": 0}  # app.js's draw
        assert len(cities(rpc(address, "RenderPosition", request)["svg"])) == 15
    assert len(answer["scores"]) == 2 and answer["winners"]
    assert set(answer["winners"]) <= {0, 1}


def test_the_pages_streamed_hint_over_connect_json(http_server):
    """The Hint button's AnalyzePosition as app.js's `stream` sends and reads it: Connect's
    streaming framing over HTTP with JSON (1 flag byte, 4-byte big-endian length, JSON), the
    full state with the seat, reports then one final, then the end message (flag 2)."""
    address = http_server.http_address
    state = rpc(address, "NewGame", {"config": {"players": 2}, "seed": "11"})["state"]
    seat = state["turn"].get("current", 0)
    request = {
        "state": state,
        "seat": seat,
        "limits": {"iterations": "100000", "maxTime": "0.5s"},
        "maxCandidates": 5,
        "reportInterval": "0.1s",
    }
    body = json.dumps(request).encode()
    call = urllib.request.Request(
        f"http://{address}/{SERVICE}/AnalyzePosition",
        data=struct.pack(">BI", 0, len(body)) + body,
        headers={"Content-Type": "application/connect+json", "Connect-Protocol-Version": "1"},
    )
    with urllib.request.urlopen(call, timeout=30) as answer:
        assert answer.headers["Content-Type"] == "application/connect+json"
        frames = []
        while head := answer.read(5):
            flags, size = struct.unpack(">BI", head)
            frames.append((flags, json.loads(answer.read(size))))
    *reports, (end_flags, end) = frames
    assert end_flags == 2 and "error" not in end
    assert all(flags == 0 for flags, _ in reports) and len(reports) >= 2
    assert [r.get("final", False) for _, r in reports] == [False] * (len(reports) - 1) + [True]
    result = reports[-1][1]["result"]
    assert result.get("seat", 0) == seat and 1 <= len(result["candidates"]) <= 5
    assert result["principalVariation"][0] == result["action"] == result["candidates"][0]["action"]
    # The structured fields app.js highlights the board with (city, balcony, region, slot).
    legal = rpc(address, "ListLegalActions", {"state": state, "seat": seat})
    assert result["action"] in legal["actions"]


def test_the_pages_script_plays_a_whole_game(http_server):
    """app.js itself, run by Node with a stand-in DOM (web_page.mjs): the board is drawn at
    once, the Hint button streams five candidates (AnalyzePosition) and highlights the best
    on the board, a payment decision has its heading and groups, Undo goes back over the
    bot's moves to the same board, and clicking listed actions for seat 0 (the casual bot
    playing seat 1) reaches the final scores with no error shown. (Moves played on the
    board, board.js's, are tested in Chromium: tests/server/test_browser_board.py.)"""
    node = shutil.which("node")
    # Node.js is part of this project's toolchain (examples/node too): missing is a failure.
    assert node, "Node.js (node >= 20) is needed: install it (Debian: apt-get install nodejs)"
    out = subprocess.run(
        [
            node,
            "--experimental-vm-modules",  # (vm.SourceTextModule: the page's ES modules)
            str(HERE / "web_page.mjs"),
            f"http://{http_server.http_address}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["cities"] == 15 and seen["finalCities"] == 15 and seen["seatChoices"] == 2
    # The candidates under their headings, each with the probability the bot plays it.
    assert seen["hintHeadings"] == ["Move", "Plays it", "Win %", "VP"]
    assert seen["hintRows"] == 5 and re.fullmatch(r"\d+%", seen["hintFirst"][1])
    # The hint streamed (AnalyzePosition; RecommendAction only for the bot's moves): each
    # report redrew the candidates, the last one final; the principal line starts with the
    # best candidate, whose pieces are highlighted on the board.
    *progress, (rows, last) = seen["hintReports"]
    assert last.startswith("Final, ") and rows == 5 and progress  # a second: several reports
    assert all(state.startswith("Searching… ") and n >= 1 for n, state in progress)
    assert seen["hintSource"] == "AnalyzePosition"
    # Once, with a fetch that cannot stream, the hint fell back to one RecommendAction.
    assert seen["fallbackHint"][0] == "RecommendAction" and 1 <= seen["fallbackHint"][1] <= 5
    # The bot's moves are its RecommendAction calls, which play them (the server does), the
    # human's ApplyAction.
    bot_moves = seen["calls"]["RecommendAction"] - 1
    assert seen["calls"]["ApplyAction"] == seen["moves"] and bot_moves > 0
    assert seen["calls"]["AnalyzePosition"] == 2  # (the second one failed in the stand-in)
    assert seen["hintLine"][0].startswith(f"Line: {seen['hintBest']}")
    no_piece = seen["hintBest"] in ("engage", "extra-main", "end")
    assert no_piece or seen["hintHighlighted"]
    assert all(re.fullmatch(r"(city|balcony|tile)-\w+(-[01])?", p) for p in seen["hintHighlighted"])
    # A payment decision (after "acquire", seed 11's opening has one) says what it chooses
    # and groups the payments by cards and coins, fewest cards and cheapest first.
    assert seen["payFrom"].startswith("acquire ")
    assert seen["payHeading"].startswith("Pay the council for the permit tile")
    assert all(option.startswith("pay ") for option in seen["payOptions"])
    groups = seen["payGroups"]
    assert groups and len(set(groups)) == len(groups) and groups[0].startswith("1 card")
    assert seen["afterPayHeading"] is None  # back to the turn: no heading
    # Undo, after acquire, pay, end and the bot's moves: back to the same board and log.
    assert seen["botMoved"] and seen["undos"] >= 3 and seen["undoneLines"] > seen["undos"]
    assert seen["undoSameBoard"] and seen["undoSameLog"] and seen["undoAllActions"]
    # Each undo is a takeback the server counted (TakeBack), shown on the page.
    assert seen["takebacks"] == f"Takebacks: {seen['undos']}"
    assert seen["status"] == "Game over" and seen["error"] is None
    assert len(seen["scores"]) == 2 and any(s.endswith("winner") for s in seen["scores"])
    undone = seen.get("undoneLines", 0)  # the moves taken back leave the log
    assert seen["logLines"] == seen["moves"] + bot_moves - undone > seen["moves"] - undone > 0
    # The game is sealed (docs/service.md, "Sealed games"): the page holds no full state, the
    # bot moves with its bot ticket (one RecommendAction each), the board is seat 0's view.
    assert seen["sealed"] and seen["viewers"] == [0]
