"""Words every game's messages share: a seat's name, a mention, a count, the winner line.

The four cogs once each had their own copies, which drifted apart ("1 points" in three
games, "1 point" in one); keeping them here gives every game the same sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.records import Match

from .game import seat_name
from .replies import plain_name


def plural(n: int, word: str) -> str:
    """``3 points``, ``1 point``: the count with its word, plural unless exactly one."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def join_words(words: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def name(match: Match, player: str) -> str:
    """A seat's name as literal text, with the picture's "Ann (2)" for a repeated name."""
    return plain_name(seat_name(match, player))


def mention(match: Match, player: str) -> str:
    """A human seat pinged (where the message allows pings); a computer seat by name."""
    seat = match.seat(player)
    if seat is None or seat.cpu:
        return name(match, player)
    return f"<@{player}>"


def winner_line(match: Match, winners: Sequence[str], scores: Mapping[str, int], *,
                tie_break: str | None = None) -> str:
    """The game's last word: who won, with how many points.

    ``tie_break`` says what decided it when a winner's total is shared by a loser (Cities
    breaks ties on achievement points); it is only said when that happened. No winners (a
    view read before the end) gives no line rather than a "Shared win" naming nobody.
    """
    if not winners:
        return ""
    score = scores.get(winners[0], 0)
    names = join_words([mention(match, w) for w in winners])
    level = any(scores.get(p) == score for p in scores if p not in winners)
    why = f", ahead on the tie-break ({tie_break})" if tie_break and level else ""
    if len(winners) == 1:
        return f"🏆 {names} wins with {plural(score, 'point')}{why}!"
    return f"🏆 Shared win: {names} with {plural(score, 'point')} each{why}!"


def final_line(match: Match, view: Mapping[str, Any]) -> str:
    """``winner_line`` for a public view's winners and scores (before the end: no line)."""
    return winner_line(match, view.get("winners") or [], view.get("scores") or {})
