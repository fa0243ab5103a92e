"""Geometry and line scoring of Cityscape: lots, sides, lines and the codes.

Public conventions (replays and tests depend on them):
- Lots are ``A1``..``D4``: the letter is the column from west to east, the digit the row
  from south to north.
- A side's four lines are listed left to right as that player sees them, each line from
  front to back: from S the columns A..D (front = row 1); from W the rows 4..1 (front =
  column A); from N the columns D..A (front = row 4); from E the rows 1..4 (front = column D).
"""

from __future__ import annotations

from collections import Counter
from typing import Final

COLUMNS: Final = "ABCD"
ROWS: Final = "1234"
LOTS: Final[tuple[str, ...]] = tuple(c + r for r in ROWS for c in COLUMNS)
SIDES: Final[tuple[str, ...]] = ("S", "W", "N", "E")
SIDE_NAMES: Final = {"S": "south", "W": "west", "N": "north", "E": "east"}

CODE_GOALS: Final = {
    1: "see exactly 1 building",
    2: "see exactly 2 buildings",
    3: "see exactly 3 buildings",
    4: "see exactly 4 buildings",
    5: "see 2+ buildings of equal height",
    6: "hold the tallest building in the city",
}


def _lines_for(side: str) -> tuple[tuple[str, ...], ...]:
    if side == "S":
        return tuple(tuple(c + r for r in "1234") for c in "ABCD")
    if side == "W":
        return tuple(tuple(c + r for c in "ABCD") for r in "4321")
    if side == "N":
        return tuple(tuple(c + r for r in "4321") for c in "DCBA")
    if side == "E":
        return tuple(tuple(c + r for c in "DCBA") for r in "1234")
    raise ValueError(f"unknown side {side!r}")


LINES: Final[dict[str, tuple[tuple[str, ...], ...]]] = {side: _lines_for(side) for side in SIDES}
"""For each side, its four lines left to right, each a tuple of lots front to back."""


def visible_count(heights: list[int]) -> int:
    """Buildings seen for codes 1-4 (heights front to back, 0 = vacant lot).

    "To be considered visible, a building must be taller than every building in front
    of it." A vacant lot is never a building, and an equal one behind is hidden.
    """
    seen, tallest = 0, 0
    for h in heights:
        if h > tallest:
            seen += 1
            tallest = h
    return seen


def equal_height_points(heights: list[int]) -> int:
    """Code 5: 10 points per visible building sharing its height with another one.

    For this code only the viewer "raises their point of view slightly": a building counts
    as seen when no *taller* building stands in front of it, so equal heights behind each
    other are both seen. Vacant lots never count.
    """
    tallest = 0
    seen: list[int] = []
    for h in heights:
        if h > 0 and h >= tallest:
            seen.append(h)
            tallest = h
    counts = Counter(seen)
    return 10 * sum(n for n in counts.values() if n >= 2)


def line_points(code: int, heights: list[int], city_tallest: int) -> int:
    """Points one line scores for its goal code (0 when the goal is missed)."""
    if code in (1, 2, 3, 4):
        return 10 * code if visible_count(heights) == code else 0
    if code == 5:
        return equal_height_points(heights)
    if code == 6:
        # "If two or more buildings in the same line of blocks are tied for the tallest
        # buildings anywhere in the city, your score for that line is limited to 25."
        return 25 if city_tallest > 0 and city_tallest in heights else 0
    raise ValueError(f"unknown code {code}")


def line_heights(heights_by_lot: dict[str, int], side: str) -> list[list[int]]:
    """Building heights of the side's four lines, left to right, front to back."""
    return [[heights_by_lot[lot] for lot in line] for line in LINES[side]]
