"""Noughts and crosses: the rules, as a Cityhall engine (plain JSON in, plain JSON out).

Two players; the first seat plays X and moves first. A move marks one empty cell (0-8, row
by row from the top left). Three in a row, column or diagonal wins; a full board with no
line is a draw, which both players share.
"""

from __future__ import annotations

from typing import Any

from bot.core.engine import JSON, IllegalAction, LegalAction, Result, check_seats

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = ("X", "O")


def line_of(board: list[str]) -> tuple[int, int, int] | None:
    """The first completed line, if any."""
    for line in LINES:
        a, b, c = (board[i] for i in line)
        if a and a == b == c:
            return line
    return None


class NoughtsEngine:
    name, title = "noughts", "Noughts and Crosses"
    min_players, max_players = 2, 2
    state_version = 1  # the saved state's shape: raise it with an upgrade step (docs/upgrades.md)

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        check_seats(self, players, options, ())
        return {"players": list(players), "board": [""] * 9, "turn": 0, "seed": seed,
                "line": None, "over": False}

    def to_act(self, state: JSON) -> list[str]:
        return [] if state["over"] else [state["players"][state["turn"]]]

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        if player not in self.to_act(state):
            return []
        return [LegalAction({"type": "mark", "cell": cell}, f"cell {cell + 1}")
                for cell, mark in enumerate(state["board"]) if not mark]

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        if player not in self.to_act(state):
            raise IllegalAction("It is not your turn." if not state["over"]
                                else "The game is over.")
        cell: Any = action.get("cell")
        if action.get("type") != "mark" or not isinstance(cell, int) or isinstance(cell, bool) \
                or not 0 <= cell <= 8:
            raise IllegalAction("Mark one of the cells 1 to 9.")
        if state["board"][cell]:
            raise IllegalAction("That cell is taken.")
        board = list(state["board"])
        board[cell] = MARKS[state["turn"]]
        line = line_of(board)
        over = line is not None or all(board)
        new = {**state, "board": board, "line": list(line) if line else None, "over": over,
               "turn": state["turn"] if over else 1 - state["turn"]}
        events: list[JSON] = [{"type": "marked", "player": player, "cell": cell,
                               "mark": board[cell]}]
        if over:
            result = self.result(new)
            assert result is not None
            events.append({"type": "game_over", "scores": result.scores,
                           "winners": result.winners})
        return new, events

    def view(self, state: JSON, viewer: str | None) -> JSON:
        # Nothing is hidden in noughts and crosses; the seed stays out like every game's.
        view = {k: v for k, v in state.items() if k != "seed"}
        view["to_act"] = self.to_act(state)
        result = self.result(state)
        view["scores"] = result.scores if result else {p: 0 for p in state["players"]}
        return view

    def result(self, state: JSON) -> Result | None:
        if not state["over"]:
            return None
        players = state["players"]
        if state["line"] is None:
            return Result(scores={p: 0 for p in players}, winners=list(players))
        winner = players[state["turn"]]
        return Result(scores={p: int(p == winner) for p in players}, winners=[winner])

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        return None


ENGINE = NoughtsEngine()
