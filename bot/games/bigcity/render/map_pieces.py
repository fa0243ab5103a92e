"""The map's moving layer: pieces, streetcars and highlights over the static one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PIL import Image, ImageDraw

from bot.core.i18n import Words, current
from bot.render import kit
from bot.render.cache import MB, PackedLRU
from bot.render.kit import INK, PANEL_ALT, RGB, WHITE, Canvas

from .cast import Cast
from .city import Piece, Tile, _cell_of, _city_cells, _icon_name, _kind, _pieces, _segments
from .constants import FACTORY, MAP_PAD, PARK, PARK_INK, STREETCAR, Cell, Point, View
from .frame import Frame
from .icons import _paste_icon
from .map_base import _map_base, _outline_lines, _small_number_size, _stroke

_ = Words("bot.games.bigcity")

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
    word = _("Park") if _kind(piece.building) == "park" else _("Factory")
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
# that previous layer is then dropped, so the budget holds one layer per recent match.
# The last two layers are kept as drawn (2.6-3.5 MB each), older ones compressed (~35 KB:
# bot/render/cache.py), so under real traffic, dozens of matches taking turns, a match's
# layer is still here on its next move (a hit costs ~0.5 ms; drawing it from the bare map
# ~6 ms more, and the bare map itself ~30 ms when it too has gone). 8 MB compressed holds
# ~200 matches' layers: with 3 MB deflated (~37) a mixed run of 50 Big City channels drew
# a table in 22.4 ms on average, with 8 MB in 19.5 (docs/pictures-cost.md).
_CITY_CACHE: PackedLRU[tuple[Any, ...]] = PackedLRU(f"{__name__}._CITY_CACHE", 8 * MB,
                                                       hot_bytes=7 * MB)

PieceKey = tuple[tuple[Piece, int], ...]


def _city_layer(tiles: tuple[Tile, ...], frame: Frame, map_h: int, pieces: PieceKey,
                cast: Cast) -> Image.Image:
    """The map strip with every piece on it (cached; a new image each call)."""
    language = current()  # parks and factories are labelled in words
    key = (language, tiles, frame, map_h, pieces)
    hit = _CITY_CACHE.get_image(key)
    if hit is not None:
        return hit
    parent = (language, tiles, frame, map_h, pieces[:-1])
    previous = _CITY_CACHE.peek_image(parent) if pieces else None
    if previous is not None:
        image, todo = previous, pieces[-1:]
    else:
        image, todo = _map_base(tiles, frame, map_h), pieces
    strip = Canvas(image)
    number_of = {cell: prop for prop, cell in _cell_of(tiles).items()}
    _draw_pieces(strip, [piece for piece, _style in todo], replace(frame, top=MAP_PAD), cast,
                 number_of)
    if previous is not None:
        _CITY_CACHE.discard(parent)
    return _CITY_CACHE.put_image(key, image)


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
