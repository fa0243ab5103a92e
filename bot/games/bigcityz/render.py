"""Pictures of a Big Cityz game, drawn from the engine's public view only.

``render_table`` is the board everyone looks at between moves: the four statement boards
in their slots around the middle (slot 1 top left, then clockwise), the two risk fields
between each pair of neighbouring boards, the city to place in the middle, whose turn it
is, the objection window when it is open, and the scores with the veto markers left.
``render_reveal`` is the back of the card just turned over: every fact beside its symbol,
the statements that were checked, and who won or lost points. ``render_extras`` adds a
reveal picture for each reveal event and the final standings when the game ends.

The table never knows more than the city's *name*: the view carries nothing else about
the card in play, and nothing here looks a city up. Only ``last_reveal`` (a card already
turned over, so public) carries facts, and only the reveal picture draws them.

The table and the standings are 1200 px wide, the reveal (one column of facts) 800 px.
Discord shows images about 360 px wide on a phone, so what a player reads to choose a
move is at least 1/40 of the width and captions, statements' full wording and cities on
squares already taken (no longer a choice) at least 1/60 (docs/pictures.md). Nothing is
told by colour alone: green squares carry a ✓ and "if true", red ones a ✗ and "if
false", players a marker shape.

Cost (target: 25 ms for render and encode on a small shared host): the table is put
together from tiles already mapped onto the PNG palette: each board, each pair of risk
fields and the city in the middle are drawn and quantized once per content and cached,
so a move redraws only what it changed plus the header and the scores; symbols are
cached masks. The reveal draws over a cached card with every symbol and title on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.render import kit
from bot.render.cache import KB, MB, byte_cache
from bot.render.kit import (
    BAD,
    GOOD,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    PANEL_ALT,
    PAPER,
    RGB,
    RULE,
    WHITE,
    Box,
    Canvas,
)

View = dict[str, Any]

WIDTH = 1200
MARGIN = 24
TEXT = kit.least_text(WIDTH)  # 30: what a player reads to choose a move
SMALL = kit.least_text(WIDTH, secondary=True)  # 20: captions, statements, records
GAP = 12
WINNING_SCORE = 36  # "The game is over once a player has at least 36 points"

# -- colours -----------------------------------------------------------------------------

GOOD_TINT: RGB = kit.blend(GOOD, PANEL, 0.86)  # a free green square
BAD_TINT: RGB = kit.blend(BAD, PANEL, 0.86)  # a free red square
CENTRE_BG: RGB = (250, 246, 226)  # the wind rose in the middle of the board

PALETTE = kit.KIT_PALETTE.extended(
    (GOOD_TINT, BAD_TINT, CENTRE_BG),
    pairs=[(INK, GOOD_TINT), (INK, BAD_TINT), (MUTED, GOOD_TINT), (MUTED, BAD_TINT),
           (GOOD, GOOD_TINT), (BAD, BAD_TINT), (GOOD, PANEL), (BAD, PANEL), (INK, CENTRE_BG),
           (MUTED, CENTRE_BG), (GOOD, HIGHLIGHT), (BAD, HIGHLIGHT), (MUTED, HIGHLIGHT),
           (RULE, PANEL), (GOOD, PANEL_ALT), (BAD, PANEL_ALT)],
)

# -- statements ----------------------------------------------------------------------------

SHORT_NAMES: dict[str, str] = {
    "population": "Population",
    "founded": "Founded",
    "area": "Area",
    "elevation": "Elevation",
    "airport": "Airport",
    "timezones": "Time zones",
    "temperature": "Temperature",
    "coast": "Coast",
    "south": "South",
    "left_traffic": "Left traffic",
    "eurasia": "Europe/Asia",
    "capital": "Capital",
}

SYMBOLS: dict[str, str] = {
    "population": "people",
    "founded": "castle",
    "area": "ruler",
    "elevation": "mountain",
    "airport": "plane",
    "timezones": "clock",
    "temperature": "thermometer",
    "coast": "wave",
    "south": "south",
    "left_traffic": "car-left",
    "eurasia": "globe",
    "capital": "crown",
}

FACT_ORDER = tuple(SYMBOLS)

# What each fact on the back of a card is about, beside its symbol.
FACT_TITLES: dict[str, str] = {
    "population": "Population of 1 million or more",
    "founded": "Founded before 1700",
    "area": "Area greater than 310 km²",
    "elevation": "Higher than 708 m",
    "airport": "International airport",
    "timezones": "5 or more time zones from Berlin",
    "temperature": "Mean temp. 11 °C or higher",
    "coast": "On the ocean coast",
    "south": "South of the equator",
    "left_traffic": "Traffic drives on the left",
    "eurasia": "In Europe or Asia",
    "capital": "Capital of its country",
}


def short_name(statement: str) -> str:
    return SHORT_NAMES.get(statement, statement.replace("_", " ").capitalize())


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
    c.image.paste(fill, (x, y), symbol_mask(name, size))
    return x, y, x + size, y + size


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


# -- who is who --------------------------------------------------------------------------


class Cast:
    """Each player's style and a drawable name, in seat order."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.index = {p: i for i, p in enumerate(self.players)}

    def style(self, player: str) -> kit.PlayerStyle:
        return kit.player_style(self.index.get(player, 0))

    def fallback(self, player: str) -> str:
        return f"Player {self.index.get(player, 0) + 1}"

    def chip(self, player: str) -> tuple[str, Any]:
        return ("chip", (player, self.style(player), self.fallback(player)))


def inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
           max_x: int, *, fill: RGB = INK) -> float:
    """A sentence of text and player chips on one line; returns the end x.

    ``parts`` are ("text", str), ("bold", str) or ("chip", (name, style, fallback)).
    Words show whole where they can; chips share the room that is left.
    """
    fixed = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = [v for k, v in parts if k == "chip"]
    room = int(max_x - x - fixed - 8 * len(chips))
    widths = iter(kit.share_width([kit.chip_width(n, size, True, f) for n, _s, f in chips],
                                  room, least=size * 3))
    for kind, value in parts:
        if kind == "chip":
            name, style, fallback = value
            box = c.chip((x + 2, y), name, style, size, anchor="lm", max_width=next(widths),
                         fallback=fallback)
            x = box[2] + 6
        else:
            box = c.text((x, y), value, size, bold=kind == "bold", anchor="lm", fill=fill,
                         max_width=max(size, int(max_x - x)))
            x = box[2]
    return x


def _people(cast: Cast, players: Sequence[str], joiner: str = " ") -> list[tuple[str, Any]]:
    parts: list[tuple[str, Any]] = []
    for i, p in enumerate(players):
        if i and joiner.strip():
            parts.append(("text", joiner))
        parts.append(cast.chip(p))
    return parts


