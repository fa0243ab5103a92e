"""The noughts-and-crosses computer player, beside the engine: win if it can, else block,
else the centre, a corner, an edge. Deterministic, so a game replays exactly."""

from __future__ import annotations

from bot.core.engine import JSON

from .engine import LINES, MARKS

PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)


def _completing(board: list[str], mark: str) -> int | None:
    for line in LINES:
        marks = [board[i] for i in line]
        if marks.count(mark) == 2 and marks.count("") == 1:
            return line[marks.index("")]
    return None


def choose(state: JSON, player: str) -> JSON:
    board = state["board"]
    mine = MARKS[state["players"].index(player)]
    theirs = MARKS[1 - MARKS.index(mine)]
    for mark in (mine, theirs):
        cell = _completing(board, mark)
        if cell is not None:
            return {"type": "mark", "cell": cell}
    return {"type": "mark", "cell": next(c for c in PREFERENCE if not board[c])}
