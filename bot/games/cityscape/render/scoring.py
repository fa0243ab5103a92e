"""The scoring picture: ``render_scoring`` reveals a round's goals and explains every
line's points; ``render_extras`` gives it to each scored round."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cast import Cast
from bot.render.kit import INK, MUTED, PANEL, PAPER, RULE, Box, Canvas

from ..skyline import SIDES, equal_height_points
from ..terms import side_letter, side_word
from .constants import LOT, MARGIN, PALETTE, SMALL, TEXT, WIDTH, View, shade
from .header import _inline, _winners_parts
from .sight import _equal_seen, _line_names, _raised_sight, _visible

_ = Words("bot.games.cityscape")
_n, _l = _.plural, _.lazy

# -- scoring -----------------------------------------------------------------------------

GOAL_SHORT = {  # beside the die showing the code, so a few words are enough
    # TRANSLATORS: the goal codes in at most about 10 letters each, beside the code's die.
    1: _l("see 1"),
    2: _l("see 2"),
    3: _l("see 3"),
    4: _l("see 4"),
    5: _l("equal pair"),
    6: _l("tallest"),
}

SCORE_PANEL_W = (WIDTH - 2 * MARGIN - 16) // 2
ROW_H = 52
SCORE_PANEL_H = 74 + 4 * ROW_H + 14
TOTAL_ROW_H = 54
_SUBLINE_STEP = 30  # a second line of the scoring picture's subline, where a language needs it


def render_scoring(view: View, round_number: int | None = None) -> bytes:
    """One round's revealed goals and points (the latest round when ``round_number`` is
    None), as PNG bytes. Raises ValueError for a round that has not been scored."""
    results = list(view.get("round_results") or [])
    cast = Cast(view.get("players") or [])
    if round_number is None:
        if not results:
            return _no_scores_yet(view)
        result = results[-1]
    else:
        found = [r for r in results if r.get("round") == round_number]
        if not found:
            raise ValueError(f"round {round_number} has not been scored")
        result = found[0]
    sides = [s for s in SIDES if s in (result.get("sides") or {})]
    final = view.get("phase") == "over" and result is results[-1]
    grid_rows = (len(sides) + 1) // 2
    totals_h = 68 + TOTAL_ROW_H * len(cast.players)
    odd = len(sides) % 2 == 1
    top = 140 + _subline_extra(view, result)
    height = top + grid_rows * (SCORE_PANEL_H + 16) + (0 if odd else totals_h + 16) + 8
    if odd:
        height = max(height, top + grid_rows * (SCORE_PANEL_H + 16) + 8)
    c = Canvas.new(WIDTH, height, PAPER)
    _scoring_header(c, view, cast, result, final)
    for i, side in enumerate(sides):
        x = MARGIN + (i % 2) * (SCORE_PANEL_W + 16)
        y = top + (i // 2) * (SCORE_PANEL_H + 16)
        _side_score_panel(c, side, result["sides"][side], cast, int(result.get("tallest", 0)),
                          (x, y, x + SCORE_PANEL_W, y + SCORE_PANEL_H))
    if odd:
        i = len(sides)
        x = MARGIN + (i % 2) * (SCORE_PANEL_W + 16)
        y = top + (i // 2) * (SCORE_PANEL_H + 16)
        _totals_panel(c, result, cast, final, view, (x, y, x + SCORE_PANEL_W, y + SCORE_PANEL_H))
    else:
        y = top + grid_rows * (SCORE_PANEL_H + 16)
        _totals_panel(c, result, cast, final, view, (MARGIN, y, WIDTH - MARGIN, y + totals_h))
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """Pictures that some events deserve on their own: each scored round's reveal.

    ``view`` is the view after the events, so it already holds the scored round.
    """
    return [(f"round-{event['round']}-scoring", render_scoring(view, event["round"]))
            for event in events if event.get("type") == "round_scored"]


def _no_scores_yet(view: View) -> bytes:
    c = Canvas.new(WIDTH, 160, PAPER)
    c.text((MARGIN, 56), _("No round has been scored yet"), 34, bold=True, anchor="lm",
           max_width=WIDTH - 2 * MARGIN)
    c.text((MARGIN, 110), _("Round {round} of {rounds} is in play", round=view.get("round", 1),
                            rounds=view.get("rounds", 1)),
           TEXT, fill=MUTED, anchor="lm", max_width=WIDTH - 2 * MARGIN)
    return c.png(PALETTE)


def _scoring_header(c: Canvas, view: View, cast: Cast, result: View, final: bool) -> None:
    number = result.get("round", "?")
    y = 46
    if final:
        _inline(c, MARGIN, y, _winners_parts(view, cast), 34, WIDTH - MARGIN)
    else:
        c.text((MARGIN, y), _("Round {round} scored: goals revealed", round=number), 34,
               bold=True, anchor="lm", max_width=WIDTH - 2 * MARGIN)
    for i, line in enumerate(_scoring_subline(view, result)):
        c.text((MARGIN, 98 + i * _SUBLINE_STEP), line, SMALL + 4, fill=MUTED, anchor="lm",
               secondary=True)


def _scoring_subline(view: View, result: View) -> list[str]:
    """The round, its tallest building and how to read the rows: one line, or two where a
    language's words need them (the panels then move down, ``_subline_extra``)."""
    first = _("Round {round} of {rounds} · tallest building: {tallest}",
              round=result.get("round", "?"), rounds=view.get("rounds", "?"),
              tallest=result.get("tallest", 0))
    key = _("heights front → back, shaded = seen")
    line = f"{first} · {key}"
    if kit.text_width(line, SMALL + 4) <= WIDTH - 2 * MARGIN:
        return [line]
    return [first, key]


