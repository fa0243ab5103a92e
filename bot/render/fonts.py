"""Bundled fonts, which characters each can really draw, and how a string is laid out.

Discord names are written in every script and full of emoji. DejaVu draws Latin, Cyrillic
and Greek; Noto fonts cut to their scripts draw Arabic, Hebrew, Thai, Devanagari and
Chinese/Japanese/Korean, and Noto Emoji draws emoji (Unicode 17) in black and white, in the
text's own ink (see ``bot/data/fonts/README.md``). Each character goes to the first face that
has it, so a name mixing scripts is drawn as runs, each in a face that has it (``layout``).
An emoji sequence (a flag, a skin tone, a keycap, people joined by ZWJ) is kept whole and
drawn as the one glyph the emoji font makes of it (``emoji_spans``). We read
each face's own character map once, so text is cleaned *before* drawing instead of
guessing from rendered pixels: nothing is ever drawn as a font's "missing glyph" box.
"""

from __future__ import annotations

import functools
import re
import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont, features

from bot.data import data_path

from . import bidi
from .cache import KB, MB, byte_cache

FONT_DIR = data_path("fonts")
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"

# Unicode cmap subtables (platform, encoding) worth reading; others map legacy encodings.
_UNICODE_SUBTABLES = {(0, 3), (0, 4), (0, 6), (3, 1), (3, 10)}

# Pillow lays text out with libraqm (HarfBuzz shaping, FriBiDi) when its wheel found
# FriBiDi on the system; without it, Arabic is shaped and right-to-left text ordered here
# (``bidi``), and Devanagari is drawn letter by letter, unjoined but readable.
SHAPING: bool = bool(features.check("raqm"))


@dataclass(frozen=True)
class Face:
    name: str
    regular: str  # file names in FONT_DIR
    bold: str


# The first face is the primary: its metrics place every line, whatever face a run uses.
FACES: tuple[Face, ...] = (
    Face("DejaVu Sans", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    Face("Noto Sans Arabic", "NotoSansArabic-Regular.ttf", "NotoSansArabic-Bold.ttf"),
    Face("Noto Sans Hebrew", "NotoSansHebrew-Regular.ttf", "NotoSansHebrew-Bold.ttf"),
    Face("Noto Sans Thai", "NotoSansThai-Regular.ttf", "NotoSansThai-Bold.ttf"),
    Face("Noto Sans Devanagari", "NotoSansDevanagari-Regular.ttf",
         "NotoSansDevanagari-Bold.ttf"),
    # One CJK weight for both: a bold one would add 2.6 MB to the repository.
    Face("Noto Sans CJK", "NotoSansCJK-Medium-subset.otf", "NotoSansCJK-Medium-subset.otf"),
    # One weight for both, like CJK: a name's emoji sit beside bold and regular text alike.
    Face("Noto Emoji", "NotoEmoji-Medium.ttf", "NotoEmoji-Medium.ttf"),
)
PRIMARY = 0
EMOJI = len(FACES) - 1
# Which face a character is looked up in first: the script fonts before DejaVu, whose
# Arabic and Hebrew are sparse; emoji last, so a symbol DejaVu has keeps DejaVu's look.
_SEARCH = (1, 2, 3, 4, 5, PRIMARY, EMOJI)


def font_path(bold: bool = False, face: int = PRIMARY) -> Path:
    return FONT_DIR / (FACES[face].bold if bold else FACES[face].regular)


@byte_cache(8 * MB)  # ~26 faces; text masks below spare most lookups
def font(size: int, bold: bool = False, face: int = PRIMARY,
         shaping: bool = SHAPING) -> ImageFont.FreeTypeFont:
    """A bundled face at ``size`` px (cached: loading a face costs ~1 ms)."""
    engine = ImageFont.Layout.RAQM if shaping else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(font_path(bold, face)), size, layout_engine=engine)


