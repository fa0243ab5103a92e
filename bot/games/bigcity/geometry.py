"""Cells, rotation, streets, adjacency, outskirts and shapes.

Coordinates: a property occupies the cell (x, y), x to the east and y to the south; cell
(x, y) has the corners (x, y) to (x + 1, y + 1). A street is a unit segment between two
corners, stored as a pair of corners in increasing order. Two properties are adjacent when
they lie on opposite sides of one street: orthogonal neighbours, never diagonal ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from bot.games.bigcity.content import neighborhood_grid

Cell = tuple[int, int]
Point = tuple[int, int]
Segment = tuple[Point, Point]

ROTATIONS: Final[tuple[int, ...]] = (0, 90, 180, 270)
DIRECTIONS: Final[tuple[Cell, ...]] = ((0, -1), (1, 0), (0, 1), (-1, 0))  # north, east, south, west
DIRECTION_NAMES: Final[tuple[str, ...]] = ("north", "east", "south", "west")


def rotate(dx: int, dy: int, rotation: int) -> Cell:
    """Turn an offset clockwise (on the table, where y grows to the south)."""
    for _ in range(rotation // 90 % 4):
        dx, dy = -dy, dx
    return dx, dy


def neighborhood_layout(number: int, at: Cell, rotation: int) -> dict[int, Cell]:
    """Property number → cell, for a neighbourhood placed with property n1 on ``at``."""
    return dict(_layout(number, at[0], at[1], rotation))


@lru_cache(maxsize=4096)
def _layout(number: int, x: int, y: int, rotation: int) -> tuple[tuple[int, Cell], ...]:
    columns, rows = neighborhood_grid(number)
    layout: list[tuple[int, Cell]] = []
    for k in range(columns * rows):
        dx, dy = rotate(k % columns, k // columns, rotation)
        layout.append((number * 10 + k + 1, (x + dx, y + dy)))
    return tuple(layout)


def property_cell(prop: int, at: Cell, rotation: int) -> Cell:
    """The cell of one property of a neighbourhood placed with property n1 on ``at``."""
    columns, _rows = neighborhood_grid(prop // 10)
    k = prop % 10 - 1
    dx, dy = rotate(k % columns, k // columns, rotation)
    return (at[0] + dx, at[1] + dy)


def neighbors(cell: Cell) -> list[Cell]:
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in DIRECTIONS]


def adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def side(cell: Cell, direction: int) -> Segment:
    """The street along one side of a cell (direction index into DIRECTIONS)."""
    x, y = cell
    if direction == 0:
        return ((x, y), (x + 1, y))
    if direction == 1:
        return ((x + 1, y), (x + 1, y + 1))
    if direction == 2:
        return ((x, y + 1), (x + 1, y + 1))
    return ((x, y), (x, y + 1))


def sides(cell: Cell) -> list[Segment]:
    return [side(cell, d) for d in range(4)]


def street_between(a: Cell, b: Cell) -> Segment:
    """The street separating two adjacent cells."""
    for d, (dx, dy) in enumerate(DIRECTIONS):
        if (a[0] + dx, a[1] + dy) == b:
            return side(a, d)
    raise ValueError(f"cells {a} and {b} are not adjacent")


def segment_cells(segment: Segment) -> tuple[Cell, Cell]:
    """The two cells on either side of a street."""
    (x1, y1), (_, y2) = segment
    if y1 == y2:  # horizontal: the cell above and the cell below
        return (x1, y1 - 1), (x1, y1)
    return (x1 - 1, y1), (x1, y1)


def normalize_segment(value: object) -> Segment | None:
    """A street from ``[[x1, y1], [x2, y2]]`` (either order), or None if it is not a unit segment."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    points: list[Point] = []
    for point in value:
        if (
            not isinstance(point, list | tuple)
            or len(point) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in point)
        ):
            return None
        points.append((point[0], point[1]))
    a, b = sorted(points)
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
        return None
    return (a, b)


def segment_json(segment: Segment) -> list[list[int]]:
    return [list(segment[0]), list(segment[1])]


def outside_cells(cells: set[Cell]) -> set[Cell]:
    """Empty cells connected to the open table: the flood fill from beyond the city's bounding
    box. Empty cells enclosed by the city (holes) are not outside; a hole that touches the
    outside only at a corner is enclosed too (nothing passes through a corner)."""
    if not cells:
        return set()
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    start = (x0, y0)
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            if x0 <= nx <= x1 and y0 <= ny <= y1 and (nx, ny) not in seen and (nx, ny) not in cells:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return seen


def outskirts_cells(cells: Iterable[Cell]) -> frozenset[Cell]:
    """City cells with at least one side on the city's outer edge."""
    return _outskirts(frozenset(cells))


@lru_cache(maxsize=1024)
def _outskirts(cells: frozenset[Cell]) -> frozenset[Cell]:
    outside = outside_cells(set(cells))
    return frozenset(c for c in cells if any(n in outside for n in neighbors(c)))


# Shapes as offset sets, each normalised so its smallest x and y are 0.
SHAPES: Final[dict[str, tuple[frozenset[Cell], ...]]] = {
    "single": (frozenset({(0, 0)}),),
    "pair": (frozenset({(0, 0), (1, 0)}), frozenset({(0, 0), (0, 1)})),
    "line3": (frozenset({(0, 0), (1, 0), (2, 0)}), frozenset({(0, 0), (0, 1), (0, 2)})),
    "l3": tuple(
        frozenset({(0, 0), (1, 0), (0, 1), (1, 1)} - {missing})
        for missing in ((0, 0), (1, 0), (0, 1), (1, 1))
    ),
    "square": (frozenset({(0, 0), (1, 0), (0, 1), (1, 1)}),),
}


def normalize_shape(cells: Iterable[Cell]) -> frozenset[Cell]:
    cells = list(cells)
    mx = min(c[0] for c in cells)
    my = min(c[1] for c in cells)
    return frozenset((x - mx, y - my) for x, y in cells)


def has_shape(cells: Iterable[Cell], shape: str) -> bool:
    cells = list(cells)
    if len(set(cells)) != len(cells) or not cells:
        return False
    return normalize_shape(cells) in SHAPES[shape]


def shape_sites(cells: Iterable[Cell], shape: str) -> list[tuple[Cell, ...]]:
    """Every placement of ``shape`` on the given cells (each a sorted tuple of cells)."""
    pool = set(cells)
    sites: list[tuple[Cell, ...]] = []
    for x, y in sorted(pool):
        for offsets in SHAPES[shape]:
            # each variant is anchored on its smallest cell, so every site is found once
            ax, ay = min(offsets)
            site = tuple(sorted((x + dx - ax, y + dy - ay) for dx, dy in offsets))
            if all(c in pool for c in site):
                sites.append(site)
    return sites


def internal_streets(cells: Iterable[Cell]) -> list[Segment]:
    """Streets between two cells of the same group (covered by a multi-property piece)."""
    group = list(cells)
    return [
        street_between(a, b) for i, a in enumerate(group) for b in group[i + 1 :] if adjacent(a, b)
    ]