def _winners_parts(winners: Sequence[str], cast: Cast) -> list[tuple[str, Any]]:
    if len(winners) > 3:  # too many names for one line: the scores below show who
        return [("bold", f"Game over: {len(winners)} players share the win")]
    parts: list[tuple[str, Any]] = [("bold", "Game over: ")]
    for i, w in enumerate(winners):
        if i:
            parts.append(("bold", "& " if i == len(winners) - 1 else ", "))
        parts.append(cast.chip(w))
    parts.append(("bold", "wins" if len(winners) == 1 else "share the win"))
    return parts


def _city_name(ref: Any) -> str | None:
    """A city reference in a view ({"id", "name"}) or a bare name, as its name."""
    if ref is None:
        return None
    if isinstance(ref, dict):
        name = ref.get("name") or ref.get("id")
        return None if name is None else str(name)
    return str(ref)


# -- table geometry ----------------------------------------------------------------------

BW = 400  # a statement board's width
MW = WIDTH - 2 * MARGIN - 2 * BW - 2 * GAP  # the middle column
HEADER_H = 118
GRID_Y = HEADER_H
BOARD_HEAD = 142  # number and name, symbol and statement, and room for a tag under them
SQUARE_H = 48
SQUARE_GAP = 6
HB = BOARD_HEAD + 4 * SQUARE_H + 3 * SQUARE_GAP + 10  # a board's height
HM = 188  # the middle row: side risk fields and the city
ROW_B = GRID_Y + HB + GAP
ROW_C = ROW_B + HM + GAP
GRID_BOTTOM = ROW_C + HB
COL_M = MARGIN + BW + GAP
COL_R = COL_M + MW + GAP
BADGE_W = 84
BOTTOM_Y = GRID_BOTTOM  # the info line and the scores are drawn below this, every time
INFO_Y = 30  # from BOTTOM_Y
SCORE_Y = 60  # from BOTTOM_Y
SCORE_ROW = 54

BOARD_XY: dict[int, tuple[int, int]] = {
    1: (MARGIN, GRID_Y),
    2: (COL_R, GRID_Y),
    3: (COL_R, ROW_C),
    4: (MARGIN, ROW_C),
}
# Where the two risk fields between neighbouring boards lie: between 1 and 2 above the
# city, 3 and 4 below it, 2 and 3 to its right, 4 and 1 to its left.
RISK_AREAS: dict[str, Box] = {
    "1-2": (COL_M, GRID_Y, COL_M + MW, GRID_Y + HB),
    "2-3": (COL_R, ROW_B, COL_R + BW, ROW_B + HM),
    "3-4": (COL_M, ROW_C, COL_M + MW, ROW_C + HB),
    "4-1": (MARGIN, ROW_B, MARGIN + BW, ROW_B + HM),
}
CENTRE: Box = (COL_M, ROW_B, COL_M + MW, ROW_B + HM)


def _score_rows(players: int) -> int:
    return (players + 1) // 2 if players > 2 else 1


def _bottom_height(players: int) -> int:
    return SCORE_Y + 52 + _score_rows(players) * SCORE_ROW + 8 + MARGIN


def _table_height(players: int) -> int:
    return BOTTOM_Y + _bottom_height(players)


def _quantized(c: Canvas) -> Image.Image:
    """A tile mapped onto the table's palette, ready to paste into the paletted table.

    Pixels map one by one (no dithering), so a tile pasted into the table gives exactly
    the picture that quantizing the whole table at once would give, at a fraction of the
    cost: a tile that did not change since the last move is not drawn again at all.
    """
    return c.image.quantize(palette=PALETTE.image, dither=Image.Dither.NONE)


# -- one statement board ----------------------------------------------------------------


def _square_boxes() -> list[Box]:
    top = BOARD_HEAD
    return [(10, top + i * (SQUARE_H + SQUARE_GAP), BW - 10, top + i * (SQUARE_H + SQUARE_GAP)
             + SQUARE_H) for i in range(4)]


def _badge(c: Canvas, box: Box, colour: str, points: str, size: int = TEXT) -> None:
    """A point square's coloured badge: ✓ or ✗ and the points, white on green or red."""
    fill = GOOD if colour == "green" else BAD
    c.panel(box, fill, radius=10)
    mark = "✓" if colour == "green" else "✗"
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    c.text((cx, cy + 1), f"{mark} {points}", size, bold=True, fill=WHITE, anchor="mm")


def _square(c: Canvas, box: Box, colour: str, points: int, city: str | None,
            highlight: bool = False) -> None:
    """One point square: badge, then the city on it or what it asks for."""
    x0, y0, x1, y1 = box
    free_bg = GOOD_TINT if colour == "green" else BAD_TINT
    edge = GOOD if colour == "green" else BAD
    bg = HIGHLIGHT if highlight else (PANEL if city else free_bg)
    c.panel((x0, y0, x1 - 1, y1 - 1), bg, radius=10, outline=INK if highlight else edge,
            width=3 if highlight else 2)
    _badge(c, (x0 + 4, y0 + 4, x0 + BADGE_W, y1 - 5), colour, str(points))
    text_x = x0 + BADGE_W + 14
    room = x1 - text_x - 10
    cy = (y0 + y1) / 2
    if city:
        draw_fitted(c, (text_x, cy), city, room, align="l", secondary=True)
    else:
        word = "if TRUE" if colour == "green" else "if FALSE"
        c.text((text_x, cy), f"free · {word}", SMALL + 2, fill=MUTED, anchor="lm",
               secondary=True)


Square = tuple[str, int, str | None, bool]  # colour, points, city on it, just placed


@byte_cache(3 * MB)  # ~20 boards of ~130 KB; a table shows four
def _board_tile(slot: int, statement: str, text: str, symbol: str,
                squares: tuple[Square, ...], tag: str | None) -> Image.Image:
    """A statement board: slot number, symbol, statement, its point squares."""
    c = Canvas.new(BW, HB, PAPER)
    new = tag == "NEW"
    c.panel((0, 0, BW - 1, HB - 1), PANEL, radius=16, outline=INK if new else RULE,
            width=4 if new else 2)
    # Top row: the slot number, the board's short name (the buttons use it) and a tag.
    c.panel((10, 10, 48, 48), INK, radius=8)
    c.text((29, 30), str(slot), TEXT, bold=True, fill=WHITE, anchor="mm")
    name = short_name(statement)
    name_w = kit.text_width(name, TEXT, True)
    sym_top = 62  # the symbol row sits in the middle of the head, or above the tag
    if tag:
        # "replaceable", or "NEW" on the board just turned over, where the card must go:
        # beside the name where both fit, else under the statement.
        tag_w = kit.text_width(tag, SMALL, True) + 12
        beside = 58 + name_w + 12 + tag_w <= BW - 10
        at = (BW - 10, 14) if beside else (BW - 10, BOARD_HEAD - 34)
        c.label(at, tag, SMALL, fg=INK, bg=HIGHLIGHT if new else PANEL_ALT, anchor="rt",
                outline=INK if new else RULE, secondary=True, pad=6)
        sym_top = 62 if beside else 52
    draw_fitted(c, (58, 30), name, BW - 70, ((TEXT, 1),), align="l")
    # Then the symbol and the whole statement beside it.
    c.panel((12, sym_top, 66, sym_top + 54), PANEL_ALT, radius=10)
    draw_symbol(c, (17, sym_top + 5), symbol, 44)
    room = BW - 78 - 12
    # The statement's full wording: the rules text of the board its short name stands for.
    lines = wrap(text, 22, False, room)
    size, step = 22, 26
    if len(lines) > 2:
        lines, size, step = wrap(text, SMALL, False, room)[:3], SMALL, 21
    top = sym_top + 29 - step * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        c.text((78, top + i * step), line, size, anchor="lm", max_width=room, secondary=True)
    for box, (colour, points, city, hit) in zip(_square_boxes(), squares, strict=False):
        _square(c, box, colour, points, city, hit)
    return _quantized(c)


