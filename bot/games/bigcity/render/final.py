"""The end: the finished city with the standings."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import MUTED, PANEL, PAPER, Canvas

from ..saying import lower_title
from .cast import Cast
from .city import Piece, _cell_of, _city_cells, _kind, _pieces, _tiles
from .constants import HEAD_Y, INNER_W, MARGIN, PALETTE, SCORES_Y, SMALL, SUB_Y, TEXT, WIDTH, View
from .frame import _frame, _map_height
from .header import _headline
from .map_pieces import _draw_city
from .text import _inline

_ = Words("bot.games.bigcity")
_n = _.plural

# -- the end -----------------------------------------------------------------------------


def _standings(view: View, cast: Cast) -> list[tuple[str, int, int, Piece | None]]:
    """(player, score, buildings, best building) from the highest score down."""
    scores = view.get("scores") or {}
    tiles = _tiles(view)
    pieces = _pieces(view, _cell_of(tiles))
    out = []
    for p in cast.players:
        own = [pc for pc in pieces if pc.owner == p and _kind(pc.building) not in
               ("park", "factory")]
        best = max(own, key=lambda pc: (pc.points, -pc.index), default=None)
        out.append((p, int(scores.get(p, 0) or 0), len(own), best))
    out.sort(key=lambda row: (-row[1], cast.index[row[0]]))
    return out


STANDING_H = 52


def render_final(view: View) -> bytes:
    """The finished city and the standings, as PNG bytes."""
    cast = Cast(view)
    tiles = _tiles(view)
    rows = _standings(view, cast)
    panel_h = 58 + STANDING_H * len(rows) + 12
    top = SCORES_Y - 22
    frame = _frame(_city_cells(tiles), top)
    map_h = _map_height(frame)
    height = top + map_h + 14 + panel_h + MARGIN
    c = Canvas.new(WIDTH, height, PAPER)
    parts, detail = _headline(dict(view, phase="over"), cast)
    _inline(c, MARGIN, HEAD_Y, parts, 36, WIDTH - MARGIN)
    if detail:
        c.text((MARGIN, SUB_Y - 4), detail, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)
    _draw_city(c, view, cast, tiles, frame, top, map_h, highlight=False)
    y = top + map_h + 14
    c.panel((MARGIN, y, WIDTH - MARGIN - 1, y + panel_h - 1), PANEL, radius=16)
    c.text((MARGIN + 20, y + 30), _("Final scores"), TEXT, bold=True, anchor="lm")
    c.text((WIDTH - MARGIN - 20, y + 30), _("buildings · best building"), SMALL + 2, fill=MUTED,
           anchor="rm", secondary=True)
    winners = {str(w) for w in view.get("winners") or []}
    rank = 0
    previous = None
    for i, (p, score, count, best) in enumerate(rows):
        if score != previous:
            rank, previous = i + 1, score
        cy = y + 58 + STANDING_H * i + STANDING_H // 2
        if i % 2 == 0:
            c.draw.rectangle((MARGIN + 10, cy - STANDING_H // 2 + 2, WIDTH - MARGIN - 11,
                              cy + STANDING_H // 2 - 2), fill=PAPER)
        c.text((MARGIN + 40, cy), f"{rank}.", TEXT, bold=True, anchor="rm")
        right = c.text((MARGIN + 400, cy), str(score), TEXT, bold=True, anchor="rm")[2]
        chip_max = MARGIN + 400 - 70 - (MARGIN + 52)
        chip = c.chip((MARGIN + 52, cy), p, cast.style(p), TEXT, anchor="lm",
                      max_width=chip_max, fallback=cast.fallback(p))
        del chip
        x = right + 12
        if p in winners:
            x = c.text((x, cy), _("★ wins"), TEXT, bold=True, anchor="lm")[2] + 16
        else:
            x += 100
        built = _n("{n} building", "{n} buildings", count)
        best_words = "" if best is None else _("best: {points} ({building})", points=best.points,
                                                building=lower_title(best.building))
        info = f"{built} · {best_words}" if best_words else built
        left = max(x, MARGIN + 560)
        room = WIDTH - MARGIN - 20 - left
        if best_words and kit.text_width(kit.prepare(info, SMALL + 4), SMALL + 4) > room:
            # too long for one line in this language: two lines, as small as captions go
            c.text((left, cy - 12), built, SMALL, fill=MUTED, anchor="lm", max_width=room,
                   secondary=True)
            c.text((left, cy + 12), best_words, SMALL, fill=MUTED, anchor="lm", max_width=room,
                   secondary=True)
            continue
        c.text((left, cy), info, SMALL + 4, fill=MUTED, anchor="lm", max_width=room,
               secondary=True)
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """The final city and standings once, when the game ends."""
    if any(event.get("type") == "game_over" for event in events):
        return [("final", render_final(view))]
    return []
