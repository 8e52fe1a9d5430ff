"""The compiled modules' type stubs (``*.pyi`` beside each ``.pyx``) match the extensions.

mypy reads a compiled module only through its stub, so a stub that drifts from the
extension hides a real error (a name it lacks) or invents one (a name it keeps after the
extension dropped it). For each compiled module: every public name the module defines at
runtime (``dir(module)`` less private names, the modules it holds and the names its
``.pyx`` imports at top level, such as ``namedtuple``) is declared in its stub, and every
name the stub declares exists at runtime; the same holds
for the members of each class the module defines (its methods, properties and public
attributes, ``vars(cls)`` less dunder names). Private names the stub declares because the
Python side uses them (``_council_of_four_document._check_config``) must exist at runtime too.

A stub's names are read with ``ast``, by the stub rules of PEP 484: a re-export must be
spelt ``from x import y as y``; other imports are the stub's own.
"""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED = {
    "council.engine._council_of_four": "engine/_council_of_four.pyi",
    "council.engine._council_of_four_document": "engine/_council_of_four_document.pyi",
    "council.engine._council_of_four_status": "engine/_council_of_four_status.pyi",
    "council.engine._bench": "engine/_bench.pyi",
    "council.engine._the_council": "engine/_the_council.pyi",
    "council.engine._kuhn_poker": "engine/_kuhn_poker.pyi",
    "council.engine._leduc_poker": "engine/_leduc_poker.pyi",
    "council.engine._a_war_of_whispers": "engine/_a_war_of_whispers.pyi",
    "council.mcts._search": "mcts/_search.pyi",
    "council.mcts._council_of_four_evaluation": "mcts/_council_of_four_evaluation.pyi",
    "council.mcts._council_of_four_search": "mcts/_council_of_four_search.pyi",
    "council.mcts._the_council_search": "mcts/_the_council_search.pyi",
    "council.mcts._kuhn_poker_search": "mcts/_kuhn_poker_search.pyi",
    "council.mcts._leduc_poker_search": "mcts/_leduc_poker_search.pyi",
    "council.mcts._a_war_of_whispers_search": "mcts/_a_war_of_whispers_search.pyi",
}


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _declared(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Names a stub's module or class body declares, each with its statement."""
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # Re-exported only as `import x as x` / `from m import x as x` (PEP 484).
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name.rpartition(".")[2]:
                    names[alias.asname] = node
    return names


def _stub(module: str) -> ast.Module:
    return ast.parse((ROOT / COMPILED[module]).read_text(encoding="utf-8"))


def _runtime_public(module: types.ModuleType, imported: set[str] = frozenset()) -> set[str]:
    return {
        name
        for name in dir(module)
        if not name.startswith("_")
        and name not in imported
        and not isinstance(getattr(module, name), types.ModuleType)
    }


# A top-level Python import of a .pyx (cimports bind no Python name).
_IMPORT = re.compile(
    r"^(?:import[ \t]+(?P<modules>[^\n]+)"
    r"|from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\((?P<group>[^)]*)\)|(?P<names>[^\n(]+)))",
    re.MULTILINE,
)


def imported_names(source: str) -> set[str]:
    """The names a .pyx binds by its top-level ``import`` and ``from ... import``."""
    found = set()
    for m in _IMPORT.finditer(source):
        text = m["modules"] or m["group"] or m["names"]
        for item in re.sub(r"#[^\n]*", "", text).replace("\n", " ").split(","):
            words = item.split()
            if not words:
                continue
            if len(words) == 3 and words[1] == "as":
                found.add(words[2])
            elif m["modules"]:
                found.add(words[0].split(".")[0])  # `import a.b` binds a
            else:
                found.add(words[0])
    return found


def _imported(name: str) -> set[str]:
    pyx = ROOT / COMPILED[name].replace(".pyi", ".pyx")
    return imported_names(pyx.read_text(encoding="utf-8"))


def test_every_compiled_module_has_a_stub():
    # The list above names every extension setup.py builds (one per .pyx).
    pyx = {p.relative_to(ROOT).with_suffix(".pyi").as_posix() for p in ROOT.glob("*/_*.pyx")}
    assert pyx == set(COMPILED.values())
    for stub in COMPILED.values():
        assert (ROOT / stub).is_file(), stub


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_stub_declares_the_module_names(name):
    module = importlib.import_module(name)
    assert Path(module.__file__).suffix in (".so", ".pyd"), "not the compiled module"
    declared = _declared(_stub(name).body)
    runtime = _runtime_public(module, _imported(name))
    assert sorted(runtime - set(declared)) == [], f"in {name}, not in its stub"
    assert sorted(n for n in declared if not hasattr(module, n)) == [], (
        f"in the stub of {name}, not in the module"
    )


def _stub_classes(name: str) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in _stub(name).body if isinstance(n, ast.ClassDef)}


