"""Big City pictures: sizes, colours, layout and the words for kinds of building."""

from __future__ import annotations

from typing import Any

from bot.core.i18n import Text, Words
from bot.render import kit
from bot.render.kit import INK, MUTED, PANEL, RGB, RULE, WHITE

_ = Words("bot.games.bigcity")
_l = _.lazy

View = dict[str, Any]
Cell = tuple[int, int]
Point = tuple[float, float]

WIDTH = 1200
MARGIN = 24
INNER_W = WIDTH - 2 * MARGIN

# -- colours -----------------------------------------------------------------------------

STREET: RGB = RULE  # the streets between the lots
LOT: RGB = PANEL  # a free property in the center of the city
LOT_OUT: RGB = (246, 232, 200)  # a free property on the outskirts: warm sand
PARK: RGB = (178, 214, 146)
PARK_INK: RGB = (34, 92, 34)
FACTORY: RGB = (84, 84, 92)
STREETCAR: RGB = (176, 28, 70)  # crimson, with an ink casing: never a player colour
GHOST: RGB = (250, 244, 190)  # a neighbourhood position on a preview

PALETTE = kit.KIT_PALETTE.extended(
    (LOT_OUT, PARK, PARK_INK, FACTORY, STREETCAR, GHOST),
    pairs=[(MUTED, LOT_OUT), (MUTED, RULE), (INK, RULE), (PARK_INK, PARK), (MUTED, GHOST),
           (INK, GHOST), (WHITE, FACTORY)],
)

# -- layout ------------------------------------------------------------------------------

HEAD_Y = 40  # headline
SUB_Y = 90  # subline
SCORES_Y = 140  # scoreboard row
MAP_TOP = 172
MAP_PAD = 22  # room around the city inside the map panel
# A small city is drawn large: the map is cropped to the city, not to all eight places.
MAX_CELL = 150
MAX_MAP_H = 820
ROW_H = 50  # a row of the pieces panel
TEXT = kit.least_text(WIDTH)  # 30: what a player reads to choose a move
SMALL = kit.least_text(WIDTH, secondary=True)  # 20: captions

KIND_WORDS: dict[str, Text] = {
    "residence": _l("Residences"),
    "business": _l("Businesses"),
}
SPECIAL_BUILDINGS = ("city_hall", "church", "cinema", "post_office", "bank", "shopping_center")
ENDED_BY: dict[str, Text] = {
    "all_passed": _l("every player passed in turn"),
    "city_complete": _l("the city is complete"),
}
