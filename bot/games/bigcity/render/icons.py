"""Building and park icons, as cached masks."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.render.cache import KB, byte_cache
from bot.render.fonts import font
from bot.render.kit import RGB, fill_mask

from .constants import Point

# -- icons -------------------------------------------------------------------------------

_SS = 4  # icons are drawn 4x larger, then reduced: smooth edges


@byte_cache(256 * KB)
def icon_mask(name: str, size: int) -> Image.Image:
    """Coverage of a building icon in a size x size square."""
    s = max(1, size) * _SS
    mask = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(mask)

    def rect(x0: float, y0: float, x1: float, y1: float, fill: int = 255) -> None:
        d.rectangle((x0 * s, y0 * s, x1 * s, y1 * s), fill=fill)

    def poly(points: Sequence[Point], fill: int = 255) -> None:
        d.polygon([(x * s, y * s) for x, y in points], fill=fill)

    if name == "residence":  # a house with a pitched roof
        poly([(0.02, 0.52), (0.5, 0.06), (0.98, 0.52)])
        rect(0.66, 0.12, 0.8, 0.4)
        rect(0.16, 0.48, 0.84, 0.94)
        rect(0.41, 0.64, 0.59, 0.94, 0)
    elif name == "business":  # an office tower with windows
        rect(0.18, 0.04, 0.82, 0.96)
        for wx in (0.29, 0.57):
            for wy in (0.13, 0.32, 0.51, 0.7):
                rect(wx, wy, wx + 0.14, wy + 0.11, 0)
    elif name == "city_hall":  # columns under a pediment
        poly([(0.02, 0.34), (0.5, 0.04), (0.98, 0.34)])
        rect(0.04, 0.34, 0.96, 0.44)
        for cx in (0.1, 0.32, 0.54, 0.76):
            rect(cx, 0.48, cx + 0.14, 0.82)
        rect(0.02, 0.84, 0.98, 0.96)
    elif name == "church":  # a cross
        rect(0.41, 0.02, 0.59, 0.98)
        rect(0.14, 0.24, 0.86, 0.42)
    elif name == "cinema":  # a film strip with a play sign
        rect(0.02, 0.14, 0.98, 0.86)
        for i in range(5):
            hx = 0.08 + i * 0.19
            rect(hx, 0.2, hx + 0.09, 0.29, 0)
            rect(hx, 0.71, hx + 0.09, 0.8, 0)
        poly([(0.38, 0.36), (0.66, 0.5), (0.38, 0.64)], 0)
    elif name == "post_office":  # an envelope
        rect(0.02, 0.18, 0.98, 0.82)
        d.line([(0.06 * s, 0.22 * s), (0.5 * s, 0.56 * s), (0.94 * s, 0.22 * s)], fill=0,
               width=max(1, round(0.09 * s)), joint="curve")
    elif name == "bank":  # a dollar sign
        face = font(round(s * 0.98), True)
        d.text((s / 2, s / 2), "$", font=face, fill=255, anchor="mm")
    elif name == "shopping_center":  # a shopping bag
        poly([(0.12, 0.36), (0.88, 0.36), (0.96, 0.96), (0.04, 0.96)])
        d.arc((0.28 * s, 0.06 * s, 0.72 * s, 0.6 * s), 180, 360, fill=255,
              width=max(1, round(0.09 * s)))
    elif name == "park":  # a tree
        d.ellipse((0.12 * s, 0.02 * s, 0.88 * s, 0.7 * s), fill=255)
        rect(0.42, 0.56, 0.58, 0.98)
    elif name == "factory":  # saw-tooth roofs and a chimney
        poly([(0.02, 0.96), (0.02, 0.5), (0.26, 0.32), (0.26, 0.5), (0.5, 0.32), (0.5, 0.5),
              (0.7, 0.36), (0.7, 0.04), (0.88, 0.04), (0.88, 0.96)])
        for wx in (0.1, 0.34, 0.56):
            rect(wx, 0.66, wx + 0.1, 0.78, 0)
    elif name == "card":  # the back of a property card
        d.rounded_rectangle((0.14 * s, 0.02 * s, 0.86 * s, 0.98 * s), radius=0.12 * s, fill=255)
    else:  # something the renderer does not know: a plain block
        rect(0.15, 0.15, 0.85, 0.85)
    return mask.reduce(_SS)


def _paste_icon(image: Image.Image, name: str, centre: Point, size: int, fill: RGB) -> None:
    mask = icon_mask(name, size)
    fill_mask(image, fill, (round(centre[0] - size / 2), round(centre[1] - size / 2)), mask)
