"""Who is who on a picture: each seat's style and a drawable name, the same in every game.

A game's renderer builds a ``Cast`` from the players in seat order (Big City adds owners
its view's list lacks) and draws names and chips through it, so a player keeps one colour
and marker on every picture and a name no font can draw falls back to "Player N". Sentences
that mix words and chips ("Game over: A & B share the win") are drawn by ``draw_inline``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words

from . import kit
from .kit import INK, RGB, Canvas

_ = Words("bot")
_n = _.plural


class Cast:
    """Each player's style and a drawable name, in seat order."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.index = {p: i for i, p in enumerate(self.players)}

    def style(self, player: str) -> kit.PlayerStyle:
        return kit.player_style(self.index.get(player, 0))

    def fallback(self, player: str) -> str:
        # TRANSLATORS: a player whose name no font can draw, by seat number.
        return _("Player {seat:d}", seat=self.index.get(player, 0) + 1)

    def name(self, player: str, size: int, bold: bool = True, max_width: int | None = None) -> str:
        return kit.prepare(player, size, bold, max_width, self.fallback(player))

    def chip(self, player: str) -> tuple[str, Any]:
        """The player's chip as a part of a sentence drawn by a game's ``inline``."""
        return ("chip", (player, self.style(player), self.fallback(player)))


def floors(cast: Cast, size: int, room: int, least: int) -> list[int]:
    """Each player's floor in a row of name chips sharing ``room`` (``kit.share_width``):
    their name's short form ("Maximilian…") where an even share allows it, never less than
    ``least``, so a long name is not cut to "Max…" beside short ones."""
    share = max(least, room // max(1, len(cast.players)))
    return [max(least, min(share, kit.chip_width(p, size, True, cast.fallback(p), short=True)))
            for p in cast.players]


def game_over_parts(winners: Sequence[str], cast: Cast) -> list[tuple[str, Any]]:
    """The bold words and chips of "Game over: A & B share the win". A game decides before
    calling it what it shows instead for no winner, or for more than one line can name."""
    # TRANSLATORS: {winners} is drawn as the winners' name chips, joined by "&" and ",".
    sentence = _n("Game over: {winners} wins", "Game over: {winners} share the win",
                  len(winners), winners="{winners}")
    before, _split, after = sentence.partition("{winners}")
    parts: list[tuple[str, Any]] = [("bold", before)] if before else []
    for i, w in enumerate(winners):
        if i:
            # TRANSLATORS: before the last of several winners' chips: "A, B & C".
            parts.append(("bold", _("& ") if i == len(winners) - 1 else ", "))
        parts.append(cast.chip(w))
    if after.strip():
        parts.append(("bold", after.lstrip()))
    return parts


def draw_inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
                max_x: int, *, fill: RGB = INK, inset: int = 0, gap: int = 10,
                fit_words: bool = True) -> float:
    """A sentence of text and player chips on one line; returns the end x.

    ``parts`` are ("text", str), ("bold", str) or ``Cast.chip``'s ("chip", (name, style,
    fallback)). Words show whole where they can; chips share the room that is left. A chip
    stands ``inset`` px after what comes before it and ``gap`` px before what follows (each
    game keeps its own spacing); with ``fit_words``, words that still do not fit before
    ``max_x`` are cut with an ellipsis, without it they are drawn whole.
    """
    fixed = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = [v for k, v in parts if k == "chip"]
    room = int(max_x - x - fixed - (inset + gap) * len(chips))
    widths = iter(kit.share_width([kit.chip_width(n, size, True, f) for n, _s, f in chips],
                                  room, least=size * 3))
    for kind, value in parts:
        if kind == "chip":
            name, style, fallback = value
            box = c.chip((x + inset, y), name, style, size, anchor="lm", max_width=next(widths),
                         fallback=fallback)
            x = box[2] + gap
        else:
            box = c.text((x, y), value, size, bold=kind == "bold", anchor="lm", fill=fill,
                         max_width=max(size, int(max_x - x)) if fit_words else None)
            x = box[2]
    return x
