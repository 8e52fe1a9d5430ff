"""Packaging checks that need no network and no build: fast, run with the suite.

- ``MANIFEST.in`` (run through setuptools' own template engine on an empty-file copy of the
  source tree, plus the files a build generates) puts the Cython sources and the board data
  into the sdist and keeps generated C, compiled modules and gRPC stubs out of it.
- ``pyproject.toml`` maps every package onto a folder that exists and ships the board data.
- The installed package's data (``board.json``) is reachable through ``importlib.resources``.
- ``council.engine.__all__`` and the public modules' ``__all__`` name real objects.
- The layering rule: ``ladder -> server -> learning -> mcts -> engine -> council.v1.game_pb2``
  (the schema of a position). ``engine/`` imports none of ``council.mcts``,
  ``council.learning``, ``council.server``, ``council.ladder`` or the service's messages and
  stubs (``council.v1.service_pb2*``); ``mcts/`` imports none of ``council.learning``,
  ``council.server``, ``council.ladder`` or ``council.v1``; ``learning/`` (self-play and
  training) imports none of ``council.server``, ``council.ladder`` or ``council.v1``;
  ``server/`` imports neither ``council.ladder`` nor ``council.learning``, but for one door:
  its command line registers the learning commands from ``council.learning.cli`` (the
  ladder, a gRPC client on top, may import all of them). Every ``.py`` file is scanned with
  ``ast`` (relative imports resolved, ``importlib.import_module``/``__import__`` with a
  constant name included), ``.pyx`` and ``.pxd`` files with a regular expression over their
  ``import``/``cimport`` statements.
- The ladder's extra and console script: ``council-ladder``, and OpenSkill and matplotlib in
  the ``ladder`` extra rather than in the runtime dependencies; SciPy and matplotlib in the
  ``train`` extra of ``council.learning``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.resources
import json
import os
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: the copy vendored by pip
    from pip._vendor import tomli as tomllib

from setuptools.command.egg_info import FileList

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {
    ".git",
    ".venv",
    ".venv-debug",
    "build",
    "dist",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",  # examples/node's npm install
}

# Files a build or an editable install writes into the source tree: never in an sdist.
GENERATED = (
    "engine/_council_of_four.c",
    "engine/_council_of_four.cpython-311-x86_64-linux-gnu.so",
    "engine/_council_of_four.abi3.so",
    "mcts/_search.c",
    "mcts/_search.cpython-312-darwin.so",
    "proto/council/v1/game_pb2.py",
    "proto/council/v1/game_pb2.pyi",
    "proto/council/v1/game_pb2_grpc.py",
    "proto/council/v1/service_pb2.py",
    "proto/council/v1/service_pb2.pyi",
    "proto/council/v1/service_pb2_grpc.py",
    "proto/council/v1/service_connect.py",
)

# package -> top-level folders it must not import from (dotted prefixes).
LAYERS = {
    # The engine reads and writes positions as council.v1.GameState (game_pb2), the one
    # schema of a position; the service's requests and stubs are the server's.
    "engine": (
        "council.mcts",
        "council.server",
        "council.v1.service_pb2",
        "council.v1.service_pb2_grpc",
    ),
    "mcts": ("council.server", "council.v1"),
    # Self-play and training stand on the players (mcts) and the rules (engine) only.
    "learning": ("council.server", "council.v1"),
}
# Training sits above the players: nothing below it imports it.
for below in ("engine", "mcts"):
    LAYERS[below] = (*LAYERS[below], "council.learning")
# The ladder (a gRPC client on top of the service) may import every layer; none imports it.
LAYERS = {folder: (*forbidden, "council.ladder") for folder, forbidden in LAYERS.items()}
LAYERS["server"] = ("council.ladder", "council.learning")
# file -> the modules it may import although its folder's layer forbids them. `council-ai`
# keeps its selfplay / train / train-policy commands (docs/learning.md): the command line
# registers them from the module that implements them; the service itself carries no
# training.
DOORS = {"server/cli.py": ("council.learning.cli",)}
# The folders with Cython sources (the layering test checks it saw them).
CYTHON_DIRS = {"engine", "mcts"}
PACKAGE_OF_DIR = {
    "engine": "council.engine",
    "mcts": "council.mcts",
    "learning": "council.learning",
    "server": "council.server",
    "ladder": "council.ladder",
}


def _source_files() -> list[str]:
    """Every file of the source tree (relative, '/'-separated), build outputs left out."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        rel = Path(folder).relative_to(ROOT)
        out.extend((rel / f).as_posix() for f in sorted(files))
    return out


