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

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from bot.render import kit
from bot.render.cache import MB, byte_cache
from bot.render.cast import Cast, draw_inline, game_over_parts
from bot.render.kit import INK, MUTED, PANEL, PANEL_ALT, PAPER, RGB, RULE, Box, Canvas

from .skyline import COLUMNS, LINES, ROWS, SIDE_NAMES, SIDES, equal_height_points

View = dict[str, Any]

WIDTH = 1200
MARGIN = 24
TEXT = kit.least_text(WIDTH)  # 30: what a player reads to choose a move
SMALL = kit.least_text(WIDTH, secondary=True)  # 20: captions, keys

# -- colours -----------------------------------------------------------------------------

# Buildings darken with height on a neutral slate ramp, kept clear of every player hue so
# a tall building is never mistaken for someone's colour.
SHADE_LIGHT: RGB = (214, 220, 228)
SHADE_DARK: RGB = (38, 46, 60)
SHADE_STEPS = 16  # 16 or taller all look the same: rare, and the number still says it
SHADES: tuple[RGB, ...] = tuple(
    kit.blend(SHADE_LIGHT, SHADE_DARK, i / (SHADE_STEPS - 1)) for i in range(SHADE_STEPS)
)
LOT: RGB = (238, 235, 224)  # a vacant lot, close to the paper so buildings stand out
SKY: RGB = (228, 238, 246)
GROUND: RGB = (120, 112, 96)


def shade(height: int) -> RGB:
    return SHADES[min(max(height, 1), SHADE_STEPS) - 1]


PALETTE = kit.KIT_PALETTE.extended(
    (*SHADES, LOT, SKY, GROUND),
    pairs=[(MUTED, LOT), (MUTED, SKY), (INK, SKY), (RULE, SKY)]
    + [(kit.HIGHLIGHT, s) for s in SHADES[::3]],
)

# -- board geometry ----------------------------------------------------------------------

STRIP = 48  # an owner's band along a board edge
LABEL = 34  # column letters / row numbers
CELL = 112
GRID = 4 * CELL
BOARD = 2 * (STRIP + LABEL) + GRID
HEADER = 176
BODY = HEADER + 8
RIGHT_X = MARGIN + BOARD + 24
RIGHT_W = WIDTH - MARGIN - RIGHT_X
SKY_COL = 112
SKY_GAP = (RIGHT_W - 2 * 20 - 4 * SKY_COL) // 3
SKY_H = 92
SIDE_PANEL_H = 196
BLOCKS_Y = BODY + BOARD + 12
CAPTION_Y = BLOCKS_Y + 76 + 32


GOAL_SHORT = {  # beside the die showing the code, so a few words are enough
    1: "see 1",
    2: "see 2",
    3: "see 3",
    4: "see 4",
    5: "equal pair",
    6: "tallest",
}


def _line_names(side: str) -> list[str]:
    """How a side's lines are called on the board: the column letter or the row digit."""
    names = []
    for lots in LINES[side]:
        first, last = lots[0], lots[-1]
        names.append(first[0] if first[0] == last[0] else first[1])
    return names


def _lines_caption(side: str) -> str:
    names = _line_names(side)
    kind = "columns" if names[0] in COLUMNS else "rows"
    return f"{kind} {' '.join(names)}"


def _side_order(sides: dict[str, str]) -> list[str]:
    return [s for s in SIDES if s in sides]


def _visible(heights: Sequence[int]) -> list[bool]:
    """The rulebook's sight for codes 1-4: taller than every building in front."""
    tallest, seen = 0, []
    for h in heights:
        seen.append(h > tallest)
        tallest = max(tallest, h)
    return seen


def _raised_sight(heights: Sequence[int]) -> list[bool]:
    """Code 5 sight ("raise your point of view slightly"): no taller building in front."""
    tallest, seen = 0, []
    for h in heights:
        seen.append(h > 0 and h >= tallest)
        tallest = max(tallest, h)
    return seen


