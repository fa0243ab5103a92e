"""The Big Cityz game board: four statement slots, their point squares and the risk fields.

Slots are numbered 1-4 around the board; neighbouring slots are 1-2, 2-3, 3-4 and 4-1, and
between each pair lie two risk fields (8 / -2): a green one ("both statements true") and a
red one ("both statements false"). There is no risk field for "one true, one false".
"""

from __future__ import annotations

import math

from bot.core.engine import JSON

from . import content

SLOTS = (1, 2, 3, 4)
RISK_FIELDS = ("1-2", "2-3", "3-4", "4-1")
COLORS = ("green", "red")

RISK_POINTS = 8  # "If you are right, you will get 8 points."
RISK_PENALTY = 2  # "If you are wrong, you will get 2 negative points."
VETO_POINTS = 3  # objectors win or lose 3
VETOES_PER_PLAYER = 2
WINNING_SCORE = 36
CARDS_PER_GAME = 100  # "Put approximately half of them into a pile"

# The point-square formula (docs/bigcityz.md): a colour whose answer is true for a share q
# of the whole deck is worth v = SCALE / q; its squares are round(v) and round(v / 2),
# kept within 1..6 and apart, so the rarer answer always pays more.
SCALE = 2.4
MIN_POINTS, MAX_POINTS = 1, 6


def _round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


def colour_values(q: float) -> tuple[int, int]:
    """The (high, low) points of the two squares of a colour whose answer has share q."""
    v = SCALE / q
    high = max(MIN_POINTS + 1, min(MAX_POINTS, _round_half_up(v)))
    low = max(MIN_POINTS, min(high - 1, _round_half_up(v / 2)))
    return high, low


def square_values(statement_id: str) -> dict[str, tuple[int, int]]:
    """Both colours' (high, low) values for a statement board, from its share in the deck."""
    p = content.share(statement_id)
    return {"green": colour_values(p), "red": colour_values(1 - p)}


def point_squares(statement_id: str) -> list[tuple[str, int]]:
    """The four point squares of a board, as (colour, points): green high, green low, red
    high, red low."""
    values = square_values(statement_id)
    return [(color, points) for color in COLORS for points in values[color]]


def risk_slots(risk: str) -> tuple[int, int]:
    a, b = risk.split("-")
    return int(a), int(b)


def adjacent_risk_fields(slot: int) -> list[str]:
    """The risk fields touching a slot (both colours lie on each of these)."""
    return [risk for risk in RISK_FIELDS if slot in risk_slots(risk)]


def square_right(color: str, true: bool) -> bool:
    """A green square is right when the statement is true, a red one when it is false."""
    return true if color == "green" else not true


def risk_right(color: str, first: bool, second: bool) -> bool:
    """Green risk field: both statements true; red: both false."""
    return (first and second) if color == "green" else (not first and not second)


def short_name(statement_id: str) -> str:
    return content.SHORT_NAMES.get(statement_id, statement_id)


def square_label(statement_id: str, color: str, points: int) -> str:
    return f"{color.capitalize()} {points} on {short_name(statement_id)}"


def risk_label(risk: str, color: str) -> str:
    a, b = risk_slots(risk)
    return f"Risk {a}–{b} {color} ({RISK_POINTS})"


# -- reading a game's board (the state's "slots" and "risk_fields") -----------------

def slot_of(state: JSON, slot: int) -> JSON:
    board: JSON = state["slots"][slot - 1]
    return board


def cards_on_board(state: JSON, slot: int) -> int:
    return sum(1 for square in slot_of(state, slot)["squares"] if square["city"] is not None)


def cards_on_adjacent_risk_fields(state: JSON, slot: int) -> int:
    return sum(
        1
        for risk in adjacent_risk_fields(slot)
        for color in COLORS
        if state["risk_fields"][risk][color] is not None
    )


def replaceable(state: JSON, slot: int) -> bool:
    """ "At least 3 city cards are already on the statement board, or 2 city cards are
    already on the statement board and at least 2 other city cards are on the adjacent
    risk fields." """
    on_board = cards_on_board(state, slot)
    return on_board >= 3 or (on_board >= 2 and cards_on_adjacent_risk_fields(state, slot) >= 2)


def replaceable_slots(state: JSON) -> list[int]:
    return [slot for slot in SLOTS if replaceable(state, slot)]


def free_targets(state: JSON) -> list[JSON]:
    """Every free point square and risk field, as the place action that would take it."""
    targets: list[JSON] = []
    for board in state["slots"]:
        for square in board["squares"]:
            if square["city"] is None:
                targets.append({"type": "place", "slot": board["slot"],
                                "color": square["color"], "points": square["points"]})
    for risk in RISK_FIELDS:
        for color in COLORS:
            if state["risk_fields"][risk][color] is None:
                targets.append({"type": "place", "risk": risk, "color": color})
    return targets


