"""bot/data/cities/ against its JSON Schema and against the content design's own totals."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from jsonschema import Draft202012Validator

from bot.games.cities import scoring
from bot.games.cities.content import CONTENT, CONTENT_FILES, DATA_DIR, read_raw


def test_every_content_file_is_valid_against_the_schema() -> None:
    schema = json.loads((DATA_DIR / "schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(read_raw()), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert {p.stem for p in DATA_DIR.glob("*.json")} == {*CONTENT_FILES, "schema"}


def test_the_schema_refuses_broken_content() -> None:
    schema = json.loads((DATA_DIR / "schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    raw = read_raw()
    raw["scoring_cards"][0]["params"] = {"colour": "R", "min_height": 3}  # no max_height
    assert not validator.is_valid(raw)
    raw = read_raw()
    raw["tiles"][0]["rows"] = ["RX", "PB"]
    assert not validator.is_valid(raw)
    raw = read_raw()
    raw["cities"][0]["achievements"][0]["type"] = "unknown"
    assert not validator.is_valid(raw)


def test_ids_are_unique() -> None:
    raw = read_raw()
    for name in ("tiles", "features", "scoring_cards"):
        ids = [item["id"] for item in raw[name]]
        assert len(ids) == len(set(ids)), name
    achievement_ids = [a["id"] for c in raw["cities"] for a in c["achievements"]]
    assert len(achievement_ids) == len(set(achievement_ids)) == 24


def test_four_starting_tiles_and_thirty_two_city_tiles_with_balanced_colours() -> None:
    assert len(CONTENT.starting_tiles) == 4
    assert len(CONTENT.city_tiles) == 32
    spaces = Counter("".join("".join(t.rows) for t in CONTENT.tiles.values()))
    assert spaces == {"R": 20, "B": 20, "G": 20, "Y": 20, "P": 32, "W": 32}
    for tile_id in CONTENT.starting_tiles:
        codes = Counter("".join(CONTENT.tiles[tile_id].rows))
        assert codes["P"] == codes["W"] == 1  # equal value, so the pick order is taste


def test_forty_eight_feature_tiles() -> None:
    by_kind = Counter((f.background, f.kind) for f in CONTENT.features.values())
    assert by_kind == {
        ("water", "Sailboat"): 5, ("water", "Ferry"): 5, ("water", "Kayaks"): 4,
        ("water", "Swimmers"): 4, ("park", "Fountain"): 5, ("park", "Playground"): 5,
        ("park", "Picnic area"): 4, ("park", "Bandstand"): 4, ("grey", "Monument"): 8,
        ("grey", "Wild"): 4,
    }


def test_thirty_two_scoring_cards_each_with_a_counting_rule() -> None:
    assert len(CONTENT.cards) == 32
    assert {card.type for card in CONTENT.cards.values()} <= set(scoring.CARD_RULES)
    assert set(CONTENT.card_hints) == set(CONTENT.cards)


@pytest.mark.parametrize("city", sorted(CONTENT.cities))
def test_each_city_has_an_easy_a_medium_and_a_hard_achievement(city: str) -> None:
    achievements = CONTENT.cities[city].achievements
    assert [a.tier for a in achievements] == ["easy", "medium", "hard"]
    assert [a.rings for a in achievements] == [(5, 3, 2), (6, 4, 2), (8, 5, 3)]
    assert [a.ring_values(2) for a in achievements] == [(5, 2), (6, 2), (8, 3)]
    assert all(a.type in scoring.ACHIEVEMENT_RULES for a in achievements)


def test_the_eight_cities() -> None:
    assert sorted(CONTENT.cities) == sorted([
        "New York City", "Rio de Janeiro", "Venice", "Sydney", "Barcelona", "Lisbon",
        "Buenos Aires", "Mexico City",
    ])
    assert CONTENT.city("rio de janeiro") is CONTENT.cities["Rio de Janeiro"]
    assert CONTENT.city("nyc") is CONTENT.cities["New York City"]
    assert CONTENT.city("Atlantis") is None


def test_area_and_monument_values() -> None:
    assert CONTENT.area_vp == (0, 1, 3, 6, 10)
    assert CONTENT.monument_vp == 2
