"""How a side's lines are named, and what the rules count as seen along a line."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Words

from ..skyline import COLUMNS, LINES, SIDES

_ = Words("bot.games.cityscape")


def _line_names(side: str) -> list[str]:
    """How a side's lines are called on the board: the column letter or the row digit."""
    names = []
    for lots in LINES[side]:
        first, last = lots[0], lots[-1]
        names.append(first[0] if first[0] == last[0] else first[1])
    return names


def _lines_caption(side: str) -> str:
    names = _line_names(side)
    if names[0] in COLUMNS:
        return _("columns {names}", names=" ".join(names))
    return _("rows {names}", names=" ".join(names))


def _side_order(sides: dict[str, str]) -> list[str]:
    return [s for s in SIDES if s in sides]


def _visible(heights: Sequence[int]) -> list[bool]:
    """The rulebook's sight for codes 1-4: taller than every building in front."""
    tallest, seen = 0, []
    for h in heights:
        seen.append(h > tallest)
        tallest = max(tallest, h)
    return seen


def _raised_sight(heights: Sequence[int]) -> list[bool]:
    """Code 5 sight ("raise your point of view slightly"): no taller building in front."""
    tallest, seen = 0, []
    for h in heights:
        seen.append(h > 0 and h >= tallest)
        tallest = max(tallest, h)
    return seen


def _equal_seen(heights: Sequence[int]) -> list[bool]:
    """The buildings code 5 pays for: seen from a raised view, sharing their height."""
    seen = _raised_sight(heights)
    counts: dict[int, int] = {}
    for h, s in zip(heights, seen, strict=True):
        if s:
            counts[h] = counts.get(h, 0) + 1
    return [s and counts[h] >= 2 for h, s in zip(heights, seen, strict=True)]
