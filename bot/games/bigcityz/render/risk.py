"""The risk fields between neighbouring boards."""

from __future__ import annotations

from PIL import Image

from bot.core.i18n import Words
from bot.render.cache import MB, packed_cache
from bot.render.kit import BAD, GOOD, HIGHLIGHT, INK, MUTED, PANEL, PAPER, WHITE, Box, Canvas

from .cast import _city_name
from .constants import BAD_TINT, GOOD_TINT, SMALL, TEXT, View
from .layout import BADGE_W, RISK_AREAS, _quantized
from .text import Fits, draw_fitted, fit_lines, wrap

_ = Words("bot.games.bigcityz")

# -- risk fields -------------------------------------------------------------------------


def _risk_field(c: Canvas, box: Box, colour: str, slots: tuple[int, int], city: str | None,
                highlight: bool, tall: bool) -> None:
    x0, y0, x1, y1 = box
    edge = GOOD if colour == "green" else BAD
    bg = HIGHLIGHT if highlight else (PANEL if city else (GOOD_TINT if colour == "green"
                                                          else BAD_TINT))
    c.panel((x0, y0, x1 - 1, y1 - 1), bg, radius=12, outline=INK if highlight else edge,
            width=3 if highlight else 2)
    both = _("both TRUE") if colour == "green" else _("both FALSE")
    mark = "✓✓" if colour == "green" else "✗✗"
    a, b = slots
    if tall:
        badge = (x0 + 6, y0 + 6, x0 + 114, y0 + 52)
        c.panel(badge, edge, radius=10)
        c.text(((badge[0] + badge[2]) / 2, (badge[1] + badge[3]) / 2 + 1), f"{mark} 8", TEXT,
               bold=True, fill=WHITE, anchor="mm")
        room = x1 - badge[2] - 14
        lines, _size = fit_lines(both, room, ((TEXT, 1), (TEXT, 2)))
        city_fits: Fits = ((TEXT, 1), (26, 1), (24, 1), (24, 2), (22, 2))
        if len(lines) == 1:
            c.text((badge[2] + 10, y0 + 21), both, TEXT, bold=True, anchor="lm",
                   max_width=room)
            c.text((badge[2] + 10, y0 + 49), _("−2 if wrong"), SMALL + 2, fill=MUTED,
                   anchor="lm", secondary=True, max_width=room)
            cy = (y0 + 62 + y1) / 2
        else:
            # "beide / FALSCH" beside the badge, the penalty under it, the city on one line
            for i, line in enumerate(lines):
                c.text((badge[2] + 10, y0 + 21 + 28 * i), line, TEXT, bold=True, anchor="lm",
                       max_width=room)
            c.text((x0 + 10, y0 + 78), _("−2 if wrong"), SMALL + 2, fill=MUTED, anchor="lm",
                   secondary=True, max_width=x1 - x0 - 20)
            cy = (y0 + 92 + y1) / 2
            city_fits = ((TEXT, 1), (26, 1), (24, 1), (22, 1))
        if city:
            draw_fitted(c, ((x0 + x1) / 2, cy), city, x1 - x0 - 20, city_fits, secondary=True)
        else:
            c.text(((x0 + x1) / 2, cy), _("free"), SMALL + 2, fill=MUTED, anchor="mm",
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
            sub = _("boards {first} & {second} · −2 if wrong", first=a, second=b)
            subs = wrap(sub, SMALL, False, x1 - tx - 8)
            # one line under the title, as in English, or two where the words need them
            top, step = (cy - 14, 32) if len(subs) == 1 else (cy - 24, 30)
            c.text((tx, top), both, TEXT, bold=True, anchor="lm", max_width=x1 - tx - 8)
            for i, line in enumerate(subs[:2]):
                c.text((tx, top + step + 22 * i), line, SMALL, fill=MUTED, anchor="lm",
                       max_width=x1 - tx - 8, secondary=True)


RiskKey = tuple[str | None, str | None, str | None]  # green city, red city, colour just placed


@packed_cache(2 * MB, hot_bytes=MB // 2)  # as _board_tile: ten as drawn hit 14 %
def _risk_tile(risk: str, key: RiskKey, language: str) -> Image.Image:
    """The green and red risk fields between two neighbouring boards (``language`` keys
    the cache: the words are said in it)."""
    x0, y0, x1, y1 = RISK_AREAS[risk]
    w, h = x1 - x0, y1 - y0
    c = Canvas.new(w, h, PAPER)
    first, second = (int(v) for v in risk.split("-"))
    green, red, hit = key
    if risk in ("1-2", "3-4"):
        # Above and below the city the boards lie left and right of the fields.
        left, right = (first, second) if risk == "1-2" else (second, first)
        c.text((w / 2, 18), _("◀ {left}   risk fields   {right} ▶", left=left, right=right),
               SMALL + 2, bold=True, fill=MUTED, anchor="mm", secondary=True, max_width=w - 8)
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
