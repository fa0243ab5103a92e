"""Pictures of a Cities game, drawn from the engine's public view only.

``render_table`` is the shared board: the four rows (scoring cards, city tiles, feature
groups, building-piece groups and the star space) with what is left and whose workers
took the rest, the city's achievement board with its rings, every player's score so far
and workers left, whose turn it is and what they must place now. ``render_neighbourhood``
is one player's tiles, features and buildings with their held scoring cards and score so
far; ``render_preview`` is the same neighbourhood with lettered candidate spots (ghost
tiles for every rotation offered); ``render_final`` is every neighbourhood with its
scoring breakdown and the winners.

Face-down items arrive as ``{"face_down": true}`` and are drawn as card backs: nothing
here could show them, since the view never holds them.

Every space shows its kind twice, by colour and by a letter or pattern (R B G Y city
spaces, wavy water, dotted park); buildings carry their height as a number; players are a
colour plus a marker shape. Pictures are 1200 px wide; what a player reads to choose a
move, the achievements' and scoring cards' rules included, is at least 30 px (1/40 of the
width), records and keys at least 20 px (docs/pictures.md).
All functions return PNG bytes and touch neither discord nor the disk (fonts aside).
"""

# The drawing lives in this package's modules, one job each; this module only names what
# callers use (the render pool looks the render_* functions up here by name).

from __future__ import annotations

from .constants import (
    BACK,
    BACK_LINE,
    COLOUR_WORDS,
    FEATURE_FILL,
    GAP,
    GHOST,
    INNER,
    MARGIN,
    MONUMENT,
    PALETTE,
    ROW_ORDER,
    ROW_TITLES,
    SHORT_ART,
    SHORT_KIND,
    SMALL,
    SPACE_FILL,
    TEXT,
    TREE,
    WAVE,
    WIDTH,
    Space,
    View,
)
from .final import FINAL_BOLD, FINAL_LINE, render_final
from .hood import Hood
from .neighbourhood import (
    DETAIL_LINE,
    LEGEND_H,
    PART_KEYS,
    PART_LINE,
    SIDE_W,
    HoodLayout,
    render_neighbourhood,
)
from .neighbourhoods import NOTE_LINE, render_extras, render_neighbourhoods
from .preview import render_preview
from .table import (
    BAG_H,
    HEADING_H,
    PLAYER_H,
    ROW_HEIGHTS,
    RULE_LINE,
    RULE_TEXT,
    STATUS_H,
    TITLE_LINE,
    TITLE_TEXT,
    render_table,
)

__all__ = ["render_extras", "render_final", "render_neighbourhood", "render_neighbourhoods",
           "render_preview", "render_table"]
