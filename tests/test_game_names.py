"""No shared file names a game (issue #39): a game is its own files (named after it:
``engine/kuhn_poker.py``, ``server/web/games/kuhn_poker.js``, ...) plus one line at each
registration point listed here. The names are every registered game's, in the spellings
code and text use ("kuhn-poker", kuhn_poker, kuhnPoker, KuhnPoker, KUHN_POKER, "Kuhn poker"),
so a game registered later is checked too.

Two tests: the page's shell (server/web/ but games/) names no game at all; the Python, Cython
and proto layers name one only at their registration points, and otherwise no more often
than ``STILL_NAMED`` says, file by file. ``STILL_NAMED`` is what issue #39 has left to move
(docstring examples, prose, the deprecated top-level fields of ``GameState``, the deprecated
aliases of Council of Four's renamed modules): it may only shrink, and must be brought down
when a file's count falls, so the list stays the truth.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from council.engine.games import all_games

ROOT = Path(__file__).parents[1]
WEB = ROOT / "server" / "web"

# The registration points: each shared file's lines that name a game by design.
REGISTRATION_POINTS: dict[str, re.Pattern[str]] = {
    # The one list of games: each game's module imported after "# isort: split".
    "engine/games.py": re.compile(r"^from council\.engine import \w+  # noqa"),
    # Each game's extension modules.
    "setup.py": re.compile(r'^\s*\("(engine|mcts)", "_\w+"\),'),
    # Its Game value, its .proto's import and its members of the shared messages' oneofs.
    "proto/council/v1/game.proto": re.compile(
        r'^(import "council/v1/\w+\.proto";|\s+GAME_\w+ = \d+;|\s+\w+ \w+ = \d+( \[.*\])?;)'
    ),
    "proto/council/v1/service.proto": re.compile(
        r'^(import "council/v1/\w+\.proto";|\s+\w+ \w+ = \d+( \[.*\])?;)'
    ),
}
# The search's compiled dispatch: each game's branch of each function (CONTRIBUTING.md).
REGISTRATION_POINTS["mcts/_search.pyx"] = re.compile(
    r"^\s*((el)?if (self\.)?game == GAME_\w+:|ANY_MAX_PLAYERS(, GAME_\w+)+,$)"
)
DISPATCH_FILES = {"mcts/_games.pxd"}

# What issue #39 has left to move out of shared files: the lines naming a game, by file.
STILL_NAMED: dict[str, int] = {
    # Shared files: readers of both forms, docstring examples, prose; the benchmark loops and
    # the learned models' features and actions codec, which are Council of Four's (the
    # renamed modules' generic names, _core and _evaluation, had hidden it from this count).
    "engine/serialize.py": 12,
    "engine/_bench.pyx": 11,
    "engine/games.py": 11,
    "mcts/review.py": 7,
    "server/service.py": 6,
    "engine/__init__.py": 5,
    "mcts/exploitability.py": 5,
    "engine/members.py": 4,
    "mcts/agents.py": 4,
    "mcts/search.py": 4,
    "engine/effects.py": 3,
    "learning/train.py": 2,
    "mcts/features.py": 2,
    "server/convert.py": 2,
    "engine/record.py": 1,
    "server/sealed_games.py": 1,
    # Deprecated aliases of Council of Four's renamed modules, which name their new
    # module (0.4.0 removes them).
    "engine/config.py": 4,
    "mcts/openspiel_game.py": 3,
    "engine/actions.py": 2,
    "engine/board.py": 2,
    "engine/render.py": 2,
    "engine/svg.py": 2,
    # The deprecated top-level fields of GameState and GameConfig (Council of Four's, read
    # for one more version) and their comments.
    "proto/council/v1/game.proto": 37,
}


def spellings(name: str, display_name: str) -> set[str]:
    """A game's names as code or text write them: "council-of-four", council_of_four,
    councilOfFour, CouncilOfFour, COUNCIL_OF_FOUR, "Council of Four"."""
    words = name.split("-")
    camel = words[0] + "".join(w.title() for w in words[1:])
    snake = "_".join(words)
    return {name, snake, camel, camel[0].upper() + camel[1:], snake.upper(), display_name}


def _names() -> re.Pattern[str]:
    names = set().union(*(spellings(g.name, g.display_name) for g in all_games()))
    return re.compile("|".join(sorted(map(re.escape, names), key=len, reverse=True)))


def _own_file(path: str) -> bool:
    """A game's own file: named after it, or its page's view (server/web/games/)."""
    modules = {g.module_name for g in all_games()}
    return path.startswith("server/web/games/") or any(m in Path(path).name for m in modules)


def _shared_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "engine", "mcts", "server", "ladder", "learning", "proto", "setup.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    generated = re.compile(r"(_pb2(_grpc)?\.py|\.pyi|\.md|\.json|\.npz|\.css|\.html|\.js)$")
    return [p for p in listed if not generated.search(p) and not _own_file(p)]


def _naming_lines(path: str, names: re.Pattern[str]) -> list[str]:
    allowed = REGISTRATION_POINTS.get(path)
    found = []
    for number, line in enumerate((ROOT / path).read_text().splitlines(), 1):
        if names.search(line) and not (allowed and allowed.search(line)):
            found.append(f"{path}:{number}: {line.strip()}")
    return found


def test_no_game_is_named_in_the_pages_shell():
    """The page's shell (server/web/ but games/) names no game, in its code, its words or its
    comments: each game's part of the page is its view module in server/web/games/,
    registered in one place, games/index.js (the one file of the page that names them all).
    A game's name in a shell file fails here, with the file and the line."""
    names = set().union(*(spellings(g.name, g.display_name) for g in all_games()))
    found = []
    for path in sorted(WEB.rglob("*")):
        if path.suffix not in (".js", ".css", ".html") or path.parent.name == "games":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            named = sorted(n for n in names if n.lower() in line.lower())
            if named:
                found.append(f"{path.relative_to(WEB)}:{number}: {', '.join(named)}")
    assert found == [], "a game named in the page's shell (put it in its view, server/web/games/)"
    # ...and the registration point does name every game, each with its view module.
    registry = (WEB / "games" / "index.js").read_text()
    for game in all_games():
        assert f'"{game.name}":' in registry
        assert (WEB / "games" / f"{game.module_name}.js").is_file()


def test_shared_files_name_a_game_only_at_their_registration_points():
    names = _names()
    counts, lines = {}, {}
    for path in _shared_files():
        if path in DISPATCH_FILES:
            continue
        found = _naming_lines(path, names)
        if found:
            counts[path], lines[path] = len(found), found
    grown = {p: n for p, n in counts.items() if n > STILL_NAMED.get(p, 0)}
    assert grown == {}, "a shared file names a game (move it into the game's own files):\n" + (
        "\n".join(line for p in grown for line in lines[p])
    )
    shrunk = {p: (n, counts.get(p, 0)) for p, n in STILL_NAMED.items() if counts.get(p, 0) < n}
    assert shrunk == {}, f"fewer names left: bring STILL_NAMED down to them: {shrunk}"


def test_the_check_finds_a_name_and_passes_a_registration_line():
    names = _names()
    assert names.search("def draw(state): # The Council's packs") is not None
    assert names.search("from council.engine import kuhn_poker  # noqa: E402, F401")
    assert REGISTRATION_POINTS["engine/games.py"].search(
        "from council.engine import kuhn_poker  # noqa: E402, F401"
    )
    assert not REGISTRATION_POINTS["engine/games.py"].search('DEFAULT = "kuhn-poker"')
    assert _own_file("engine/kuhn_poker_effects.py") and not _own_file("engine/effects.py")
