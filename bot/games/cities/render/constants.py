"""Cities pictures: sizes and colours."""

from __future__ import annotations

from typing import Any

from bot.render import kit
from bot.render.kit import INK, MUTED, RGB, RULE

View = dict[str, Any]
Space = tuple[int, int]

WIDTH = 1200
MARGIN = 24
INNER = WIDTH - 2 * MARGIN
GAP = 12
# docs/pictures.md: what a player reads to choose a move at 1/40 of the width, captions,
# keys, rules text and records of what was taken at 1/60.
TEXT = kit.least_text(WIDTH)  # 30
SMALL = kit.least_text(WIDTH, secondary=True)  # 20

# -- colours -------------------------------------------------------------------------------

SPACE_FILL: dict[str, RGB] = {
    "R": (196, 62, 52),
    "B": (44, 96, 186),
    "G": (52, 140, 72),
    "Y": (240, 198, 64),
    "W": (176, 214, 240),
    "P": (202, 230, 168),
}
WAVE: RGB = (78, 140, 196)
TREE: RGB = (112, 170, 92)
FEATURE_FILL: dict[str, RGB] = {"water": (22, 84, 146), "park": (34, 104, 50), "grey": (92, 92, 102)}
MONUMENT: RGB = (58, 56, 66)
BACK: RGB = (58, 64, 98)
BACK_LINE: RGB = (86, 94, 134)
GHOST: RGB = (250, 244, 190)

COLOUR_WORDS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
ROW_ORDER = ("cards", "tiles", "features", "pieces")
ROW_TITLES = {"cards": "Scoring cards", "tiles": "City tiles", "features": "Feature tiles",
              "pieces": "Building pieces"}
SHORT_KIND = {
    "Sailboat": "Sail", "Ferry": "Ferry", "Kayaks": "Kayak", "Swimmers": "Swim",
    "Fountain": "Fount", "Playground": "Play", "Picnic area": "Picnic", "Bandstand": "Band",
    "Wild": "WILD", "Monument": "Monu",
}
SHORT_ART = {
    "Triumphal arch": "Arch", "Clock tower": "Clock", "Observation wheel": "Wheel",
}

PALETTE = kit.KIT_PALETTE.extended(
    (*SPACE_FILL.values(), WAVE, TREE, *FEATURE_FILL.values(), MONUMENT, BACK, BACK_LINE,
     GHOST),
    pairs=[(INK, GHOST), (MUTED, GHOST), (INK, RULE)],
)
