"""Cached drawing pieces: spaces, features, buildings, card backs, mini tiles."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cache import KB, MB, byte_cache
from bot.render.kit import INK, MUTED, PANEL, PANEL_ALT, RGB, WHITE, Box, Canvas

from .constants import BACK, BACK_LINE, FEATURE_FILL, MONUMENT, SMALL, SPACE_FILL, TEXT, TREE, WAVE
from .helpers import _feature_short

_ = Words("bot.games.cities")

# -- cached drawing pieces -----------------------------------------------------------------


@byte_cache(MB // 2)
def _space_image(code: str, size: int, letter: bool = True) -> Image.Image:
    """One space of a tile: colour plus its letter (city), waves (water) or trees (park)."""
    fill = SPACE_FILL.get(code, PANEL_ALT)
    image = Image.new("RGB", (size, size), fill)
    canvas = Canvas(image)
    draw = canvas.draw
    if code == "W":
        amp = max(2, size // 24)
        step = max(10, size // 4)
        width = max(2, size // 36)
        for row in range(1, 4):
            y = row * size / 4
            pts = []
            for i in range(0, 33):
                x = size * 0.12 + i * size * 0.76 / 32
                pts.append((x, y + amp * math.sin(i * 2 * math.pi / 32 * (size * 0.76 / step))))
            draw.line(pts, fill=WAVE, width=width)
    elif code == "P":
        dot = max(4, size // 9)
        for fx, fy in ((0.25, 0.3), (0.7, 0.22), (0.5, 0.55), (0.22, 0.78), (0.78, 0.76)):
            canvas.marker((size * fx, size * fy), "circle", dot, TREE)
    elif code in "RBGY" and letter and size >= 40:
        # The letter repeats the colour for those who cannot tell it: a key (secondary).
        # Spaces too small for it to be read (the overview pictures) show the colour alone.
        text_size = max(SMALL, min(30, size // 4))
        canvas.text((max(3, size // 14), max(1, size // 24)), code, text_size, bold=True,
                    fill=kit.ink_on(fill), secondary=True)
    return image


@byte_cache(MB // 2)
def _feature_image(background: str, kind: str, short: str, size: int) -> Image.Image:
    """A feature tile as a rounded token on transparent ground (RGBA)."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    radius = max(4, size // 7)
    if kind == "Wild":
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius, fill=PANEL, outline=INK,
                               width=max(2, size // 30))
        q = size // 5
        for i, code in enumerate("RBGY"):
            x = size // 2 - 2 * q + i * q + (q // 8)
            draw.rectangle((x, size - q - size // 8, x + q - q // 4, size - size // 8),
                           fill=SPACE_FILL[code])
        fg = INK
    else:
        fill = MONUMENT if kind == "Monument" else FEATURE_FILL.get(background, MONUMENT)
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius, fill=fill, outline=WHITE,
                               width=max(2, size // 30))
        fg = WHITE
        if kind == "Monument":
            star = kit.shape_mask("star", max(8, size // 3))
            kit.fill_mask(image, WHITE, ((size - star.width) // 2, size // 10), star)
    # The token's word names what its colour and star already show: a key (secondary),
    # left off a token too small to hold it whole and legible.
    text_size = max(SMALL, min(26, size // 4))
    shown = kit.prepare(short, text_size, True)
    while text_size > SMALL and kit.text_width(shown, text_size, True) > size - 8:
        text_size -= 1
    if kit.text_width(shown, text_size, True) > size - 6:
        return image  # a cut word ("Cath…") helps nobody; the star still says monument
    canvas = Canvas(image)
    y = size * (0.66 if kind in ("Monument",) else 0.42 if kind == "Wild" else 0.5)
    canvas.text((size / 2, y), shown, text_size, bold=True, fill=fg, anchor="mm",
                secondary=True)
    return image


def _feature(canvas: Canvas, feature: dict[str, Any], box: Box) -> None:
    size = min(box[2] - box[0], box[3] - box[1])
    if feature.get("face_down"):
        _card_back(canvas, (box[0], box[1], box[0] + size, box[1] + size), small=True)
        return
    image = _feature_image(str(feature.get("background")), str(feature.get("kind")),
                           _feature_short(feature), size)
    canvas.image.paste(image, (box[0], box[1]), image)


@byte_cache(256 * KB)
def _building_image(colour: str, height: int, size: int, key: bool = False) -> Image.Image:
    """A building: a stack of ``height`` blocks in its colour, the height as a number."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    fill = SPACE_FILL.get(colour, MUTED)
    step = max(3, size // 14)
    block = size - 3 * step
    outline = max(2, size // 28)
    for level in range(min(max(height, 1), 4) - 1, -1, -1):
        x = level * step
        y = size - block - level * step - (size - block - 3 * step)
        draw.rounded_rectangle((x, y + (size - block - 3 * step), x + block - 1,
                                y + (size - block - 3 * step) + block - 1),
                               max(3, size // 12), fill=fill, outline=INK, width=outline)
    canvas = Canvas(image)
    top = 3 * step - (min(max(height, 1), 4) - 1) * step
    cx = (min(max(height, 1), 4) - 1) * step + block / 2
    cy = top + block / 2
    ink = kit.ink_on(fill)
    canvas.text((cx, cy), str(height), max(14, min(block - 6, int(block * 0.72))), bold=True,
                fill=ink, anchor="mm", secondary=key)
    return image


def _building(canvas: Canvas, colour: str, height: int, box: Box, key: bool = False) -> None:
    """A building; ``key`` for the legend's example (its number is a key, not a value)."""
    size = min(box[2] - box[0], box[3] - box[1])
    image = _building_image(colour, height, size, key)
    canvas.image.paste(image, (box[0], box[1]), image)


def _piece(canvas: Canvas, colour: str, centre: tuple[float, float], size: int) -> None:
    """A single building piece: a cube in its colour with its letter (the colour again, for
    those who cannot tell it: a key, secondary)."""
    x, y = round(centre[0] - size / 2), round(centre[1] - size / 2)
    fill = SPACE_FILL.get(colour, MUTED)
    canvas.draw.rounded_rectangle((x, y, x + size - 1, y + size - 1), max(3, size // 8),
                                  fill=fill, outline=INK, width=2)
    canvas.text((centre[0], centre[1]), colour, max(SMALL, int(size * 0.5)), bold=True,
                fill=kit.ink_on(fill), anchor="mm", secondary=True)


@byte_cache(MB // 2)
def _back_image(w: int, h: int, bg: RGB) -> Image.Image:
    image = Image.new("RGB", (w, h), BACK)
    draw = ImageDraw.Draw(image)
    step = 14
    for off in range(-h, w, step):
        a = (4 + max(0, off), 4 + max(0, -off))
        length = min(w - 4 - a[0], h - 4 - a[1])
        if length > 0:
            draw.line((a, (a[0] + length, a[1] + length)), fill=BACK_LINE, width=3)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), 10, fill=255)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), 10, outline=INK, width=2)
    return Image.composite(image, Image.new("RGB", (w, h), bg), mask)


def _card_back(canvas: Canvas, box: Box, small: bool = False, bg: RGB = PANEL) -> None:
    """The back of a face-down item: it never shows what is on the other side."""
    x0, y0, x1, y1 = box
    canvas.image.paste(_back_image(x1 - x0, y1 - y0, bg), (x0, y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    size = TEXT if small else 40
    canvas.label((cx, cy), "?", size, fg=INK, bg=PANEL, anchor="mm", pad=size // 3)
    if not small and y1 - y0 > 110:
        canvas.label((cx, y1 - 12), _("face down"), SMALL, fg=WHITE, bg=BACK, anchor="mb",
                     secondary=True)


def _mini_tile(canvas: Canvas, rows: Sequence[str], xy: tuple[int, int], size: int,
               rotation: int = 0) -> Box:
    """A 2x2 tile drawn with ``size`` px spaces, turned clockwise by ``rotation``."""
    a, b, c, d = rows[0][0], rows[0][1], rows[1][0], rows[1][1]
    for _turn in range((rotation // 90) % 4):
        a, b, c, d = c, a, d, b
    x, y = xy
    for code, (dx, dy) in zip((a, b, c, d), ((0, 0), (1, 0), (0, 1), (1, 1)), strict=True):
        canvas.image.paste(_space_image(code, size), (x + dx * size, y + dy * size))
    canvas.draw.rectangle((x, y, x + 2 * size - 1, y + 2 * size - 1), outline=INK, width=2)
    return x, y, x + 2 * size, y + 2 * size
