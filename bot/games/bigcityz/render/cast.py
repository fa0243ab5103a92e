"""Words about players on a Big Cityz picture: sentences of names and chips, the winners,
city names. Who is who (each seat's colour and marker) is ``bot.render.cast``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.render.cast import Cast, draw_inline, game_over_parts
from bot.render.kit import INK, RGB, Canvas


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
        return [("bold", f"Game over: {len(winners)} players share the win")]
    return game_over_parts(winners, cast)


def _city_name(ref: Any) -> str | None:
    """A city reference in a view ({"id", "name"}) or a bare name, as its name."""
    if ref is None:
        return None
    if isinstance(ref, dict):
        name = ref.get("name") or ref.get("id")
        return None if name is None else str(name)
    return str(ref)
