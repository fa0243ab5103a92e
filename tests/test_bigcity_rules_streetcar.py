"""Big City streetcars: exactly which streets a player is offered, and the refusals.

City: neighbourhoods 1, 2 (east) and 3 (south); city hall on 15. Streets are corner pairs,
cell (x, y) having corners (x, y) to (x + 1, y + 1); 11 is cell (0, 0), 15 is cell (1, 1).
The offered placements are written as the game words them ("north of 12", "11–12").
"""

from __future__ import annotations

from typing import Any

from bot.games.bigcity.city import City
from bot.games.bigcity.geometry import Segment, normalize_segment
from bot.games.bigcity.scenario import position
from bot.games.bigcity.streetcar import LineRules, streetcar_options, streetcars_problem

# the same city and streets as the streetcar rules through the engine
from tests.test_bigcity_streetcar import CITY, CITY_HALL, E11, N11, N12, N13, S11, W11

SINGLE = LineRules(single_line=True)
E12 = [[2, 0], [2, 1]]  # between 12 and 13
N15 = [[1, 1], [2, 1]]  # between 12 and 15


def seg(raw: list[list[int]]) -> Segment:
    segment = normalize_segment(raw)
    assert segment is not None
    return segment


def city_with(line: list[Any], pieces: list[Any] | None = None) -> City:
    return City(position(neighborhoods=CITY, pieces=[CITY_HALL, *(pieces or [])], streetcars=line))


def check(line: list[Any], new: list[Any], rules: LineRules | None = None) -> str | None:
    return streetcars_problem(city_with(line), [seg(s) for s in new], rules or LineRules())


def offered(city: City, rules: LineRules | None = None) -> list[list[str]]:
    return [
        [city.describe_segment(s) for s in option]
        for option in streetcar_options(city, rules or LineRules())
    ]


def long_line(length: int) -> list[Any]:
    """A line of ``length`` streetcars: along the top, down the east edge of neighbourhood
    2, back west along its south side and on along the north side of neighbourhood 3."""
    line = [[[x, 0], [x + 1, 0]] for x in range(6)] + [[[6, y], [6, y + 1]] for y in range(3)]
    line += [[[x, 3], [x + 1, 3]] for x in range(5, -1, -1)]
    line += [[[0, 3], [0, 4]], [[0, 4], [0, 5]]]
    assert length <= len(line)
    return line[:length]


def test_an_empty_streetcar_placement_is_refused() -> None:
    assert check([N11], []) == "Place at least one streetcar."


def test_a_streetcar_on_a_street_that_already_has_one_is_refused_by_name() -> None:
    assert check([N11, N12], [N12]) == "A streetcar already runs at north of 12."
    assert check([N11], [N12, E11]) is None


def test_the_pair_is_tried_in_either_order() -> None:
    # "two streetcars may be added each turn ... The new streetcars that are placed must
    # extend the existing streetcar line": the second may extend the first.
    assert check([N11], [N13, N12]) is None
    assert check([N11], [N12, N13]) is None
    assert check([N11], [[[3, 0], [4, 0]], N13]) == "New streetcars must join the streetcar line."


def test_single_line_grows_at_its_ends_in_both_directions() -> None:
    assert check([N11], [N12, N13], SINGLE) is None  # east, twice at the same end
    assert check([N13], [N12, N11], SINGLE) is None  # west, twice at the same end
    assert check([N11], [W11, N12], SINGLE) is None  # one at each end


def test_single_line_refuses_a_branch_at_a_corner_the_turn_has_just_reached() -> None:
    branch = "Streetcars must extend an end of the line, without branches or loops."
    # N13 makes 12's north-east corner part of the line's middle; 12–13 would branch there
    assert check([N12], [N13, E12], SINGLE) == branch
    # the same going west: N11 passes the corner above 11–12
    assert check([N12], [N11, E11], SINGLE) == branch
    # two streets meeting at the corner under 12's west side: that corner is no end
    assert check([S11, E11], [N15], SINGLE) == branch
    assert check([S11, E11], [N15]) is None  # a branch is fine in the normal game
    assert check([N11, E11, S11], [W11], SINGLE) == branch  # closing a loop


def test_offered_single_streetcars_are_every_street_touching_the_line() -> None:
    # north of 15: both of its corners lie inside the city, so streets go out each way
    singles = [option for option in offered(city_with([N15])) if len(option) == 1]
    assert singles == [["11–14"], ["11–12"], ["14–15"], ["12–13"], ["15–16"], ["13–16"]]


def test_single_line_offers_ends_only_in_single_and_pair_placements() -> None:
    assert offered(city_with([N11]), SINGLE) == [
        ["west of 11"],
        ["11–12"],
        ["north of 12"],
        ["west of 11", "west of 14"],
        ["west of 11", "11–14"],
        ["west of 11", "11–12"],
        ["west of 11", "north of 12"],
        ["11–14", "11–12"],
        ["11–12", "14–15"],
        ["11–12", "12–15"],
        ["north of 12", "12–13"],
        ["north of 12", "north of 13"],
    ]


def test_offered_pairs_skip_streets_that_cannot_carry_a_streetcar() -> None:
    # the double residence on 12+13 covers the street between them; the line runs north of
    # 12, so 12–13 is never offered, alone or as the second of a pair
    double = ("double_residence", [12, 13], "ann")
    options = offered(city_with([N12], pieces=[double]))
    assert ["12–13"] not in options
    assert not any("12–13" in option for option in options)
    assert ["north of 13"] in options
    assert ["north of 13", "north of 21"] in options


def test_pairs_are_offered_while_two_streetcars_are_left() -> None:
    line = long_line(15)
    city = city_with(line)
    options = offered(city)
    assert ["west of 31"] in options
    assert ["west of 31", "west of 34"] in options
    assert check(line, [[[0, 3], [0, 4]], [[0, 4], [0, 5]]]) is None  # the last two


def test_with_one_streetcar_left_only_single_streetcars_are_offered() -> None:
    line = long_line(16)
    city = city_with(line)
    options = offered(city)
    assert options and all(len(option) == 1 for option in options)
    assert ["west of 34"] in options
    assert check(line, [[[0, 4], [0, 5]], [[0, 5], [0, 6]]]) == "Only 1 streetcar left."


def test_the_first_streetcar_may_go_on_any_free_street() -> None:
    # "The first streetcar may, however, be placed on any street in the city, even a street
    # on the outskirts of the city."
    double = ("double_residence", [12, 13], "ann")
    city = city_with([], pieces=[double])
    options = offered(city)
    assert len(options) == len(city.streets()) - 1  # all but the street under 12+13
    assert ["12–13"] not in options
    assert ["west of 11"] in options and ["south of 39"] in options
    no_hall = City(position(neighborhoods=CITY))
    assert streetcar_options(no_hall, LineRules()) == []