def _inherited(stub: ast.Module, cls: ast.ClassDef) -> set[str]:
    """The members a stub class declares through a base it imports from a module of this
    project (``class CouncilOfFourState(PositionMembers)``: the members every position has)."""
    found: set[str] = set()
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for node in stub.body:
        parts = node.module.split(".") if isinstance(node, ast.ImportFrom) and node.module else []
        if parts[:1] != ["council"] or len(parts) < 3:
            continue
        source = ROOT.joinpath(*parts[1:]).with_suffix(".py")
        if not source.is_file():  # a stub-only module (engine/_position.pyi)
            source = source.with_suffix(".pyi")
        for alias in node.names:
            if alias.name in bases and source.is_file():
                base = next(
                    n
                    for n in ast.parse(source.read_text(encoding="utf-8")).body
                    if isinstance(n, ast.ClassDef) and n.name == alias.name
                )
                found |= set(_declared(base.body))
    return found


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_stub_declares_the_class_members(name):
    module = importlib.import_module(name)
    classes = _stub_classes(name)
    defined_here = {
        attr
        for attr in _runtime_public(module)
        if isinstance(getattr(module, attr), type) and getattr(module, attr).__module__ == name
    }
    assert defined_here <= set(classes)
    for cls_name in sorted(defined_here):
        cls = getattr(module, cls_name)
        runtime = {m for m in vars(cls) if not _is_dunder(m)}
        declared = set(_declared(classes[cls_name].body))
        declared |= _inherited(_stub(name), classes[cls_name])
        declared = {m for m in declared if not _is_dunder(m)}
        public = {m for m in runtime if not m.startswith("_")}
        assert sorted(public - declared) == [], f"{name}.{cls_name}: not in the stub"
        assert sorted(declared - runtime) == [], f"{name}.{cls_name}: not at runtime"


def test_stub_check_sees_drift():
    # The name readers above do find a missing or an extra name.
    stub = ast.parse(
        "import numpy as np\n"
        "from council.engine.council_of_four_config import CouncilOfFourConfig as"
        " CouncilOfFourConfig\n"
        "from typing import Any\n"
        "X: int\nY = 2\n"
        "def f() -> None: ...\n"
        "class C:\n    a: int\n    def m(self) -> None: ...\n    @property\n"
        "    def p(self) -> int: ...\n"
    )
    declared = _declared(stub.body)
    assert set(declared) == {"CouncilOfFourConfig", "X", "Y", "f", "C"}
    cls = next(n for n in stub.body if isinstance(n, ast.ClassDef))
    assert set(_declared(cls.body)) == {"a", "m", "p"}
    fake = types.ModuleType("fake")
    fake.np = types  # an imported module: not a name of the module's own
    fake.X = 1
    fake.Z = 3
    fake.namedtuple = ast.parse
    assert _runtime_public(fake, {"namedtuple"}) == {"X", "Z"}
    source = (
        "from libc.stdint cimport int8_t\n"
        "cimport council.engine._council_of_four\n"
        "import enum\n"
        "import numpy as np\n"
        "import os.path\n"
        "from collections import namedtuple\n"
        "from council.engine._council_of_four import (\n    ACTION_KINDS,  # the table\n"
        "    CouncilOfFourState as S,\n)\n"
        "from council.engine import board as _board, config\n"
        "def f():\n    import json\n"
    )
    assert imported_names(source) == {
        "enum",
        "np",
        "os",
        "namedtuple",
        "ACTION_KINDS",
        "S",
        "_board",
        "config",
    }
