"""Big City placements: the refusals a player reads and the sites a player is offered.

City: neighbourhoods 1 (cells x 0-2, y 0-2), 2 (east, x 3-6, y 0-1) and 3 (south, x 0-2,
y 3-5); property n1 is the north-west cell of neighbourhood n, numbered row by row.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.content import BUILDINGS, Card
from bot.games.bigcity.geometry import ROTATIONS
from bot.games.bigcity.legality import (
    build_problem,
    building_sites,
    placement_options,
    placement_problem,
    special_problem,
)
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")
ALL_HELD: list[Card] = [*range(11, 20), *range(21, 29), *range(31, 40)]


def city(*pieces: tuple[str, list[int], str], streetcars: list[Any] | None = None) -> City:
    return City(position(neighborhoods=CITY, pieces=list(pieces), streetcars=streetcars))


def problem(c: City, building: str, props: list[int]) -> str | None:
    return build_problem(c, ALL_HELD, building, props)


def test_when_a_building_runs_out_the_refusal_names_it_in_the_plural() -> None:
    # "If there are no more buildings of the type desired, the building may not be placed."
    pairs = [[11, 12], [14, 15], [17, 18], [21, 22], [23, 24], [25, 26]]
    c = city(*[("double_business", pair, "bob") for pair in pairs])
    assert problem(c, "double_business", [27, 28]) == "No double businesses are left."
    assert problem(c, "double_residence", [27, 28]) is None
    c = city(CITY_HALL, ("church", [11], "ann"), ("church", [22], "bob"))
    assert problem(c, "church", [33]) == "No churches are left."
    c = city(CITY_HALL, *[("cinema", [p], "bob") for p in (11, 13, 17)])
    assert problem(c, "cinema", [33]) == "No cinemas are left."


def test_nothing_is_built_over_a_streetcar_not_even_a_park() -> None:
    # "Streetcars may not be placed across a property or a building" and "No buildings or
    # streetcars may be removed to make room for a park or a factory."
    between_32_and_35 = [[1, 4], [2, 4]]
    c = city(CITY_HALL, streetcars=[between_32_and_35])
    assert special_problem(c, "central_park", [32, 35, 38]) == (
        "A streetcar runs between those properties; nothing may be built over it."
    )
    assert special_problem(city(CITY_HALL), "central_park", [32, 35, 38]) is None


def test_a_factory_with_exactly_two_properties_on_the_outskirts_is_allowed() -> None:
    # "a factory must have two properties on the outskirts of the city"
    c = city(CITY_HALL)
    assert special_problem(c, "stanford_corporation", [35, 38, 39]) is None  # 38, 39 south
    assert special_problem(c, "stanford_corporation", [32, 35, 36]) == (
        "A factory must have at least two properties on the outskirts."
    )  # only 36 (east side) is on the outskirts


def test_a_property_named_twice_is_refused() -> None:
    assert problem(city(), "double_residence", [12, 12]) == "Name each property once."


def test_a_building_on_the_wrong_number_of_properties_is_told_how_many() -> None:
    assert problem(city(), "double_residence", [12]) == "A double residence needs 2 properties."
    assert problem(city(), "triple_business", [12, 13]) == ("A triple business needs 3 properties.")


def test_the_last_building_of_a_kind_may_still_be_built() -> None:
    pairs = [[11, 12], [14, 15], [17, 18], [21, 22], [23, 24]]
    c = city(*[("double_residence", pair, "bob") for pair in pairs])
    assert problem(c, "double_residence", [25, 26]) is None  # the sixth and last
    cinemas = [("cinema", [11], "ann"), ("cinema", [17], "bob")]
    homes = [("single_residence", [32], "bob"), ("single_residence", [34], "bob")]
    c = city(CITY_HALL, *cinemas, *homes)
    assert problem(c, "cinema", [31]) is None  # the third of three cinemas


def legal_sites(c: City, hand: list[int]) -> list[tuple[str, list[int]]]:
    """Every (building, properties) the rules allow, found the slow way."""
    found = []
    for size in (1, 2, 3):
        for props in combinations(sorted(hand), size):
            for building in BUILDINGS:
                if build_problem(c, hand, building, list(props)) is None:
                    found.append((building, list(props)))
    return sorted(found)


@pytest.mark.parametrize(
    "hand",
    [
        [11, 14, 17, 12],  # a column down the west side of neighbourhood 1, and 12
        [13, 21, 22, 16, 19],  # a row across two neighbourhoods, and a column
        [31, 34, 37, 38, 39, 35],
    ],
)
def test_every_building_the_rules_allow_is_offered_and_nothing_else(hand: list[int]) -> None:
    for c in (
        city(),
        city(CITY_HALL, ("single_residence", [18], "bob"), ("single_business", [32], "ann")),
    ):
        offered = building_sites(c, hand)
        assert sorted(offered) == legal_sites(c, hand)
        assert len(offered) == len(set((b, tuple(p)) for b, p in offered))


def test_an_offered_column_of_three() -> None:
    sites = building_sites(city(), [11, 14, 17])
    assert ("triple_residence", [11, 14, 17]) in sites
    assert ("double_business", [11, 14]) in sites and ("double_business", [14, 17]) in sites


def legal_placements(c: City, number: int) -> list[tuple[tuple[int, int], int]]:
    """Every (at, rotation) the rules allow, found the slow way."""
    return sorted(
        ((x, y), rotation)
        for x in range(-6, 12)
        for y in range(-6, 12)
        for rotation in ROTATIONS
        if placement_problem(c, number, (x, y), rotation) is None
    )


@pytest.mark.parametrize("number", [2, 5])
def test_every_neighbourhood_placement_the_rules_allow_is_offered(number: int) -> None:
    # "Each new neighborhood must be placed so that at least two properties on the new
    # neighborhood are adjacent to two properties already in the city. Neighborhoods may
    # not overlap."
    for placed in ([], [(3, (0, 3), 0)], [(3, (3, 1), 0)]):
        c = City(position(neighborhoods=placed, pieces=[CITY_HALL]))
        assert sorted(placement_options(c, number)) == legal_placements(c, number)


def test_a_neighbourhood_touching_the_city_along_just_two_properties_is_offered() -> None:
    c = City(position(neighborhoods=[], pieces=[CITY_HALL]))
    # neighbourhood 3 east of 1, one row lower: 31 and 34 touch 13 and 16
    assert placement_problem(c, 3, (3, 1), 0) is None
    assert ((3, 1), 0) in placement_options(c, 3)
    assert placement_problem(c, 3, (3, 2), 0) == (
        "At least two of its properties must be next to two properties of the city."
    )
    assert ((3, 2), 0) not in placement_options(c, 3)


def test_cards_of_properties_under_a_park_or_factory_are_useless() -> None:
    # "Property cards, which refer to a property where a park or a factory has been placed
    # are useless to the player holding them because they cannot be used."
    state = position(
        neighborhoods=CITY,
        pieces=[
            CITY_HALL,
            ("single_residence", [11], "bob"),
            ("lincoln_park", [35, 38], "bob"),
            ("stanford_corporation", [37, 34, 31], "bob"),
        ],
        hands={"ann": [12, 11, 38, 34, "central_park"]},
    )
    assert ENGINE.view(state, "ann")["useless"] == [38, 34]
    labels = [a.label for a in ENGINE.legal(state, "ann") if a.action["type"] == "discard_useless"]
    assert labels == ["Discard useless 38, 34", "Discard useless 38", "Discard useless 34"]


def test_offered_buildings_are_labelled_with_their_properties_and_points() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [12, 13, 21, 32, 33]})
    labels = [a.label for a in ENGINE.legal(state, "ann") if a.action["type"] == "build"]
    # 12+13+21 on the north edge: 10 + 1 outskirts
    assert "Triple residence on 12+13+21 (11 pts)" in labels
    assert "Single business on 32 (3 pts)" in labels


def test_a_refusal_starts_with_the_right_article() -> None:
    # Every building in the box starts with a consonant ("A factory needs …"); the sentence
    # helper is ready for one that does not, as English wants it.
    from bot.games.bigcity.legality import a_or_an

    assert a_or_an("Factory") == "A factory"
    assert a_or_an("office tower") == "An office tower"
    assert a_or_an("Apartment") == "An apartment"  # the title's own capital goes
