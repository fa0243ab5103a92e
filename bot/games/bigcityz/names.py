"""Big Cityz's data words in the reader's language: city, country and continent names, the
statements and their short names.

A city keeps its English (data) name unless an established name exists in the reader's
language: first the few exonyms the catalog lists (``data_words.CITY_EXONYMS``: Milan is
Mailand, Milán, Milão), then CLDR's exemplar-city names that Babel ships (Moscow is Moskau,
Moscú, Moscou), found through the card's own time zone or any zone of its country whose
English exemplar city is the card's name. Countries come from CLDR's territory names.
Everything is looked up when said, in the language current then, and cached.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from babel import Locale
from babel.core import get_global

from bot.core.i18n import ENGLISH, PSEUDO, Words, cldr, current

from . import content
from .data_words import CITY_EXONYMS

_ = Words("bot.games.bigcityz")
_p = _.context

# The data's continents as CLDR's region codes, so their names come from CLDR too.
CONTINENTS: dict[str, str] = {
    "Africa": "002", "Asia": "142", "Europe": "150", "North America": "003",
    "South America": "005", "Oceania": "009",
}


def _fold(text: str) -> str:
    """Accents and case left out: CLDR writes Zurich where the card says Zürich."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def _english_exemplar(zone: str) -> str:
    found = (Locale.parse(ENGLISH).time_zones.get(zone) or {}).get("city")
    return str(found) if found else zone.rsplit("/", 1)[-1].replace("_", " ")


@cache
def _zones() -> dict[tuple[str, str], str]:
    """(folded English exemplar city, country code) → time zone id, for every CLDR zone."""
    index: dict[tuple[str, str], str] = {}
    for zone, country in get_global("zone_territories").items():
        index.setdefault((_fold(_english_exemplar(zone)), country), zone)
    return index


@cache
def _zone_of(city_id: str) -> str | None:
    """The CLDR zone whose exemplar city is this card's city, if there is one."""
    card = content.card(city_id)
    own = str(card.get("time_zone") or "")
    if own and _fold(_english_exemplar(own)) == _fold(card["name"]):
        return own
    return _zones().get((_fold(card["name"]), str(card.get("country_code"))))


@cache
def _city_in(city_id: str, language: str) -> str:
    english = content.name(city_id)
    if language in (ENGLISH, PSEUDO):
        return english
    if english in CITY_EXONYMS:
        return _p("city", english)
    zone = _zone_of(city_id)
    if zone is None:
        return english
    found = (cldr(language).time_zones.get(zone) or {}).get("city")
    return str(found) if found else english


def city(ref: object) -> str:
    """A city's name for the reader: ``ref`` is a card id, or a view's city reference
    (``{"id", "name"}``); a name the deck does not know is kept as it is, and English
    readers get the name exactly as given."""
    if isinstance(ref, dict):
        city_id, given = ref.get("id"), ref.get("name") or ref.get("id")
    else:
        city_id, given = ref, ref
        if isinstance(ref, str) and ref in _ids():
            given = content.name(ref)  # a card id: its name
    language = current()
    if language not in (ENGLISH, PSEUDO):
        for key in (city_id, given):
            known = content.find_city(key) if isinstance(key, str) else None
            if known is not None:
                return _city_in(known, language)
    return str(given if given is not None else "")


@cache
def _ids() -> frozenset[str]:
    return frozenset(content.city_ids())


@dataclass(frozen=True)
class City:
    """A city's name said later (an engine's refusal): the reader's name when it is shown."""

    city_id: str

    def __str__(self) -> str:
        return city(self.city_id)


def country(code: str | None, english: str | None = None) -> str:
    """A country by its ISO code in the reader's language (CLDR), else its data name."""
    language = current()
    if code and language not in (ENGLISH, PSEUDO):
        found = cldr(language).territories.get(code)
        if found:
            return str(found)
    return english or code or ""


def continent(english: str) -> str:
    language = current()
    code = CONTINENTS.get(english)
    if code and language not in (ENGLISH, PSEUDO):
        found = cldr(language).territories.get(code)
        if found:
            return str(found)
    return english


def statement(statement_id: str) -> str:
    """A board's statement as printed on it ("Has a population of 1 million or more")."""
    return _p("statement", str(content.statement(statement_id)["text"]))


def short_name(statement_id: str) -> str:
    """A board's short name ("Population"), as the buttons and the picture name it."""
    english = content.SHORT_NAMES.get(statement_id)
    if english is None:
        return statement_id.replace("_", " ").capitalize()
    return _p("board", english)
