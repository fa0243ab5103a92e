"""The drawing kit every game's pictures share.

One look for all games: dark ink on warm light paper, bundled fonts (DejaVu, with Noto for
other scripts and emoji), and up to six player colours from the Okabe–Ito set (told apart
by most colour-blind people), each with its own marker shape so no information hangs on
hue alone.

Speed matters more than it seems: pictures are drawn on every move in a worker thread on
a small host. Two things dominate the cost, so both are handled here:
- FreeType renders every glyph again on each ``ImageDraw.text`` call (~0.2 ms a string),
  so text is rendered once into a cached mask and pasted afterwards.
- Deflating a 1200x900 RGB picture takes ~35 ms; mapping it onto a fixed 256-colour
  palette takes ~2 ms and the paletted PNG deflates in ~5 ms and is a third the size.
  The palette holds every colour the picture uses exactly, plus the anti-aliasing blends
  between text and the backgrounds it sits on, so nothing visibly changes.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import png
from .cache import KB, MB, byte_cache
from .fonts import SHAPING, Run, clean_text, emoji_spans, font, layout

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

# -- theme -------------------------------------------------------------------------------

PAPER: RGB = (243, 240, 232)
PANEL: RGB = (255, 255, 255)
PANEL_ALT: RGB = (234, 230, 219)
INK: RGB = (20, 22, 26)  # dark enough for 4.5:1 on every player colour
MUTED: RGB = (88, 94, 102)  # 6:1 on white, still readable on phones
RULE: RGB = (204, 198, 186)
WHITE: RGB = (255, 255, 255)
HIGHLIGHT: RGB = (240, 228, 66)  # Okabe–Ito yellow, always drawn with an INK outline
GOOD: RGB = (0, 120, 80)  # paired with a ✓, never the only signal
BAD: RGB = (180, 60, 0)  # paired with a ✗

THEME_COLOURS: tuple[RGB, ...] = (PAPER, PANEL, PANEL_ALT, INK, MUTED, RULE, WHITE, HIGHLIGHT,
                                  GOOD, BAD)

ELLIPSIS = "…"

# -- colour arithmetic -------------------------------------------------------------------


def blend(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` of the way towards ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def luminance(colour: RGB) -> float:
    """WCAG relative luminance."""

    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink_on(background: RGB) -> RGB:
    """INK or WHITE, whichever reads better on ``background``."""
    return INK if contrast(INK, background) >= contrast(WHITE, background) else WHITE


# -- players -----------------------------------------------------------------------------

MARKERS: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "star", "hexagon")


@dataclass(frozen=True)
class PlayerStyle:
    """How one seat is shown everywhere: a colour, a shape, and inks that read on them."""

    index: int
    colour_name: str
    colour: RGB
    ink: RGB  # text and marker drawn on ``colour``
    tint: RGB  # a pale version for large backgrounds
    marker: str
    symbol: str  # the marker as a character, for plain-text messages


_PLAYER_BASE: tuple[tuple[str, RGB, str], ...] = (
    ("blue", (0, 114, 178), "●"),
    ("orange", (230, 159, 0), "■"),
    ("green", (0, 158, 115), "▲"),
    ("pink", (204, 121, 167), "◆"),
    ("vermilion", (213, 94, 0), "★"),
    ("sky blue", (86, 180, 233), "⬢"),
)

PLAYER_STYLES: tuple[PlayerStyle, ...] = tuple(
    PlayerStyle(i, name, colour, ink_on(colour), blend(colour, PANEL, 0.8), MARKERS[i], symbol)
    for i, (name, colour, symbol) in enumerate(_PLAYER_BASE)
)


def player_style(index: int) -> PlayerStyle:
    """Style of the seat ``index`` (wraps after six, where the marker still differs)."""
    return PLAYER_STYLES[index % len(PLAYER_STYLES)]


# -- palette and encoding ----------------------------------------------------------------


class Palette:
    """A fixed 256-colour PNG palette: exact colours first, then anti-aliasing blends.

    Every colour a picture fills with must be listed, or it is snapped to its nearest
    neighbour. Text edges need the blends between the text colour and its background;
    each colour gets blends towards the ink that reads on it, ``pairs`` add others.
    """

    STEPS = (0.25, 0.5, 0.75)

    def __init__(self, colours: Iterable[RGB], pairs: Iterable[tuple[RGB, RGB]] = ()) -> None:
        self.base = tuple(dict.fromkeys(colours))
        self.pairs = tuple(dict.fromkeys(pairs))
        entries: dict[RGB, None] = dict.fromkeys(self.base)
        blends = [(c, ink_on(c)) for c in self.base] + list(self.pairs)
        for a, b in blends:
            for t in self.STEPS:
                entries.setdefault(blend(a, b, t))
        if len(entries) > 256:
            raise ValueError(f"palette needs {len(entries)} colours, PNG allows 256")
        # Whatever room is left goes to a grey ramp and a coarse colour cube, so pixels
        # from a colour someone forgot to list still land somewhere close.
        greys = [(v, v, v) for v in range(0, 256, 17)]
        cube = [(r, g, b) for r, g, b in itertools.product(range(0, 256, 51), repeat=3)]
        for extra in itertools.chain(greys, cube):
            if len(entries) >= 256:
                break
            entries.setdefault(extra)
        self.colours: tuple[RGB, ...] = tuple(entries)
        self.image = Image.new("P", (1, 1))
        self.image.putpalette([v for c in self.colours for v in c])

    def extended(self, colours: Iterable[RGB], pairs: Iterable[tuple[RGB, RGB]] = ()) -> Palette:
        return Palette(self.base + tuple(colours), self.pairs + tuple(pairs))


def _kit_pairs() -> list[tuple[RGB, RGB]]:
    pairs: list[tuple[RGB, RGB]] = [(MUTED, bg) for bg in (PANEL, PAPER, PANEL_ALT)]
    pairs += [(INK, bg) for bg in (PANEL, PAPER, PANEL_ALT, HIGHLIGHT)]
    for style in PLAYER_STYLES:
        # Markers and chips sit on panels and paper; their edges blend into those.
        pairs += [(style.colour, PANEL), (style.colour, PAPER), (style.ink, style.colour)]
    return pairs


KIT_COLOURS: tuple[RGB, ...] = THEME_COLOURS + tuple(
    c for s in PLAYER_STYLES for c in (s.colour, s.tint)
)
KIT_PALETTE = Palette(KIT_COLOURS, _kit_pairs())


_captured: ContextVar[list[Image.Image] | None] = ContextVar("kit_captured", default=None)


_capture_scaled: ContextVar[int | None] = ContextVar("kit_capture_scaled", default=None)


@contextlib.contextmanager
def capturing(scaled_to: int | None = None) -> Iterator[list[Image.Image]]:
    """Inside the block ``encode_png`` keeps each finished picture, mapped onto its palette
    (the very pixels the PNG would hold), in the list it yields and returns ``b""``
    instead of deflating it: for a caller that wants the pixels (the animation scales
    every board down), which then pays neither the deflating nor the decoding (~12 ms a
    1200 px table). With ``scaled_to``, a picture drawn in RGB and wider than that is kept
    as it was drawn, before the palette: the caller scales it down and maps it onto a
    palette of its own (the animation: ~1.5 ms of mapping and ~3 ms of turning it back to
    RGB a frame saved, and its frames no further from the drawing)."""
    kept: list[Image.Image] = []
    token = _captured.set(kept)
    scaled = _capture_scaled.set(scaled_to)
    try:
        yield kept
    finally:
        _capture_scaled.reset(scaled)
        _captured.reset(token)


def encode_png(image: Image.Image, palette: Palette | None = None) -> bytes:
    """PNG bytes, fast: RGB is mapped onto ``palette`` (the kit's by default) first."""
    kept = _captured.get()
    scaled_to = _capture_scaled.get()
    if kept is not None and scaled_to is not None and image.mode == "RGB" \
            and image.width > scaled_to:
        kept.append(image)
        return b""
    if image.mode not in ("P", "L", "1"):
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        image = rgb.quantize(palette=(palette or KIT_PALETTE).image, dither=Image.Dither.NONE)
    if kept is not None:
        kept.append(image)
        return b""
    written = png.paletted_png(image)  # ISA-L: a quarter of Pillow's time (bot/render/png.py)
    if written is not None:
        return written
    out = io.BytesIO()
    # Level 2: 11 % less time than 3 for 8 % more bytes (~72 KB for a 1200 px table);
    # level 1 is no faster than 2 and 17 % bigger, 4 and up double the time.
    image.save(out, format="PNG", optimize=False, compress_level=2)
    return out.getvalue()


# -- pasting -----------------------------------------------------------------------------


def fill_mask(image: Image.Image, fill: RGB | int, xy: tuple[int, int], mask: Image.Image) -> None:
    """``image.paste(fill, xy, mask)``, the same pixels, in about a third of the time.

    Pillow's colour-through-mask fill compares mode names for every channel of every
    pixel; pasting a solid image of the mask's size through it blends the same way
    without that (140 -> 45 us for a line of text; the solid, ~7 us to make, is cached).
    Text, markers and icons go through here, some hundred times a picture."""
    if image.mode not in ("RGB", "L"):
        # RGBA: Pillow's fill treats colour under transparent pixels its own way; keep it.
        image.paste(fill, xy, mask)
        return
    image.paste(_solid(image.mode, mask.size, fill if isinstance(fill, int) else tuple(fill)),
                xy, mask)


@byte_cache(2 * MB)  # a table's strings come back in the same sizes and inks
def _solid(mode: str, size: tuple[int, int], fill: tuple[int, ...] | int) -> Image.Image:
    """A plain image to paste through a mask (never drawn on)."""
    return Image.new(mode, size, fill)


# -- text --------------------------------------------------------------------------------

# Discord shows a picture as wide as the phone (~360 px), so sizes are fractions of the
# picture's width: what a player needs to choose a move at least 1/40 of it (9 px on the
# phone), secondary text at least 1/60 (6 px). See docs/pictures.md.
PRIMARY_TEXT = 40
SECONDARY_TEXT = 60


def least_text(width: int, secondary: bool = False) -> int:
    """The smallest font size allowed on a picture ``width`` px wide."""
    return math.ceil(width / (SECONDARY_TEXT if secondary else PRIMARY_TEXT))



def _run_length(run: Run, size: int, bold: bool, shaping: bool) -> float:
    return font(size, bold, run.face, shaping).getlength(run.text, direction=run.direction)


@byte_cache(MB)  # 0.5 MB lost ~5,000 widths an hour of mixed traffic
def text_width(text: str, size: int, bold: bool = False, shaping: bool = SHAPING) -> int:
    """Advance width of already cleaned text (cached: layout asks for it over and over):
    its runs side by side, each in the face that draws it."""
    return math.ceil(sum(_run_length(run, size, bold, shaping)
                         for run in layout(text, bold, shaping)))


@byte_cache(64 * KB)
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    """Ascent and descent (both positive) of the face at ``size``."""
    ascent, descent = font(size, bold).getmetrics()
    return int(ascent), int(descent)


def _cut_points(text: str) -> list[int]:
    """Where ``text`` may be cut, in order: never between a letter and its marks (Thai
    vowels, Devanagari signs), nor inside an emoji sequence (a flag, a family)."""
    if text.isascii():
        return list(range(len(text) + 1))  # nearly every string: no marks, no emoji
    inside = {i for start, end in emoji_spans(text) for i in range(start + 1, end)}
    return [i for i in range(len(text) + 1) if i not in inside
            and (i == len(text) or unicodedata.category(text[i])[0] != "M")]


@byte_cache(MB)
def fit_text(text: str, size: int, bold: bool, max_width: int) -> str:
    """``text`` cut with an ellipsis so it is at most ``max_width`` px wide.

    The cut is at the logical end, so a right-to-left name keeps its first letters (on the
    right: ``bidi`` puts the ellipsis at its left end)."""
    if text_width(text, size, bold) <= max_width:
        return text
    points = _cut_points(text)
    lo, hi = 0, len(points) - 1
    while lo < hi:  # the longest prefix that still fits with its ellipsis
        mid = (lo + hi + 1) // 2
        if text_width(text[:points[mid]].rstrip() + ELLIPSIS, size, bold) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    cut = points[lo]
    return text[:cut].rstrip() + ELLIPSIS if cut else ELLIPSIS


# A shortened name keeps whole words only when they hold this many letters: "A…" or
# "Jo…" say less than "A very lo…" or "Jo Smi…".
_LEAST_WORDS = 3


def _whole_words(name: str) -> list[str]:
    """The name's leading whole words, longest first, each a shortened form of it."""
    words = name.split(" ")
    heads = (" ".join(words[:n]).rstrip() for n in range(len(words) - 1, 0, -1))
    return [h for h in heads if sum(1 for c in h if not c.isspace()) >= _LEAST_WORDS]


@byte_cache(MB // 2)
def fit_name(name: str, size: int, bold: bool, max_width: int) -> str:
    """A player's name in ``max_width`` px, shortened the way people shorten names.

    The whole name where there is room; else its longest run of leading whole words that
    fits with an ellipsis ("Maximilian Alexander…", "Maximilian…"); else the first letters
    of its first word ("Maxim…"), as many as fit. Cuts are at the logical end, so a
    right-to-left name keeps its beginning."""
    if text_width(name, size, bold) <= max_width:
        return name
    for head in _whole_words(name):
        if text_width(head + ELLIPSIS, size, bold) <= max_width:
            return head + ELLIPSIS
    return fit_text(name, size, bold, max_width)


def short_name(name: str, fallback: str = "?", bold: bool = True) -> str:
    """The shortest form ``fit_name`` prefers to letters cut off: the name's first word
    with an ellipsis when it has several, else the whole (cleaned) name."""
    cleaned = clean_text(str(name), bold, fallback)
    heads = _whole_words(cleaned)
    return heads[-1] + ELLIPSIS if heads else cleaned


def prepare(text: str, size: int, bold: bool = False, max_width: int | None = None,
            fallback: str | None = None) -> str:
    """What ``Canvas.text`` would really draw: cleaned for the font, then fitted. Text
    with a ``fallback`` is a name: it is shortened by ``fit_name``."""
    cleaned = clean_text(str(text), bold, fallback)
    if max_width is None:
        return cleaned
    fit = fit_text if fallback is None else fit_name
    return fit(cleaned, size, bold, max_width)


# ~1,500 strings; a table re-uses 20-150 of them, four games' tables ~2,000 and more with
# every match's names. 5 MB drew a mixed run's tables in 17.6 ms on average, 8 MB in 16.3.
@byte_cache(8 * MB)
def _text_mask(text: str, size: int, bold: bool,
               shaping: bool = SHAPING) -> tuple[Image.Image, int, int]:
    """Rendered coverage of ``text`` and its top-left offset from the baseline origin.

    Each run is drawn in its own face on the shared baseline, where the runs before it
    ended; the primary face's line metrics stay the layout's, whatever the runs' faces.
    """
    placed: list[tuple[float, Run]] = []
    pen = 0.0
    for run in layout(text, bold, shaping):
        placed.append((pen, run))
        pen += _run_length(run, size, bold, shaping)
    boxes = []
    for x, run in placed:
        bx0, by0, bx1, by1 = font(size, bold, run.face, shaping).getbbox(
            run.text, anchor="ls", direction=run.direction)
        boxes.append((x + bx0, by0, x + bx1, by1))
    if not boxes:
        return Image.new("L", (1, 1), 0), 0, 0
    x0, y0 = math.floor(min(b[0] for b in boxes)), math.floor(min(b[1] for b in boxes))
    x1, y1 = math.floor(max(b[2] for b in boxes)), math.floor(max(b[3] for b in boxes))
    mask = Image.new("L", (max(1, x1 - x0 + 1), max(1, y1 - y0 + 1)), 0)
    draw = ImageDraw.Draw(mask)
    for x, run in placed:
        draw.text((x - x0, -y0), run.text, font=font(size, bold, run.face, shaping), fill=255,
                  anchor="ls", direction=run.direction)
    return mask, int(x0), int(y0)


def _anchor_origin(xy: tuple[float, float], width: float, size: int, bold: bool,
                   anchor: str) -> tuple[int, int, int, int]:
    """Baseline origin and layout-box top/bottom for a Pillow-style two-letter anchor."""
    ascent, descent = metrics(size, bold)
    h, v = anchor[0], anchor[1]
    x = xy[0] - {"l": 0.0, "m": width / 2, "r": width}[h]
    baseline = xy[1] + {"a": ascent, "t": ascent, "m": (ascent - descent) / 2, "s": 0,
                        "d": -descent, "b": -descent}[v]
    return round(x), round(baseline), round(baseline - ascent), round(baseline + descent)


@dataclass(frozen=True)
class DrawnText:
    """One string ``Canvas.text`` drew: as shown (cleaned, ellipsised), with its box.

    Boxes are in the coordinates of the surface it was drawn on (a picture, or a layer
    pasted into one later), whose size is ``surface``: text runs out of it when ``ink``
    leaves ``(0, 0, *surface)``, and is too long when the box is wider than ``max_width``.
    """

    text: str
    size: int
    bold: bool
    fill: RGB
    box: Box  # layout box: advance width x ascender..descender
    # Secondary text (captions, hints, axis notes) may be smaller than what a player needs
    # to choose a move; see docs/pictures.md. Primary unless the renderer says otherwise.
    secondary: bool = False
    surface: tuple[int, int] = (0, 0)  # width and height of what it was drawn on
    max_width: int | None = None  # the room it was given (a chip's or label's for its text)
    ink: Box | None = None  # the pixels it covers: glyphs may reach past the layout box


_recorder: ContextVar[list[DrawnText] | None] = ContextVar("kit_text_recorder", default=None)


@contextlib.contextmanager
def recording_text() -> Iterator[list[DrawnText]]:
    """Collect every string the kit draws inside the block, so tests can check what a
    picture says rather than only its pixels. Drawing outside a recording pays one context
    variable lookup. Text inside layers a renderer caches is seen only when first drawn."""
    drawn: list[DrawnText] = []
    token = _recorder.set(drawn)
    try:
        yield drawn
    finally:
        _recorder.reset(token)


# -- shapes ------------------------------------------------------------------------------

_SUPERSAMPLE = 4


def _shape_points(shape: str, s: float) -> list[tuple[float, float]]:
    """Polygon of ``shape`` inside an s x s square, visually balanced with the circle."""
    c = s / 2
    if shape == "square":
        m = s * 0.1
        return [(m, m), (s - m, m), (s - m, s - m), (m, s - m)]
    if shape == "triangle":
        return [(c, s * 0.02), (s * 0.98, s * 0.9), (s * 0.02, s * 0.9)]
    if shape == "diamond":
        return [(c, 0), (s, c), (c, s), (0, c)]
    if shape == "star":
        pts = []
        for i in range(10):
            r = c if i % 2 == 0 else c * 0.45
            a = -math.pi / 2 + i * math.pi / 5
            pts.append((c + r * math.cos(a), c * 1.08 + r * math.sin(a)))
        return pts
    if shape == "hexagon":
        return [(c + c * math.cos(a), c + c * math.sin(a))
                for a in (math.pi / 6 + i * math.pi / 3 for i in range(6))]
    raise ValueError(f"unknown shape {shape!r}")


@byte_cache(256 * KB)
def shape_mask(shape: str, size: int) -> Image.Image:
    """Anti-aliased coverage of a marker shape (drawn 4x larger, then reduced)."""
    big = size * _SUPERSAMPLE
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    if shape == "circle":
        draw.ellipse((0, 0, big - 1, big - 1), fill=255)
    else:
        draw.polygon(_shape_points(shape, big - 1), fill=255)
    return mask.reduce(_SUPERSAMPLE)


def _anchored(xy: tuple[float, float], w: int, h: int, anchor: str) -> Box:
    """Top-left based box for ``anchor`` = horizontal l/m/r + vertical t/m/b."""
    x = xy[0] - {"l": 0, "m": w / 2, "r": w}[anchor[0]]
    y = xy[1] - {"t": 0, "m": h / 2, "b": h}[anchor[1]]
    return round(x), round(y), round(x) + w, round(y) + h


def _inclusive(box: Box) -> Box:
    """Returned boxes end where the next thing may start; Pillow's shapes include their
    last row and column, so shapes drawn for a returned box stop one pixel short."""
    return box[0], box[1], box[2] - 1, box[3] - 1


def _chip_metrics(size: int, bold: bool) -> tuple[int, int, int, int]:
    """Height, marker size, padding and name offset of a chip."""
    ascent, descent = metrics(size, bold)
    h = ascent + descent + round(size * 0.45)
    mark = round(h * 0.62)
    pad = round(size * 0.45)
    return h, mark, pad, pad + mark + round(size * 0.35)


def chip_width(name: str, size: int = 24, bold: bool = True, fallback: str = "?",
               short: bool = False) -> int:
    """Width ``Canvas.chip`` needs to show ``name`` whole, or with ``short`` its
    ``short_name`` (a good ``least`` for ``share_width``: the first word stays whole)."""
    _h, _mark, pad, lead = _chip_metrics(size, bold)
    shown = (short_name(name, fallback, bold) if short
             else prepare(name, size, bold, None, fallback))
    return lead + text_width(shown, size, bold) + pad


def share_width(wanted: Sequence[int], total: int, least: int | Sequence[int] = 0) -> list[int]:
    """Split ``total`` px between items that want ``wanted`` px each.

    Items that fit get what they want; the room they leave goes to the long ones, which
    are cut to one common cap ("water filling"). So one long name next to three short
    ones is shortened only as much as it has to be. No item gets less than ``least`` (one
    for all, or one each, e.g. ``chip_width(name, short=True)``), even past ``total``.
    """
    if sum(wanted) <= total:
        return list(wanted)
    cap_lo, cap_hi = 0, max(wanted)
    while cap_lo < cap_hi:
        cap = (cap_lo + cap_hi + 1) // 2
        if sum(min(w, cap) for w in wanted) <= total:
            cap_lo = cap
        else:
            cap_hi = cap - 1
    floors = [least] * len(wanted) if isinstance(least, int) else list(least)
    return [max(f, min(w, cap_lo)) for f, w in zip(floors, wanted, strict=True)]


# -- the canvas --------------------------------------------------------------------------


class Canvas:
    """An RGB image with the kit's drawing helpers; every method returns what it covered."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)

    @classmethod
    def new(cls, width: int, height: int, background: RGB = PAPER) -> Canvas:
        return cls(Image.new("RGB", (width, height), background))

    def copy(self) -> Canvas:
        return Canvas(self.image.copy())

    @property
    def width(self) -> int:
        return self.image.width

    @property
    def height(self) -> int:
        return self.image.height

    def png(self, palette: Palette | None = None) -> bytes:
        return encode_png(self.image, palette)

    # text

    def text(self, xy: tuple[float, float], text: str, size: int, *, bold: bool = False,
             fill: RGB = INK, anchor: str = "la", max_width: int | None = None,
             fallback: str | None = None, secondary: bool = False) -> Box:
        """Draw ``text`` cleaned for the font and ellipsised to ``max_width``.

        ``anchor`` is Pillow's: l/m/r then a/m/s/d (ascender, middle, baseline, descender).
        ``secondary`` marks text a player does not need to choose a move (it is only
        recorded, for the size rule in docs/pictures.md).
        Returns the layout box (advance width x ascender..descender).
        """
        shown = prepare(text, size, bold, max_width, fallback)
        width = text_width(shown, size, bold)
        x, baseline, top, bottom = _anchor_origin(xy, width, size, bold, anchor)
        if shown.strip():
            mask, dx, dy = _text_mask(shown, size, bold)
            fill_mask(self.image, fill, (x + dx, baseline + dy), mask)
            recorder = _recorder.get()
            if recorder is not None:
                ink = mask.getbbox()
                recorder.append(DrawnText(
                    shown, size, bold, fill, (x, top, x + width, bottom), secondary,
                    self.image.size, max_width, None if ink is None else (
                        x + dx + ink[0], baseline + dy + ink[1], x + dx + ink[2],
                        baseline + dy + ink[3])))
        return x, top, x + width, bottom

    def text_lines(self, xy: tuple[float, float], lines: Sequence[str], size: int, *,
                   bold: bool = False, fill: RGB = INK, max_width: int | None = None,
                   spacing: float = 1.25, secondary: bool = False) -> Box:
        x, y = xy
        right = int(x)
        for i, line in enumerate(lines):
            box = self.text((x, y + i * size * spacing), line, size, bold=bold, fill=fill,
                            max_width=max_width, secondary=secondary)
            right = max(right, box[2])
        return int(x), int(y), right, round(y + len(lines) * size * spacing)

    # boxes

    def panel(self, box: Box, fill: RGB = PANEL, radius: int = 16, outline: RGB | None = None,
              width: int = 2) -> Box:
        """A rounded rectangle; ``box`` is inclusive, as for Pillow's own shapes."""
        self.draw.rounded_rectangle(box, radius, fill=fill, outline=outline,
                                    width=width if outline else 0)
        return box

    def label(self, xy: tuple[float, float], text: str, size: int, *, fg: RGB = INK,
              bg: RGB = PANEL_ALT, bold: bool = True, anchor: str = "lt", pad: int | None = None,
              max_width: int | None = None, outline: RGB | None = None,
              secondary: bool = False, fallback: str | None = None) -> Box:
        """A pill with text: ``anchor`` is l/m/r then t/m/b of the pill itself. With a
        ``fallback`` the text is a name, shortened as names are (``fit_name``)."""
        pad = round(size * 0.45) if pad is None else pad
        inner = None if max_width is None else max_width - 2 * pad
        shown = prepare(text, size, bold, inner, fallback)
        ascent, descent = metrics(size, bold)
        w = text_width(shown, size, bold) + 2 * pad
        h = ascent + descent + round(size * 0.3)
        box = _anchored(xy, w, h, anchor)
        self.panel(_inclusive(box), fill=bg, radius=h // 2, outline=outline)
        # ``shown`` already fits: ``max_width`` only records the room it had.
        self.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), shown, size, bold=bold,
                  fill=fg, anchor="mm", secondary=secondary, max_width=inner)
        return box

    # markers and players

    def marker(self, centre: tuple[float, float], shape: str, size: int, fill: RGB) -> Box:
        mask = shape_mask(shape, size)
        x, y = round(centre[0] - size / 2), round(centre[1] - size / 2)
        fill_mask(self.image, fill, (x, y), mask)
        return x, y, x + size, y + size

    def swatch(self, centre: tuple[float, float], style: PlayerStyle, size: int) -> Box:
        """The player's colour disc with their marker in it: reads in grey too."""
        box = self.marker(centre, "circle", size, style.colour)
        self.marker(centre, style.marker, round(size * 0.56), style.ink)
        return box

    def chip(self, xy: tuple[float, float], name: str, style: PlayerStyle, size: int = 24, *,
             anchor: str = "lt", max_width: int | None = None, bold: bool = True,
             fallback: str = "?") -> Box:
        """Colour + marker + name in one pill; ``max_width`` bounds the whole pill. A name
        too long for it is shortened by ``fit_name`` (first words, then first letters)."""
        h, mark, pad, lead = _chip_metrics(size, bold)
        inner = None if max_width is None else max(size, max_width - lead - pad)
        shown = prepare(name, size, bold, inner, fallback)
        w = lead + text_width(shown, size, bold) + pad
        box = _anchored(xy, w, h, anchor)
        self.panel(_inclusive(box), fill=style.colour, radius=h // 2)
        cy = (box[1] + box[3]) / 2
        self.marker((box[0] + pad + mark / 2, cy), style.marker, mark, style.ink)
        self.text((box[0] + lead, cy), shown, size, bold=bold, fill=style.ink, anchor="lm",
                  max_width=inner)  # ``shown`` fits already: this records the room it had
        return box

    def die(self, box: Box, value: int, *, fill: RGB = PANEL, pip: RGB = INK,
            outline: RGB = INK) -> Box:
        """A die face showing 1-6 (goal codes in several games are dice)."""
        x0, y0, x1, y1 = box
        side = min(x1 - x0, y1 - y0)
        self.panel((x0, y0, x0 + side - 1, y0 + side - 1), fill=fill, radius=max(3, side // 6),
                   outline=outline, width=max(2, side // 18))
        spots = {
            1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
            4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
            6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
        }.get(value, [])
        dot = max(3, round(side * 0.2))
        for cx, cy in spots:
            self.marker((x0 + side * (0.25 + 0.25 * cx), y0 + side * (0.25 + 0.25 * cy)),
                        "circle", dot, pip)
        return x0, y0, x0 + side, y0 + side
