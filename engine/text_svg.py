"""A position's text rendering as an SVG document, one ``<text>`` a line: the drawing of a
game with no board of its own (the pokers), for ``Game.render_svg``; and any SVG as PNG
(``svg_to_png``).

>>> text_svg("seat 0: K\\npot: 2", "#ffffff").count("<text ")
2
"""

from __future__ import annotations

from xml.sax.saxutils import escape

__all__ = ["svg_to_png", "text_svg"]


def text_svg(text: str, background: str) -> str:
    """`text`'s lines in monospace on a `background`-coloured rectangle, the line ``i``
    with the id ``line-i``."""
    lines = text.splitlines()
    width = 16 + 8 * max(len(line) for line in lines)
    height = 16 + 18 * len(lines)
    texts = "".join(
        f'<text id="line-{i}" x="8" y="{8 + 18 * (i + 1) - 4}">{escape(line)}</text>'
        for i, line in enumerate(lines)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="13">'
        f'<rect width="{width}" height="{height}" fill="{background}"/>{texts}</svg>\n'
    )


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """The PNG of an SVG text, drawn by CairoSVG (the ``render`` extra:
    ``pip install 'council-ai[render]'``, which needs the system's cairo library, Debian's
    ``libcairo2``)."""
    try:
        import cairosvg
    except (ImportError, OSError) as error:  # no package, or no libcairo for cairocffi
        raise RuntimeError(
            "PNG output needs CairoSVG and the cairo library: pip install "
            f"'council-ai[render]' (Debian: apt-get install libcairo2): {error}"
        ) from None
    png = cairosvg.svg2png(bytestring=svg.encode(), scale=scale)
    assert isinstance(png, bytes)
    return png
