"""The Cityscape computer player.

Goals: a mix of codes weighted toward the ones a city of 25 blocks tends to satisfy.
Building: one move ahead, it values each block on each lot as the points its own sides
would score if the round ended now, minus a share of what the other sides could score
with their most likely goals (which it cannot see), so it builds for itself and against
the others. Ties are broken by a draw keyed to the seed, so games replay exactly.
"""

from __future__ import annotations

from bot.core.engine import JSON
from bot.core.rng import peek

from .engine import _open_sides
from .skyline import LINES, LOTS, line_points

# How often each code is picked for a line: "see 2" and "see 3" are the easiest to steer
# with 25 blocks; "see 4" needs four rising buildings and is rarely worth the risk.
GOAL_WEIGHTS = {1: 3, 2: 4, 3: 3, 4: 1, 5: 3, 6: 3}
OPPONENT_WEIGHT = 0.35


def choose_action(state: JSON, player: str) -> JSON:
    """The normal level's move: its goals for the next open side, or a block."""
    if state["phase"] == "goals":
        side = _open_sides(state, player)[0]
        return {"type": "set_goals", "side": side, "codes": choose_goals(state, side)}
    return choose_build(state, player)


def choose_goals(state: JSON, side: str) -> list[int]:
    rng = peek(state["seed"], "goals", state["round"], side)
    codes, weights = zip(*GOAL_WEIGHTS.items(), strict=True)
    picks = rng.choices(codes, weights=weights, k=4)
    # At most one line may hold the city's tallest building cheaply; two 6s compete.
    while picks.count(6) > 1:
        picks[picks.index(6)] = rng.choice((2, 3, 5))
    return picks


def _side_value(heights: dict[str, int], side: str, codes: list[int], tallest: int) -> int:
    return sum(
        line_points(code, [heights[lot] for lot in lots], tallest)
        for lots, code in zip(LINES[side], codes, strict=True)
    )


def _guess_value(heights: dict[str, int], side: str, tallest: int) -> float:
    """What an unseen side probably scores: each line at its best code, discounted since
    a player has only one code per line and we do not know which."""
    total = 0.0
    for lots in LINES[side]:
        line = [heights[lot] for lot in lots]
        total += max(line_points(code, line, tallest) for code in range(1, 7))
    return total / 2


def choose_build(state: JSON, player: str) -> JSON:
    base = {lot: sum(blocks) for lot, blocks in state["lots"].items()}
    mine = {s: state["goals"][s] for s, owner in state["sides"].items() if owner == player}
    others = [s for s, owner in state["sides"].items() if owner != player]
    rng = peek(state["seed"], "build", state["round"], state["placed"], player)
    best: tuple[float, float] | None = None
    choice: JSON = {}
    for height in (1, 2, 3, 4, 5):
        if state["blocks_left"][str(height)] == 0:
            continue
        for lot in LOTS:
            heights = dict(base)
            heights[lot] += height
            tallest = max(heights.values())
            own = sum(_side_value(heights, s, codes, tallest) for s, codes in mine.items())
            theirs = sum(_guess_value(heights, s, tallest) for s in others)
            score = (own - OPPONENT_WEIGHT * theirs, rng.random())
            if best is None or score > best:
                best, choice = score, {"type": "build", "height": height, "lot": lot}
    return choice
