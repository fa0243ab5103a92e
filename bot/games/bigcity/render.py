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

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from PIL import Image, ImageDraw

from bot.render import kit
from bot.render.cache import KB, MB, ByteLRU, byte_cache
from bot.render.fonts import font
from bot.render.kit import INK, MUTED, PANEL, PANEL_ALT, PAPER, RGB, RULE, WHITE, Box, Canvas

from .content import BUILDINGS, SPECIAL_CARDS
from .geometry import neighborhood_layout, outside_cells

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

KIND_WORDS = {
    "residence": "Residences",
    "business": "Businesses",
}
SPECIAL_BUILDINGS = ("city_hall", "church", "cinema", "post_office", "bank", "shopping_center")
ENDED_BY = {
    "all_passed": "every player passed in turn",
    "city_complete": "the city is complete",
}


# -- who is who --------------------------------------------------------------------------


class Cast:
    """Each player's style and a drawable name, in seat order."""

    def __init__(self, view: View) -> None:
        players = [str(p) for p in view.get("players") or []]
        # Owners the list lacks (a view missing keys) still get a style of their own.
        for piece in view.get("buildings") or []:
            owner = piece.get("owner")
            if owner is not None and str(owner) not in players:
                players.append(str(owner))
        self.players = players
        self.index = {p: i for i, p in enumerate(players)}

    def style(self, player: str) -> kit.PlayerStyle:
        return kit.player_style(self.index.get(player, 0))

    def fallback(self, player: str) -> str:
        return f"Player {self.index.get(player, 0) + 1}"

    def name(self, player: str, size: int, bold: bool = True, max_width: int | None = None) -> str:
        return kit.prepare(player, size, bold, max_width, self.fallback(player))

    def chip(self, player: str) -> tuple[str, Any]:
        return ("chip", (player, self.style(player), self.fallback(player)))


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


def _title(building: str) -> str:
    if building in SPECIAL_CARDS:
        return SPECIAL_CARDS[building][3]
    if building in BUILDINGS:
        return BUILDINGS[building][3]
    return building.replace("_", " ").capitalize()


def _icon_name(building: str) -> str:
    kind = _kind(building)
    if kind in ("residence", "business", "park", "factory"):
        return kind
    return building if building in SPECIAL_BUILDINGS else "unknown"


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


# -- icons -------------------------------------------------------------------------------

_SS = 4  # icons are drawn 4x larger, then reduced: smooth edges


@byte_cache(256 * KB)
def icon_mask(name: str, size: int) -> Image.Image:
    """Coverage of a building icon in a size x size square."""
    s = max(1, size) * _SS
    mask = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(mask)

    def rect(x0: float, y0: float, x1: float, y1: float, fill: int = 255) -> None:
        d.rectangle((x0 * s, y0 * s, x1 * s, y1 * s), fill=fill)

    def poly(points: Sequence[Point], fill: int = 255) -> None:
        d.polygon([(x * s, y * s) for x, y in points], fill=fill)

    if name == "residence":  # a house with a pitched roof
        poly([(0.02, 0.52), (0.5, 0.06), (0.98, 0.52)])
        rect(0.66, 0.12, 0.8, 0.4)
        rect(0.16, 0.48, 0.84, 0.94)
        rect(0.41, 0.64, 0.59, 0.94, 0)
    elif name == "business":  # an office tower with windows
        rect(0.18, 0.04, 0.82, 0.96)
        for wx in (0.29, 0.57):
            for wy in (0.13, 0.32, 0.51, 0.7):
                rect(wx, wy, wx + 0.14, wy + 0.11, 0)
    elif name == "city_hall":  # columns under a pediment
        poly([(0.02, 0.34), (0.5, 0.04), (0.98, 0.34)])
        rect(0.04, 0.34, 0.96, 0.44)
        for cx in (0.1, 0.32, 0.54, 0.76):
            rect(cx, 0.48, cx + 0.14, 0.82)
        rect(0.02, 0.84, 0.98, 0.96)
    elif name == "church":  # a cross
        rect(0.41, 0.02, 0.59, 0.98)
        rect(0.14, 0.24, 0.86, 0.42)
    elif name == "cinema":  # a film strip with a play sign
        rect(0.02, 0.14, 0.98, 0.86)
        for i in range(5):
            hx = 0.08 + i * 0.19
            rect(hx, 0.2, hx + 0.09, 0.29, 0)
            rect(hx, 0.71, hx + 0.09, 0.8, 0)
        poly([(0.38, 0.36), (0.66, 0.5), (0.38, 0.64)], 0)
    elif name == "post_office":  # an envelope
        rect(0.02, 0.18, 0.98, 0.82)
        d.line([(0.06 * s, 0.22 * s), (0.5 * s, 0.56 * s), (0.94 * s, 0.22 * s)], fill=0,
               width=max(1, round(0.09 * s)), joint="curve")
    elif name == "bank":  # a dollar sign
        face = font(round(s * 0.98), True)
        d.text((s / 2, s / 2), "$", font=face, fill=255, anchor="mm")
    elif name == "shopping_center":  # a shopping bag
        poly([(0.12, 0.36), (0.88, 0.36), (0.96, 0.96), (0.04, 0.96)])
        d.arc((0.28 * s, 0.06 * s, 0.72 * s, 0.6 * s), 180, 360, fill=255,
              width=max(1, round(0.09 * s)))
    elif name == "park":  # a tree
        d.ellipse((0.12 * s, 0.02 * s, 0.88 * s, 0.7 * s), fill=255)
        rect(0.42, 0.56, 0.58, 0.98)
    elif name == "factory":  # saw-tooth roofs and a chimney
        poly([(0.02, 0.96), (0.02, 0.5), (0.26, 0.32), (0.26, 0.5), (0.5, 0.32), (0.5, 0.5),
              (0.7, 0.36), (0.7, 0.04), (0.88, 0.04), (0.88, 0.96)])
        for wx in (0.1, 0.34, 0.56):
            rect(wx, 0.66, wx + 0.1, 0.78, 0)
    elif name == "card":  # the back of a property card
        d.rounded_rectangle((0.14 * s, 0.02 * s, 0.86 * s, 0.98 * s), radius=0.12 * s, fill=255)
    else:  # something the renderer does not know: a plain block
        rect(0.15, 0.15, 0.85, 0.85)
    return mask.reduce(_SS)


def _paste_icon(image: Image.Image, name: str, centre: Point, size: int, fill: RGB) -> None:
    mask = icon_mask(name, size)
    image.paste(fill, (round(centre[0] - size / 2), round(centre[1] - size / 2)), mask)


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


@byte_cache(8 * MB)  # two city shapes (2.6-4 MB each); a miss costs ~30 ms
def _map_base(tiles: tuple[Tile, ...], frame: Frame, map_h: int) -> Image.Image:
    """The city without pieces or streetcars: streets, numbered lots, outlines, outer edge.

    Drawn on a strip as wide as the picture and ``map_h`` tall, pasted at the map's top.
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


# -- the map: pieces, streetcars, highlights ---------------------------------------------


def _piece_fill(piece: Piece, cast: Cast) -> tuple[RGB, RGB]:
    """Fill and ink of a piece: the owner's colour, or the park/factory colours."""
    kind = _kind(piece.building)
    if kind == "park":
        return PARK, PARK_INK
    if kind == "factory":
        return FACTORY, WHITE
    if piece.owner is None:
        return PANEL_ALT, INK
    style = cast.style(piece.owner)
    return style.colour, style.ink


