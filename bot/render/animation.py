"""The game in a few seconds: an animated GIF of a finished game's board, move by move.

Two jobs for a render worker, both at the pool's LOW priority (``RenderPool.later``):

- :func:`boards` steps through the stored action log with the replay contract
  (``bot.core.replaying.steps``) and returns the public boards worth a frame: the start,
  each board that differs from the one before, the end; at most ``MAX_FRAMES``, sampled
  evenly, the first and the last always kept. The engine is found by name in the catalogue
  module the caller names (``bot.games``), as the pool's thinker is: this layer imports no
  game.
- :func:`frames` draws a few boards with the game's own ``render_table`` (the caller has put
  the players' names in, as ``CityhallBot.render_table`` does) and scales them down; one
  job per few boards, so other work gets a worker in between.
- :func:`gif` encodes the frames as one GIF within ``BUDGET_BYTES``, trying narrower and
  fewer frames before giving up (None).

Why GIF and these numbers: docs/rematch-and-animation.md.
"""

from __future__ import annotations

import functools
import importlib
import io
import struct
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image

from bot.core.engine import JSON
from bot.core.replaying import board, steps

from . import kit
from .animated import BUDGET_BYTES, Animation
from .cache import compress, decompress

MAX_FRAMES = 24  # about 2 s of a worker's CPU for the longest games (docs)
WIDTHS = (480, 360)  # a phone shows a picture some 350-400 points wide
FIRST_MS = 1000  # the first board, held a moment
LAST_MS = 3000  # the final board, held longest
TOTAL_MS = 15000  # the whole animation, at most
STEP_MS = (250, 800)  # each board in between: as long as fits, within these
PALETTE = 255  # colours of the shared palette (one index left for GIF's transparency)


def boards(catalogue: str, game: str, players: Sequence[str], options: JSON, seed: int,
           actions: Sequence[tuple[str | None, JSON]],
           limit: int = MAX_FRAMES) -> list[tuple[int, JSON]]:
    """``(step, public board)`` for the frames of a game's animation: every board that
    changed (refused actions and moves that leave the public board as it was give none),
    sampled down to ``limit`` evenly, step 0 first and the last step last."""
    engine = importlib.import_module(catalogue).GAMES[game].engine
    kept: list[tuple[int, JSON]] = []
    last: tuple[int, JSON] | None = None
    for step in steps(engine, players, options, seed, actions):
        if step.error is not None:
            continue
        view = board(engine, step)
        last = (step.index, view)
        if not kept or view != kept[-1][1]:
            kept.append(last)
    assert last is not None
    if kept[-1][0] != last[0]:
        kept[-1] = last  # the same board, at the last step
    return sample(kept, limit)


def sample(items: Sequence[Any], limit: int) -> list[Any]:
    """At most ``limit`` of ``items``, evenly spread, the first and the last kept."""
    if len(items) <= limit:
        return list(items)
    if limit < 2:
        return [items[-1]]
    picks = sorted({round(i * (len(items) - 1) / (limit - 1)) for i in range(limit)})
    return [items[i] for i in picks]


