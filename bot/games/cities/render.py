"""Pictures of a Cities game, drawn from the engine's public view only.

``render_table`` is the shared board: the four rows (scoring cards, city tiles, feature
groups, building-piece groups and the star space) with what is left and whose workers
took the rest, the city's achievement board with its rings, every player's score so far
and workers left, whose turn it is and what they must place now. ``render_neighbourhood``
is one player's tiles, features and buildings with their held scoring cards and score so
far; ``render_preview`` is the same neighbourhood with lettered candidate spots (ghost
tiles for every rotation offered); ``render_final`` is every neighbourhood with its
scoring breakdown and the winners.

Face-down items arrive as ``{"face_down": true}`` and are drawn as card backs: nothing
here could show them, since the view never holds them.

Every space shows its kind twice, by colour and by a letter or pattern (R B G Y city
spaces, wavy water, dotted park); buildings carry their height as a number; players are a
colour plus a marker shape. Pictures are 1200 px wide; what a player reads to choose a
move is at least 30 px (1/40 of the width), rules text, records and keys at least 20 px
(docs/pictures.md).
All functions return PNG bytes and touch neither discord nor the disk (fonts aside).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.render import kit
from bot.render.cache import KB, MB, byte_cache
from bot.render.kit import (
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    PANEL_ALT,
    PAPER,
    RGB,
    RULE,
    WHITE,
    Box,
    Canvas,
)

from . import scoring
from .content import CONTENT
from .neighbourhood import Neighbourhood

View = dict[str, Any]
Space = tuple[int, int]

WIDTH = 1200
MARGIN = 24
INNER = WIDTH - 2 * MARGIN
GAP = 12
# docs/pictures.md: what a player reads to choose a move at 1/40 of the width, captions,
# keys, rules text and records of what was taken at 1/60.
TEXT = kit.least_text(WIDTH)  # 30
SMALL = kit.least_text(WIDTH, secondary=True)  # 20

# -- colours -------------------------------------------------------------------------------

SPACE_FILL: dict[str, RGB] = {
    "R": (196, 62, 52),
    "B": (44, 96, 186),
    "G": (52, 140, 72),
    "Y": (240, 198, 64),
    "W": (176, 214, 240),
    "P": (202, 230, 168),
}
WAVE: RGB = (78, 140, 196)
TREE: RGB = (112, 170, 92)
FEATURE_FILL: dict[str, RGB] = {"water": (22, 84, 146), "park": (34, 104, 50), "grey": (92, 92, 102)}
MONUMENT: RGB = (58, 56, 66)
BACK: RGB = (58, 64, 98)
BACK_LINE: RGB = (86, 94, 134)
GHOST: RGB = (250, 244, 190)

COLOUR_WORDS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
ROW_ORDER = ("cards", "tiles", "features", "pieces")
ROW_TITLES = {"cards": "Scoring cards", "tiles": "City tiles", "features": "Feature tiles",
              "pieces": "Building pieces"}
SHORT_KIND = {
    "Sailboat": "Sail", "Ferry": "Ferry", "Kayaks": "Kayak", "Swimmers": "Swim",
    "Fountain": "Fount", "Playground": "Play", "Picnic area": "Picnic", "Bandstand": "Band",
    "Wild": "WILD", "Monument": "Monu",
}
SHORT_ART = {
    "Triumphal arch": "Arch", "Clock tower": "Clock", "Observation wheel": "Wheel",
}

PALETTE = kit.KIT_PALETTE.extended(
    (*SPACE_FILL.values(), WAVE, TREE, *FEATURE_FILL.values(), MONUMENT, BACK, BACK_LINE,
     GHOST),
    pairs=[(INK, GHOST), (MUTED, GHOST), (INK, RULE)],
)

# -- small helpers -------------------------------------------------------------------------


def _players(view: View) -> list[str]:
    return [str(p) for p in view.get("players") or []]


def _style(view: View, player: str | None) -> kit.PlayerStyle:
    players = _players(view)
    return kit.player_style(players.index(player) if player in players else 0)


def _fallback(view: View, player: str) -> str:
    players = _players(view)
    return f"Player {players.index(player) + 1 if player in players else 1}"



@byte_cache(3 * MB)
def _panel_image(w: int, h: int, fill: RGB, radius: int, outline: RGB | None, width: int,
                 bg: RGB) -> Image.Image:
    """A rounded panel already laid on ``bg``, drawn once per size and look."""
    image = Image.new("RGB", (w, h), bg)
    ImageDraw.Draw(image).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=fill,
                                            outline=outline, width=width if outline else 0)
    return image


def _panel(canvas: Canvas, box: Box, fill: RGB = PANEL, radius: int = 16,
           outline: RGB | None = None, width: int = 2, bg: RGB = PAPER) -> None:
    """``Canvas.panel`` (inclusive box) on a ``bg`` ground, pasted from a cache: the same
    panels come back on every move, and a plain paste costs far less than drawing."""
    x0, y0, x1, y1 = box
    canvas.image.paste(_panel_image(x1 - x0 + 1, y1 - y0 + 1, fill, radius, outline, width, bg),
                       (x0, y0))


def _chip(canvas: Canvas, view: View, xy: tuple[float, float], player: str, size: int = 24,
          anchor: str = "lt", max_width: int | None = None) -> Box:
    return canvas.chip(xy, player, _style(view, player), size, anchor=anchor,
                       max_width=max_width, fallback=_fallback(view, player))


@byte_cache(128 * KB)
def _wrap(text: str, size: int, bold: bool, width: int, lines: int) -> tuple[str, ...]:
    """``text`` broken into at most ``lines`` lines of ``width`` px (the last one cut)."""
    words = kit.prepare(text, size, bold).split()
    out: list[str] = []
    line = ""
    for word in words:
        trial = f"{line} {word}".strip()
        if kit.text_width(trial, size, bold) <= width or not line:
            line = trial
            continue
        out.append(line)
        line = word
        if len(out) == lines:
            break
    else:
        if line:
            out.append(line)
        return tuple(kit.fit_text(t, size, bold, width) for t in out)
    out[-1] = kit.fit_text(out[-1] + " " + " ".join(words[len(" ".join(out).split()):]), size,
                           bold, width)
    return tuple(out[:lines])


def _space_of(value: Any) -> Space:
    return int(value[0]), int(value[1])


def _feature_short(feature: dict[str, Any]) -> str:
    if feature.get("kind") == "Monument" and feature.get("art"):
        art = str(feature["art"])
        return SHORT_ART.get(art, art)
    return SHORT_KIND.get(str(feature.get("kind")), str(feature.get("kind", "?")))


def _feature_name(feature: dict[str, Any]) -> str:
    if feature.get("face_down"):
        return "face-down"
    if feature.get("kind") == "Monument":
        return str(feature.get("art") or "Monument")
    return str(feature.get("kind", "?"))


def _item_words(row: str, item: dict[str, Any]) -> str:
    if item.get("face_down"):
        return "face-down"
    if row == "cards":
        return str(item.get("name", "?"))
    if row == "tiles":
        return str(item.get("id", "?"))
    if row == "features":
        return _feature_name(item)
    return str(item.get("color", "?"))


# -- cached drawing pieces -----------------------------------------------------------------


@byte_cache(MB // 2)
def _space_image(code: str, size: int, letter: bool = True) -> Image.Image:
    """One space of a tile: colour plus its letter (city), waves (water) or trees (park)."""
    fill = SPACE_FILL.get(code, PANEL_ALT)
    image = Image.new("RGB", (size, size), fill)
    canvas = Canvas(image)
    draw = canvas.draw
    if code == "W":
        amp = max(2, size // 24)
        step = max(10, size // 4)
        width = max(2, size // 36)
        for row in range(1, 4):
            y = row * size / 4
            pts = []
            for i in range(0, 33):
                x = size * 0.12 + i * size * 0.76 / 32
                pts.append((x, y + amp * math.sin(i * 2 * math.pi / 32 * (size * 0.76 / step))))
            draw.line(pts, fill=WAVE, width=width)
    elif code == "P":
        dot = max(4, size // 9)
        for fx, fy in ((0.25, 0.3), (0.7, 0.22), (0.5, 0.55), (0.22, 0.78), (0.78, 0.76)):
            canvas.marker((size * fx, size * fy), "circle", dot, TREE)
    elif code in "RBGY" and letter and size >= 40:
        # The letter repeats the colour for those who cannot tell it: a key (secondary).
        # Spaces too small for it to be read (the overview pictures) show the colour alone.
        text_size = max(SMALL, min(30, size // 4))
        canvas.text((max(3, size // 14), max(1, size // 24)), code, text_size, bold=True,
                    fill=kit.ink_on(fill), secondary=True)
    return image


@byte_cache(MB // 2)
def _feature_image(background: str, kind: str, short: str, size: int) -> Image.Image:
    """A feature tile as a rounded token on transparent ground (RGBA)."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    radius = max(4, size // 7)
    if kind == "Wild":
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius, fill=PANEL, outline=INK,
                               width=max(2, size // 30))
        q = size // 5
        for i, code in enumerate("RBGY"):
            x = size // 2 - 2 * q + i * q + (q // 8)
            draw.rectangle((x, size - q - size // 8, x + q - q // 4, size - size // 8),
                           fill=SPACE_FILL[code])
        fg = INK
    else:
        fill = MONUMENT if kind == "Monument" else FEATURE_FILL.get(background, MONUMENT)
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius, fill=fill, outline=WHITE,
                               width=max(2, size // 30))
        fg = WHITE
        if kind == "Monument":
            star = kit.shape_mask("star", max(8, size // 3))
            image.paste(WHITE, ((size - star.width) // 2, size // 10), star)
    # The token's word names what its colour and star already show: a key (secondary),
    # left off a token too small to hold it whole and legible.
    text_size = max(SMALL, min(26, size // 4))
    shown = kit.prepare(short, text_size, True)
    while text_size > SMALL and kit.text_width(shown, text_size, True) > size - 8:
        text_size -= 1
    if kit.text_width(shown, text_size, True) > size - 6:
        return image  # a cut word ("Cath…") helps nobody; the star still says monument
    canvas = Canvas(image)
    y = size * (0.66 if kind in ("Monument",) else 0.42 if kind == "Wild" else 0.5)
    canvas.text((size / 2, y), shown, text_size, bold=True, fill=fg, anchor="mm",
                secondary=True)
    return image


def _feature(canvas: Canvas, feature: dict[str, Any], box: Box) -> None:
    size = min(box[2] - box[0], box[3] - box[1])
    if feature.get("face_down"):
        _card_back(canvas, (box[0], box[1], box[0] + size, box[1] + size), small=True)
        return
    image = _feature_image(str(feature.get("background")), str(feature.get("kind")),
                           _feature_short(feature), size)
    canvas.image.paste(image, (box[0], box[1]), image)


@byte_cache(256 * KB)
def _building_image(colour: str, height: int, size: int, key: bool = False) -> Image.Image:
    """A building: a stack of ``height`` blocks in its colour, the height as a number."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    fill = SPACE_FILL.get(colour, MUTED)
    step = max(3, size // 14)
    block = size - 3 * step
    outline = max(2, size // 28)
    for level in range(min(max(height, 1), 4) - 1, -1, -1):
        x = level * step
        y = size - block - level * step - (size - block - 3 * step)
        draw.rounded_rectangle((x, y + (size - block - 3 * step), x + block - 1,
                                y + (size - block - 3 * step) + block - 1),
                               max(3, size // 12), fill=fill, outline=INK, width=outline)
    canvas = Canvas(image)
    top = 3 * step - (min(max(height, 1), 4) - 1) * step
    cx = (min(max(height, 1), 4) - 1) * step + block / 2
    cy = top + block / 2
    ink = kit.ink_on(fill)
    canvas.text((cx, cy), str(height), max(14, min(block - 6, int(block * 0.72))), bold=True,
                fill=ink, anchor="mm", secondary=key)
    return image


def _building(canvas: Canvas, colour: str, height: int, box: Box, key: bool = False) -> None:
    """A building; ``key`` for the legend's example (its number is a key, not a value)."""
    size = min(box[2] - box[0], box[3] - box[1])
    image = _building_image(colour, height, size, key)
    canvas.image.paste(image, (box[0], box[1]), image)


def _piece(canvas: Canvas, colour: str, centre: tuple[float, float], size: int) -> None:
    """A single building piece: a cube in its colour with its letter (the colour again, for
    those who cannot tell it: a key, secondary)."""
    x, y = round(centre[0] - size / 2), round(centre[1] - size / 2)
    fill = SPACE_FILL.get(colour, MUTED)
    canvas.draw.rounded_rectangle((x, y, x + size - 1, y + size - 1), max(3, size // 8),
                                  fill=fill, outline=INK, width=2)
    canvas.text((centre[0], centre[1]), colour, max(SMALL, int(size * 0.5)), bold=True,
                fill=kit.ink_on(fill), anchor="mm", secondary=True)


@byte_cache(MB // 2)
def _back_image(w: int, h: int, bg: RGB) -> Image.Image:
    image = Image.new("RGB", (w, h), BACK)
    draw = ImageDraw.Draw(image)
    step = 14
    for off in range(-h, w, step):
        a = (4 + max(0, off), 4 + max(0, -off))
        length = min(w - 4 - a[0], h - 4 - a[1])
        if length > 0:
            draw.line((a, (a[0] + length, a[1] + length)), fill=BACK_LINE, width=3)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), 10, fill=255)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), 10, outline=INK, width=2)
    return Image.composite(image, Image.new("RGB", (w, h), bg), mask)


def _card_back(canvas: Canvas, box: Box, small: bool = False, bg: RGB = PANEL) -> None:
    """The back of a face-down item: it never shows what is on the other side."""
    x0, y0, x1, y1 = box
    canvas.image.paste(_back_image(x1 - x0, y1 - y0, bg), (x0, y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    size = TEXT if small else 40
    canvas.label((cx, cy), "?", size, fg=INK, bg=PANEL, anchor="mm", pad=size // 3)
    if not small and y1 - y0 > 110:
        canvas.label((cx, y1 - 12), "face down", SMALL, fg=WHITE, bg=BACK, anchor="mb",
                     secondary=True)


def _mini_tile(canvas: Canvas, rows: Sequence[str], xy: tuple[int, int], size: int,
               rotation: int = 0) -> Box:
    """A 2x2 tile drawn with ``size`` px spaces, turned clockwise by ``rotation``."""
    a, b, c, d = rows[0][0], rows[0][1], rows[1][0], rows[1][1]
    for _ in range((rotation // 90) % 4):
        a, b, c, d = c, a, d, b
    x, y = xy
    for code, (dx, dy) in zip((a, b, c, d), ((0, 0), (1, 0), (0, 1), (1, 1)), strict=True):
        canvas.image.paste(_space_image(code, size), (x + dx * size, y + dy * size))
    canvas.draw.rectangle((x, y, x + 2 * size - 1, y + 2 * size - 1), outline=INK, width=2)
    return x, y, x + 2 * size, y + 2 * size


# -- row icons (shared by the player panels and the row headings) --------------------------


def _row_icon(canvas: Canvas, row: str, centre: tuple[float, float], size: int,
              fill: RGB = INK) -> None:
    cx, cy = centre
    h = size / 2
    draw = canvas.draw
    if row == "cards":
        draw.rounded_rectangle((cx - h * 0.7, cy - h, cx + h * 0.7, cy + h), 3, outline=fill,
                               width=3)
        draw.line((cx - h * 0.35, cy - h * 0.3, cx + h * 0.35, cy - h * 0.3), fill=fill, width=2)
        draw.line((cx - h * 0.35, cy + h * 0.2, cx + h * 0.35, cy + h * 0.2), fill=fill, width=2)
    elif row == "tiles":
        q = h * 0.95
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), outline=fill, width=3)
        draw.line((cx, cy - q, cx, cy + q), fill=fill, width=2)
        draw.line((cx - q, cy, cx + q, cy), fill=fill, width=2)
    elif row == "features":
        draw.rounded_rectangle((cx - h * 0.9, cy - h * 0.9, cx + h * 0.9, cy + h * 0.9), 5,
                               fill=fill)
        canvas.marker((cx, cy), "circle", round(size * 0.4), PANEL)
    elif row == "pieces":
        q = h * 0.8
        draw.rectangle((cx - q, cy - q + 2, cx + q, cy + q + 2), fill=fill)
        draw.polygon([(cx - q, cy - q + 2), (cx - q + 5, cy - q - 3), (cx + q + 5, cy - q - 3),
                      (cx + q, cy - q + 2)], fill=fill)


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


# -- score so far --------------------------------------------------------------------------


def _rings_of(view: View, player: str) -> list[tuple[str, int]]:
    got = []
    for achievement in (view.get("city") or {}).get("achievements") or []:
        for ring in achievement.get("rings") or []:
            if ring.get("player") == player:
                got.append((str(achievement["id"]), int(ring["vp"])))
    return got


def _breakdown(view: View, player: str) -> dict[str, Any] | None:
    done = (view.get("breakdown") or {}).get(player)
    if done:
        return dict(done)
    data = (view.get("neighbourhoods") or {}).get(player)
    if not data:
        return None
    cards = [str(c["id"]) for c in (view.get("cards_held") or {}).get(player) or []
             if c.get("id") in CONTENT.cards]
    try:
        return scoring.breakdown(Hood(data).engine_hood(), cards, _rings_of(view, player))
    except (KeyError, ValueError):  # a view from another version: show what we can
        return None


def _score(view: View, player: str) -> int:
    scores = view.get("scores") or {}
    if player in scores:
        return int(scores[player])
    found = _breakdown(view, player)
    return int(found["total"]) if found else 0


# -- the table -----------------------------------------------------------------------------


def _header(canvas: Canvas, view: View, y: int) -> int:
    city = view.get("city") or {}
    title = f"Cities · {city.get('name', '?')}"
    canvas.text((MARGIN, y), title, 36, bold=True, max_width=760)
    phase = view.get("phase")
    rounds = view.get("rounds") or 8
    if phase == "over":
        right = "Game over"
    elif phase == "start_tiles":
        right = "Setup"
    else:
        right = f"Round {view.get('round', 1)} of {rounds}"
    canvas.text((WIDTH - MARGIN, y + 4), right, TEXT, bold=True, anchor="ra")
    return y + 54


def _status(canvas: Canvas, view: View, y: int) -> int:
    """Whose turn it is and what they must do now, on a highlighted strip."""
    phase = view.get("phase")
    pending = view.get("pending")
    who = (view.get("to_act") or [None])[0]
    h = STATUS_H
    _panel(canvas, (MARGIN, y, WIDTH - MARGIN - 1, y + h - 1), fill=HIGHLIGHT, radius=14,
                 outline=INK, width=2)
    cy = y + h // 2
    x = MARGIN + 14
    if phase == "over":
        winners = [str(w) for w in view.get("winners") or []]
        x = canvas.text((x, cy), "Winner:" if len(winners) == 1 else "Winners:", TEXT,
                        bold=True, anchor="lm")[2] + 14
        for w in winners:
            box = _chip(canvas, view, (x, cy), w, TEXT, anchor="lm", max_width=300)
            x = box[2] + 10
        return y + h + GAP
    if who is None:
        canvas.text((x, cy), "Waiting", TEXT, bold=True, anchor="lm")
        return y + h + GAP
    box = _chip(canvas, view, (x, cy), str(who), TEXT, anchor="lm", max_width=340)
    x = box[2] + 14
    if phase == "start_tiles":
        canvas.text((x, cy), "chooses a starting tile", TEXT, bold=True, anchor="lm")
    elif pending and pending.get("items"):
        row = str(pending.get("row"))
        what = {"tiles": "places the city tile", "features": "places or removes",
                "pieces": "places or removes"}.get(row, "uses")
        box = canvas.text((x, cy), what, TEXT, bold=True, anchor="lm")
        x = box[2] + 14
        items = pending["items"]
        limit = WIDTH - MARGIN - 14
        for item in items:
            if x > limit - 60:
                canvas.text((x, cy), "…", TEXT, bold=True, anchor="lm")
                break
            if row == "tiles":
                _mini_tile(canvas, item.get("rows") or ["??", "??"], (x, y + 6), 28)
                x += 56 + 8
                x = canvas.text((x, cy), str(item.get("id", "")), TEXT, bold=True,
                                anchor="lm")[2] + 16
            elif row == "features":
                _feature(canvas, item, (x, y + 6, x + 56, y + 62))
                x += 62
                x = canvas.text((x, cy), _feature_name(item), TEXT, bold=True, anchor="lm",
                                max_width=limit - x)[2] + 14
            else:
                _piece(canvas, str(item.get("color")), (x + 26, cy), 52)
                x += 60
    else:
        canvas.text((x, cy), "takes one item or group from a row", TEXT, bold=True, anchor="lm",
                    max_width=WIDTH - MARGIN - 14 - x)
    return y + h + GAP


def _players_strip(canvas: Canvas, view: View, y: int) -> int:
    players = _players(view)
    if not players:
        return y
    n = len(players)
    w = (INNER - GAP * (n - 1)) // n
    h = PLAYER_H
    turn = (view.get("to_act") or [None])[0]
    star = (view.get("star") or {}).get("holder")
    held = view.get("cards_held") or {}
    workers = view.get("workers_left") or {}
    for i, player in enumerate(players):
        x = MARGIN + i * (w + GAP)
        style = _style(view, player)
        active = player == turn and view.get("phase") != "over"
        _panel(canvas, (x, y, x + w - 1, y + h - 1), fill=style.tint if active else PANEL,
                     radius=14, outline=INK if active else RULE, width=3 if active else 2)
        score = str(_score(view, player))
        score_size = 36 if n <= 3 else TEXT  # four players: room for the name first
        score_w = max(kit.text_width(score, score_size, True), kit.text_width("pts", SMALL))
        _chip(canvas, view, (x + 8, y + 10), player, TEXT, max_width=w - 26 - score_w)
        canvas.text((x + w - 10, y + 4), score, score_size, bold=True, anchor="ra")
        canvas.text((x + w - 10, y + 46), "pts", SMALL, fill=MUTED, anchor="ra", secondary=True)
        # workers left in each row, by the rows' own icons
        left = workers.get(player) or {}
        bx = x + 12
        by = y + 88
        if left:
            for row in ROW_ORDER:
                count = int(left.get(row, 0))
                ink = INK if count else MUTED
                _row_icon(canvas, row, (bx + 11, by), 22, fill=ink)
                canvas.text((bx + 26, by), str(count), TEXT, bold=True, fill=ink, anchor="lm")
                bx += 60
            if kit.text_width("workers", SMALL) <= x + w - bx - 10:
                canvas.text((bx, by), "workers", SMALL, fill=MUTED, anchor="lm", secondary=True)
        count = len(held.get(player) or [])
        extra = f"{count} scoring card" if count == 1 else f"{count} scoring cards"
        by += 40
        canvas.text((x + 12, by), extra, SMALL + 2, fill=MUTED, anchor="lm", secondary=True)
        if player == star and view.get("phase") == "play":
            canvas.marker((x + w - 96, by), "star", 28, INK)
            canvas.text((x + w - 78, by), "first", TEXT, bold=True, anchor="lm")
    return y + h + GAP


# Card and achievement rules are read whole, never cut: the box grows to the longest one.
RULE_TEXT = SMALL  # 20 px
RULE_LINE = RULE_TEXT + 5
TITLE_TEXT = TEXT


def _rule_lines(text: str, width: int) -> tuple[str, ...]:
    return _wrap(text, RULE_TEXT, False, width, 99)


TITLE_LINE = TITLE_TEXT + 6


def _title_lines(name: str, width: int) -> tuple[str, ...]:
    """A card's title whole, on two lines where one is too narrow for it."""
    return _wrap(name, TITLE_TEXT, True, width, 2)


def _achievement_height(view: View) -> int:
    achievements = (view.get("city") or {}).get("achievements") or []
    if not achievements:
        return 0
    n = len(achievements)
    w = (INNER - GAP * (n - 1)) // n
    most = max(len(_rule_lines(str(a.get("text", "")), w - 24)) for a in achievements)
    return max(176, 48 + most * RULE_LINE + 60)


def _achievements(canvas: Canvas, view: View, y: int) -> int:
    city = view.get("city") or {}
    achievements = city.get("achievements") or []
    if not achievements:
        return y
    n = len(achievements)
    w = (INNER - GAP * (n - 1)) // n
    h = _achievement_height(view)
    for i, a in enumerate(achievements):
        x = MARGIN + i * (w + GAP)
        _panel(canvas, (x, y, x + w - 1, y + h - 1), fill=PANEL, radius=14, outline=RULE)
        canvas.text((x + 12, y + 6), str(a.get("name", "?")), TITLE_TEXT, bold=True,
                    max_width=w - 24)
        for j, line in enumerate(_rule_lines(str(a.get("text", "")), w - 24)):
            canvas.text((x + 12, y + 46 + j * RULE_LINE), line, RULE_TEXT, fill=MUTED,
                        secondary=True)
        rings = a.get("rings") or []
        rx = x + 12
        ry = y + h - 50
        for ring in rings:
            holder = ring.get("player")
            if holder is None:
                canvas.draw.ellipse((rx, ry, rx + 42, ry + 42), fill=PANEL, outline=INK, width=2)
                canvas.text((rx + 21, ry + 22), str(ring.get("vp", "")), TEXT, bold=True,
                            anchor="mm")
                rx += 52
            else:
                style = _style(view, str(holder))
                canvas.swatch((rx + 21, ry + 21), style, 42)
                label = f"{ring.get('vp', '')}"
                box = canvas.text((rx + 48, ry + 21), label, TEXT, bold=True, anchor="lm")
                rx = box[2] + 14
    return y + h + GAP


def _slot_box(i: int) -> tuple[int, int]:
    w = (INNER - 3 * GAP) // 4
    return MARGIN + i * (w + GAP), w


def _row_heading(canvas: Canvas, row: str, y: int, note: str = "", title: str = "") -> int:
    _row_icon(canvas, row, (MARGIN + 12, y + 19), 24)
    box = canvas.text((MARGIN + 34, y + 19), title or ROW_TITLES[row], TEXT, bold=True,
                      anchor="lm")
    if note:
        canvas.text((box[2] + 14, y + 19), note, SMALL + 2, fill=MUTED, anchor="lm",
                    max_width=WIDTH - MARGIN - box[2] - 14, secondary=True)
    return y + HEADING_H


STATUS_H = 70
HEADING_H = 42
PLAYER_H = 150
ROW_HEIGHTS = {"cards": 180, "tiles": 156, "features": 176, "pieces": 116}


def _taken(canvas: Canvas, view: View, row: str, slot: dict[str, Any], box: Box) -> None:
    """A slot a worker emptied: whose worker it is, and (muted) what they took."""
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL_ALT, radius=12, outline=RULE)
    player = str(slot.get("taken_by"))
    canvas.text((x0 + 12, y0 + 6), "taken by", SMALL, fill=MUTED, secondary=True)
    _chip(canvas, view, (x0 + 10, y0 + 32), player, TEXT, max_width=x1 - x0 - 20)
    items = slot.get("items") or []
    top = y0 + 32 + 52
    # What was taken is a record, no longer a choice.
    words = ", ".join(_item_words(row, it) for it in items)
    if row == "pieces":
        colours = [str(it.get("color")) for it in items]
        words = ", ".join(COLOUR_WORDS.get(c, "?") + (f" ×{colours.count(c)}"
                                                      if colours.count(c) > 1 else "")
                          for c in dict.fromkeys(colours))
    lines = (y1 - top - 4) // RULE_LINE
    for j, line in enumerate(_wrap(words, SMALL, False, x1 - x0 - 24, max(0, lines))):
        canvas.text((x0 + 12, top + j * RULE_LINE), line, SMALL, fill=MUTED, secondary=True)


def _card(canvas: Canvas, item: dict[str, Any], box: Box) -> None:
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL, radius=12, outline=INK, width=2)
    title = _title_lines(str(item.get("name", "?")), x1 - x0 - 20)
    for j, line in enumerate(title):
        canvas.text((x0 + 10, y0 + 6 + j * TITLE_LINE), line, TITLE_TEXT, bold=True,
                    max_width=x1 - x0 - 20)
    top = y0 + 10 + len(title) * TITLE_LINE
    for j, line in enumerate(_rule_lines(str(item.get("text", "")), x1 - x0 - 20)):
        canvas.text((x0 + 10, top + j * RULE_LINE), line, RULE_TEXT, secondary=True)
    canvas.label((x1 - 8, y1 - 8), f"{item.get('vp', '?')} VP each", TITLE_TEXT, anchor="rb",
                 bg=HIGHLIGHT, outline=INK)


def _row_height(view: View, row: str) -> int:
    """A row's height: the cards row grows until every face-up card's rule fits."""
    if row != "cards":
        return ROW_HEIGHTS[row]
    _x, w = _slot_box(0)
    most = 0
    for slot in (view.get("rows") or {}).get("cards") or []:
        items = slot.get("items") or []
        if slot.get("taken_by") is None and items and not items[0].get("face_down"):
            title = _title_lines(str(items[0].get("name", "?")), w - 20)
            most = max(most, len(title) * TITLE_LINE - 40 + RULE_LINE * len(
                _rule_lines(str(items[0].get("text", "")), w - 20)))
    return max(ROW_HEIGHTS[row], 50 + most + 58)


def _slot_number(canvas: Canvas, x: int, y: int, n: int) -> None:
    canvas.text((x + 10, y + 4), str(n), TEXT, bold=True, fill=MUTED)


def _row(canvas: Canvas, view: View, row: str, slots: list[dict[str, Any]], y: int) -> int:
    h = _row_height(view, row)
    for i, slot in enumerate(slots[:4]):
        x, w = _slot_box(i)
        box = (x, y, x + w, y + h)
        items = slot.get("items") or []
        if slot.get("taken_by") is not None:
            _taken(canvas, view, row, slot, box)
            continue
        if row == "cards":
            if items and items[0].get("face_down"):
                _card_back(canvas, box, bg=PAPER)
            elif items:
                _card(canvas, items[0], box)
            else:
                _empty(canvas, box)
            continue
        if row == "pieces" and slot.get("star"):
            _star_slot(canvas, slot, box)
            continue
        if not items:
            _empty(canvas, box)
            continue
        _panel(canvas, (x, y, x + w - 1, y + h - 1), fill=PANEL, radius=12, outline=RULE)
        _slot_number(canvas, x, y, int(slot.get("slot", i + 1)))
        if row == "tiles":
            item = items[0]
            if item.get("face_down"):
                _card_back(canvas, (x + (w - 124) // 2, y + 12, x + (w + 124) // 2, y + 136),
                           small=True)
            else:
                side = 60
                tx = x + (w - 2 * side) // 2
                _mini_tile(canvas, item.get("rows") or ["??", "??"], (tx, y + 14), side)
                canvas.text((x + w - 10, y + 4), str(item.get("id", "")), TEXT, fill=MUTED,
                            anchor="ra")
        elif row == "features":
            size = 84
            n = len(items)
            total = n * size + (n - 1) * 10
            fx = x + (w - total) // 2
            for item in items:
                _feature(canvas, item, (fx, y + 8, fx + size, y + 8 + size))
                fx += size + 10
            names = _wrap(" + ".join(_feature_name(it) for it in items), TEXT, True, w - 16, 2)
            for j, line in enumerate(names):
                canvas.text((x + w / 2, y + size + 28 + j * 34 + (17 if len(names) == 1 else 0)),
                            line, TEXT, bold=True, anchor="mm", max_width=w - 16)
        else:
            n = len(items)
            size = 58
            total = n * size + (n - 1) * 8
            px = x + (w - total) // 2
            for item in items:
                _piece(canvas, str(item.get("color")), (px + size / 2, y + h / 2), size)
                px += size + 8
    return y + h + GAP


def _empty(canvas: Canvas, box: Box) -> None:
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PAPER, radius=12, outline=RULE)
    canvas.text(((x0 + x1) / 2, (y0 + y1) / 2), "empty", SMALL + 2, fill=MUTED, anchor="mm",
                secondary=True)


def _star_slot(canvas: Canvas, slot: dict[str, Any], box: Box) -> None:
    x0, y0, x1, y1 = box
    is_open = bool(slot.get("open", True))
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL if is_open else PAPER, radius=12,
                 outline=INK if is_open else RULE, width=2)
    cy = (y0 + y1) / 2
    canvas.marker((x0 + 34, cy), "star", 46, INK if is_open else MUTED)
    canvas.text((x0 + 66, cy - 24), "Star", TEXT, bold=True, anchor="lm",
                fill=INK if is_open else MUTED, max_width=x1 - x0 - 74)
    words = ("2 random pieces,", "go first") if is_open else ("opens after", "turn 1")
    for j, line in enumerate(words):
        canvas.text((x0 + 66, cy + 6 + 22 * j), line, SMALL, anchor="lm",
                    fill=INK if is_open else MUTED, max_width=x1 - x0 - 74, secondary=True)


def _bag_line(canvas: Canvas, view: View, y: int) -> int:
    bag = view.get("bag") or {}
    decks = view.get("decks") or {}
    x = MARGIN
    box = canvas.text((x, y + 22), "Bag:", TEXT, bold=True, anchor="lm")
    x = box[2] + 10
    for colour in "RBGY":
        _piece(canvas, colour, (x + 20, y + 22), 40)
        box = canvas.text((x + 46, y + 22), str(bag.get(colour, 0)), TEXT, bold=True,
                          anchor="lm")
        x = box[2] + 16
    parts = [f"{decks.get('scoring_cards', 0)} cards", f"{decks.get('city_tiles', 0)} tiles",
             f"{decks.get('feature_tiles', 0)} features"]
    canvas.text((WIDTH - MARGIN, y + 22), "Decks: " + " · ".join(parts), SMALL + 2, fill=MUTED,
                anchor="rm", max_width=WIDTH - MARGIN - x - 20, secondary=True)
    return y + BAG_H


BAG_H = 48


def _start_tiles(canvas: Canvas, view: View, y: int) -> int:
    y = _row_heading(canvas, "tiles", y, "chosen in reverse turn order", "Starting tiles")
    tiles = view.get("start_tiles") or []
    for i, tile in enumerate(tiles[:4]):
        x, w = _slot_box(i)
        _panel(canvas, (x, y, x + w - 1, y + 150 - 1), fill=PANEL, radius=12, outline=RULE)
        _mini_tile(canvas, tile.get("rows") or ["??", "??"], (x + (w - 120) // 2, y + 14), 60)
        canvas.text((x + w - 10, y + 4), str(tile.get("id", "")), TEXT, bold=True, anchor="ra")
    y += 150 + GAP
    chosen = [p for p in _players(view) if p in (view.get("neighbourhoods") or {})]
    if chosen:
        x = MARGIN
        box = canvas.text((x, y + 22), "Chosen:", TEXT, bold=True, anchor="lm")
        x = box[2] + 12
        for p in chosen:
            tiles_of = (view["neighbourhoods"][p].get("tiles") or [{}])
            box = _chip(canvas, view, (x, y + 22), p, TEXT, anchor="lm", max_width=240)
            box = canvas.text((box[2] + 8, y + 22), str(tiles_of[0].get("tile", "")), TEXT,
                              anchor="lm")
            x = box[2] + 20
        y += 48
    return y


def _table_height(view: View) -> int:
    h = 14 + 54 + STATUS_H + GAP + PLAYER_H + GAP
    if (view.get("city") or {}).get("achievements"):
        h += _achievement_height(view) + GAP
    rows = view.get("rows") or {}
    if rows:
        h += sum(HEADING_H + _row_height(view, r) + GAP for r in ROW_ORDER if r in rows)
    else:
        h += HEADING_H + 150 + GAP + (48 if view.get("neighbourhoods") else 0)
    return h + BAG_H + 16


def render_table(view: View) -> bytes:
    """The shared board: rows, achievements, scores, whose turn and what to place."""
    canvas = Canvas.new(WIDTH, _table_height(view))
    y = _header(canvas, view, 14)
    y = _status(canvas, view, y)
    y = _players_strip(canvas, view, y)
    y = _achievements(canvas, view, y)
    rows = view.get("rows") or {}
    if rows:
        notes = {
            "cards": "kept face up, scored at the end",
            "tiles": "placed at once, any rotation",
            "features": "groups taken whole",
            "pieces": "groups of 4, 3, 3 and the star",
        }
        for row in ROW_ORDER:
            if row in rows:
                y = _row_heading(canvas, row, y, notes[row])
                y = _row(canvas, view, row, list(rows[row]), y)
    else:
        y = _start_tiles(canvas, view, y)
    _bag_line(canvas, view, y)
    return canvas.png(PALETTE)


# -- one neighbourhood ---------------------------------------------------------------------


def _grid_size(rows: int, cols: int, width: int, height: int, cap: int = 120) -> int:
    return max(24, min(cap, width // max(1, cols), height // max(1, rows)))


def _legend(canvas: Canvas, y: int) -> int:
    x = MARGIN
    for code, word in (("R", "red"), ("B", "blue"), ("G", "green"), ("Y", "yellow"),
                       ("W", "water"), ("P", "park")):
        canvas.image.paste(_space_image(code, 40), (x, y + 2))
        canvas.draw.rectangle((x, y + 2, x + 39, y + 41), outline=INK, width=1)
        box = canvas.text((x + 46, y + 22), word, SMALL + 2, anchor="lm", secondary=True)
        x = box[2] + 16
    _building(canvas, "R", 3, (x, y, x + 44, y + 44), key=True)
    canvas.text((x + 50, y + 22), "= building, height 3", SMALL + 2, anchor="lm",
                secondary=True)
    return y + LEGEND_H


PART_KEYS = (("Achievements", "achievements"), ("Water areas", "water"), ("Park areas", "park"),
             ("Monuments", "monuments"))


def _part_details(found: dict[str, Any]) -> dict[str, str]:
    count = int(found.get("monument_count", 0) or 0)
    return {
        "achievements": ", ".join(f"{r['name']} {r['vp']}"
                                  for r in found.get("achievement_rings") or []),
        "water": _areas_words(found.get("water_areas")),
        "park": _areas_words(found.get("park_areas")),
        "monuments": f"{count} × 2" if count else "",
    }


def _card_lines(view: View, player: str, found: dict[str, Any] | None,
                width: int) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each held card as (name, tally, wrapped text)."""
    if not found:
        return []
    held = {str(c.get("id")): c for c in (view.get("cards_held") or {}).get(player) or []}
    out = []
    for row in found.get("scoring_cards") or []:
        card = held.get(str(row.get("card")), {})
        each = card.get("vp")
        tally = (f"{row.get('occurrences', 0)} × {each} = {row.get('vp', 0)}"
                 if each is not None else str(row.get("vp", 0)))
        text = (_wrap(str(card.get("text", "")), SMALL, False, width, 3) if card.get("text")
                else ())
        out.append((str(row.get("name", "?")), tally, text))
    return out


def _breakdown_height(view: View, player: str, found: dict[str, Any] | None, width: int) -> int:
    if not found:
        return 70
    details = _part_details(found)
    h = 56 + sum(PART_LINE + (DETAIL_LINE if details[key] else 0) for _name, key in PART_KEYS)
    h += 12 + PART_LINE + 4
    cards = _card_lines(view, player, found, width - 28)
    h += sum(PART_LINE * (1 if _tally_beside(name, tally, width - 28) else 2)
             + DETAIL_LINE * len(text) + 10 for name, tally, text in cards) if cards else 30
    return h + 12


PART_LINE = TEXT + 8
DETAIL_LINE = SMALL + 5


def _tally_beside(name: str, tally: str, width: int) -> bool:
    """Whether a card's name and its tally fit on one line."""
    return (kit.text_width(kit.prepare(name, TEXT, True), TEXT, True)
            + kit.text_width(tally, TEXT, True) + 14 <= width)


def _breakdown_panel(canvas: Canvas, view: View, player: str, box: Box,
                     found: dict[str, Any] | None, title: str = "Score so far") -> None:
    """The score part by part, each held card with its occurrences and its text."""
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL, radius=14, outline=RULE)
    x = x0 + 14
    w = x1 - x0 - 28
    total = int(found["total"]) if found else _score(view, player)
    canvas.text((x, y0 + 10), title, TEXT, bold=True, max_width=w - 130)
    canvas.text((x1 - 14, y0 + 6), f"{total} pts", 34, bold=True, anchor="ra")
    y = y0 + 56
    if not found:
        return
    details = _part_details(found)
    for name, key in PART_KEYS:
        canvas.text((x, y), name, TEXT, bold=True)
        canvas.text((x1 - 14, y), str(found.get(key, 0)), TEXT, bold=True, anchor="ra")
        y += PART_LINE
        if details[key]:
            canvas.text((x + 12, y - 4), details[key], SMALL, fill=MUTED, max_width=w - 12,
                        secondary=True)
            y += DETAIL_LINE
    canvas.draw.line((x, y + 2, x1 - 14, y + 2), fill=RULE, width=2)
    y += 12
    canvas.text((x, y), "Scoring cards", TEXT, bold=True)
    canvas.text((x1 - 14, y), str(found.get("cards", 0)), TEXT, bold=True, anchor="ra")
    y += PART_LINE + 4
    cards = _card_lines(view, player, found, w)
    if not cards:
        canvas.text((x, y), "no scoring cards yet", SMALL + 2, fill=MUTED, secondary=True)
    for name, tally, text in cards:
        canvas.text((x, y), name, TEXT, bold=True, max_width=w)
        if not _tally_beside(name, tally, w):
            y += PART_LINE
        canvas.text((x1 - 14, y), tally, TEXT, bold=True, anchor="ra")
        y += PART_LINE
        for line in text:  # the card's rule
            canvas.text((x, y - 4), line, SMALL, fill=MUTED, secondary=True)
            y += DETAIL_LINE
        y += 10


def _areas_words(areas: Any) -> str:
    scored = [a for a in areas or [] if a.get("vp")]
    if not scored:
        return ""
    return " + ".join(f"{a['vp']} ({_kinds(a)})" for a in scored)


def _kinds(area: dict[str, Any]) -> str:
    n = len(area.get("kinds") or [])
    return "1 kind" if n == 1 else f"{n} kinds"


def _hood_header(canvas: Canvas, view: View, player: str, y: int, title: str) -> int:
    box = _chip(canvas, view, (MARGIN, y), player, TEXT + 2, max_width=520)
    canvas.text((box[2] + 14, (box[1] + box[3]) / 2), title, TEXT, bold=True, anchor="lm",
                max_width=WIDTH - MARGIN - box[2] - 14 - 220)
    phase = view.get("phase")
    right = "Game over" if phase == "over" else f"Round {view.get('round', 1)} of " \
        f"{view.get('rounds', 8)}"
    canvas.text((WIDTH - MARGIN, (box[1] + box[3]) / 2), right, TEXT, bold=True, anchor="rm",
                fill=MUTED)
    return box[3] + 14


SIDE_W = 460  # the score panel beside a neighbourhood that leaves room for it
LEGEND_H = 50


class HoodLayout:
    """Where a neighbourhood picture puts its grid and its score panel."""

    def __init__(self, hood: Hood, extra: Sequence[tuple[int, int]], panel_h_of: Any) -> None:
        self.bounds = hood.tile_bounds(extra)
        self.rows, self.cols = _hood_size(self.bounds)
        side_w = INNER - SIDE_W - GAP
        side_size = _grid_size(self.rows, self.cols, side_w, 760)
        self.side = side_size >= 84 or self.cols * 84 <= side_w
        top = 14 + 54 + 14
        if self.side:
            self.size = side_size
            grid_w = self.cols * self.size
            self.origin = (MARGIN + (side_w - grid_w) // 2, top)
            panel_x = MARGIN + side_w + GAP
            self.panel_w = WIDTH - MARGIN - panel_x
            panel_h = max(panel_h_of(self.panel_w), self.rows * self.size)
            self.panel = (panel_x, top, WIDTH - MARGIN, top + panel_h)
            body = max(self.rows * self.size, panel_h)
            self.legend_y = top + body + 14
        else:
            self.size = _grid_size(self.rows, self.cols, INNER, 720)
            grid_w = self.cols * self.size
            self.origin = (MARGIN + (INNER - grid_w) // 2, top)
            self.legend_y = top + self.rows * self.size + 14
            self.panel_w = INNER
            panel_h = panel_h_of(self.panel_w)
            py = self.legend_y + LEGEND_H + 10
            self.panel = (MARGIN, py, WIDTH - MARGIN, py + panel_h)
        self.height = max(self.panel[3], self.legend_y + LEGEND_H) + MARGIN


def _hood_picture(view: View, player: str, title: str,
                  extra_tiles: Sequence[tuple[int, int]] = ()) -> tuple[Canvas, Hood,
                                                                         HoodLayout]:
    """Header, neighbourhood, legend and score panel, laid out for the space it needs."""
    hood = Hood((view.get("neighbourhoods") or {}).get(player))
    found = _breakdown(view, player)
    layout = HoodLayout(hood, extra_tiles,
                        lambda w: _breakdown_height(view, player, found, w))
    canvas = Canvas.new(WIDTH, layout.height)
    _hood_header(canvas, view, player, 14, title)
    if not hood.tiles:
        canvas.text((layout.origin[0] + 20, layout.origin[1] + 40), "No starting tile yet",
                    TEXT, fill=MUTED)
    _draw_hood(canvas, hood, layout.origin, layout.size, layout.bounds)
    _legend(canvas, layout.legend_y)
    _breakdown_panel(canvas, view, player, layout.panel, found)
    return canvas, hood, layout


def render_neighbourhood(view: View, player: str) -> bytes:
    """One player's neighbourhood, their scoring cards and their score so far."""
    canvas, _hood, _layout = _hood_picture(view, player, "neighbourhood")
    return canvas.png(PALETTE)


# -- preview -------------------------------------------------------------------------------


def render_preview(view: View, player: str, choices: Sequence[dict[str, Any]]) -> bytes:
    """The player's neighbourhood with lettered candidate spots.

    A choice is ``{"label", "tile_at": [r, c], "rotation"}`` (a ghost of the pending tile,
    turned as it would be; several rotations at one spot share it, each a small tile with
    its own letter) or ``{"label", "space": [row, col]}`` (a feature or piece space).
    """
    tile_spots: dict[tuple[int, int], list[dict[str, Any]]] = {}
    spaces: dict[Space, list[str]] = {}
    for choice in choices:
        if choice.get("tile_at") is not None:
            tile_spots.setdefault(_space_of(choice["tile_at"]), []).append(choice)
        elif choice.get("space") is not None:
            spaces.setdefault(_space_of(choice["space"]), []).append(str(choice.get("label", "?")))
    pending = view.get("pending") or {}
    tile_rows: Sequence[str] = ["??", "??"]
    if pending.get("row") == "tiles" and pending.get("items"):
        tile_rows = pending["items"][0].get("rows") or tile_rows
    title = "choose a spot"
    if pending.get("items") and pending.get("player") == player:
        row = str(pending.get("row"))
        words = [_item_words(row, it) for it in pending["items"]]
        if row == "pieces":
            words = [f"{COLOUR_WORDS.get(w, w)} piece" for w in words]
        elif row == "tiles":
            words = [f"tile {w}" for w in words]
        title = "where to place " + ", ".join(words)
    canvas, _hood, layout = _hood_picture(view, player, title, list(tile_spots))
    r0, _r1, c0, _c1 = layout.bounds
    size, origin = layout.size, layout.origin

    def xy(space: Space) -> tuple[int, int]:
        return origin[0] + (space[1] - 2 * c0) * size, origin[1] + (space[0] - 2 * r0) * size

    label_size = TEXT  # the letters the menu offers
    for at, group in tile_spots.items():
        x, y = xy((2 * at[0], 2 * at[1]))
        canvas.draw.rectangle((x, y, x + 2 * size - 1, y + 2 * size - 1), fill=GHOST)
        _dashed_box(canvas, (x + 2, y + 2, x + 2 * size - 3, y + 2 * size - 3))
        if len(group) == 1:
            mini = max(12, (2 * size - 24) // 2)
            tx, ty = x + size - mini, y + size - mini
            _mini_tile(canvas, tile_rows, (tx, ty), mini, int(group[0].get("rotation", 0)))
            canvas.label((x + size, y + size), str(group[0].get("label", "?")), label_size + 4,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
            continue
        cell = size
        mini = max(10, (cell - 12) // 2)
        for k, choice in enumerate(group[:4]):
            cx = x + (k % 2) * cell + (cell - 2 * mini) // 2
            cy = y + (k // 2) * cell + (cell - 2 * mini) // 2
            _mini_tile(canvas, tile_rows, (cx, cy), mini, int(choice.get("rotation", 0)))
            canvas.label((cx + mini, cy + mini), str(choice.get("label", "?")), label_size,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
    for space, labels in spaces.items():
        x, y = xy(space)
        canvas.draw.rectangle((x + 2, y + 2, x + size - 3, y + size - 3), outline=INK, width=3)
        n = len(labels)
        # On a building the label sits in a lower corner so the height stays readable.
        built = space in _hood.buildings or space in _hood.features
        for k, label in enumerate(labels[:4]):
            if built:
                lx = x + 4 + (k % 2) * size * 0.5
                ly = y + size - 4 - (k // 2) * size * 0.42
                canvas.label((lx, ly), label, label_size, bg=HIGHLIGHT, outline=INK,
                             anchor="lb")
                continue
            dx = 0 if n == 1 else (-0.22 if k % 2 == 0 else 0.22) * size
            dy = 0 if n <= 2 else (-0.22 if k < 2 else 0.22) * size
            canvas.label((x + size / 2 + dx, y + size / 2 + dy), label, label_size,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
    return canvas.png(PALETTE)


def _dashed_box(canvas: Canvas, box: Box, dash: int = 12) -> None:
    x0, y0, x1, y1 = box
    draw = canvas.draw
    for x in range(x0, x1, 2 * dash):
        draw.line((x, y0, min(x + dash, x1), y0), fill=INK, width=3)
        draw.line((x, y1, min(x + dash, x1), y1), fill=INK, width=3)
    for y in range(y0, y1, 2 * dash):
        draw.line((x0, y, x0, min(y + dash, y1)), fill=INK, width=3)
        draw.line((x1, y, x1, min(y + dash, y1)), fill=INK, width=3)


# -- the end -------------------------------------------------------------------------------


def _final_lines(view: View, player: str, found: dict[str, Any] | None) -> list[tuple[str, str,
                                                                                      bool]]:
    """(left, right, bold) lines of one player's breakdown."""
    if not found:
        return [("Total", str(_score(view, player)), True)]
    lines: list[tuple[str, str, bool]] = []
    rings = found.get("achievement_rings") or []
    lines.append(("Achievements", str(found.get("achievements", 0)), True))
    lines += [(f"  {r.get('name', '?')}", str(r.get("vp", 0)), False) for r in rings]
    for key, word, areas in (("water", "Water areas", found.get("water_areas")),
                             ("park", "Park areas", found.get("park_areas"))):
        lines.append((word, str(found.get(key, 0)), True))
        for a in areas or []:
            if a.get("vp"):
                n = len(a.get("spaces") or [])
                lines.append((f"  {n} space{'s' if n != 1 else ''}, {_kinds(a)}", str(a["vp"]),
                              False))
    lines.append((f"Monuments ({found.get('monument_count', 0)} × 2)",
                  str(found.get("monuments", 0)), True))
    lines.append(("Scoring cards", str(found.get("cards", 0)), True))
    for c in found.get("scoring_cards") or []:
        lines.append((f"  {c.get('name', '?')} × {c.get('occurrences', 0)}", str(c.get("vp", 0)),
                      False))
    return lines


def render_final(view: View) -> bytes:
    """Every neighbourhood side by side, best first, each with its breakdown; the winners."""
    players = _players(view)
    winners = {str(w) for w in view.get("winners") or []}
    found = {p: _breakdown(view, p) for p in players}
    order = sorted(players, key=lambda p: -int((found[p] or {}).get("total", _score(view, p))))
    # Two to a row (as in render_neighbourhoods), so each map is large enough to read.
    cols = 2 if len(order) > 1 else 1
    grid_rows = max(1, math.ceil(len(order) / cols))
    cell_w = (INNER - GAP * (cols - 1)) // cols
    hoods = {p: Hood((view.get("neighbourhoods") or {}).get(p)) for p in players}
    grids = {}
    for p in players:
        bounds = hoods[p].tile_bounds()
        rows, cols_of = _hood_size(bounds)
        grids[p] = (bounds, rows, cols_of, _grid_size(rows, cols_of, cell_w - 20, 576, 96))
    lines = {p: _final_lines(view, p, found[p]) for p in players}
    grid_h = max((grids[p][1] * grids[p][3] for p in players), default=0)
    lines_h = max((sum(FINAL_BOLD if bold else FINAL_LINE for _l, _r, bold in lines[p])
                   for p in players), default=0)
    body = 104 + grid_h + 14 + lines_h + 16
    top = 14 + 54 + STATUS_H + GAP
    canvas = Canvas.new(WIDTH, top + grid_rows * (body + GAP) - GAP + MARGIN)
    y0 = _header(canvas, view, 14)
    y0 = _status(canvas, view, y0)
    for k, p in enumerate(order):
        x = MARGIN + (k % cols) * (cell_w + GAP)
        y = y0 + (k // cols) * (body + GAP)
        won = p in winners
        _panel(canvas, (x, y, x + cell_w - 1, y + body - 1), fill=PANEL, radius=14,
                     outline=INK if won else RULE, width=4 if won else 2)
        total = int((found[p] or {}).get("total", _score(view, p)))
        _chip(canvas, view, (x + 10, y + 10), p, TEXT, max_width=cell_w - 20)
        canvas.text((x + 12, y + 58), f"{total} pts", 34, bold=True)
        if won:
            canvas.label((x + cell_w - 10, y + 58), "★ Winner", TEXT, bg=HIGHLIGHT, outline=INK,
                         anchor="rt")
        else:
            canvas.text((x + cell_w - 12, y + 60), f"#{order.index(p) + 1}", TEXT, bold=True,
                        fill=MUTED, anchor="ra")
        bounds, _rows, grid_cols, size = grids[p]
        gy = y + 104
        if hoods[p].tiles:
            _draw_hood(canvas, hoods[p], (x + (cell_w - grid_cols * size) // 2, gy), size, bounds)
        ly = gy + grid_h + 14
        for left, right, bold in lines[p]:
            # The parts of the score at full size; what each part is made of beneath them.
            fill = INK if bold else MUTED
            tsize = TEXT if bold else SMALL + 2
            rw = kit.text_width(right, tsize, bold)
            canvas.text((x + 10, ly), left, tsize, bold=bold, fill=fill,
                        max_width=cell_w - 30 - rw, secondary=not bold)
            canvas.text((x + cell_w - 12, ly), right, tsize, bold=bold, fill=fill, anchor="ra",
                        secondary=not bold)
            ly += FINAL_BOLD if bold else FINAL_LINE
    return canvas.png(PALETTE)


FINAL_BOLD = TEXT + 8
FINAL_LINE = SMALL + 8


# -- every neighbourhood -------------------------------------------------------------------


def render_neighbourhoods(view: View) -> bytes:
    """Every player's neighbourhood at once, two to a row (wide enough on a phone), each with
    the player, their score so far, their rings and their scoring cards' names: what lies
    face up in front of every player at a real table."""
    players = _players(view)
    cols = 2 if len(players) > 1 else 1
    rows = max(1, math.ceil(len(players) / cols))
    cell_w = (INNER - GAP * (cols - 1)) // cols
    hoods = {p: Hood((view.get("neighbourhoods") or {}).get(p)) for p in players}
    grids = {}
    for p in players:
        bounds = hoods[p].tile_bounds() if hoods[p].tiles else (0, 0, 0, 0)
        r, c = _hood_size(bounds)
        grids[p] = (bounds, r, c, _grid_size(r, c, cell_w - 24, 470, 96))
    grid_h = max((g[1] * g[3] for g in grids.values()), default=0)
    notes = {p: _hood_notes(view, p) for p in players}
    lines_h = max((len(n) for n in notes.values()), default=0) * NOTE_LINE
    body = 64 + grid_h + 14 + lines_h + 14
    top = 14 + 54
    canvas = Canvas.new(WIDTH, top + rows * (body + GAP) + LEGEND_H + MARGIN)
    _header(canvas, view, 14)
    for k, p in enumerate(players):
        x = MARGIN + (k % cols) * (cell_w + GAP)
        y = top + (k // cols) * (body + GAP)
        _panel(canvas, (x, y, x + cell_w - 1, y + body - 1), fill=PANEL, radius=14,
               outline=RULE)
        score = f"{_score(view, p)} pts"
        sw = kit.text_width(score, 30, True)
        _chip(canvas, view, (x + 12, y + 12), p, TEXT, max_width=cell_w - 40 - sw)
        canvas.text((x + cell_w - 14, y + 12), score, 30, bold=True, anchor="ra")
        bounds, r, c, size = grids[p]
        gy = y + 64
        if hoods[p].tiles:
            _draw_hood(canvas, hoods[p], (x + (cell_w - c * size) // 2, gy), size, bounds)
        else:
            canvas.text((x + 14, gy + 10), "No starting tile yet", TEXT, fill=MUTED)
        ly = gy + grid_h + 14
        for bold, line in notes[p]:
            canvas.text((x + 14, ly), line, TEXT, bold=bold, fill=INK if bold else MUTED,
                        max_width=cell_w - 28)
            ly += NOTE_LINE
    _legend(canvas, canvas.height - MARGIN - LEGEND_H)
    return canvas.png(PALETTE)


NOTE_LINE = TEXT + 8


def _hood_notes(view: View, player: str) -> list[tuple[bool, str]]:
    """Rings and scoring cards under a neighbourhood, as (bold, line)."""
    rings = _rings_of(view, player)
    names = {str(a.get("id")): str(a.get("name", a.get("id")))
             for a in (view.get("city") or {}).get("achievements") or []}
    got = ", ".join(f"{names.get(a, a)} {vp}" for a, vp in rings) or "none yet"
    width = (INNER - GAP) // 2 - 28
    notes = [(True, line) for line in _wrap(f"Achievements: {got}", TEXT, True, width, 2)]
    cards = [c for c in (view.get("cards_held") or {}).get(player) or [] if c.get("name")]
    notes.append((True, f"Scoring cards: {len(cards) or 'none yet'}"))
    notes += [(False, f"• {c['name']} ({c.get('vp', '?')} VP each)") for c in cards]
    return notes


def render_extras(view: View, events: Sequence[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """The final picture once the game is over (the ``game_over`` event), else nothing."""
    if any(e.get("type") == "game_over" for e in events):
        return [("final", render_final(view))]
    return []


__all__ = ["render_extras", "render_final", "render_neighbourhood", "render_neighbourhoods",
           "render_preview", "render_table"]
