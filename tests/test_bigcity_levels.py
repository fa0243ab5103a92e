"""Big City's hard computer player looks past its own turn."""

from __future__ import annotations

import pytest

from bot.core.levels import Budget, decide
from bot.games.bigcity import GAME
from bot.games.bigcity.city import City
from bot.games.bigcity.content import Card
from bot.games.bigcity.geometry import normalize_segment, sides
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
BUDGET = Budget(iterations=0, seconds=None)  # play-out counts only: the same move anywhere


@pytest.mark.parametrize("hand", [[11, 12, 27, 28, 24], [27, 28, 11, 13, 24]])
def test_hard_lays_a_streetcar_along_its_properties_before_building_on_them(
    hand: list[Card],
) -> None:
    # Normal builds the double residence on 27+28 now; a streetcar along them first doubles
    # what that building scores next turn, which only a look past this turn sees.
    state = position(neighborhoods=CITY, pieces=[("city_hall", [35], "bob")], hands={"ann": hand})
    assert GAME.computer.normal(state, "ann")["type"] == "build"
    action = decide(GAME.computer, state, "ann", "hard", BUDGET)
    assert action["type"] == "streetcar"
    city = City(state)
    laid = {normalize_segment(s) for s in action["segments"]}
    assert any(laid & set(sides(city.cell_of[p])) for p in (27, 28))
    # and it is the same move every time for the same position
    assert decide(GAME.computer, state, "ann", "hard", BUDGET) == action


def test_hard_builds_at_once_where_track_does_not_pay() -> None:
    # It does not lay track for its own sake: with this hand it builds what normal builds.
    state = position(
        neighborhoods=CITY, pieces=[("city_hall", [35], "bob")], hands={"ann": [27, 28, 17, 18, 37]}
    )
    action = decide(GAME.computer, state, "ann", "hard", BUDGET)
    assert action == {"type": "build", "building": "double_residence", "properties": [27, 28]}
