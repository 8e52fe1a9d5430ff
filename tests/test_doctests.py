"""The runnable examples in docstrings and in the README."""

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "council.engine.board",
    "council.engine.config",
    "council.engine._core",
    "council.engine.actions",
    "council.engine.serialize",
    "council.engine.render",
]
README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no runnable examples"
    assert result.failed == 0


def test_readme_examples():
    result = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0
    assert result.failed == 0
