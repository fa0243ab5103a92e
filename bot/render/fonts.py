"""Bundled fonts, and which characters they can really draw.

Discord names are full of emoji and CJK that DejaVu has no glyph for; Pillow would draw
the font's "missing glyph" box for those. We read each font's own character map once so
text can be cleaned *before* drawing instead of guessing from rendered pixels.
"""

from __future__ import annotations

import re
import struct
import unicodedata
from pathlib import Path

from PIL import ImageFont

from bot.data import data_path

from .cache import MB, byte_cache

FONT_DIR = data_path("fonts")
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"

# Unicode cmap subtables (platform, encoding) worth reading; others map legacy encodings.
_UNICODE_SUBTABLES = {(0, 3), (0, 4), (0, 6), (3, 1), (3, 10)}


def font_path(bold: bool = False) -> Path:
    return BOLD if bold else REGULAR


@byte_cache(4 * MB)  # ~13 faces; text masks below spare most lookups
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu face at ``size`` px (cached: loading a face costs ~1 ms)."""
    return ImageFont.truetype(str(font_path(bold)), size)


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


@byte_cache(1 * MB)  # the two character maps, ~0.4 MB each
def coverage(bold: bool = False) -> frozenset[int]:
    """Code points the bundled face draws; ASCII only if the file cannot be parsed."""
    try:
        return read_cmap(font_path(bold).read_bytes())
    except (OSError, ValueError, struct.error):
        # Dropping too much is better than drawing tofu: printable ASCII is always there.
        return frozenset(range(0x20, 0x7F))


def supports(char: str, bold: bool = False) -> bool:
    return ord(char) in coverage(bold)


# Invisible format characters (ZWJ, variation selectors, bidi marks) and private or
# surrogate code points are never worth a glyph, even where the font has one.
_DROP_CATEGORIES = {"Cf", "Co", "Cs", "Cn"}
_SPACES = re.compile(r"\s+")


def _is_variation_selector(char: str) -> bool:
    # Emoji presentation selectors (U+FE0F) ride on emoji we drop anyway; fonts that
    # "have" them map them to empty glyphs that a basic layout would still advance over.
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


@byte_cache(MB // 2)
def clean_text(text: str, bold: bool = False, fallback: str | None = None) -> str:
    """``text`` with only characters the font can draw.

    Symbols and emoji the font lacks are dropped; a run of letters or digits it lacks
    (a CJK name, say) becomes one "?" so a name keeps its shape ("田中 Bob" -> "? Bob").
    Runs of whitespace become one space. With a ``fallback`` (for names), the text is
    trimmed and the fallback returned when no readable letter or digit is left.
    """
    text = unicodedata.normalize("NFC", text)
    have = coverage(bold)
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if category[0] == "Z" or category == "Cc":
            char, category = " ", "Zs"  # newlines and tabs in names become plain spaces
        if category in _DROP_CATEGORIES or _is_variation_selector(char):
            continue
        if ord(char) in have:
            out.append(char)
        elif category[0] in "LN" and (not out or out[-1] != "?"):
            out.append("?")
    cleaned = _SPACES.sub(" ", "".join(out))
    if fallback is None:
        return cleaned
    cleaned = cleaned.strip()
    return cleaned if any(c.isalnum() for c in cleaned) else fallback
