"""Caches for the renderers, bounded by the memory they hold rather than by entries.

The renderers keep drawn pieces (text masks, icons, map layers, whole table bases) so the
next picture pastes instead of drawing. Counting entries says nothing about memory: 24 map
layers of 1200x800 px are 90 MB, 4096 text masks a few MB. Every cache here has a byte
budget; the least recently used entries go when a new one would exceed it, and an entry
bigger than the whole budget is returned but not kept.

Sizes are estimates of what the entry keeps alive: Pillow stores one byte per pixel for
"1", "L" and "P" images and four for RGB, RGBA and the other multi-band modes; a font face
is counted at what loading and using one costs (measured: ~300 KB); other values at
``sys.getsizeof`` of them and their items.

Budgets (next to each cache) add up to ~83 MB (30 Nov, after issue 25's mixed runs: the
compressed tiers and text masks grew 11.5 MB, a second Big City map as drawn, never hit,
went; Big Cityz' tiles gained compressed tiers, +4.5 MB); they cost redrawing more often
than unbounded caches would. The environment variable
``CITYHALL_RENDER_CACHE_SCALE`` (default 1) multiplies every budget: 2 doubles them.

``ByteLRU`` is the cache, ``byte_cache`` the decorator (a bounded ``functools.lru_cache``:
``cache_clear()``, ``cache_info()``, ``.cache``). Every cache registers itself by name;
``caches()`` lists them and ``report()`` describes them (used by the pool's memory report
through a worker, and by the tests).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast

import zstandard
from PIL import Image, ImageFont

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")

KB = 1024
MB = 1024 * 1024
FONT_FACE_BYTES = 300 * KB
_ONE_BYTE_MODES = {"1", "L", "P"}
_ENTRY_OVERHEAD = 100  # the OrderedDict node and the key tuple around the entry

# Every budget is multiplied by this: a host with memory to spare buys back CPU (misses
# redraw map layers and table bases) without touching the renderers.
SCALE = float(os.environ.get("CITYHALL_RENDER_CACHE_SCALE", "1") or 1)

_REGISTRY: dict[str, ByteLRU[Any, Any]] = {}
_REGISTRY_LOCK = threading.Lock()


def image_bytes(image: Image.Image) -> int:
    """Pixel memory Pillow holds for ``image``."""
    mode = image.mode
    per_pixel = 1 if mode in _ONE_BYTE_MODES else 2 if mode.startswith("I;16") else 4
    extra = 768 if mode in ("P", "PA") else 0  # the palette
    return image.width * image.height * per_pixel + extra + 200


# Kinds measured as they are (no parts, no image): asked first, by exact type, because a
# miss measures its key and value, thousands of times a picture while the caches fill, and
# the general path (an ABC's isinstance, a failed getattr) cost 4 ms a cold Cities table.
_PLAIN = frozenset({str, int, float, bool, bytes, type(None)})
_CONTAINERS = frozenset({tuple, list, frozenset, set})


def sizeof(value: Any, _depth: int = 0) -> int:
    """Estimated bytes ``value`` keeps alive (see the module docstring)."""
    kind = type(value)
    if kind in _PLAIN:
        return sys.getsizeof(value)
    if kind in _CONTAINERS:
        size = sys.getsizeof(value)
        if _depth < 4:
            size += sum(sizeof(item, _depth + 1) for item in value)
        return size
    if isinstance(value, Image.Image):
        return image_bytes(value)
    if isinstance(value, ImageFont.FreeTypeFont):
        return FONT_FACE_BYTES
    image = getattr(value, "image", None)  # a kit.Canvas: its image is what counts
    if isinstance(image, Image.Image):
        return image_bytes(image) + sys.getsizeof(value)
    size = sys.getsizeof(value)
    if _depth < 4 and isinstance(value, tuple | list | frozenset | set):
        size += sum(sizeof(item, _depth + 1) for item in value)
    elif _depth < 4 and isinstance(value, dict):
        size += sum(sizeof(k, _depth + 1) + sizeof(v, _depth + 1) for k, v in value.items())
    return size


@dataclass(frozen=True)
class CacheInfo:
    name: str
    entries: int
    bytes: int
    peak_bytes: int
    max_bytes: int
    hits: int
    misses: int
    evictions: int


class ByteLRU(Generic[K, V]):
    """A least-recently-used map holding at most ``max_bytes`` (by ``measure``), times
    ``SCALE`` unless ``scaled`` is false."""

    def __init__(self, name: str, max_bytes: int,
                 measure: Callable[[Any], int] = sizeof, *, scaled: bool = True) -> None:
        if max_bytes < 0:
            raise ValueError("max_bytes must be 0 or more")
        self.name = name
        self.max_bytes = round(max_bytes * SCALE) if scaled else max_bytes
        self.measure = measure
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.peak_bytes = 0
        self.hits = self.misses = self.evictions = 0
        # Called with each (key, value) the budget pushed out (not those discarded).
        self.evicted: Callable[[K, V], None] | None = None
        with _REGISTRY_LOCK:
            _REGISTRY[name] = self

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: K) -> V | None:
        """The value for ``key`` (now the most recently used), or None."""
        # No lock: dict reads are atomic under the GIL and pictures ask for cached pieces
        # hundreds of times each. An entry evicted between the two steps is still a hit.
        entry = self._items.get(key)
        if entry is None:
            self.misses += 1
            return None
        try:  # noqa: SIM105 (contextlib.suppress costs a microsecond per hit)
            self._items.move_to_end(key)
        except KeyError:
            pass
        self.hits += 1
        return entry[0]

    def peek(self, key: K) -> V | None:
        """The value for ``key`` without counting a hit or refreshing it."""
        with self._lock:
            entry = self._items.get(key)
            return None if entry is None else entry[0]

    def entry_bytes(self, key: K, value: V) -> int:
        """What keeping ``value`` under ``key`` counts against the budget."""
        return self.measure(value) + sizeof(key) + _ENTRY_OVERHEAD

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` unless it alone is over budget; evicts the oldest to make room."""
        size = self.entry_bytes(key, value)
        pushed: list[tuple[K, V]] = []
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size > self.max_bytes:
                return value
            while self._items and self.bytes + size > self.max_bytes:
                dropped_key, (dropped_value, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped
                self.evictions += 1
                if self.evicted is not None:
                    pushed.append((dropped_key, dropped_value))
            self._items[key] = (value, size)
            self.bytes += size
            self.peak_bytes = max(self.peak_bytes, self.bytes)
        if self.evicted is not None:
            for item in pushed:
                self.evicted(*item)
        return value

    def discard(self, key: K) -> None:
        """Forget ``key`` if it is kept."""
        with self._lock:
            entry = self._items.pop(key, None)
            if entry is not None:
                self.bytes -= entry[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0

    def info(self) -> CacheInfo:
        return CacheInfo(self.name, len(self._items), self.bytes, self.peak_bytes,
                         self.max_bytes, self.hits, self.misses, self.evictions)


_KWARGS = object()  # separates positional from keyword arguments in a key


class CachedFunction(Protocol[P, R]):
    """What ``byte_cache`` returns: the function, memoised, with lru_cache's helpers."""

    cache: ByteLRU[Any, Any]
    __wrapped__: Callable[P, R]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...

    def cache_clear(self) -> None: ...

    def cache_info(self) -> CacheInfo: ...


def byte_cache(max_bytes: int, name: str | None = None,
               measure: Callable[[Any], int] = sizeof
               ) -> Callable[[Callable[P, R]], CachedFunction[P, R]]:
    """Memoise a pure function in at most ``max_bytes`` (None results are not kept)."""

    def decorate(function: Callable[P, R]) -> CachedFunction[P, R]:
        label = name or f"{function.__module__}.{function.__qualname__}"
        cache: ByteLRU[Any, Any] = ByteLRU(label, max_bytes, measure)
        items = cache._items
        put = cache.put

        # The hit path is inlined: text helpers are asked hundreds of times per picture.
        def cached(*args: Any, **kwargs: Any) -> Any:
            key: tuple[Any, ...] = (*args, _KWARGS, *sorted(kwargs.items())) if kwargs else args
            entry = items.get(key)
            if entry is None:
                cache.misses += 1
                return put(key, function(*args, **kwargs))
            try:  # noqa: SIM105 (see ByteLRU.get)
                items.move_to_end(key)
            except KeyError:
                pass
            cache.hits += 1
            return entry[0]

        wrapper: Any = functools.update_wrapper(cached, function)
        wrapper.cache = cache
        wrapper.cache_clear = cache.clear
        wrapper.cache_info = cache.info
        return cast(CachedFunction[P, R], wrapper)

    return decorate


# -- packed images -------------------------------------------------------------------------
#
# A layer drawn for one match (Big City's streets and lots, its city with the pieces on it)
# is 3-4 MB as RGB, so a budget of a few MB keeps only the last two or three matches, and
# under real traffic (dozens of matches taking turns) every move missed and redrew it
# (~20-30 ms). So such layers are kept in two tiers: the most recent as they are (a hit
# costs a copy, ~0.5 ms), and those pushed out of that budget compressed with Zstandard at
# level 1, the same pixels in 5-40 KB (~100 matches in a few MB; a hit costs ~0.2 ms to
# expand, packing ~0.4 ms, paid only for a layer that goes cold). zlib at level 1 took
# six times as long both ways for 2.5 times the bytes (docs/pictures-cost.md).

_ZSTD_LEVEL = 1
_codecs = threading.local()  # a zstd context is reusable but not shareable between threads


def _compressor() -> zstandard.ZstdCompressor:
    codec: zstandard.ZstdCompressor | None = getattr(_codecs, "compressor", None)
    if codec is None:
        codec = _codecs.compressor = zstandard.ZstdCompressor(level=_ZSTD_LEVEL)
    return codec


def _decompressor() -> zstandard.ZstdDecompressor:
    codec: zstandard.ZstdDecompressor | None = getattr(_codecs, "decompressor", None)
    if codec is None:
        codec = _codecs.decompressor = zstandard.ZstdDecompressor()
    return codec


def compress(data: bytes) -> bytes:
    """``data`` compressed fast (Zstandard, level 1), for ``decompress``."""
    # Copied: the bytes zstandard returns keep the buffer it allocated for the worst case,
    # the size of ``data`` (3-4 MB for a map layer), while saying they are ~20 KB long: a
    # hundred kept layers held 300 MB.
    return bytes(memoryview(_compressor().compress(data)))


def decompress(data: bytes) -> bytes:
    return _decompressor().decompress(data)


@dataclass(frozen=True)
class Packed:
    """An image's pixels, compressed: ``unpack`` gives back exactly the same image."""

    mode: str
    size: tuple[int, int]
    data: bytes
    palette: bytes | None = None

    @property
    def nbytes(self) -> int:
        return len(self.data) + (len(self.palette) if self.palette else 0) + 200


def pack(image: Image.Image) -> Packed:
    palette = bytes(image.getpalette() or b"") if image.mode == "P" else None
    return Packed(image.mode, image.size, compress(image.tobytes()), palette)


def unpack(packed: Packed) -> Image.Image:
    """A new image (the caller may draw on it) with the packed pixels."""
    image = Image.frombytes(packed.mode, packed.size, decompress(packed.data))
    if packed.palette is not None:
        image.putpalette(packed.palette)
    return image


def _packed_size(value: Any) -> int:
    return value.nbytes if isinstance(value, Packed) else sizeof(value)


class PackedLRU(ByteLRU[K, Packed]):
    """Images in two tiers: the recent ones as they are, in ``hot_bytes`` (the ``.hot``
    cache), and those it pushes out compressed, in ``max_bytes``. ``get_image`` and
    ``peek_image`` always give a new image the caller may draw on."""

    def __init__(self, name: str, max_bytes: int, hot_bytes: int) -> None:
        super().__init__(name, max_bytes, _packed_size)
        self.hot: ByteLRU[K, Image.Image] = ByteLRU(f"{name} (recent)", hot_bytes)
        self.hot.evicted = self._cool

    def _cool(self, key: K, image: Image.Image) -> None:
        self.put(key, pack(image))

    def get_image(self, key: K) -> Image.Image | None:
        image = self.hot.get(key)
        if image is not None:
            return image.copy()
        packed = self.get(key)
        return None if packed is None else unpack(packed)

    def peek_image(self, key: K) -> Image.Image | None:
        image = self.hot.peek(key)
        if image is not None:
            return image.copy()
        packed = self.peek(key)
        return None if packed is None else unpack(packed)

    def put_image(self, key: K, image: Image.Image) -> Image.Image:
        """Keep ``image`` (the caller must not draw on it afterwards); returns it. One too
        big for the recent tier on its own (``hot_bytes=0``: none) is kept compressed."""
        self.discard(key)
        if self.hot.entry_bytes(key, image) > self.hot.max_bytes:
            self.put(key, pack(image))
        else:
            self.hot.put(key, image)
        return image

    def discard(self, key: K) -> None:
        super().discard(key)
        if hasattr(self, "hot"):
            self.hot.discard(key)

    def clear(self) -> None:
        super().clear()
        if hasattr(self, "hot"):
            self.hot.clear()


def packed_cache(max_bytes: int, hot_bytes: int, name: str | None = None
                 ) -> Callable[[Callable[P, Image.Image]], CachedFunction[P, Image.Image]]:
    """``byte_cache`` for a function that draws an image, kept in two tiers
    (``PackedLRU``: ``hot_bytes`` as drawn, ``max_bytes`` compressed): every call returns a
    new image, which the caller may draw on without copying it."""

    def decorate(function: Callable[P, Image.Image]) -> CachedFunction[P, Image.Image]:
        label = name or f"{function.__module__}.{function.__qualname__}"
        cache: PackedLRU[Any] = PackedLRU(label, max_bytes, hot_bytes)

        def cached(*args: Any, **kwargs: Any) -> Image.Image:
            key: tuple[Any, ...] = (*args, _KWARGS, *sorted(kwargs.items())) if kwargs else args
            hit = cache.get_image(key)
            if hit is not None:
                return hit
            return cache.put_image(key, function(*args, **kwargs)).copy()

        wrapper: Any = functools.update_wrapper(cached, function)
        wrapper.cache = cache
        wrapper.cache_clear = cache.clear
        wrapper.cache_info = cache.info
        return cast(CachedFunction[P, Image.Image], wrapper)

    return decorate


def caches() -> list[ByteLRU[Any, Any]]:
    with _REGISTRY_LOCK:
        return list(_REGISTRY.values())


def report() -> str:
    """One line per cache: entries, bytes now and at most, budget, hit rate."""
    lines = []
    total = budget = 0
    for cache in sorted(caches(), key=lambda c: -c.max_bytes):
        i = cache.info()
        total += i.bytes
        budget += i.max_bytes
        asked = i.hits + i.misses
        rate = f"{100 * i.hits / asked:5.1f}%" if asked else "    -"
        lines.append(f"  {i.name:<48} {i.entries:6d} {i.bytes / MB:7.2f} {i.peak_bytes / MB:7.2f}"
                     f" / {i.max_bytes / MB:6.2f} MB  hits {rate}  evicted {i.evictions}")
    header = (f"caches: {total / MB:.1f} MB held of {budget / MB:.1f} MB budget "
              "(entries, MB now, MB peak / budget)")
    return "\n".join([header, *lines])
