"""Paletted PNGs written fast: the pixels deflated by ISA-L instead of zlib.

Every picture the bot sends is a 256-colour PNG of ~1.3-2 M pixels (``kit.encode_png``).
Pillow deflates it with the zlib the system has (its wheels link ``libz.so.1``, which
manylinux counts as part of the system; on Debian 12 that is zlib 1.2.13), ~4 ms a table
at level 2, a fifth of what a table costs to draw. ISA-L (Intel's storage acceleration
library, the ``isal`` package) writes the same deflate format about four times as fast
and a little smaller (~1.1 ms, 79 KB against 81 KB for a Big City table: 48 tables of
every game measured, docs/pictures-cost.md). The file is an ordinary PNG any viewer
reads: the signature, IHDR, PLTE, one IDAT, IEND; every row is unfiltered (filter 0), as
Pillow writes paletted rows too, and the decoded pixels are exactly the picture's.

Where ``isal`` is not installed, ``paletted_png`` returns None and the caller uses Pillow.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from PIL import Image

_isal_zlib: Any
try:
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover - isal is a dependency; this keeps odd hosts working
    _isal_zlib = None

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_LEVEL = 1  # ISA-L's levels are 0-3; 1 and 2 wrote the same bytes here, 3 was slower
_U32 = struct.Struct(">I")
_IHDR = struct.Struct(">IIBBBBB")
_BIT_DEPTH_8, _COLOUR_TYPE_PALETTE = 8, 3


def available() -> bool:
    return _isal_zlib is not None


def paletted_png(image: Image.Image) -> bytes | None:
    """``image`` (mode P, no transparency) as PNG bytes, or None when this writer cannot
    write it (no ISA-L, another mode, a transparent colour): then let Pillow."""
    if _isal_zlib is None or image.mode != "P" or "transparency" in image.info:
        return None
    width, height = image.size
    palette = image.getpalette() or []
    if not palette or width == 0 or height == 0:
        return None
    # Each row behind its filter byte (0: none), laid out by Pillow in C: the picture
    # pasted one column right of a column of zeros is exactly PNG's raw scanlines.
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(image, (1, 0))
    pixels = _isal_zlib.compress(rows.tobytes(), _LEVEL)
    header = _IHDR.pack(width, height, _BIT_DEPTH_8, _COLOUR_TYPE_PALETTE, 0, 0, 0)
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"PLTE", bytes(palette[:768])), _chunk(b"IDAT", pixels),
                     _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return b"".join((_U32.pack(len(data)), kind, data,
                     _U32.pack(zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF)))