def _fill_piece(draw: ImageDraw.ImageDraw, cells: Sequence[Cell], frame: Frame,
                fill: RGB) -> None:
    """The lots of the piece joined across the streets between them: one piece."""
    group = set(cells)
    for cell in group:
        box = frame.lot(cell)
        draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=fill)
        east, south = (cell[0] + 1, cell[1]), (cell[0], cell[1] + 1)
        if east in group:
            other = frame.lot(east)
            draw.rectangle((box[2] - 1, box[1], other[0], box[3] - 1), fill=fill)
        if south in group:
            other = frame.lot(south)
            draw.rectangle((box[0], box[3] - 1, box[2] - 1, other[1]), fill=fill)
        if east in group and south in group and (cell[0] + 1, cell[1] + 1) in group:
            draw.rectangle((box[2] - 1, box[3] - 1, frame.lot(east)[0],
                            frame.lot(south)[1]), fill=fill)


def _draw_pieces(c: Canvas, pieces: Sequence[Piece], frame: Frame, cast: Cast,
                 number_of: dict[Cell, int]) -> None:
    icon = max(10, round(frame.cell * 0.44))
    mark = max(9, round(frame.cell * 0.27))
    small = _small_number_size(frame)
    outline_w = max(1, round(frame.cell / 45))
    for piece in pieces:
        fill, ink = _piece_fill(piece, cast)
        _fill_piece(c.draw, piece.cells, frame, fill)
        group = set(piece.cells)
        _stroke(c.draw, _outline_lines(group, frame.gap, frame), INK, outline_w)
        name = _icon_name(piece.building)
        if piece.building == "shopping_center" and len(piece.cells) > 1:
            # one building over two lots: one big sign in its middle
            xs = [frame.centre(cell) for cell in piece.cells]
            centre = (sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs))
            _paste_icon(c.image, name, centre, icon, ink)
        else:
            for cell in piece.cells:
                cx, cy = frame.centre(cell)
                _paste_icon(c.image, name, (cx - frame.cell * 0.04, cy - frame.cell * 0.02), icon,
                            ink)
        for cell in piece.cells:
            box = frame.lot(cell)
            prop = number_of.get(cell)
            if prop is not None:  # a built lot is no longer a choice: its number is a caption
                c.text((box[0] + 3, box[1] + 1), str(prop), small, fill=ink, anchor="la",
                       secondary=True)
        if _kind(piece.building) in ("park", "factory"):
            _piece_word(c, piece, frame, ink)
        if piece.owner is not None and _kind(piece.building) not in ("park", "factory"):
            # the owner's marker in the piece's bottom-right corner: colour is never alone
            last = max(piece.cells, key=lambda cell: (cell[1], cell[0]))
            box = frame.lot(last)
            style = cast.style(piece.owner)
            c.marker((box[2] - mark / 2 - 3, box[3] - mark / 2 - 3), style.marker, mark,
                     style.ink)


