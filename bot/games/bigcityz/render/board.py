"""One statement board, drawn and quantized once per content."""

from __future__ import annotations

from PIL import Image

from bot.core.i18n import Words, current
from bot.games.bigcityz import names
from bot.render import kit
from bot.render.cache import MB, packed_cache

from .cast import _city_name
from .constants import BAD_TINT, GOOD_TINT, SMALL, TEXT, View
from .layout import (
    BADGE_W,
    BOARD_HEAD,
    BW,
    HB,
    SQUARE_GAP,
    SQUARE_H,
    STATEMENT_LINES,
    TAG_TOP,
    _quantized,
)
from .statements import SYMBOLS, short_name
from .symbols import draw_symbol
from .text import draw_fitted, wrap

_ = Words("bot.games.bigcityz")

# -- one statement board ----------------------------------------------------------------


def _square_boxes() -> list[kit.Box]:
    top = BOARD_HEAD
    return [(10, top + i * (SQUARE_H + SQUARE_GAP), BW - 10, top + i * (SQUARE_H + SQUARE_GAP)
             + SQUARE_H) for i in range(4)]


def _badge(c: kit.Canvas, box: kit.Box, colour: str, points: str, size: int = TEXT) -> None:
    """A point square's coloured badge: ✓ or ✗ and the points, white on green or red."""
    fill = kit.GOOD if colour == "green" else kit.BAD
    c.panel(box, fill, radius=10)
    mark = "✓" if colour == "green" else "✗"
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    c.text((cx, cy + 1), f"{mark} {points}", size, bold=True, fill=kit.WHITE, anchor="mm")


def _square(c: kit.Canvas, box: kit.Box, colour: str, points: int, city: str | None,
            highlight: bool = False) -> None:
    """One point square: badge, then the city on it or what it asks for."""
    x0, y0, x1, y1 = box
    free_bg = GOOD_TINT if colour == "green" else BAD_TINT
    edge = kit.GOOD if colour == "green" else kit.BAD
    bg = kit.HIGHLIGHT if highlight else (kit.PANEL if city else free_bg)
    c.panel((x0, y0, x1 - 1, y1 - 1), bg, radius=10, outline=kit.INK if highlight else edge,
            width=3 if highlight else 2)
    _badge(c, (x0 + 4, y0 + 4, x0 + BADGE_W, y1 - 5), colour, str(points))
    text_x = x0 + BADGE_W + 14
    room = x1 - text_x - 10
    cy = (y0 + y1) / 2
    if city:
        draw_fitted(c, (text_x, cy), city, room, align="l", secondary=True)
    else:
        free = _("free · if TRUE") if colour == "green" else _("free · if FALSE")
        c.text((text_x, cy), free, SMALL + 2, fill=kit.MUTED, anchor="lm", secondary=True,
               max_width=room)


Square = tuple[str, int, str | None, bool]  # colour, points, city on it, just placed


def _line_y(i: int) -> float:
    """The middle of the statement's ``i``-th line, under the top row."""
    return 56 + 16 + 32 * i


# Boards as drawn (~130 KB each, a table shows four) for the next picture of the same
# match, and those pushed out compressed (~9 KB): under a busy server's interleaved matches
# the 3 MB as drawn held 20 boards and hit 11 %, each miss redrawn (~1.4 ms).
@packed_cache(4 * MB, hot_bytes=3 * MB // 2)
def _board_tile(slot: int, statement: str, text: str, symbol: str,
                squares: tuple[Square, ...], tag: str | None, language: str) -> Image.Image:
    """A statement board: slot number, symbol, statement, its point squares (``tag``: None,
    "new" or "replaceable"; ``language`` keys the cache: the words are said in it)."""
    c = kit.Canvas.new(BW, HB, kit.PAPER)
    new = tag == "new"
    tag = None if tag is None else (_("NEW") if new else _("replaceable"))
    c.panel((0, 0, BW - 1, HB - 1), kit.PANEL, radius=16, outline=kit.INK if new else kit.RULE,
            width=4 if new else 2)
    # Top row: the slot number, the statement's symbol and the board's short name (the
    # buttons use it), and a tag where it fits beside them.
    c.panel((10, 10, 48, 48), kit.INK, radius=8)
    c.text((29, 30), str(slot), TEXT, bold=True, fill=kit.WHITE, anchor="mm")
    c.panel((54, 10, 92, 48), kit.PANEL_ALT, radius=8)
    draw_symbol(c, (57, 13), symbol, 32)
    name = short_name(statement)
    name_x, right = 100, BW - 10
    name_w = kit.text_width(name, TEXT, True)
    # The statement's full wording across the board, the deciding words at the size a
    # player reads: the rules text of the board its short name stands for.
    room = BW - 24
    lines = wrap(text, TEXT, False, room)
    most = STATEMENT_LINES + 1  # the tag's row is the statement's fourth line when free
    if tag:
        # "replaceable", or "NEW" on the board just turned over, where the card must go:
        # beside the name where both fit, else in its row under the statement.
        tag_w = kit.text_width(tag, SMALL, True) + 12
        beside = name_x + name_w + 12 + tag_w <= right
        c.label((right, 14 if beside else TAG_TOP), tag, SMALL, fg=kit.INK,
                bg=kit.HIGHLIGHT if new else kit.PANEL_ALT, anchor="rt",
                outline=kit.INK if new else kit.RULE, secondary=True, pad=6)
        most = STATEMENT_LINES + 1 if beside else STATEMENT_LINES
    if len(lines) > most:  # never in the four languages; cut at the last line
        lines = (*lines[:most - 1], " ".join(lines[most - 1:]))
    draw_fitted(c, (name_x, 30), name, right - name_x, ((TEXT, 1),), align="l")
    for i, line in enumerate(lines):
        c.text((12, _line_y(i)), line, TEXT, anchor="lm", max_width=room)
    for box, (colour, points, city, hit) in zip(_square_boxes(), squares, strict=False):
        _square(c, box, colour, points, city, hit)
    return _quantized(c)


def _board_key(board: View, placed: View | None, replaced: int | None
               ) -> tuple[int, str, str, str, tuple[Square, ...], str | None, str]:
    slot = int(board.get("slot", 1))
    statement = str(board.get("statement", ""))
    squares: list[Square] = []
    for sq in board.get("squares") or []:
        colour, points = str(sq.get("color")), int(sq.get("points", 0))
        hit = bool(placed and placed.get("kind") == "square" and placed.get("slot") == slot
                   and placed.get("color") == colour and placed.get("points") == points)
        squares.append((colour, points, _city_name(sq.get("city")), hit))
    tag = None
    if replaced == slot:
        tag = "new"
    elif board.get("replaceable"):
        tag = "replaceable"
    symbol = str(board.get("symbol") or SYMBOLS.get(statement, ""))
    text = names.statement(statement) if statement in SYMBOLS \
        else str(board.get("text") or short_name(statement))
    return slot, statement, text, symbol, tuple(squares), tag, current()
