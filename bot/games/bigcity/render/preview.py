"""Previews: the city with letters on the places a player can pick."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence

from PIL import Image, ImageDraw

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import INK, MUTED, PANEL_ALT, PAPER, RGB, Box, Canvas

from ..geometry import neighborhood_layout
from .cast import Cast
from .city import Piece, _cell_of, _city_cells, _outskirt_cells, _pieces, _segments, _tiles
from .constants import (
    GHOST,
    HEAD_Y,
    INNER_W,
    LOT,
    LOT_OUT,
    MARGIN,
    PALETTE,
    SMALL,
    STREET,
    SUB_Y,
    TEXT,
    WIDTH,
    Cell,
    Point,
    View,
)
from .frame import Frame, _frame, _map_height
from .map_base import _number_size, _outline_lines, _stroke
from .map_pieces import _draw_city, _piece_fill
from .text import _inline

_ = Words("bot.games.bigcity")

# -- previews ----------------------------------------------------------------------------


def _ghost_cells(choice: View) -> list[tuple[int, Cell]]:
    number = int(choice.get("neighborhood", 0))
    if not 1 <= number <= 8:
        return []
    at_raw = choice.get("at") or [0, 0]
    layout = neighborhood_layout(number, (int(at_raw[0]), int(at_raw[1])),
                                 int(choice.get("rotation", 0)) % 360)
    return list(layout.items())


@functools.lru_cache(maxsize=32)
def _candidates(step: int) -> tuple[tuple[float, float], ...]:
    """Where a label may go, nearest first: the spot itself, then eight rings around it
    ``step`` px apart (worked out once per step: 289 points of trigonometry a label)."""
    candidates = [(0.0, 0.0)]
    for ring in range(1, 9):
        r = ring * step
        for k in range(8 * ring):
            a = 2 * math.pi * k / (8 * ring) - math.pi / 2
            candidates.append((r * math.cos(a), r * math.sin(a)))
    return tuple(candidates)


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
        candidates = _candidates(step)
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
        title = _("Your pick: {letter}", letter=texts[0])
        sub = _("Marked on the city")
    elif texts:
        title = _choice_kinds(choices, f"{texts[0]}–{texts[-1]}")
    else:
        title = _choice_kinds(choices, None)
    c.text((MARGIN, HEAD_Y), title, 34, bold=True, anchor="lm", max_width=INNER_W)
    who = view.get("viewer") or view.get("turn")
    if not who:
        c.text((MARGIN, SUB_Y), sub, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)
        return
    chip = cast.chip(str(who))
    # ``_inline`` shortens the name to keep the words whole, down to a chip of 3 × TEXT
    if kit.text_width(kit.prepare(sub, TEXT), TEXT) + 3 * TEXT + 8 <= INNER_W:
        _inline(c, MARGIN, SUB_Y, [chip, ("text", sub)], TEXT, WIDTH - MARGIN, fill=MUTED)
        return
    # A longer explanation (another language) goes down to the size of a caption before
    # it is cut.
    name, style, fallback = chip[1]
    chip_w = kit.chip_width(name, TEXT, True, fallback)
    box = c.chip((MARGIN, SUB_Y), name, style, TEXT, anchor="lm",
                 max_width=min(chip_w, INNER_W // 3), fallback=fallback)
    left = box[2] + 8
    room = WIDTH - MARGIN - left
    size = TEXT - 2
    while size > SMALL and kit.text_width(kit.prepare(sub, size), size) > room:
        size -= 2
    c.text((left, SUB_Y), sub, size, fill=MUTED, anchor="lm", max_width=room, secondary=True)


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
    _preview_header(c, view, choices, cast,
                    _("Letters mark the choices; the menu says what each is"))
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
    _preview_header(c, view, choices, cast, _("One small map per place the neighborhood can go"))
    outskirts = _outskirt_cells(frozenset(city))
    base = _mini_city(Frame(min(xs), min(ys), span_x, span_y, cell, 0, 0), city, pieces, cast,
                      outskirts)
    for i, (choice, ghost) in enumerate(zip(choices, ghosts, strict=True)):
        x = MARGIN + (i % cols) * (thumb_w + gap)
        y = head_h + (i // cols) * (thumb_h + gap)
        c.panel((x, y, x + thumb_w - 1, y + thumb_h - 1), PANEL_ALT, radius=12)
        frame = Frame(min(xs), min(ys), span_x, span_y, cell,
                      x + (thumb_w - span_x * cell) // 2, y + label_h)
        _draw_mini(c, frame, base, ghost)
        c.label((x + 8, y + 6), str(choice.get("label", "?")), TEXT, fg=INK,
                bg=kit.HIGHLIGHT, outline=INK)
        turn = int(choice.get("rotation", 0)) % 360
        c.text((x + thumb_w - 10, y + 26), f"{turn}°" if turn else "0°", TEXT,
               fill=MUTED, anchor="rm")
    key = _("numbers: its properties") if cell >= 30 else _("dot: its property 1")
    c.text((MARGIN, c.height - 28), _("Yellow: the new neighborhood · {key} · ° turned",
                                      key=key),
           SMALL + 2, fill=MUTED, anchor="lm", max_width=INNER_W, secondary=True)
    return c.png(PALETTE)


def _mini_city(frame: Frame, city: Sequence[Cell], pieces: Sequence[Piece], cast: Cast,
               outskirts: frozenset[Cell]) -> Image.Image:
    """What every small map of a preview shares, drawn once (``frame`` at 0, 0): the city,
    lots in their owners' colours, on the panel's colour. Each map pastes it (its box lies
    inside its panel's flat middle) and adds its ghost: ~25 maps drew every cell 25 times."""
    c = Canvas.new(frame.cols * frame.cell, frame.rows * frame.cell, PANEL_ALT)
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
    return c.image


def _draw_mini(c: Canvas, frame: Frame, base: Image.Image,
               ghost: Sequence[tuple[int, Cell]]) -> None:
    """A city too small for numbers: ``base`` (``_mini_city``), the ghost in yellow."""
    c.image.paste(base, (frame.left, frame.top))
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


def _choice_kinds(choices: Sequence[View], letters: str | None) -> str:
    """The preview's title: "Pick a building site from the menu: A–F"."""
    kinds = set()
    for choice in choices:
        if "neighborhood" in choice:
            kinds.add("position")
        elif choice.get("segments"):
            kinds.add("streetcars")
        elif choice.get("properties"):
            kinds.add("site")
    kind = kinds.pop() if len(kinds) == 1 else "choice"
    if letters is None:
        return {"position": _("Pick a position from the menu"),
                "streetcars": _("Pick streetcars from the menu"),
                "site": _("Pick a building site from the menu")}.get(
                    kind, _("Pick a choice from the menu"))
    return {"position": _("Pick a position from the menu: {letters}", letters=letters),
            "streetcars": _("Pick streetcars from the menu: {letters}", letters=letters),
            "site": _("Pick a building site from the menu: {letters}", letters=letters)}.get(
                kind, _("Pick a choice from the menu: {letters}", letters=letters))


def _preview_footer(choices: Sequence[View]) -> str:
    if any("neighborhood" in ch for ch in choices):
        return _("Dashed outlines: where the neighborhood could go · each letter sits toward "
                 "its property 1")
    if any(ch.get("segments") for ch in choices):
        return _("Yellow: the streets each choice would lay streetcars on")
    return _("Yellow frames: the properties of the sites · bridges join the lots of one site")


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