def _board_key(board: View, placed: View | None, replaced: int | None
               ) -> tuple[int, str, str, str, tuple[Square, ...], str | None]:
    slot = int(board.get("slot", 1))
    statement = str(board.get("statement", ""))
    squares: list[Square] = []
    for sq in board.get("squares") or []:
        colour, points = str(sq.get("color")), int(sq.get("points", 0))
        hit = bool(placed and placed.get("kind") == "square" and placed.get("slot") == slot
                   and placed.get("color") == colour and placed.get("points") == points)
        squares.append((colour, points, _city_name(sq.get("city")), hit))
    tag = None
    if replaced == slot:
        tag = "NEW"
    elif board.get("replaceable"):
        tag = "replaceable"
    symbol = str(board.get("symbol") or SYMBOLS.get(statement, ""))
    text = str(board.get("text") or short_name(statement))
    return slot, statement, text, symbol, tuple(squares), tag


# -- risk fields -------------------------------------------------------------------------


def _risk_field(c: Canvas, box: Box, colour: str, slots: tuple[int, int], city: str | None,
                highlight: bool, tall: bool) -> None:
    x0, y0, x1, y1 = box
    edge = GOOD if colour == "green" else BAD
    bg = HIGHLIGHT if highlight else (PANEL if city else (GOOD_TINT if colour == "green"
                                                          else BAD_TINT))
    c.panel((x0, y0, x1 - 1, y1 - 1), bg, radius=12, outline=INK if highlight else edge,
            width=3 if highlight else 2)
    word = "TRUE" if colour == "green" else "FALSE"
    mark = "✓✓" if colour == "green" else "✗✗"
    a, b = slots
    if tall:
        badge = (x0 + 6, y0 + 6, x0 + 114, y0 + 52)
        c.panel(badge, edge, radius=10)
        c.text(((badge[0] + badge[2]) / 2, (badge[1] + badge[3]) / 2 + 1), f"{mark} 8", TEXT,
               bold=True, fill=WHITE, anchor="mm")
        c.text((badge[2] + 10, y0 + 21), f"both {word}", TEXT, bold=True, anchor="lm",
               max_width=x1 - badge[2] - 14)
        c.text((badge[2] + 10, y0 + 49), "−2 if wrong", SMALL + 2, fill=MUTED, anchor="lm",
               secondary=True)
        cy = (y0 + 62 + y1) / 2
        if city:
            draw_fitted(c, ((x0 + x1) / 2, cy), city, x1 - x0 - 20,
                        ((TEXT, 1), (26, 1), (24, 1), (24, 2), (22, 2)), secondary=True)
        else:
            c.text(((x0 + x1) / 2, cy), "free", SMALL + 2, fill=MUTED, anchor="mm",
                   secondary=True)
    else:
        badge = (x0 + 5, y0 + 5, x0 + 5 + BADGE_W + 12, y1 - 6)
        c.panel(badge, edge, radius=10)
        c.text(((badge[0] + badge[2]) / 2, (badge[1] + badge[3]) / 2 + 1), f"{mark} 8", TEXT,
               bold=True, fill=WHITE, anchor="mm")
        tx = badge[2] + 12
        cy = (y0 + y1) / 2
        if city:
            draw_fitted(c, (tx, cy), city, x1 - tx - 10, align="l", secondary=True)
        else:
            c.text((tx, cy - 14), f"both {word}", TEXT, bold=True, anchor="lm",
                   max_width=x1 - tx - 8)
            c.text((tx, cy + 18), f"boards {a} & {b} · −2 if wrong", SMALL,
                   fill=MUTED, anchor="lm", max_width=x1 - tx - 8, secondary=True)


RiskKey = tuple[str | None, str | None, str | None]  # green city, red city, colour just placed


@byte_cache(1 * MB)
def _risk_tile(risk: str, key: RiskKey) -> Image.Image:
    """The green and red risk fields between two neighbouring boards."""
    x0, y0, x1, y1 = RISK_AREAS[risk]
    w, h = x1 - x0, y1 - y0
    c = Canvas.new(w, h, PAPER)
    first, second = (int(v) for v in risk.split("-"))
    green, red, hit = key
    if risk in ("1-2", "3-4"):
        # Above and below the city the boards lie left and right of the fields.
        left, right = (first, second) if risk == "1-2" else (second, first)
        c.text((w / 2, 18), f"◀ {left}   risk fields   {right} ▶", SMALL + 2, bold=True,
               fill=MUTED, anchor="mm", secondary=True)
        top = 40
        fh = (h - top - 10) // 2
        boxes = ((0, top, w, top + fh), (0, top + fh + 10, w, h))
        tall = True
    else:
        fh = (h - 8) // 2
        boxes = ((0, 0, w, fh), (0, fh + 8, w, h))
        tall = False
    _risk_field(c, boxes[0], "green", (first, second), green, hit == "green", tall)
    _risk_field(c, boxes[1], "red", (first, second), red, hit == "red", tall)
    return _quantized(c)


def _risk_keys(view: View, placed: View | None) -> dict[str, RiskKey]:
    cities: dict[str, dict[str, str | None]] = {risk: {} for risk in RISK_AREAS}
    for field in view.get("risk_fields") or []:
        risk = str(field.get("id", ""))
        if risk in cities:
            cities[risk][str(field.get("color"))] = _city_name(field.get("city"))
    keys: dict[str, RiskKey] = {}
    for risk, got in cities.items():
        hit = None
        if placed and placed.get("kind") == "risk" and placed.get("risk") == risk:
            hit = str(placed.get("color"))
        keys[risk] = (got.get("green"), got.get("red"), hit)
    return keys


# -- the city in the middle --------------------------------------------------------------


