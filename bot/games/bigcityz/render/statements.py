"""The statements: their order, short names and symbols."""

from __future__ import annotations

from bot.core.i18n import Text, Words
from bot.games.bigcityz import content, names

_ = Words("bot.games.bigcityz")
_l = _.lazy

# -- statements ----------------------------------------------------------------------------

# The boards' short names are the game's own words, shared with the menus.
SHORT_NAMES = content.SHORT_NAMES

SYMBOLS: dict[str, str] = {
    "population": "people",
    "founded": "castle",
    "area": "ruler",
    "elevation": "mountain",
    "airport": "plane",
    "timezones": "clock",
    "temperature": "thermometer",
    "coast": "wave",
    "south": "south",
    "left_traffic": "car-left",
    "eurasia": "globe",
    "capital": "crown",
}

FACT_ORDER = tuple(SYMBOLS)

# What each fact on the back of a card is about, beside its symbol.
FACT_TITLES: dict[str, Text] = {
    "population": _l("Population of 1 million or more"),
    "founded": _l("Founded before 1700"),
    "area": _l("Area greater than 310 km²"),
    "elevation": _l("Higher than 708 m"),
    "airport": _l("International airport"),
    "timezones": _l("5 or more time zones from Berlin"),
    "temperature": _l("Mean temp. 11 °C or higher"),
    "coast": _l("On the ocean coast"),
    "south": _l("South of the equator"),
    "left_traffic": _l("Traffic drives on the left"),
    "eurasia": _l("In Europe or Asia"),
    "capital": _l("Capital of its country"),
}


def short_name(statement: str) -> str:
    """A board's short name in the reader's language."""
    return names.short_name(statement)


def fact_title(statement: str) -> str:
    """What a fact on the back of a card is about, in the reader's language."""
    title = FACT_TITLES.get(statement)
    return str(title) if title is not None else short_name(statement)
