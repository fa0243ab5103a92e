"""The table picture: header, info line and scores, drawn on every move."""

from __future__ import annotations

from typing import Any

from PIL import Image

from bot.core.i18n import Words, current
from bot.render import kit
from bot.render.cast import Cast
from bot.render.kit import HIGHLIGHT, INK, MUTED, PANEL, PANEL_ALT, PAPER, RULE, Canvas

from .board import _board_key, _board_tile
from .cast import _city_name, _people, _winners_parts, inline
from .centre import _centre_key, _centre_tile, _leaders, _placement_label
from .constants import MARGIN, PALETTE, SMALL, TEXT, WIDTH, WINNING_SCORE, View
from .layout import (
    BOARD_XY,
    BOTTOM_Y,
    CENTRE,
    HEADER_H,
    INFO_Y,
    RISK_AREAS,
    SCORE_BAR_LEAST,
    SCORE_ROW,
    SCORE_Y,
    _bottom_height,
    _quantized,
    _score_rows,
    _table_height,
)
from .risk import _risk_keys, _risk_tile
from .statements import short_name
from .text import signed

_ = Words("bot.games.bigcityz")
_n = _.plural

# -- header, info line and scores (drawn on every move) ---------------------------------


def _header(c: Canvas, view: View, cast: Cast) -> None:
    phase = view.get("phase")
    y, big, max_x = 38, 32, WIDTH - MARGIN
    city = _city_name(view.get("city")) or ""
    if phase == "over":
        inline(c, MARGIN, y, _winners_parts(list(view.get("winners") or _leaders(view)), cast),
               big, max_x)
    elif phase == "veto":
        placement = view.get("placement") or {}
        placer = str(placement.get("player") or view.get("turn") or "")
        if placement.get("kind") == "no_free_square":
            where = _("beside the board: no free square")
        else:
            where = _("on {place}", place=_placement_label(placement))
        inline(c, MARGIN, y, [cast.chip(placer), ("bold", _("put {city} ", city=city)),
                              ("text", where)],
               big if len(city) < 14 else TEXT, max_x)
    else:
        turn = view.get("turn")
        replaced = view.get("replaced_slot")
        tail = (_("must place {city} on new board {slot}", city=city, slot=replaced)
                if replaced else _("to place {city}", city=city))
        parts: list[tuple[str, Any]] = [cast.chip(turn)] if turn else []
        inline(c, MARGIN, y, [*parts, ("bold", tail)], big, max_x)
    _subline(c, view, cast, 88)


def _subline(c: Canvas, view: View, cast: Cast, y: int) -> None:
    """Under the headline: the objection window while it is open, else the last reveal."""
    window = view.get("veto_window")
    max_x = WIDTH - MARGIN
    if view.get("phase") == "veto" and window:
        waiting = list(window.get("waiting") or [])
        objectors = list(window.get("objectors") or [])
        declined = list(window.get("declined") or [])
        parts: list[tuple[str, Any]] = []
        if waiting:
            parts += [("bold", _("May object: ")), *_people(cast, waiting)]
        if objectors:
            parts += [("bold", "  " + _("Objected: ") if parts else _("Objected: ")),
                      *_people(cast, objectors)]
        if declined:
            parts += [("text", "  " + _("no objection: ") if parts else _("No objection: ")),
                      *_people(cast, declined)]
        inline(c, MARGIN, y, parts, TEXT, max_x)
        return
    last = view.get("last_reveal")
    if not last:
        c.text((MARGIN, y), _("No city has been revealed yet."), SMALL + 4, fill=MUTED,
               anchor="lm", secondary=True)
        return
    city = _city_name(last.get("city")) or "?"
    placer = str(last.get("player", ""))
    right = bool(last.get("right"))
    gain = int((last.get("points") or {}).get(placer, 0))
    verdict = (_("✓ right {points}", points=signed(gain)) if right
               else _("✗ wrong {points}", points=signed(gain)))
    placement = last.get("placement") or {}
    if placement.get("kind") == "no_free_square":
        # The city was not put anywhere: the player made a claim about it.
        parts = [("text", _("Last: ")), cast.chip(placer),
                 ("text", _("said there's no free square for ")), ("bold", city),
                 ("text", ": "), ("bold", verdict)]
    else:
        parts = [("text", _("Last: ")), cast.chip(placer), ("bold", _("put {city} ", city=city)),
                 ("text", _("on {place}: ", place=_placement_label(placement, board=False))),
                 ("bold", verdict)]
    objectors = list(last.get("objectors") or [])
    if objectors:
        parts.append(("text", " · " + _n("{n} objected", "{n} objected", len(objectors))))
    inline(c, MARGIN, y, parts, TEXT, max_x)


