"""Screens: what a private reply says that carries no buttons — a player's own goals, scored
as the board stands. The pickers, whose ids their buttons and menus carry, are built beside
those items in ``components``."""

from __future__ import annotations

from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.cityscape.skyline import LINES, line_points, visible_count
from bot.games.cityscape.terms import GOALS, side_letter, side_word
from bot.games.cityscape.views import seen_by

from .words import line_name

_ = Words("bot.games.cityscape")
_n = _.plural


def my_goals_text(match: Match, player: str) -> str:
    """A player's own goals with how each line scores on the board as it stands."""
    assert match.state is not None
    view = seen_by(match.state, player)
    mine = view.get("my_goals", {})
    if not mine:
        return _("You have no goals set right now.")
    heights = view["heights"]
    tallest = max(heights.values())
    out = [_("**Your secret goals** (round {round}), scored as the board stands now:",
             round=view["round"])]
    for side, codes in mine.items():
        out.append(_("__{side} side ({letter})__", side=side_word(side).title(),
                     letter=side_letter(side)))
        for index, code in enumerate(codes):
            line = [heights[lot] for lot in LINES[side][index]]
            points = line_points(code, line, tallest)
            out.append(_n("Line {number} ({name}): code {code}, {goal} — you see {seen} → {n} pt",
                          "Line {number} ({name}): code {code}, {goal} — you see {seen} → {n} pts",
                          points, number=index + 1, name=line_name(side, index), code=code,
                          goal=GOALS[code], seen=visible_count(line)))
    return "\n".join(out)
