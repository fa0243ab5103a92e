"""The statements: their order, short names and symbols."""

from __future__ import annotations

from bot.games.bigcityz import content

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
FACT_TITLES: dict[str, str] = {
    "population": "Population of 1 million or more",
    "founded": "Founded before 1700",
    "area": "Area greater than 310 km²",
    "elevation": "Higher than 708 m",
    "airport": "International airport",
    "timezones": "5 or more time zones from Berlin",
    "temperature": "Mean temp. 11 °C or higher",
    "coast": "On the ocean coast",
    "south": "South of the equator",
    "left_traffic": "Traffic drives on the left",
    "eurasia": "In Europe or Asia",
    "capital": "Capital of its country",
}


def short_name(statement: str) -> str:
    return SHORT_NAMES.get(statement, statement.replace("_", " ").capitalize())
