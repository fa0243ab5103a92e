"""Screens: what a private reply says that carries no buttons — a player's own goals, scored
as the board stands. The pickers, whose ids their buttons and menus carry, are built beside
those items in ``components``."""

from __future__ import annotations

from bot.core.records import Match
from bot.games.cityscape.skyline import CODE_GOALS, LINES, SIDE_NAMES, line_points, visible_count
from bot.games.cityscape.views import seen_by

from .words import line_name


def my_goals_text(match: Match, player: str) -> str:
    """A player's own goals with how each line scores on the board as it stands."""
    assert match.state is not None
    view = seen_by(match.state, player)
    mine = view.get("my_goals", {})
    if not mine:
        return "You have no goals set right now."
    heights = view["heights"]
    tallest = max(heights.values())
    out = [f"**Your secret goals** (round {view['round']}), scored as the board "
           "stands now:"]
    for side, codes in mine.items():
        out.append(f"__{SIDE_NAMES[side].title()} side ({side})__")
        for index, code in enumerate(codes):
            line = [heights[lot] for lot in LINES[side][index]]
            points = line_points(code, line, tallest)
            out.append(f"Line {index + 1} ({line_name(side, index)}): code {code}, "
                       f"{CODE_GOALS[code]} — you see {visible_count(line)} → {points} pts")
    return "\n".join(out)
