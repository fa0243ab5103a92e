"""The end: every neighbourhood with its scoring breakdown and the winners."""

from __future__ import annotations

from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import HIGHLIGHT, INK, MUTED, PANEL, RULE, Canvas

from ..data_words import ACHIEVEMENT, CARD, said
from .constants import GAP, MARGIN, PALETTE, SMALL, TEXT, WIDTH, View
from .helpers import _chip, _panel, _players
from .hood import _draw_hood
from .neighbourhood import _hoods_in_cells, _kinds, _two_to_a_row
from .score import _breakdown, _score
from .table import STATUS_H, _header, _status

_ = Words("bot.games.cities")
_n = _.plural

# -- the end -------------------------------------------------------------------------------


def _final_lines(view: View, player: str, found: dict[str, Any] | None) -> list[tuple[str, str,
                                                                                      bool]]:
    """(left, right, bold) lines of one player's breakdown."""
    if not found:
        return [(_("Total"), str(_score(view, player)), True)]
    lines: list[tuple[str, str, bool]] = []
    rings = found.get("achievement_rings") or []
    lines.append((_("Achievements"), str(found.get("achievements", 0)), True))
    lines += [(f"  {said(ACHIEVEMENT, str(r.get('name', '?')))}", str(r.get("vp", 0)), False)
              for r in rings]
    for key, word, areas in (("water", _("Water areas"), found.get("water_areas")),
                             ("park", _("Park areas"), found.get("park_areas"))):
        lines.append((word, str(found.get(key, 0)), True))
        for a in areas or []:
            if a.get("vp"):
                n = len(a.get("spaces") or [])
                lines.append(("  " + _n("{n} space, {kinds}", "{n} spaces, {kinds}", n,
                                        kinds=_kinds(a)), str(a["vp"]), False))
    lines.append((_("Monuments ({n} × 2)", n=found.get("monument_count", 0)),
                  str(found.get("monuments", 0)), True))
    lines.append((_("Scoring cards"), str(found.get("cards", 0)), True))
    for c in found.get("scoring_cards") or []:
        lines.append((f"  {said(CARD, str(c.get('name', '?')))} × {c.get('occurrences', 0)}",
                      str(c.get("vp", 0)), False))
    return lines


def render_final(view: View) -> bytes:
    """Every neighbourhood side by side, best first, each with its breakdown; the winners."""
    players = _players(view)
    winners = {str(w) for w in view.get("winners") or []}
    found = {p: _breakdown(view, p) for p in players}
    order = sorted(players, key=lambda p: -int((found[p] or {}).get("total", _score(view, p))))
    cols, grid_rows, cell_w = _two_to_a_row(len(order))  # as in render_neighbourhoods
    hoods, grids = _hoods_in_cells(view, players, cell_w - 20, 576)
    lines = {p: _final_lines(view, p, found[p]) for p in players}
    grid_h = max((grids[p][1] * grids[p][3] for p in players), default=0)
    lines_h = max((sum(FINAL_BOLD if bold else FINAL_LINE for _l, _r, bold in lines[p])
                   for p in players), default=0)
    body = 104 + grid_h + 14 + lines_h + 16
    top = 14 + 54 + STATUS_H + GAP
    canvas = Canvas.new(WIDTH, top + grid_rows * (body + GAP) - GAP + MARGIN)
    y0 = _header(canvas, view, 14)
    y0 = _status(canvas, view, y0)
    for k, p in enumerate(order):
        x = MARGIN + (k % cols) * (cell_w + GAP)
        y = y0 + (k // cols) * (body + GAP)
        won = p in winners
        _panel(canvas, (x, y, x + cell_w - 1, y + body - 1), fill=PANEL, radius=14,
                     outline=INK if won else RULE, width=4 if won else 2)
        total = int((found[p] or {}).get("total", _score(view, p)))
        _chip(canvas, view, (x + 10, y + 10), p, TEXT, max_width=cell_w - 20)
        canvas.text((x + 12, y + 58), _("{n} pts", n=total), 34, bold=True)
        if won:
            canvas.label((x + cell_w - 10, y + 58), _("★ Winner"), TEXT, bg=HIGHLIGHT, outline=INK,
                         anchor="rt")
        else:
            canvas.text((x + cell_w - 12, y + 60), f"#{order.index(p) + 1}", TEXT, bold=True,
                        fill=MUTED, anchor="ra")
        bounds, _rows, grid_cols, size = grids[p]
        gy = y + 104
        if hoods[p].tiles:
            _draw_hood(canvas, hoods[p], (x + (cell_w - grid_cols * size) // 2, gy), size, bounds)
        ly = gy + grid_h + 14
        for left, right, bold in lines[p]:
            # The parts of the score at full size; what each part is made of beneath them.
            fill = INK if bold else MUTED
            tsize = TEXT if bold else SMALL + 2
            rw = kit.text_width(right, tsize, bold)
            canvas.text((x + 10, ly), left, tsize, bold=bold, fill=fill,
                        max_width=cell_w - 30 - rw, secondary=not bold)
            canvas.text((x + cell_w - 12, ly), right, tsize, bold=bold, fill=fill, anchor="ra",
                        secondary=not bold)
            ly += FINAL_BOLD if bold else FINAL_LINE
    return canvas.png(PALETTE)


FINAL_BOLD = TEXT + 8
FINAL_LINE = SMALL + 8
