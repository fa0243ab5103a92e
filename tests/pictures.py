"""What a picture says: every string the drawing kit drew for it, for tests to read."""

from __future__ import annotations

import importlib
import io
import json
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from types import ModuleType

from PIL import Image

from bot.core.engine import JSON
from bot.games import GAMES
from bot.render import kit
from tests import computer_games


def open_png(data: bytes) -> Image.Image:
    """``data`` opened as the PNG it must be."""
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


def phone_picture(data: bytes, max_bytes: int, heights: tuple[int, int]) -> Image.Image:
    """What every table-sized picture must be: a PNG, small enough to send, 1200 px wide
    and of a height between ``heights`` (phone-friendly in shape); in RGB."""
    assert len(data) <= max_bytes
    image = open_png(data)
    width, height = image.size
    assert width == 1200
    assert heights[0] <= height <= heights[1]
    return image.convert("RGB")


def colour_count(image: Image.Image, colour: kit.RGB) -> int:
    """Pixels of exactly ``colour``."""
    colours = image.convert("RGB").getcolors(1 << 16) or []
    return sum(n for n, c in colours if c == colour)


def renamed(view: JSON, names: dict[str, str]) -> JSON:
    """``view`` with every string equal to a key of ``names`` replaced by its value."""
    text = json.dumps(view)
    for old, new in names.items():
        text = text.replace(json.dumps(old), json.dumps(new))
    result: JSON = json.loads(text)
    return result


def _clear_caches(renderer: ModuleType) -> None:
    # A renderer split into a package keeps its private cached layers in its modules.
    modules = [renderer, *(importlib.import_module(f"{renderer.__name__}.{info.name}")
                           for info in pkgutil.iter_modules(getattr(renderer, "__path__", [])))]
    for module in modules:
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def drawn(renderer: ModuleType, draw: Callable[[], bytes]) -> tuple[bytes, list[kit.DrawnText]]:
    """The PNG ``draw`` returns and the text drawn for it. The renderer's cached layers are
    emptied first, so text they hold is drawn (and seen) again."""
    _clear_caches(renderer)
    with kit.recording_text() as texts:
        data = draw()
    return data, texts


def words(texts: list[kit.DrawnText]) -> str:
    """All drawn strings in one, for ``in`` checks."""
    return "\n".join(t.text for t in texts)


# -- the phone rule ----------------------------------------------------------------------


def too_small(texts: Iterable[kit.DrawnText], width: int) -> list[kit.DrawnText]:
    """Strings smaller than docs/pictures.md allows on a picture ``width`` px wide."""
    return [t for t in texts if t.size < kit.least_text(width, t.secondary)]


# -- text that does not fit -------------------------------------------------------------


def overflowing(texts: Iterable[kit.DrawnText]) -> list[str]:
    """The strings that run out of the surface they were drawn on (their ink past its
    edges) or are wider than the ``max_width`` they were given (a chip's or label's room
    for its text included). A cached layer is its own surface: text is judged on it."""
    out = []
    for t in texts:
        width, height = t.surface
        x0, y0, x1, y1 = t.ink or t.box
        outside = bool(width and height) and (x0 < 0 or y0 < 0 or x1 > width or y1 > height)
        too_long = t.max_width is not None and t.box[2] - t.box[0] > t.max_width
        if outside or too_long:
            out.append(t.text)
    return out


def _width(data: bytes) -> int:
    with Image.open(io.BytesIO(data)) as image:
        return int(image.width)


def _letter(i: int) -> str:
    return chr(ord("A") + i % 26) + ("" if i < 26 else str(i // 26))


def _previews(game: str, state: JSON) -> list[tuple[str, Callable[[], bytes]]]:
    """The preview pictures the menus of ``state`` would show, by kind of choice."""
    engine = GAMES[game].engine
    draw = importlib.import_module(f"bot.games.{game}.render")
    due = engine.to_act(state)
    if not due or game not in ("bigcity", "cities"):
        return []
    player = due[0]
    view = engine.view(state, None)
    kinds: dict[str, list[JSON]] = {}
    for legal in engine.legal(state, player):
        action = legal.action
        kind = action["type"]
        if game == "bigcity":
            if kind in ("build", "special"):
                choice: JSON = {"properties": list(action["properties"])}
            elif kind == "streetcar":
                choice = {"segments": action["segments"]}
            elif kind == "place_neighborhood":
                choice = {"neighborhood": action["neighborhood"], "at": list(action["at"]),
                          "rotation": action["rotation"]}
            else:
                continue
        elif kind == "place_tile":
            choice = {"tile_at": action["at"], "rotation": action["rotation"]}
        elif kind in ("place_feature", "place_piece"):
            choice = {"space": action["space"]}
        else:
            continue
        kinds.setdefault(kind, []).append(choice)
    out: list[tuple[str, Callable[[], bytes]]] = []
    for kind, choices in kinds.items():
        labelled = [{**c, "label": _letter(i)} for i, c in enumerate(choices[:25])]
        for some in (labelled, labelled[:1]):
            args = (view, some) if game == "bigcity" else (view, player, some)
            out.append((f"preview {kind}", partial(draw.render_preview, *args)))
    return out


def _extra(draw: ModuleType, view: JSON, events: list[JSON], name: str) -> bytes:
    """The extra picture ``name``, drawn alone: ``render_extras`` draws every extra picture
    of the events at once, and pictures of other widths must not count as this one's text.
    So the event it comes from is found first (unrecorded), then drawn on its own."""
    with kit.recording_text():
        wanted = dict(draw.render_extras(view, events))[name]
        source = next((e for e in events
                       if wanted in dict(draw.render_extras(view, [e])).values()), None)
    if source is None:
        return wanted
    _clear_caches(draw)
    png: bytes = next(p for _n, p in draw.render_extras(view, [source]) if p == wanted)
    return png


def every_picture(game: str, players: list[str] | None = None, seed: int = 7,
                  points: int = 6) -> Iterator[tuple[str, int, list[kit.DrawnText]]]:
    """Each kind of picture ``game`` draws, at ``points`` moments of a seeded computer game
    (and every extra picture of the game), as (kind, width, texts drawn)."""
    engine = GAMES[game].engine
    draw = importlib.import_module(f"bot.games.{game}.render")
    names = players or ["Ann", "Bob", "Cy"]
    played = [(step.state, step.events) for step in computer_games.played(game, names, seed)]
    moments = sorted({round(i * (len(played) - 1) / (points - 1)) for i in range(points)})

    def shot(kind: str, make: Callable[[], bytes]) -> tuple[str, int, list[kit.DrawnText]]:
        data, texts = drawn(draw, make)
        return kind, _width(data), texts

    for i, (state, events) in enumerate(played):
        view = engine.view(state, None)
        for name, _png in draw.render_extras(view, events):
            kind = name.split("-")[0] if not name.startswith("round") else "scoring"
            yield shot(kind, partial(_extra, draw, view, events, name))
        if i not in moments:
            continue
        yield shot("table", partial(draw.render_table, view))
        for kind, make in _previews(game, state):
            yield shot(kind, make)
        if game == "cities":
            for player in names:
                yield shot("neighbourhood", partial(draw.render_neighbourhood, view, player))
            yield shot("neighbourhoods", partial(draw.render_neighbourhoods, view))
        if game == "bigcityz" and view.get("last_reveal"):
            yield shot("reveal", partial(draw.render_reveal, view))
        if game == "cityscape":
            yield shot("scoring", partial(draw.render_scoring, view))
        if game in ("bigcity", "bigcityz", "cities"):
            yield shot("final", partial(draw.render_final, view))