def _info(c: Canvas, view: View, cast: Cast, y: int) -> None:
    """One quiet line: round, piles, and what lies off the board."""
    bits = [_("Round {round}", round=int(view.get("round", 1)))]
    piles = view.get("piles") or {}
    if "cities" in piles:
        # TRANSLATORS: English says "cities" for one too; give your language's forms
        bits.append(_n("{n} cities in the pile", "{n} cities in the pile",
                       int(piles["cities"])))
    if "statements" in piles:
        discard = [short_name(s) for s in piles.get("statement_discard") or []]
        out = ""
        if len(discard) > 2:
            out = _(", {n} discarded", n=len(discard))
        elif len(discard) == 2:
            out = _(", discarded: {first} and {second}", first=discard[0], second=discard[1])
        elif discard:
            out = _(", discarded: {board}", board=discard[0])
        # TRANSLATORS: English says "boards" for one too; give your language's forms
        bits.append(_n("{n} boards in the pile", "{n} boards in the pile",
                       int(piles["statements"])) + out)
    beside = [n for n in (_city_name(r) for r in view.get("beside_board") or []) if n]
    if beside:
        bits.append(_("beside the board: {cities}", cities=", ".join(beside)))
    c.text((MARGIN, y), " · ".join(bits), SMALL + 2, fill=MUTED, anchor="lm",
           max_width=WIDTH - 2 * MARGIN, secondary=True)


def _veto_tokens(c: Canvas, x: float, y: float, left: int, style: kit.PlayerStyle) -> None:
    """Two veto markers leftwards from ``x``: the player's colour while unspent, a grey
    disc with a ✗ once spent."""
    for i in range(2):
        cx = x - 16 - i * 36
        if i < left:
            c.swatch((cx, y), style, 30)
        else:
            c.draw.ellipse((cx - 14, y - 14, cx + 14, y + 14), fill=PANEL_ALT, outline=MUTED,
                           width=2)
            c.text((cx, y + 1), "✗", SMALL, bold=True, fill=MUTED, anchor="mm",
                   secondary=True)


