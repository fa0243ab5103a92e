"""Words about players on a Big Cityz picture: sentences of names and chips, the winners,
city names. Who is who (each seat's colour and marker) is ``bot.render.cast``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words
from bot.games.bigcityz import names
from bot.render.cast import Cast, draw_inline, game_over_parts
from bot.render.kit import INK, RGB, Canvas

_ = Words("bot.games.bigcityz")
_n = _.plural


def inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
           max_x: int, *, fill: RGB = INK) -> float:
    """A sentence of text and player chips on one line, a chip 2 px after the words before it
    and 6 px before the next; returns the end x."""
    return draw_inline(c, x, y, parts, size, max_x, fill=fill, inset=2, gap=6)


def _people(cast: Cast, players: Sequence[str], joiner: str = " ") -> list[tuple[str, Any]]:
    parts: list[tuple[str, Any]] = []
    for i, p in enumerate(players):
        if i and joiner.strip():
            parts.append(("text", joiner))
        parts.append(cast.chip(p))
    return parts


def _winners_parts(winners: Sequence[str], cast: Cast) -> list[tuple[str, Any]]:
    if len(winners) > 3:  # too many names for one line: the scores below show who
        return [("bold", _n("Game over: {n} player shares the win",
                            "Game over: {n} players share the win", len(winners)))]
    return game_over_parts(winners, cast)


def _city_name(ref: Any) -> str | None:
    """A city reference in a view ({"id", "name"}) or a bare name, as its name in the
    reader's language."""
    if ref is None:
        return None
    if isinstance(ref, dict):
        if (ref.get("name") or ref.get("id")) is None:
            return None
        return names.city(ref)
    return names.city(str(ref))