def _equal_seen(heights: Sequence[int]) -> list[bool]:
    """The buildings code 5 pays for: seen from a raised view, sharing their height."""
    seen = _raised_sight(heights)
    counts: dict[int, int] = {}
    for h, s in zip(heights, seen, strict=True):
        if s:
            counts[h] = counts.get(h, 0) + 1
    return [s and counts[h] >= 2 for h, s in zip(heights, seen, strict=True)]


# -- shared pieces -----------------------------------------------------------------------


def _inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
            max_x: int) -> float:
    """A sentence of text and player chips on one line, 10 px after each chip; the words
    always show whole. Returns the end x."""
    return draw_inline(c, x, y, parts, size, max_x, fit_words=False)


def _winners_parts(view: View, cast: Cast) -> list[tuple[str, Any]]:
    return game_over_parts(list(view.get("winners") or []), cast)


def _header_status(c: Canvas, view: View, cast: Cast) -> None:
    phase = view.get("phase")
    y, big, max_x = 46, 34, WIDTH - MARGIN
    if phase == "over":
        _inline(c, MARGIN, y, _winners_parts(view, cast), big, max_x)
    elif phase == "goals":
        waiting = list(view.get("to_act") or [])
        if waiting:
            parts: list[tuple[str, Any]] = [("bold", "Goals: waiting for ")]
            parts += [cast.chip(p) for p in waiting]
            # Smaller when three or four names must share the line.
            _inline(c, MARGIN, y, parts, big if len(waiting) <= 2 else TEXT, max_x)
        else:
            c.text((MARGIN, y), "Setting goals", big, bold=True, anchor="lm")
    else:
        turn = view.get("turn") or next(iter(view.get("to_act") or []), None)
        if turn is None:
            c.text((MARGIN, y), "Building", big, bold=True, anchor="lm")
        else:
            _inline(c, MARGIN, y, [cast.chip(turn), ("bold", "to build")], big, max_x)


def _subline(view: View, cast: Cast) -> str:
    bits = [f"Round {view.get('round', 1)} of {view.get('rounds', 1)}"]
    placed = int(view.get("placed", 0))
    phase = view.get("phase")
    if phase == "building":
        bits.append(f"{placed} of 25 blocks built")
    elif phase == "goals":
        bits.append("everyone picks secret goals")
    elif phase == "over":
        bits.append("final city")
    starter = view.get("starting_player")
    if starter and phase != "over":
        bits.append(f"{cast.name(starter, TEXT, False, 300)} builds first")
    return " · ".join(bits)


def _blocks_left(c: Canvas, view: View, box: Box) -> None:
    """The blocks still to build with: a block of each height and how many are left."""
    left = view.get("blocks_left") or {}
    x0, y0, x1, y1 = box
    c.panel(box, PANEL, radius=14)
    cy = (y0 + y1) / 2
    title = c.text_lines((x0 + 16, cy - SMALL * 1.25), ["Blocks", "left"], SMALL + 2,
                         bold=True, fill=MUTED, secondary=True)
    step = (x1 - 8 - title[2] - 12) / 5
    for i, h in enumerate(range(1, 6)):
        n = int(left.get(str(h), 0))
        bx = title[2] + 12 + step * i
        half = 17 + 3 * h  # a taller block for a taller height, as on the table
        block = (round(bx), round(cy - half), round(bx + 38), round(cy + half))
        fill = shade(h * 3)
        if n:
            c.draw.rectangle(block, fill=fill, outline=INK, width=2)
            c.text((bx + 19, cy + 1), str(h), TEXT, bold=True, fill=kit.ink_on(fill),
                   anchor="mm")
        else:
            c.draw.rectangle(block, fill=PANEL, outline=RULE, width=2)
            c.text((bx + 19, cy + 1), str(h), TEXT, bold=True, fill=RULE, anchor="mm")
        c.text((bx + 43, cy), f"×{n}", TEXT, bold=n > 0, fill=INK if n else MUTED, anchor="lm")


