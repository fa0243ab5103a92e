"""Statement symbols, drawn as cached masks."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.render.cache import KB, byte_cache
from bot.render.kit import INK, RGB, Box, Canvas, fill_mask

# -- symbols -------------------------------------------------------------------------------

_SS = 4  # symbols are drawn 4x larger, then reduced: smooth edges without a vector library


def _draw_symbol(d: ImageDraw.ImageDraw, name: str, s: float) -> int:
    """Draw symbol ``name`` in an s x s square (255 = ink, 0 = cut out); returns the angle
    the finished mask is turned by."""

    def p(x: float, y: float) -> tuple[float, float]:
        return x * s, y * s

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return x0 * s, y0 * s, x1 * s, y1 * s

    def circle(x: float, y: float, r: float, fill: int = 255) -> None:
        d.ellipse(box(x - r, y - r, x + r, y + r), fill=fill)

    def ring(x: float, y: float, r: float, w: float) -> None:
        d.ellipse(box(x - r, y - r, x + r, y + r), outline=255, width=max(1, round(w * s)))

    def line(points: Sequence[tuple[float, float]], w: float, fill: int = 255) -> None:
        d.line([p(x, y) for x, y in points], fill=fill, width=max(1, round(w * s)),
               joint="curve")
        for x, y in (points[0], points[-1]):  # round caps
            circle(x, y, w / 2, fill)

    def poly(points: Sequence[tuple[float, float]], fill: int = 255) -> None:
        d.polygon([p(x, y) for x, y in points], fill=fill)

    if name == "people":
        circle(0.69, 0.27, 0.13)
        d.ellipse(box(0.47, 0.45, 0.93, 1.05), fill=255)
        circle(0.36, 0.33, 0.19, 0)  # a gap around the front figure
        d.ellipse(box(0.03, 0.47, 0.69, 1.17), fill=0)
        circle(0.36, 0.33, 0.14)
        d.ellipse(box(0.08, 0.52, 0.64, 1.12), fill=255)
        d.rectangle(box(0, 0.93, 1, 1), fill=0)
    elif name == "castle":
        d.rectangle(box(0.14, 0.4, 0.86, 0.94), fill=255)
        for x in (0.14, 0.43, 0.72):
            d.rectangle(box(x, 0.2, x + 0.14, 0.4), fill=255)
        d.rectangle(box(0.41, 0.68, 0.59, 0.94), fill=0)
        d.ellipse(box(0.41, 0.59, 0.59, 0.77), fill=0)
        d.rectangle(box(0.22, 0.5, 0.3, 0.6), fill=0)
        d.rectangle(box(0.7, 0.5, 0.78, 0.6), fill=0)
    elif name == "ruler":
        d.rectangle(box(0.03, 0.34, 0.97, 0.66), fill=255)
        for i, x in enumerate(v / 10 for v in range(1, 10)):
            depth = 0.16 if i % 2 else 0.09
            d.rectangle(box(x - 0.018, 0.34, x + 0.018, 0.34 + depth), fill=0)
        return 30
    elif name == "mountain":
        poly([(0.5, 0.92), (0.73, 0.42), (0.99, 0.92)])
        line([(0.02, 0.95), (0.41, 0.13), (0.82, 0.95)], 0.1, 0)
        poly([(0.02, 0.92), (0.41, 0.13), (0.8, 0.92)])
        poly([(0.41, 0.27), (0.51, 0.47), (0.46, 0.43), (0.41, 0.5), (0.36, 0.43), (0.31, 0.47)],
             0)
    elif name == "plane":
        d.rounded_rectangle(box(0.44, 0.03, 0.56, 0.95), radius=0.06 * s, fill=255)
        poly([(0.5, 0.34), (0.97, 0.56), (0.97, 0.65), (0.5, 0.55), (0.03, 0.65), (0.03, 0.56)])
        poly([(0.5, 0.76), (0.72, 0.89), (0.72, 0.96), (0.5, 0.9), (0.28, 0.96), (0.28, 0.89)])
        return -45
    elif name == "clock":
        ring(0.5, 0.5, 0.45, 0.09)
        for a in range(0, 360, 90):
            x, y = 0.5 + 0.33 * math.cos(math.radians(a)), 0.5 + 0.33 * math.sin(math.radians(a))
            circle(x, y, 0.045)
        line([(0.5, 0.5), (0.5, 0.24)], 0.08)
        line([(0.5, 0.5), (0.68, 0.6)], 0.08)
    elif name == "thermometer":
        d.rounded_rectangle(box(0.32, 0.03, 0.56, 0.72), radius=0.12 * s, outline=255,
                            width=round(0.07 * s))
        circle(0.44, 0.8, 0.18)
        d.rectangle(box(0.405, 0.32, 0.475, 0.72), fill=255)
        for y in (0.16, 0.3, 0.44):
            line([(0.64, y), (0.76, y)], 0.06)
    elif name == "wave":
        for y0 in (0.26, 0.52, 0.78):
            pts = [(x / 40, y0 + 0.08 * math.sin(2 * math.pi * (x / 40) / 0.46))
                   for x in range(3, 38)]
            line(pts, 0.09)
    elif name == "south":
        # A globe whose southern half is filled, the equator running out past its edge.
        ring(0.5, 0.5, 0.42, 0.08)
        d.ellipse(box(0.33, 0.08, 0.67, 0.92), outline=255, width=round(0.06 * s))
        line([(0.5, 0.1), (0.5, 0.5)], 0.06)
        line([(0.2, 0.29), (0.8, 0.29)], 0.06)
        d.pieslice(box(0.08, 0.08, 0.92, 0.92), 0, 180, fill=255)
        d.rectangle(box(0.1, 0.535, 0.9, 0.6), fill=0)
        line([(0.02, 0.5), (0.98, 0.5)], 0.07)
    elif name == "car-left":
        line([(0.06, 0.04), (0.06, 0.96)], 0.07)
        line([(0.94, 0.04), (0.94, 0.96)], 0.07)
        for y in (0.04, 0.38, 0.72):
            line([(0.55, y), (0.55, y + 0.18)], 0.06)
        poly([(0.3, 0.04), (0.14, 0.26), (0.46, 0.26)])  # driving up, in the left lane
        d.rounded_rectangle(box(0.15, 0.34, 0.45, 0.92), radius=0.07 * s, fill=255)
        d.rectangle(box(0.2, 0.44, 0.4, 0.54), fill=0)  # windscreen
    elif name == "globe":
        ring(0.5, 0.5, 0.45, 0.08)
        d.ellipse(box(0.29, 0.05, 0.71, 0.95), outline=255, width=round(0.065 * s))
        line([(0.5, 0.06), (0.5, 0.94)], 0.065)
        for dy in (-0.2, 0.0, 0.2):
            half = math.sqrt(0.45 ** 2 - dy ** 2)
            line([(0.5 - half + 0.03, 0.5 + dy), (0.5 + half - 0.03, 0.5 + dy)], 0.065)
    elif name == "crown":
        poly([(0.07, 0.8), (0.07, 0.3), (0.3, 0.56), (0.5, 0.2), (0.7, 0.56), (0.93, 0.3),
              (0.93, 0.8)])
        d.rectangle(box(0.07, 0.84, 0.93, 0.94), fill=255)
        for x, y in ((0.07, 0.24), (0.5, 0.13), (0.93, 0.24)):
            circle(x, y, 0.065)
        circle(0.5, 0.64, 0.07, 0)
    else:  # an unknown symbol still gets a mark, never a blank
        ring(0.5, 0.5, 0.42, 0.1)
        circle(0.5, 0.5, 0.16)
    return 0


@byte_cache(128 * KB)
def symbol_mask(name: str, size: int) -> Image.Image:
    """Anti-aliased coverage of a statement's symbol, ``size`` px square."""
    big = size * _SS
    mask = Image.new("L", (big, big), 0)
    angle = _draw_symbol(ImageDraw.Draw(mask), name, big - 1)
    if angle:
        mask = mask.rotate(angle, resample=Image.Resampling.BICUBIC)
    return mask.reduce(_SS)


def draw_symbol(c: Canvas, xy: tuple[float, float], name: str, size: int,
                fill: RGB = INK) -> Box:
    x, y = round(xy[0]), round(xy[1])
    fill_mask(c.image, fill, (x, y), symbol_mask(name, size))
    return x, y, x + size, y + size
