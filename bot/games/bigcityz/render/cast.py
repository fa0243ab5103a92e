"""Who is who on a Big Cityz picture, and words about players."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.render import kit
from bot.render.kit import INK, RGB, Canvas

# -- who is who --------------------------------------------------------------------------


class Cast:
    """Each player's style and a drawable name, in seat order."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.index = {p: i for i, p in enumerate(self.players)}

    def style(self, player: str) -> kit.PlayerStyle:
        return kit.player_style(self.index.get(player, 0))

    def fallback(self, player: str) -> str:
        return f"Player {self.index.get(player, 0) + 1}"

    def chip(self, player: str) -> tuple[str, Any]:
        return ("chip", (player, self.style(player), self.fallback(player)))


def inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
           max_x: int, *, fill: RGB = INK) -> float:
    """A sentence of text and player chips on one line; returns the end x.

    ``parts`` are ("text", str), ("bold", str) or ("chip", (name, style, fallback)).
    Words show whole where they can; chips share the room that is left.
    """
    fixed = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = [v for k, v in parts if k == "chip"]
    room = int(max_x - x - fixed - 8 * len(chips))
    widths = iter(kit.share_width([kit.chip_width(n, size, True, f) for n, _s, f in chips],
                                  room, least=size * 3))
    for kind, value in parts:
        if kind == "chip":
            name, style, fallback = value
            box = c.chip((x + 2, y), name, style, size, anchor="lm", max_width=next(widths),
                         fallback=fallback)
            x = box[2] + 6
        else:
            box = c.text((x, y), value, size, bold=kind == "bold", anchor="lm", fill=fill,
                         max_width=max(size, int(max_x - x)))
            x = box[2]
    return x


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
    parts: list[tuple[str, Any]] = [("bold", "Game over: ")]
    for i, w in enumerate(winners):
        if i:
            parts.append(("bold", "& " if i == len(winners) - 1 else ", "))
        parts.append(cast.chip(w))
    parts.append(("bold", "wins" if len(winners) == 1 else "share the win"))
    return parts


def _city_name(ref: Any) -> str | None:
    """A city reference in a view ({"id", "name"}) or a bare name, as its name."""
    if ref is None:
        return None
    if isinstance(ref, dict):
        name = ref.get("name") or ref.get("id")
        return None if name is None else str(name)
    return str(ref)
