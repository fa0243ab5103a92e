"""Pictures of a Cityscape game, drawn from the engine's public view only.

``render_table`` is the board everyone looks at between moves: whose turn it is, the city
from above, and each side's skyline as that player sees it. ``render_scoring`` reveals a
round's goals and explains every line's points. Both return PNG bytes and never touch
discord or the disk (fonts aside), so they run in a worker thread.

Layout is fixed at 1200 px wide: Discord shows images about 360 px wide on a phone, so
what a player reads to choose a move is drawn at 30 px (1/40 of the width) or more and
captions, keys and the skylines (which only restate the board) at 20 px or more
(docs/pictures.md).
"""

# The drawing lives in this package's modules, one job each; this module only names what
# callers use (the render pool looks the render_* functions up here by name).

from __future__ import annotations

from .scoring import render_extras, render_scoring
from .table import render_table

__all__ = ["render_extras", "render_scoring", "render_table"]
