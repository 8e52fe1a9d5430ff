"""The ladder's optional dependencies (the ``ladder`` extra): OpenSkill for the ratings,
matplotlib for the ratings plot. A missing one is named together with the install command
rather than surfacing as a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["INSTALL", "require"]

INSTALL = "pip install 'council-ai[ladder]'"


def require(module: str) -> ModuleType:
    """Import ``module``, or raise ``ImportError`` naming the extra that provides it.

    >>> require("json").__name__
    'json'
    >>> require("council_ladder_no_such_module")
    Traceback (most recent call last):
    ...
    ImportError: the ladder needs council_ladder_no_such_module (not installed): pip install 'council-ai[ladder]'
    """  # noqa: E501
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = (error.name or module).split(".")[0]  # the package to install
        raise ImportError(
            f"the ladder needs {missing} (not installed): {INSTALL}", name=missing
        ) from error
