"""Cityscape's easy and hard computer players (normal is ``ai.py``).

Both decide from a concealed copy of the state (:func:`conceal`): the other sides' goals,
the only secret in Cityscape, are replaced by codes drawn the way a computer player sets
them, with a generator keyed by what the player sees. So nothing they do depends on the
real secret goals.

Easy: sets goals at random (a code of 1 to 6 per line, all equally likely, so now and then
a hopeless "see 4" or two lines both wanting the tallest building), and builds one of
normal's best few moves, weighed roughly, forgetting one of its lines each turn.

Hard: sets goals by trying a handful of code sets (normal's, the ones that scored best in
rounds played out with normal players, and steady mixes) and builds by flat Monte Carlo:
normal's twelve best moves, each played out to the end of the round many times against
sampled goals of the others, with every player building like normal; the move with the
best mean lead (own points minus the best other's, totals included) wins. The play-outs
use a fast copy of normal's one-move look-ahead on plain lists.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from operator import itemgetter

from bot.core.engine import JSON
from bot.core.levels import EASY, HARD, Budget, ai_rng, sequential_halving, sloppy_pick
from bot.core.rng import peek

from . import ai
from .engine import ENGINE, _open_sides
from .skyline import LINES, LOTS, SIDES, equal_height_points, visible_count

HEIGHTS = (1, 2, 3, 4, 5)
BITS, MASK = 7, 127  # a lot's height in a line key: 25 blocks reach at most 75
LOT_INDEX = {lot: i for i, lot in enumerate(LOTS)}
# For each side, its four lines as lot indices front to back.
LINE_LOTS: dict[str, tuple[tuple[int, ...], ...]] = {
    side: tuple(tuple(LOT_INDEX[lot] for lot in line) for line in LINES[side]) for side in SIDES
}
# For each side and lot: which of the side's lines passes through the lot.
LINE_OF: dict[str, list[int]] = {
    side: [next(n for n, line in enumerate(LINE_LOTS[side]) if i in line) for i in range(16)]
    for side in SIDES
}
CODES = (1, 2, 3, 4, 5, 6)
BUILD_CANDIDATES = 8
BUILD_PLAYOUTS = 64
GOAL_PLAYOUTS = 48
# A search's cost is its play-outs times the blocks each plays out, so early in a round a
# play-out costs up to 25 moves of normal and late only a few. Bounding the moves a search
# plays keeps the first builds and the goal choices within a second on one core (by count,
# not by clock); later builds keep their full count.
PLY_BUDGET = 800
MIN_PLAYOUTS = 24
GOAL_DRAWS = 2  # drawn code sets tried besides normal's and the fixed ones  # below this, sequential halving over 8 candidates is one play-out each


def playout_count(remaining: int, most: int) -> int:
    """Play-outs for a search whose play-outs each build ``remaining`` blocks."""
    return max(MIN_PLAYOUTS, min(most, PLY_BUDGET // max(1, remaining)))


# -- what the player may know ------------------------------------------------------------------

def sample_goals(rng: random.Random) -> list[int]:
    """Four codes drawn as normal sets them (its weights, at most one 6)."""
    codes, weights = zip(*ai.GOAL_WEIGHTS.items(), strict=True)
    picks = rng.choices(codes, weights=weights, k=4)
    while picks.count(6) > 1:
        picks[picks.index(6)] = rng.choice((2, 3, 5))
    return picks


def conceal(state: JSON, player: str, rng: random.Random) -> JSON:
    """``state`` with every other side's goals redrawn: what ``player`` may know, filled in."""
    new = copy.deepcopy(state)
    for side in list(new["goals"]):
        if new["sides"][side] != player:
            new["goals"][side] = sample_goals(rng)
    return new


# -- a fast copy of normal's look-ahead ------------------------------------------------------

MEMO_LIMIT = 400_000
GUESS = 7  # the "code" of a line whose goal is unknown: normal guesses its best code
_VALUES: dict[int, int] = {}


