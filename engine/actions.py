"""Deprecated (0.4.0 removes it): the action codec of one game moved to its own module,
``council.engine.council_of_four_actions``; each name used from here warns and is that module's."""

from council.engine._deprecated import moved

__getattr__ = moved(__name__, "council.engine.council_of_four_actions")
