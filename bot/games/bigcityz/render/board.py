"""One statement board, drawn and quantized once per content."""

from __future__ import annotations

from PIL import Image

from bot.core.i18n import Words, current
from bot.games.bigcityz import names
from bot.render import kit
from bot.render.cache import MB, byte_cache

from .cast import _city_name
from .constants import BAD_TINT, GOOD_TINT, SMALL, TEXT, View
from .layout import BADGE_W, BOARD_HEAD, BW, HB, SQUARE_GAP, SQUARE_H, _quantized
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


@byte_cache(3 * MB)  # ~20 boards of ~130 KB; a table shows four
def _board_tile(slot: int, statement: str, text: str, symbol: str,
                squares: tuple[Square, ...], tag: str | None, language: str) -> Image.Image:
    """A statement board: slot number, symbol, statement, its point squares (``tag``: None,
    "new" or "replaceable"; ``language`` keys the cache: the words are said in it)."""
    c = kit.Canvas.new(BW, HB, kit.PAPER)
    new = tag == "new"
    tag = None if tag is None else (_("NEW") if new else _("replaceable"))
    c.panel((0, 0, BW - 1, HB - 1), kit.PANEL, radius=16, outline=kit.INK if new else kit.RULE,
            width=4 if new else 2)
    # Top row: the slot number, the board's short name (the buttons use it) and a tag.
    c.panel((10, 10, 48, 48), kit.INK, radius=8)
    c.text((29, 30), str(slot), TEXT, bold=True, fill=kit.WHITE, anchor="mm")
    name = short_name(statement)
    name_w = kit.text_width(name, TEXT, True)
    sym_top = 62  # the symbol row sits in the middle of the head, or above the tag
    if tag:
        # "replaceable", or "NEW" on the board just turned over, where the card must go:
        # beside the name where both fit, else under the statement.
        tag_w = kit.text_width(tag, SMALL, True) + 12
        beside = 58 + name_w + 12 + tag_w <= BW - 10
        at = (BW - 10, 14) if beside else (BW - 10, BOARD_HEAD - 34)
        c.label(at, tag, SMALL, fg=kit.INK, bg=kit.HIGHLIGHT if new else kit.PANEL_ALT, anchor="rt",
                outline=kit.INK if new else kit.RULE, secondary=True, pad=6)
        sym_top = 62 if beside else 52
    draw_fitted(c, (58, 30), name, BW - 70, ((TEXT, 1),), align="l")
    # Then the symbol and the whole statement beside it.
    c.panel((12, sym_top, 66, sym_top + 54), kit.PANEL_ALT, radius=10)
    draw_symbol(c, (17, sym_top + 5), symbol, 44)
    room = BW - 78 - 12
    # The statement's full wording: the rules text of the board its short name stands for.
    lines = wrap(text, 22, False, room)
    size, step = 22, 26
    if len(lines) > 2:
        lines, size, step = wrap(text, SMALL, False, room)[:3], SMALL, 21
    top = sym_top + 29 - step * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        c.text((78, top + i * step), line, size, anchor="lm", max_width=room, secondary=True)
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
