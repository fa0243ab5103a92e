"""Big Cityz pictures: sizes and colours."""

from __future__ import annotations

from typing import Any

from bot.render import kit
from bot.render.kit import BAD, GOOD, HIGHLIGHT, INK, MUTED, PANEL, PANEL_ALT, RGB, RULE

View = dict[str, Any]

WIDTH = 1200
MARGIN = 24
TEXT = kit.least_text(WIDTH)  # 30: what a player reads to choose a move
SMALL = kit.least_text(WIDTH, secondary=True)  # 20: captions, statements, records
GAP = 12
WINNING_SCORE = 36  # "The game is over once a player has at least 36 points"

# -- colours -----------------------------------------------------------------------------

GOOD_TINT: RGB = kit.blend(GOOD, PANEL, 0.86)  # a free green square
BAD_TINT: RGB = kit.blend(BAD, PANEL, 0.86)  # a free red square
CENTRE_BG: RGB = (250, 246, 226)  # the wind rose in the middle of the board

PALETTE = kit.KIT_PALETTE.extended(
    (GOOD_TINT, BAD_TINT, CENTRE_BG),
    pairs=[(INK, GOOD_TINT), (INK, BAD_TINT), (MUTED, GOOD_TINT), (MUTED, BAD_TINT),
           (GOOD, GOOD_TINT), (BAD, BAD_TINT), (GOOD, PANEL), (BAD, PANEL), (INK, CENTRE_BG),
           (MUTED, CENTRE_BG), (GOOD, HIGHLIGHT), (BAD, HIGHLIGHT), (MUTED, HIGHLIGHT),
           (RULE, PANEL), (GOOD, PANEL_ALT), (BAD, PANEL_ALT)],
)
