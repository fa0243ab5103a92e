"""Big City streetcars: starting the line, extending it, branches, the variants and the limit.

Streets are written as corner pairs; ``N11`` is the street along the north side of 11.
City: neighbourhoods 1, 2 (east) and 3 (south); city hall on 15.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.geometry import Segment, normalize_segment
from bot.games.bigcity.scenario import position
from bot.games.bigcity.streetcar import LineRules, streetcar_options, streetcars_problem

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")
N11 = [[0, 0], [1, 0]]
N12 = [[1, 0], [2, 0]]
N13 = [[2, 0], [3, 0]]
W11 = [[0, 0], [0, 1]]
E11 = [[1, 0], [1, 1]]  # between 11 and 12
S11 = [[0, 1], [1, 1]]  # between 11 and 14
FAR = [[0, 5], [0, 6]]  # the west side of 37, far from the line


def seg(raw: list[list[int]]) -> Segment:
    segment = normalize_segment(raw)
    assert segment is not None
    return segment


def check(
    line: list[Any], new: list[Any], rules: LineRules | None = None, pieces: list[Any] | None = None
) -> str | None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL, *(pieces or [])], streetcars=line)
    return streetcars_problem(City(state), [seg(s) for s in new], rules or LineRules())


def test_the_line_starts_after_city_hall_with_one_streetcar_anywhere() -> None:
    state = position(neighborhoods=CITY)
    assert streetcars_problem(City(state), [seg(N11)], LineRules()) == (
        "The streetcar line can only be started after city hall."
    )
    assert check([], [N11]) is None  # the outer edge is a street too
    assert check([], [[[2, 4], [2, 5]]]) is None  # between 35 and 36
    assert (
        check([], [N11, N12])
        == "The player who starts the streetcar line places only one streetcar."
    )
    assert check([], [[[20, 0], [21, 0]]]) == "A streetcar must run along a street of the city."


def test_new_streetcars_extend_the_line_at_ends_middle_or_as_branches() -> None:
    assert check([N11], [N12]) is None
    assert check([N11], [W11]) is None
    assert check([N11], [N12, N13]) is None  # both at the same end
    assert check([N11], [W11, N12]) is None  # one at each end
    assert check([N11, N12], [E11]) is None  # a branch from the middle
    assert check([N11], [N13]) == "New streetcars must join the streetcar line."
    assert check([N11], [N12, FAR]) == "New streetcars must join the streetcar line."
    assert check([N11], [N11]) is not None
    assert check([N11], [N12, N12]) == "Place each streetcar on a different street."
    assert check([N11], [N12, N13, [[3, 0], [4, 0]]]) == "Place one or two streetcars in a turn."


def test_single_line_variant_refuses_branches_and_loops() -> None:
    single = LineRules(single_line=True)
    assert check([N11, N12], [N13], single) is None
    assert check([N11, N12], [N13, W11], single) is None  # one on each end
    assert check([N11, N12], [E11], single) == (
        "Streetcars must extend an end of the line, without branches or loops."
    )
    assert check([N11, E11, S11], [W11]) is None  # a loop is fine in the normal game
    assert check([N11, E11, S11], [W11], single) is not None


def test_limited_variant_runs_only_along_buildings() -> None:
    limited = LineRules(limited=True)
    north_of_15 = [[1, 1], [2, 1]]
    assert check([], [north_of_15], limited) is None
    assert check([], [N11], limited) == (
        "In this game a streetcar must run along a building; nothing is built at north of 11."
    )
    park = ("lincoln_park", [11, 12], "ann")
    assert check([], [N11], limited, pieces=[park]) is not None  # a park is not a building


def test_streetcars_never_cross_a_building() -> None:
    double = ("double_residence", [12, 13], "ann")
    between_12_and_13 = [[2, 0], [2, 1]]
    assert check([N12], [between_12_and_13], pieces=[double]) == (
        "The street at 12–13 runs under a building; streetcars may not cross it."
    )


def test_only_seventeen_streetcars() -> None:
    # 16 streetcars along the top and down the east edge of neighbourhood 2
    line = [[[x, 0], [x + 1, 0]] for x in range(7)] + [[[7, y], [7, y + 1]] for y in range(2)]
    line += [[[x, 2], [x + 1, 2]] for x in range(3, 7)] + [[[3, 2], [3, 3]]]
    assert len(line) == 14
    line += [[[2, 3], [3, 3]], [[1, 3], [2, 3]]]
    assert check(line, [[[0, 3], [1, 3]], [[0, 3], [0, 4]]]) == "Only 1 streetcar left."
    assert check(line, [[[0, 3], [1, 3]]]) is None
    line.append([[0, 3], [1, 3]])
    assert check(line, [[[0, 3], [0, 4]]]) == "All 17 streetcars are already placed."
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], streetcars=line)
    assert streetcar_options(City(state), LineRules()) == []


@pytest.mark.parametrize(
    "rules", [LineRules(), LineRules(single_line=True), LineRules(limited=True)]
)
def test_every_offered_streetcar_placement_is_legal(rules: LineRules) -> None:
    pieces = [("single_residence", [12], "ann"), ("double_business", [31, 32], "bob")]
    for line in ([], [N12], [N11, N12, E11]):
        city = City(position(neighborhoods=CITY, pieces=[CITY_HALL, *pieces], streetcars=line))
        options = streetcar_options(city, rules)
        assert options or rules.limited
        assert all(streetcars_problem(city, s, rules) is None for s in options)
        assert len({tuple(sorted(s)) for s in options}) == len(options)
        if not line:
            assert all(len(s) == 1 for s in options)
        elif not rules.limited:
            assert any(len(s) == 2 for s in options)


def test_placing_streetcars_is_a_whole_turn_without_drawing() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], streetcars=[N11])
    after, events = ENGINE.apply(
        state, "ann", {"type": "streetcar", "segments": [N12, [[3, 0], [2, 0]]]}
    )
    assert events[0]["type"] == "streetcars_placed"
    assert events[0]["where"] == ["north of 12", "north of 13"]
    assert events[-1] == {"type": "turn", "player": "bob"}
    public = ENGINE.view(after, None)
    assert public["streetcars"] == [N11, N12, N13]
    assert public["streetcars_left"] == 14
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, "ann", {"type": "streetcar", "segments": [[[0, 0], [2, 0]]]})
    assert str(caught.value) == "A streetcar covers one street between two neighbouring corners."
    labels = [a.label for a in ENGINE.legal(state, "ann") if a.action["type"] == "streetcar"]
    assert "Streetcar north of 12" in labels
    assert "Streetcars north of 12 and north of 13" in labels


def test_the_streetcar_variants_are_match_options() -> None:
    line = [N11, N12]
    single = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL],
        streetcars=line,
        options={"single_streetcar_line": True},
    )
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(single, "ann", {"type": "streetcar", "segments": [E11]})
    assert (
        str(caught.value) == "Streetcars must extend an end of the line, without branches or loops."
    )
    limited = position(
        neighborhoods=CITY, pieces=[CITY_HALL], options={"limited_streetcar_line": True}
    )
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(limited, "ann", {"type": "streetcar", "segments": [N11]})
    assert str(caught.value).startswith("In this game a streetcar must run along a building")
    ENGINE.apply(limited, "ann", {"type": "streetcar", "segments": [[[1, 1], [2, 1]]]})