def _key(heights: list[int], lots: tuple[int, ...]) -> int:
    return sum(heights[i] << (BITS * n) for n, i in enumerate(lots))


def _value(key: int) -> int:
    """Points of a line for a code, from ``line key * 16 + code * 2 + holds the tallest``.
    Code 0 is a line the player has forgotten; GUESS is normal's guess of an unseen line
    (its best code's points; the weight halves them)."""
    value = _VALUES.get(key)
    if value is not None:
        return value
    has_tallest, code, line_key = key & 1, (key >> 1) & 7, key >> 4
    line = [(line_key >> (BITS * n)) & MASK for n in range(4)]
    seen, equal = visible_count(line), equal_height_points(line)
    if code == 0:
        value = 0
    elif code <= 4:
        value = 10 * code if seen == code else 0
    elif code == 5:
        value = equal
    elif code == 6:
        value = 25 if has_tallest else 0
    else:
        value = max(10 * seen if seen <= 4 else 0, equal, 25 if has_tallest else 0)
    if len(_VALUES) >= MEMO_LIMIT:  # bounded memory: start afresh rather than grow
        _VALUES.clear()
    _VALUES[key] = value
    return value


_CHANGES: dict[int, tuple[int, ...]] = {}


def _line_changes(now_key: int, tallest: int) -> tuple[int, ...]:
    """For one line (``now_key``: its key, code and whether it holds the tallest building)
    and each height 1-5 and position front to back: the line's points after that block
    minus its points before (before without the tallest building when the block makes a
    new tallest one, since the line then has it only if the block is in it)."""
    cache_key = now_key * 128 + tallest
    found = _CHANGES.get(cache_key)
    if found is not None:
        return found
    held = now_key & 1
    base = now_key - held
    now, flat = _value(now_key), _value(base)
    line_key = base >> 4
    changes = []
    for height in HEIGHTS:
        for position in range(4):
            new = ((line_key >> (BITS * position)) & MASK) + height
            rises = new > tallest
            key = base + (height << (BITS * position)) * 16 + (rises or new == tallest or held)
            changes.append(_value(key) - (flat if rises else now))
    found = tuple(changes)
    if len(_CHANGES) >= MEMO_LIMIT:  # bounded memory, as the line values
        _CHANGES.clear()
    _CHANGES[cache_key] = found
    return found


def _spreader(side: str) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """Reorders a side's four lines' changes (line, height, position) into build order
    (height, lot), the order of a build's value in ``Round._options``."""
    order = []
    for number in range(len(HEIGHTS)):
        for lot in range(16):
            line = LINE_OF[side][lot]
            position = LINE_LOTS[side][line].index(lot)
            order.append(line * 20 + number * 4 + position)
    return itemgetter(*order)


_SPREAD = {side: _spreader(side) for side in SIDES}