def _subline_extra(view: View, result: View) -> int:
    """Pixels the scoring picture grows by for a subline on two lines."""
    return _SUBLINE_STEP if len(_scoring_subline(view, result)) > 1 else 0


def _side_score_panel(c: Canvas, side: str, data: View, cast: Cast, tallest: int,
                      box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    owner = str(data.get("player", ""))
    points = int(data.get("points", 0))
    pts_label = _n("{n} pt", "{n} pts", points)
    pts_w = kit.text_width(pts_label, 30, True)
    caption = _("{side} ({letter})", side=side_word(side), letter=side_letter(side))
    cap_w = kit.text_width(caption, SMALL + 2)
    chip = c.chip((x0 + 14, y0 + 32), owner, cast.style(owner), TEXT, anchor="lm",
                  max_width=x1 - x0 - 60 - pts_w - cap_w, fallback=cast.fallback(owner))
    c.text((chip[2] + 10, y0 + 32), caption, SMALL + 2, fill=MUTED, anchor="lm",
           secondary=True)
    c.text((x1 - 16, y0 + 32), pts_label, TEXT, bold=True, anchor="rm")
    names = _line_names(side)
    for i, line in enumerate(data.get("lines") or []):
        y = y0 + 68 + i * ROW_H
        if i % 2 == 0:
            c.draw.rectangle((x0 + 8, y, x1 - 8, y + ROW_H - 2), fill=PAPER)
        _score_row(c, names[i] if i < len(names) else "?", line, tallest, x0, x1, y + ROW_H / 2)


def _score_row(c: Canvas, name: str, line: View, tallest: int, x0: int, x1: int,
               cy: float) -> None:
    code = int(line.get("code", 0))
    heights = [int(h) for h in line.get("heights") or []]
    points = int(line.get("points", 0))
    x = x0 + 16
    c.text((x + 10, cy), name, TEXT, bold=True, fill=MUTED, anchor="mm")
    x += 32
    c.die((x, round(cy - 19), x + 38, round(cy + 19)), code)
    x += 46
    # The die is the goal; the words and everything after them up to the points explain it.
    c.text((x, cy), str(GOAL_SHORT.get(code, line.get("goal", ""))), SMALL + 2, anchor="lm",
           max_width=114, secondary=True)
    x += 118
    if code == 5:
        seen = _raised_sight(heights)
        key = _equal_seen(heights)
    elif code == 6:
        seen = _visible(heights)
        key = [h == tallest and h > 0 for h in heights]
    else:
        seen = _visible(heights)
        key = [False] * len(heights)
    for h, s, k in zip(heights, seen, key, strict=True):
        tile = (x, round(cy - 16), x + 30, round(cy + 16))
        if h <= 0:
            c.draw.rectangle(tile, fill=LOT, outline=RULE, width=1)
            c.text(((tile[0] + tile[2]) / 2, cy), "·", SMALL, fill=MUTED, anchor="mm",
                   secondary=True)
        elif s or k:
            fill = shade(h)
            c.draw.rectangle(tile, fill=fill, outline=INK, width=3 if k else 1)
            c.text(((tile[0] + tile[2]) / 2, cy + 1), str(h), SMALL, bold=True,
                   fill=kit.ink_on(fill), anchor="mm", secondary=True)
        else:
            c.draw.rectangle(tile, fill=PANEL, outline=RULE, width=2)
            c.text(((tile[0] + tile[2]) / 2, cy + 1), str(h), SMALL, fill=MUTED,
                   anchor="mm", secondary=True)
        x += 33
    x += 8
    ok = points > 0
    if code in (1, 2, 3, 4):
        result = _("sees {n}", n=line.get("visible", sum(_visible(heights))))
    elif code == 5:
        n = equal_height_points(heights) // 10
        result = _n("{n} equal", "{n} equal", n) if n else _("no pair")
    elif code == 6:
        result = (_("has {height}", height=tallest) if ok
                  else _("max {height}", height=max([*heights, 0])))
    else:
        result = ""
    mark = "✓" if ok else "✗"
    shown = f"+{points}" if ok else "0"
    # Up to the points (a missed line's narrow "0" leaves a longer word room), at least as
    # far as the widest points, "+40", allow.
    room = max(x1 - 84 - x, x1 - 26 - kit.text_width(shown, TEXT, ok) - x)
    c.text((x, cy), f"{mark} {result}", SMALL + 2, bold=True, fill=kit.GOOD if ok else kit.BAD,
           anchor="lm", max_width=room, secondary=True)
    c.text((x1 - 16, cy), shown, TEXT, bold=ok, fill=INK if ok else MUTED, anchor="rm")


def _totals_panel(c: Canvas, result: View, cast: Cast, final: bool, view: View,
                  box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    gained = result.get("points") or {}
    totals = result.get("totals") or {}
    winners = set(view.get("winners") or []) if final else set()
    title = _("Final scores") if final else _("Scores after round {round}",
                                              round=result.get("round", "?"))
    c.text((x0 + 16, y0 + 32), title, TEXT, bold=True, anchor="lm")
    c.text((x1 - 16, y0 + 32), _("round · total"), SMALL + 2, fill=MUTED, anchor="rm",
           secondary=True)
    order = sorted(cast.players, key=lambda p: (-int(totals.get(p, 0)), cast.index[p]))
    win_w = max(120, kit.text_width(_("★ wins"), TEXT, True) + 20)  # room kept for "★ wins"
    for i, p in enumerate(order):
        y = y0 + 86 + i * TOTAL_ROW_H
        right = x1 - 16
        total_w = 70
        c.text((right, y), str(int(totals.get(p, 0))), TEXT, bold=True, anchor="rm")
        c.text((right - total_w - 10, y), f"+{int(gained.get(p, 0))}", TEXT, fill=MUTED,
               anchor="rm")
        chip_max = right - total_w - 100 - (x0 + 16) - (win_w if p in winners else 0)
        chip = c.chip((x0 + 16, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_max,
                      fallback=cast.fallback(p))
        if p in winners:
            c.text((chip[2] + 10, y), _("★ wins"), TEXT, bold=True, anchor="lm")
