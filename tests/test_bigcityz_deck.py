"""Offline tests of the Big Cityz city deck (bot/data/bigcityz/).

These tests need only the files in the repository: they re-derive every statement from the stored
values with the published rules, enforce the exclusion margins and the 15-85 % share, and check the
schema and sources. Each helper is also run against a deliberately broken copy of the deck so that
the tests are known to fail on a bad deck.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

DATA_DIR = Path(__file__).resolve().parent.parent / "bot" / "data" / "bigcityz"

STATEMENT_TABLE = [
    ("population", "Has a population of 1 million or more"),
    ("founded", "Was founded before 1700"),
    ("area", "Has a greater area than Munich (310 km²)"),
    ("elevation", "Is higher than Garmisch-Partenkirchen (708 m)"),
    ("airport", "Has an international airport"),
    ("timezones", "Is 5 or more time zones from Berlin"),
    ("temperature", "Has an average temperature of 11 °C (Freiburg) or higher"),
    ("coast", "Is located on the coast"),
    ("south", "Is located south of the equator"),
    ("left_traffic", "Traffic drives on the left"),
    ("eurasia", "Is in Europe or Asia"),
    ("capital", "Is the capital of its country"),
]
STATEMENT_IDS = [sid for sid, _ in STATEMENT_TABLE]
INHABITED_CONTINENTS = {"Africa", "Asia", "Europe", "North America", "South America", "Oceania"}
VALUE_FIELDS = [
    "population",
    "founded",
    "area_km2",
    "elevation_m",
    "airport_iata",
    "utc_offset",
    "mean_temp_c",
    "coast",
    "coordinates",
    "country",
    "continent",
    "drive_side",
    "capital",
]

Card = dict[str, Any]


def _load(name: str) -> Any:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cards() -> list[Card]:
    return _load("cities.json")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return _load("schema.json")


@pytest.fixture(scope="module")
def statements() -> list[dict[str, Any]]:
    return _load("statements.json")


# ----------------------------------------------------------------------------- rules under test


def expected_statements(card: Card) -> dict[str, bool]:
    """The fixed rules of docs/bigcityz-deck.md, written independently of the check script."""
    return {
        "population": card["population"] >= 1_000_000,
        "founded": card["founded"] < 1700,
        "area": card["area_km2"] > 310,
        "elevation": card["elevation_m"] > 708,
        "airport": card["airport_iata"] is not None,
        "timezones": abs(card["utc_offset"] - 1) >= 5,
        "temperature": card["mean_temp_c"] >= 10.5,
        "coast": card["coast"] is True,
        "south": card["latitude"] < 0,
        "left_traffic": card["drive_side"] == "left",
        "eurasia": card["continent"] in ("Europe", "Asia"),
        "capital": card["capital"] is True,
    }


def statement_errors(deck: list[Card]) -> list[str]:
    return [
        f"{c['id']}.{sid}"
        for c in deck
        for sid, value in expected_statements(c).items()
        if c["statements"][sid] is not value
    ]


def margin_errors(deck: list[Card]) -> list[str]:
    out = []
    for c in deck:
        if abs(c["population"] - 1_000_000) <= 50_000:
            out.append(f"{c['id']}: population")
        if abs(c["founded"] - 1700) <= 20:
            out.append(f"{c['id']}: founded")
        if abs(c["area_km2"] - 310) <= 15.5:
            out.append(f"{c['id']}: area")
        if abs(c["elevation_m"] - 708) <= 25:
            out.append(f"{c['id']}: elevation")
        if abs(c["mean_temp_c"] - 10.5) <= 0.3:
            out.append(f"{c['id']}: temperature")
        if abs(c["latitude"]) < 0.1:
            out.append(f"{c['id']}: latitude")
    return out


def share_errors(deck: list[Card]) -> list[str]:
    out = []
    for sid in STATEMENT_IDS:
        share = sum(expected_statements(c)[sid] for c in deck) / len(deck)
        if not 0.15 <= share <= 0.85:
            out.append(f"{sid}: {share:.1%}")
    return out


def source_errors(deck: list[Card]) -> list[str]:
    return [
        f"{c['id']}.{field}"
        for c in deck
        for field in VALUE_FIELDS
        if not isinstance(c["sources"].get(field), str) or len(c["sources"][field].strip()) < 3
    ]


# ----------------------------------------------------------------------------- the real deck


def test_schema_is_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_cities_validate_against_schema(cards: list[Card], schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(cards)]
    assert problems == []


def test_exactly_200_unique_ids_and_names(cards: list[Card]) -> None:
    assert len(cards) == 200
    assert len({c["id"] for c in cards}) == 200
    assert len({c["name"] for c in cards}) == 200


def test_every_inhabited_continent_is_present(cards: list[Card]) -> None:
    continents = {c["continent"] for c in cards}
    assert continents == INHABITED_CONTINENTS
    assert all(sum(c["continent"] == k for c in cards) >= 5 for k in INHABITED_CONTINENTS)


def test_stored_statements_follow_the_rules(cards: list[Card]) -> None:
    assert statement_errors(cards) == []


def test_no_value_inside_exclusion_margins(cards: list[Card]) -> None:
    assert margin_errors(cards) == []


def test_every_statement_share_between_15_and_85_percent(cards: list[Card]) -> None:
    assert share_errors(cards) == []


def test_every_value_has_a_source(cards: list[Card]) -> None:
    assert source_errors(cards) == []


def test_statements_json_lists_the_twelve_statements_in_order(
    statements: list[dict[str, Any]],
) -> None:
    assert [s["id"] for s in statements] == STATEMENT_IDS
    assert [s["text"] for s in statements] == [text for _, text in STATEMENT_TABLE]
    for s in statements:
        assert s["definition"].strip() and s["symbol"].strip() and s["rule"].strip()
    assert len({s["symbol"] for s in statements}) == 12


def test_airport_code_matches_statement_and_capitals_are_unique_per_country(
    cards: list[Card],
) -> None:
    capitals = [c["country_code"] for c in cards if c["capital"]]
    assert len(capitals) == len(set(capitals)), "two capitals for one country"
    for c in cards:
        assert (c["airport_iata"] is None) == (not c["statements"]["airport"])


def test_excluded_cities_stay_out(cards: list[Card]) -> None:
    """Cities documented as excluded (disputed or within a margin) must not creep back in."""
    names = {c["name"] for c in cards}
    excluded = {
        "Istanbul",
        "La Paz",
        "Sucre",
        "Amsterdam",
        "The Hague",
        "Chihuahua",
        "Berlin",
        "Munich",
        "Jerusalem",
        "Kyiv",
        "Vienna",
        "Stockholm",
        "Saint Petersburg",
        "Buenos Aires",
    }
    assert names.isdisjoint(excluded)


# ----------------------------------------------------------------------------- the tests bite


def _break(cards: list[Card], mutate: Callable[[Card], None], index: int = 0) -> list[Card]:
    broken = copy.deepcopy(cards)
    mutate(broken[index])
    return broken


def test_checks_fail_on_a_bad_deck(cards: list[Card], schema: dict[str, Any]) -> None:
    def flip_coast(c: Card) -> None:
        c["statements"]["coast"] = not c["statements"]["coast"]

    def near_million(c: Card) -> None:
        c["population"] = 1_020_000
        c["statements"]["population"] = True

    def drop_source(c: Card) -> None:
        c["sources"]["founded"] = ""

    def bad_iata(c: Card) -> None:
        c["airport_iata"] = "paris"

    assert statement_errors(_break(cards, flip_coast))
    assert margin_errors(_break(cards, near_million))
    assert source_errors(_break(cards, drop_source))
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(_break(cards, bad_iata)))
    all_capitals = copy.deepcopy(cards)
    for c in all_capitals:
        c["capital"] = True
    assert "capital: 100.0%" in share_errors(all_capitals)