CentreKey = tuple[str, str, str, tuple[tuple[str, int, str], ...], int]  # see _centre_tile


@byte_cache(1 * MB)
def _centre_tile(mode: str, city: str, label: str, people: tuple[tuple[str, int, str], ...],
                 seconds: int) -> Image.Image:
    """The middle of the board: the city to place ("place"), the city placed and waiting
    for objections ("veto"), or who won ("over"). ``people`` are (name, seat, fallback)."""
    c = Canvas.new(MW, HM, PAPER)
    c.panel((0, 0, MW - 1, HM - 1), CENTRE_BG, radius=18, outline=INK, width=3)
    cx = MW / 2
    room = MW - 28
    if mode == "over":
        c.text((cx, 42), "Game over", 34, bold=True, anchor="mm")
        y = 88
        for name, seat, fallback in people[:2]:
            c.chip((cx, y), name, kit.player_style(seat), TEXT, anchor="mm", max_width=room,
                   fallback=fallback)
            y += 48
        more = len(people) - 2
        c.text((cx, y - 4), ("wins" if len(people) == 1 else "share the win") if more <= 0
               else f"and {more} more share the win", SMALL + 2, fill=MUTED, anchor="mm",
               secondary=True)
        return _quantized(c)
    if mode == "veto":
        c.text((cx, 22), "Objection?", SMALL + 4, bold=True, fill=MUTED, anchor="mm",
               secondary=True)
        draw_fitted(c, (cx, 74), city, room, ((40, 1), (36, 1), (32, 1), (32, 2), (TEXT, 2)))
        c.text((cx, HM - 52), label, TEXT, bold=True, anchor="mm", max_width=room)
        if seconds:
            c.text((cx, HM - 18), f"window closes after {seconds} s", SMALL, fill=MUTED,
                   anchor="mm", max_width=room, secondary=True)
        return _quantized(c)
    c.text((cx, 20), "Where does", SMALL + 2, fill=MUTED, anchor="mm", secondary=True)
    draw_fitted(c, (cx, 66), city, room,
                ((44, 1), (40, 1), (36, 1), (32, 1), (32, 2), (TEXT, 2)))
    c.text((cx, 110), "go?", SMALL + 2, fill=MUTED, anchor="mm", secondary=True)
    for name, seat, fallback in people[:1]:
        c.chip((cx, HM - 30), name, kit.player_style(seat), TEXT, anchor="mm", max_width=room,
               fallback=fallback)
    return _quantized(c)


def _centre_key(view: View, cast: Cast) -> CentreKey:
    phase = view.get("phase")
    city = _city_name(view.get("city"))

    def who(players: Sequence[str]) -> tuple[tuple[str, int, str], ...]:
        return tuple((p, cast.index.get(p, 0), cast.fallback(p)) for p in players)

    if phase == "over" or city is None:
        return "over", "", "", who(list(view.get("winners") or _leaders(view))), 0
    if phase == "veto":
        label = _placement_label(view.get("placement") or {}, board=False)
        return "veto", city, label, (), int(view.get("veto_seconds") or 0)
    turn = view.get("turn")
    return "place", city, "", who([turn] if turn else []), 0


def _placement_label(placement: View, board: bool = True) -> str:
    """Where a card was put, in words that read after "on": "Coast ✓ 4 (board 2)"."""
    kind = placement.get("kind")
    if kind == "square":
        mark = "✓" if placement.get("color") == "green" else "✗"
        where = f" (board {placement.get('slot')})" if board else ""
        return f"{short_name(str(placement.get('statement')))} {mark} {placement.get('points')}{where}"
    if kind == "risk":
        mark = "✓✓" if placement.get("color") == "green" else "✗✗"
        a, b = str(placement.get("risk", "?-?")).split("-")
        word = "TRUE" if placement.get("color") == "green" else "FALSE"
        return f"risk {a}–{b} {mark} both {word}"
    if kind == "no_free_square":
        return "“There's no free square”" if board else "beside the board"
    return str(placement.get("label", ""))


def _leaders(view: View) -> list[str]:
    scores = view.get("scores") or {}
    if not scores:
        return []
    best = max(int(v) for v in scores.values())
    return [p for p in view.get("players") or [] if int(scores.get(p, 0)) == best]


# -- header, info line and scores (drawn on every move) ---------------------------------


def _header(c: Canvas, view: View, cast: Cast) -> None:
    phase = view.get("phase")
    y, big, max_x = 38, 32, WIDTH - MARGIN
    city = _city_name(view.get("city")) or ""
    if phase == "over":
        inline(c, MARGIN, y, _winners_parts(list(view.get("winners") or _leaders(view)), cast),
               big, max_x)
    elif phase == "veto":
        placement = view.get("placement") or {}
        placer = str(placement.get("player") or view.get("turn") or "")
        if placement.get("kind") == "no_free_square":
            where = "beside the board: no free square"
        else:
            where = f"on {_placement_label(placement)}"
        inline(c, MARGIN, y, [cast.chip(placer), ("bold", f"put {city} "), ("text", where)],
               big if len(city) < 14 else TEXT, max_x)
    else:
        turn = view.get("turn")
        replaced = view.get("replaced_slot")
        tail = (f"must place {city} on new board {replaced}" if replaced
                else f"to place {city}")
        parts: list[tuple[str, Any]] = [cast.chip(turn)] if turn else []
        inline(c, MARGIN, y, [*parts, ("bold", tail)], big, max_x)
    _subline(c, view, cast, 88)


def _subline(c: Canvas, view: View, cast: Cast, y: int) -> None:
    """Under the headline: the objection window while it is open, else the last reveal."""
    window = view.get("veto_window")
    max_x = WIDTH - MARGIN
    if view.get("phase") == "veto" and window:
        waiting = list(window.get("waiting") or [])
        objectors = list(window.get("objectors") or [])
        declined = list(window.get("declined") or [])
        parts: list[tuple[str, Any]] = []
        if waiting:
            parts += [("bold", "May object: "), *_people(cast, waiting)]
        if objectors:
            parts += [("bold", "  Objected: " if parts else "Objected: "),
                      *_people(cast, objectors)]
        if declined:
            parts += [("text", "  no objection: " if parts else "No objection: "),
                      *_people(cast, declined)]
        inline(c, MARGIN, y, parts, TEXT, max_x)
        return
    last = view.get("last_reveal")
    if not last:
        c.text((MARGIN, y), "No city has been revealed yet.", SMALL + 4, fill=MUTED,
               anchor="lm", secondary=True)
        return
    city = _city_name(last.get("city")) or "?"
    placer = str(last.get("player", ""))
    right = bool(last.get("right"))
    gain = int((last.get("points") or {}).get(placer, 0))
    verdict = f"✓ right {signed(gain)}" if right else f"✗ wrong {signed(gain)}"
    placement = last.get("placement") or {}
    if placement.get("kind") == "no_free_square":
        # The city was not put anywhere: the player made a claim about it.
        parts = [("text", "Last: "), cast.chip(placer), ("text", "said there's no free square for "),
                 ("bold", city), ("text", ": "), ("bold", verdict)]
    else:
        parts = [("text", "Last: "), cast.chip(placer), ("bold", f"put {city} "),
                 ("text", f"on {_placement_label(placement, board=False)}: "),
                 ("bold", verdict)]
    objectors = list(last.get("objectors") or [])
    if objectors:
        parts.append(("text", f" · {len(objectors)} objected"))
    inline(c, MARGIN, y, parts, TEXT, max_x)


