"""Seeded randomness that lives in the state.

A state stores ``seed`` and a draw counter; each draw builds a ``random.Random`` from both,
so a saved game resumes with exactly the draws it would have made without the restart.
"""

from __future__ import annotations

import random
from typing import Any


def draw(state: dict[str, Any], purpose: str = "") -> random.Random:
    """A fresh generator for the next draw; advances ``state['rng_draws']`` in place.

    Call it on the new state you are building, never on the caller's state.
    """
    count = int(state.get("rng_draws", 0))
    state["rng_draws"] = count + 1
    return random.Random(f"{state['seed']}:{count}:{purpose}")


def peek(seed: int | str, *parts: object) -> random.Random:
    """A generator keyed by the seed and some context, for choices that must not advance
    the game's draw counter (a computer player's tie-breaks)."""
    return random.Random(":".join([str(seed), *map(str, parts)]))
