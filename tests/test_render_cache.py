"""Renderer caches bounded by bytes: they stay in budget and never change a picture."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from bot.core.engine import JSON
from bot.games import GAMES, renderer
from bot.render import cache
from bot.render.cache import ByteLRU, byte_cache, image_bytes


def _game_views(game: str, seed: int, players: int) -> Iterator[tuple[JSON, list[JSON]]]:
    engine, computer = GAMES[game].engine, GAMES[game].computer
    names = ["ann", "Bob 田中", "cy 🎲", "dee", "eve"][:players]
    state = engine.new(names, {}, seed)
    yield engine.view(state, None), []
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        state, events = engine.apply(state, player, computer.normal(state, player))
        yield engine.view(state, None), events


def _all_caches() -> list[ByteLRU[Any, Any]]:
    for game in GAMES:
        renderer(game)  # every renderer's caches register when it is imported
    return cache.caches()


def _held(c: ByteLRU[Any, Any]) -> int:
    return sum(size for _value, size in c._items.values())


def test_an_lru_keeps_the_recently_used_within_its_bytes() -> None:
    lru: ByteLRU[str, Image.Image] = ByteLRU("test.lru", 3 * image_bytes(
        Image.new("RGB", (100, 100))) + 1000, scaled=False)
    tiles = {name: Image.new("RGB", (100, 100)) for name in "abcd"}
    for name in "abc":
        lru.put(name, tiles[name])
    assert lru.get("a") is tiles["a"]  # "a" is now the most recent; "b" the oldest
    lru.put("d", tiles["d"])
    assert "b" not in lru and all(n in lru for n in "acd")
    assert lru.bytes == _held(lru) <= lru.max_bytes
    big = Image.new("RGB", (400, 400))
    assert lru.put("big", big) is big  # handed back, but bigger than the whole budget
    assert "big" not in lru and len(lru) == 3
    lru.discard("a")
    assert "a" not in lru and lru.bytes == _held(lru)
    lru.clear()
    assert len(lru) == 0 and lru.bytes == 0


def test_images_are_measured_as_pillow_stores_them() -> None:
    assert image_bytes(Image.new("RGB", (300, 200))) >= 300 * 200 * 4
    assert image_bytes(Image.new("L", (300, 200))) < 300 * 200 * 2
    assert cache.sizeof((Image.new("L", (100, 100)), 3, 4)) > 100 * 100


def test_a_cached_function_is_called_once_per_arguments() -> None:
    calls: list[tuple[int, int]] = []

    @byte_cache(10_000, name="test.cached")
    def area(w: int, h: int) -> int:
        calls.append((w, h))
        return w * h

    assert area(3, 4) == area(3, 4) == 12
    assert area(3, h=4) == 12 and area(2, 2) == 4
    assert calls == [(3, 4), (3, 4), (2, 2)]  # keyword arguments are another key
    assert area.cache_info().hits == 1
    area.cache_clear()
    area(3, 4)
    assert len(calls) == 4


@pytest.mark.parametrize(("game", "players"), [("bigcity", 4), ("bigcityz", 5),
                                                ("cities", 3), ("cityscape", 4)])
def test_no_cache_exceeds_its_budget_while_a_whole_game_is_drawn(game: str,
                                                                 players: int) -> None:
    """Every cache stays within its budget, and every cache the game asks keeps what it
    draws: one whose piece alone is over its budget would keep nothing and redraw it every
    time (Big City's pieces panel, 2 MB in a 1.5 MB budget, did)."""
    caches = _all_caches()
    misses = {c.name: c.misses for c in caches}
    draw = renderer(game)
    pictures = 0
    for view, events in _game_views(game, seed=21, players=players):
        draw.render_table(view)
        if events:
            draw.render_extras(view, events)
        pictures += 1
        for c in caches:
            assert c.bytes == _held(c), c.name
            assert c.bytes <= c.max_bytes, c.name
            assert c.peak_bytes <= c.max_bytes, c.name
    assert pictures > 10
    asked = [c for c in caches if c.misses > misses[c.name] and c.max_bytes > 0]
    assert len(asked) > 5
    # A packed cache's two tiers hold one entry between them (its recent tier is listed too).
    assert [c.name for c in asked if len(c) + len(getattr(c, "hot", ())) == 0] == []
    held = sum(c.bytes for c in caches)
    assert 0 < held <= sum(c.max_bytes for c in caches)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pictures_do_not_depend_on_what_the_caches_kept(game: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawn with every cache at its budget, then with caches that keep nothing: the same
    bytes, so evicting an entry can never change a picture."""
    draw = renderer(game)
    views = [v for i, (v, _e) in enumerate(_game_views(game, seed=8, players=3)) if i % 9 == 0]
    warm = [draw.render_table(v) for v in views]
    # Fonts, character maps and text measures are plain data (and re-reading a character
    # map per string would take minutes); every drawn piece is kept from here on.
    data = ("fonts.font", "fonts.coverage", "fonts.clean_text", "kit.text_width",
            "kit.metrics", "kit.fit_text")
    caches = [c for c in _all_caches() if not c.name.endswith(data)]
    assert len(caches) > 20
    for c in caches:
        c.clear()
        monkeypatch.setattr(c, "max_bytes", 0)
    cold = [draw.render_table(v) for v in views]
    assert all(len(c) == 0 for c in caches)
    assert cold == warm


def test_layers_pushed_out_of_the_recent_tier_come_back_pixel_for_pixel() -> None:
    """A match's layer is kept as drawn while recent, then deflated: either way what comes
    back is exactly what was drawn, and a caller drawing on it spoils nothing kept."""
    from PIL import ImageDraw

    def layer(seed: int, mode: str = "RGB") -> Image.Image:
        image = Image.new("RGB", (120, 90), (243, 240, 232))
        draw = ImageDraw.Draw(image)
        for k in range(6):
            draw.ellipse((seed * 7 % 50 + k * 9, k * 11, seed * 7 % 50 + k * 9 + 40,
                          k * 11 + 30), fill=(30 * k, 200 - seed, 90), outline=(0, 0, 0))
        draw.text((5, 70), f"lot {seed}", fill=(20, 22, 26))
        return image if mode == "RGB" else image.quantize(64)

    one = image_bytes(layer(0))
    lru: cache.PackedLRU[str] = cache.PackedLRU("test.packed", 10 * one,
                                                hot_bytes=2 * one + 500)
    drawn = {name: layer(i, "P" if name == "p" else "RGB") for i, name in enumerate("abcp")}
    for name, image in drawn.items():
        lru.put_image(name, image.copy())
    assert "a" not in lru.hot and "a" in lru, "the oldest went to the compressed tier"
    assert lru.bytes < one, "compressed: a fraction of the pixels' bytes"
    for name, image in drawn.items():
        back = lru.get_image(name)
        assert back is not None and back.mode == image.mode and back.size == image.size
        assert back.tobytes() == image.tobytes() and back.getpalette() == image.getpalette()
        ImageDraw.Draw(back).rectangle((0, 0, 50, 50), fill=0)  # the caller draws on it
        again = lru.peek_image(name)
        assert again is not None and again.tobytes() == image.tobytes()
    lru.discard("p")
    assert lru.get_image("p") is None and "p" not in lru.hot


def test_packed_layers_hold_only_their_compressed_bytes() -> None:
    """A worker keeps ~100 layers packed; each must cost its compressed size, not the
    3-4 MB buffer the compressor sized for the worst case (which zstandard's bytes keep
    unless copied: 20 Big City map layers held 72 MB instead of a few KB)."""
    import tracemalloc

    layer = Image.new("RGB", (1200, 1000), (243, 240, 232))  # 3.6 MB of pixels
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [cache.pack(layer) for _ in range(20)]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert all(cache.unpack(p).tobytes() == layer.tobytes() for p in kept[:2])
    assert sum(p.nbytes for p in kept) < 100_000
    assert held < 1_000_000, f"20 packed layers hold {held / 1e6:.1f} MB"


def test_a_layer_too_big_to_keep_as_drawn_is_kept_compressed() -> None:
    """Big Cityz' card back (4.5 MB as RGB) has no recent tier: it is kept compressed only,
    so the next reveal expands it (~0.5 ms) instead of drawing it again (~5 ms); each call
    gives a new image, so drawing on one never changes the next."""
    drawn: list[int] = []

    @cache.packed_cache(cache.MB, hot_bytes=0, name="test card back")
    def back(players: int) -> Image.Image:
        drawn.append(players)
        return Image.new("RGB", (1200, 1250), (243, 240, 232))

    first = back(4)
    first.paste((0, 0, 0), (0, 0, 50, 50))
    second, third = back(4), back(4)
    assert drawn == [4], "drawn once, then expanded"
    assert second is not third and second.getpixel((10, 10)) == (243, 240, 232)
    assert second.tobytes() == third.tobytes()
    info = back.cache_info()
    assert info.entries == 1 and info.bytes < 100_000, "its compressed bytes only"
