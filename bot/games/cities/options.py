"""The options that stack a Cities game's decks and bag (tests and replays set the draw
order; a game without them is shuffled from its seed), read and checked."""

from __future__ import annotations

from collections import Counter

from bot.core.engine import JSON, IllegalAction
from bot.core.i18n import Words
from bot.core.rng import draw

from .content import COLOURS, PIECES_PER_COLOUR
from .data_words import colour_later, row_word

_ = Words("bot.games.cities")
_l = _.lazy


# The decks an option may stack, by the row their items are dealt to.
_ROWS = {"scoring card": "cards", "city tile": "tiles", "feature tile": "features"}


def _stack(options: JSON, key: str, known: list[str], what: str) -> list[str]:
    value = options.get(key)
    row = _ROWS.get(what, "cards")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise IllegalAction(_l("The {key} option is a list of {what} ids, top first.",
                               key=key, what=row_word(row)))
    wanted = [v.strip().upper() for v in value]
    unknown = [v for v in wanted if v not in known]
    if unknown:
        raise IllegalAction(_l("The {key} option names unknown {what}: {ids}.", key=key,
                               what=row_word(row, many=True), ids=", ".join(unknown)))
    repeated = [v for v, n in Counter(wanted).items() if n > 1]
    if repeated:
        raise IllegalAction(_l("The {key} option names {ids} more than once.", key=key,
                               ids=", ".join(repeated)))
    return wanted


def _bag_stack(options: JSON) -> list[str]:
    value = options.get("bag")
    if value is None:
        return []
    if isinstance(value, str):
        value = [c for c in value if not c.isspace() and c != ","]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise IllegalAction(
            _l("The bag option lists piece colours (R, B, G, Y) in drawing order."))
    colours = [v.strip().upper() for v in value]
    wrong = sorted({c for c in colours if c not in COLOURS})
    if wrong:
        raise IllegalAction(_l("The bag holds only R, B, G and Y pieces, not {codes}.",
                               codes=", ".join(wrong)))
    for colour, n in Counter(colours).items():
        if n > PIECES_PER_COLOUR:
            raise IllegalAction(_l("The bag holds only {most} {colour} pieces, not {n}.",
                                   most=PIECES_PER_COLOUR, colour=colour_later(colour), n=n))
    return colours


def _shuffled(state: JSON, stacked: list[str], every: list[str], purpose: str) -> list[str]:
    rest = list(every)
    for item in stacked:
        rest.remove(item)
    draw(state, purpose).shuffle(rest)
    return stacked + rest


# ---------------------------------------------------------------------- engine ---
