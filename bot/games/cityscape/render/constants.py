"""Cityscape pictures: sizes, colours and the board's geometry."""

from __future__ import annotations

from typing import Any

from bot.render import kit
from bot.render.kit import INK, MUTED, RGB, RULE

View = dict[str, Any]

WIDTH = 1200
MARGIN = 24
TEXT = kit.least_text(WIDTH)  # 30: what a player reads to choose a move
SMALL = kit.least_text(WIDTH, secondary=True)  # 20: captions, keys

# -- colours -----------------------------------------------------------------------------

# Buildings darken with height on a neutral slate ramp, kept clear of every player hue so
# a tall building is never mistaken for someone's colour.
SHADE_LIGHT: RGB = (214, 220, 228)
SHADE_DARK: RGB = (38, 46, 60)
SHADE_STEPS = 16  # 16 or taller all look the same: rare, and the number still says it
SHADES: tuple[RGB, ...] = tuple(
    kit.blend(SHADE_LIGHT, SHADE_DARK, i / (SHADE_STEPS - 1)) for i in range(SHADE_STEPS)
)
LOT: RGB = (238, 235, 224)  # a vacant lot, close to the paper so buildings stand out
SKY: RGB = (228, 238, 246)
GROUND: RGB = (120, 112, 96)


def shade(height: int) -> RGB:
    return SHADES[min(max(height, 1), SHADE_STEPS) - 1]


PALETTE = kit.KIT_PALETTE.extended(
    (*SHADES, LOT, SKY, GROUND),
    pairs=[(MUTED, LOT), (MUTED, SKY), (INK, SKY), (RULE, SKY)]
    + [(kit.HIGHLIGHT, s) for s in SHADES[::3]],
)

# -- board geometry ----------------------------------------------------------------------

STRIP = 48  # an owner's band along a board edge
LABEL = 34  # column letters / row numbers
CELL = 112
GRID = 4 * CELL
BOARD = 2 * (STRIP + LABEL) + GRID
HEADER = 176
BODY = HEADER + 8
RIGHT_X = MARGIN + BOARD + 24
RIGHT_W = WIDTH - MARGIN - RIGHT_X
SKY_COL = 112
SKY_GAP = (RIGHT_W - 2 * 20 - 4 * SKY_COL) // 3
SKY_H = 92
SIDE_PANEL_H = 196
BLOCKS_Y = BODY + BOARD + 12
CAPTION_Y = BLOCKS_Y + 76 + 32