def _info(c: Canvas, view: View, cast: Cast, y: int) -> None:
    """One quiet line: round, piles, and what lies off the board."""
    bits = [f"Round {view.get('round', 1)}"]
    piles = view.get("piles") or {}
    if "cities" in piles:
        bits.append(f"{piles['cities']} cities in the pile")
    if "statements" in piles:
        discard = [short_name(s) for s in piles.get("statement_discard") or []]
        out = ""
        if len(discard) > 2:
            out = f", {len(discard)} discarded"
        elif discard:
            out = f", discarded: {' and '.join(discard)}"
        bits.append(f"{piles['statements']} boards in the pile{out}")
    beside = [n for n in (_city_name(r) for r in view.get("beside_board") or []) if n]
    if beside:
        bits.append("beside the board: " + ", ".join(beside))
    c.text((MARGIN, y), " · ".join(bits), SMALL + 2, fill=MUTED, anchor="lm",
           max_width=WIDTH - 2 * MARGIN, secondary=True)


def _veto_tokens(c: Canvas, x: float, y: float, left: int, style: kit.PlayerStyle) -> None:
    """Two veto markers leftwards from ``x``: the player's colour while unspent, a grey
    disc with a ✗ once spent."""
    for i in range(2):
        cx = x - 16 - i * 36
        if i < left:
            c.swatch((cx, y), style, 30)
        else:
            c.draw.ellipse((cx - 14, y - 14, cx + 14, y + 14), fill=PANEL_ALT, outline=MUTED,
                           width=2)
            c.text((cx, y + 1), "✗", SMALL, bold=True, fill=MUTED, anchor="mm",
                   secondary=True)