def _piece_word(c: Canvas, piece: Piece, frame: Frame, ink: RGB) -> None:
    """"Park" or "Factory" under the icon of the piece's middle lot: the two differ in more
    than the shape of a tiny icon (and a grey phone screen)."""
    word = "Park" if _kind(piece.building) == "park" else "Factory"
    cells = sorted(piece.cells, key=lambda cell: (cell[1], cell[0]))
    box = frame.lot(cells[len(cells) // 2])
    size = max(11, min(26, round(frame.cell * 0.24)))
    c.text(((box[0] + box[2]) / 2, box[3] - 2), word, size, bold=True, fill=ink, anchor="md",
           max_width=box[2] - box[0] - 4, secondary=True)


def _streetcar_width(frame: Frame) -> int:
    return max(4, round(frame.cell * 0.12))


def _edge_inset(frame: Frame) -> float:
    """How far a streetcar on the city's outer edge is moved inwards: past the bold edge
    line and its own casing, so the edge stays unbroken and nothing sticks out."""
    return max(3, round(frame.cell * 0.06)) / 2 + (_streetcar_width(frame) + 14) / 2


def _streetcar_line(a: Cell, b: Cell, frame: Frame, city: set[Cell] | None) -> tuple[Point,
                                                                                      Point]:
    """Px ends of the street from corner ``a`` to corner ``b``; on the outer edge (a city
    lot on one side only) the line runs just inside the edge."""
    a, b = _norm(a, b)
    (xa, ya), (xb, yb) = frame.point(a), frame.point(b)
    if city is None:
        return (xa, ya), (xb, yb)
    inset = _edge_inset(frame)
    if a[1] == b[1]:  # horizontal: lots above (row y - 1) and below (row y)
        above, below = (a[0], a[1] - 1) in city, (a[0], a[1]) in city
        if above != below:
            row = a[1] - 1 if above else a[1]
            # at a convex corner the edge turns away: stop short of the side edge there
            start = xa + (inset if (a[0] - 1, row) not in city else 0)
            end = xb - (inset if (b[0], row) not in city else 0)
            y = ya + inset * (-1 if above else 1)
            return (start, y), (end, y)
    else:
        left, right = (a[0] - 1, a[1]) in city, (a[0], a[1]) in city
        if left != right:
            col = a[0] - 1 if left else a[0]
            start = ya + (inset if (col, a[1] - 1) not in city else 0)
            end = yb - (inset if (col, b[1]) not in city else 0)
            x = xa + inset * (-1 if left else 1)
            return (x, start), (x, end)
    return (xa, ya), (xb, yb)


def _draw_streetcars(c: Canvas, segments: Sequence[tuple[Cell, Cell]], frame: Frame,
                     fresh: set[tuple[Cell, Cell]], city: set[Cell] | None = None) -> None:
    """The line along the streets: crimson in an ink casing; the newest ones haloed."""
    w = _streetcar_width(frame)
    lines = [_streetcar_line(a, b, frame, city) for a, b in segments]
    if fresh:
        halo = [_streetcar_line(a, b, frame, city) for a, b in segments
                if _norm(a, b) in fresh]
        _stroke(c.draw, halo, INK, w + 14)
        _stroke(c.draw, halo, kit.HIGHLIGHT, w + 10)
    _stroke(c.draw, lines, INK, w + 4)
    _stroke(c.draw, lines, STREETCAR, w)


def _norm(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    return (a, b) if a <= b else (b, a)


def _ring(c: Canvas, cells: set[Cell], frame: Frame, inset: float) -> None:
    """A highlight ring around a group of cells: yellow between two ink lines."""
    lines = _outline_lines(cells, inset, frame)
    _stroke(c.draw, lines, INK, 9)
    _stroke(c.draw, lines, kit.HIGHLIGHT, 5)


# The city with its pieces, per city shape and list of pieces. Pieces are only ever added,
# so a new picture usually finds the previous one here and draws just the newest piece;
# that previous layer is then dropped, so the budget holds one layer per recent match
# (each 2.6-3.5 MB; drawing one from the bare map instead costs ~6 ms).
_CITY_CACHE: ByteLRU[tuple[Any, ...], Image.Image] = ByteLRU(f"{__name__}._CITY_CACHE",
                                                             7 * MB)

PieceKey = tuple[tuple[Piece, int], ...]


def _city_layer(tiles: tuple[Tile, ...], frame: Frame, map_h: int, pieces: PieceKey,
                cast: Cast) -> Image.Image:
    """The map strip with every piece on it (cached; callers must not change it)."""
    key = (tiles, frame, map_h, pieces)
    hit = _CITY_CACHE.get(key)
    if hit is not None:
        return hit
    parent = (tiles, frame, map_h, pieces[:-1])
    previous = _CITY_CACHE.peek(parent) if pieces else None
    if previous is not None:
        image, todo = previous.copy(), pieces[-1:]
    else:
        image, todo = _map_base(tiles, frame, map_h).copy(), pieces
    strip = Canvas(image)
    number_of = {cell: prop for prop, cell in _cell_of(tiles).items()}
    _draw_pieces(strip, [piece for piece, _style in todo], replace(frame, top=MAP_PAD), cast,
                 number_of)
    if previous is not None:
        _CITY_CACHE.discard(parent)
    return _CITY_CACHE.put(key, image)


def _draw_city(c: Canvas, view: View, cast: Cast, tiles: tuple[Tile, ...], frame: Frame,
               map_top: int, map_h: int, highlight: bool = True) -> None:
    cell_of = _cell_of(tiles)
    pieces = _pieces(view, cell_of)
    key = tuple((piece, cast.index.get(piece.owner or "", -1)) for piece in pieces)
    c.image.paste(_city_layer(tiles, frame, map_h, key, cast), (0, map_top))
    last = view.get("last_action") or {}
    kind = last.get("type")
    if highlight and kind == "place_neighborhood":
        placed = [t for t in tiles if t.number == last.get("neighborhood")]
        if placed:
            _ring(c, {cell for _p, cell in placed[0].cells}, frame, 0)
    if highlight and kind in ("build", "special"):
        props = set(last.get("properties") or [])
        cells = {cell_of[p] for p in props if p in cell_of}
        if cells:
            _ring(c, cells, frame, frame.gap - 1)
    fresh: set[tuple[Cell, Cell]] = set()
    if highlight and kind == "streetcar":
        fresh = {_norm(a, b) for a, b in _segments(last.get("segments") or [])}
    _draw_streetcars(c, _segments(view.get("streetcars") or []), frame, fresh,
                     set(_city_cells(tiles)))


def _city_cells(tiles: Sequence[Tile]) -> list[Cell]:
    return [cell for tile in tiles for _p, cell in tile.cells]


# -- text helpers ------------------------------------------------------------------------


def _inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
            max_x: int, fill: RGB = INK) -> float:
    """A sentence of text and player chips on one line; returns the end x.

    ``parts`` are ("text", str), ("bold", str) or ("chip", (name, style, fallback)). The
    words show whole where they can; the chips share the room that is left, and text that
    still does not fit is cut with an ellipsis.
    """
    fixed = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = [v for k, v in parts if k == "chip"]
    room = int(max_x - x - fixed - 10 * len(chips))
    widths = iter(kit.share_width([kit.chip_width(n, size, True, f) for n, _s, f in chips],
                                  max(room, size * 3 * len(chips)), least=size * 3))
    for kind, value in parts:
        if x >= max_x - size:
            break
        if kind == "chip":
            name, style, fallback = value
            box = c.chip((x, y), name, style, size, anchor="lm",
                         max_width=min(next(widths), int(max_x - x)), fallback=fallback)
            x = box[2] + 8
        else:
            box = c.text((x, y), value, size, bold=kind == "bold", anchor="lm", fill=fill,
                         max_width=int(max_x - x))
            x = box[2]
    return x


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _join_numbers(values: Iterable[Any]) -> str:
    return ", ".join(str(v) for v in values)


def _listing(values: Iterable[Any], last: str = "and") -> str:
    """"3", "3 and 5", "3, 5 and 6"."""
    words = [str(v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def _hoods(values: Sequence[Any], last: str = "and") -> str:
    """"neighborhood 3", "neighborhoods 3 and 5"."""
    unique = list(dict.fromkeys(values))
    word = "neighborhood" if len(unique) == 1 else "neighborhoods"
    return f"{word} {_listing(unique, last)}"


# -- header ------------------------------------------------------------------------------


def _winners_parts(view: View, cast: Cast) -> list[tuple[str, Any]]:
    winners = [str(w) for w in view.get("winners") or []]
    if not winners:
        return [("bold", "Game over")]
    parts: list[tuple[str, Any]] = [("bold", "Game over: ")]
    for i, w in enumerate(winners):
        if i:
            parts.append(("bold", "& " if i == len(winners) - 1 else ", "))
        parts.append(cast.chip(w))
    parts.append(("bold", "wins" if len(winners) == 1 else "share the win"))
    return parts


def _headline(view: View, cast: Cast) -> tuple[list[tuple[str, Any]], str]:
    """What is happening, as chips and words, and a line of detail under it."""
    phase = view.get("phase")
    step = view.get("step")
    turn = view.get("turn") or next(iter(view.get("to_act") or []), None)
    placed = len(view.get("neighborhoods") or [])
    if phase == "over":
        why = ENDED_BY.get(str(view.get("ended_by")), "")
        built = sum(1 for p in view.get("buildings") or [] if _kind(p.get("building", ""))
                    not in ("park", "factory"))
        detail = f"Final city: {_plural(built, 'building')}"
        return _winners_parts(view, cast), f"{detail} · {why}" if why else detail
    if phase == "setup":
        setup = view.get("setup") or {}
        pool = list(setup.get("pool") or [])
        parts: list[tuple[str, Any]] = [("bold", "Setup: ")]
        if turn:
            parts += [cast.chip(str(turn)), ("bold", "places a neighborhood")]
        else:
            parts.append(("bold", "placing the starting neighborhoods"))
        detail = (f"Still to place: {_join_numbers(pool)} · each must touch the city with two "
                  "properties" if pool else "The starting city is ready")
        return parts, detail
    if turn is None:
        return [("bold", "Big City")], ""
    who = cast.chip(str(turn))
    hall = "City hall built" if view.get("city_hall") else \
        "No city hall yet"
    unplaced = [int(n) for n in view.get("unplaced_neighborhoods") or []]
    hoods = f"{placed} of 8 neighborhoods"
    if unplaced:  # which stacks still bring a new neighborhood
        hoods += f", to come: {_join_numbers(sorted(unplaced))}"
    general = f"Turn {view.get('turn_number', 1)} · {hoods} · {hall}"
    if step == "draw":
        n = int((view.get("draw") or {}).get("cards") or 0)
        what = f"draws {_plural(n, 'card')}" if n else "draws cards"
        return [who, ("bold", what)], "At most two cards from one stack in a turn · " + general
    if step in ("trade_offers", "trade_accept"):
        return _trade_headline(view, cast, who)
    return [who, ("bold", "to play")], general


def _trade_headline(view: View, cast: Cast,
                    who: tuple[str, Any]) -> tuple[list[tuple[str, Any]], str]:
    trade = view.get("trade") or {}
    hoods = list(trade.get("neighborhoods") or [])
    wants = list(trade.get("wants") or [])
    what = f"trades {_plural(len(hoods), 'card')}" if hoods else "trades"
    bits = []
    if hoods:
        bits.append(f"cards from {_hoods(hoods)}")
    if wants:
        bits.append(f"wants {_hoods(wants, 'or')}")
    offers = trade.get("offers") or {}
    for player, offer in offers.items():
        name = cast.name(str(player), 24, False, 220)
        if offer:
            bits.append(f"{name} offers {_plural(len(offer), 'card')} from {_listing(offer)}")
        else:
            bits.append(f"{name} declines")
    waiting = [cast.name(str(p), 24, False, 220) for p in trade.get("waiting_for") or []]
    if waiting:
        bits.append("waiting for " + ", ".join(waiting))
    elif view.get("step") == "trade_accept":
        bits.append("the trader picks an offer")
    return [("bold", "Trade: "), who, ("bold", what)], " · ".join(bits)


def _draw_header(c: Canvas, view: View, cast: Cast, scores: bool = True) -> None:
    parts, detail = _headline(view, cast)
    _inline(c, MARGIN, HEAD_Y, parts, 36, WIDTH - MARGIN)
    if detail:
        c.text((MARGIN, SUB_Y), detail, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)
    if scores:
        _scores_row(c, view, cast, SCORES_Y)


def _scores_row(c: Canvas, view: View, cast: Cast, y: int) -> None:
    scores = view.get("scores") or {}
    turn = view.get("turn") if view.get("phase") != "over" else None
    x = c.text((MARGIN, y), "Scores", SMALL + 2, bold=True, fill=MUTED, anchor="lm",
               secondary=True)[2] + 12
    gap = 18
    tails, wanted = [], []
    for p in cast.players:
        pts = str(int(scores.get(p, 0) or 0))
        tails.append(pts)
        wanted.append(kit.chip_width(p, TEXT, True, cast.fallback(p)))
    fixed = sum(kit.text_width(t, TEXT, True) + 8 for t in tails) + gap * len(tails)
    room = WIDTH - MARGIN - x - fixed
    for p, pts, chip_w in zip(cast.players, tails, kit.share_width(wanted, room, least=80),
                              strict=True):
        box = c.chip((x, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_w,
                     fallback=cast.fallback(p))
        if p == turn:  # the player to act: underlined
            c.draw.rectangle((box[0] + 6, box[3] + 3, box[2] - 6, box[3] + 6), fill=INK)
        x = c.text((box[2] + 8, y), pts, TEXT, bold=True, anchor="lm")[2] + gap


# -- under the map -----------------------------------------------------------------------


def _last_action_lines(view: View, cast: Cast) -> tuple[list[tuple[str, Any]], str] | None:
    """The last move as a sentence with the player's chip, and the score explanation."""
    last = view.get("last_action")
    if not last:
        return None
    player = str(last.get("player", ""))
    kind = last.get("type")
    parts: list[tuple[str, Any]] = [("text", "Last: "), cast.chip(player)]
    explanation = ""
    if kind == "build":
        building = str(last.get("building", ""))
        props = "+".join(str(p) for p in last.get("properties") or [])
        points = int(last.get("points") or 0)
        parts.append(("text", f"built a {_title(building).lower()} on {props} for "))
        parts.append(("bold", _plural(points, "point")))
        explanation = str(last.get("explanation") or "")
        if not any(sign in explanation for sign in "+−-×="):
            explanation = ""  # "15 church" says nothing the line above does not
    elif kind == "special":
        card = str(last.get("card", ""))
        props = "+".join(str(p) for p in last.get("properties") or [])
        parts.append(("text", f"placed {_title(card)} on {props}"))
    elif kind == "streetcar":
        where = [str(w) for w in last.get("where") or []]
        n = len(last.get("segments") or where)
        parts.append(("text", f"laid {_plural(n, 'streetcar')}"
                      + (f" ({', '.join(where)})" if where else "")))
    elif kind == "place_neighborhood":
        parts.append(("text", f"placed neighborhood {last.get('neighborhood', '?')}"))
    elif kind == "exchange":
        n = int(last.get("count") or 0)
        stacks = _join_numbers(last.get("stacks") or [])
        parts.append(("text", f"exchanged {_plural(n, 'card')}"
                      + (f" (stacks {stacks})" if stacks else "")))
    elif kind == "discard_useless":
        parts.append(("text", "discarded useless cards " + _join_numbers(last.get("cards") or [])))
    elif kind == "trade":
        hoods = _hoods(last.get("neighborhoods") or [])
        parts.append(("text", f"offered cards from {hoods} for trade"))
    elif kind == "pass":
        parts.append(("text", "passed"))
    else:
        parts.append(("text", str(kind or "played")))
    return parts, explanation


CAPTION_H = 48


def _caption_height(view: View, cast: Cast) -> int:
    found = _last_action_lines(view, cast)
    if found is None:
        return 0
    return CAPTION_H * (2 if found[1] else 1) + 6


def _draw_caption(c: Canvas, view: View, cast: Cast, y: int) -> None:
    found = _last_action_lines(view, cast)
    if found is None:
        return
    parts, explanation = found
    cy = y + CAPTION_H // 2
    c.draw.rectangle((MARGIN + 2, cy - 12, MARGIN + 26, cy + 12), fill=kit.HIGHLIGHT, outline=INK,
                     width=2)
    _inline(c, MARGIN + 38, cy, parts, TEXT, WIDTH - MARGIN)
    if explanation:
        c.text((MARGIN + 38, cy + CAPTION_H), explanation, TEXT, bold=True, anchor="lm",
               max_width=INNER_W - 38)


PIECES_ROWS = 8
PIECES_H = PIECES_ROWS * ROW_H + 20


def _legend_tile(c: Canvas, name: str, cells: int, x: float, cy: float, unit: int = 34) -> int:
    """A neutral mini piece of ``cells`` lots with the icon in each; returns its right x."""
    top, x = round(cy - unit / 2), round(x)
    c.draw.rectangle((x, top, x + unit * cells - 1, top + unit - 1), fill=RULE, outline=MUTED)
    for i in range(cells):
        _paste_icon(c.image, name, (x + unit * i + unit / 2, cy), round(unit * 0.7), INK)
    return x + unit * cells


Slot = tuple[str, float, float]  # what a count shows, and where: (key, x, centre y)


@byte_cache(3 * MB // 2)
def _panel_static() -> tuple[Image.Image, tuple[Slot, ...]]:
    """The pieces panel without its numbers (drawn once), and where each number goes.

    Keys: a building id, "streetcars", "park"/"factory" (the names of those left),
    "stack:N" or "discard". Numbers are left-aligned at x, vertically centred on y.
    """
    c = Canvas.new(WIDTH, PIECES_H, PAPER)
    c.panel((MARGIN, 0, WIDTH - MARGIN - 1, PIECES_H - 1), PANEL, radius=16)
    slots: list[Slot] = []
    x0 = MARGIN + 18
    right = WIDTH - MARGIN - 18
    col = (right - x0) // 3
    count_w = 48  # room kept for "×9"

    def centre(row: int) -> float:
        return 10 + ROW_H * row + ROW_H / 2

    # rows 1-2: residences and businesses by size, with the streetcar and outskirts keys
    for row, kind in enumerate(("residence", "business")):
        cy = centre(row)
        x = c.text((x0, cy), KIND_WORDS[kind], TEXT, bold=True, anchor="lm")[2]
        x = max(x + 14, x0 + 190)
        for size, prefix in ((1, "single"), (2, "double"), (3, "triple")):
            x = _legend_tile(c, kind, size, x, cy)
            slots.append((f"{prefix}_{kind}", x + 6, cy))
            x += 6 + count_w + 12
        sx = x + 14
        if row == 0:
            w = 10
            c.draw.rectangle((sx, round(cy) - w // 2 - 2, sx + 44, round(cy) + w // 2 + 1),
                             fill=INK)
            c.draw.rectangle((sx, round(cy) - w // 2, sx + 44, round(cy) + w // 2 - 1),
                             fill=STREETCAR)
            end = c.text((sx + 52, cy), "Streetcars", TEXT, anchor="lm")[2]
            slots.append(("streetcars", end + 8, cy))
        else:
            c.draw.rectangle((sx, round(cy) - 16, sx + 44, round(cy) + 16), fill=LOT_OUT)
            c.draw.rectangle((sx, round(cy) - 16, sx + 44, round(cy) - 11), fill=INK)
            c.text((sx + 52, cy), "Outskirts", TEXT, anchor="lm", max_width=right - sx - 52)
    # rows 3-4: the six special buildings, three a row
    for i, bid in enumerate(SPECIAL_BUILDINGS):
        row, x = 2 + i // 3, x0 + (i % 3) * col
        cy = centre(row)
        x = _legend_tile(c, bid, 1, x, cy)
        box = c.text((x + 8, cy), _title(bid), TEXT, anchor="lm",
                     max_width=col - 34 - 8 - count_w - 16)
        slots.append((bid, box[2] + 8, cy))
    # rows 5-6: the parks and the factories not placed yet, by name
    for row, kind in ((4, "park"), (5, "factory")):
        cy = centre(row)
        fill, ink = (PARK, PARK_INK) if kind == "park" else (FACTORY, WHITE)
        c.draw.rectangle((x0, round(cy) - 17, x0 + 33, round(cy) + 16), fill=fill, outline=MUTED)
        _paste_icon(c.image, kind, (x0 + 17, cy), 24, ink)
        word = "Parks:" if kind == "park" else "Factories:"
        end = c.text((x0 + 44, cy), word, TEXT, anchor="lm")[2]
        slots.append((kind, end + 10, cy))
    # row 7: the card stacks
    cy = centre(6)
    x = c.text((x0, cy), "Cards in stacks", TEXT, bold=True, fill=MUTED, anchor="lm")[2] + 16
    step = (right - x) / 8
    for i in range(1, 9):
        cx = x + step * (i - 1)
        c.panel((round(cx), round(cy) - 20, round(cx) + 31, round(cy) + 19), MUTED, radius=6)
        c.text((cx + 16, cy), str(i), TEXT, bold=True, fill=WHITE, anchor="mm")
        slots.append((f"stack:{i}", cx + 38, cy))
    # row 8: the discard pile (those properties can no longer be drawn)
    cy = centre(7)
    end = c.text((x0, cy), "Discarded", TEXT, bold=True, fill=MUTED, anchor="lm")[2]
    slots.append(("discard", end + 16, cy))
    return c.image, tuple(slots)


def _discard_words(discard: Sequence[Any]) -> str:
    """"none" or "4 cards: 12, 35, 41, 57" (the properties on them, lowest first)."""
    if not discard:
        return "none"
    # property cards are numbers; a park or factory card laid aside goes by its name
    numbers = sorted(int(card) for card in discard if str(card).isdigit())
    names = [_title(str(card)) for card in discard if not str(card).isdigit()]
    return f"{_plural(len(discard), 'card')}: {_join_numbers([*numbers, *names])}"


def _draw_pieces_panel(c: Canvas, view: View, top: int) -> None:
    """Buildings, parks, factories, streetcars and cards left; it doubles as the key."""
    image, slots = _panel_static()
    c.image.paste(image, (0, top))
    left = view.get("buildings_left") or {}
    specials_left = view.get("parks_and_factories_left")
    stacks = view.get("stacks") or {}
    right = WIDTH - MARGIN - 18
    for key, x, cy in slots:
        y = top + cy
        if key in ("park", "factory"):
            names = [info[3].split(" ")[0] for card, info in SPECIAL_CARDS.items()
                     if info[1] == key and (specials_left is None or card in specials_left)]
            text = ", ".join(names) if names else "all placed"
            c.text((x, y), text, TEXT, fill=INK if names else MUTED, anchor="lm",
                   max_width=right - round(x))
            continue
        if key == "discard":
            discard = list(view.get("discard") or [])
            c.text((x, y), _discard_words(discard), TEXT, fill=INK if discard else MUTED,
                   anchor="lm", max_width=right - round(x))
            continue
        if key.startswith("stack:"):
            number = key.split(":")[1]
            raw = stacks.get(number, stacks.get(int(number)))
            n = None if raw is None else int(raw)
            text = "–" if n is None else str(n)
        else:
            raw = view.get("streetcars_left") if key == "streetcars" else left.get(key)
            n = None if raw is None else int(raw)
            text = "–" if n is None else f"×{n}"
        c.text((x, y), text, TEXT, bold=bool(n), fill=INK if n else MUTED, anchor="lm")


# -- the table ---------------------------------------------------------------------------


def _layout(view: View) -> tuple[tuple[Tile, ...], Frame, int]:
    tiles = _tiles(view)
    frame = _frame(_city_cells(tiles), MAP_TOP)
    return tiles, frame, _map_height(frame)


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view)
    tiles, frame, map_h = _layout(view)
    caption_h = _caption_height(view, cast)
    height = MAP_TOP + map_h + 10 + caption_h + 6 + PIECES_H + MARGIN
    c = Canvas.new(WIDTH, height, PAPER)
    _draw_header(c, view, cast)
    _draw_city(c, view, cast, tiles, frame, MAP_TOP, map_h)
    y = MAP_TOP + map_h + 10
    _draw_caption(c, view, cast, y)
    _draw_pieces_panel(c, view, y + caption_h + 6)
    return c.png(PALETTE)


# -- previews ----------------------------------------------------------------------------


def _ghost_cells(choice: View) -> list[tuple[int, Cell]]:
    number = int(choice.get("neighborhood", 0))
    if not 1 <= number <= 8:
        return []
    at_raw = choice.get("at") or [0, 0]
    layout = neighborhood_layout(number, (int(at_raw[0]), int(at_raw[1])),
                                 int(choice.get("rotation", 0)) % 360)
    return list(layout.items())


class Labels:
    """Label pills placed one by one, each nudged off the ones already placed.

    ``soft`` boxes (property numbers) are avoided when a spot close by is free of them.
    """

    SIZE = TEXT
    NEAR_RINGS = 2  # how far a label moves to keep a number readable

    def __init__(self, c: Canvas, bounds: Box, soft: Sequence[Box] = ()) -> None:
        self.c = c
        self.bounds = bounds
        self.boxes: list[Box] = []
        self.soft = list(soft)

    def _size(self, text: str) -> tuple[int, int]:
        ascent, descent = kit.metrics(self.SIZE, True)
        pad = round(self.SIZE * 0.45)
        return (kit.text_width(kit.prepare(text, self.SIZE, True), self.SIZE, True) + 2 * pad,
                ascent + descent + round(self.SIZE * 0.3))

    def _free(self, box: Box, soft: bool = False) -> bool:
        x0, y0, x1, y1 = self.bounds
        if box[0] < x0 or box[1] < y0 or box[2] > x1 or box[3] > y1:
            return False
        others = self.boxes + self.soft if soft else self.boxes
        return all(box[2] + 2 <= b[0] or b[2] + 2 <= box[0] or box[3] + 2 <= b[1]
                   or b[3] + 2 <= box[1] for b in others)

    def place(self, text: str, at: Point) -> Box:
        """Draw the label as close to ``at`` as it fits; returns its box."""
        w, h = self._size(text)
        step = max(6, h // 2)
        candidates = [(0.0, 0.0)]
        for ring in range(1, 9):
            r = ring * step
            for k in range(8 * ring):
                a = 2 * math.pi * k / (8 * ring) - math.pi / 2
                candidates.append((r * math.cos(a), r * math.sin(a)))
        chosen = None
        near = 1 + sum(8 * ring for ring in range(1, self.NEAR_RINGS + 1))
        passes = [(candidates[:near], True), (candidates, False)] if self.soft else \
            [(candidates, False)]
        for pool, soft in passes:
            for dx, dy in pool:
                box = self._box(at[0] + dx, at[1] + dy, w, h)
                if self._free(box, soft):
                    chosen = box
                    break
            if chosen is not None:
                break
        if chosen is None:
            chosen = self._nearest_free(at, w, h, step)
        self.boxes.append(chosen)
        self.c.label((chosen[0], chosen[1]), text, self.SIZE, fg=INK, bg=kit.HIGHLIGHT,
                     anchor="lt", outline=INK)
        return chosen

    def _nearest_free(self, at: Point, w: int, h: int, step: int) -> Box:
        """Crowded: the free spot nearest ``at`` on a grid over the whole area, or at worst
        a small offset per label already there (still readable, if overlapping)."""
        x0, y0, x1, y1 = self.bounds
        best: tuple[float, Box] | None = None
        for top in range(y0, y1 - h + 1, step):
            for left in range(x0, x1 - w + 1, step):
                box = (left, top, left + w, top + h)
                d = (left + w / 2 - at[0]) ** 2 + (top + h / 2 - at[1]) ** 2
                if (best is None or d < best[0]) and self._free(box):
                    best = (d, box)
        if best is not None:
            return best[1]
        n = len(self.boxes) % 8
        return self._box(at[0] + 8 * n, at[1] + 8 * n, w, h)

    def _box(self, cx: float, cy: float, w: int, h: int) -> Box:
        x0, y0, x1, y1 = self.bounds
        left = min(max(round(cx - w / 2), x0), x1 - w)
        top = min(max(round(cy - h / 2), y0), y1 - h)
        return left, top, left + w, top + h


def _choice_segments(choice: View) -> list[tuple[Cell, Cell]]:
    return _segments(choice.get("segments") or [])


GRID_FROM = 7  # this many neighbourhood positions (or overlapping ones): a small map each
PREVIEW_HEAD = 112


def render_preview(view: View, choices: Sequence[View]) -> bytes:
    """The city with a letter on each place a player may pick from a menu.

    Each choice is ``{"label", "properties"}`` (a building site), ``{"label", "segments"}``
    (one or two streetcars) or ``{"label", "neighborhood", "at", "rotation"}`` (where a
    neighbourhood could go: its ghost is drawn). Many neighbourhood positions overlap too
    much to share one map, so from GRID_FROM of them on each gets a small map of its own.
    PNG bytes.
    """
    cast = Cast(view)
    if choices and all("neighborhood" in ch for ch in choices):
        ghosts = [{cell for _p, cell in _ghost_cells(ch)} for ch in choices]
        overlap = any(a & b for a, b in itertools.combinations(ghosts, 2))
        if overlap or len(choices) >= GRID_FROM:
            return _preview_grid(view, choices, cast)
    return _preview_map(view, choices, cast)


def _preview_header(c: Canvas, view: View, choices: Sequence[View], cast: Cast,
                    sub: str) -> None:
    texts = [str(ch.get("label", "?")) for ch in choices]
    if len(texts) == 1:  # a confirmation: the one place, marked
        title = f"Your pick: {texts[0]}"
        sub = "Marked on the city"
    else:
        title = f"Pick {_choice_kinds(choices)} from the menu"
        if texts:
            title += f": {texts[0]}–{texts[-1]}"
    c.text((MARGIN, HEAD_Y), title, 34, bold=True, anchor="lm", max_width=INNER_W)
    who = view.get("viewer") or view.get("turn")
    if who:
        _inline(c, MARGIN, SUB_Y, [cast.chip(str(who)), ("text", sub)], TEXT, WIDTH - MARGIN,
                fill=MUTED)
    else:
        c.text((MARGIN, SUB_Y), sub, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)


def _preview_map(view: View, choices: Sequence[View], cast: Cast) -> bytes:
    tiles = _tiles(view)
    cell_of = _cell_of(tiles)
    city = set(_city_cells(tiles))
    extent = list(city)
    ghosts: list[list[tuple[int, Cell]]] = []
    for choice in choices:
        if "neighborhood" in choice:
            ghost = _ghost_cells(choice)
            ghosts.append(ghost)
            extent += [cell for _p, cell in ghost]
        for a, b in _choice_segments(choice):
            # keep both cells along each street in view (one may lie beyond the city)
            extent += [(min(a[0], b[0]), min(a[1], b[1])),
                       (max(a[0], b[0]) - 1, max(a[1], b[1]) - 1)]
    head_h = PREVIEW_HEAD
    frame = _frame(extent, head_h, max_h=900)
    map_h = _map_height(frame)
    c = Canvas.new(WIDTH, head_h + map_h + 64, PAPER)
    _preview_header(c, view, choices, cast, "Letters mark the choices; the menu says what each is")
    _draw_city(c, view, cast, tiles, frame, head_h, map_h, highlight=False)
    # Ghost neighbourhoods: numbered lots where they do not overlap, dashed outlines.
    seen: set[Cell] = set()
    overlapping = False
    for ghost in ghosts:
        group = {cell for _p, cell in ghost}
        overlapping = overlapping or bool(group & seen)
        seen |= group
    dash = max(2, round(frame.cell * 0.05))
    for ghost in ghosts:
        if not overlapping:
            for prop, cell in ghost:
                box = frame.lot(cell)
                c.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=GHOST)
                c.text(frame.centre(cell), str(prop), _number_size(frame), fill=MUTED,
                       anchor="mm")
        _dashed(c.draw, _outline_lines({cell for _p, cell in ghost}, 1, frame), INK, dash,
                max(6, frame.cell // 8))
    # Streetcar choices: yellow streets in an ink casing.
    width = max(3, round(frame.cell * 0.07))
    for choice in choices:
        lines = [(frame.point(a), frame.point(b)) for a, b in _choice_segments(choice)]
        _stroke(c.draw, lines, INK, width + 6)
        _stroke(c.draw, lines, kit.HIGHLIGHT, width + 2)
    # Building sites: a yellow frame inside each lot of a site, and yellow bridges across the
    # streets a site spans, so the numbers stay readable.
    ring = max(2, round(frame.cell * 0.05))
    site_cells: set[Cell] = set()
    bridges: set[tuple[Cell, Cell]] = set()
    for choice in choices:
        site = sorted(cell_of[int(p)] for p in choice.get("properties") or []
                      if int(p) in cell_of)
        site_cells.update(site)
        bridges.update((a, b) for a, b in itertools.combinations(site, 2)
                       if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1)
    for cell in site_cells:
        x0, y0, x1, y1 = frame.lot(cell)
        c.draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=INK, width=ring + 2)
        c.draw.rectangle((x0 + 1, y0 + 1, x1 - 2, y1 - 2), outline=kit.HIGHLIGHT, width=ring)
    for a, b in bridges:
        (ax, ay), (bx, by) = frame.centre(a), frame.centre(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        half = frame.gap + ring + 2
        thick = max(4, round(frame.cell * 0.16))
        if ay == by:
            box = (round(mx - half), round(my - thick / 2), round(mx + half),
                   round(my + thick / 2))
        else:
            box = (round(mx - thick / 2), round(my - half), round(mx + thick / 2),
                   round(my + half))
        c.draw.rectangle(box, fill=kit.HIGHLIGHT, outline=INK, width=2)
    # Numbers of free properties stay readable where a label can sit next to them instead.
    built = {cell for piece in _pieces(view, cell_of) for cell in piece.cells}
    size = _number_size(frame)
    numbers = []
    for prop, cell in cell_of.items():
        if cell in built:
            continue
        half_w = kit.text_width(str(prop), size) / 2
        cx, cy = frame.centre(cell)
        numbers.append((round(cx - half_w), round(cy - size * 0.4), round(cx + half_w),
                        round(cy + size * 0.4)))
    labels = Labels(c, (MARGIN + 4, head_h + 4, WIDTH - MARGIN - 4, head_h + map_h - 4),
                    numbers)
    for choice in choices:
        labels.place(str(choice.get("label", "?")), _choice_anchor(choice, frame, cell_of))
    c.text((MARGIN, head_h + map_h + 32), _preview_footer(choices), SMALL + 2, fill=MUTED,
           anchor="lm", max_width=INNER_W, secondary=True)
    return c.png(PALETTE)


def _preview_grid(view: View, choices: Sequence[View], cast: Cast) -> bytes:
    """One small map per neighbourhood position, each with its letter."""
    tiles = _tiles(view)
    cell_of = _cell_of(tiles)
    pieces = _pieces(view, cell_of)
    city = _city_cells(tiles)
    ghosts = [_ghost_cells(choice) for choice in choices]
    extent = city + [cell for ghost in ghosts for _p, cell in ghost]
    n = len(choices)
    cols = 5 if n > 16 else 4 if n > 9 else min(n, 3)
    rows = math.ceil(n / cols)
    gap = 12
    thumb_w = (INNER_W - gap * (cols - 1)) // cols
    label_h = 50
    xs = [c[0] for c in extent]
    ys = [c[1] for c in extent]
    span_x, span_y = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    cell = max(4, min((thumb_w - 16) // span_x, 280 // span_y, 48))
    thumb_h = label_h + span_y * cell + 12
    head_h = PREVIEW_HEAD
    c = Canvas.new(WIDTH, head_h + rows * (thumb_h + gap) + 52, PAPER)
    _preview_header(c, view, choices, cast, "One small map per place the neighborhood can go")
    outskirts = _outskirt_cells(frozenset(city))
    for i, (choice, ghost) in enumerate(zip(choices, ghosts, strict=True)):
        x = MARGIN + (i % cols) * (thumb_w + gap)
        y = head_h + (i // cols) * (thumb_h + gap)
        c.panel((x, y, x + thumb_w - 1, y + thumb_h - 1), PANEL_ALT, radius=12)
        frame = Frame(min(xs), min(ys), span_x, span_y, cell,
                      x + (thumb_w - span_x * cell) // 2, y + label_h)
        _draw_mini(c, frame, city, pieces, cast, outskirts, ghost)
        c.label((x + 8, y + 6), str(choice.get("label", "?")), TEXT, fg=INK,
                bg=kit.HIGHLIGHT, outline=INK)
        turn = int(choice.get("rotation", 0)) % 360
        c.text((x + thumb_w - 10, y + 26), f"{turn}°" if turn else "0°", TEXT,
               fill=MUTED, anchor="rm")
    key = "numbers: its properties" if cell >= 30 else "dot: its property 1"
    c.text((MARGIN, c.height - 28), f"Yellow: the new neighborhood · {key} · ° turned",
           SMALL + 2, fill=MUTED, anchor="lm", max_width=INNER_W, secondary=True)
    return c.png(PALETTE)


@byte_cache(256 * KB)
def _outskirt_cells(cells: frozenset[Cell]) -> frozenset[Cell]:
    outside = outside_cells(set(cells))
    return frozenset(cell for cell in cells
                     if any((cell[0] + dx, cell[1] + dy) in outside
                            for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))))


def _draw_mini(c: Canvas, frame: Frame, city: Sequence[Cell], pieces: Sequence[Piece],
               cast: Cast, outskirts: frozenset[Cell], ghost: Sequence[tuple[int, Cell]]) -> None:
    """A city too small for numbers: lots in their owners' colours, the ghost in yellow."""
    fill_of: dict[Cell, RGB] = {}
    for piece in pieces:
        fill, _ink = _piece_fill(piece, cast)
        for cell in piece.cells:
            fill_of[cell] = fill
    inset = max(1, round(frame.cell * 0.1))
    for cell in city:
        x0, y0 = round(frame.px(cell[0])), round(frame.py(cell[1]))
        c.draw.rectangle((x0, y0, x0 + frame.cell - 1, y0 + frame.cell - 1), fill=STREET)
    for cell in city:
        x0, y0 = round(frame.px(cell[0])), round(frame.py(cell[1]))
        fill = fill_of.get(cell, LOT_OUT if cell in outskirts else LOT)
        c.draw.rectangle((x0 + inset, y0 + inset, x0 + frame.cell - 1 - inset,
                          y0 + frame.cell - 1 - inset), fill=fill)
    group = {cell for _p, cell in ghost}
    for cell in group:
        x0, y0 = round(frame.px(cell[0])), round(frame.py(cell[1]))
        c.draw.rectangle((x0, y0, x0 + frame.cell - 1, y0 + frame.cell - 1),
                         fill=kit.HIGHLIGHT)
    _stroke(c.draw, _outline_lines(group, 0, frame), INK, 2)
    if frame.cell >= 30:  # room for the numbers the new properties would have
        size = max(12, round(frame.cell * 0.36))
        for prop, cell in ghost:
            c.text(frame.centre(cell), str(prop), size, bold=cell == ghost[0][1], anchor="mm")
    elif ghost:
        cx, cy = frame.centre(ghost[0][1])
        c.marker((cx, cy), "circle", max(4, round(frame.cell * 0.55)), INK)


def _choice_kinds(choices: Sequence[View]) -> str:
    kinds = set()
    for choice in choices:
        if "neighborhood" in choice:
            kinds.add("a position")
        elif choice.get("segments"):
            kinds.add("streetcars")
        elif choice.get("properties"):
            kinds.add("a building site")
    if len(kinds) == 1:
        return kinds.pop()
    return "a choice"


def _preview_footer(choices: Sequence[View]) -> str:
    if any("neighborhood" in ch for ch in choices):
        return "Dashed outlines: where the neighborhood could go · each letter sits toward its property 1"
    if any(ch.get("segments") for ch in choices):
        return "Yellow: the streets each choice would lay streetcars on"
    return "Yellow frames: the properties of the sites · bridges join the lots of one site"


def _choice_anchor(choice: View, frame: Frame, cell_of: dict[int, Cell]) -> Point:
    """Where a choice's letter goes."""
    if "neighborhood" in choice:
        ghost = _ghost_cells(choice)
        if ghost:
            points = [frame.centre(cell) for _p, cell in ghost]
            cx = sum(p[0] for p in points) / len(points)
            cy = sum(p[1] for p in points) / len(points)
            # toward property n1, so the turns of a square neighbourhood stay apart
            n1 = frame.centre(ghost[0][1])
            return cx + 0.6 * (n1[0] - cx), cy + 0.6 * (n1[1] - cy)
    segs = _choice_segments(choice)
    if segs:
        mids = [((frame.point(a)[0] + frame.point(b)[0]) / 2,
                 (frame.point(a)[1] + frame.point(b)[1]) / 2) for a, b in segs]
        return sum(p[0] for p in mids) / len(mids), sum(p[1] for p in mids) / len(mids)
    props = [int(p) for p in choice.get("properties") or []]
    site = [frame.centre(cell_of[p]) for p in props if p in cell_of]
    if site:
        cx = sum(p[0] for p in site) / len(site)
        cy = sum(p[1] for p in site) / len(site)
        return cx, cy
    return frame.px(frame.x0), frame.py(frame.y0)


def _dashed(draw: ImageDraw.ImageDraw, lines: Iterable[tuple[Point, Point]], fill: RGB,
            width: int, dash: int) -> None:
    for (xa, ya), (xb, yb) in lines:
        length = abs(xb - xa) + abs(yb - ya)
        steps = max(1, int(length // (2 * dash)))
        for i in range(steps + 1):
            t0 = i * 2 * dash / max(length, 1)
            t1 = min(1.0, t0 + dash / max(length, 1))
            if t0 >= 1:
                break
            a = (xa + (xb - xa) * t0, ya + (yb - ya) * t0)
            b = (xa + (xb - xa) * t1, ya + (yb - ya) * t1)
            _stroke(draw, [(a, b)], fill, width)


# -- the end -----------------------------------------------------------------------------


def _standings(view: View, cast: Cast) -> list[tuple[str, int, int, Piece | None]]:
    """(player, score, buildings, best building) from the highest score down."""
    scores = view.get("scores") or {}
    tiles = _tiles(view)
    pieces = _pieces(view, _cell_of(tiles))
    out = []
    for p in cast.players:
        own = [pc for pc in pieces if pc.owner == p and _kind(pc.building) not in
               ("park", "factory")]
        best = max(own, key=lambda pc: (pc.points, -pc.index), default=None)
        out.append((p, int(scores.get(p, 0) or 0), len(own), best))
    out.sort(key=lambda row: (-row[1], cast.index[row[0]]))
    return out


STANDING_H = 52


def render_final(view: View) -> bytes:
    """The finished city and the standings, as PNG bytes."""
    cast = Cast(view)
    tiles = _tiles(view)
    rows = _standings(view, cast)
    panel_h = 58 + STANDING_H * len(rows) + 12
    top = SCORES_Y - 22
    frame = _frame(_city_cells(tiles), top)
    map_h = _map_height(frame)
    height = top + map_h + 14 + panel_h + MARGIN
    c = Canvas.new(WIDTH, height, PAPER)
    parts, detail = _headline(dict(view, phase="over"), cast)
    _inline(c, MARGIN, HEAD_Y, parts, 36, WIDTH - MARGIN)
    if detail:
        c.text((MARGIN, SUB_Y - 4), detail, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)
    _draw_city(c, view, cast, tiles, frame, top, map_h, highlight=False)
    y = top + map_h + 14
    c.panel((MARGIN, y, WIDTH - MARGIN - 1, y + panel_h - 1), PANEL, radius=16)
    c.text((MARGIN + 20, y + 30), "Final scores", TEXT, bold=True, anchor="lm")
    c.text((WIDTH - MARGIN - 20, y + 30), "buildings · best building", SMALL + 2, fill=MUTED,
           anchor="rm", secondary=True)
    winners = {str(w) for w in view.get("winners") or []}
    rank = 0
    previous = None
    for i, (p, score, count, best) in enumerate(rows):
        if score != previous:
            rank, previous = i + 1, score
        cy = y + 58 + STANDING_H * i + STANDING_H // 2
        if i % 2 == 0:
            c.draw.rectangle((MARGIN + 10, cy - STANDING_H // 2 + 2, WIDTH - MARGIN - 11,
                              cy + STANDING_H // 2 - 2), fill=PAPER)
        c.text((MARGIN + 40, cy), f"{rank}.", TEXT, bold=True, anchor="rm")
        right = c.text((MARGIN + 400, cy), str(score), TEXT, bold=True, anchor="rm")[2]
        chip_max = MARGIN + 400 - 70 - (MARGIN + 52)
        chip = c.chip((MARGIN + 52, cy), p, cast.style(p), TEXT, anchor="lm",
                      max_width=chip_max, fallback=cast.fallback(p))
        del chip
        x = right + 12
        if p in winners:
            x = c.text((x, cy), "★ wins", TEXT, bold=True, anchor="lm")[2] + 16
        else:
            x += 100
        info = _plural(count, "building")
        if best is not None:
            info += f" · best: {best.points} ({_title(best.building).lower()})"
        c.text((max(x, MARGIN + 560), cy), info, SMALL + 4, fill=MUTED, anchor="lm",
               max_width=WIDTH - MARGIN - 20 - max(x, MARGIN + 560), secondary=True)
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """The final city and standings once, when the game ends."""
    if any(event.get("type") == "game_over" for event in events):
        return [("final", render_final(view))]
    return []


__all__ = ["render_extras", "render_final", "render_preview", "render_table"]
