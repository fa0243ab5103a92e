"""The noughts-and-crosses table picture, drawn with Cityhall's picture kit."""

from __future__ import annotations

from bot.core.engine import JSON
from bot.render.kit import INK, PANEL, RULE, Canvas, player_style

SIZE = 480
CELL = 120
MARGIN = 60


def render_table(view: JSON) -> bytes:
    canvas = Canvas.new(SIZE, SIZE + 80)
    players = view["players"]
    for seat, player in enumerate(players):
        canvas.chip((20 + seat * (SIZE // 2), 20), f"{'XO'[seat]} {player}",
                    player_style(seat), size=26, max_width=SIZE // 2 - 30)
    top = 80 + MARGIN
    canvas.panel((MARGIN, top, MARGIN + 3 * CELL, top + 3 * CELL), fill=PANEL, radius=8)
    for i in (1, 2):
        canvas.draw.line((MARGIN + i * CELL, top, MARGIN + i * CELL, top + 3 * CELL), RULE, 4)
        canvas.draw.line((MARGIN, top + i * CELL, MARGIN + 3 * CELL, top + i * CELL), RULE, 4)
    line = view.get("line") or []
    for cell, mark in enumerate(view["board"]):
        x = MARGIN + (cell % 3) * CELL + CELL // 2
        y = top + (cell // 3) * CELL + CELL // 2
        if mark:
            style = player_style("XO".index(mark))
            canvas.text((x, y), mark, 84, bold=True, anchor="mm",
                        fill=style.colour if cell not in line else INK)
        else:
            canvas.text((x, y), str(cell + 1), 30, anchor="mm", fill=RULE, secondary=True)
    return canvas.png()


def render_extras(view: JSON, events: list[JSON]) -> list[tuple[str, bytes]]:
    return []
