"""Neighbourhood geometry and drawing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.render.kit import INK, RULE, Canvas

from ..content import CONTENT
from ..neighbourhood import Neighbourhood
from .constants import COLOUR_WORDS, Space
from .helpers import _space_of
from .pieces import _building, _feature, _space_image

# -- neighbourhood geometry ----------------------------------------------------------------


class Hood:
    """A neighbourhood from the view: spaces, features, buildings, tile positions."""

    def __init__(self, data: dict[str, Any] | None) -> None:
        data = data or {}
        self.tiles: list[tuple[int, int]] = [_space_of(t["at"]) for t in data.get("tiles") or []]
        self.kinds: dict[Space, str] = {}
        self.features: dict[Space, dict[str, Any]] = {}
        self.buildings: dict[Space, tuple[str, int]] = {}
        for entry in data.get("spaces") or []:
            space = _space_of(entry["space"])
            self.kinds[space] = str(entry.get("type"))
            if entry.get("feature"):
                self.features[space] = entry["feature"]
            if entry.get("building"):
                b = entry["building"]
                self.buildings[space] = (str(b["color"]), int(b["height"]))
        self.raw = data

    def tile_bounds(self, extra: Sequence[tuple[int, int]] = ()) -> tuple[int, int, int, int]:
        spots = list(self.tiles) + list(extra)
        if not spots:
            return 0, 0, 0, 0
        rows = [s[0] for s in spots]
        cols = [s[1] for s in spots]
        return min(rows), max(rows), min(cols), max(cols)

    def engine_hood(self) -> Neighbourhood:
        state = {
            "tiles": self.raw.get("tiles") or [],
            "features": {f"{s[0]},{s[1]}": f["id"] for s, f in self.features.items()
                         if f.get("id") in CONTENT.features},
            "buildings": {f"{s[0]},{s[1]}": {"color": c, "height": h}
                          for s, (c, h) in self.buildings.items()},
        }
        return Neighbourhood.from_state(state)


def _draw_hood(canvas: Canvas, hood: Hood, origin: tuple[int, int], size: int,
               bounds: tuple[int, int, int, int]) -> None:
    """Spaces, tile edges, features and buildings; ``bounds`` = tile rows/cols drawn."""
    ox, oy = origin
    r0, _r1, c0, _c1 = bounds

    def xy(space: Space) -> tuple[int, int]:
        return ox + (space[1] - 2 * c0) * size, oy + (space[0] - 2 * r0) * size

    for space, code in hood.kinds.items():
        canvas.image.paste(_space_image(code, size), xy(space))
    draw = canvas.draw
    for space in hood.kinds:
        x, y = xy(space)
        draw.rectangle((x, y, x + size - 1, y + size - 1), outline=RULE, width=1)
    for at in hood.tiles:
        x, y = xy((2 * at[0], 2 * at[1]))
        draw.rectangle((x - 1, y - 1, x + 2 * size, y + 2 * size), outline=INK, width=3)
    for space, feature in hood.features.items():
        x, y = xy(space)
        # On water and park a token is as large as its word needs; on a city space it
        # leaves the colour's letter in the corner readable.
        inset = max(4, round(size * (0.2 if hood.kinds.get(space) in COLOUR_WORDS else 0.1)))
        _feature(canvas, feature, (x + inset, y + inset, x + size - inset // 2,
                                   y + size - inset // 2))
    pad = max(3, round(size * 0.14))
    for space, (colour, height) in hood.buildings.items():
        x, y = xy(space)
        _building(canvas, colour, height, (x + pad + size // 10, y + pad, x + size - pad // 2,
                                           y + size - pad + size // 10 - size // 10))


def _hood_size(bounds: tuple[int, int, int, int]) -> tuple[int, int]:
    """Rows and columns of spaces the bounds cover."""
    r0, r1, c0, c1 = bounds
    return 2 * (r1 - r0 + 1), 2 * (c1 - c0 + 1)