def _scores(c: Canvas, view: View, cast: Cast, top: int) -> None:
    scores = view.get("scores") or {}
    vetoes = view.get("vetoes_left") or {}
    over = view.get("phase") == "over"
    turn = None if over else view.get("turn")
    winners = set(view.get("winners") or _leaders(view)) if over else set()
    n = len(cast.players)
    rows = _score_rows(n)
    c.panel((MARGIN, top, WIDTH - MARGIN - 1, top + 52 + rows * SCORE_ROW + 8), PANEL,
            radius=16)
    title = c.text((MARGIN + 16, top + 28), "Scores", TEXT, bold=True, anchor="lm")
    if view.get("end_triggered") and not over:
        players = cast.players
        first = view.get("first_player") or (players[0] if players else "")
        last = players[(players.index(first) - 1) % len(players)] if first in players else ""
        box = c.label((title[2] + 14, top + 28), f"{WINNING_SCORE} reached: last round",
                      SMALL + 2, fg=INK, bg=HIGHLIGHT, anchor="lm", outline=INK,
                      secondary=True)
        c.text((box[2] + 10, top + 28),
               f"ends after {kit.prepare(last, 22, False, 200, cast.fallback(last))}'s turn",
               SMALL + 2, fill=MUTED, anchor="lm", secondary=True)
    else:
        c.text((title[2] + 14, top + 28), f"first to {WINNING_SCORE} ends the game",
               SMALL + 2, fill=MUTED, anchor="lm", secondary=True)
    c.text((WIDTH - MARGIN - 16, top + 28), "vetoes left", SMALL + 2, fill=MUTED, anchor="rm",
           secondary=True)
    columns = 1 if n <= 1 else 2
    col_w = (WIDTH - 2 * MARGIN - 32 - (columns - 1) * 24) // columns
    for i, p in enumerate(cast.players):
        col, row = (i // rows, i % rows) if columns == 2 else (0, i)
        x0 = MARGIN + 16 + col * (col_w + 24)
        cy = top + 52 + row * SCORE_ROW + SCORE_ROW / 2
        x1 = x0 + col_w
        style = cast.style(p)
        if p == turn or p in winners:
            c.panel((x0 - 8, round(cy - 25), x1 + 8, round(cy + 25)), HIGHLIGHT, radius=25,
                    outline=INK, width=2)
        score = int(scores.get(p, 0))
        chip_w = min(230, col_w - 330)
        star = 34 if p in winners else 0
        box = c.chip((x0, cy), p, style, TEXT, anchor="lm", max_width=chip_w - star,
                     fallback=cast.fallback(p))
        if star:
            c.text((box[2] + 4, cy), "★", TEXT, bold=True, anchor="lm")
        sx = x0 + chip_w + 62
        c.text((sx, cy), str(score), 30, bold=True, anchor="rm")
        bar0, bar1 = sx + 12, x1 - 90
        c.panel((bar0, round(cy - 9), bar1, round(cy + 9)), PANEL_ALT, radius=9,
                outline=RULE, width=1)
        if score > 0:
            filled = bar0 + (bar1 - bar0) * min(score, WINNING_SCORE) / WINNING_SCORE
            c.panel((bar0, round(cy - 9), max(bar0 + 18, round(filled)), round(cy + 9)),
                    style.colour, radius=9)
        _veto_tokens(c, x1, cy, int(vetoes.get(p, 0)), style)


@byte_cache(3 * MB)  # two paletted frames (~1.4 MB each); a miss costs ~3 ms
def _frame(players: int) -> Image.Image:
    """The paletted table with nothing on it (every part is pasted over it)."""
    return _quantized(Canvas.new(WIDTH, _table_height(players), PAPER))


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    image = _frame(len(cast.players)).copy()
    placed = view.get("placement") if view.get("phase") == "veto" else None
    replaced = view.get("replaced_slot")
    for board in view.get("slots") or []:
        key = _board_key(board, placed, replaced)
        image.paste(_board_tile(*key), BOARD_XY.get(key[0], BOARD_XY[1]))
    for risk, rkey in _risk_keys(view, placed).items():
        image.paste(_risk_tile(risk, rkey), RISK_AREAS[risk][:2])
    image.paste(_centre_tile(*_centre_key(view, cast)), CENTRE[:2])
    head = Canvas.new(WIDTH, HEADER_H, PAPER)
    _header(head, view, cast)
    image.paste(_quantized(head), (0, 0))
    bottom = Canvas.new(WIDTH, _bottom_height(len(cast.players)), PAPER)
    _info(bottom, view, cast, INFO_Y)
    _scores(bottom, view, cast, SCORE_Y)
    image.paste(_quantized(bottom), (0, BOTTOM_Y))
    return kit.encode_png(image)


# -- the reveal --------------------------------------------------------------------------


def _deg(value: float, pos: str, neg: str) -> str:
    return f"{abs(value):.1f}° {pos if value >= 0 else neg}"


def _offset(hours: float) -> str:
    sign = "+" if hours >= 0 else "−"
    whole = int(abs(hours))
    minutes = round((abs(hours) - whole) * 60)
    return f"UTC{sign}{whole}" + (f":{minutes:02d}" if minutes else "")


def _hours(h: float) -> str:
    return str(int(h)) if float(h).is_integer() else f"{h:g}"


def fact_text(statement: str, value: Any, card: View) -> str:
    """A fact's value as printed on the back of the card."""
    if value is None and statement != "airport":
        return "?"
    if statement == "population":
        return f"{int(value):,}".replace(",", " ")
    if statement == "founded":
        year = int(value)
        return f"{-year} BC" if year < 0 else str(year)
    if statement == "area":
        return f"{float(value):,.0f} km²".replace(",", " ")
    if statement == "elevation":
        return f"{int(value)} m"
    if statement == "airport":
        return str(value) if value else "none"
    if statement == "timezones":
        apart = abs(float(value) - 1)
        return f"{_hours(apart)} h apart ({_offset(float(value))})"
    if statement == "temperature":
        return f"{float(value):.1f} °C"
    if statement == "coast":
        return "on the coast" if value else "inland"
    if statement == "south":
        return _deg(float(value), "N", "S")
    if statement == "left_traffic":
        return f"drives on the {value}"
    if statement == "eurasia":
        return str(value)
    if statement == "capital":
        country = card.get("country")
        if value:
            return f"capital of {country}" if country else "capital"
        return "not the capital"
    return str(value)


# The reveal is one column of facts on a narrower picture, so on a phone its words are
# drawn larger than two columns at 1200 px could be (1/40 of 800 px is 20 px).
REVEAL_W = 800
REVEAL_HEAD = 164
CARD_TOP = REVEAL_HEAD
CARD_HEAD = 96
FACT_H = 70
FACTS = len(FACT_ORDER)
FACT_W = REVEAL_W - 2 * MARGIN - 2 * 16
POINTS_ROW = 48


def _reveal_height(players: int, extra: int) -> int:
    return CARD_BOTTOM + 16 + extra + 60 + players * POINTS_ROW + 16 + MARGIN


def _guess(placement: View) -> bool | None:
    """What the placement bet about each checked statement: True (green square or green
    risk field), False (red), or None ("There's no free square" bets on no statement)."""
    if placement.get("kind") in ("square", "risk"):
        return placement.get("color") == "green"
    return None


def _target_label(target: View, reveal: View) -> str:
    """A free square or risk field named the way the table shows it: "Coast ✓ 4"."""
    colour = target.get("color")
    if "risk" in target:
        a, b = str(target["risk"]).split("-")
        return f"risk {a}–{b} {'✓✓' if colour == 'green' else '✗✗'}"
    statement = None
    for ch in reveal.get("checked") or []:
        if ch.get("slot") == target.get("slot"):
            statement = ch.get("statement")
    name = short_name(str(statement)) if statement else f"board {target.get('slot')}"
    return f"{name} {'✓' if colour == 'green' else '✗'} {target.get('points')}"


def _reveal_header(c: Canvas, reveal: View, cast: Cast) -> None:
    placer = str(reveal.get("player", ""))
    right = bool(reveal.get("right"))
    city = _city_name(reveal.get("city")) or "?"
    placement = reveal.get("placement") or {}
    gain = int((reveal.get("points") or {}).get(placer, 0))
    verdict = "✓ RIGHT" if right else "✗ WRONG"
    colour = GOOD if right else BAD
    box = c.label((MARGIN, 40), f"{verdict} {signed(gain)}", 32, fg=WHITE, bg=colour,
                  anchor="lm")
    kind = placement.get("kind")
    if kind == "no_free_square":
        tail = "said “There's no free square”"
    else:
        tail = f"put it on {_placement_label(placement)}"
    inline(c, box[2] + 14, 40, [cast.chip(placer)], 28, REVEAL_W - MARGIN)
    c.text((MARGIN, 88), tail, 28, bold=True, anchor="lm", max_width=REVEAL_W - 2 * MARGIN)
    if kind == "square":
        guess = "TRUE" if placement.get("color") == "green" else "FALSE"
        st = short_name(str(placement.get("statement")))
        sub = f"The bet: board {placement.get('slot')}, {st}, is {guess} for {city}."
    elif kind == "risk":
        word = "TRUE" if placement.get("color") == "green" else "FALSE"
        a, b = str(placement.get("risk", "?-?")).split("-")
        sub = f"The bet: boards {a} and {b} are both {word} for {city} (8, or −2 if wrong)."
    elif kind == "no_free_square":
        sub = f"The bet: no free square or risk field is right for {city} (8, or −2 if wrong)."
    else:
        sub = str(placement.get("label", ""))
    c.text((MARGIN, 132), sub, SMALL, fill=MUTED, anchor="lm", secondary=True,
           max_width=REVEAL_W - 2 * MARGIN)


def _fact_frame(c: Canvas, box: Box, statement: str, checked: bool) -> None:
    """A fact row without its value: the panel, the symbol on its tile and the title."""
    x0, y0, x1, y1 = box
    c.panel((x0, y0, x1 - 1, y1 - 1), HIGHLIGHT if checked else PANEL, radius=12,
            outline=INK if checked else RULE, width=3 if checked else 1)
    cy = (y0 + y1) / 2
    tile = (x0 + 8, round(cy - 28), x0 + 64, round(cy + 28))
    c.panel(tile, PANEL if checked else PANEL_ALT, radius=10)
    draw_symbol(c, (tile[0] + 6, tile[1] + 6), SYMBOLS.get(statement, ""), 44)
    pill_w = kit.text_width("✗ FALSE", 22, True) + 2 * round(22 * 0.45)
    c.text((x0 + 76, cy - 15), FACT_TITLES.get(statement, short_name(statement)), 20,
           fill=INK if checked else MUTED, anchor="lm", max_width=x1 - 10 - pill_w - x0 - 86)


def _fact_row(c: Canvas, box: Box, statement: str, fact: View, card: View,
              slot: int | None, guess: bool | None) -> None:
    """One fact with TRUE or FALSE in words, over its frame; a statement that was checked
    (it lies in ``slot``) is highlighted, with what the bet said about it."""
    x0, y0, x1, y1 = box
    checked = slot is not None
    if checked:
        _fact_frame(c, box, statement, True)
        # The board it lies on, as numbered on the table.
        c.panel((x0 - 6, y0 - 6, x0 + 24, y0 + 24), INK, radius=15)
        c.text((x0 + 9, y0 + 10), str(slot), 20, bold=True, fill=WHITE, anchor="mm")
    cy = (y0 + y1) / 2
    tx = x0 + 76
    true = bool(fact.get("true"))
    betted = checked and guess is not None
    tag = _truth_tag(true, HIGHLIGHT if checked else PANEL)
    px, py = x1 - 10 - tag.width, round(cy - (14 if betted else 0) - tag.height / 2)
    c.image.paste(tag, (px, py))
    pill = (px, py, x1 - 10, py + tag.height)
    if betted:
        ok = guess == true
        c.text((x1 - 10, cy + 20), f"bet {'TRUE' if guess else 'FALSE'}: "
               f"{'✓ right' if ok else '✗ wrong'}", 20, bold=True, fill=INK, anchor="rm")
    room = pill[0] - tx - 10
    c.text((tx, cy + 15), fact_text(statement, fact.get("value"), card), 26, bold=True,
           anchor="lm", max_width=room if not betted else x1 - 230 - tx)


@byte_cache(128 * KB)
def _truth_tag(true: bool, background: RGB) -> Image.Image:
    """The "✓ TRUE" / "✗ FALSE" pill of a fact, drawn once and pasted."""
    word = "✓ TRUE" if true else "✗ FALSE"
    probe = Canvas.new(400, 60, background)
    box = probe.label((0, 0), word, 22, fg=WHITE, bg=GOOD if true else BAD, anchor="lt")
    return probe.image.crop((0, 0, box[2], box[3]))


def _fact_box(i: int) -> Box:
    x0 = MARGIN + 16
    y0 = CARD_TOP + CARD_HEAD + i * FACT_H
    return x0, y0, x0 + FACT_W, y0 + FACT_H - 8


def _points_frame(c: Canvas, players: int, box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    c.text((x0 + 16, y0 + 28), "Points", 26, bold=True, anchor="lm")
    c.text((x1 - 16, y0 + 28), "change · total", 22, fill=MUTED, anchor="rm")
    for i in range(0, players, 2):
        cy = y0 + 76 + i * POINTS_ROW
        c.draw.rectangle((x0 + 8, cy - 23, x1 - 8, cy + 23), fill=PAPER)


def _points_panel(c: Canvas, reveal: View, cast: Cast, box: Box) -> None:
    x0, y0, x1, _y1 = box
    placer = str(reveal.get("player", ""))
    right = bool(reveal.get("right"))
    points = reveal.get("points") or {}
    totals = reveal.get("scores") or {}
    objectors = list(reveal.get("objectors") or [])
    if objectors:
        note = ("objections unjustified: −3 each" if right
                else "objections justified: +3 each")
    else:
        note = "nobody objected"
    c.text((x0 + 116, y0 + 28), note, 22, fill=MUTED, anchor="lm")
    for i, p in enumerate(cast.players):
        cy = y0 + 76 + i * POINTS_ROW
        chip = c.chip((x0 + 16, cy), p, cast.style(p), 24, anchor="lm", max_width=320,
                      fallback=cast.fallback(p))
        delta = int(points.get(p, 0))
        if p == placer:
            role = "placed the city: " + ("right" if right else "wrong")
            due = _placer_due(reveal)
        elif p in objectors:
            role = "objected: " + ("not justified" if right else "justified")
            due = -3 if right else 3
        else:
            role, due = "", 0
        if due != delta:
            role += f" ({signed(due)}, but a score stays at 0 or more)"
        if role:
            c.text((chip[2] + 14, cy), role, 22, bold=p in objectors or p == placer,
                   anchor="lm", max_width=x1 - 220 - chip[2])
        colour = GOOD if delta > 0 else (BAD if delta < 0 else MUTED)
        c.text((x1 - 110, cy), signed(delta), 28, bold=delta != 0, fill=colour, anchor="rm")
        c.text((x1 - 16, cy), str(int(totals.get(p, 0))), 28, bold=True, anchor="rm")


def _placer_due(reveal: View) -> int:
    """The placer's points before "scores never go below 0" is applied."""
    placement = reveal.get("placement") or {}
    kind = placement.get("kind")
    if reveal.get("right"):
        return int(placement.get("points") or 0) if kind == "square" else 8
    return 0 if kind == "square" else -2


def _note_lines(reveal: View) -> tuple[str, ...]:
    """Under the card of a "There's no free square": what would have been right."""
    if (reveal.get("placement") or {}).get("kind") != "no_free_square":
        return ()
    free_right = list(reveal.get("free_squares_right") or [])
    if not free_right:
        return ("✓ None of the free squares or risk fields would have been right.",)
    spots = " · ".join(_target_label(t, reveal) for t in free_right)
    return wrap(f"✗ Would have been right: {spots}", 24, True, REVEAL_W - 2 * MARGIN - 32)


CARD_BOTTOM = CARD_TOP + CARD_HEAD + FACTS * FACT_H + 16


def _points_box(players: int, extra: int) -> Box:
    y = CARD_BOTTOM + 16 + extra
    return MARGIN, y, REVEAL_W - MARGIN - 1, y + 52 + players * POINTS_ROW + 8


@byte_cache(0)  # drawn each time: 4.5 MB to save ~2 ms once a round
def _reveal_base(players: int, extra: int) -> Image.Image:
    """What every card back shares: the card, each fact's symbol and title, the frame of
    the points table (RGB; each reveal is drawn over a copy)."""
    c = Canvas.new(REVEAL_W, _reveal_height(players, extra), PAPER)
    c.panel((MARGIN, CARD_TOP, REVEAL_W - MARGIN - 1, CARD_BOTTOM), PANEL_ALT, radius=18,
            outline=INK, width=2)
    for i, statement in enumerate(FACT_ORDER):
        _fact_frame(c, _fact_box(i), statement, False)
    _points_frame(c, players, _points_box(players, extra))
    return c.image


def _draw_reveal(reveal: View, players: Sequence[str]) -> Canvas:
    cast = Cast(players or list((reveal.get("points") or {}).keys()))
    card: View = reveal.get("city") or {}
    facts: View = card.get("facts") or {}
    placement = reveal.get("placement") or {}
    checked = {str(ch.get("statement")): ch for ch in reveal.get("checked") or []}
    note = _note_lines(reveal)
    extra = 24 + 32 * len(note) + 12 if note else 0
    n = len(cast.players)
    c = Canvas(_reveal_base(n, extra).copy())
    _reveal_header(c, reveal, cast)
    name = _city_name(card) or "?"
    c.text((MARGIN + 20, CARD_TOP + 36), name, 40, bold=True, anchor="lm",
           max_width=REVEAL_W - 2 * MARGIN - 40)
    where = [str(card[k]) for k in ("country", "continent") if card.get(k)]
    lat, lon = card.get("latitude"), card.get("longitude")
    if isinstance(lat, int | float) and isinstance(lon, int | float):
        where.append(f"{_deg(float(lat), 'N', 'S')}, {_deg(float(lon), 'E', 'W')}")
    c.text((MARGIN + 20, CARD_TOP + 76), " · ".join(where), 24, fill=MUTED, anchor="lm",
           max_width=REVEAL_W - 2 * MARGIN - 40)
    guess = _guess(placement)
    for i, statement in enumerate(FACT_ORDER):
        if statement not in facts:
            continue
        slot = checked[statement].get("slot") if statement in checked else None
        _fact_row(c, _fact_box(i), statement, facts[statement] or {}, card,
                  None if slot is None else int(slot), guess)
    if note:
        good = bool(reveal.get("right"))
        y = CARD_BOTTOM + 16
        c.panel((MARGIN, y, REVEAL_W - MARGIN - 1, y + extra - 12), PANEL, radius=14,
                outline=GOOD if good else BAD, width=2)
        for i, line in enumerate(note):
            c.text((MARGIN + 16, y + 28 + 32 * i), line, 24, bold=True,
                   fill=GOOD if good else BAD, anchor="lm",
                   max_width=REVEAL_W - 2 * MARGIN - 32)
    _points_panel(c, reveal, cast, _points_box(n, extra))
    return c


def render_reveal(view: View) -> bytes:
    """The back of the card revealed last (``view["last_reveal"]``), as PNG bytes."""
    reveal = view.get("last_reveal")
    players = list(view.get("players") or [])
    if not reveal:
        c = Canvas.new(REVEAL_W, 160, PAPER)
        c.text((MARGIN, 56), "No city has been revealed yet", 34, bold=True, anchor="lm",
               max_width=REVEAL_W - 2 * MARGIN)
        c.text((MARGIN, 110), f"Round {view.get('round', 1)} is in play", 24, fill=MUTED,
               anchor="lm")
        return c.png(PALETTE)
    return _draw_reveal(reveal, players).png(PALETTE)


# -- the end -----------------------------------------------------------------------------


def render_final(view: View, reason: str | None = None) -> bytes:
    """The final standings, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    scores = view.get("scores") or {}
    winners = list(view.get("winners") or _leaders(view))
    vetoes = view.get("vetoes_left") or {}
    turns = view.get("turns") or {}
    n = len(cast.players)
    # Room under the standings for the goal's label, kept apart from the header row's
    # "vetoes unused": side by side they read as "36 vetoes unused".
    c = Canvas.new(WIDTH, 140 + 70 + n * 64 + 44 + MARGIN, PAPER)
    inline(c, MARGIN, 44, _winners_parts(winners, cast), 34, WIDTH - MARGIN)
    played = max([int(v) for v in turns.values()] + [0])
    why = ("someone reached 36 and the round was finished" if reason != "cities"
           else "the city pile could not give everyone another turn")
    c.text((MARGIN, 98), f"{played} turns each · the game ended because {why}", SMALL + 4,
           fill=MUTED, anchor="lm", max_width=WIDTH - 2 * MARGIN, secondary=True)
    top = 140
    c.panel((MARGIN, top, WIDTH - MARGIN - 1, top + 60 + n * 64), PANEL, radius=16)
    c.text((MARGIN + 16, top + 30), "Final standings", TEXT, bold=True, anchor="lm")
    c.text((WIDTH - MARGIN - 16, top + 30), "vetoes unused", SMALL + 2, fill=MUTED, anchor="rm",
           secondary=True)
    bar0, bar1 = MARGIN + 630, WIDTH - MARGIN - 120
    goal_x = bar0 + (bar1 - bar0) * WINNING_SCORE / 48
    goal_y = top + 60 + n * 64 + 26
    c.text((goal_x, goal_y), "↑", 26, bold=True, fill=MUTED, anchor="mm", secondary=True)
    c.text((goal_x - 16, goal_y), f"{WINNING_SCORE} points end the game", SMALL + 2, bold=True,
           fill=MUTED, anchor="rm", secondary=True)
    order = sorted(cast.players, key=lambda p: (-int(scores.get(p, 0)), cast.index[p]))
    rank = 0
    last_score: int | None = None
    for i, p in enumerate(order):
        score = int(scores.get(p, 0))
        if score != last_score:
            rank, last_score = i + 1, score
        cy = top + 92 + i * 64
        if p in winners:
            c.panel((MARGIN + 8, cy - 28, WIDTH - MARGIN - 9, cy + 28), HIGHLIGHT, radius=28,
                    outline=INK, width=2)
        c.text((MARGIN + 48, cy), f"{rank}.", 30, bold=True, anchor="rm")
        style = cast.style(p)
        chip = c.chip((MARGIN + 62, cy), p, style, TEXT, anchor="lm",
                      max_width=340 if p not in winners else 410 - kit.text_width("★ wins", TEXT, True),
                      fallback=cast.fallback(p))
        if p in winners:
            c.text((chip[2] + 10, cy), "★ wins", TEXT, bold=True, anchor="lm")
        c.text((MARGIN + 610, cy), str(score), 36, bold=True, anchor="rm")
        bar0, bar1 = MARGIN + 630, WIDTH - MARGIN - 120
        c.panel((bar0, cy - 11, bar1, cy + 11), PANEL_ALT, radius=11, outline=RULE, width=1)
        if score:
            fill_x = bar0 + (bar1 - bar0) * min(score, 48) / 48
            c.panel((bar0, cy - 11, max(bar0 + 22, round(fill_x)), cy + 11), style.colour,
                    radius=11)
        mark = bar0 + (bar1 - bar0) * WINNING_SCORE / 48
        c.draw.line((mark, cy - 18, mark, cy + 18), fill=INK, width=3)
        _veto_tokens(c, WIDTH - MARGIN - 16, cy, int(vetoes.get(p, 0)), style)
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """A reveal picture for each reveal in ``events`` and the standings at the game's end.

    ``view`` is the view after the events; each reveal is drawn from its own event, which
    carries the same card back as ``view["last_reveal"]``.
    """
    players = list(view.get("players") or [])
    reveals = [e for e in events if e.get("type") == "reveal"]
    done = sum(int(v) for v in (view.get("turns") or {}).values())
    out: list[tuple[str, bytes]] = []
    for i, event in enumerate(reveals):
        number = done - (len(reveals) - 1 - i)
        out.append((f"reveal-{number}", _draw_reveal(event, players).png(PALETTE)))
    for event in events:
        if event.get("type") == "game_over":
            out.append(("final", render_final(view, event.get("reason"))))
    return out


__all__: list[str] = ["render_extras", "render_final", "render_reveal", "render_table"]
