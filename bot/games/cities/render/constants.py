"""Cities pictures: sizes and colours."""

from __future__ import annotations

from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import INK, MUTED, RGB, RULE

_ = Words("bot.games.cities")
_l = _.lazy

View = dict[str, Any]
Space = tuple[int, int]

WIDTH = 1200
MARGIN = 24
INNER = WIDTH - 2 * MARGIN
GAP = 12
# docs/pictures.md: what a player reads to choose a move at 1/40 of the width (the goals'
# and scoring cards' rules too), captions, keys and records of what was taken at 1/60.
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
ROW_TITLES = {"cards": _l("Scoring cards"), "tiles": _l("City tiles"),
              "features": _l("Feature tiles"), "pieces": _l("Building pieces")}
# TRANSLATORS: the word on a small feature token (at most about 6 letters; a word too wide
# for the token is left off, the token's colour and star still say what it is).
SHORT_KIND = {
    "Sailboat": _l("Sail"), "Ferry": _l("Ferry"), "Kayaks": _l("Kayak"), "Swimmers": _l("Swim"),
    "Fountain": _l("Fount"), "Playground": _l("Play"), "Picnic area": _l("Picnic"),
    "Bandstand": _l("Band"), "Wild": _l("WILD"), "Monument": _l("Monu"),
}
SHORT_ART = {
    "Triumphal arch": _l("Arch"), "Clock tower": _l("Clock"), "Observation wheel": _l("Wheel"),
}

PALETTE = kit.KIT_PALETTE.extended(
    (*SPACE_FILL.values(), WAVE, TREE, *FEATURE_FILL.values(), MONUMENT, BACK, BACK_LINE,
     GHOST),
    pairs=[(INK, GHOST), (MUTED, GHOST), (INK, RULE)],
)