class Round:
    """One round's building on plain lists: heights per lot index, blocks left per height,
    the seat to build and every side's (known or sampled) codes."""

    __slots__ = ("goals", "heights", "left", "placed", "players", "seat", "sides")

    def __init__(self, state: JSON) -> None:
        self.heights = [sum(state["lots"][lot]) for lot in LOTS]
        self.left = [state["blocks_left"][str(h)] for h in HEIGHTS]
        self.seat = state["turn_seat"]
        self.placed = state["placed"]
        self.players: list[str] = list(state["players"])
        self.sides: dict[str, str] = dict(state["sides"])
        self.goals: dict[str, list[int]] = {s: list(c) for s, c in state["goals"].items()}

    def copy(self) -> Round:
        new = Round.__new__(Round)
        new.heights = list(self.heights)
        new.left = list(self.left)
        new.seat, new.placed = self.seat, self.placed
        new.players, new.sides, new.goals = self.players, self.sides, self.goals
        return new

    def build(self, height: int, lot: int) -> None:
        self.heights[lot] += height
        self.left[height - 1] -= 1
        self.placed += 1
        self.seat = (self.seat + 1) % len(self.players)

    def ranked(self, player: str, rng: random.Random | None = None,
               forget: str | None = None, forget_line: int = -1) -> list[tuple[float, int, int]]:
        """Every build (value, height, lot) as normal values it, best first; ``forget`` and
        ``forget_line`` leave one own line out of the sum (easy's lapse)."""
        jitter = [rng.random() for _ in range(80)] if rng else [0.0] * 80
        options = self._options(player, jitter, forget, forget_line, ranked=True)
        options.sort(key=lambda o: (o[0], o[1]), reverse=True)
        return [(v, h, lot) for v, _, h, lot in options]

    def best(self, player: str, jitter: list[float]) -> tuple[int, int]:
        top = self._options(player, jitter, None, -1, ranked=False)[0]
        return top[2], top[3]

    def _options(self, player: str, jitter: list[float], forget: str | None,
                 forget_line: int, *, ranked: bool) -> list[tuple[float, float, int, int]]:
        """Normal's value of every build (or only the best one), worked out line by line: a
        block changes one line of each side, and when it makes a new tallest building, only
        that line holds it. Lines are keyed as integers (BITS bits a lot) to keep this fast."""
        heights = self.heights
        tallest = max(heights)
        # Whether a block makes a new tallest building depends on the lot and height only,
        # so it is the same for every side.
        rises = [low + height > tallest for height in HEIGHTS for low in heights]
        values = [0.0] * 80
        for side, owner in self.sides.items():
            if owner == player:
                codes = list(self.goals[side])
                if side == forget:
                    codes[forget_line] = 0
                weight = 1.0
            else:
                codes = [GUESS] * 4
                weight = -ai.OPPONENT_WEIGHT / 2
            total = total_flat = 0
            changes: tuple[int, ...] = ()
            for lots, code in zip(LINE_LOTS[side], codes, strict=True):
                key = _key(heights, lots) * 16 + code * 2
                held = tallest > 0 and any(heights[i] == tallest for i in lots)
                total += _value(key + held)
                total_flat += _value(key)
                changes += _line_changes(key + held, tallest)
            # One side's value of every build, in the order of ``values``: what the side
            # has (all lines, or all but the line that loses the tallest building) plus what
            # the build changes in its line. Integers, added to ``values`` side by side in
            # the same order as before, so the floats come out exactly the same.
            spread = _SPREAD[side](changes)
            values = [v + weight * ((total_flat if up else total) + change)
                      for v, up, change in zip(values, rises, spread, strict=True)]
        open_heights = [(n, h) for n, h in enumerate(HEIGHTS) if self.left[h - 1]]
        options = [(values[n * 16 + lot], jitter[n * 16 + lot], h, lot)
                   for n, h in open_heights for lot in range(16)]
        return options if ranked else [max(options)]

    def play_out(self, rng: random.Random) -> None:
        """Everyone builds like normal until the round's 25 blocks stand."""
        jitter = [rng.random() for _ in range(80)]
        while self.placed < 25:
            self.build(*self.best(self.players[self.seat], jitter))
            jitter.append(jitter.pop(0))

    def points(self) -> dict[str, int]:
        heights = self.heights
        tallest = max(heights)
        totals = dict.fromkeys(self.players, 0)
        for side, owner in self.sides.items():
            for lots, code in zip(LINE_LOTS[side], self.goals[side], strict=True):
                top = any(heights[i] == tallest for i in lots) and tallest > 0
                totals[owner] += _value(_key(heights, lots) * 16 + code * 2 + top)
        return totals


def _lead(scores: dict[str, int], points: dict[str, int], player: str) -> float:
    totals = {p: scores[p] + points[p] for p in scores}
    return totals[player] - max(v for p, v in totals.items() if p != player)


# -- the levels ------------------------------------------------------------------------------

