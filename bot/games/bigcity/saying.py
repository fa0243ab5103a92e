"""Big City's words in the reader's language: refusals, the names of buildings and cards,
score sums and streets.

The state and the events keep English words (a score's sum, a street "north of 11") as
they always did, so saved games and replays do not change; they are translated where they
are shown. The names of buildings and cards live in ``content.py`` and are listed for the
catalog by ``data_words.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.core.i18n import ENGLISH, Text, Words, speaking

from .content import BUILDINGS, SHAPE_WORDS, SPECIAL_CARDS

DOMAIN = "bot.games.bigcity"
_ = Words(DOMAIN)
_p = _.context


class Sentence(str):
    """A refusal: compared, hashed and logged as its English sentence, said in the
    reader's language by ``str()`` (``IllegalAction`` shows it so). ``text`` is the lazy
    sentence itself."""

    text: Text

    def __new__(cls, text: Text) -> Sentence:
        with speaking(ENGLISH):
            english = str(text)
        made = super().__new__(cls, english)
        made.text = text
        return made

    def __str__(self) -> str:
        return str(self.text)

    def __reduce__(self) -> tuple[Any, ...]:
        return Sentence, (self.text,)


def sentence(message: str, /, **params: Any) -> Sentence:
    """A refusal to be said later (the checks in ``legality`` and ``streetcar``)."""
    return Sentence(_.lazy(message, **params))


@dataclass(frozen=True)
class Capitalised:
    """A word said with a capital first letter: "A double residence" at a sentence's start."""

    inner: object

    def __str__(self) -> str:
        said = str(self.inner)
        return said[:1].upper() + said[1:]


# -- buildings and cards ----------------------------------------------------------------


def english_title(piece: str) -> str:
    if piece in SPECIAL_CARDS:
        return SPECIAL_CARDS[piece][3]
    if piece in BUILDINGS:
        return BUILDINGS[piece][3]
    return piece.replace("_", " ").capitalize()


def indefinite(title: str) -> str:
    """"a double residence", "an ..." (English)."""
    word = title.lower()
    return ("an " if word[0] in "aeiou" else "a ") + word


def english_plural(word: str) -> str:
    return word + ("es" if word.endswith(("s", "ch")) else "s")


def title(piece: str) -> str:
    """A building's or card's name, capitalised: "Double residence", "Lincoln Park"."""
    return str(title_text(piece))


def title_text(piece: str) -> Text | str:
    if piece in SPECIAL_CARDS:
        return Text(DOMAIN, SPECIAL_CARDS[piece][3], context="card")
    if piece in BUILDINGS:
        return Text(DOMAIN, BUILDINGS[piece][3], context="building")
    return english_title(piece)


def a_building(piece: str) -> Text:
    """"a double residence", said later (inside a sentence)."""
    return Text(DOMAIN, indefinite(BUILDINGS[piece][3]), context="a building")


def some_buildings(piece: str) -> Text:
    """"double residences", said later."""
    return Text(DOMAIN, english_plural(BUILDINGS[piece][3].lower()), context="buildings")


def shape_text(shape: str) -> Text:
    """"three properties in a line", said later."""
    return Text(DOMAIN, SHAPE_WORDS[shape], context="shape")


def lower_title(piece: str) -> str:
    """The name inside a sentence: "double residence" (German keeps its capitals)."""
    if piece in SPECIAL_CARDS:
        return title(piece)
    if piece in BUILDINGS:
        return _p("building, in a sentence", BUILDINGS[piece][3].lower())
    return english_title(piece).lower()


def card_text(card: int | str) -> Text | str:
    """A card said later: its property number, or a park's or factory's name."""
    return title_text(card) if isinstance(card, str) else str(card)


def card_name(card: int | str) -> str:
    """A card as the hand shows it: its property number, or a park's or factory's name."""
    return title(card) if isinstance(card, str) else str(card)


# -- score sums and streets, as the state keeps them ------------------------------------

# Every word a score's sum can hold (scoring.py), longest first so "city hall and
# streetcar" is one phrase.
SCORE_WORDS: tuple[str, ...] = tuple(sorted(
    {"park", "outskirts", "center", "factory", "streetcar", "city hall",
     "city hall and streetcar", "cinema", "post office", "bank", "church", "shopping center",
     *(info[3] for info in SPECIAL_CARDS.values())},
    key=lambda w: (-len(w), w)))
_SCORE = re.compile(r", counts as 1$|\b(" + "|".join(re.escape(w) for w in SCORE_WORDS)
                    + r")\b")


def score_sum(explanation: str) -> str:
    """A score's sum, "6 + 1 park, × 2 streetcar = 14", in the reader's words."""

    def said(found: re.Match[str]) -> str:
        if found.group(1) is None:
            return _(", counts as 1")
        word = found.group(1)
        if word in (info[3] for info in SPECIAL_CARDS.values()):
            return _p("card", word)
        return _p("score", word)

    return _SCORE.sub(said, explanation)


_STREET = re.compile(r"^(north|south|east|west) of (\d+)$")


def street(where: str) -> str:
    """A street as ``City.describe_segment`` says it ("north of 11", "14–17"), in words."""
    found = _STREET.match(where)
    if found is None:
        return where
    side, number = found.group(1), int(found.group(2))
    if side == "north":
        return _("north of {property:d}", property=number)
    if side == "south":
        return _("south of {property:d}", property=number)
    if side == "east":
        return _("east of {property:d}", property=number)
    return _("west of {property:d}", property=number)


@dataclass(frozen=True)
class Street:
    """A street said later, in the reader's words (inside a refusal)."""

    where: str

    def __str__(self) -> str:
        return street(self.where)
