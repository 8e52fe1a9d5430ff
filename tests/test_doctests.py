"""The runnable examples: every docstring of the council packages, the compiled modules
included, and the README. The one place doctests run (no other test file calls doctest)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
import pkgutil
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: the copy vendored by pip
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
OPTIONAL_DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
    "optional-dependencies"
]
PACKAGES = [
    "council.engine",
    "council.mcts",
    "council.learning",
    "council.server",
    "council.ladder",
]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# Import names whose distribution is named otherwise (the rest are the same).
DISTRIBUTION_OF = {"pyspiel": "open-spiel"}
# The user-facing modules: each shows its use in at least one example.
DOCUMENTED = {
    "council.engine._council_of_four",
    "council.engine.council_of_four_actions",
    "council.engine.council_of_four_board",
    "council.engine.record",
    "council.engine.council_of_four_config",
    "council.engine.render_council_of_four",
    "council.engine.serialize",
    "council.engine.council_of_four_svg",
    "council.mcts.agents",
    "council.mcts.arena",
    "council.mcts.features",
    "council.mcts.jobs",
    "council.mcts.council_of_four_openspiel",
    "council.mcts.policy_model",
    "council.mcts.search",
    "council.mcts.value_model",
    "council.learning.cli",
    "council.learning.data",
    "council.learning.selfplay",
    "council.server.admission",
    "council.server.app",
    "council.server.client",
    "council.server.config",
    "council.server.connect",
    "council.server.game_store",
    "council.server.presets",
    "council.ladder._extra",
    "council.ladder.entrants",
    "council.ladder.runner",
    "council.ladder.schedule",
    "council.ladder.store",
}


def _walk(package: str) -> list[str]:
    path = importlib.import_module(package).__path__
    return [package] + [m.name for m in pkgutil.walk_packages(path, package + ".")]


MODULES = sorted(name for package in PACKAGES for name in _walk(package))


def _names(requirements: list[str]) -> set[str]:
    """The normalised distribution names of requirement strings, self-references
    (``council-ai[ladder]``) expanded."""
    names = set()
    for requirement in requirements:
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group().lower().replace("_", "-")
        extras = re.search(r"\[(.*)\]", requirement)
        if name == "council-ai" and extras:
            for extra in extras.group(1).split(","):
                names |= _names(OPTIONAL_DEPENDENCIES[extra.strip()])
        else:
            names.add(name)
    return names


def _missing_extra(name: str) -> tuple[str, str] | None:
    """None if module `name` imports; else (the missing import, the extra that installs it).
    A missing import that no extra provides is an error, raised."""
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        distribution = DISTRIBUTION_OF.get(missing, missing).lower().replace("_", "-")
        extras = [
            extra
            for extra, requirements in OPTIONAL_DEPENDENCIES.items()
            if extra != "test" and distribution in _names(requirements)
        ]
        if not extras:
            raise
        return missing, extras[0]
    return None


def find_examples(module) -> list[doctest.DocTest]:
    """doctest's finder, plus two things for Cython modules. Properties of compiled classes
    are getset descriptors, which the finder does not look into: their docstrings are read
    here. And Cython's ``autotestdict`` copies the docstrings of compiled functions and
    methods into the module's ``__test__`` (without the signature ``embedsignature`` adds):
    a copy of examples already found goes, so nothing runs twice."""
    found = doctest.DocTestFinder().find(module)
    tests = [t for t in found if ".__test__." not in t.name]
    parser = doctest.DocTestParser()
    for class_name, cls in vars(module).items():
        if not (inspect.isclass(cls) and cls.__module__ == module.__name__):
            continue
        for attribute, value in vars(cls).items():
            if inspect.isgetsetdescriptor(value) and isinstance(value.__doc__, str):
                test = parser.get_doctest(
                    value.__doc__,
                    module.__dict__.copy(),
                    f"{module.__name__}.{class_name}.{attribute}",
                    getattr(module, "__file__", None),
                    None,
                )
                tests.append(test)

    def key(test):
        return tuple((e.source, e.want) for e in test.examples)

    seen = {key(t) for t in tests}
    tests += [t for t in found if ".__test__." in t.name and key(t) not in seen]
    return sorted((t for t in tests if t.examples), key=lambda t: t.name)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    missing = _missing_extra(name)
    if missing is not None:
        pytest.skip(f"needs the {missing[1]!r} extra ({missing[0]} is not installed)")
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = io.StringIO()
    for test in find_examples(module):
        runner.run(test, out=report.write)
    if name in DOCUMENTED:
        assert runner.tries > 0, f"{name} has no runnable examples"
    assert runner.failures == 0, report.getvalue()


def test_only_extras_outside_the_test_extra_are_skipped():
    # With the `test` extra installed (CI, make test), every module whose dependencies
    # it installs is imported and its examples run; only the openspiel extra, which CI
    # leaves out, may be missing.
    installed = _names(OPTIONAL_DEPENDENCIES["test"])
    skipped = {}
    for name in MODULES:
        missing = _missing_extra(name)
        if missing is not None:
            skipped[name] = missing[1]
            assert not _names(OPTIONAL_DEPENDENCIES[missing[1]]) <= installed, name
    assert set(skipped.values()) <= {"openspiel"}, skipped


def test_every_package_and_the_compiled_modules_are_searched():
    assert set(DOCUMENTED) <= set(MODULES)
    for package in PACKAGES:
        assert any(name.startswith(package + ".") for name in DOCUMENTED), package
    # Examples in an extension module's docstrings are found (the core is compiled).
    core = importlib.import_module("council.engine._council_of_four")
    assert not core.__file__.endswith(".py")
    assert "council.engine._council_of_four.CouncilOfFourState" in {
        t.name for t in find_examples(core)
    }


def test_readme_examples():
    result = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=FLAGS,
    )
    assert result.attempted > 0
    assert result.failed == 0
