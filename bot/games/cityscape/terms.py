"""Cityscape's terms in the reader's language: the sides of the city and the goal codes.

The engine keeps its codes (``S``, ``W``, ``N``, ``E``; goal codes 1-6) and ``skyline``'s
English words in the stored state; what a person reads of them is said here, for the
pictures and the cog alike (no discord, no Pillow, so both may import it).
"""

from __future__ import annotations

from typing import Final

from bot.core.i18n import Text, Words

_ = Words("bot.games.cityscape")
_l, _p = _.lazy, _.context

# The goal codes in a few words each, beside the die that shows them (the English is
# ``skyline.CODE_GOALS``, which the scored rounds keep).
GOALS: Final[dict[int, Text]] = {
    1: _l("see exactly 1 building"),
    2: _l("see exactly 2 buildings"),
    3: _l("see exactly 3 buildings"),
    4: _l("see exactly 4 buildings"),
    5: _l("see 2+ buildings of equal height"),
    6: _l("hold the tallest building in the city"),
}

# What each code is worth when its goal is met.
POINTS: Final[dict[int, Text]] = {
    1: _l("10 points"),
    2: _l("20 points"),
    3: _l("30 points"),
    4: _l("40 points"),
    5: _l("10 points per equal-height building seen"),
    6: _l("25 points"),
}


# The compass point a side faces is said as a word ("south") and as the letter on its band:
# the letter is the reader's (German Ost is "O"); the code in the state stays "E".


def side_word(side: str) -> str:
    """``south``: the side's compass point, lower case as in the middle of a sentence."""
    if side == "S":
        return _p("side", "south")
    if side == "W":
        return _p("side", "west")
    if side == "N":
        return _p("side", "north")
    return _p("side", "east")


def side_letter(side: str) -> str:
    """The side's letter as the reader abbreviates the compass point: S, W, N, E."""
    if side == "S":
        return _p("side letter", "S")
    if side == "W":
        return _p("side letter", "W")
    if side == "N":
        return _p("side letter", "N")
    return _p("side letter", "E")


def side_letters(sides: str) -> str:
    """``S+W``: several sides' letters joined as written in the state."""
    return "+".join(side_letter(s) for s in sides.split("+"))
