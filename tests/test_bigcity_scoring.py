"""Big City scoring, including every worked example of the rulebook.

The city of these tests: neighbourhood 1 at (0, 0), 2 east of it at (3, 0), 3 south of it
at (0, 3), city hall on 15 (the middle of neighbourhood 1).

    11 12 13 | 21 22 23 24
    14 15 16 | 25 26 27 28
    17 18 19
    31 32 33
    34 35 36
    37 38 39
"""

from __future__ import annotations

from typing import Any

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.scenario import position
from bot.games.bigcity.scoring import score_building

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
NORTH_OF_11 = [[0, 0], [1, 0]]
NORTH_OF_12 = [[1, 0], [2, 0]]
STANFORD_EAST = ("stanford_corporation", [21, 22, 25], "bob")  # an L on the outskirts


def city(pieces: list[tuple[str, list[int], str]], streetcars: list[Any] | None = None) -> City:
    state = position(
        neighborhoods=CITY, pieces=[("city_hall", [15], "bob"), *pieces], streetcars=streetcars
    )
    return City(state)


def test_worked_example_double_residence_on_outskirts_along_streetcars_scores_14() -> None:
    # "a double residence is placed with both properties at the outskirts of the city and
    # both properties are adjacent to streetcars ... the residence scores 14 points"
    score = score_building(city([], [NORTH_OF_11, NORTH_OF_12]), "double_residence", [11, 12])
    assert score.points == 14
    assert score.explanation == "6 + 1 outskirts = 7, × 2 streetcar = 14"


def test_worked_example_double_business_by_factory_city_hall_and_streetcar_scores_12() -> None:
    # "a double business on the outskirts of the city, adjacent to a factory, city hall and
    # the streetcar line scores 6 + 0 - 2 = 4 x 3 = 12 points"
    score = score_building(city([STANFORD_EAST], [NORTH_OF_12]), "double_business", [12, 13])
    assert score.points == 12
    assert score.explanation == "6 − 2 factory = 4, × 3 city hall and streetcar = 12"


def test_worked_example_double_residence_in_the_same_place_scores_10() -> None:
    # "A double residence in the same location would score 6 + 1 - 2 = 5 x 2 = 10 points.
    # The streetcar doubles the residence, but city hall does not have influence."
    score = score_building(city([STANFORD_EAST], [NORTH_OF_12]), "double_residence", [12, 13])
    assert score.points == 10
    assert score.explanation == "6 + 1 outskirts − 2 factory = 5, × 2 streetcar = 10"


def test_worked_example_single_next_to_a_factory_scores_1_and_no_multiplier() -> None:
    # "if a single residence or business is placed adjacent to a factory, the value could
    # be 0 ... the player receives 1 point total. He may not apply any multiplier"
    between_13_and_16 = [[2, 1], [3, 1]]
    c = city([STANFORD_EAST], [between_13_and_16])
    residence = score_building(c, "single_residence", [16])  # center, next to 25 (factory)
    assert residence.points == 1
    assert residence.explanation == "2 − 2 factory = 0, counts as 1"
    # a business on the outskirts next to the factory and city hall: still 1
    business = score_building(c, "single_business", [13])
    assert business.points == 1


def test_worked_examples_through_a_real_turn() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[("city_hall", [15], "bob"), STANFORD_EAST],
        streetcars=[NORTH_OF_12],
        hands={"ann": [12, 13, 31, 32, 33]},
    )
    after, events = ENGINE.apply(
        state, "ann", {"type": "build", "building": "double_business", "properties": [13, 12]}
    )
    built = next(e for e in events if e["type"] == "built")
    assert built["points"] == 12
    assert built["explanation"] == "6 − 2 factory = 4, × 3 city hall and streetcar = 12"
    assert after["scores"]["ann"] == state["scores"]["ann"] + 12
    assert ENGINE.view(after, None)["last_action"]["explanation"] == built["explanation"]


def test_park_adds_one_and_factory_takes_two_once_however_many() -> None:
    both_factories = city(
        [
            ("stanford_corporation", [11, 12, 14], "bob"),
            ("rockwell_industries", [18, 19, 32, 33], "bob"),
        ]
    )
    # 17 touches 14 (Stanford) and 18 (Rockwell): −2 once
    assert (
        score_building(both_factories, "single_residence", [17]).explanation
        == "2 + 1 outskirts − 2 factory = 1"
    )
    both_parks = city([("lincoln_park", [11, 12], "bob"), ("central_park", [18, 19, 16], "bob")])
    # 14 lies between 11 (Lincoln Park) and 15 (city hall); 17 touches 18 (Central Park)
    assert (
        score_building(both_parks, "double_residence", [14, 17]).explanation
        == "6 + 1 park + 1 outskirts = 8"
    )


