"""Small helpers shared by the Cities pictures: players, panels, wrapping, words."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cache import KB, MB, byte_cache
from bot.render.kit import PANEL, PAPER, RGB, Box, Canvas

from ..data_words import CARD, FEATURE, feature_name, said
from .constants import SHORT_ART, SHORT_KIND, Space, View

_ = Words("bot.games.cities")

# -- small helpers -------------------------------------------------------------------------


def _players(view: View) -> list[str]:
    return [str(p) for p in view.get("players") or []]


def _style(view: View, player: str | None) -> kit.PlayerStyle:
    players = _players(view)
    return kit.player_style(players.index(player) if player in players else 0)


def _fallback(view: View, player: str) -> str:
    players = _players(view)
    return _("Player {n}", n=players.index(player) + 1 if player in players else 1)


@byte_cache(3 * MB)
def _panel_image(w: int, h: int, fill: RGB, radius: int, outline: RGB | None, width: int,
                 bg: RGB) -> Image.Image:
    """A rounded panel already laid on ``bg``, drawn once per size and look."""
    image = Image.new("RGB", (w, h), bg)
    ImageDraw.Draw(image).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=fill,
                                            outline=outline, width=width if outline else 0)
    return image


def _panel(canvas: Canvas, box: Box, fill: RGB = PANEL, radius: int = 16,
           outline: RGB | None = None, width: int = 2, bg: RGB = PAPER) -> None:
    """``Canvas.panel`` (inclusive box) on a ``bg`` ground, pasted from a cache: the same
    panels come back on every move, and a plain paste costs far less than drawing."""
    x0, y0, x1, y1 = box
    canvas.image.paste(_panel_image(x1 - x0 + 1, y1 - y0 + 1, fill, radius, outline, width, bg),
                       (x0, y0))


def _chip(canvas: Canvas, view: View, xy: tuple[float, float], player: str, size: int = 24,
          anchor: str = "lt", max_width: int | None = None) -> Box:
    return canvas.chip(xy, player, _style(view, player), size, anchor=anchor,
                       max_width=max_width, fallback=_fallback(view, player))


@byte_cache(128 * KB)
def _wrap(text: str, size: int, bold: bool, width: int, lines: int) -> tuple[str, ...]:
    """``text`` broken into at most ``lines`` lines of ``width`` px (the last one cut)."""
    words = kit.prepare(text, size, bold).split()
    out: list[str] = []
    line = ""
    for word in words:
        trial = f"{line} {word}".strip()
        if kit.text_width(trial, size, bold) <= width or not line:
            line = trial
            continue
        out.append(line)
        line = word
        if len(out) == lines:
            break
    else:
        if line:
            out.append(line)
        return tuple(kit.fit_text(t, size, bold, width) for t in out)
    out[-1] = kit.fit_text(out[-1] + " " + " ".join(words[len(" ".join(out).split()):]), size,
                           bold, width)
    return tuple(out[:lines])


def _space_of(value: Any) -> Space:
    return int(value[0]), int(value[1])


def _feature_short(feature: dict[str, Any]) -> str:
    if feature.get("kind") == "Monument" and feature.get("art"):
        art = str(feature["art"])
        return str(SHORT_ART[art]) if art in SHORT_ART else said(FEATURE, art)
    kind = str(feature.get("kind", "?"))
    return str(SHORT_KIND[kind]) if kind in SHORT_KIND else said(FEATURE, kind)


def _feature_name(feature: dict[str, Any]) -> str:
    if feature.get("face_down"):
        return _("face-down")
    return feature_name(str(feature.get("kind", "?")), feature.get("art"))


def _item_words(row: str, item: dict[str, Any]) -> str:
    if item.get("face_down"):
        return _("face-down")
    if row == "cards":
        return said(CARD, str(item.get("name", "?")))
    if row == "tiles":
        return str(item.get("id", "?"))
    if row == "features":
        return _feature_name(item)
    return str(item.get("color", "?"))
