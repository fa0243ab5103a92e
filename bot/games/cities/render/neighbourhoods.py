"""Every neighbourhood on one picture, and the extra pictures of events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import INK, MUTED, PANEL, RULE, Canvas

from ..data_words import ACHIEVEMENT, CARD, said
from .constants import GAP, INNER, MARGIN, PALETTE, TEXT, WIDTH, View
from .final import render_final
from .helpers import _chip, _panel, _players, _wrap
from .hood import _draw_hood
from .neighbourhood import _hoods_in_cells, _legend, _legend_height, _two_to_a_row
from .score import _rings_of, _score
from .table import _header

_ = Words("bot.games.cities")

# -- every neighbourhood -------------------------------------------------------------------


def render_neighbourhoods(view: View) -> bytes:
    """Every player's neighbourhood at once, two to a row (wide enough on a phone), each with
    the player, their score so far, their rings and their scoring cards' names: what lies
    face up in front of every player at a real table."""
    players = _players(view)
    cols, rows, cell_w = _two_to_a_row(len(players))
    hoods, grids = _hoods_in_cells(view, players, cell_w - 24, 470)
    grid_h = max((g[1] * g[3] for g in grids.values()), default=0)
    notes = {p: _hood_notes(view, p) for p in players}
    lines_h = max((len(n) for n in notes.values()), default=0) * NOTE_LINE
    body = 64 + grid_h + 14 + lines_h + 14
    top = 14 + 54
    canvas = Canvas.new(WIDTH, top + rows * (body + GAP) + _legend_height() + MARGIN)
    _header(canvas, view, 14)
    for k, p in enumerate(players):
        x = MARGIN + (k % cols) * (cell_w + GAP)
        y = top + (k // cols) * (body + GAP)
        _panel(canvas, (x, y, x + cell_w - 1, y + body - 1), fill=PANEL, radius=14,
               outline=RULE)
        score = _("{n} pts", n=_score(view, p))
        sw = kit.text_width(score, 30, True)
        _chip(canvas, view, (x + 12, y + 12), p, TEXT, max_width=cell_w - 40 - sw)
        canvas.text((x + cell_w - 14, y + 12), score, 30, bold=True, anchor="ra")
        bounds, _rows, c, size = grids[p]
        gy = y + 64
        if hoods[p].tiles:
            _draw_hood(canvas, hoods[p], (x + (cell_w - c * size) // 2, gy), size, bounds)
        else:
            canvas.text((x + 14, gy + 10), _("No starting tile yet"), TEXT, fill=MUTED)
        ly = gy + grid_h + 14
        for bold, line in notes[p]:
            canvas.text((x + 14, ly), line, TEXT, bold=bold, fill=INK if bold else MUTED,
                        max_width=cell_w - 28)
            ly += NOTE_LINE
    _legend(canvas, canvas.height - MARGIN - _legend_height())
    return canvas.png(PALETTE)


NOTE_LINE = TEXT + 8


def _hood_notes(view: View, player: str) -> list[tuple[bool, str]]:
    """Rings and scoring cards under a neighbourhood, as (bold, line)."""
    rings = _rings_of(view, player)
    names = {str(a.get("id")): said(ACHIEVEMENT, str(a.get("name", a.get("id"))))
             for a in (view.get("city") or {}).get("achievements") or []}
    got = ", ".join(f"{names.get(a, a)} {vp}" for a, vp in rings) or _("none yet")
    width = (INNER - GAP) // 2 - 28
    notes = [(True, line) for line in _wrap(_("Achievements: {list}", list=got), TEXT, True,
                                            width, 2)]
    cards = [c for c in (view.get("cards_held") or {}).get(player) or [] if c.get("name")]
    count = _("Scoring cards: {count}", count=len(cards) or _("none yet"))
    notes += [(True, line) for line in _wrap(count, TEXT, True, width, 2)]
    for c in cards:
        note = _("• {name} ({vp} VP each)", name=said(CARD, str(c["name"])), vp=c.get("vp", "?"))
        notes += [(False, line) for line in _wrap(note, TEXT, False, width, 2)]
    return notes


def render_extras(view: View, events: Sequence[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """The final picture once the game is over (the ``game_over`` event), else nothing."""
    if any(e.get("type") == "game_over" for e in events):
        return [("final", render_final(view))]
    return []