def durations(frames: int) -> list[int]:
    """Each frame's time in milliseconds: the first and last held, the rest sharing what is
    left of ``TOTAL_MS`` (within ``STEP_MS``)."""
    if frames == 1:
        return [LAST_MS]
    middle = frames - 2
    each = STEP_MS[1] if middle == 0 else \
        max(STEP_MS[0], min(STEP_MS[1], (TOTAL_MS - FIRST_MS - LAST_MS) // middle))
    return [FIRST_MS, *([each] * middle), LAST_MS]


def frame(png: bytes, width: int) -> Image.Image:
    """A board picture scaled to ``width`` (never up), in RGB: one frame before its colours
    are reduced to the animation's palette."""
    with Image.open(io.BytesIO(png)) as image:
        return scaled(image.convert("RGB"), width)


def scaled(picture: Image.Image, width: int) -> Image.Image:
    """``picture`` no wider than ``width``, its proportions kept. A 1200 px board is first
    halved by averaging (``reducing_gap`` 1), then Lanczos-scaled: half the time of
    Lanczos all the way (~20 -> ~10 ms), the same look at a phone's size."""
    if picture.width <= width:
        return picture
    height = max(1, round(picture.height * width / picture.width))
    return picture.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=1.0)


# A frame travels from the worker that draws it to the one that makes the GIF as its RGB
# pixels compressed (``cache.compress``) behind this tag (well under 1 ms; a PNG took
# ~25 ms to write, zlib ~3 ms). Frames live only between two jobs of one process's life.
_FRAME_TAG = b"CHFRAME2"
_FRAME_SIZE = struct.Struct(">II")


def _frame_bytes(picture: Image.Image) -> bytes:
    rgb = picture if picture.mode == "RGB" else picture.convert("RGB")
    return (_FRAME_TAG + _FRAME_SIZE.pack(*rgb.size)
            + compress(rgb.tobytes()))


def _frame_image(data: bytes) -> Image.Image:
    """A frame from :func:`frames` (or a PNG) as RGB."""
    if data.startswith(_FRAME_TAG):
        size = _FRAME_SIZE.unpack_from(data, len(_FRAME_TAG))
        pixels = decompress(data[len(_FRAME_TAG) + _FRAME_SIZE.size:])
        return Image.frombytes("RGB", size, pixels)
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB")


def frames(pictures: str, views: Sequence[JSON], width: int = WIDTHS[0]) -> list[bytes]:
    """The boards ``views`` (named public views) drawn by ``<pictures>.render_table`` and
    scaled to ``width``, each as bytes for :func:`gif` (lossless): a few boards per job, so
    that pictures and computer moves asked meanwhile get a worker between two jobs. The
    board is taken before it is encoded (``kit.capturing``), so it is never written as a
    PNG and read back, and a board to be scaled down before it is mapped onto its palette
    (the GIF has a palette of its own, made from the scaled frames)."""
    render = importlib.import_module(pictures).render_table
    out = []
    for view in views:
        with kit.capturing(scaled_to=width) as kept:
            png = render(view)
        if not kept:
            picture = _frame_image(png)
        else:
            picture = kept[-1] if kept[-1].mode == "RGB" else kept[-1].convert("RGB")
        out.append(_frame_bytes(scaled(picture, width)))
    return out


def gif(pngs: Sequence[bytes], budget: int = BUDGET_BYTES,
        widths: Sequence[int] = WIDTHS) -> Animation | None:
    """The frames ``pngs`` (from :func:`frames`, or PNGs) as one looping GIF within ``budget`` bytes:
    at the first of ``widths`` that fits, else with every other frame (the first and last
    kept), and so on down to 4 frames, else None. Each frame is decoded when it is mapped
    onto the GIF's palette and let go after: all 24 as RGB at once were ~32 MB more at the
    worker's peak (issue 25: the soak's memory had no margin)."""
    for count in _counts(len(pngs)):
        chosen = sample(pngs, count)
        sizes = [_frame_size(data) for data in chosen]
        for width in widths:
            loaders = [functools.partial(_scaled_frame, data, width) for data in chosen]
            data, shown = _encode(loaders, [_scaled_size(size, width) for size in sizes])
            if len(data) <= budget:
                return Animation(data, len(chosen), shown, min(width, sizes[0][0]))
    return None


def _scaled_frame(data: bytes, width: int) -> Image.Image:
    return scaled(_frame_image(data), width)


def _frame_size(data: bytes) -> tuple[int, int]:
    if data.startswith(_FRAME_TAG):
        width, height = _FRAME_SIZE.unpack_from(data, len(_FRAME_TAG))
        return int(width), int(height)
    with Image.open(io.BytesIO(data)) as image:  # reads the header only
        return image.size


def _scaled_size(size: tuple[int, int], width: int) -> tuple[int, int]:
    """The size :func:`scaled` gives a picture of ``size``."""
    if size[0] <= width:
        return size
    return width, max(1, round(size[1] * width / size[0]))


def animate(pictures: str, views: Sequence[JSON], budget: int = BUDGET_BYTES,
            widths: Sequence[int] = WIDTHS) -> Animation | None:
    """:func:`frames` and :func:`gif` in one call (tools and tests; the bot asks for them
    in several jobs)."""
    return gif(frames(pictures, views, max(widths)), budget, widths)


def _counts(frames: int) -> list[int]:
    counts = [frames]
    while counts[-1] > 4:
        counts.append(max(4, counts[-1] // 2))
    return counts


def encode(frames: Sequence[Image.Image]) -> tuple[bytes, int]:
    """The frames as a looping GIF, all in one palette (taken from the first, middle and
    last frames, so a colour stays the same colour throughout), without dithering (boards
    are flat colours and text, which dithering would only speckle); and its length in ms.
    Frames of different heights (a board that grew) are placed at the top of the largest,
    on their own background colour (their bottom left pixel's)."""
    return _encode([functools.partial(_given, f) for f in frames], [f.size for f in frames])


def _given(picture: Image.Image) -> Image.Image:
    return picture


def _encode(loaders: Sequence[Callable[[], Image.Image]],
            sizes: Sequence[tuple[int, int]]) -> tuple[bytes, int]:
    """:func:`encode` of the frames ``loaders`` give, each loaded when it is mapped onto the
    palette (the palette's three once more)."""
    width = max(w for w, _h in sizes)
    height = max(h for _w, h in sizes)
    samples = [loaders[0](), loaders[len(loaders) // 2](), loaders[-1]()]
    mosaic = Image.new("RGB", (width, height * len(samples)), "white")
    for row, picture in enumerate(samples):
        mosaic.paste(picture, (0, row * height))
        if picture.height < height:  # the background it will be shown on
            mosaic.paste(_background(picture),
                         (0, row * height + picture.height, width, (row + 1) * height))
    # Every other pixel's colour each way is enough to choose the palette by (boards are
    # flat colours and text): a quarter of median cut's time (~65 -> ~18 ms a Cities game),
    # frames as close to their colours as before (mean error 2.5 against 2.6 of 255).
    sampled = mosaic.resize((max(1, width // 2), max(1, mosaic.height // 2)),
                            Image.Resampling.NEAREST)
    palette = sampled.quantize(PALETTE, method=Image.Quantize.MEDIANCUT)
    del samples, mosaic, sampled
    reduced = []
    for load in loaders:
        picture = load()
        if picture.size != (width, height):
            canvas = Image.new("RGB", (width, height), _background(picture))
            canvas.paste(picture, (0, 0))
            picture = canvas
        reduced.append(picture.quantize(palette=palette, dither=Image.Dither.NONE))
    times = durations(len(reduced))
    out = io.BytesIO()
    reduced[0].save(out, "GIF", save_all=True, append_images=reduced[1:], duration=times,
                    loop=0, disposal=1)
    return out.getvalue(), sum(times)


def _background(picture: Image.Image) -> tuple[int, int, int]:
    """The colour a picture's board stands on: its bottom left pixel's (RGB)."""
    red, green, blue = picture.getpixel((0, picture.height - 1))  # type: ignore[misc]
    return int(red), int(green), int(blue)
