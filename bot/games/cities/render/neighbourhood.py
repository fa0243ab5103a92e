"""One player's neighbourhood picture."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import INK, MUTED, PANEL, RULE, Box, Canvas

from ..data_words import ACHIEVEMENT, CARD, CARD_RULE, said
from .constants import GAP, INNER, MARGIN, PALETTE, SMALL, TEXT, WIDTH, View
from .helpers import _chip, _panel, _wrap
from .hood import Hood, _draw_hood, _hood_size
from .pieces import _building, _space_image
from .score import _breakdown, _score

_ = Words("bot.games.cities")
_n, _l, _p = _.plural, _.lazy, _.context

# -- one neighbourhood ---------------------------------------------------------------------


def _grid_size(rows: int, cols: int, width: int, height: int, cap: int = 120) -> int:
    return max(24, min(cap, width // max(1, cols), height // max(1, rows)))


Grid = tuple[tuple[int, int, int, int], int, int, int]
"""A neighbourhood's tile bounds, its rows and columns of spaces, and the size of a space."""


def _two_to_a_row(count: int) -> tuple[int, int, int]:
    """Columns, rows and cell width for ``count`` neighbourhoods side by side: two to a row,
    so each map is large enough to read on a phone (one alone takes the whole width)."""
    cols = 2 if count > 1 else 1
    return cols, max(1, math.ceil(count / cols)), (INNER - GAP * (cols - 1)) // cols


def _hoods_in_cells(view: View, players: Sequence[str], width: int,
                    height: int) -> tuple[dict[str, Hood], dict[str, Grid]]:
    """Every player's neighbourhood, and its grid fitted into ``width`` x ``height``."""
    hoods = {p: Hood((view.get("neighbourhoods") or {}).get(p)) for p in players}
    grids: dict[str, Grid] = {}
    for p, hood in hoods.items():
        bounds = hood.tile_bounds()
        rows, cols = _hood_size(bounds)
        grids[p] = (bounds, rows, cols, _grid_size(rows, cols, width, height, 96))
    return hoods, grids


def _legend_keys() -> list[tuple[str, str]]:
    """The legend's keys: each kind of space, then the building ("" as its code)."""
    return [("R", _p("space colour", "red")), ("B", _p("space colour", "blue")),
            ("G", _p("space colour", "green")), ("Y", _p("space colour", "yellow")),
            ("W", _p("space", "water")), ("P", _p("space", "park")),
            ("", _("= building, height 3"))]


def _legend_places() -> list[tuple[int, int]]:
    """Where each key goes, as (x, line): a key that would run off the picture starts a
    new line (a language's longer words wrap rather than shrink)."""
    places = []
    x, line = MARGIN, 0
    for code, word in _legend_keys():
        width = (50 if not code else 46) + kit.text_width(word, SMALL + 2)
        if x > MARGIN and x + width > WIDTH - MARGIN:
            x, line = MARGIN, line + 1
        places.append((x, line))
        x += width + 16
    return places


def _legend_height() -> int:
    return LEGEND_H * (1 + max(line for _x, line in _legend_places()))


def _legend(canvas: Canvas, y: int) -> int:
    for (code, word), (x, line) in zip(_legend_keys(), _legend_places(), strict=True):
        ky = y + line * LEGEND_H
        if not code:
            _building(canvas, "R", 3, (x, ky, x + 44, ky + 44), key=True)
            canvas.text((x + 50, ky + 22), word, SMALL + 2, anchor="lm", secondary=True)
            continue
        canvas.image.paste(_space_image(code, 40), (x, ky + 2))
        canvas.draw.rectangle((x, ky + 2, x + 39, ky + 41), outline=INK, width=1)
        canvas.text((x + 46, ky + 22), word, SMALL + 2, anchor="lm", secondary=True)
    return y + _legend_height()


PART_KEYS = ((_l("Achievements"), "achievements"), (_l("Water areas"), "water"),
             (_l("Park areas"), "park"), (_l("Monuments"), "monuments"))


def _part_details(found: dict[str, Any]) -> dict[str, str]:
    count = int(found.get("monument_count", 0) or 0)
    return {
        "achievements": ", ".join(f"{said(ACHIEVEMENT, r['name'])} {r['vp']}"
                                  for r in found.get("achievement_rings") or []),
        "water": _areas_words(found.get("water_areas")),
        "park": _areas_words(found.get("park_areas")),
        "monuments": f"{count} × 2" if count else "",
    }