def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
    rng = ai_rng(ENGINE, state, player, f"cityscape {level}")
    seen = conceal(state, player, rng)
    if state["phase"] == "goals":
        side = _open_sides(state, player)[0]
        if level == EASY:
            codes = [rng.choice(CODES) for _ in range(4)]
        else:
            codes = hard_goals(seen, player, side, rng, budget)
        return {"type": "set_goals", "side": side, "codes": codes}
    if level == EASY:
        return easy_build(seen, player, rng)
    if level == HARD:
        return hard_build(seen, player, rng, budget)
    return ai.choose_build(seen, player)


def easy_build(state: JSON, player: str, rng: random.Random) -> JSON:
    city = Round(state)
    mine = [s for s, owner in city.sides.items() if owner == player]
    # A lapse: one of its own lines is out of mind this turn.
    ranked = city.ranked(player, rng, forget=rng.choice(mine), forget_line=rng.randrange(4))
    height, lot = sloppy_pick([(v, (h, lot)) for v, h, lot in ranked], rng,
                              top=5, spread=6.0, blunder=0.1)
    return {"type": "build", "height": height, "lot": LOTS[lot]}


def hard_build(state: JSON, player: str, rng: random.Random, budget: Budget) -> JSON:
    city = Round(state)
    ranked = city.ranked(player, rng)
    candidates = [(h, lot) for _, h, lot in ranked[:BUILD_CANDIDATES]]
    key = rng.getrandbits(64)
    known = {s: list(c) for s, c in state["goals"].items() if state["sides"][s] == player}

    def playout(move: tuple[int, int], sample: int) -> float:
        draw = peek(key, sample)
        trial = city.copy()
        trial.goals = {s: known.get(s) or sample_goals(draw) for s in city.sides}
        trial.build(*move)
        trial.play_out(draw)
        return _lead(state["scores"], trial.points(), player)

    count = playout_count(25 - city.placed - 1, BUILD_PLAYOUTS)
    height, lot = sequential_halving(candidates, playout, budget, count)
    return {"type": "build", "height": height, "lot": LOTS[lot]}


def _goal_candidates(rng: random.Random) -> list[list[int]]:
    fixed = [[3, 3, 3, 3], [5, 5, 5, 5], [2, 3, 2, 3], [3, 5, 3, 5], [2, 5, 2, 5],
             [1, 3, 5, 6], [3, 3, 5, 6], [2, 2, 2, 2]]
    drawn = [sample_goals(rng) for _ in range(GOAL_DRAWS)]
    return fixed + drawn


def hard_goals(state: JSON, player: str, side: str, rng: random.Random,
               budget: Budget) -> list[int]:
    """Codes for ``side``: the candidate set that did best in rounds played out with
    everyone building like normal and the other sides' goals sampled."""
    normal = ai.choose_goals(state, side)
    candidates: list[list[int]] = [normal, *(c for c in _goal_candidates(rng) if c != normal)]
    key = rng.getrandbits(64)
    known = {s: list(c) for s, c in state["goals"].items() if state["sides"][s] == player}
    base = Round(state)

    def playout(codes: list[int], sample: int) -> float:
        draw = peek(key, sample)
        trial = base.copy()
        goals = {s: known.get(s) or sample_goals(draw) for s in base.sides}
        goals[side] = list(codes)
        trial.goals = goals
        trial.play_out(draw)
        return _lead(state["scores"], trial.points(), player)

    count = playout_count(25 - base.placed, GOAL_PLAYOUTS)
    chosen: list[int] = sequential_halving(candidates, playout, budget, count)
    return list(chosen)


def sample_positions(players: int, seed: int, every: int,
                     options: JSON | None = None) -> list[tuple[JSON, str]]:
    """Every ``every``-th decision (and every goal choice) of one normal-against-normal game:
    the same fixed positions for the tests and the timing script to put hard to."""
    state = ENGINE.new([f"p{n}" for n in range(players)], options or {}, seed)
    found: list[tuple[JSON, str]] = []
    count = 0
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        if state["phase"] == "goals" or count % every == 0:
            found.append((state, player))
        count += 1
        state, _ = ENGINE.apply(state, player, ai.choose_action(state, player))
    return found
