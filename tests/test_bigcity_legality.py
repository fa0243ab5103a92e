"""Big City building prerequisites: what may stand where, and the sentence when it may not.

The city of these tests (see test_bigcity_scoring.py): neighbourhoods 1, 2 (east) and 3
(south); ``CITY_HALL`` puts city hall on 15.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.content import Card
from bot.games.bigcity.legality import build_problem, building_sites, special_problem, special_sites
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")
ALL_HELD: list[Card] = [*range(11, 20), *range(21, 29), *range(31, 40)]


def city(*pieces: tuple[str, list[int], str], streetcars: list[Any] | None = None) -> City:
    return City(position(neighborhoods=CITY, pieces=list(pieces), streetcars=streetcars))


def problem(c: City, building: str, props: list[int], hand: list[Card] | None = None) -> str | None:
    return build_problem(c, ALL_HELD if hand is None else hand, building, props)


def test_residences_and_businesses_need_the_cards_of_free_properties_in_the_city() -> None:
    c = city(("single_residence", [11], "bob"))
    assert problem(c, "single_residence", [12]) is None
    assert (
        problem(c, "single_residence", [12], hand=[13])
        == "You do not hold the card for property 12."
    )
    assert problem(c, "single_residence", [11]) == "Property 11 is already built on."
    assert problem(c, "single_residence", [41]) == "Property 41 is not in the city yet."
    assert problem(c, "single_residence", [10]) == "There is no property 10."
    assert problem(c, "single_business", [12, 13]) == "A single business needs 1 property."
    assert problem(c, "skyscraper", [12]) == "There is no building called 'skyscraper'."


def test_double_buildings_need_adjacent_properties_even_across_neighbourhoods() -> None:
    c = city()
    assert problem(c, "double_residence", [13, 21]) is None
    assert (
        problem(c, "double_business", [12, 16])
        == "A double business must stand on two adjacent properties."
    )


def test_triple_buildings_need_three_properties_in_a_straight_line() -> None:
    c = city()
    assert problem(c, "triple_residence", [12, 13, 21]) is None
    assert problem(c, "triple_business", [15, 18, 32]) is None
    assert problem(c, "triple_residence", [12, 13, 16]) == (
        "A triple residence must stand on three properties in a straight line."
    )
    assert problem(c, "triple_residence", [11, 13, 21]) is not None  # a gap at 12


def test_a_building_runs_out() -> None:
    c = city(
        *[("triple_residence", [p, p + 1, p + 2], "bob") for p in (31, 34, 37)],
        ("triple_residence", [17, 18, 19], "bob"),
    )
    assert problem(c, "triple_residence", [11, 12, 13]) == "No triple residences are left."
    c = city(CITY_HALL)
    assert problem(c, "city_hall", [32]) == "City hall is already built."


def test_city_hall_only_in_the_center() -> None:
    c = city()
    assert problem(c, "city_hall", [15]) is None
    assert problem(c, "city_hall", [16]) is None  # neighbourhood 2 closes its east side
    assert (
        problem(c, "city_hall", [11])
        == "City hall must be built in the center of the city, not on the outskirts."
    )


@pytest.mark.parametrize("building", ["church", "cinema", "post_office", "bank", "shopping_center"])
def test_special_buildings_wait_for_city_hall(building: str) -> None:
    size = 2 if building == "shopping_center" else 1
    reason = problem(city(), building, [11, 12][:size])
    assert reason is not None and reason.endswith("can only be built after city hall.")


def test_church_on_a_double_number_as_the_last_free_property_of_its_neighbourhood() -> None:
    nearly_full = [("single_residence", [p], "bob") for p in (12, 13, 14, 16, 17, 18, 19)]
    c = city(CITY_HALL, *nearly_full)
    assert problem(c, "church", [11]) is None
    c = city(CITY_HALL, *nearly_full[1:])
    assert (
        problem(c, "church", [11]) == "A church must be the last free property of its neighborhood."
    )
    c = city(CITY_HALL, *[("single_residence", [p], "bob") for p in (11, 13, 14, 16, 17, 18, 19)])
    assert (
        problem(c, "church", [12])
        == "A church must stand on a double-numbered property (11, 22, … 88)."
    )


def test_church_counts_parks_and_factories_as_filled_properties() -> None:
    rest = [("single_residence", [p], "bob") for p in (21, 23, 24, 27, 28)]
    c = city(CITY_HALL, ("lincoln_park", [25, 26], "ann"), *rest)
    assert problem(c, "church", [22]) is None


def test_cinema_needs_two_separate_residences() -> None:
    double = ("double_residence", [12, 13], "bob")
    assert (
        problem(city(CITY_HALL, double), "cinema", [16])
        == "A cinema must be next to two separate residences."
    )
    c = city(CITY_HALL, double, ("single_residence", [19], "bob"))
    assert problem(c, "cinema", [16]) is None


def test_bank_needs_two_separate_businesses_and_post_office_one_of_each() -> None:
    c = city(CITY_HALL, ("single_business", [13], "bob"), ("single_residence", [19], "bob"))
    assert problem(c, "bank", [16]) == "A bank must be next to two separate businesses."
    assert problem(c, "post_office", [16]) is None
    c = city(CITY_HALL, ("single_business", [13], "bob"), ("single_business", [19], "bob"))
    assert problem(c, "bank", [16]) is None
    assert (
        problem(c, "post_office", [16])
        == "A post office must be next to a residence and a business."
    )


def test_shopping_center_needs_residence_business_special_building_and_streetcar() -> None:
    # on 12+13: residence 11 and city hall 15 touch 12, business 16 touches 13, and the
    # streetcar runs north of 12 — "to either and not all need to be adjacent to the same"
    north_of_12 = [[1, 0], [2, 0]]
    residence, business = ("single_residence", [11], "bob"), ("single_business", [16], "bob")
    assert (
        problem(
            city(CITY_HALL, residence, business, streetcars=[north_of_12]),
            "shopping_center",
            [12, 13],
        )
        is None
    )
    c = city(CITY_HALL, residence, ("single_business", [19], "bob"), streetcars=[north_of_12])
    assert (
        problem(c, "shopping_center", [12, 13]) == "A shopping center must be next to a business."
    )
    c = city(CITY_HALL, residence, business)
    assert (
        problem(c, "shopping_center", [12, 13])
        == "A shopping center must be next to the streetcar line."
    )
    c = city(residence, business, ("city_hall", [35], "bob"), streetcars=[north_of_12])
    assert (
        problem(c, "shopping_center", [12, 13])
        == "A shopping center must be next to a special building."
    )
    c = city(CITY_HALL, ("single_business", [16], "bob"), streetcars=[north_of_12])
    assert (
        problem(c, "shopping_center", [12, 13]) == "A shopping center must be next to a residence."
    )
    c = city(("city_hall", [35], "bob"))
    assert problem(c, "shopping_center", [12, 13]) == (
        "A shopping center must be next to a residence, a business, a special building and the streetcar line."
    )


def test_nothing_is_built_over_a_streetcar() -> None:
    between_12_and_13 = [[2, 0], [2, 1]]
    c = city(CITY_HALL, streetcars=[between_12_and_13])
    assert problem(c, "double_residence", [12, 13]) == (
        "A streetcar runs between those properties; nothing may be built over it."
    )
    assert problem(c, "single_residence", [12]) is None
    assert special_problem(c, "lincoln_park", [12, 13]) is not None


def test_parks_and_factories() -> None:
    c = city()
    assert (
        special_problem(c, "lincoln_park", [35, 38])
        == "Parks and factories can only be placed after city hall."
    )
    c = city(CITY_HALL)
    assert special_problem(c, "lincoln_park", [35, 38]) is None  # 38 alone is on the outskirts
    assert (
        special_problem(c, "lincoln_park", [37, 38])
        == "A park may have at most one property on the outskirts."
    )
    assert special_problem(c, "central_park", [32, 35, 38]) is None
    assert (
        special_problem(c, "central_park", [32, 35, 36])
        == "Central Park needs three properties in a line."
    )
    assert special_problem(c, "stanford_corporation", [37, 38, 34]) is None
    assert special_problem(c, "stanford_corporation", [35, 32, 36]) == (
        "A factory must have at least two properties on the outskirts."
    )
    assert special_problem(c, "rockwell_industries", [23, 24, 27, 28]) is None
    assert (
        special_problem(c, "rockwell_industries", [21, 22, 23, 24])
        == "Rockwell Industries needs four properties in a square."
    )
    assert (
        special_problem(c, "rockwell_industries", [15, 16, 18, 19])
        == "Property 15 is already built on."
    )
    placed = city(CITY_HALL, ("lincoln_park", [35, 38], "ann"))
    assert (
        special_problem(placed, "lincoln_park", [32, 33]) == "Lincoln Park is already in the city."
    )


def test_every_offered_site_is_legal() -> None:
    c = city(CITY_HALL, ("single_residence", [11], "bob"), ("single_business", [16], "bob"))
    sites = building_sites(c, [12, 13, 14, 17, 21])
    assert ("double_residence", [12, 13]) in sites
    assert ("shopping_center", [12, 13]) not in sites  # no streetcar yet
    assert ("triple_business", [12, 13, 21]) in sites
    assert all(build_problem(c, [12, 13, 14, 17, 21], b, p) is None for b, p in sites)
    for card in ("lincoln_park", "central_park", "stanford_corporation", "rockwell_industries"):
        sites_of_card = special_sites(c, card)
        assert sites_of_card
        assert all(special_problem(c, card, p) is None for p in sites_of_card)


def refusal(state: dict[str, Any], player: str | None, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, player, action)
    return str(caught.value)


def test_engine_refuses_with_the_same_sentences() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 13, 14, "lincoln_park"]})
    build_church = {"type": "build", "building": "church", "properties": [11]}
    assert refusal(state, "ann", build_church) == "A church can only be built after city hall."
    park = {"type": "special", "card": "lincoln_park", "properties": [32, 35]}
    assert refusal(state, "ann", park) == "Parks and factories can only be placed after city hall."
    central = {"type": "special", "card": "central_park", "properties": [32, 35, 38]}
    assert refusal(state, "ann", central) == "You do not hold the Central Park card."
    place = {"type": "place_neighborhood", "neighborhood": 4, "at": [3, 2], "rotation": 0}
    assert refusal(state, "ann", place) == "New neighborhoods can only be added after city hall."
    assert refusal(state, "bob", {"type": "pass"}) == "It is not your turn."
    assert refusal(state, "ann", {"type": "fly"}) == "Unknown action 'fly'."
    assert refusal(state, None, {"type": "pass"}) == "Only a player of this game can do that."
    words = {"type": "build", "building": "single_residence", "properties": ["eleven"]}
    assert refusal(state, "ann", words) == "A property must be a whole number."
    nowhere = {"type": "build", "building": "single_residence"}
    assert refusal(state, "ann", nowhere) == "Say which properties to build on."


def test_parks_and_factories_need_no_property_cards() -> None:
    state = position(
        neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": ["lincoln_park", 11, 12, 13, 14]}
    )
    after, _ = ENGINE.apply(
        state, "ann", {"type": "special", "card": "lincoln_park", "properties": [38, 35]}
    )
    assert after["buildings"][-1]["properties"] == [35, 38]
    assert "lincoln_park" not in after["hands"]["ann"]
    assert ENGINE.view(after, None)["parks_and_factories_left"] == [
        "central_park",
        "stanford_corporation",
        "rockwell_industries",
    ]