def _card_lines(view: View, player: str, found: dict[str, Any] | None,
                width: int) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each held card as (name, tally, wrapped text)."""
    if not found:
        return []
    held = {str(c.get("id")): c for c in (view.get("cards_held") or {}).get(player) or []}
    out = []
    for row in found.get("scoring_cards") or []:
        card = held.get(str(row.get("card")), {})
        each = card.get("vp")
        tally = (f"{row.get('occurrences', 0)} × {each} = {row.get('vp', 0)}"
                 if each is not None else str(row.get("vp", 0)))
        text = (_wrap(said(CARD_RULE, str(card.get("text", ""))), CARD_RULE_TEXT, False, width,
                      99) if card.get("text") else ())
        out.append((said(CARD, str(row.get("name", "?"))), tally, text))
    return out


def _breakdown_height(view: View, player: str, found: dict[str, Any] | None, width: int) -> int:
    if not found:
        return 70
    details = _part_details(found)
    h = 56 + sum(PART_LINE + (DETAIL_LINE if details[key] else 0) for _part, key in PART_KEYS)
    h += 12 + PART_LINE + 4
    cards = _card_lines(view, player, found, width - 28)
    h += sum(PART_LINE * (1 if _tally_beside(name, tally, width - 28) else 2)
             + CARD_RULE_LINE * len(text) + 10 for name, tally, text in cards) if cards else 30
    return h + 12


PART_LINE = TEXT + 8
DETAIL_LINE = SMALL + 5
# A held card's rule whole, at the size of what a player reads to choose a move.
CARD_RULE_TEXT = TEXT
CARD_RULE_LINE = TEXT + 6


def _tally_beside(name: str, tally: str, width: int) -> bool:
    """Whether a card's name and its tally fit on one line."""
    return (kit.text_width(kit.prepare(name, TEXT, True), TEXT, True)
            + kit.text_width(tally, TEXT, True) + 14 <= width)


def _breakdown_panel(canvas: Canvas, view: View, player: str, box: Box,
                     found: dict[str, Any] | None, title: str = "") -> None:
    """The score part by part, each held card with its occurrences and its text."""
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL, radius=14, outline=RULE)
    x = x0 + 14
    w = x1 - x0 - 28
    total = int(found["total"]) if found else _score(view, player)
    points = _("{n} pts", n=total)
    room = min(w - 130, w - 14 - kit.text_width(points, 34, True))
    canvas.text((x, y0 + 10), title or _("Score so far"), TEXT, bold=True, max_width=room)
    canvas.text((x1 - 14, y0 + 6), points, 34, bold=True, anchor="ra")
    y = y0 + 56
    if not found:
        return
    details = _part_details(found)
    for part, key in PART_KEYS:
        canvas.text((x, y), str(part), TEXT, bold=True)
        canvas.text((x1 - 14, y), str(found.get(key, 0)), TEXT, bold=True, anchor="ra")
        y += PART_LINE
        if details[key]:
            canvas.text((x + 12, y - 4), details[key], SMALL, fill=MUTED, max_width=w - 12,
                        secondary=True)
            y += DETAIL_LINE
    canvas.draw.line((x, y + 2, x1 - 14, y + 2), fill=RULE, width=2)
    y += 12
    canvas.text((x, y), _("Scoring cards"), TEXT, bold=True)
    canvas.text((x1 - 14, y), str(found.get("cards", 0)), TEXT, bold=True, anchor="ra")
    y += PART_LINE + 4
    cards = _card_lines(view, player, found, w)
    if not cards:
        canvas.text((x, y), _("no scoring cards yet"), SMALL + 2, fill=MUTED, secondary=True)
    for name, tally, text in cards:
        canvas.text((x, y), name, TEXT, bold=True, max_width=w)
        if not _tally_beside(name, tally, w):
            y += PART_LINE
        canvas.text((x1 - 14, y), tally, TEXT, bold=True, anchor="ra")
        y += PART_LINE
        for line in text:  # the card's rule
            canvas.text((x, y - 4), line, CARD_RULE_TEXT, fill=MUTED)
            y += CARD_RULE_LINE
        y += 10


def _areas_words(areas: Any) -> str:
    scored = [a for a in areas or [] if a.get("vp")]
    if not scored:
        return ""
    return " + ".join(f"{a['vp']} ({_kinds(a)})" for a in scored)


