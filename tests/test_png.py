"""The banded PNG writer (bot/render/png.py): every file it writes is a valid PNG that
decodes to the picture's pixels, whether its bands were deflated now or kept from other
pictures, and a band seen before is not deflated again."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from bot.render import png
from bot.render.kit import KIT_PALETTE


def paletted(width: int, height: int, seed: int) -> Image.Image:
    """A picture like a table: flat areas, some noise, every index of the palette used."""
    rng = random.Random(seed)
    image = Image.new("P", (width, height), 3)
    image.putpalette(KIT_PALETTE.image.getpalette() or [])
    pixels = bytearray(image.tobytes())
    for _ in range(width * height // 7):
        pixels[rng.randrange(len(pixels))] = rng.randrange(256)
    image.frombytes(bytes(pixels))
    return image


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The file's chunks, each checked against its CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(body, zlib.crc32(kind)), kind
        out.append((kind, body))
        at += 12 + length
    return out


def assert_same_picture(data: bytes, image: Image.Image) -> None:
    kinds = [kind for kind, _ in chunks(data)]
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    idat = b"".join(body for kind, body in chunks(data) if kind == b"IDAT")
    rows = zlib.decompress(idat)  # checks the joined Adler-32
    width = image.width
    assert len(rows) == (width + 1) * image.height
    decoded = Image.open(io.BytesIO(data))
    decoded.load()
    assert decoded.mode == "P" and decoded.size == image.size
    assert decoded.tobytes() == image.tobytes()
    assert decoded.convert("RGB").tobytes() == image.convert("RGB").tobytes()


@pytest.mark.parametrize(("width", "height"), [(1, 1), (7, 3), (1201, 33), (640, 97),
                                               (1200, 1000)])
def test_a_picture_decodes_to_its_pixels(width: int, height: int) -> None:
    image = paletted(width, height, seed=width * height)
    png._BANDS.clear()
    assert_same_picture(png.encode(image), image)
    # Written again from kept bands only: the same file.
    assert png.encode(image) == png.encode(image)
    assert_same_picture(png.encode(image), image)


def test_a_move_deflates_only_the_bands_it_changed() -> None:
    """The next picture of a table differs in a few rows: only their bands are deflated;
    the file splices kept bands around them and still decodes to the new picture."""
    before = paletted(1200, 1000, seed=1)
    png._BANDS.clear()
    png.encode(before)
    after = before.copy()
    after.paste(9, (100, 390, 300, 410))  # a tile placed, inside one band (384-415)
    after.paste(11, (0, 995, 1200, 1000))  # the status line, in the last band (992-999)
    misses = png._BANDS.misses
    data = png.encode(after)
    assert png._BANDS.misses - misses == 2
    assert_same_picture(data, after)
    # Pillow's file of the same picture decodes to the same pixels, a little smaller.
    pillow = io.BytesIO()
    after.save(pillow, format="PNG", optimize=False, compress_level=png.LEVEL)
    assert Image.open(pillow).tobytes() == after.tobytes()
    assert len(data) < 1.15 * len(pillow.getvalue())


def test_only_palette_pictures() -> None:
    with pytest.raises(ValueError, match="palette"):
        png.encode(Image.new("RGB", (4, 4)))
