"""Scale: where each cell of the city lands on a picture."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.render.kit import Box

from .constants import INNER_W, MAP_PAD, MARGIN, MAX_CELL, MAX_MAP_H, Cell, Point

# -- scale -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """Where the cells go: cell (x, y) spans px(x)..px(x + 1) by py(y)..py(y + 1)."""

    x0: int
    y0: int
    cols: int
    rows: int
    cell: int
    left: int
    top: int

    @property
    def gap(self) -> int:
        """Half a street: how far a lot sits inside its cell."""
        return max(2, round(self.cell * 0.07))

    @property
    def height(self) -> int:
        return self.rows * self.cell

    def px(self, x: float) -> float:
        return self.left + (x - self.x0) * self.cell

    def py(self, y: float) -> float:
        return self.top + (y - self.y0) * self.cell

    def point(self, corner: Point) -> Point:
        return self.px(corner[0]), self.py(corner[1])

    def centre(self, cell: Cell) -> Point:
        return self.px(cell[0] + 0.5), self.py(cell[1] + 0.5)

    def lot(self, cell: Cell) -> Box:
        g = self.gap
        x, y = cell
        return (round(self.px(x)) + g, round(self.py(y)) + g, round(self.px(x + 1)) - g,
                round(self.py(y + 1)) - g)


def _frame(cells: Iterable[Cell], top: int, max_h: int = MAX_MAP_H) -> Frame:
    """The largest cell size at which ``cells`` fit the map panel, centred in it."""
    cells = list(cells) or [(0, 0)]
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, y0 = min(xs), min(ys)
    cols, rows = max(xs) - x0 + 1, max(ys) - y0 + 1
    cell = max(8, min(MAX_CELL, (INNER_W - 2 * MAP_PAD) // cols, (max_h - 2 * MAP_PAD) // rows))
    left = MARGIN + (INNER_W - cols * cell) // 2
    return Frame(x0, y0, cols, rows, cell, left, top + MAP_PAD)


def _map_height(frame: Frame) -> int:
    return frame.height + 2 * MAP_PAD
