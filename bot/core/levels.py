"""Computer-player levels: easy, normal and hard, the same three for every game.

``normal`` is each game's ``Computer.normal``, unchanged. The other two are its optional
``Computer.levels(state, player, level, budget)``; a game without it plays normal at every
level. The computer player sits beside the engine in the game's record
(``bot.core.catalogue``): engines do not import it. A level belongs to the seat that plays it (``Seat.level``, saved with the
match), not to the game state, so the engine states, their versions and the replay files
are what they were, and a seat saved before levels existed plays normal.

Randomness: every draw a level makes comes from :func:`ai_rng`, keyed by the game's seed
and by what the player sees (its ``view``), so the same game and levels replay the same
moves, and two states that differ only in what the player cannot see give the same draws.

Hard searches under a :class:`Budget`: a number of play-outs (deterministic) and a
wall-clock cap as a safety net (when the cap cuts a search short, the move depends on the
machine's speed; the iteration count is set so that it rarely does).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bot.core.engine import JSON, Engine
from bot.core.rng import peek

EASY = "easy"
NORMAL = "normal"
HARD = "hard"
LEVELS = (EASY, NORMAL, HARD)


def level_of(value: object) -> str:
    """A stored level, or normal for anything else (older records, a timed-out human)."""
    return value if isinstance(value, str) and value in LEVELS else NORMAL


@dataclass(frozen=True)
class Budget:
    """How much a hard move may cost: ``iterations`` play-outs, at most ``seconds``."""

    iterations: int = 0  # 0: the game's own default
    seconds: float | None = None

    @classmethod
    def from_env(cls) -> Budget:
        """``CPU_HARD_SECONDS`` (default 0.9) caps a hard move's wall-clock time;
        ``CPU_HARD_ITERATIONS`` (default: each game's own) sets its play-outs."""
        seconds = float(os.environ.get("CPU_HARD_SECONDS", "0.9") or 0.9)
        iterations = int(os.environ.get("CPU_HARD_ITERATIONS", "0") or 0)
        return cls(iterations=max(0, iterations), seconds=seconds if seconds > 0 else None)


@dataclass(frozen=True)
class Computer:
    """A game's computer player, kept beside its engine (the engine never imports it).

    ``normal(state, player)`` is the normal level's move; ``levels(state, player, level,
    budget)``, where the game has it, plays easy and hard. Both are deterministic for a
    given state: every draw comes from the game's seed."""

    normal: Callable[[JSON, str], JSON]
    levels: Callable[[JSON, str, str, Budget], JSON] | None = None


def decide(computer: Computer, state: JSON, player: str, level: str = NORMAL,
           budget: Budget | None = None) -> JSON:
    """The move of ``player``'s computer player at ``level``."""
    level = level_of(level)
    if level == NORMAL or computer.levels is None:
        return computer.normal(state, player)
    return computer.levels(state, player, level, budget or Budget.from_env())


def view_key(engine: Engine, state: JSON, player: str) -> str:
    """A short digest of what ``player`` sees now: the key of its computer's draws."""
    text = json.dumps(engine.view(state, player), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def ai_rng(engine: Engine, state: JSON, player: str, purpose: str) -> random.Random:
    """A generator for one decision, keyed by the seed and ``player``'s view only."""
    return peek(state["seed"], purpose, player, view_key(engine, state, player))


# -- easy: a human's slips ----------------------------------------------------------------

T = TypeVar("T")


def sloppy_pick(ranked: Sequence[tuple[float, T]], rng: random.Random, *, top: int = 4,
                spread: float = 1.0, blunder: float = 0.0) -> T:
    """One of the best few options, not always the best: a player who sees the good moves
    but weighs them roughly. ``ranked`` is (value, option) best first; the chance of each
    of the ``top`` options falls off with its gap to the best over ``spread``. With chance
    ``blunder`` any option is taken (a misclick, a forgotten goal)."""
    if not ranked:
        raise ValueError("no options")
    if blunder and rng.random() < blunder:
        return ranked[rng.randrange(len(ranked))][1]
    best = ranked[0][0]
    short = ranked[:top]
    weights = [math.exp(-(best - value) / max(spread, 1e-9)) for value, _ in short]
    return rng.choices([option for _, option in short], weights=weights)[0]


# -- hard: search over determinised samples --------------------------------------------------

C = TypeVar("C")


def sequential_halving(candidates: Sequence[C], playout: Callable[[C, int], float],
                       budget: Budget, default_iterations: int) -> C:
    """The candidate with the best mean play-out value under the budget.

    Sequential halving: the play-outs are split over rounds; after each round the worse half
    of the candidates is dropped, so the budget goes to the moves still in contention. All
    candidates of a round share sample numbers (``playout(candidate, sample)``: the same
    sample is the same determinisation), which makes their comparison fairer. Ties and a
    search cut short by the clock keep the earlier candidate (list the favourite first).
    """
    alive = list(range(len(candidates)))
    if len(alive) == 1:
        return candidates[0]
    total = budget.iterations or default_iterations
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    rounds = max(1, math.ceil(math.log2(len(alive))))
    sums = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    sample = 0
    late = False
    for _ in range(rounds):
        per = max(1, total // (rounds * len(alive)))
        for _ in range(per):
            for index in alive:
                sums[index] += playout(candidates[index], sample)
                counts[index] += 1
                # Checked after every play-out: one round of them can be long.
                if deadline is not None and time.perf_counter() > deadline:
                    late = True
                    break
            sample += 1
            if late:
                break
        # A candidate the clock left untried goes last, whatever the others' means.
        alive.sort(key=lambda i: (-sums[i] / counts[i] if counts[i] else math.inf, i))
        if late:
            break
        if len(alive) > 1:
            alive = alive[: max(1, (len(alive) + 1) // 2)]
    return candidates[alive[0]]
