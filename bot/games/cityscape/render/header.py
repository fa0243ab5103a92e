"""The table's header: whose turn it is, the round, and the scores; and the
sentences of text and player chips that the header and the scoring picture share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cast import Cast, draw_inline, floors, game_over_parts
from bot.render.kit import MUTED, Canvas

from ..skyline import SIDES
from ..terms import side_letters
from .constants import MARGIN, SMALL, TEXT, WIDTH, View

_ = Words("bot.games.cityscape")
_PLACEHOLDER = re.compile(r"(\{\w+\})")


def _inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
            max_x: int) -> float:
    """A sentence of text and player chips on one line, 10 px after each chip; the words
    always show whole. Returns the end x."""
    return draw_inline(c, x, y, parts, size, max_x, fit_words=False)


def sentence(text: str, kind: str = "text", **chips: Any) -> list[tuple[str, Any]]:
    """A sentence said with ``{name}`` left in it (``_("{player} to build", player=
    "{player}")``) as ``_inline``'s parts: each placeholder becomes the chip (or list of
    chips) given for it, so a language may put the player wherever its word order wants.
    Words after a chip lose their leading space: the chip's gap is the space."""
    parts: list[tuple[str, Any]] = []
    for piece in _PLACEHOLDER.split(text):
        key = piece[1:-1]
        if piece.startswith("{") and key in chips:
            given = chips[key]
            parts.extend(given if isinstance(given, list) else [given])
            continue
        if parts and parts[-1][0] == "chip":
            piece = piece.lstrip()
        if piece:
            parts.append((kind, piece))
    return parts


def wrapped(parts: Sequence[tuple[str, Any]], size: int, room: int) -> list[list[tuple[str, Any]]]:
    """``parts`` on as many lines as they need (one where they fit with every chip still
    showing a letter or two): a language's longer words move to the next line rather than
    run past ``room`` or squeeze a name to nothing."""
    chips = [v for k, v in parts if k == "chip"]
    words = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    # A chip squeezed to fit keeps a letter or two of the name (at most ``size * 4 + 20``
    # asked for: English sentences, which always fitted, stay on one line).
    least = sum(min(kit.chip_width(n, size, True, f), kit.chip_width(n[:2] + "…", size, True, f),
                    size * 4 + 20) for n, _s, f in chips)
    if words + least + 10 * len(chips) <= room:
        return [list(parts)]
    lines: list[list[tuple[str, Any]]] = [[]]
    used = 0.0
    for kind, value in parts:
        if kind == "chip":
            pieces = [(kind, value, min(room, kit.chip_width(value[0], size, True, value[2]) + 10))]
        else:  # each word with its space, as ``_inline`` measures the words of a line
            pieces = [(kind, w, kit.text_width(w, size, kind == "bold"))
                      for w in re.findall(r"\S+\s*", value)]
        for piece_kind, piece, width in pieces:
            if lines[-1] and used + width > room - 10:
                lines.append([])
                used = 0.0
            lines[-1].append((piece_kind, piece))
            used += width
    return lines


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
            parts = sentence(_("Goals: waiting for {players}", players="{players}"), "bold",
                             players=[cast.chip(p) for p in waiting])
            # Smaller when three or four names must share the line.
            _inline(c, MARGIN, y, parts, big if len(waiting) <= 2 else TEXT, max_x)
        else:
            c.text((MARGIN, y), _("Setting goals"), big, bold=True, anchor="lm")
    else:
        turn = view.get("turn") or next(iter(view.get("to_act") or []), None)
        if turn is None:
            c.text((MARGIN, y), _("Building"), big, bold=True, anchor="lm")
        else:
            _inline(c, MARGIN, y, sentence(_("{player} to build", player="{player}"), "bold",
                                           player=cast.chip(turn)), big, max_x)


def _subline(view: View, cast: Cast, max_width: int) -> str:
    """Round, progress and who builds first, on one line. Where a language's words do not
    fit, the phase's own words go first (the header above already says the phase), then
    the starting player's name is shortened."""
    bits = [_("Round {round} of {rounds}", round=view.get("round", 1),
              rounds=view.get("rounds", 1))]
    placed = int(view.get("placed", 0))
    phase = view.get("phase")
    if phase == "building":
        bits.append(_("{placed} of 25 blocks built", placed=placed))
    elif phase == "goals":
        bits.append(_("everyone picks secret goals"))
    elif phase == "over":
        bits.append(_("final city"))
    starter = view.get("starting_player")
    if not starter or phase == "over":
        return " · ".join(bits)

    def line(room: int) -> str:
        first = _("{player} builds first", player=cast.name(starter, TEXT, False, room))
        return " · ".join([*bits, first])

    said = line(300)
    if kit.text_width(said, TEXT) <= max_width:
        return said
    if phase == "goals":
        del bits[1]
    rest = kit.text_width(" · ".join([*bits, _("{player} builds first", player="")]), TEXT)
    return line(max(TEXT * 3, min(300, max_width - rest)))


def _scores_row(c: Canvas, view: View, cast: Cast, y: int) -> None:
    scores = view.get("scores") or {}
    sides = view.get("sides") or {}
    x = c.text((MARGIN, y), _("Scores"), SMALL + 4, bold=True, fill=MUTED, anchor="lm",
               secondary=True)[2] + 14
    gap = 24
    tails, wanted = [], []
    for p in cast.players:
        pts = str(int(scores.get(p, 0)))
        # Which edges are whose, spelled out where someone holds two (two-player games).
        held = "+".join(s for s in SIDES if sides.get(s) == p)
        held = _("sides {sides}", sides=side_letters(held)) if "+" in held else ""
        tail_w = kit.text_width(pts, TEXT, True) + (kit.text_width(held, SMALL + 2) + 8
                                                     if held else 0)
        tails.append((pts, held, tail_w + 8))
        wanted.append(kit.chip_width(p, TEXT, True, cast.fallback(p)))
    room = WIDTH - MARGIN - x - sum(t[2] for t in tails) - gap * (len(tails) - 1)
    for p, (pts, held, _w), chip_w in zip(cast.players, tails,
                                          kit.share_width(wanted, room, least=floors(
                                              cast, TEXT, room, 72)), strict=True):
        box = c.chip((x, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_w,
                     fallback=cast.fallback(p))
        x = c.text((box[2] + 8, y), pts, TEXT, bold=True, anchor="lm")[2]
        if held:
            x = c.text((x + 8, y), held, SMALL + 2, fill=MUTED, anchor="lm",
                       secondary=True)[2]
        x += gap
