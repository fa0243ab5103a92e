"""Table geometry: where boards, risk fields and scores lie."""

from __future__ import annotations

from PIL import Image

from bot.render.kit import Box, Canvas

from .constants import GAP, MARGIN, PALETTE, WIDTH

# -- table geometry ----------------------------------------------------------------------

BW = 400  # a statement board's width
MW = WIDTH - 2 * MARGIN - 2 * BW - 2 * GAP  # the middle column
HEADER_H = 118
GRID_Y = HEADER_H
# Number, symbol and name, then the statement across the board in up to three lines at the
# size a player reads to choose (1/40 of the width), then a row for the tag ("replaceable",
# "NEW") where it does not fit beside the name (else a fourth line for a long statement). With six players the table stays within
# 1200 × 1400.
BOARD_HEAD = 190
STATEMENT_LINES = 3
TAG_TOP = 154
SQUARE_H = 42
SQUARE_GAP = 4
HB = BOARD_HEAD + 4 * SQUARE_H + 3 * SQUARE_GAP + 10  # a board's height
HM = 188  # the middle row: side risk fields and the city
ROW_B = GRID_Y + HB + GAP
ROW_C = ROW_B + HM + GAP
GRID_BOTTOM = ROW_C + HB
COL_M = MARGIN + BW + GAP
COL_R = COL_M + MW + GAP
BADGE_W = 84
BOTTOM_Y = GRID_BOTTOM  # the info line and the scores are drawn below this, every time
INFO_Y = 30  # from BOTTOM_Y
SCORE_Y = 60  # from BOTTOM_Y
SCORE_ROW = 54
# The score bar beside each name keeps at least this much (px) when names are long.
SCORE_BAR_LEAST = 70

BOARD_XY: dict[int, tuple[int, int]] = {
    1: (MARGIN, GRID_Y),
    2: (COL_R, GRID_Y),
    3: (COL_R, ROW_C),
    4: (MARGIN, ROW_C),
}
# Where the two risk fields between neighbouring boards lie: between 1 and 2 above the
# city, 3 and 4 below it, 2 and 3 to its right, 4 and 1 to its left.
RISK_AREAS: dict[str, Box] = {
    "1-2": (COL_M, GRID_Y, COL_M + MW, GRID_Y + HB),
    "2-3": (COL_R, ROW_B, COL_R + BW, ROW_B + HM),
    "3-4": (COL_M, ROW_C, COL_M + MW, ROW_C + HB),
    "4-1": (MARGIN, ROW_B, MARGIN + BW, ROW_B + HM),
}
CENTRE: Box = (COL_M, ROW_B, COL_M + MW, ROW_B + HM)


def _score_rows(players: int) -> int:
    return (players + 1) // 2 if players > 2 else 1


def _bottom_height(players: int) -> int:
    return SCORE_Y + 52 + _score_rows(players) * SCORE_ROW + 8 + MARGIN


def _table_height(players: int) -> int:
    return BOTTOM_Y + _bottom_height(players)


def _quantized(c: Canvas) -> Image.Image:
    """A tile mapped onto the table's palette, ready to paste into the paletted table.

    Pixels map one by one (no dithering), so a tile pasted into the table gives exactly
    the picture that quantizing the whole table at once would give, at a fraction of the
    cost: a tile that did not change since the last move is not drawn again at all.
    """
    return c.image.quantize(palette=PALETTE.image, dither=Image.Dither.NONE)
