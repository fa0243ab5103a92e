"""The end: the final standings, and the extra pictures of events."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cast import Cast
from bot.render.kit import HIGHLIGHT, INK, MUTED, PANEL, PANEL_ALT, PAPER, RULE, Canvas

from .cast import _winners_parts, inline
from .centre import _leaders
from .constants import MARGIN, PALETTE, SMALL, TEXT, WIDTH, WINNING_SCORE, View
from .reveal import _draw_reveal
from .table import _veto_tokens
from .text import wrap

_ = Words("bot.games.bigcityz")

# -- the end -----------------------------------------------------------------------------


def render_final(view: View, reason: str | None = None) -> bytes:
    """The final standings, as PNG bytes."""
    cast = Cast(view.get("players") or [])
    scores = view.get("scores") or {}
    winners = list(view.get("winners") or _leaders(view))
    vetoes = view.get("vetoes_left") or {}
    turns = view.get("turns") or {}
    n = len(cast.players)
    # Room under the standings for the goal's label, kept apart from the header row's
    # "vetoes unused": side by side they read as "36 vetoes unused".
    c = Canvas.new(WIDTH, 140 + 70 + n * 64 + 44 + MARGIN, PAPER)
    inline(c, MARGIN, 44, _winners_parts(winners, cast), 34, WIDTH - MARGIN)
    played = max([int(v) for v in turns.values()] + [0])
    if reason != "cities":
        why = _("{turns} turns each · the game ended because someone reached {points} and the "
                "round was finished", turns=played, points=WINNING_SCORE)
    else:
        why = _("{turns} turns each · the game ended because the city pile could not give "
                "everyone another turn", turns=played)
    whys = wrap(why, SMALL + 4, False, WIDTH - 2 * MARGIN)
    # one line as in English, or two above the standings where a language needs them
    for i, line in enumerate(whys[:2]):
        c.text((MARGIN, 98 if len(whys) == 1 else 86 + 28 * i), line, SMALL + 4, fill=MUTED,
               anchor="lm", max_width=WIDTH - 2 * MARGIN, secondary=True)
    top = 140
    c.panel((MARGIN, top, WIDTH - MARGIN - 1, top + 60 + n * 64), PANEL, radius=16)
    c.text((MARGIN + 16, top + 30), _("Final standings"), TEXT, bold=True, anchor="lm")
    c.text((WIDTH - MARGIN - 16, top + 30), _("vetoes unused"), SMALL + 2, fill=MUTED,
           anchor="rm", secondary=True)
    bar0, bar1 = MARGIN + 630, WIDTH - MARGIN - 120
    goal_x = bar0 + (bar1 - bar0) * WINNING_SCORE / 48
    goal_y = top + 60 + n * 64 + 26
    c.text((goal_x, goal_y), "↑", 26, bold=True, fill=MUTED, anchor="mm", secondary=True)
    c.text((goal_x - 16, goal_y), _("{points} points end the game", points=WINNING_SCORE),
           SMALL + 2, bold=True,
           fill=MUTED, anchor="rm", secondary=True)
    order = sorted(cast.players, key=lambda p: (-int(scores.get(p, 0)), cast.index[p]))
    wins = _("★ wins")
    rank = 0
    last_score: int | None = None
    for i, p in enumerate(order):
        score = int(scores.get(p, 0))
        if score != last_score:
            rank, last_score = i + 1, score
        cy = top + 92 + i * 64
        if p in winners:
            c.panel((MARGIN + 8, cy - 28, WIDTH - MARGIN - 9, cy + 28), HIGHLIGHT, radius=28,
                    outline=INK, width=2)
        c.text((MARGIN + 48, cy), f"{rank}.", 30, bold=True, anchor="rm")
        style = cast.style(p)
        chip = c.chip((MARGIN + 62, cy), p, style, TEXT, anchor="lm",
                      max_width=340 if p not in winners else 410 - kit.text_width(wins, TEXT, True),
                      fallback=cast.fallback(p))
        if p in winners:
            c.text((chip[2] + 10, cy), wins, TEXT, bold=True, anchor="lm")
        c.text((MARGIN + 610, cy), str(score), 36, bold=True, anchor="rm")
        bar0, bar1 = MARGIN + 630, WIDTH - MARGIN - 120
        c.panel((bar0, cy - 11, bar1, cy + 11), PANEL_ALT, radius=11, outline=RULE, width=1)
        if score:
            fill_x = bar0 + (bar1 - bar0) * min(score, 48) / 48
            c.panel((bar0, cy - 11, max(bar0 + 22, round(fill_x)), cy + 11), style.colour,
                    radius=11)
        mark = bar0 + (bar1 - bar0) * WINNING_SCORE / 48
        c.draw.line((mark, cy - 18, mark, cy + 18), fill=INK, width=3)
        _veto_tokens(c, WIDTH - MARGIN - 16, cy, int(vetoes.get(p, 0)), style)
    return c.png(PALETTE)


def render_extras(view: View, events: Sequence[View]) -> list[tuple[str, bytes]]:
    """A reveal picture for each reveal in ``events`` and the standings at the game's end.

    ``view`` is the view after the events; each reveal is drawn from its own event, which
    carries the same card back as ``view["last_reveal"]``.
    """
    players = list(view.get("players") or [])
    reveals = [e for e in events if e.get("type") == "reveal"]
    done = sum(int(v) for v in (view.get("turns") or {}).values())
    out: list[tuple[str, bytes]] = []
    for i, event in enumerate(reveals):
        number = done - (len(reveals) - 1 - i)
        out.append((f"reveal-{number}", _draw_reveal(event, players).png(PALETTE)))
    for event in events:
        if event.get("type") == "game_over":
            out.append(("final", render_final(view, event.get("reason"))))
    return out
