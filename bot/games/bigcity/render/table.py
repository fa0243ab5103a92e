"""The table picture."""

from __future__ import annotations

from bot.render.kit import PAPER, Canvas

from .cast import Cast
from .city import Tile, _city_cells, _tiles
from .constants import MAP_TOP, MARGIN, PALETTE, WIDTH, View
from .frame import Frame, _frame, _map_height
from .header import _draw_header
from .map_pieces import _draw_city
from .panels import _caption_height, _draw_caption, _draw_pieces_panel, pieces_height

# -- the table ---------------------------------------------------------------------------


def _layout(view: View) -> tuple[tuple[Tile, ...], Frame, int]:
    tiles = _tiles(view)
    frame = _frame(_city_cells(tiles), MAP_TOP)
    return tiles, frame, _map_height(frame)


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view)
    tiles, frame, map_h = _layout(view)
    caption_h = _caption_height(view, cast)
    height = MAP_TOP + map_h + 10 + caption_h + 6 + pieces_height() + MARGIN
    c = Canvas.new(WIDTH, height, PAPER)
    _draw_header(c, view, cast)
    _draw_city(c, view, cast, tiles, frame, MAP_TOP, map_h)
    y = MAP_TOP + map_h + 10
    _draw_caption(c, view, cast, y)
    _draw_pieces_panel(c, view, y + caption_h + 6)
    return c.png(PALETTE)