def test_business_gains_in_the_center_and_doubles_next_to_city_hall() -> None:
    c = city([])
    plain = score_building(c, "single_business", [36])  # on the outskirts, no bonus at all
    assert (plain.points, plain.explanation) == (2, "2")
    by_city_hall = score_building(c, "single_business", [12])
    assert (by_city_hall.points, by_city_hall.explanation) == (4, "2 × 2 city hall = 4")
    center = score_building(c, "single_business", [35])  # 35 is surrounded by neighbourhood 3
    assert (center.points, center.explanation) == (3, "2 + 1 center = 3")
    both = score_building(c, "single_business", [16])  # 16 is in the center, next to city hall
    assert (both.points, both.explanation) == (6, "2 + 1 center = 3, × 2 city hall = 6")
    residence = score_building(c, "single_residence", [12])  # city hall does nothing for it
    assert (residence.points, residence.explanation) == (3, "2 + 1 outskirts = 3")


def test_a_building_is_on_the_outskirts_when_any_of_its_properties_is() -> None:
    c = city([])
    # 16 is in the center, 19 on the outskirts
    assert score_building(c, "double_residence", [16, 19]).explanation == "6 + 1 outskirts = 7"
    assert score_building(c, "double_business", [16, 19]).explanation == "6 × 2 city hall = 12"
    assert score_building(c, "double_business", [32, 35]).explanation == "6 + 1 center = 7"


def test_cinema_post_office_and_bank_score_5_doubled_or_tripled() -> None:
    along_16 = [[3, 1], [3, 2]]  # the street between 16 and 25
    c = city([], [along_16])
    assert score_building(c, "cinema", [35]).points == 5
    assert score_building(c, "bank", [12]).explanation == "5 bank × 2 city hall = 10"
    assert (
        score_building(c, "post_office", [16]).explanation
        == "5 post office × 3 city hall and streetcar = 15"
    )
    assert score_building(c, "cinema", [25]).explanation == "5 cinema × 2 streetcar = 10"


def test_church_and_shopping_center_take_no_bonus_and_city_hall_scores_nothing() -> None:
    c = city([], [NORTH_OF_11])
    church, shopping = score_building(c, "church", [11]), score_building(c, "shopping_center",
                                                                          [11, 12])
    assert (church.points, church.explanation) == (15, "15 church")
    assert (shopping.points, shopping.explanation) == (30, "30 shopping center")
    hall = score_building(c, "city_hall", [35])
    assert (hall.points, hall.explanation) == (0, "0 city hall")


def test_parks_and_factories_score_nothing_and_say_so_by_their_names() -> None:
    c = city([], [NORTH_OF_11])
    assert [(s.points, s.explanation) for s in (
        score_building(c, "lincoln_park", [11, 12]),
        score_building(c, "stanford_corporation", [31, 32, 34]),
    )] == [(0, "0 Lincoln Park"), (0, "0 Stanford Corporation")]


def test_a_streetcar_ending_at_a_property_or_touching_its_corner_does_not_count() -> None:
    # the street between 15 and 16 runs into the middle of the north side of 18+19
    c = city([], [[[2, 1], [2, 2]]])
    assert score_building(c, "double_residence", [18, 19]).explanation == "6 + 1 outskirts = 7"
    # the street between 12 and 13 touches 16 only at its corner (2, 1)
    c = city([], [[[2, 0], [2, 1]]])
    assert score_building(c, "single_residence", [16]).explanation == "2"
    # ... but runs along 12 and 13
    assert (
        score_building(c, "single_residence", [13]).explanation
        == "2 + 1 outskirts = 3, × 2 streetcar = 6"
    )


def test_points_are_fixed_when_a_building_is_placed() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[("city_hall", [15], "bob"), ("single_residence", [13], "ann")],
        hands={"bob": ["stanford_corporation", 31, 32, 33, 34]},
        current="bob",
    )
    before = state["buildings"][1]["points"]
    after, _ = ENGINE.apply(
        state,
        "bob",
        {"type": "special", "card": "stanford_corporation", "properties": [21, 22, 25]},
    )
    assert after["buildings"][1]["points"] == before == 3
    assert after["scores"]["ann"] == state["scores"]["ann"]
    assert after["scores"]["bob"] == state["scores"]["bob"]  # factories score nothing


def test_a_refused_build_scores_nothing_and_changes_nothing() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [12, 13, 31, 32, 33]})
    snapshot = repr(state)
    try:
        ENGINE.apply(
            state, "ann", {"type": "build", "building": "double_business", "properties": [12, 31]}
        )
    except IllegalAction as exc:
        assert str(exc) == "A double business must stand on two adjacent properties."
    else:
        raise AssertionError("a split double business was accepted")
    assert repr(state) == snapshot
