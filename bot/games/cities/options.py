"""The options that stack a Cities game's decks and bag (tests and replays set the draw
order; a game without them is shuffled from its seed), read and checked."""

from __future__ import annotations

from collections import Counter

from bot.core.engine import JSON, IllegalAction
from bot.core.rng import draw

from .content import COLOUR_NAMES, COLOURS, PIECES_PER_COLOUR


def _stack(options: JSON, key: str, known: list[str], what: str) -> list[str]:
    value = options.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise IllegalAction(f"The {key} option is a list of {what} ids, top first.")
    wanted = [v.strip().upper() for v in value]
    unknown = [v for v in wanted if v not in known]
    if unknown:
        raise IllegalAction(f"The {key} option names unknown {what}s: {', '.join(unknown)}.")
    repeated = [v for v, n in Counter(wanted).items() if n > 1]
    if repeated:
        raise IllegalAction(f"The {key} option names {', '.join(repeated)} more than once.")
    return wanted


def _bag_stack(options: JSON) -> list[str]:
    value = options.get("bag")
    if value is None:
        return []
    if isinstance(value, str):
        value = [c for c in value if not c.isspace() and c != ","]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise IllegalAction("The bag option lists piece colours (R, B, G, Y) in drawing order.")
    colours = [v.strip().upper() for v in value]
    wrong = sorted({c for c in colours if c not in COLOURS})
    if wrong:
        raise IllegalAction(f"The bag holds only R, B, G and Y pieces, not {', '.join(wrong)}.")
    for colour, n in Counter(colours).items():
        if n > PIECES_PER_COLOUR:
            raise IllegalAction(
                f"The bag holds only {PIECES_PER_COLOUR} {COLOUR_NAMES[colour]} pieces, not {n}."
            )
    return colours


def _shuffled(state: JSON, stacked: list[str], every: list[str], purpose: str) -> list[str]:
    rest = list(every)
    for item in stacked:
        rest.remove(item)
    draw(state, purpose).shuffle(rest)
    return stacked + rest


# ---------------------------------------------------------------------- engine ---