def _scores(c: Canvas, view: View, cast: Cast, top: int) -> None:
    scores = view.get("scores") or {}
    vetoes = view.get("vetoes_left") or {}
    over = view.get("phase") == "over"
    turn = None if over else view.get("turn")
    winners = set(view.get("winners") or _leaders(view)) if over else set()
    n = len(cast.players)
    rows = _score_rows(n)
    c.panel((MARGIN, top, WIDTH - MARGIN - 1, top + 52 + rows * SCORE_ROW + 8), PANEL,
            radius=16)
    vetoes_word = _("vetoes left")
    vetoes_w = kit.text_width(vetoes_word, SMALL + 2, False)
    title = c.text((MARGIN + 16, top + 28), _("Scores"), TEXT, bold=True, anchor="lm")
    if view.get("end_triggered") and not over:
        players = cast.players
        first = view.get("first_player") or (players[0] if players else "")
        last = players[(players.index(first) - 1) % len(players)] if first in players else ""
        box = c.label((title[2] + 14, top + 28),
                      _("{points} reached: last round", points=WINNING_SCORE),
                      SMALL + 2, fg=INK, bg=HIGHLIGHT, anchor="lm", outline=INK,
                      secondary=True)
        c.text((box[2] + 10, top + 28),
               _("ends after {player}'s turn",
                 player=kit.prepare(last, 22, False, 200, cast.fallback(last))),
               SMALL + 2, fill=MUTED, anchor="lm", secondary=True,
               max_width=WIDTH - MARGIN - 16 - box[2] - 10 - vetoes_w - 16)
    else:
        c.text((title[2] + 14, top + 28), _("first to {points} ends the game",
                                            points=WINNING_SCORE),
               SMALL + 2, fill=MUTED, anchor="lm", secondary=True,
               max_width=WIDTH - MARGIN - 16 - title[2] - 14 - vetoes_w - 16)
    c.text((WIDTH - MARGIN - 16, top + 28), vetoes_word, SMALL + 2, fill=MUTED, anchor="rm",
           secondary=True)
    columns = 1 if n <= 1 else 2
    col_w = (WIDTH - 2 * MARGIN - 32 - (columns - 1) * 24) // columns
    # One name column for all rows, so the scores line up: as wide as the longest name
    # needs (a star more for winners), taken from the score bar down to its least.
    widest = max((kit.chip_width(p, TEXT, True, cast.fallback(p)) + (34 if p in winners else 0)
                  for p in cast.players), default=0)
    chip_w = max(170, min(widest, col_w - SCORE_BAR_LEAST - 62 - 12 - 90))
    for i, p in enumerate(cast.players):
        col, row = (i // rows, i % rows) if columns == 2 else (0, i)
        x0 = MARGIN + 16 + col * (col_w + 24)
        cy = top + 52 + row * SCORE_ROW + SCORE_ROW / 2
        x1 = x0 + col_w
        style = cast.style(p)
        if p == turn or p in winners:
            c.panel((x0 - 8, round(cy - 25), x1 + 8, round(cy + 25)), HIGHLIGHT, radius=25,
                    outline=INK, width=2)
        score = int(scores.get(p, 0))
        star = 34 if p in winners else 0
        box = c.chip((x0, cy), p, style, TEXT, anchor="lm", max_width=chip_w - star,
                     fallback=cast.fallback(p))
        if star:
            c.text((box[2] + 4, cy), "★", TEXT, bold=True, anchor="lm")
        sx = x0 + chip_w + 62
        c.text((sx, cy), str(score), 30, bold=True, anchor="rm")
        bar0, bar1 = sx + 12, x1 - 90
        c.panel((bar0, round(cy - 9), bar1, round(cy + 9)), PANEL_ALT, radius=9,
                outline=RULE, width=1)
        if score > 0:
            filled = bar0 + (bar1 - bar0) * min(score, WINNING_SCORE) / WINNING_SCORE
            c.panel((bar0, round(cy - 9), max(bar0 + 18, round(filled)), round(cy + 9)),
                    style.colour, radius=9)
        _veto_tokens(c, x1, cy, int(vetoes.get(p, 0)), style)


def _frame(players: int) -> Image.Image:
    """The paletted table with nothing on it (every part is pasted over it): plain paper,
    made in the palette directly (a new one each call, ~0.2 ms; quantizing a blank RGB
    canvas cost ~3 ms, and caching it kept only two player counts)."""
    image = Image.new("P", (WIDTH, _table_height(players)), PALETTE.colours.index(PAPER))
    image.putpalette(PALETTE.image.getpalette() or [])
    return image


def render_table(view: View) -> bytes:
    """The table between moves, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    image = _frame(len(cast.players))
    placed = view.get("placement") if view.get("phase") == "veto" else None
    replaced = view.get("replaced_slot")
    for board in view.get("slots") or []:
        key = _board_key(board, placed, replaced)
        image.paste(_board_tile(*key), BOARD_XY.get(key[0], BOARD_XY[1]))
    for risk, rkey in _risk_keys(view, placed).items():
        image.paste(_risk_tile(risk, rkey, current()), RISK_AREAS[risk][:2])
    image.paste(_centre_tile(*_centre_key(view, cast)), CENTRE[:2])
    head = Canvas.new(WIDTH, HEADER_H, PAPER)
    _header(head, view, cast)
    image.paste(_quantized(head), (0, 0))
    bottom = Canvas.new(WIDTH, _bottom_height(len(cast.players)), PAPER)
    _info(bottom, view, cast, INFO_Y)
    _scores(bottom, view, cast, SCORE_Y)
    image.paste(_quantized(bottom), (0, BOTTOM_Y))
    return kit.encode_png(image)
