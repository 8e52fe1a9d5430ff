"""The web page (server/web/) in a real headless Chromium, against a running service (issue
#11): tests/browser/page.mjs drives Debian's ``chromium`` with Playwright-core. The page loads
with no console error and no failed request, the board's SVG shows the 15 cities and the 4
balconies, the Hint button shows candidates, seat 0 plays a main action by clicking the coast
balcony on the board and then an action it lists, Undo takes it back to the opening, and the
rest of a 2-player game against the casual bot (``?bot_delay_ms=0&seed=7``, the first listed
action each time) reaches the final scoring. The Council, chosen in the New game form, plays
a whole 3-seat game the same way (tests/browser/the_council.mjs): its HTML board in seat 0's
view, a hint, Undo, the bots' secret moves kept out of the log, the final scores the state's.

Needs ``chromium`` (``make browser`` installs Debian's package when it is missing; or set
``COUNCIL_CHROMIUM`` to another Chromium), Node.js >= 20 and npm: a machine without them fails
here, with a message saying so. ``npm ci`` installs Playwright-core (pinned in
tests/browser/package-lock.json; it downloads no browser) once per lock file, with a stamp
in the git-ignored tests/browser/node_modules, as tests/server/test_node_example.py does.

The screenshots page-opening.png, page-hint.png, page-final.png and page-the-council.png
(tests/browser/launch.mjs opens the browser for both scripts) go to a temporary folder;
``make screenshots`` (``COUNCIL_UPDATE_SCREENSHOTS=1``) writes them into docs/ instead.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import json_format

from council.engine import _the_council as tc
from council.engine.games import all_games
from council.engine.serialize import state_from_proto
from council.server.app import start_server
from council.server.config import ServerConfig
from council.server.sealing import SealKeys
from council.v1 import game_pb2 as pb

pytestmark = pytest.mark.usefixtures("fixed_chance")  # (conftest.py: one seeded game a run)

ROOT = Path(__file__).resolve().parents[2]
BROWSER = ROOT / "tests" / "browser"
STAMP = BROWSER / "node_modules" / ".council-lock-sha256"
SHOTS = ("page-opening.png", "page-hint.png", "page-final.png")
# The page server's key: the tests open the page's sealed games with it.
KEYS = SealKeys.generate("browser-tests")


def _tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found: {hint}", pytrace=False)
    return path


@pytest.fixture(scope="module")
def node() -> str:
    """`node`, with Playwright-core installed (npm ci, skipped while the lock file is the one
    last installed)."""
    node = _tool("node", "the browser tests need Node.js >= 20 (apt-get install nodejs npm)")
    # One installer at a time: the test workers of a parallel run (make test) share
    # node_modules, and one's npm ci would empty it under another's browser.
    with open(BROWSER / "package-lock.json", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        lock = hashlib.sha256(held.read()).hexdigest()
        if not (STAMP.exists() and STAMP.read_text() == lock):
            npm = _tool("npm", "the browser tests need npm (apt-get install npm)")
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=BROWSER,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
            STAMP.write_text(lock)
    return node


@pytest.fixture(scope="module")
def chromium() -> str:
    path = os.environ.get("COUNCIL_CHROMIUM") or shutil.which("chromium")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(
            "chromium not found: the browser tests need Debian's chromium "
            "(`make browser`, or apt-get install --no-install-recommends chromium; "
            "or set COUNCIL_CHROMIUM to a Chromium executable)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="module")
def page_address():
    server = start_server(
        ServerConfig(
            address="127.0.0.1:0", http_address="127.0.0.1:0", search_slots=1, seal_keys=KEYS
        )
    )
    yield f"http://{server.http_address}"
    server.stop(grace=None)


def _play(node: str, chromium: str, script: str, address: str, shots: Path, *more: str) -> dict:
    """Runs tests/browser/`script` against the page at `address`; what it saw."""
    out = subprocess.run(
        [node, str(BROWSER / script), address, str(shots), *more],
        cwd=BROWSER,
        capture_output=True,
        text=True,
        timeout=600,  # (a generous bound for a shared machine, not a speed requirement)
        check=False,
        env={**os.environ, "COUNCIL_CHROMIUM": chromium},
    )
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    return json.loads(out.stdout.splitlines()[-1])


def _shots(tmp_path: Path) -> Path:
    """docs/ with COUNCIL_UPDATE_SCREENSHOTS=1 (make screenshots), else a temporary folder."""
    return ROOT / "docs" if os.environ.get("COUNCIL_UPDATE_SCREENSHOTS") == "1" else tmp_path


def _unsealed(blob: str) -> dict:
    """The full state (Connect JSON) of a sealed blob the page held (base64)."""
    state = KEYS.open(base64.b64decode(blob), ttl_s=3600).state
    return json_format.MessageToDict(state)


def test_the_page_in_chromium_plays_a_whole_game(node, chromium, page_address, tmp_path):
    shots = _shots(tmp_path)
    seen = _play(node, chromium, "page.mjs", page_address, shots)
    # Loaded: everything from the service itself, with no error in the console.
    assert seen["title"] == "Council of Four"
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    # The board at once, for the human seat to move.
    assert seen["cities"] == 15 and seen["finalCities"] == 15
    assert sorted(seen["balconies"]) == [
        "balcony-coast",
        "balcony-hills",
        "balcony-king",
        "balcony-mountains",
    ]
    assert seen["seatChoices"] == 2 and seen["duplicateIds"] == []
    # The hint: headed columns; each candidate's share of play, a win-probability bar, its
    # chance and its points (no raw visit counts).
    assert seen["hintHeadings"] == ["Move", "Plays it", "Win %", "VP"]
    rows = seen["hintRows"]
    assert 1 <= len(rows) <= 5 and seen["hintBars"] == len(rows)
    assert all(r[0] and r[1].endswith("%") and r[3].endswith("%") for r in rows)
    assert all(re.fullmatch(r"[+−]\d+\.\d", r[4]) for r in rows)
    # A main action by clicking the board: the coast balcony's chooser, then its first move.
    assert seen["balconyActions"] and all("coast" in a for a in seen["balconyActions"])
    assert seen["firstLog"] == f"Seat 0 (you): {seen['firstPlayed']}"
    assert seen["firstPlayed"].startswith(("elect ", "acquire "))  # main actions
    # Undo: the opening again (the same board, no move in the log), then the same move.
    assert seen["undoSameBoard"] and seen["undoLogLines"] == 0 and seen["undoDisabled"]
    assert seen["replayed"] == seen["firstLog"]
    # The whole game, to the final scoring.
    assert seen["status"] == "Game over" and seen["error"] is None and seen["hintDisabled"]
    scores = seen["scores"]
    assert len(scores) == 2 and any(s.endswith("— winner") for s in scores)
    assert {s.split(":")[0] for s in scores} == {"Seat 0 (you)", "Seat 1 (casual bot)"}
    assert seen["logLines"] > seen["moves"] > 1
    for name in SHOTS:
        png = (shots / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_the_page_in_chromium_plays_a_whole_game_of_the_council(
    node, chromium, page_address, tmp_path
):
    """The Council chosen in the New game form, 3 seats (seat 0 human, two beginner bots):
    the board is the page's HTML of seat 0's view, a hint marks its best card, Undo takes a
    pick back, and clicking the first listed action reaches the final scoring, whose scores
    are the final state's."""
    shots = _shots(tmp_path)
    seen = _play(node, chromium, "the_council.mjs", page_address, shots)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    assert seen["duplicateIds"] == []
    # The form: every registered game (GetEngineInfo's), The Council's seat range.
    assert seen["gameChoices"] == [[g.name, g.display_name] for g in all_games()]
    assert seen["seatCounts"] == ["3", "4", "5"]
    assert seen["title"] == seen["heading"] == "The Council" and seen["boardRole"] == "group"
    # The opening in seat 0's view: the draft, the suits, the empire at the top, three seats.
    opening = seen["opening"]["theCouncil"]
    full = _unsealed(seen["openingBlob"])["theCouncil"]  # the game's, which the page cannot read
    assert seen["phaseLine"] == "Hand 1, draft round 1 of 5: Seat 0 (you) picks"
    assert seen["decision"].startswith("Pick a card of the pack you hold")
    assert seen["openingStatus"] == "Seat 0 (you) to move: pick a card"
    assert seen["suitHeads"] == ["Seat", *tc.SUITS, "Traitors"]  # (scores once it is over)
    assert seen["empire"] == [str(tc.MAX_RANK)] * len(tc.SUITS)
    assert seen["seatRows"] == ["Seat 0 (you)", "Seat 1 (beginner bot)", "Seat 2 (beginner bot)"]
    cards = {card.name: card for card in tc.CARDS}
    pack = [name for name, _ in seen["pack"]]
    assert pack == opening["packs"][0]["cards"] and len(pack) == 6
    for name, label in seen["pack"]:  # each card with its rank and suits
        # (A button on the table to pick it, named by its text: name, rank, suits.)
        suits = " ".join(tc.SUITS[s] for s in cards[name].suits)
        assert label == f"{name} {tc.RANK_ORDER[cards[name].order]} {suits}"
    assert seen["picks"] == [f"pick {name}" for name in pack]
    # The other seats' packs are in the game's full state, not in the page's view nor on its
    # board.
    assert full["packs"][0] == opening["packs"][0]
    hidden = full["packs"][1]["cards"] + full["packs"][2]["cards"]
    assert len(hidden) == 12 and not [name for name in hidden if name in seen["boardText"]]
    assert not [name for name in hidden if name in json.dumps(seen["opening"])]
    # The hint: candidates with bars; the best pick's card marked on the board.
    rows = seen["hintRows"]
    assert 1 <= len(rows) <= 5 and seen["hintBars"] == len(rows)
    assert all(r[0].startswith("pick ") and r[1].endswith("%") for r in rows)
    assert seen["hintHeadings"] == ["Move", "Plays it", "Win %", "points"]
    assert rows[0][0].removeprefix("pick ") in seen["hinted"]
    # A pick and Undo.
    assert seen["firstLog"] == f"Seat 0 (you): {seen['picks'][0]}"
    assert seen["undoSameBoard"] and seen["undoLogLines"] == 0
    # Every phase came to seat 0; at its first bid, the event and its five drafted cards.
    assert [d.split(" ")[0] for d in seen["decisions"]] == ["Pick", "Offer", "Choose"]
    bid = seen["bidBoard"]
    assert bid["event"] in cards and bid["drafted"] == 5 and bid["pack"] == 0
    assert bid["bids"][-1] == "end bid"
    # The bots' secret moves, as the server answered them: at seat 0's bid, each seat that
    # bid before it in this event (all bots) is logged as choosing cards, not what it chose;
    # seat 0 picks first in each round, so it never sees a pick not yet revealed. Once public,
    # the view tells them: every pick, and the reveals of every event but a hand's last (its
    # cards leave with the hand): at most one line per bot and finished hand keeps its text.
    bids = [s for s in seen["secrecy"] if s["phase"] == "bid"]
    assert bids and all(s["pendingReveals"] == s["bidsDone"] for s in bids)
    assert any(s["pendingReveals"] for s in bids)
    assert all(s["pendingShowPublicText"] for s in seen["secrecy"])
    draft = [s for s in seen["secrecy"] if s["phase"] == "draft"]
    assert all(s["hiddenPicks"] == s["pendingPicks"] == 0 for s in draft)
    end = seen["finalSecrecy"]
    assert end["hiddenPicks"] == end["pendingPicks"] == end["pendingReveals"] == 0
    assert end["toldPicks"] == 2 * 5 * end["hand"]  # two bots, five rounds a hand
    assert end["toldReveals"] and end["hiddenReveals"] <= 2 * (end["hand"] - 1)
    # The end: the scores shown are the final state's, the winners marked.
    final = json_format.ParseDict(_unsealed(seen["finalBlob"]), pb.GameState())
    state = state_from_proto(final)
    assert state.is_terminal()
    scores, winners = state.scores(), state.winners()
    assert seen["status"] == "Game over" and seen["error"] is None and seen["hintDisabled"]
    assert seen["finalPhase"].endswith("the game is over, the empire has fallen")
    assert seen["boardScores"] == [str(score) for score in scores]
    expected = sorted(
        f"Seat {seat} ({'you' if seat == 0 else 'beginner bot'}): {score} point"
        + ("" if score == 1 else "s")
        + (" — winner" if seat in winners else "")
        for seat, score in enumerate(scores)
    )
    assert sorted(seen["scores"]) == expected
    assert seen["logLines"] == final.the_council.action_count > seen["moves"] > 1
    # A new game of Council of Four after it: its seat range and its SVG board.
    assert seen["backSeatCounts"] == ["2", "3", "4"] and seen["backCities"] == 15
    assert seen["backTitle"] == "Council of Four" and seen["backBoardRole"] == "group"
    assert (shots / "page-the-council.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def _replies(path: Path) -> tuple[list[tuple[str, str, object]], dict]:
    """The replies the page received (method, text, JSON: each message of a stream), and
    what it held: its game object and storage."""
    recorded = json.loads(path.read_text())
    replies = []
    for reply in recorded["replies"]:
        body = base64.b64decode(reply["body"])
        if reply["method"] == "AnalyzePosition":  # Connect streaming: enveloped messages
            messages, at = [], 0
            while at + 5 <= len(body):
                size = int.from_bytes(body[at + 1 : at + 5], "big")
                messages.append(json.loads(body[at + 5 : at + 5 + size]))
                at += 5 + size
        else:
            messages = [json.loads(body)]
        replies.append((reply["method"], body.decode("utf-8", "replace"), messages))
    return replies, recorded


def _secrets_in(found: object, where: str) -> list[str]:
    """What in a JSON value shows a seat other than seat 0's hidden cards, the deck or the
    rng: a full state's fields, another seat's view or hand, a permit deck in its order."""
    leaks: list[str] = []
    if isinstance(found, dict):
        leaks += [f"{where}.{key}" for key in ("rng", "politicsDeck") if key in found]
        if "format" in found:  # a GameState
            if found.get("viewer", 0) != 0:
                leaks.append(f"{where}: seat {found['viewer']}'s view")
            for seat, player in enumerate(found.get("players", [])):
                if seat != 0 and "hand" in player:
                    leaks.append(f"{where}.players[{seat}].hand")
            for region, deck in found.get("board", {}).get("permitDecks", {}).items():
                if deck.get("unknown", []) != sorted(deck.get("unknown", [])):
                    leaks.append(f"{where}.board.permitDecks.{region}: the deck's order")
        for key, value in found.items():
            leaks += _secrets_in(value, f"{where}.{key}")
    elif isinstance(found, list):
        for i, value in enumerate(found):
            leaks += _secrets_in(value, f"{where}[{i}]")
    return leaks


def test_the_page_holds_no_secret_of_its_sealed_game(node, chromium, page_address, tmp_path):
    """A 3-seat sealed game against two bots, a hint and some moves: no reply the page got,
    nor its memory or storage, shows a bot's hand, the politics deck, the permit decks'
    order or the rng, which the game's full state (opened here with the server's key from
    the blobs the page received) holds."""
    seen = _play(node, chromium, "sealed.mjs", page_address, tmp_path)
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == [] and seen["error"] is None
    assert seen["failedRequests"] == [] and seen["moves"] >= 4 and seen["logLines"] > seen["moves"]
    replies, held = _replies(tmp_path / "sealed-replies.json")
    assert {"NewGame", "ApplyAction", "RecommendAction", "AnalyzePosition", "GetView"} <= {
        method for method, _, _ in replies
    }
    blobs = [
        message["sealedState"]
        for _, _, messages in replies
        for message in messages
        if "sealedState" in message
    ]
    fulls = [_unsealed(blob) for blob in blobs]
    # The game's full states hold what must not reach the page (so the checks can fail).
    assert len(fulls) > seen["moves"] and all(
        "rng" in f and "hand" in f["players"][1] and "politicsDeck" in f["board"] for f in fulls
    )
    assert len(_secrets_in(fulls[0], "full")) >= 3  # rng, deck, hands, decks' order: found
    rngs = {f["rng"] for f in fulls}
    # localStorage keeps the game in progress (its sealed blob, tickets, log) and the
    # settings, each a JSON text: read as JSON too.
    memory = [("game", held["game"], [json.loads(held["game"])])] + [
        (name, json.dumps(held[name]), [held[name], *map(json.loads, held[name].values())])
        for name in ("local", "session")
    ]
    for method, text, messages in replies + memory:
        for message in messages:
            assert _secrets_in(message, method) == []
        assert not [rng for rng in rngs if rng in text], method
    assert set(held["local"]) <= {"council-ai.game", "council-ai.settings"}
    kept = json.loads(held["local"]["council-ai.game"])
    assert kept["blob"] in blobs and not held["session"]
    # The bots' moves came from their bot tickets: the move alone, nothing they searched.
    bots = [
        m["result"]
        for method, _, messages in replies
        if method == "RecommendAction"
        for m in messages
        if m["result"].get("seat", 0) != 0
    ]
    assert bots and all(set(result) <= {"action", "seat"} for result in bots)
    # The Council: no bot's pick or reveal is named before it is public.
    assert seen["councilError"] is None and seen["councilMoves"] >= 8
    council, _ = _replies(tmp_path / "sealed-the-council-replies.json")
    checked = _the_council_secrets(council)
    assert checked["pick"] >= 2 * 5 and checked["reveal"] >= 1, checked
    # The page's log tells the bots' picks once the view shows them.
    told = [line for line in seen["councilLog"] if " bot): picks " in line]
    assert len(told) >= 2 * 5 and not [line for line in told if line.endswith(" a card")]


def _full_state(blob: str) -> pb.GameState:
    return KEYS.open(base64.b64decode(blob), ttl_s=3600).state


def _last_action(blob: str) -> int:
    """The move that made a blob: the last of its game's history."""
    return KEYS.open(base64.b64decode(blob), ttl_s=3600).actions[-1]


def _period(state: pb.GameState) -> tuple[int, int, int]:
    """Changes exactly when a draft round's picks or an event's reveals are revealed."""
    return state.the_council.hand, state.the_council.draft_round, state.the_council.events_done


def _public_part(message: dict) -> str:
    """A reply without the views it holds (a view may name the cards of a pack its seat held
    before a bot picked from it) and without the blob: what names actions."""
    return json.dumps(
        {k: v for k, v in message.items() if k not in ("state", "views", "sealedState")}
    )


def _the_council_secrets(replies: list[tuple[str, str, object]]) -> dict[str, int]:
    """Checks The Council's replies, in the order the page got them: the cards of each bot's
    pick and reveal (found by opening the blobs: the one action between a blob and the next,
    made by a bot's seat) are named by no reply, views aside, from the bot's turn until the
    round's picks or the event's cards are revealed; and no view shows another seat's pick
    or chosen cards. How many secret moves of each kind it checked."""
    checked = {"pick": 0, "reveal": 0}
    pending: list[tuple[tuple[int, int, int], list[str], str]] = []  # (period, cards, move)
    turn: list[tuple[str, str]] = []  # the replies since the last blob: (method, public part)
    before = None
    for method, _, messages in replies:
        for message in messages:
            assert not _views_showing_secrets(message), (method, message)
        public = " ".join(_public_part(m) for m in messages)
        turn.append((method, public))
        blobs = [m for m in messages if "sealedState" in m]
        if blobs:
            after = _full_state(blobs[0]["sealedState"])
            if before is not None and before.the_council.current != 0:  # a bot's move
                position = state_from_proto(before)
                action = _last_action(blobs[0]["sealedState"])  # (the blob's history's)
                assert position.is_legal(action)
                text = position.action_to_text(action)
                kind = text.split(" ")[0]
                if method == "RecommendAction":
                    assert bool(blobs[0].get("secret")) == (kind in checked), blobs[0]
                if kind in checked:
                    checked[kind] += 1
                    cards = text.removeprefix(f"{kind} ").split(", ")
                    cards = [] if cards == ["nothing"] else cards
                    pending.append((_period(before), cards, text))
                    for said_by, said in turn[:-1]:  # the bot's turn up to its move
                        assert not [c for c in cards if c in said], (said_by, text, said)
            before, turn = after, []
        # Every reply before the period ends names none of the cards; the reply whose move
        # ends it may (its effects tell the round's picks, which every view shows then).
        pending = [s for s in pending if before is not None and s[0] == _period(before)]
        for _, cards, text in pending:
            assert not [card for card in cards if card in public], (method, text, public)
    return checked


def _views_showing_secrets(found: object) -> list[str]:
    """Another seat's pick (`picked` of a pack it holds) or chosen cards (`toReveal`) in a
    view of The Council the page got."""
    leaks: list[str] = []
    if isinstance(found, dict):
        council = found.get("theCouncil")
        if council is not None and council.get("phase") != "over":
            viewer, seats = found.get("viewer", 0), len(council.get("seats", []))
            for k, pack in enumerate(council.get("packs", [])):
                if "picked" in pack and (k + council.get("draftRound", 0)) % seats != viewer:
                    leaks.append(f"packs[{k}].picked")
            for p, seat in enumerate(council.get("seats", [])):
                if p != viewer and seat.get("toReveal"):
                    leaks.append(f"seats[{p}].toReveal")
        for value in found.values():
            leaks += _views_showing_secrets(value)
    elif isinstance(found, list):
        for value in found:
            leaks += _views_showing_secrets(value)
    return leaks


def test_the_page_plays_every_registered_game_on_a_phone(node, chromium, page_address, tmp_path):
    # Every game GetEngineInfo lists, from the New game form, at a phone's width: Kuhn poker
    # to its end, the longer games for a few moves each, with no error on the way.
    seen = _play(node, chromium, "every_game.mjs", page_address, tmp_path, "6")
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == []
    assert seen["failedRequests"] == [] and seen["allSameOrigin"]
    assert list(seen["games"]) == [g.name for g in all_games()]
    for game in all_games():
        played = seen["games"][game.name]
        assert played["label"] == game.display_name
        assert played["seatCounts"] == [str(n) for n in game.players]
        assert played["error"] is None, played
        assert played["moves"] > 0 or played["ended"], played
        assert (tmp_path / f"every-game-{game.name}.png").read_bytes().startswith(b"\x89PNG")
    kuhn = seen["games"]["kuhn-poker"]
    assert kuhn["ended"] and kuhn["status"] == "Game over" and len(kuhn["scores"]) == 2
    # Leduc poker's scores in chips, as its view says them (seed 3: a fold in the first round).
    leduc = seen["games"]["leduc-poker"]
    assert leduc["ended"] and len(leduc["scores"]) == 2
    in_chips = r"Seat \d \(.+\): [+−]?\d+ chips?( — winner)?"
    assert all(re.fullmatch(in_chips, score) for score in leduc["scores"]), leduc["scores"]
    # Every seat a bot: the page watches seat 0 and plays the game to its end by itself (it
    # once sent seat 0's move with its player ticket, got a hint back, and stalled).
    watched = seen["watched"]
    assert watched["ended"] and watched["error"] is None and len(watched["scores"]) == 2
