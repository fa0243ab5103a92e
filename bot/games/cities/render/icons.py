"""Row icons, shared by the player panels and the row headings."""

from __future__ import annotations

from bot.render.kit import INK, PANEL, RGB, Canvas

# -- row icons (shared by the player panels and the row headings) --------------------------


def _row_icon(canvas: Canvas, row: str, centre: tuple[float, float], size: int,
              fill: RGB = INK) -> None:
    cx, cy = centre
    h = size / 2
    draw = canvas.draw
    if row == "cards":
        draw.rounded_rectangle((cx - h * 0.7, cy - h, cx + h * 0.7, cy + h), 3, outline=fill,
                               width=3)
        draw.line((cx - h * 0.35, cy - h * 0.3, cx + h * 0.35, cy - h * 0.3), fill=fill, width=2)
        draw.line((cx - h * 0.35, cy + h * 0.2, cx + h * 0.35, cy + h * 0.2), fill=fill, width=2)
    elif row == "tiles":
        q = h * 0.95
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), outline=fill, width=3)
        draw.line((cx, cy - q, cx, cy + q), fill=fill, width=2)
        draw.line((cx - q, cy, cx + q, cy), fill=fill, width=2)
    elif row == "features":
        draw.rounded_rectangle((cx - h * 0.9, cy - h * 0.9, cx + h * 0.9, cy + h * 0.9), 5,
                               fill=fill)
        canvas.marker((cx, cy), "circle", round(size * 0.4), PANEL)
    elif row == "pieces":
        q = h * 0.8
        draw.rectangle((cx - q, cy - q + 2, cx + q, cy + q + 2), fill=fill)
        draw.polygon([(cx - q, cy - q + 2), (cx - q + 5, cy - q - 3), (cx + q + 5, cy - q - 3),
                      (cx + q, cy - q + 2)], fill=fill)