def _kinds(area: dict[str, Any]) -> str:
    n = len(area.get("kinds") or [])
    return _n("{n} kind", "{n} kinds", n)


def _hood_header(canvas: Canvas, view: View, player: str, y: int, title: str) -> int:
    box = _chip(canvas, view, (MARGIN, y), player, TEXT + 2, max_width=520)
    canvas.text((box[2] + 14, (box[1] + box[3]) / 2), title, TEXT, bold=True, anchor="lm",
                max_width=WIDTH - MARGIN - box[2] - 14 - 220)
    phase = view.get("phase")
    right = (_("Game over") if phase == "over"
             else _("Round {round} of {rounds}", round=view.get("round", 1),
                    rounds=view.get("rounds", 8)))
    canvas.text((WIDTH - MARGIN, (box[1] + box[3]) / 2), right, TEXT, bold=True, anchor="rm",
                fill=MUTED)
    return box[3] + 14


SIDE_W = 460  # the score panel beside a neighbourhood that leaves room for it
LEGEND_H = 50


class HoodLayout:
    """Where a neighbourhood picture puts its grid and its score panel."""

    def __init__(self, hood: Hood, extra: Sequence[tuple[int, int]], panel_h_of: Any) -> None:
        self.bounds = hood.tile_bounds(extra)
        self.rows, self.cols = _hood_size(self.bounds)
        side_w = INNER - SIDE_W - GAP
        side_size = _grid_size(self.rows, self.cols, side_w, 760)
        fits_beside = side_size >= 84 or self.cols * 84 <= side_w
        # Beside the grid while the score panel is not much taller than it; under it, full
        # width, when the held cards' rules make the panel the taller part by far.
        self._place(False, panel_h_of)
        if fits_beside:
            below = self.height
            self._place(True, panel_h_of)
            if below < self.height:
                self._place(False, panel_h_of)

    def _place(self, side: bool, panel_h_of: Any) -> None:
        self.side = side
        side_w = INNER - SIDE_W - GAP
        top = 14 + 54 + 14
        if side:
            self.size = _grid_size(self.rows, self.cols, side_w, 760)
            grid_w = self.cols * self.size
            self.origin = (MARGIN + (side_w - grid_w) // 2, top)
            panel_x = MARGIN + side_w + GAP
            self.panel_w = WIDTH - MARGIN - panel_x
            panel_h = max(panel_h_of(self.panel_w), self.rows * self.size)
            self.panel = (panel_x, top, WIDTH - MARGIN, top + panel_h)
            body = max(self.rows * self.size, panel_h)
            self.legend_y = top + body + 14
        else:
            self.size = _grid_size(self.rows, self.cols, INNER, 720)
            grid_w = self.cols * self.size
            self.origin = (MARGIN + (INNER - grid_w) // 2, top)
            self.legend_y = top + self.rows * self.size + 14
            self.panel_w = INNER
            panel_h = panel_h_of(self.panel_w)
            py = self.legend_y + _legend_height() + 10
            self.panel = (MARGIN, py, WIDTH - MARGIN, py + panel_h)
        self.height = max(self.panel[3], self.legend_y + _legend_height()) + MARGIN


def _hood_picture(view: View, player: str, title: str,
                  extra_tiles: Sequence[tuple[int, int]] = ()) -> tuple[Canvas, Hood,
                                                                         HoodLayout]:
    """Header, neighbourhood, legend and score panel, laid out for the space it needs."""
    hood = Hood((view.get("neighbourhoods") or {}).get(player))
    found = _breakdown(view, player)
    layout = HoodLayout(hood, extra_tiles,
                        lambda w: _breakdown_height(view, player, found, w))
    canvas = Canvas.new(WIDTH, layout.height)
    _hood_header(canvas, view, player, 14, title)
    if not hood.tiles:
        canvas.text((layout.origin[0] + 20, layout.origin[1] + 40), _("No starting tile yet"),
                    TEXT, fill=MUTED)
    _draw_hood(canvas, hood, layout.origin, layout.size, layout.bounds)
    _legend(canvas, layout.legend_y)
    _breakdown_panel(canvas, view, player, layout.panel, found)
    return canvas, hood, layout


def render_neighbourhood(view: View, player: str) -> bytes:
    """One player's neighbourhood, their scoring cards and their score so far."""
    canvas, _hood, _layout = _hood_picture(view, player, _("neighbourhood"))
    return canvas.png(PALETTE)