def _manifest_files(tmp_path: Path, monkeypatch, extra=()) -> set[str]:
    """The files MANIFEST.in selects from an empty-file copy of the tree plus `extra`."""
    for rel in (*_source_files(), *extra):
        dest = tmp_path / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.touch()
    monkeypatch.chdir(tmp_path)
    files = FileList()
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            files.process_template_line(line)
    return {Path(f).as_posix() for f in files.files}


# -- MANIFEST.in -------------------------------------------------------------------------


def test_manifest_includes_cython_sources_and_board_data(tmp_path, monkeypatch):
    selected = _manifest_files(tmp_path, monkeypatch, GENERATED)
    needed = {
        "pyproject.toml",
        "setup.py",
        "README.md",
        "engine/_council_of_four.pyx",
        "engine/_council_of_four.pxd",
        "engine/data/board.json",
        "mcts/_search.pyx",
    }
    needed |= {f for f in _source_files() if f.endswith((".pyx", ".pxd", ".proto"))}
    # The compiled modules' type stubs and the packages' PEP 561 markers.
    needed |= {
        f for f in _source_files() if f.endswith((".pyi", "/py.typed")) and not _is_generated(f)
    }
    assert {"engine/_council_of_four.pyi", "mcts/_search.pyi", "engine/py.typed"} <= needed
    needed |= {f for f in _source_files() if f.endswith(".json") and f.startswith("engine/")}
    assert needed - selected == set()


def test_manifest_includes_every_package_module(tmp_path, monkeypatch):
    selected = _manifest_files(tmp_path, monkeypatch, GENERATED)
    folders = set(_pyproject()["tool"]["setuptools"]["package-dir"].values())
    assert {"engine", "mcts", "learning", "server", "ladder"} <= folders
    modules = {
        f
        for f in _source_files()
        if f.endswith(".py") and f.rsplit("/", 1)[0] in folders and not _is_generated(f)
    }
    assert "engine/__init__.py" in modules
    assert modules - selected == set()


def test_manifest_includes_tests_and_docs(tmp_path, monkeypatch):
    # The sdist carries what `make test` needs: the suite with its golden files, the docs, the
    # page's lint and type checks (make lint's npm ci installs them from the lock file).
    selected = _manifest_files(tmp_path, monkeypatch, GENERATED)
    lint = ("package.json", "package-lock.json", "eslint.config.js", "tsconfig.json")
    wanted = {
        f
        for f in _source_files()
        if f.startswith(("tests/", "docs/", "examples/")) or f in ("Makefile", "README.md", *lint)
    }
    assert set(lint) <= wanted
    assert "tests/engine/test_golden.py" in wanted
    assert any(f.startswith("tests/engine/golden/") for f in wanted)
    assert wanted - selected == set()


