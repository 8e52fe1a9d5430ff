"""Names kept for one version after they moved: a module's ``__getattr__`` that gives the
moved object and warns (DeprecationWarning) on each use, so an old import still works and
says where the name went.

>>> import warnings
>>> __getattr__ = moved("old", {"Config": "dataclasses:dataclass"})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     value = __getattr__("Config")
>>> import dataclasses
>>> value is dataclasses.dataclass, str(caught[0].message)
(True, 'old.Config is deprecated (0.4.0 removes it): use dataclasses.dataclass')
>>> __getattr__("Other")
Traceback (most recent call last):
...
AttributeError: module 'old' has no attribute 'Other'
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

REMOVED_IN = "0.4.0"


def moved(old: str, new: str | dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of module ``old`` whose names moved: to module ``new`` (every
    name, the same name there), or each to its ``"module:name"`` in a dict."""

    def __getattr__(name: str) -> Any:
        if isinstance(new, str) and not (name.startswith("__") and name.endswith("__")):
            module, attribute = new, name
        elif isinstance(new, dict) and name in new:
            module, _, attribute = new[name].partition(":")
        else:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        try:
            value = getattr(importlib.import_module(module), attribute)
        except AttributeError:
            raise AttributeError(f"module {old!r} has no attribute {name!r}") from None
        warnings.warn(
            f"{old}.{name} is deprecated ({REMOVED_IN} removes it): use {module}.{attribute}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__