def read_cmap(data: bytes) -> frozenset[int]:
    """Code points a TrueType font maps to a real glyph (formats 4 and 12 of ``cmap``)."""
    (num_tables,) = struct.unpack_from(">H", data, 4)
    cmap = None
    for i in range(num_tables):
        tag, _checksum, offset, _length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if tag == b"cmap":
            cmap = offset
            break
    if cmap is None:
        raise ValueError("font has no cmap table")
    codes: set[int] = set()
    (_version, subtables) = struct.unpack_from(">HH", data, cmap)
    for i in range(subtables):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        if (platform, encoding) not in _UNICODE_SUBTABLES:
            continue
        sub = cmap + offset
        (fmt,) = struct.unpack_from(">H", data, sub)
        if fmt == 4:
            codes.update(_format4(data, sub))
        elif fmt == 12:
            codes.update(_format12(data, sub))
    return frozenset(codes)


def _format4(data: bytes, sub: int) -> set[int]:
    (seg_x2,) = struct.unpack_from(">H", data, sub + 6)
    ends = sub + 14
    starts = ends + seg_x2 + 2  # +2 skips reservedPad
    deltas = starts + seg_x2
    range_offsets = deltas + seg_x2
    codes: set[int] = set()
    for seg in range(seg_x2 // 2):
        (end,) = struct.unpack_from(">H", data, ends + 2 * seg)
        (start,) = struct.unpack_from(">H", data, starts + 2 * seg)
        (delta,) = struct.unpack_from(">h", data, deltas + 2 * seg)
        (range_offset,) = struct.unpack_from(">H", data, range_offsets + 2 * seg)
        for code in range(start, end + 1):
            if code == 0xFFFF:
                continue
            if range_offset == 0:
                glyph = (code + delta) & 0xFFFF
            else:
                # idRangeOffset is relative to its own position in the table (spec quirk).
                address = range_offsets + 2 * seg + range_offset + 2 * (code - start)
                (glyph,) = struct.unpack_from(">H", data, address)
                if glyph:
                    glyph = (glyph + delta) & 0xFFFF
            if glyph:  # glyph 0 is .notdef: the tofu box
                codes.add(code)
    return codes


def _format12(data: bytes, sub: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, sub + 12)
    codes: set[int] = set()
    for i in range(groups):
        start, end, glyph = struct.unpack_from(">III", data, sub + 16 + 12 * i)
        codes.update(range(start + (1 if glyph == 0 else 0), end + 1))
    return codes


@byte_cache(4 * MB)  # 12 character maps, ~0.1-1 MB each
def coverage(bold: bool = False, face: int = PRIMARY) -> frozenset[int]:
    """Code points a bundled face draws; for the primary face ASCII if its file cannot be
    parsed, for a fallback face nothing (its characters are then cleaned away)."""
    try:
        return read_cmap(font_path(bold, face).read_bytes())
    except (OSError, ValueError, struct.error):
        # Dropping too much is better than drawing tofu: printable ASCII is always there.
        return frozenset(range(0x20, 0x7F)) if face == PRIMARY else frozenset()


def supports(char: str, bold: bool = False) -> bool:
    """Whether the primary face (DejaVu) draws ``char``."""
    return ord(char) in coverage(bold)


@functools.lru_cache(maxsize=4096)  # ~110 characters a table are looked up, most again
def face_of(char: str, bold: bool = False) -> int | None:
    """The face that draws ``char``, or None when no bundled face has it."""
    code = ord(char)
    for face in _SEARCH:
        if code in coverage(bold, face):
            return face
    return None


# Invisible format characters (ZWJ, variation selectors, bidi marks) and private or
# surrogate code points are never worth a glyph, even where the font has one.
_DROP_CATEGORIES = {"Cf", "Co", "Cs", "Cn"}
_SPACES = re.compile(r"\s+")


def _never_drawn(char: str) -> bool:
    """Characters that only modify a neighbour in an emoji sequence. Left alone (outside a
    sequence the emoji font joins) they would look like the boxes we avoid: variation
    selectors, regional indicators (two make a flag), skin tones, the keycap frame, tags."""
    code = ord(char)
    return (0xFE00 <= code <= 0xFE0F or 0xE0000 <= code <= 0xE01EF
            or 0x1F1E6 <= code <= 0x1F1FF or 0x1F3FB <= code <= 0x1F3FF or code == 0x20E3)


def _emoji_symbol(char: str) -> bool:
    """An emoji the emoji font draws, even one newer than Python's Unicode tables (which
    call it unassigned, "Cn"); not one of the joiners and modifiers it also maps."""
    return (ord(char) in coverage(False, EMOJI) and not _never_drawn(char)
            and unicodedata.category(char) not in ("Cf", "Mn", "Me", "Zs", "Cc", "Co"))


# -- emoji sequences ---------------------------------------------------------------------

ZWJ = "\u200d"
_VS16 = "\ufe0f"  # "draw the one before as an emoji"
_KEYCAP = "\u20e3"
_CANCEL_TAG = "\U000e007f"


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def _element(text: str, i: int) -> int:
    """End of the emoji element starting at ``i`` (``i`` when none does): a flag's two
    regional letters, a keycap, or an emoji with its selector, skin tone and tags."""
    n, char = len(text), text[i]
    j = i + 1
    if char in "0123456789#*":  # a digit is an emoji only in its keycap
        j += j < n and text[j] == _VS16
        return j + 1 if j < n and text[j] == _KEYCAP else i
    if char < "\xa9":  # no other ASCII character is an emoji (© is the first)
        return i
    if _regional(char):
        return i + 2 if i + 1 < n and _regional(text[i + 1]) else i
    if not _emoji_symbol(char):
        return i
    j += j < n and text[j] == _VS16
    j += j < n and 0x1F3FB <= ord(text[j]) <= 0x1F3FF
    k = j
    while k < n and 0xE0020 <= ord(text[k]) <= 0xE007E:
        k += 1
    return k + 1 if k > j and k < n and text[k] == _CANCEL_TAG else j


def _sequence(text: str, i: int) -> int:
    """End of the emoji sequence starting at ``i``: elements joined by ZWJ."""
    end = _element(text, i)
    while i < end < len(text) - 1 and text[end] == ZWJ:
        after = _element(text, end + 1)
        if after == end + 1:
            break
        end = after
    return end


def emoji_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``text`` holds emoji sequences of more than one character, as (start, end):
    they are drawn whole, in the emoji font, and never cut apart."""
    if text.isascii():
        return ()  # nearly every string: no emoji, and a keycap's frame is not ASCII
    emoji = coverage(False, EMOJI)
    if not any(ord(c) in emoji for c in text if c > "\x7f"):
        return ()
    return _spans(text)


@byte_cache(256 * KB)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        end = _sequence(text, i)
        if end > i + 1:
            spans.append((i, end))
        i = max(end, i + 1)
    return tuple(spans)


@byte_cache(64 * KB)
def _joined(sequence: str) -> bool:
    """Whether the emoji font draws ``sequence`` as one glyph. Its ``ccmp`` ligatures need
    libraqm's shaping; every emoji glyph has the same advance, so one advance is one glyph."""
    if not SHAPING:
        return False
    face = font(64, False, EMOJI, True)
    one = face.getlength("\U0001f600")
    return abs(face.getlength(sequence) - one) < one / 4


def _unjoined(sequence: str, shaping: bool = True) -> str:
    """What is drawn of an emoji sequence: itself when the font joins it, else its parts'
    base emoji (as phones show a ZWJ sequence they lack), a flag's letters dropped."""
    if shaping and _joined(sequence):
        return sequence
    parts = sequence.split(ZWJ)
    if len(parts) > 1:
        return "".join(_unjoined(part, shaping) for part in parts if part)
    return "" if _regional(sequence[0]) else sequence[0]


def plain_emoji(text: str) -> str:
    """``text`` with each emoji sequence reduced to base emoji, for a layout that cannot
    shape (Pillow without libraqm draws no ligature)."""
    out, last = [], 0
    for start, end in emoji_spans(text):
        out += [text[last:start], _unjoined(text[start:end], shaping=False)]
        last = end
    return "".join(out) + text[last:]


@byte_cache(MB)
def clean_text(text: str, bold: bool = False, fallback: str | None = None) -> str:
    """``text`` with only characters some bundled face can draw.

    Symbols no face has are dropped; a run of letters or digits none has (a Cherokee
    name, say) becomes one "?" so a name keeps its shape ("ᏣᎳᎩ Bob" -> "? Bob"). Emoji
    sequences the emoji font joins stay whole; of others the base emoji are kept. Runs of
    whitespace become one space. With a ``fallback`` (for names), the text is trimmed and
    the fallback returned when no letter, digit or symbol is left.
    """
    text = unicodedata.normalize("NFC", text)
    out: list[str] = []
    i = 0
    while i < len(text):
        end = _sequence(text, i)
        if end > i + 1:
            out.append(_unjoined(text[i:end]))
            i = end
            continue
        char = text[i]
        i += 1
        category = unicodedata.category(char)
        if category[0] == "Z" or category == "Cc":
            char, category = " ", "Zs"  # newlines and tabs in names become plain spaces
        if category == "Cn" and _emoji_symbol(char):
            category = "So"
        if category in _DROP_CATEGORIES or _never_drawn(char):
            continue
        if char == " " or face_of(char, bold) is not None:
            out.append(char)
        elif category[0] in "LN" and (not out or out[-1] != "?"):
            out.append("?")
    cleaned = _SPACES.sub(" ", "".join(out))
    if fallback is None:
        return cleaned
    cleaned = cleaned.strip()
    # An emoji-only name is a name; one left with only "?" and punctuation is not.
    readable = any(c.isalnum() or unicodedata.category(c) == "So" or _emoji_symbol(c)
                   for c in cleaned)
    return cleaned if readable else fallback


# -- layout ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A piece of a line drawn with one face, in visual order left to right.

    ``text`` is what Pillow is given: for a right-to-left run with libraqm the logical
    order (raqm shapes and reverses it, ``direction`` "rtl"); without it already reversed
    and shaped here (``direction`` None).
    """

    text: str
    face: int
    direction: str | None = None


def _attached(category: str) -> bool:
    """Marks and spaces go with the face of what precedes them when it has them."""
    return category[0] == "M" or category == "Zs"


@byte_cache(MB)  # 256 KB kept only half of four games' strings
def layout(text: str, bold: bool = False, shaping: bool = SHAPING) -> tuple[Run, ...]:
    """How already cleaned ``text`` is drawn: its runs of one face, left to right. An
    emoji sequence is one run's part in the emoji font (base emoji only, unshaped)."""
    if not shaping:
        text = plain_emoji(text)
    in_sequence = {i for start, end in emoji_spans(text) for i in range(start, end)}
    faces: list[int] = []
    for i, char in enumerate(text):
        face = face_of(char, bold)
        if i in in_sequence:
            face = EMOJI
        elif i and _attached(unicodedata.category(char)):
            # After an emoji, the text's own face: the emoji font's space is too wide.
            before = PRIMARY if faces[-1] == EMOJI else faces[-1]
            if ord(char) in coverage(bold, before):
                face = before
        faces.append(PRIMARY if face is None else face)
    if not bidi.has_rtl(text) and all(f == PRIMARY for f in faces):
        return (Run(text, PRIMARY),) if text else ()  # nearly every string: one plain run
    if not shaping:
        text, faces = bidi.shape_arabic(text, faces)
    runs: list[Run] = []
    for piece, level in bidi.visual_runs(text, faces):
        # ``piece`` holds (char, face) in visual order; split where the face changes.
        start = 0
        for end in range(1, len(piece) + 1):
            if end < len(piece) and piece[end][1] == piece[start][1]:
                continue
            chars = "".join(c for c, _f in piece[start:end])
            face = piece[start][1]
            if level % 2 and shaping:
                # Back to logical order (clusters kept whole) for raqm to shape and mirror.
                runs.append(Run(bidi.reverse_clusters(chars), face, "rtl"))
            elif level % 2:
                runs.append(Run(bidi.mirror(chars), face))
            else:
                runs.append(Run(chars, face))
            start = end
    return tuple(runs)
