"""PNG files for palette pictures, deflated in bands of rows that are kept.

Deflating is a third to a half of what a table picture costs (5-6 ms of 1200 x 1000-1800
palette pixels), and most of a table is the same from one move to the next: the board a
move did not touch, the other players' panels, the margins. So the picture is deflated in
bands of ``BAND_ROWS`` rows, each ended by a full flush (nothing after it refers back
into it, and it ends on a byte boundary), which makes a band's deflated bytes a piece that
fits anywhere in a deflate stream. Bands are kept by their pixels' digest, and a band seen
before is copied instead of deflated again. The PNG decodes to the very pixels Pillow's
writer would give (tests/test_png.py); it is a few percent bigger, as no band refers to
the one above it.

The file is a standard one: IHDR, PLTE, one IDAT and IEND; rows use PNG's filter "none",
like Pillow's for palette pictures. The IDAT's Adler-32 is joined from the bands' own.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

from PIL import Image

from .cache import MB, ByteLRU

BAND_ROWS = 32  # ~38 KB of a 1200 px picture: small enough that a move leaves most alone
LEVEL = 2  # as encode_png's Pillow writer: 11 % faster than 3 for 8 % more bytes

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = b"\x78\x5e"  # deflate, 32 KB window, "fast" level; (0x785e % 31 == 0)
_LAST_BLOCK = b"\x03\x00"  # an empty final block of fixed codes
_ADLER_BASE = 65521

# (width, digest of the band's filtered rows) -> (its deflated bytes, its Adler-32).
# A table's bands are 60-110 KB deflated. In the load test's shape (200 matches moving in
# turn, one process; 30 Nov) 12 MB hit 51 % of bands, 16 MB 65 %, 20 MB 69 %, 36 MB 70 %:
# a table cost 15.6 ms of CPU before, 13.6 with 16 MB (docs/pictures-cost.md).
_BANDS: ByteLRU[tuple[int, bytes], tuple[bytes, int]] = ByteLRU(
    "png.bands", 16 * MB, lambda value: len(value[0]) + 150)


def encode(image: Image.Image) -> bytes:
    """The PNG file of an 8-bit palette (mode "P") picture."""
    if image.mode != "P":
        raise ValueError(f"a palette picture is needed, not {image.mode}")
    width, height = image.size
    rows = _filtered_rows(image)
    line = width + 1
    band_bytes = BAND_ROWS * line
    parts = [_ZLIB_HEADER]
    adler = 1
    deflater = None
    for start in range(0, len(rows), band_bytes):
        band = rows[start:start + band_bytes]
        # SHA-1, the fastest digest here (1 ms for a 2.2 MB table, BLAKE2 1.6 ms): a weaker
        # checksum could let one picture's band stand in for another's.
        key = (width, hashlib.sha1(band, usedforsecurity=False).digest())
        kept = _BANDS.get(key)
        if kept is None:
            if deflater is None:
                deflater = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            kept = _BANDS.put(key, (deflater.compress(band) + deflater.flush(zlib.Z_FULL_FLUSH),
                                    zlib.adler32(band)))
        parts.append(kept[0])
        adler = _join_adler(adler, kept[1], len(band))
    parts += (_LAST_BLOCK, struct.pack(">I", adler))
    palette = image.getpalette("RGB") or []
    palette += [0] * (-len(palette) % 3)
    return b"".join((
        _SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
        _chunk(b"PLTE", bytes(palette[:768] or (0, 0, 0))),
        _chunk(b"IDAT", b"".join(parts)),
        _chunk(b"IEND", b""),
    ))


def _filtered_rows(image: Image.Image) -> bytes:
    """The pixels as PNG stores them: each row led by its filter type, 0 ("none")."""
    width, height = image.size
    # One paste in C puts a column of zeros before every row (index 0 is never read as a
    # pixel: it is the filter byte).
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(image, (1, 0))
    return framed.tobytes()


def _join_adler(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two pieces of data one after the other, from theirs (zlib's
    adler32_combine): the low sums add, less the 1 each started from; each byte of the
    second piece adds the first piece's low sum to the high sum."""
    low1, high1 = first & 0xFFFF, first >> 16
    low2, high2 = second & 0xFFFF, second >> 16
    low = (low1 + low2 - 1) % _ADLER_BASE
    high = (high1 + high2 + second_length * (low1 - 1)) % _ADLER_BASE
    return high << 16 | low


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))


