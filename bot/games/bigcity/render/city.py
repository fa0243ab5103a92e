"""The city as the view describes it: tiles, pieces, streetcar segments."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.render.cache import KB, byte_cache

from ..content import BUILDINGS, SPECIAL_CARDS
from ..geometry import neighborhood_layout, outside_cells
from .constants import SPECIAL_BUILDINGS, Cell, View

# -- the city as the view describes it ---------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A building, park or factory on its properties."""

    index: int
    building: str
    properties: tuple[int, ...]
    cells: tuple[Cell, ...]
    owner: str | None
    points: int
    explanation: str


@dataclass(frozen=True)
class Tile:
    """A placed neighbourhood: its number and its properties' cells."""

    number: int
    at: Cell
    rotation: int
    cells: tuple[tuple[int, Cell], ...]  # (property, cell)


def _tiles(view: View) -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    for entry in view.get("neighborhoods") or []:
        number = int(entry.get("number", 0))
        at_raw = entry.get("at") or [0, 0]
        at = (int(at_raw[0]), int(at_raw[1]))
        rotation = int(entry.get("rotation", 0))
        raw_cells = entry.get("cells")
        if raw_cells:
            cells = tuple((int(c["property"]), (int(c["cell"][0]), int(c["cell"][1])))
                          for c in raw_cells)
        elif 1 <= number <= 8:
            cells = tuple(neighborhood_layout(number, at, rotation).items())
        else:
            continue
        tiles.append(Tile(number, at, rotation, cells))
    if not tiles:
        # Without placements in the view, fall back on the properties' own cells, grouped by
        # neighbourhood; a view with neither shows neighbourhood 1 where it always lies.
        grouped: dict[int, list[tuple[int, Cell]]] = {}
        for prop in view.get("properties") or []:
            if prop.get("cell") is None:
                continue
            number = int(prop.get("neighborhood") or int(prop["property"]) // 10)
            grouped.setdefault(number, []).append(
                (int(prop["property"]), (int(prop["cell"][0]), int(prop["cell"][1]))))
        for number, members in grouped.items():
            tiles.append(Tile(number, members[0][1], 0, tuple(members)))
    if not tiles:
        tiles.append(Tile(1, (0, 0), 0, tuple(neighborhood_layout(1, (0, 0), 0).items())))
    return tuple(tiles)


def _cell_of(tiles: Sequence[Tile]) -> dict[int, Cell]:
    return {prop: cell for tile in tiles for prop, cell in tile.cells}


def _pieces(view: View, cell_of: dict[int, Cell]) -> list[Piece]:
    raw = view.get("buildings")
    if raw is None:
        # Rebuild the pieces from the properties when the list is missing.
        grouped: dict[Any, dict[str, Any]] = {}
        for prop in view.get("properties") or []:
            if not prop.get("building"):
                continue
            key = prop.get("piece", prop["property"])
            entry = grouped.setdefault(key, {"building": prop["building"], "properties": [],
                                             "owner": prop.get("owner")})
            entry["properties"].append(prop["property"])
        raw = list(grouped.values())
    pieces = []
    for i, entry in enumerate(raw):
        props = tuple(int(p) for p in entry.get("properties") or [])
        cells = tuple(cell_of[p] for p in props if p in cell_of)
        if not cells:
            continue
        owner = entry.get("owner")
        pieces.append(Piece(int(entry.get("id", i)), str(entry.get("building", "")), props,
                            cells, None if owner is None else str(owner),
                            int(entry.get("points") or 0), str(entry.get("explanation") or "")))
    return pieces


def _segments(raw: Iterable[Any]) -> list[tuple[Cell, Cell]]:
    out = []
    for seg in raw or []:
        try:
            (x1, y1), (x2, y2) = seg
            out.append(((int(x1), int(y1)), (int(x2), int(y2))))
        except (TypeError, ValueError):
            continue
    return out


def _kind(building: str) -> str:
    """residence, business, special, park, factory (or "" for something unknown)."""
    if building in SPECIAL_CARDS:
        return SPECIAL_CARDS[building][1]
    if building in BUILDINGS:
        return BUILDINGS[building][2]
    return ""


def _icon_name(building: str) -> str:
    kind = _kind(building)
    if kind in ("residence", "business", "park", "factory"):
        return kind
    return building if building in SPECIAL_BUILDINGS else "unknown"


def _city_cells(tiles: Sequence[Tile]) -> list[Cell]:
    return [cell for tile in tiles for _p, cell in tile.cells]


@byte_cache(256 * KB)
def _outskirt_cells(cells: frozenset[Cell]) -> frozenset[Cell]:
    outside = outside_cells(set(cells))
    return frozenset(cell for cell in cells
                     if any((cell[0] + dx, cell[1] + dy) in outside
                            for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))))
