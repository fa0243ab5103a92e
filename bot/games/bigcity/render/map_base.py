"""The map's static layer: streets, lots, numbers, outlines, outer edge."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from PIL import Image, ImageDraw

from bot.render.cache import MB, packed_cache
from bot.render.kit import INK, MUTED, PANEL_ALT, PAPER, RGB, Canvas

from ..geometry import outside_cells
from .city import Tile, _city_cells, _outskirt_cells
from .constants import LOT, LOT_OUT, MAP_PAD, MARGIN, STREET, WIDTH, Cell, Point
from .frame import Frame

# -- the map: static layer ---------------------------------------------------------------


def _outline_lines(cells: set[Cell], inset: float, frame: Frame,
                   edge: Callable[[Cell, Cell], bool] | None = None
                   ) -> list[tuple[Point, Point]]:
    """The boundary of a group of cells as px segments, ``inset`` px inside it.

    ``edge(cell, neighbour)`` may further pick which sides count (default: every side
    whose neighbour is not in the group).
    """
    lines: list[tuple[Point, Point]] = []
    for x, y in cells:
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            nb = (x + dx, y + dy)
            if nb in cells or (edge is not None and not edge((x, y), nb)):
                continue
            # the side's two corners, pulled inwards and lengthened or shortened so that
            # consecutive sides meet at the inset corner
            if dy:
                yy = frame.py(y + (1 if dy > 0 else 0)) - dy * inset
                xa = frame.px(x) + (0 if (x - 1, y) in cells else inset)
                xb = frame.px(x + 1) - (0 if (x + 1, y) in cells else inset)
                lines.append(((xa, yy), (xb, yy)))
            else:
                xx = frame.px(x + (1 if dx > 0 else 0)) - dx * inset
                ya = frame.py(y) + (0 if (x, y - 1) in cells else inset)
                yb = frame.py(y + 1) - (0 if (x, y + 1) in cells else inset)
                lines.append(((xx, ya), (xx, yb)))
    return lines


def _stroke(draw: ImageDraw.ImageDraw, lines: Iterable[tuple[Point, Point]], fill: RGB,
            width: int) -> None:
    """Lines lengthened by half their width at both ends, so corners close."""
    half = width / 2
    for (xa, ya), (xb, yb) in lines:
        if ya == yb:
            x0, x1 = sorted((xa, xb))
            top = round(ya - half)
            draw.rectangle((round(x0 - half), top, max(round(x0 - half), round(x1 + half) - 1),
                            top + width - 1), fill=fill)
        else:
            y0, y1 = sorted((ya, yb))
            left = round(xa - half)
            draw.rectangle((left, round(y0 - half), left + width - 1,
                            max(round(y0 - half), round(y1 + half) - 1)), fill=fill)


def _number_size(frame: Frame) -> int:
    return max(12, min(40, round(frame.cell * 0.36)))


def _small_number_size(frame: Frame) -> int:
    return max(11, min(24, round(frame.cell * 0.25)))


# The last city shape is kept as drawn (2.6-4 MB: the next player's preview of the same
# match pastes it), older ones compressed (~25 KB each), so the shapes of the ~100
# matches last drawn stay: a hit costs ~0.5 ms, a miss ~30 ms (bot/render/cache.py). A second
# shape as drawn was never hit under mixed traffic (another match's table comes between).
@packed_cache(3 * MB, hot_bytes=9 * MB // 2)
def _map_base(tiles: tuple[Tile, ...], frame: Frame, map_h: int) -> Image.Image:
    """The city without pieces or streetcars: streets, numbered lots, outlines, outer edge.

    Drawn on a strip as wide as the picture and ``map_h`` tall, pasted at the map's top.
    Each call returns a new image (the caller may draw on it).
    """
    c = Canvas.new(WIDTH, map_h, PAPER)
    shifted = replace(frame, top=MAP_PAD)
    c.panel((MARGIN, 0, WIDTH - MARGIN - 1, map_h - 1), PANEL_ALT, radius=18)
    cells = set(_city_cells(tiles))
    outside = outside_cells(cells)
    outskirts = _outskirt_cells(frozenset(cells))
    for cell in cells:
        x, y = cell
        c.draw.rectangle((round(shifted.px(x)), round(shifted.py(y)),
                          round(shifted.px(x + 1)) - 1, round(shifted.py(y + 1)) - 1),
                         fill=STREET)
    size = _number_size(shifted)
    for tile in tiles:
        for prop, cell in tile.cells:
            box = shifted.lot(cell)
            fill = LOT_OUT if cell in outskirts else LOT
            c.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=fill)
            c.text(shifted.centre(cell), str(prop), size, fill=INK, anchor="mm")
    thin = max(1, round(frame.cell / 40))
    # Neighbourhood borders (between tiles) in the middle of their street, thin.
    between: list[tuple[Point, Point]] = []
    for tile in tiles:
        own = {cell for _p, cell in tile.cells}
        between += _outline_lines(own, 0, shifted,
                                  lambda _c, nb: nb in cells)  # only sides facing another tile
    _stroke(c.draw, between, MUTED, thin + 2)
    # Holes inside the city are not outer edge: a thin line; the outer edge is bold.
    _stroke(c.draw, _outline_lines(cells, 0, shifted, lambda _c, nb: nb not in outside),
            MUTED, thin + 1)
    _stroke(c.draw, _outline_lines(cells, 0, shifted, lambda _c, nb: nb in outside), INK,
            max(3, round(frame.cell * 0.06)))
    return c.image
