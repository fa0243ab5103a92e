"""Pictures of a Big City game, drawn from the engine's views only.

``render_table`` is the board everyone looks at between moves: whose turn it is and what is
happening, the scores, the whole city from above (every property numbered, every building
drawn by type in its owner's colour with the owner's marker shape, parks, factories, the
streetcar line, the city's outer edge drawn bold), what was just done and how it scored,
and the pieces and cards left. ``render_preview`` is the same city with letters on the
places a player can pick from a menu; ``render_final`` is the finished city with the
standings. All return PNG bytes and never touch discord or the disk (fonts aside), so they
run in a worker thread.

The city can be any shape up to all eight neighbourhoods, so it is scaled to fit a fixed
1200 px width (and a height cap). Discord shows images about 360 px wide on a phone, so
what a player needs is drawn at 30 px (1/40 of the width) or more and captions at 20 px or
more wherever the city leaves room for it (docs/pictures.md).

Cost: the map's static layer (streets, lots, numbers, neighbourhood outlines, outer edge)
depends only on where the neighbourhoods lie, so it is drawn once per city shape and
copied; icons and markers are cached masks; the PNG is encoded on a fixed palette.
"""

# The drawing lives in this package's modules, one job each; this module only names what
# callers use (the render pool looks the render_* functions up here by name).

from __future__ import annotations

from .city import _city_cells, _icon_name, _tiles
from .constants import FACTORY, GHOST, LOT, LOT_OUT, MAP_TOP, MARGIN, PARK, STREETCAR
from .final import render_extras, render_final
from .frame import _frame
from .icons import icon_mask
from .map_base import _map_base
from .map_pieces import _CITY_CACHE
from .preview import Labels, _ghost_cells, render_preview
from .table import render_table

__all__ = ["render_extras", "render_final", "render_preview", "render_table"]
