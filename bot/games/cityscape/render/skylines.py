"""What each side sees: one panel per side with its four lines as skylines, the
buildings seen in bold."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cast import Cast
from bot.render.kit import INK, MUTED, PANEL, Box, Canvas

from ..terms import side_letter, side_word
from .constants import (
    BODY,
    GROUND,
    MARGIN,
    RIGHT_X,
    SIDE_PANEL_H,
    SKY,
    SKY_COL,
    SKY_GAP,
    SKY_H,
    SMALL,
    TEXT,
    WIDTH,
    View,
    shade,
)
from .sight import _line_names, _lines_caption, _side_order, _visible

_ = Words("bot.games.cityscape")
_n = _.plural


def _draw_skylines(c: Canvas, view: View, cast: Cast) -> None:
    sides: dict[str, str] = view.get("sides") or {}
    goals_set: dict[str, bool] = view.get("goals_set") or {}
    choosing = view.get("phase") == "goals"
    lines: dict[str, list[list[int]]] = view.get("lines") or {}
    tallest = max([h for side in lines.values() for line in side for h in line] + [1])
    unit = min(9.0, (SKY_H - 30) / tallest)
    y = BODY + 40
    for side in _side_order(sides):
        owner = sides[side]
        status = None
        if choosing:
            status = bool(goals_set.get(side))
        _skyline_panel(c, side, owner, cast, lines.get(side) or [[0] * 4] * 4, unit,
                       (RIGHT_X, y, WIDTH - MARGIN, y + SIDE_PANEL_H), status)
        y += SIDE_PANEL_H + 12


def _skyline_panel(c: Canvas, side: str, owner: str, cast: Cast, lines: list[list[int]],
                   unit: float, box: Box, goals_set: bool | None) -> None:
    """One side's four lines as its player sees them; ``goals_set`` only while choosing."""
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    style = cast.style(owner)
    caption = _("{side} ({letter})", side=side_word(side), letter=side_letter(side))
    cap_w = 0
    if goals_set is None:
        caption += f" · {_lines_caption(side)}"
    else:
        # While goals are chosen the board is empty: say who is still choosing instead.
        status = _("✓ goals set") if goals_set else _("choosing goals…")
        c.text((x1 - 16, y0 + 30), status, SMALL + 2, bold=goals_set, anchor="rm",
               fill=kit.GOOD if goals_set else MUTED, secondary=True)
        cap_w = kit.text_width(status, SMALL + 2, goals_set) + 16
    status_w = cap_w
    cap_w += kit.text_width(caption, SMALL + 2)
    # The name keeps at least a few letters; a caption longer than the rest is cut.
    chip = c.chip((x0 + 12, y0 + 30), owner, style, TEXT, anchor="lm",
                  max_width=max(x1 - x0 - 36 - cap_w, TEXT * 5), fallback=cast.fallback(owner))
    c.text((chip[2] + 10, y0 + 30), caption, SMALL + 2, fill=MUTED, anchor="lm",
           max_width=(x1 - 8 - status_w if status_w else x1 - 12) - chip[2] - 10,
           secondary=True)
    names = _line_names(side)
    sky_top = y0 + 58
    ground = sky_top + SKY_H
    for i, heights in enumerate(lines):
        lx = x0 + 20 + i * (SKY_COL + SKY_GAP)
        c.draw.rectangle((lx, sky_top, lx + SKY_COL, ground), fill=SKY)
        # The line's name as a tag, so "4" and "0 seen" never read as "40 seen".
        c.panel((lx + 3, sky_top + 3, lx + 27, sky_top + 28), MUTED, radius=6)
        c.text((lx + 15, sky_top + 16), names[i], SMALL, bold=True, fill=kit.WHITE,
               anchor="mm", secondary=True)
        seen = _visible(heights)
        # Back to front, each building narrower with distance: what is hidden ends up
        # behind something at least as tall, exactly as the rules define sight.
        for depth in range(len(heights) - 1, -1, -1):
            h = heights[depth]
            if h <= 0:
                continue
            w = SKY_COL * (1 - 0.16 * depth)
            top = ground - h * unit
            bx0 = lx + (SKY_COL - w) / 2
            c.draw.rectangle((round(bx0), round(top), round(bx0 + w), ground), fill=shade(h),
                             outline=INK, width=1)
        c.draw.line((lx, ground, lx + SKY_COL, ground), fill=GROUND, width=3)
        count = sum(seen)
        # Right of the line's tag (27 px), never over it.
        c.text((lx + SKY_COL - 5, sky_top + 16), _n("{n} seen", "{n} seen", count), SMALL,
               fill=INK if count else MUTED, anchor="rm", max_width=SKY_COL - 36,
               secondary=True)
        _heights_text(c, heights, seen, lx + SKY_COL / 2, ground + 24)


def _heights_text(c: Canvas, heights: Sequence[int], seen: Sequence[bool], cx: float,
                  y: float) -> None:
    """Front-to-back heights; the visible ones bold, vacant lots as a dot."""
    parts = [("·" if h <= 0 else str(h), s) for h, s in zip(heights, seen, strict=True)]
    gap = 8
    widths = [kit.text_width(t, SMALL + 2, bold) for t, bold in parts]
    x = cx - (sum(widths) + gap * (len(parts) - 1)) / 2
    for (t, bold), w in zip(parts, widths, strict=True):
        c.text((x, y), t, SMALL + 2, bold=bold, fill=INK if bold else MUTED, anchor="lm",
               secondary=True)
        x += w + gap

