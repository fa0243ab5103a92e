"""The greedy computer player makes the moves a sensible player would."""

from __future__ import annotations

import random

from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity.ai import _specials, patience
from bot.games.bigcity.city import City
from bot.games.bigcity.content import Card
from bot.games.bigcity.geometry import adjacent, property_cell
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")


def test_it_builds_the_best_scoring_building() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[("city_hall", [35], "bob")],
        streetcars=[[[0, 0], [1, 0]], [[1, 0], [2, 0]]],
        hands={"ann": [11, 12, 27, 37, 38]},
    )
    action = GAME.computer.normal(state, "ann")
    # 14 points: more than a double business there (12) or anything on 27, 37, 38
    assert action == {"type": "build", "building": "double_residence", "properties": [11, 12]}
    assert GAME.computer.normal(state, "ann") == action  # same state, same move


def test_it_builds_city_hall_when_it_can() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [15, 37, 24, 44, 45]})
    assert GAME.computer.normal(state, "ann") == {
        "type": "build",
        "building": "city_hall",
        "properties": [15],
    }


def test_it_discards_useless_cards_first() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands={"ann": [11, 13, 31, 32, 33]},
    )
    assert GAME.computer.normal(state, "ann") == {"type": "discard_useless", "cards": [11]}


def test_it_never_buries_its_own_properties_under_a_factory() -> None:
    hand: list[Card] = ["stanford_corporation", 11, 17, 37, 24]
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": hand})
    options = _specials(City(state), hand, random.Random(1))
    assert options
    assert all(not {11, 17, 37, 24} & set(action["properties"]) for _value, action in options)
    best = max(options, key=lambda option: option[0])[1]
    # the best site keeps away from its own properties' neighbours too
    assert not {12, 14, 18, 34, 38, 23, 28} & set(best["properties"])


def test_it_exchanges_dead_cards_while_the_game_moves_and_then_passes() -> None:
    # cards of unplaced neighbourhoods are dead before city hall
    state = position(neighborhoods=CITY, hands={"ann": [51, 52, 61, 71, 81]})
    action = GAME.computer.normal(state, "ann")
    assert action["type"] == "exchange" and sorted(action["cards"]) == [51, 52, 61, 71, 81]
    state["quiet_turns"] = patience(state)
    assert GAME.computer.normal(state, "ann") == {"type": "pass"}


def test_it_places_a_neighbourhood_to_join_its_properties() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [41, 19]})
    action = GAME.computer.normal(state, "ann")
    assert action["type"] == "place_neighborhood" and action["neighborhood"] == 4
    at = (action["at"][0], action["at"][1])
    assert adjacent(property_cell(41, at, action["rotation"]), (2, 2))  # next to 19


def test_it_draws_card_by_card_within_the_limits() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [11, 12, 13, 31, 32]})
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12, 13, 31, 32]})
    drawn: list[int] = []
    while ENGINE.to_act(state) == ["ann"]:
        action = GAME.computer.normal(state, "ann")
        assert action in [a.action for a in ENGINE.legal(state, "ann")]
        drawn.extend(action["stacks"])
        state, _ = ENGINE.apply(state, "ann", action)
    assert len(drawn) == 5 and len(state["hands"]["ann"]) == 5
    assert max(drawn.count(n) for n in drawn) <= 2
