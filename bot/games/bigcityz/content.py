"""The Big Cityz deck: 200 city cards and 12 statement boards, loaded once from bot/data/bigcityz/.

Cards are plain dicts exactly as stored in ``cities.json`` (see docs/bigcityz-deck.md); the
engine keeps only card ids in its state and looks the facts up here, so a state never
carries a hidden fact by accident.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from typing import Any

from bot.data import data_path

DATA_DIR = data_path("bigcityz")

Card = dict[str, Any]
Statement = dict[str, Any]

# The value on a city card behind each statement (the fact printed beside its symbol).
FACT_FIELDS: dict[str, str] = {
    "population": "population",
    "founded": "founded",
    "area": "area_km2",
    "elevation": "elevation_m",
    "airport": "airport_iata",
    "timezones": "utc_offset",
    "temperature": "mean_temp_c",
    "coast": "coast",
    "south": "latitude",
    "left_traffic": "drive_side",
    "eurasia": "continent",
    "capital": "capital",
}

# Short board names for button labels ("Green 4 on Population").
SHORT_NAMES: dict[str, str] = {
    "population": "Population",
    "founded": "Founded",
    "area": "Area",
    "elevation": "Elevation",
    "airport": "Airport",
    "timezones": "Time zones",
    "temperature": "Temperature",
    "coast": "Coast",
    "south": "South",
    "left_traffic": "Left traffic",
    "eurasia": "Europe/Asia",
    "capital": "Capital",
}


@lru_cache(maxsize=1)
def _cards() -> tuple[Card, ...]:
    cards = json.loads((DATA_DIR / "cities.json").read_text(encoding="utf-8"))
    return tuple(cards)


@lru_cache(maxsize=1)
def _by_id() -> dict[str, Card]:
    return {card["id"]: card for card in _cards()}


@lru_cache(maxsize=1)
def _by_name() -> dict[str, str]:
    """Lower-cased name or id -> card id, for stacking the deck by name."""
    index: dict[str, str] = {}
    for card in _cards():
        index[card["name"].casefold()] = card["id"]
        index[card["id"].casefold()] = card["id"]
    return index


@lru_cache(maxsize=1)
def _statements() -> tuple[Statement, ...]:
    boards = json.loads((DATA_DIR / "statements.json").read_text(encoding="utf-8"))
    return tuple(boards)


def city_ids() -> list[str]:
    """Every card id, in the deck file's order."""
    return [card["id"] for card in _cards()]


def card(city_id: str) -> Card:
    return _by_id()[city_id]


def name(city_id: str) -> str:
    return str(_by_id()[city_id]["name"])


def find_city(name_or_id: str) -> str | None:
    """The card id of a city given by its name or id (case-insensitive), or None."""
    return _by_name().get(name_or_id.casefold())


def statement_ids() -> list[str]:
    """The twelve statement boards, in the rulebook's order."""
    return [board["id"] for board in _statements()]


def statement(statement_id: str) -> Statement:
    for board in _statements():
        if board["id"] == statement_id:
            return board
    raise KeyError(statement_id)


def truth(city_id: str, statement_id: str) -> bool:
    """Whether the statement is true of the city (the hidden back of the card)."""
    return bool(_by_id()[city_id]["statements"][statement_id])


def share(statement_id: str, *, without: str | None = None) -> float:
    """How often the statement is true in the whole 200-card deck (0..1); ``without`` a city,
    among the other 199 cards. A computer player judging the city in play uses the latter:
    a statistic that counts the card's hidden back would let the back sway its guess."""
    cards = len(_cards())
    count = _true_counts()[statement_id]
    if without is None:
        return count / cards
    return (count - truth(without, statement_id)) / (cards - 1)


@cache
def _true_counts() -> dict[str, int]:
    return {sid: sum(1 for c in _cards() if c["statements"][sid]) for sid in statement_ids()}


def facts(city_id: str) -> dict[str, Any]:
    """The back of a card: every statement's value and truth, plus where the city is."""
    c = _by_id()[city_id]
    return {
        "id": c["id"],
        "name": c["name"],
        "country": c["country"],
        "country_code": c["country_code"],
        "continent": c["continent"],
        "latitude": c["latitude"],
        "longitude": c["longitude"],
        "facts": {
            sid: {"value": c[field], "true": bool(c["statements"][sid])}
            for sid, field in FACT_FIELDS.items()
        },
    }
