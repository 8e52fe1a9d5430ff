"""Deprecated (0.4.0 removes it): the board drawn as SVG of one game moved to its own module,
``council.engine.council_of_four_svg``; each name used from here warns and is that module's."""

from council.engine._deprecated import moved

__getattr__ = moved(__name__, "council.engine.council_of_four_svg")