def _is_generated(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return (
        name.endswith((".c", ".so", ".pyd"))
        or re.search(r"(_pb2(_grpc)?\.pyi?|_connect\.py)$", name) is not None
        or rel.startswith(("build/", "dist/"))
    )


def test_manifest_excludes_generated_files(tmp_path, monkeypatch):
    selected = _manifest_files(tmp_path, monkeypatch, GENERATED)
    assert sorted(f for f in selected if _is_generated(f)) == []
    assert set(GENERATED).isdisjoint(selected)


def test_manifest_check_sees_a_missing_exclusion(tmp_path, monkeypatch):
    # The checks above can fail: the same template without its global-exclude keeps the
    # generated files (engine/*.so and the stubs come in through the recursive-includes).
    files = FileList()
    monkeypatch.chdir(tmp_path)
    for rel in (
        "engine/_council_of_four.pyx",
        "engine/_council_of_four.c",
        "proto/council/v1/game_pb2.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).touch()
    files.process_template_line("recursive-include engine *")
    files.process_template_line("recursive-include proto *.py")
    assert sorted(files.files) == [
        "engine/_council_of_four.c",
        "engine/_council_of_four.pyx",
        "proto/council/v1/game_pb2.py",
    ]
    files.process_template_line("global-exclude *.c *_pb2.py")
    assert files.files == ["engine/_council_of_four.pyx"]


# -- pyproject.toml ----------------------------------------------------------------------


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_pyproject_packages_map_onto_existing_folders():
    tool = _pyproject()["tool"]["setuptools"]
    mapping = tool["package-dir"]
    assert set(mapping) <= set(tool["packages"])
    for name in (
        "council.engine",
        "council.mcts",
        "council.learning",
        "council.server",
        "council.ladder",
    ):
        assert name in mapping, name
        assert mapping[name] == name.split(".")[1]
    for package, folder in mapping.items():
        assert (ROOT / folder / "__init__.py").is_file(), f"{package} -> {folder}"
    # Subpackages live in their parent's folder; every folder with Python code is listed.
    for package in tool["packages"]:
        parent = max((p for p in mapping if package.startswith(p)), key=len)
        folder = ROOT / mapping[parent] / Path(*package[len(parent) + 1 :].split("."))
        assert folder.is_dir(), f"{package} -> {folder}"
    for parent, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((parent, *relative)) in tool["packages"], init


def test_pyproject_ships_board_data_and_cython_sources():
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    assert {"*.pxd", "*.pyx"} <= set(package_data["council.engine"])
    # Typed packages (PEP 561): the compiled modules' stubs and each package's py.typed.
    for package, folder in _pyproject()["tool"]["setuptools"]["package-dir"].items():
        assert "py.typed" in package_data[package], package
        assert (ROOT / folder / "py.typed").is_file(), folder
        if any((ROOT / folder).glob("*.pyx")):
            assert "*.pyi" in package_data[package], package
    assert "*.json" in package_data["council.engine.data"]
    assert (ROOT / "engine" / "data" / "board.json").is_file()


def names(requirements: list[str]) -> set[str]:
    """The distribution names of requirement strings, lower-cased."""
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_pyproject_ladder_extra_and_script():
    project = _pyproject()["project"]
    assert project["scripts"]["council-ladder"] == "council.ladder.cli:main"
    assert project["scripts"]["council-ai"] == "council.server.cli:main"

    extras = project["optional-dependencies"]
    ladder_only = {"openskill", "matplotlib"}
    assert names(extras["ladder"]) == ladder_only  # Ray stays out of the plain extra
    assert ladder_only.isdisjoint(names(project["dependencies"]))
    assert {"council-ai", "ray"} <= names(extras["ladder-ray"])
    assert "council-ai[ladder]" in extras["ladder-ray"]
    assert ladder_only | {"ray"} <= names(extras["test"])
    # mcts imports tqdm for its progress bars (arena, self-play): a runtime dependency.
    assert "tqdm" in names(project["dependencies"])


def test_pyproject_learning_package_and_train_extra():
    # Training is a package of its own (council.learning, learning/), its SciPy in the
    # `train` extra: the runtime (search, service) installs none of it.
    project = _pyproject()["project"]
    tool = _pyproject()["tool"]
    assert tool["setuptools"]["package-dir"]["council.learning"] == "learning"
    assert "council.learning" in tool["setuptools"]["packages"]
    assert "council.learning" in tool["mypy"]["packages"]
    train = names(project["optional-dependencies"]["train"])
    assert train == {"scipy", "matplotlib"}
    assert train.isdisjoint(names(project["dependencies"]))
    # The commands stay council-ai's (no council-learn script): see DOORS.
    assert set(project["scripts"]) == {"council-ai", "council-ladder"}


# -- installed package -------------------------------------------------------------------


def test_board_data_is_reachable_as_package_resource():
    resource = importlib.resources.files("council.engine").joinpath("data/board.json")
    assert resource.is_file()
    data = json.loads(resource.read_text(encoding="utf-8"))
    from council.engine import council_of_four_board as board

    assert len(data["cities"]) == board.N_CITIES == 15
    assert tuple(data["councillor_colours"]) == board.COUNCILLOR_COLOURS
    assert sum(len(tiles) for tiles in data["permit_tiles"].values()) == 45
    assert len(board.PERMIT_TILES) == 45
    # The same bytes as the source tree's file (an editable or up-to-date install).
    assert resource.read_bytes() == (ROOT / "engine" / "data" / "board.json").read_bytes()


def test_engine_exports():
    import council.engine as engine
    from council.engine import _council_of_four, _the_council, position
    from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState, Decision
    from council.engine.the_council import TheCouncilConfig, TheCouncilState

    # The package names no game: each game's classes are its own module's.
    assert sorted(engine.__all__) == ["IllegalActionError", "Position"]
    # The position contract every game's positions meet (council.engine.position).
    assert engine.Position is position.Position
    assert isinstance(CouncilOfFourState.new_game(), engine.Position)
    assert isinstance(TheCouncilState.new_game(), engine.Position)
    assert engine.IllegalActionError is position.IllegalActionError
    assert issubclass(engine.IllegalActionError, ValueError)
    assert (CouncilOfFourState, Decision) == (
        _council_of_four.CouncilOfFourState,
        _council_of_four.Decision,
    )
    assert type(CouncilOfFourConfig().new_game(seed=1)) is CouncilOfFourState
    assert (
        type(TheCouncilConfig().new_game(seed=1)) is TheCouncilState is _the_council.TheCouncilState
    )
    namespace: dict = {}
    exec("from council.engine import *", namespace)
    assert sorted(k for k in namespace if not k.startswith("__")) == sorted(engine.__all__)


@pytest.mark.parametrize(
    "module",
    [
        "council.engine.council_of_four_actions",
        "council.engine.render_council_of_four",
        "council.engine.serialize",
    ],
)
def test_public_module_exports_resolve(module):
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None)
    if names is None:  # no __all__: its public names must at least import
        names = [n for n in vars(mod) if not n.startswith("_")]
    assert names
    missing = [n for n in names if not hasattr(mod, n)]
    assert missing == []


# -- layering ----------------------------------------------------------------------------

_PYX_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>[\w.]+)[ \t]+c?import\b"
    r"|c?import[ \t]+(?P<names>[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))",
    re.MULTILINE,
)


