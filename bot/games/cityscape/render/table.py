"""The table picture: ``render_table``, the board everyone looks at between moves."""

from __future__ import annotations

from PIL import Image

from bot.core.i18n import Words, current
from bot.render.cache import MB, packed_cache
from bot.render.cast import Cast
from bot.render.kit import MUTED, PANEL, PAPER, Canvas

from ..skyline import COLUMNS, ROWS
from .board import (
    CAPTION_STEP,
    _blocks_left,
    _draw_board,
    _draw_strips,
    _last_caption,
    caption_lines,
)
from .constants import (
    BLOCKS_Y,
    BOARD,
    BODY,
    CAPTION_Y,
    CELL,
    GRID,
    LABEL,
    MARGIN,
    PALETTE,
    RIGHT_X,
    SIDE_PANEL_H,
    SMALL,
    STRIP,
    TEXT,
    WIDTH,
    View,
)
from .header import _header_status, _scores_row, _subline
from .sight import _side_order
from .skylines import _draw_skylines

_ = Words("bot.games.cityscape")

# -- the table ---------------------------------------------------------------------------


def _table_base(sides: tuple[str, ...], language: str, lines: int = 1) -> Canvas:
    """Everything that does not change during a game with these sides (and ``language``,
    the words' language, keys the cache), room for the last build's caption included:
    a new canvas each call, to draw the rest on."""
    return Canvas(_table_base_image(sides, language, lines))


# One base is kept as drawn (~4.5 MB), the others compressed (~15 KB: bot/render/cache.py),
# so every number of sides, caption lines and language stays: only one used to be kept,
# and the caption's lines change from move to move, so most moves drew it again (~6 ms;
# a compressed hit ~0.5 ms).
@packed_cache(1 * MB, hot_bytes=5 * MB)
def _table_base_image(sides: tuple[str, ...], language: str, lines: int) -> Image.Image:
    right_h = BODY + 40 + len(sides) * (SIDE_PANEL_H + 12)
    left_h = CAPTION_Y + 24 + CAPTION_STEP * max(0, lines - 1)
    c = Canvas.new(WIDTH, max(right_h, left_h) + MARGIN - 12, PAPER)
    gx, gy = MARGIN + STRIP + LABEL, BODY + STRIP + LABEL
    c.panel((MARGIN, BODY, MARGIN + BOARD, BODY + BOARD), PANEL, radius=18)
    for i in range(4):
        cx = gx + CELL * i + CELL / 2
        cy = gy + CELL * (3 - i) + CELL / 2  # row 1 at the bottom (south)
        for y in (gy - LABEL / 2, gy + GRID + LABEL / 2):
            c.text((cx, y), COLUMNS[i], TEXT, bold=True, fill=MUTED, anchor="mm")
        for x in (gx - LABEL / 2, gx + GRID + LABEL / 2):
            c.text((x, cy), ROWS[i], TEXT, bold=True, fill=MUTED, anchor="mm")
    # The skylines restate the board from each edge: an explanation, so secondary text.
    title = c.text((RIGHT_X, BODY + 16), _("What each side sees"), SMALL + 4, bold=True,
                   anchor="lm", secondary=True)
    # The direction note gives way to a long title rather than run into it.
    c.text((WIDTH - MARGIN, BODY + 16), _("lines left → right"), SMALL + 2, fill=MUTED,
           anchor="rm", max_width=WIDTH - MARGIN - title[2] - 16, secondary=True)
    return c.image


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    sides = tuple(_side_order(view.get("sides") or {}))
    c = _table_base(sides, current(), max(1, len(caption_lines(view, cast))))
    _header_status(c, view, cast)
    c.text((MARGIN, 98), _subline(view, cast, WIDTH - 2 * MARGIN), TEXT, fill=MUTED, anchor="lm",
           max_width=WIDTH - 2 * MARGIN)
    _scores_row(c, view, cast, 148)
    _blocks_left(c, view, (MARGIN, BLOCKS_Y, MARGIN + BOARD, BLOCKS_Y + 76))
    _draw_strips(c, view, cast)
    _draw_board(c, view)
    _last_caption(c, view, cast)
    _draw_skylines(c, view, cast)
    return c.png(PALETTE)
