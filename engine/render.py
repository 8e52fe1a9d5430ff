"""Deprecated (0.4.0 removes it): the text rendering of one game moved to its own module,
``council.engine.render_council_of_four``; each name used from here warns and is that module's."""

from council.engine._deprecated import moved

__getattr__ = moved(__name__, "council.engine.render_council_of_four")
