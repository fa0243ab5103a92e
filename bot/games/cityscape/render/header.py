"""The table's header: whose turn it is, the round, and the scores; and the
sentences of text and player chips that the header and the scoring picture share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.render import kit
from bot.render.cast import Cast, draw_inline, game_over_parts
from bot.render.kit import MUTED, Canvas

from ..skyline import SIDES
from .constants import MARGIN, SMALL, TEXT, WIDTH, View


def _inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
            max_x: int) -> float:
    """A sentence of text and player chips on one line, 10 px after each chip; the words
    always show whole. Returns the end x."""
    return draw_inline(c, x, y, parts, size, max_x, fit_words=False)


def _winners_parts(view: View, cast: Cast) -> list[tuple[str, Any]]:
    return game_over_parts(list(view.get("winners") or []), cast)


def _header_status(c: Canvas, view: View, cast: Cast) -> None:
    phase = view.get("phase")
    y, big, max_x = 46, 34, WIDTH - MARGIN
    if phase == "over":
        _inline(c, MARGIN, y, _winners_parts(view, cast), big, max_x)
    elif phase == "goals":
        waiting = list(view.get("to_act") or [])
        if waiting:
            parts: list[tuple[str, Any]] = [("bold", "Goals: waiting for ")]
            parts += [cast.chip(p) for p in waiting]
            # Smaller when three or four names must share the line.
            _inline(c, MARGIN, y, parts, big if len(waiting) <= 2 else TEXT, max_x)
        else:
            c.text((MARGIN, y), "Setting goals", big, bold=True, anchor="lm")
    else:
        turn = view.get("turn") or next(iter(view.get("to_act") or []), None)
        if turn is None:
            c.text((MARGIN, y), "Building", big, bold=True, anchor="lm")
        else:
            _inline(c, MARGIN, y, [cast.chip(turn), ("bold", "to build")], big, max_x)


def _subline(view: View, cast: Cast) -> str:
    bits = [f"Round {view.get('round', 1)} of {view.get('rounds', 1)}"]
    placed = int(view.get("placed", 0))
    phase = view.get("phase")
    if phase == "building":
        bits.append(f"{placed} of 25 blocks built")
    elif phase == "goals":
        bits.append("everyone picks secret goals")
    elif phase == "over":
        bits.append("final city")
    starter = view.get("starting_player")
    if starter and phase != "over":
        bits.append(f"{cast.name(starter, TEXT, False, 300)} builds first")
    return " · ".join(bits)


def _scores_row(c: Canvas, view: View, cast: Cast, y: int) -> None:
    scores = view.get("scores") or {}
    sides = view.get("sides") or {}
    x = c.text((MARGIN, y), "Scores", SMALL + 4, bold=True, fill=MUTED, anchor="lm",
               secondary=True)[2] + 14
    gap = 24
    tails, wanted = [], []
    for p in cast.players:
        pts = str(int(scores.get(p, 0)))
        # Which edges are whose, spelled out where someone holds two (two-player games).
        held = "+".join(s for s in SIDES if sides.get(s) == p)
        held = f"sides {held}" if "+" in held else ""
        tail_w = kit.text_width(pts, TEXT, True) + (kit.text_width(held, SMALL + 2) + 8
                                                     if held else 0)
        tails.append((pts, held, tail_w + 8))
        wanted.append(kit.chip_width(p, TEXT, True, cast.fallback(p)))
    room = WIDTH - MARGIN - x - sum(t[2] for t in tails) - gap * (len(tails) - 1)
    for p, (pts, held, _w), chip_w in zip(cast.players, tails,
                                          kit.share_width(wanted, room, least=72), strict=True):
        box = c.chip((x, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_w,
                     fallback=cast.fallback(p))
        x = c.text((box[2] + 8, y), pts, TEXT, bold=True, anchor="lm")[2]
        if held:
            x = c.text((x + 8, y), held, SMALL + 2, fill=MUTED, anchor="lm",
                       secondary=True)[2]
        x += gap
