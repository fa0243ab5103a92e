"""Text helpers: wrapping and fitting lines."""

from __future__ import annotations

import re

from bot.render import kit
from bot.render.cache import KB, byte_cache
from bot.render.kit import INK, RGB, Box, Canvas

from .constants import TEXT

# -- text helpers ------------------------------------------------------------------------


_UNIT = re.compile(r"^(m|km|km²|°C|°|h|s)\W*$")


@byte_cache(128 * KB)
def wrap(text: str, size: int, bold: bool, width: int) -> tuple[str, ...]:
    """``text`` broken at spaces into lines at most ``width`` px wide (a word longer than
    the line stays whole here and is ellipsised when drawn)."""
    words: list[str] = []
    for word in kit.prepare(text, size, bold).split():
        # A number keeps its unit on its line: "(708 m)", never "(708" then "m)".
        if words and words[-1][-1:].isdigit() and _UNIT.match(word):
            words[-1] = f"{words[-1]} {word}"
        else:
            words.append(word)
    lines: list[str] = []
    for word in words:
        if lines and kit.text_width(f"{lines[-1]} {word}", size, bold) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return tuple(lines) or ("",)


Fits = tuple[tuple[int, int], ...]  # (font size, lines allowed), best first

# A city on a square or risk field: that spot is no longer a choice, so its name is a
# record (secondary) and may shrink to fit.
ONE_LINE: Fits = ((TEXT, 1), (26, 1), (24, 1), (22, 1), (20, 2))


@byte_cache(256 * KB)
def fit_lines(text: str, width: int, fits: Fits, bold: bool = True
              ) -> tuple[tuple[str, ...], int]:
    """``text`` at the first (size, lines) of ``fits`` where it fits ``width``: on one
    line, or broken into two balanced lines; else ellipsised at the last size."""
    shown = kit.prepare(text, fits[-1][0], bold)
    words = shown.split()
    for size, lines_allowed in fits:
        if kit.text_width(shown, size, bold) <= width:
            return (shown,), size
        if lines_allowed < 2 or len(words) < 2:
            continue
        best: tuple[str, ...] | None = None
        best_w = width + 1
        for cut in range(1, len(words)):
            pair = (" ".join(words[:cut]), " ".join(words[cut:]))
            w = max(kit.text_width(line, size, bold) for line in pair)
            if w < best_w:
                best, best_w = pair, w
        if best is not None:
            return best, size
    return (kit.fit_text(shown, fits[-1][0], bold, width),), fits[-1][0]


def draw_fitted(c: Canvas, centre: tuple[float, float], text: str, width: int,
                fits: Fits = ONE_LINE, *, bold: bool = True, fill: RGB = INK,
                align: str = "m", secondary: bool = False) -> Box:
    """``fit_lines`` drawn around ``centre`` (``align`` l or m for the x)."""
    lines, size = fit_lines(text, width, fits, bold)
    step = round(size * 1.08)
    y = centre[1] - step * (len(lines) - 1) / 2
    x0, y0, x1, y1 = round(centre[0]), round(y), round(centre[0]), round(y)
    for i, line in enumerate(lines):
        b = c.text((centre[0], y + i * step), line, size, bold=bold, fill=fill,
                   anchor=f"{align}m", max_width=width, secondary=secondary)
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    return x0, y0, x1, y1


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")
