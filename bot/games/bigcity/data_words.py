"""The words of Big City's data (content.py, scoring.py) for the catalog: the names of
buildings and cards in the forms sentences need, and the words of a score's sum.
``saying.py`` says them with the same contexts."""

from __future__ import annotations

from .content import BUILDINGS, SHAPE_WORDS, SPECIAL_CARDS
from .saying import SCORE_WORDS, english_plural, indefinite


def catalog_words() -> list[tuple[str, str]]:
    """(message, context) pairs, as scripts/i18n.py reads them."""
    words: list[tuple[str, str]] = []
    for count, _size, _kind, name in BUILDINGS.values():
        words.append((name, "building"))
        words.append((name.lower(), "building, in a sentence"))
        words.append((indefinite(name), "a building"))
        if count > 1:
            words.append((english_plural(name.lower()), "buildings"))
    for _stack, _kind, _shape, name in SPECIAL_CARDS.values():
        words.append((name, "card"))
    for shape in SHAPE_WORDS.values():
        words.append((shape, "shape"))
    for word in SCORE_WORDS:
        if word not in {info[3] for info in SPECIAL_CARDS.values()}:
            words.append((word, "score"))
    return words
