"""The city from above: the 4×4 lots with their buildings and block stacks, each
owner's band along its edge, the blocks left and the last build's caption."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from bot.core.i18n import Words, current
from bot.render import kit
from bot.render.cache import MB, byte_cache
from bot.render.cast import Cast
from bot.render.kit import INK, MUTED, PANEL, PANEL_ALT, RGB, RULE, Box, Canvas

from ..skyline import COLUMNS, ROWS
from ..terms import side_letter, side_word
from . import constants as layout
from .header import _inline, sentence, wrapped

_ = Words("bot.games.cityscape")


def _blocks_left(c: Canvas, view: layout.View, box: Box) -> None:
    """The blocks still to build with: a block of each height and how many are left."""
    left = view.get("blocks_left") or {}
    x0, y0, x1, y1 = box
    c.panel(box, PANEL, radius=14)
    cy = (y0 + y1) / 2
    # TRANSLATORS: a caption on two lines beside the blocks still to build with.
    words = _("Blocks\nleft").split("\n")
    title = c.text_lines((x0 + 16, cy - layout.SMALL * 0.625 * len(words)), words,
                         layout.SMALL + 2, bold=True, fill=MUTED, secondary=True)
    step = (x1 - 8 - title[2] - 12) / 5
    for i, h in enumerate(range(1, 6)):
        n = int(left.get(str(h), 0))
        bx = title[2] + 12 + step * i
        half = 17 + 3 * h  # a taller block for a taller height, as on the table
        block = (round(bx), round(cy - half), round(bx + 38), round(cy + half))
        fill = layout.shade(h * 3)
        if n:
            c.draw.rectangle(block, fill=fill, outline=INK, width=2)
            c.text((bx + 19, cy + 1), str(h), layout.TEXT, bold=True, fill=kit.ink_on(fill),
                   anchor="mm")
        else:
            c.draw.rectangle(block, fill=PANEL, outline=RULE, width=2)
            c.text((bx + 19, cy + 1), str(h), layout.TEXT, bold=True, fill=RULE, anchor="mm")
        c.text((bx + 43, cy), f"×{n}", layout.TEXT, bold=n > 0, fill=INK if n else MUTED, anchor="lm")



def _strip_image(side: str, owner: str | None, style_index: int, fallback: str,
                 length: int) -> Canvas:
    """An owner's band for one board edge, drawn upright as for the south edge."""
    c = Canvas.new(length, layout.STRIP, PANEL)
    word = side_word(side)
    if owner is None:
        c.panel((0, 0, length - 1, layout.STRIP - 1), PANEL_ALT, radius=layout.STRIP // 2)
        c.text((length / 2, layout.STRIP / 2), _("{side} · no player", side=word),
               layout.SMALL + 2, fill=MUTED, anchor="mm", secondary=True)
        return c
    style = kit.player_style(style_index)
    c.panel((0, 0, length - 1, layout.STRIP - 1), style.colour, radius=layout.STRIP // 2)
    # The side letter sits in a white disc so it reads whatever the player colour.
    c.marker((layout.STRIP / 2, layout.STRIP / 2), "circle", layout.STRIP - 10, PANEL)
    c.text((layout.STRIP / 2, layout.STRIP / 2 + 1), side_letter(side), 24, bold=True, fill=INK,
           anchor="mm", max_width=layout.STRIP - 14, secondary=True)
    x = layout.STRIP + 6
    c.marker((x + 14, layout.STRIP / 2), style.marker, 28, style.ink)
    tail = f" · {word}"
    tail_w = kit.text_width(tail, layout.SMALL + 2)
    name_box = c.text((x + 38, layout.STRIP / 2), owner, layout.TEXT, bold=True, fill=style.ink,
                      anchor="lm", max_width=length - x - 38 - tail_w - layout.STRIP // 2,
                      fallback=fallback)
    c.text((name_box[2], layout.STRIP / 2), tail, layout.SMALL + 2, fill=style.ink, anchor="lm",
           secondary=True)
    return c


@byte_cache(1 * MB)
def _strip(side: str, owner: str | None, style_index: int, fallback: str,
           language: str) -> Image.Image:
    """``_strip_image`` turned to its edge; ``language`` keys the cache (the words on it)."""
    length = layout.GRID + 2 * layout.LABEL
    image = _strip_image(side, owner, style_index, fallback, length).image
    # West and east bands are turned so their owner reads them from their own seat.
    if side == "W":
        return image.transpose(Image.Transpose.ROTATE_90)
    if side == "E":
        return image.transpose(Image.Transpose.ROTATE_270)
    return image


def _draw_strips(c: Canvas, view: layout.View, cast: Cast) -> None:
    sides = view.get("sides") or {}
    places = {
        "N": (layout.MARGIN + layout.STRIP, layout.BODY),
        "S": (layout.MARGIN + layout.STRIP, layout.BODY + layout.BOARD - layout.STRIP),
        "W": (layout.MARGIN, layout.BODY + layout.STRIP),
        "E": (layout.MARGIN + layout.BOARD - layout.STRIP, layout.BODY + layout.STRIP),
    }
    for side, xy in places.items():
        owner = sides.get(side)
        idx = cast.index.get(owner, 0) if owner is not None else 0
        fallback = cast.fallback(owner) if owner is not None else ""
        c.image.paste(_strip(side, owner, idx, fallback, current()), xy)


def _lot_xy(lot: str) -> tuple[int, int]:
    col, row = COLUMNS.index(lot[0]), ROWS.index(lot[1])
    return layout.MARGIN + layout.STRIP + layout.LABEL + col * layout.CELL, layout.BODY + layout.STRIP + layout.LABEL + (3 - row) * layout.CELL


def _draw_board(c: Canvas, view: layout.View) -> None:
    lots: dict[str, list[int]] = view.get("lots") or {}
    heights: dict[str, int] = view.get("heights") or {}
    last = view.get("last_build") or {}
    tallest = max([int(h) for h in heights.values()] + [1])
    # One scale for every stack so stacks compare across the board.
    unit = min(6.0, (layout.CELL - 26) / max(tallest, 1))
    for r in ROWS:
        for col in COLUMNS:
            lot = col + r
            x, y = _lot_xy(lot)
            h = int(heights.get(lot, 0))
            box = (x + 3, y + 3, x + layout.CELL - 3, y + layout.CELL - 3)
            if h <= 0:
                c.draw.rectangle(box, fill=layout.LOT, outline=RULE, width=2)
                c.text((x + layout.CELL / 2, y + layout.CELL / 2), lot, layout.TEXT, fill=MUTED, anchor="mm")
                continue
            fill = layout.shade(h)
            ink = kit.ink_on(fill)
            c.draw.rectangle(box, fill=fill, outline=INK, width=2)
            c.text((x + layout.CELL / 2 - 10, y + layout.CELL / 2 + 2), str(h), 46, bold=True, fill=ink,
                   anchor="mm")
            _draw_stack(c, lots.get(lot, []), x + layout.CELL - 26, y + layout.CELL - 11, unit, fill,
                        highlight_top=last.get("lot") == lot)
            if h == tallest:  # the "tallest" goal scores lines that see this building
                _tallest_label(c, x, y)
    if last.get("lot") in heights:
        x, y = _lot_xy(last["lot"])
        c.draw.rectangle((x - 1, y - 1, x + layout.CELL + 1, y + layout.CELL + 1), outline=INK, width=2)
        c.draw.rectangle((x + 1, y + 1, x + layout.CELL - 1, y + layout.CELL - 1), outline=kit.HIGHLIGHT,
                         width=6)
        c.draw.rectangle((x + 7, y + 7, x + layout.CELL - 7, y + layout.CELL - 7), outline=INK, width=1)


def _draw_stack(c: Canvas, blocks: Sequence[int], x: int, bottom: int, unit: float,
                fill: RGB, highlight_top: bool) -> None:
    """The lot's blocks as a little tower, bottom to top; the newest one highlighted."""
    ink = kit.ink_on(fill)
    y = float(bottom)
    for i, b in enumerate(blocks):
        top = y - max(4.0, b * unit)
        colour = kit.HIGHLIGHT if highlight_top and i == len(blocks) - 1 else ink
        # A 2 px gap of the building's own colour keeps the blocks apart.
        c.draw.rectangle((x, round(top) + 2, x + 14, round(y)), fill=colour)
        y = top


CAPTION_STEP = 44  # a second line of the last build's caption, where a language needs it


def caption_lines(view: layout.View, cast: Cast) -> list[list[tuple[str, Any]]]:
    """The last build's caption, on one line or, where a language's words need it, more."""
    last = view.get("last_build")
    if not last:
        return []
    player = str(last.get("player", ""))
    parts = sentence(
        _("Last: {player} put a {height} on {lot}, now {building}", player="{player}",
          height=last.get("height"), lot=last.get("lot"), building=last.get("building")),
        player=cast.chip(player))
    return wrapped(parts, layout.TEXT, layout.BOARD - 42)


def _last_caption(c: Canvas, view: layout.View, cast: Cast) -> None:
    lines = caption_lines(view, cast)
    y = layout.CAPTION_Y
    if not lines:
        return
    c.draw.rectangle((layout.MARGIN + 4, y - 13, layout.MARGIN + 30, y + 13), fill=kit.HIGHLIGHT, outline=INK,
                     width=2)
    for i, parts in enumerate(lines):
        _inline(c, layout.MARGIN + 42, y + i * CAPTION_STEP, parts, layout.TEXT,
                layout.MARGIN + layout.BOARD)



def _tallest_label(c: Canvas, x: int, y: int) -> None:
    """The "★ tallest" tag in a lot's top-left corner, up to the lot's edge (a longer word in
    another language is cut rather than run over the next lot)."""
    c.label((x + 7, y + 7), _("★ tallest"), 20, fg=INK, bg=kit.HIGHLIGHT, outline=INK, pad=5,
            max_width=layout.CELL - 5, secondary=True)