def _scores_row(c: Canvas, view: View, cast: Cast, y: int) -> None:
    scores = view.get("scores") or {}
    sides = view.get("sides") or {}
    x = c.text((MARGIN, y), "Scores", SMALL + 4, bold=True, fill=MUTED, anchor="lm",
               secondary=True)[2] + 14
    gap = 24
    tails, wanted = [], []
    for p in cast.players:
        pts = str(int(scores.get(p, 0)))
        # Which edges are whose, spelled out where someone holds two (two-player games).
        held = "+".join(s for s in SIDES if sides.get(s) == p)
        held = f"sides {held}" if "+" in held else ""
        tail_w = kit.text_width(pts, TEXT, True) + (kit.text_width(held, SMALL + 2) + 8
                                                     if held else 0)
        tails.append((pts, held, tail_w + 8))
        wanted.append(kit.chip_width(p, TEXT, True, cast.fallback(p)))
    room = WIDTH - MARGIN - x - sum(t[2] for t in tails) - gap * (len(tails) - 1)
    for p, (pts, held, _w), chip_w in zip(cast.players, tails,
                                          kit.share_width(wanted, room, least=72), strict=True):
        box = c.chip((x, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_w,
                     fallback=cast.fallback(p))
        x = c.text((box[2] + 8, y), pts, TEXT, bold=True, anchor="lm")[2]
        if held:
            x = c.text((x + 8, y), held, SMALL + 2, fill=MUTED, anchor="lm",
                       secondary=True)[2]
        x += gap


# -- the table ---------------------------------------------------------------------------


@byte_cache(5 * MB)  # one table base (~4.5 MB); a miss costs ~6 ms
def _table_base(sides: tuple[str, ...]) -> Canvas:
    """Everything that does not change during a game with these sides."""
    right_h = BODY + 40 + len(sides) * (SIDE_PANEL_H + 12)
    left_h = CAPTION_Y + 24
    c = Canvas.new(WIDTH, max(right_h, left_h) + MARGIN - 12, PAPER)
    gx, gy = MARGIN + STRIP + LABEL, BODY + STRIP + LABEL
    c.panel((MARGIN, BODY, MARGIN + BOARD, BODY + BOARD), PANEL, radius=18)
    for i in range(4):
        cx = gx + CELL * i + CELL / 2
        cy = gy + CELL * (3 - i) + CELL / 2  # row 1 at the bottom (south)
        for y in (gy - LABEL / 2, gy + GRID + LABEL / 2):
            c.text((cx, y), COLUMNS[i], TEXT, bold=True, fill=MUTED, anchor="mm")
        for x in (gx - LABEL / 2, gx + GRID + LABEL / 2):
            c.text((x, cy), ROWS[i], TEXT, bold=True, fill=MUTED, anchor="mm")
    # The skylines restate the board from each edge: an explanation, so secondary text.
    c.text((RIGHT_X, BODY + 16), "What each side sees", SMALL + 4, bold=True, anchor="lm",
           secondary=True)
    c.text((WIDTH - MARGIN, BODY + 16), "lines left → right", SMALL + 2, fill=MUTED,
           anchor="rm", secondary=True)
    return c


def _strip_image(side: str, owner: str | None, style_index: int, fallback: str,
                 length: int) -> Canvas:
    """An owner's band for one board edge, drawn upright as for the south edge."""
    c = Canvas.new(length, STRIP, PANEL)
    word = SIDE_NAMES[side]
    if owner is None:
        c.panel((0, 0, length - 1, STRIP - 1), PANEL_ALT, radius=STRIP // 2)
        c.text((length / 2, STRIP / 2), f"{word} · no player", SMALL + 2, fill=MUTED,
               anchor="mm", secondary=True)
        return c
    style = kit.player_style(style_index)
    c.panel((0, 0, length - 1, STRIP - 1), style.colour, radius=STRIP // 2)
    # The side letter sits in a white disc so it reads whatever the player colour.
    c.marker((STRIP / 2, STRIP / 2), "circle", STRIP - 10, PANEL)
    c.text((STRIP / 2, STRIP / 2 + 1), side, 24, bold=True, fill=INK, anchor="mm",
           secondary=True)
    x = STRIP + 6
    c.marker((x + 14, STRIP / 2), style.marker, 28, style.ink)
    tail = f" · {word}"
    tail_w = kit.text_width(tail, SMALL + 2)
    name_box = c.text((x + 38, STRIP / 2), owner, TEXT, bold=True, fill=style.ink,
                      anchor="lm", max_width=length - x - 38 - tail_w - STRIP // 2,
                      fallback=fallback)
    c.text((name_box[2], STRIP / 2), tail, SMALL + 2, fill=style.ink, anchor="lm",
           secondary=True)
    return c


@byte_cache(1 * MB)
def _strip(side: str, owner: str | None, style_index: int, fallback: str) -> Image.Image:
    length = GRID + 2 * LABEL
    image = _strip_image(side, owner, style_index, fallback, length).image
    # West and east bands are turned so their owner reads them from their own seat.
    if side == "W":
        return image.transpose(Image.Transpose.ROTATE_90)
    if side == "E":
        return image.transpose(Image.Transpose.ROTATE_270)
    return image


def _draw_strips(c: Canvas, view: View, cast: Cast) -> None:
    sides = view.get("sides") or {}
    places = {
        "N": (MARGIN + STRIP, BODY),
        "S": (MARGIN + STRIP, BODY + BOARD - STRIP),
        "W": (MARGIN, BODY + STRIP),
        "E": (MARGIN + BOARD - STRIP, BODY + STRIP),
    }
    for side, xy in places.items():
        owner = sides.get(side)
        idx = cast.index.get(owner, 0) if owner is not None else 0
        fallback = cast.fallback(owner) if owner is not None else ""
        c.image.paste(_strip(side, owner, idx, fallback), xy)


def _lot_xy(lot: str) -> tuple[int, int]:
    col, row = COLUMNS.index(lot[0]), ROWS.index(lot[1])
    return MARGIN + STRIP + LABEL + col * CELL, BODY + STRIP + LABEL + (3 - row) * CELL


def _draw_board(c: Canvas, view: View) -> None:
    lots: dict[str, list[int]] = view.get("lots") or {}
    heights: dict[str, int] = view.get("heights") or {}
    last = view.get("last_build") or {}
    tallest = max([int(h) for h in heights.values()] + [1])
    # One scale for every stack so stacks compare across the board.
    unit = min(6.0, (CELL - 26) / max(tallest, 1))
    for r in ROWS:
        for col in COLUMNS:
            lot = col + r
            x, y = _lot_xy(lot)
            h = int(heights.get(lot, 0))
            box = (x + 3, y + 3, x + CELL - 3, y + CELL - 3)
            if h <= 0:
                c.draw.rectangle(box, fill=LOT, outline=RULE, width=2)
                c.text((x + CELL / 2, y + CELL / 2), lot, TEXT, fill=MUTED, anchor="mm")
                continue
            fill = shade(h)
            ink = kit.ink_on(fill)
            c.draw.rectangle(box, fill=fill, outline=INK, width=2)
            c.text((x + CELL / 2 - 10, y + CELL / 2 + 2), str(h), 46, bold=True, fill=ink,
                   anchor="mm")
            _draw_stack(c, lots.get(lot, []), x + CELL - 26, y + CELL - 11, unit, fill,
                        highlight_top=last.get("lot") == lot)
            if h == tallest:  # the "tallest" goal scores lines that see this building
                c.label((x + 7, y + 7), "★ tallest", 20, fg=INK, bg=kit.HIGHLIGHT,
                        outline=INK, pad=5, secondary=True)
    if last.get("lot") in heights:
        x, y = _lot_xy(last["lot"])
        c.draw.rectangle((x - 1, y - 1, x + CELL + 1, y + CELL + 1), outline=INK, width=2)
        c.draw.rectangle((x + 1, y + 1, x + CELL - 1, y + CELL - 1), outline=kit.HIGHLIGHT,
                         width=6)
        c.draw.rectangle((x + 7, y + 7, x + CELL - 7, y + CELL - 7), outline=INK, width=1)


def _draw_stack(c: Canvas, blocks: Sequence[int], x: int, bottom: int, unit: float,
                fill: RGB, highlight_top: bool) -> None:
    """The lot's blocks as a little tower, bottom to top; the newest one highlighted."""
    ink = kit.ink_on(fill)
    y = float(bottom)
    for i, b in enumerate(blocks):
        top = y - max(4.0, b * unit)
        colour = kit.HIGHLIGHT if highlight_top and i == len(blocks) - 1 else ink
        # A 2 px gap of the building's own colour keeps the blocks apart.
        c.draw.rectangle((x, round(top) + 2, x + 14, round(y)), fill=colour)
        y = top


def _last_caption(c: Canvas, view: View, cast: Cast) -> None:
    last = view.get("last_build")
    y = CAPTION_Y
    if not last:
        return
    c.draw.rectangle((MARGIN + 4, y - 13, MARGIN + 30, y + 13), fill=kit.HIGHLIGHT, outline=INK,
                     width=2)
    player = str(last.get("player", ""))
    _inline(c, MARGIN + 42, y, [
        ("text", "Last: "),
        cast.chip(player),
        ("text", f"put a {last.get('height')} on {last.get('lot')}, now {last.get('building')}"),
    ], TEXT, MARGIN + BOARD)


def _draw_skylines(c: Canvas, view: View, cast: Cast) -> None:
    sides: dict[str, str] = view.get("sides") or {}
    goals_set: dict[str, bool] = view.get("goals_set") or {}
    choosing = view.get("phase") == "goals"
    lines: dict[str, list[list[int]]] = view.get("lines") or {}
    tallest = max([h for side in lines.values() for line in side for h in line] + [1])
    unit = min(9.0, (SKY_H - 30) / tallest)
    y = BODY + 40
    for side in _side_order(sides):
        owner = sides[side]
        status = None
        if choosing:
            status = bool(goals_set.get(side))
        _skyline_panel(c, side, owner, cast, lines.get(side) or [[0] * 4] * 4, unit,
                       (RIGHT_X, y, WIDTH - MARGIN, y + SIDE_PANEL_H), status)
        y += SIDE_PANEL_H + 12


def _skyline_panel(c: Canvas, side: str, owner: str, cast: Cast, lines: list[list[int]],
                   unit: float, box: Box, goals_set: bool | None) -> None:
    """One side's four lines as its player sees them; ``goals_set`` only while choosing."""
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    style = cast.style(owner)
    caption = f"{SIDE_NAMES[side]} ({side})"
    cap_w = 0
    if goals_set is None:
        caption += f" · {_lines_caption(side)}"
    else:
        # While goals are chosen the board is empty: say who is still choosing instead.
        status = "✓ goals set" if goals_set else "choosing goals…"
        c.text((x1 - 16, y0 + 30), status, SMALL + 2, bold=goals_set, anchor="rm",
               fill=kit.GOOD if goals_set else MUTED, secondary=True)
        cap_w = kit.text_width(status, SMALL + 2, goals_set) + 16
    cap_w += kit.text_width(caption, SMALL + 2)
    chip = c.chip((x0 + 12, y0 + 30), owner, style, TEXT, anchor="lm",
                  max_width=x1 - x0 - 36 - cap_w, fallback=cast.fallback(owner))
    c.text((chip[2] + 10, y0 + 30), caption, SMALL + 2, fill=MUTED, anchor="lm",
           secondary=True)
    names = _line_names(side)
    sky_top = y0 + 58
    ground = sky_top + SKY_H
    for i, heights in enumerate(lines):
        lx = x0 + 20 + i * (SKY_COL + SKY_GAP)
        c.draw.rectangle((lx, sky_top, lx + SKY_COL, ground), fill=SKY)
        # The line's name as a tag, so "4" and "0 seen" never read as "40 seen".
        c.panel((lx + 3, sky_top + 3, lx + 27, sky_top + 28), MUTED, radius=6)
        c.text((lx + 15, sky_top + 16), names[i], SMALL, bold=True, fill=kit.WHITE,
               anchor="mm", secondary=True)
        seen = _visible(heights)
        # Back to front, each building narrower with distance: what is hidden ends up
        # behind something at least as tall, exactly as the rules define sight.
        for depth in range(len(heights) - 1, -1, -1):
            h = heights[depth]
            if h <= 0:
                continue
            w = SKY_COL * (1 - 0.16 * depth)
            top = ground - h * unit
            bx0 = lx + (SKY_COL - w) / 2
            c.draw.rectangle((round(bx0), round(top), round(bx0 + w), ground), fill=shade(h),
                             outline=INK, width=1)
        c.draw.line((lx, ground, lx + SKY_COL, ground), fill=GROUND, width=3)
        count = sum(seen)
        c.text((lx + SKY_COL - 5, sky_top + 16), f"{count} seen", SMALL,
               fill=INK if count else MUTED, anchor="rm", secondary=True)
        _heights_text(c, heights, seen, lx + SKY_COL / 2, ground + 24)


def _heights_text(c: Canvas, heights: Sequence[int], seen: Sequence[bool], cx: float,
                  y: float) -> None:
    """Front-to-back heights; the visible ones bold, vacant lots as a dot."""
    parts = [("·" if h <= 0 else str(h), s) for h, s in zip(heights, seen, strict=True)]
    gap = 8
    widths = [kit.text_width(t, SMALL + 2, bold) for t, bold in parts]
    x = cx - (sum(widths) + gap * (len(parts) - 1)) / 2
    for (t, bold), w in zip(parts, widths, strict=True):
        c.text((x, y), t, SMALL + 2, bold=bold, fill=INK if bold else MUTED, anchor="lm",
               secondary=True)
        x += w + gap


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    sides = tuple(_side_order(view.get("sides") or {}))
    c = _table_base(sides).copy()
    _header_status(c, view, cast)
    c.text((MARGIN, 98), _subline(view, cast), TEXT, fill=MUTED, anchor="lm",
           max_width=WIDTH - 2 * MARGIN)
    _scores_row(c, view, cast, 148)
    _blocks_left(c, view, (MARGIN, BLOCKS_Y, MARGIN + BOARD, BLOCKS_Y + 76))
    _draw_strips(c, view, cast)
    _draw_board(c, view)
    _last_caption(c, view, cast)
    _draw_skylines(c, view, cast)
    return c.png(PALETTE)


# -- scoring -----------------------------------------------------------------------------

SCORE_PANEL_W = (WIDTH - 2 * MARGIN - 16) // 2
ROW_H = 52
SCORE_PANEL_H = 74 + 4 * ROW_H + 14
TOTAL_ROW_H = 54


def render_scoring(view: View, round_number: int | None = None) -> bytes:
    """One round's revealed goals and points (the latest round when ``round_number`` is
    None), as PNG bytes. Raises ValueError for a round that has not been scored."""
    results = list(view.get("round_results") or [])
    cast = Cast(view.get("players") or [])
    if round_number is None:
        if not results:
            return _no_scores_yet(view)
        result = results[-1]
    else:
        found = [r for r in results if r.get("round") == round_number]
        if not found:
            raise ValueError(f"round {round_number} has not been scored")
        result = found[0]
    sides = [s for s in SIDES if s in (result.get("sides") or {})]
    final = view.get("phase") == "over" and result is results[-1]
    grid_rows = (len(sides) + 1) // 2
    totals_h = 68 + TOTAL_ROW_H * len(cast.players)
    odd = len(sides) % 2 == 1
    top = 140
    height = top + grid_rows * (SCORE_PANEL_H + 16) + (0 if odd else totals_h + 16) + 8
    if odd:
        height = max(height, top + grid_rows * (SCORE_PANEL_H + 16) + 8)
    c = Canvas.new(WIDTH, height, PAPER)
    _scoring_header(c, view, cast, result, final)
    for i, side in enumerate(sides):
        x = MARGIN + (i % 2) * (SCORE_PANEL_W + 16)
        y = top + (i // 2) * (SCORE_PANEL_H + 16)
        _side_score_panel(c, side, result["sides"][side], cast, int(result.get("tallest", 0)),
                          (x, y, x + SCORE_PANEL_W, y + SCORE_PANEL_H))
    if odd:
        i = len(sides)
        x = MARGIN + (i % 2) * (SCORE_PANEL_W + 16)
        y = top + (i // 2) * (SCORE_PANEL_H + 16)
        _totals_panel(c, result, cast, final, view, (x, y, x + SCORE_PANEL_W, y + SCORE_PANEL_H))
    else:
        y = top + grid_rows * (SCORE_PANEL_H + 16)
        _totals_panel(c, result, cast, final, view, (MARGIN, y, WIDTH - MARGIN, y + totals_h))
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """Pictures that some events deserve on their own: each scored round's reveal.

    ``view`` is the view after the events, so it already holds the scored round.
    """
    return [(f"round-{event['round']}-scoring", render_scoring(view, event["round"]))
            for event in events if event.get("type") == "round_scored"]


def _no_scores_yet(view: View) -> bytes:
    c = Canvas.new(WIDTH, 160, PAPER)
    c.text((MARGIN, 56), "No round has been scored yet", 34, bold=True, anchor="lm")
    c.text((MARGIN, 110), f"Round {view.get('round', 1)} of {view.get('rounds', 1)} is in play",
           TEXT, fill=MUTED, anchor="lm")
    return c.png(PALETTE)


def _scoring_header(c: Canvas, view: View, cast: Cast, result: View, final: bool) -> None:
    number = result.get("round", "?")
    y = 46
    if final:
        _inline(c, MARGIN, y, _winners_parts(view, cast), 34, WIDTH - MARGIN)
    else:
        c.text((MARGIN, y), f"Round {number} scored: goals revealed", 34, bold=True, anchor="lm")
    sub = (f"Round {number} of {view.get('rounds', '?')} · tallest building: "
           f"{result.get('tallest', 0)} · heights front → back, shaded = seen")
    c.text((MARGIN, 98), sub, SMALL + 4, fill=MUTED, anchor="lm", secondary=True)


def _side_score_panel(c: Canvas, side: str, data: View, cast: Cast, tallest: int,
                      box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    owner = str(data.get("player", ""))
    points = int(data.get("points", 0))
    pts_label = f"{points} pts"
    pts_w = kit.text_width(pts_label, 30, True)
    caption = f"{SIDE_NAMES[side]} ({side})"
    cap_w = kit.text_width(caption, SMALL + 2)
    chip = c.chip((x0 + 14, y0 + 32), owner, cast.style(owner), TEXT, anchor="lm",
                  max_width=x1 - x0 - 60 - pts_w - cap_w, fallback=cast.fallback(owner))
    c.text((chip[2] + 10, y0 + 32), caption, SMALL + 2, fill=MUTED, anchor="lm",
           secondary=True)
    c.text((x1 - 16, y0 + 32), pts_label, TEXT, bold=True, anchor="rm")
    names = _line_names(side)
    for i, line in enumerate(data.get("lines") or []):
        y = y0 + 68 + i * ROW_H
        if i % 2 == 0:
            c.draw.rectangle((x0 + 8, y, x1 - 8, y + ROW_H - 2), fill=PAPER)
        _score_row(c, names[i] if i < len(names) else "?", line, tallest, x0, x1, y + ROW_H / 2)


def _score_row(c: Canvas, name: str, line: View, tallest: int, x0: int, x1: int,
               cy: float) -> None:
    code = int(line.get("code", 0))
    heights = [int(h) for h in line.get("heights") or []]
    points = int(line.get("points", 0))
    x = x0 + 16
    c.text((x + 10, cy), name, TEXT, bold=True, fill=MUTED, anchor="mm")
    x += 32
    c.die((x, round(cy - 19), x + 38, round(cy + 19)), code)
    x += 46
    # The die is the goal; the words and everything after them up to the points explain it.
    c.text((x, cy), GOAL_SHORT.get(code, str(line.get("goal", ""))), SMALL + 2, anchor="lm",
           max_width=114, secondary=True)
    x += 118
    if code == 5:
        seen = _raised_sight(heights)
        key = _equal_seen(heights)
    elif code == 6:
        seen = _visible(heights)
        key = [h == tallest and h > 0 for h in heights]
    else:
        seen = _visible(heights)
        key = [False] * len(heights)
    for h, s, k in zip(heights, seen, key, strict=True):
        tile = (x, round(cy - 16), x + 30, round(cy + 16))
        if h <= 0:
            c.draw.rectangle(tile, fill=LOT, outline=RULE, width=1)
            c.text(((tile[0] + tile[2]) / 2, cy), "·", SMALL, fill=MUTED, anchor="mm",
                   secondary=True)
        elif s or k:
            fill = shade(h)
            c.draw.rectangle(tile, fill=fill, outline=INK, width=3 if k else 1)
            c.text(((tile[0] + tile[2]) / 2, cy + 1), str(h), SMALL, bold=True,
                   fill=kit.ink_on(fill), anchor="mm", secondary=True)
        else:
            c.draw.rectangle(tile, fill=PANEL, outline=RULE, width=2)
            c.text(((tile[0] + tile[2]) / 2, cy + 1), str(h), SMALL, fill=MUTED,
                   anchor="mm", secondary=True)
        x += 33
    x += 8
    ok = points > 0
    if code in (1, 2, 3, 4):
        result = f"sees {line.get('visible', sum(_visible(heights)))}"
    elif code == 5:
        n = equal_height_points(heights) // 10
        result = f"{n} equal" if n else "no pair"
    elif code == 6:
        result = f"has {tallest}" if ok else f"max {max([*heights, 0])}"
    else:
        result = ""
    mark = "✓" if ok else "✗"
    c.text((x, cy), f"{mark} {result}", SMALL + 2, bold=True, fill=kit.GOOD if ok else kit.BAD,
           anchor="lm", max_width=x1 - 84 - x, secondary=True)
    c.text((x1 - 16, cy), f"+{points}" if ok else "0", TEXT, bold=ok, fill=INK if ok else MUTED,
           anchor="rm")


def _totals_panel(c: Canvas, result: View, cast: Cast, final: bool, view: View,
                  box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    gained = result.get("points") or {}
    totals = result.get("totals") or {}
    winners = set(view.get("winners") or []) if final else set()
    title = "Final scores" if final else f"Scores after round {result.get('round', '?')}"
    c.text((x0 + 16, y0 + 32), title, TEXT, bold=True, anchor="lm")
    c.text((x1 - 16, y0 + 32), "round · total", SMALL + 2, fill=MUTED, anchor="rm",
           secondary=True)
    order = sorted(cast.players, key=lambda p: (-int(totals.get(p, 0)), cast.index[p]))
    for i, p in enumerate(order):
        y = y0 + 86 + i * TOTAL_ROW_H
        right = x1 - 16
        total_w = 70
        c.text((right, y), str(int(totals.get(p, 0))), TEXT, bold=True, anchor="rm")
        c.text((right - total_w - 10, y), f"+{int(gained.get(p, 0))}", TEXT, fill=MUTED,
               anchor="rm")
        chip_max = right - total_w - 100 - (x0 + 16) - (120 if p in winners else 0)
        chip = c.chip((x0 + 16, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_max,
                      fallback=cast.fallback(p))
        if p in winners:
            c.text((chip[2] + 10, y), "★ wins", TEXT, bold=True, anchor="lm")