def imports_of_python(source: str, package: str) -> set[str]:
    """Dotted modules a Python source imports (relative ones resolved within `package`)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
    return found


def imports_of_cython(source: str) -> set[str]:
    """Dotted modules named in the import/cimport statements of a .pyx or .pxd source."""
    found = set()
    for m in _PYX_IMPORT.finditer(source):
        if m["from"]:
            found.add(m["from"])
        else:
            found.update(n.strip() for n in m["names"].split(","))
    return found


def imports_of(path: Path) -> set[str]:
    package = PACKAGE_OF_DIR[path.relative_to(ROOT).parts[0]]
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return imports_of_python(source, package)
    return imports_of_cython(source)


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _violations(
    imports: set[str], forbidden: tuple[str, ...], doors: tuple[str, ...] = ()
) -> list[str]:
    """The imports that fall under `forbidden`, less those through `doors`."""
    return sorted(m for m in imports if _within(m, forbidden) and not _within(m, doors))


def _sources(folder: str) -> list[Path]:
    return [
        p
        for p in sorted((ROOT / folder).rglob("*"))
        if p.suffix in (".py", ".pyx", ".pxd") and "__pycache__" not in p.parts
    ]


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_layering(folder):
    sources = _sources(folder)
    assert any(p.suffix == ".pyx" for p in sources) == (folder in CYTHON_DIRS)
    assert any(p.suffix == ".py" for p in sources)
    bad = {}
    for path in sources:
        doors = DOORS.get(path.relative_to(ROOT).as_posix(), ())
        found = _violations(imports_of(path), LAYERS[folder], doors)
        if found:
            bad[str(path.relative_to(ROOT))] = found
    assert bad == {}, f"{folder}/ must not import {', '.join(LAYERS[folder])}"


def test_layering_scan_finds_engine_imports():
    # The scanners do see the imports the layering test looks for.
    core = imports_of(ROOT / "engine" / "_council_of_four.pyx")
    assert {"council.engine.council_of_four_board", "council.engine.council_of_four_config"} <= core
    assert "libc.string" in core
    assert "council.engine._council_of_four" in imports_of(
        ROOT / "mcts" / "_council_of_four_search.pyx"
    )
    assert "council.engine._council_of_four" in imports_of(
        ROOT / "engine" / "council_of_four_actions.py"
    )


def test_layering_scans_the_ladder():
    # ladder/ is a scanned folder of its own (above server/): every folder that ships a
    # council package is either checked by the layering test or is the top (ladder) or the
    # wire format (proto).
    mapping = _pyproject()["tool"]["setuptools"]["package-dir"]
    top_level = {folder for folder in mapping.values() if "/" not in folder}
    assert top_level == set(PACKAGE_OF_DIR)
    assert set(LAYERS) == set(PACKAGE_OF_DIR) - {"ladder"}
    assert {"engine", "mcts", "learning", "server"} <= set(LAYERS)
    for folder in LAYERS:
        assert "council.ladder" in LAYERS[folder], folder
    sources = _sources("ladder")
    assert ROOT / "ladder" / "cli.py" in sources
    found = set().union(*(imports_of(p) for p in sources))
    # The ladder sees the layers below it (relative and absolute imports alike)...
    assert {"council.mcts.jobs", "council.server.presets", "council.server.client"} <= found
    assert "council.ladder.store" in imports_of(ROOT / "ladder" / "runner.py")
    # ... and only those: no folder outside the council packages.
    council = {m for m in found if m.startswith("council.")}
    allowed = (
        "council.engine",
        "council.mcts",
        "council.learning",
        "council.server",
        "council.v1",
        "council.ladder",
    )
    assert _violations(council, allowed) == sorted(council)


TRAINING_MODULES = ("selfplay.py", "train.py", "train_policy.py")


def test_training_is_out_of_the_players():
    # Self-play and training live in learning/ (council.learning), not in mcts/: the search,
    # the agents and the inference models never import them.
    assert [f for f in TRAINING_MODULES if (ROOT / "mcts" / f).exists()] == []
    sources = _sources("learning")
    assert {ROOT / "learning" / f for f in (*TRAINING_MODULES, "cli.py")} <= set(sources)
    found = set().union(*(imports_of(p) for p in sources))
    # Training stands on the players and the rules...
    assert {"council.mcts.jobs", "council.mcts.value_model", "council.mcts.policy_model"} <= found
    assert any(m.startswith("council.engine.") for m in found)
    council = {m for m in found if m.startswith("council.")}
    assert _violations(council, ("council.engine", "council.mcts", "council.learning")) == sorted(
        council
    )
    # ... and the trainers share public names only (council.learning.data), none of another
    # learning module's private ones.
    private = sorted(
        m for m in found if m.startswith("council.learning.") and m.rsplit(".", 1)[1][0] == "_"
    )
    assert private == []
    assert "council.learning.data.split_games" in imports_of(ROOT / "learning" / "train_policy.py")


def test_the_server_reaches_training_through_its_one_door():
    # council-ai's command line registers the learning commands from council.learning.cli,
    # and nothing else in server/ imports council.learning (not even cli.py, past its door).
    cli = ROOT / "server" / "cli.py"
    assert "council.learning.cli" in imports_of(cli)
    doors = DOORS["server/cli.py"]
    assert _violations(imports_of(cli), LAYERS["server"], doors) == []
    sneaky = imports_of_python(
        "from council.learning.cli import add_commands\nfrom council.learning import train\n",
        "council.server",
    )
    assert _violations(sneaky, LAYERS["server"], doors) == [
        "council.learning",
        "council.learning.train",
    ]
    assert _violations(sneaky, LAYERS["server"]) == sorted(sneaky)


SNEAKY_PY = """
import os, council.server.cli
from ..server import app
from . import board
from .config import GameConfig


def later():
    from council.mcts.search import search
    import importlib
    return importlib.import_module("council.v1.service_pb2"), __import__("council.server")
"""

SNEAKY_PYX = """
from libc.stdint cimport int8_t
cimport council.mcts._search
from council.server import app
def f():
    import numpy, council.v1.game_pb2
"""


def test_layering_scan_catches_every_import_form():
    found = imports_of_python(SNEAKY_PY, "council.engine")
    assert _violations(found, LAYERS["engine"]) == [
        "council.mcts.search",
        "council.mcts.search.search",
        "council.server",
        "council.server.app",
        "council.server.cli",
        "council.v1.service_pb2",
    ]
    assert {"council.engine.board", "council.engine.config.GameConfig", "os"} <= found
    found = imports_of_cython(SNEAKY_PYX)
    assert found == {
        "libc.stdint",
        "council.mcts._search",
        "council.server",
        "numpy",
        "council.v1.game_pb2",
    }
    assert _violations(found, LAYERS["mcts"]) == ["council.server", "council.v1.game_pb2"]
