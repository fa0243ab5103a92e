"""Big City engine, as the bot and the players meet it: refusals, the menu of moves, events,
the end of a turn and of the game, and what each player's view shows and hides.

City used throughout: neighbourhoods 1 (at the origin), 2 (east) and 3 (south), as in the
other Big City tests; city hall, when there is one, on 15 (the centre of neighbourhood 1).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity.content import Card
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")
N11 = [[0, 0], [1, 0]]  # the street along the north side of 11
ROW = [(n, (x, 0), 0) for n, x in ((2, 3), (3, 7), (4, 10), (5, 14), (6, 17), (7, 21), (8, 24))]
"""All eight neighbourhoods side by side."""
HANDS: dict[str, list[Card]] = {
    "ann": [11, 12, 13, 31, 32],
    "bob": [21, 22, 23, 24, 25],
    "cy": [33, 34, 35, 36, 37],
}


def refusal(state: dict[str, Any], player: str | None, action: Any) -> str:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, player, action)
    return str(caught.value)


def new_refusal(players: Any, options: Any) -> str:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.new(players, options, 1)
    return str(caught.value)


def labels(state: dict[str, Any], player: str, kind: str) -> list[str]:
    return [a.label for a in ENGINE.legal(state, player) if a.action["type"] == kind]


def trade_table(**options: bool) -> dict[str, Any]:
    return position(
        players=["ann", "bob", "cy"],
        neighborhoods=CITY,
        hands=HANDS,
        options={"trade_cards": True, **options},
    )


# --- a new game ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        ("ann,bob", {}, "Big City is for 2 to 5 players."),
        (("ann", "bob"), {}, "Big City is for 2 to 5 players."),
        (["ann", ""], {}, "Every player must be named once."),
        (["ann", 7], {}, "Every player must be named once."),
        (["ann", "bob"], {"stacks": {"x": [11]}}, "There is no stack 'x'."),
        (["ann", "bob"], {"stacks": {None: [11]}}, "There is no stack None."),
        (["ann", "bob"], {"stacks": {"0": []}}, "There is no stack '0'."),
        (["ann", "bob"], {"stacks": {"1": 11}}, "Stack 1 must be given as a list of cards."),
        (["ann", "bob"], {"stacks": {"1": [True]}}, "Card True is not in stack 1."),
        (["ann", "bob"], {"stacks": {"8": [99]}}, "Card 99 is not in stack 8."),
    ],
)
def test_a_new_game_refuses_bad_players_and_stacks(
    players: Any, options: dict[str, Any], message: str
) -> None:
    assert new_refusal(players, options) == message


def test_options_may_be_left_out() -> None:
    no_options: list[Any] = [None, {}]
    for options in no_options:
        state = ENGINE.new(["ann", "bob"], options, 3)
        assert ENGINE.view(state, None)["options"] == {
            "trade_cards": False,
            "must_exchange_useless": False,
            "single_streetcar_line": False,
            "limited_streetcar_line": False,
            "limited_card_drawing": False,
        }


def test_a_new_game_starts_with_neighbourhood_one_and_nothing_built() -> None:
    state = ENGINE.new(["ann", "bob", "cy"], {"first_player": "bob"}, 4)
    public = ENGINE.view(state, None)
    assert public["game"] == "bigcity"
    assert public["players"] == ["ann", "bob", "cy"]
    assert public["phase"] == "setup"
    assert public["step"] == "place"
    assert public["turn"] == "bob"
    assert public["to_act"] == ["bob"]
    assert public["turn_number"] == 0
    assert [(n["number"], n["at"], n["rotation"]) for n in public["neighborhoods"]] == [
        (1, [0, 0], 0)
    ]
    assert public["unplaced_neighborhoods"] == [2, 3, 4, 5, 6, 7, 8]
    assert public["buildings"] == []
    assert public["streetcars"] == [] and public["streetcars_left"] == 17
    assert public["city_hall"] is False
    assert public["discard"] == []
    assert public["scores"] == {"ann": 0, "bob": 0, "cy": 0}
    assert public["passes"] == 0
    assert public["last_action"] is None
    assert public["draw"] is None
    assert public["trade"] is None
    assert public["ended_by"] is None
    assert public["winners"] is None
    assert ENGINE.result(state) is None
    # three players took a card from each of stacks 1-5
    assert public["stacks"] == {"1": 6, "2": 6, "3": 6, "4": 6, "5": 6, "6": 9, "7": 9, "8": 9}
    assert public["hand_sizes"] == {"ann": 5, "bob": 5, "cy": 5}


def test_a_seed_always_deals_the_same_game() -> None:
    # Finished games are archived as their seed and action log and replayed from
    # ``new`` (docs/upgrades.md), so the deal a seed makes must never change: otherwise
    # the logged moves of an old game no longer fit its cards.
    state = ENGINE.new(["ann", "bob", "cy"], {}, 2026)
    assert ENGINE.to_act(state) == ["cy"]
    assert ENGINE.view(state, None)["setup"]["order"] == ["cy", "ann", "bob"]
    assert state["hands"] == {
        "ann": [13, 26, 32, 43, 54],
        "bob": [18, 22, 36, 41, 51],
        "cy": [19, 28, 34, 44, 58],
    }
    assert state["stacks"]["1"] == [14, 11, 16, 15, 12, 17]
    assert state["stacks"]["8"] == [87, 83, "rockwell_industries", 88, 85, 86, 81, 84, 82]
    firsts = [
        ENGINE.to_act(ENGINE.new(["ann", "bob", "cy"], {}, seed))[0] for seed in range(2020, 2032)
    ]
    assert firsts == [
        "ann",
        "bob",
        "ann",
        "bob",
        "ann",
        "ann",
        "cy",
        "cy",
        "ann",
        "cy",
        "cy",
        "bob",
    ]


@pytest.mark.parametrize(
    ("players", "first", "order"),
    [
        (["ann", "bob", "cy"], "bob", ["bob", "cy", "ann"]),
        (["ann", "bob", "cy"], "cy", ["cy", "ann", "bob"]),
        (["ann", "bob"], "bob", ["bob", "ann", "bob", "ann"]),
        (["ann", "bob", "cy", "dee", "eve"], "dee", ["dee", "eve", "ann", "bob", "cy"]),
    ],
)
def test_starting_neighbourhoods_go_round_the_table_from_the_first_player(
    players: list[str], first: str, order: list[str]
) -> None:
    # "The starting player begins and the other players follow in clockwise order."
    state = ENGINE.new(players, {"first_player": first}, 4)
    assert ENGINE.view(state, None)["setup"]["order"] == order
    seen = []
    while state["phase"] == "setup":
        (player,) = ENGINE.to_act(state)
        seen.append(player)
        state, _ = ENGINE.apply(state, player, ENGINE.legal(state, player)[0].action)
    assert seen == order
    public = ENGINE.view(state, None)
    assert public["turn"] == first  # the starting player also starts the first round
    assert public["turn_number"] == 1
    assert public["setup"] is None


def test_the_last_starting_neighbourhood_opens_the_first_turn() -> None:
    state = ENGINE.new(["ann", "bob", "cy"], {"first_player": "cy"}, 2)
    while len(state["setup"]["pool"]) > 1:
        (player,) = ENGINE.to_act(state)
        state, events = ENGINE.apply(state, player, ENGINE.legal(state, player)[0].action)
        assert [e["type"] for e in events] == ["neighborhood_placed"]
    (player,) = ENGINE.to_act(state)
    action = ENGINE.legal(state, player)[0].action
    state, events = ENGINE.apply(state, player, action)
    assert events == [
        {
            "type": "neighborhood_placed",
            "player": player,
            "neighborhood": action["neighborhood"],
            "at": action["at"],
            "rotation": action["rotation"],
        },
        {"type": "turn", "player": "cy"},
    ]
    assert ENGINE.view(state, None)["last_action"] == dict(events[0], type="place_neighborhood")
    assert state["step"] == "start"
    # the first turn starts clean: useless cards may be discarded, nothing is drawn yet
    assert ENGINE.view(state, None)["draw"] is None
    assert "Pass" in [a.label for a in ENGINE.legal(state, "cy")]


# --- who may act ----------------------------------------------------------------------------


def test_only_the_player_whose_turn_it_is_may_act() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    assert refusal(state, None, {"type": "pass"}) == "Only a player of this game can do that."
    assert refusal(state, "zed", {"type": "pass"}) == "Only a player of this game can do that."
    assert refusal(state, "bob", {"type": "pass"}) == "It is not your turn."
    assert ENGINE.legal(state, "bob") == []
    assert ENGINE.legal(state, "zed") == []
    assert refusal(state, "ann", "pass") == "That is not a move."
    assert refusal(state, "ann", {"type": "fly"}) == "Unknown action 'fly'."
    assert refusal(state, "ann", {}) == "Unknown action None."
    assert refusal(state, "ann", {"type": "draw", "stacks": [1]}) == (
        "You draw cards only at the end of your turn."
    )
    for kind in ("trade_offer", "trade_decline", "trade_accept", "trade_end"):
        assert refusal(state, "ann", {"type": kind}) == "There is no trade going on."


def test_a_pass_is_reported_and_hands_the_turn_on() -> None:
    state = position(players=["ann", "bob", "cy"], neighborhoods=CITY)
    state, events = ENGINE.apply(state, "ann", {"type": "pass"})
    assert events == [{"type": "passed", "player": "ann"}, {"type": "turn", "player": "bob"}]
    public = ENGINE.view(state, None)
    assert public["last_action"] == {"type": "pass", "player": "ann"}
    assert public["passes"] == 1
    assert public["turn"] == "bob" and public["turn_number"] == 2
    state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
    assert ENGINE.view(state, None)["passes"] == 2
    state, _ = ENGINE.apply(state, "cy", {"type": "exchange", "cards": [state["hands"]["cy"][0]]})
    assert ENGINE.view(state, None)["passes"] == 0  # any other action breaks the row
    state, events = ENGINE.apply(state, "cy", {"type": "draw", "stacks": [8]})
    assert events[-1] == {"type": "turn", "player": "ann"}  # round the table
    assert ENGINE.view(state, None)["turn_number"] == 4


# --- parsing the moves ----------------------------------------------------------------------


def test_malformed_moves_are_refused_with_a_reason() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": HANDS["ann"]})
    place = {"type": "place_neighborhood", "neighborhood": 4, "at": [3, 2], "rotation": 0}
    cases: list[tuple[dict[str, Any], str]] = [
        (dict(place, neighborhood=True), "The neighborhood must be a whole number."),
        (dict(place, neighborhood="4"), "The neighborhood must be a whole number."),
        (dict(place, at=[3]), "Say where to place the neighborhood."),
        (dict(place, at=[3, 2, 0]), "Say where to place the neighborhood."),
        (dict(place, at=[3, "2"]), "A coordinate must be a whole number."),
        (dict(place, at=[3.0, 2]), "A coordinate must be a whole number."),
        (dict(place, rotation=None), "The rotation must be a whole number."),
        ({"type": "build", "properties": [11]}, "Say which building."),
        ({"type": "build", "building": "single_residence"}, "Say which properties to build on."),
        (
            {"type": "build", "building": "single_residence", "properties": []},
            "Say which properties to build on.",
        ),
        (
            {"type": "build", "building": "single_residence", "properties": 11},
            "Say which properties to build on.",
        ),
        (
            {"type": "build", "building": "single_residence", "properties": ["11"]},
            "A property must be a whole number.",
        ),
        ({"type": "exchange"}, "Say which cards."),
        ({"type": "exchange", "cards": []}, "Say which cards."),
        ({"type": "exchange", "cards": 11}, "Say which cards."),
        ({"type": "exchange", "cards": [11, 11]}, "Name each card once."),
        ({"type": "exchange", "cards": [11, "11"]}, "There is no card '11'."),
        ({"type": "exchange", "cards": ["central_park"]}, "You do not hold the Central Park card."),
        ({"type": "special", "properties": [11, 12]}, "Say which park or factory card to play."),
        (
            {"type": "special", "card": "city_hall", "properties": [11]},
            "Say which park or factory card to play.",
        ),
        (
            {"type": "special", "card": "lincoln_park", "properties": [11, 12]},
            "You do not hold the Lincoln Park card.",
        ),
        ({"type": "streetcar"}, "Say where the streetcars go."),
        ({"type": "streetcar", "segments": []}, "Say where the streetcars go."),
        (
            {"type": "streetcar", "segments": N11},
            "A streetcar covers one street between two neighbouring corners.",
        ),
    ]
    for action, message in cases:
        assert refusal(state, "ann", action) == message, action


def test_a_neighbourhood_may_be_placed_without_a_rotation() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": HANDS["ann"]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "place_neighborhood", "neighborhood": 4, "at": [7, 0]}
    )
    assert events[0] == {
        "type": "neighborhood_placed",
        "player": "ann",
        "neighborhood": 4,
        "at": [7, 0],
        "rotation": 0,
    }


def test_the_properties_of_a_building_are_reported_in_order() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "build", "building": "double_residence", "properties": [12, 11]}
    )
    assert events[0]["properties"] == [11, 12]
    assert ENGINE.view(state, None)["buildings"][0]["properties"] == [11, 12]


# --- the actions ------------------------------------------------------------------------------


def test_a_building_scores_and_its_cards_go_to_the_discard_pile() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("single_residence", [37], "ann")],
        hands={"ann": HANDS["ann"]},
    )
    assert ENGINE.view(state, None)["scores"] == {"ann": 3, "bob": 0}
    state, events = ENGINE.apply(
        state, "ann", {"type": "build", "building": "double_business", "properties": [11, 12]}
    )
    built = {
        "type": "built",
        "player": "ann",
        "building": "double_business",
        "properties": [11, 12],
        "points": 12,
        "explanation": "6 × 2 city hall = 12",
    }
    assert events == [built]
    public = ENGINE.view(state, "ann")
    assert public["last_action"] == dict(built, type="build")
    assert public["scores"] == {"ann": 15, "bob": 0}  # added to the points already scored
    assert public["discard"] == [15, 37, 11, 12]
    assert public["hand"] == [13, 31, 32]
    assert public["buildings"][-1] == {
        "id": 2,
        "building": "double_business",
        "title": "Double business",
        "properties": [11, 12],
        "owner": "ann",
        "points": 12,
        "explanation": "6 × 2 city hall = 12",
    }
    assert public["buildings_left"]["double_business"] == 5
    assert public["buildings_left"]["single_residence"] == 8
    assert public["buildings_left"]["city_hall"] == 0
    assert public["step"] == "draw"
    assert public["draw"] == {
        "cards": 2,
        "stacks": {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2},
    }


def test_a_refused_building_leaves_the_turn_as_it_was() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    assert (
        refusal(state, "ann", {"type": "build", "building": "city_hall", "properties": [11]})
        == "City hall must be built in the center of the city, not on the outskirts."
    )


def test_a_park_scores_nothing_and_makes_cards_useless() -> None:
    state = position(
        neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [18, 19, 13, 31, "lincoln_park"]}
    )
    assert (
        refusal(
            state, "ann", {"type": "special", "card": "lincoln_park", "properties": [11, 14, 17]}
        )
        == "Lincoln Park needs two adjacent properties."
    )
    state, events = ENGINE.apply(
        state, "ann", {"type": "special", "card": "lincoln_park", "properties": [19, 18]}
    )
    placed = {
        "type": "special_placed",
        "player": "ann",
        "card": "lincoln_park",
        "properties": [18, 19],
    }
    assert events == [placed]
    public = ENGINE.view(state, "ann")
    assert public["last_action"] == dict(placed, type="special")
    assert public["scores"] == {"ann": 0, "bob": 0}
    assert public["buildings"][-1] == {
        "id": 1,
        "building": "lincoln_park",
        "title": "Lincoln Park",
        "properties": [18, 19],
        "owner": "ann",
        "points": 0,
        "explanation": "0 Lincoln Park",
    }
    assert public["parks_and_factories_left"] == [
        "central_park",
        "stanford_corporation",
        "rockwell_industries",
    ]
    assert public["discard"] == [15, "lincoln_park"]
    assert public["hand"] == [18, 19, 13, 31]
    assert public["useless"] == [18, 19]
    assert public["draw"]["cards"] == 1  # one card played, one drawn back
    assert [p["building"] for p in public["properties"] if p["property"] in (18, 19)] == [
        "lincoln_park",
        "lincoln_park",
    ]


def test_special_cards_wait_for_city_hall() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 13, 31, "lincoln_park"]})
    assert (
        refusal(state, "ann", {"type": "special", "card": "lincoln_park", "properties": [11, 12]})
        == "Parks and factories can only be placed after city hall."
    )
    assert labels(state, "ann", "special") == []


def test_streetcars_are_reported_where_they_run() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": HANDS["ann"]})
    assert refusal(state, "ann", {"type": "streetcar", "segments": [N11, [[1, 0], [2, 0]]]}) == (
        "The player who starts the streetcar line places only one streetcar."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "streetcar", "segments": [N11]})
    placed = {
        "type": "streetcars_placed",
        "player": "ann",
        "segments": [N11],
        "where": ["north of 11"],
    }
    assert events == [placed, {"type": "turn", "player": "bob"}]
    assert ENGINE.view(state, None)["last_action"] == dict(placed, type="streetcar")
    assert ENGINE.view(state, None)["passes"] == 0


def test_a_new_neighbourhood_needs_city_hall_and_a_fitting_place() -> None:
    # "New neighborhoods may only be placed after city hall has been placed."
    before = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    move = {"type": "place_neighborhood", "neighborhood": 4, "at": [7, 0], "rotation": 0}
    assert refusal(before, "ann", move) == "New neighborhoods can only be added after city hall."
    assert labels(before, "ann", "place_neighborhood") == []
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": HANDS["ann"]})
    assert refusal(state, "ann", dict(move, at=[20, 20])) == (
        "At least two of its properties must be next to two properties of the city."
    )
    assert refusal(state, "ann", dict(move, neighborhood=2)) == (
        "Neighborhood 2 is already in the city."
    )
    assert "Neighborhood 4 at (7, 0), turned 0°" in labels(state, "ann", "place_neighborhood")
    state, events = ENGINE.apply(state, "ann", move)
    placed = {
        "type": "neighborhood_placed",
        "player": "ann",
        "neighborhood": 4,
        "at": [7, 0],
        "rotation": 0,
    }
    assert events == [placed, {"type": "turn", "player": "bob"}]  # no card spent, no draw
    public = ENGINE.view(state, None)
    assert public["last_action"] == dict(placed, type="place_neighborhood")
    assert public["unplaced_neighborhoods"] == [5, 6, 7, 8]
    assert public["passes"] == 0


def test_exchanged_cards_are_counted_not_named() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, events = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [31, 11]})
    exchanged = {"type": "exchanged", "player": "ann", "count": 2, "stacks": [3, 1]}
    assert events == [exchanged]
    public = ENGINE.view(state, "bob")
    assert public["last_action"] == dict(exchanged, type="exchange")
    assert public["step"] == "draw"
    assert public["draw"]["cards"] == 2
    assert "31" not in json.dumps(public["last_action"])


def test_useless_cards_discarded_go_face_up_to_the_discard_pile() -> None:
    # "To discard them, a player places them on the table face up so all can verify them"
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands={"ann": [11, 12, 13, 31, "central_park"]},
    )
    assert refusal(state, "ann", {"type": "discard_useless", "cards": ["central_park"]}) == (
        "The Central Park card is not useless."
    )
    assert refusal(state, "ann", {"type": "discard_useless", "cards": [11, 32]}) == (
        "You do not hold the 32 card."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [12, 11]})
    assert events == [{"type": "discarded", "player": "ann", "cards": [12, 11]}]
    public = ENGINE.view(state, "bob")
    assert public["discard"][-2:] == [12, 11]
    assert public["last_action"] == {
        "type": "discard_useless",
        "player": "ann",
        "cards": [12, 11],
    }
    assert public["hand_sizes"]["ann"] == 3
    assert public["step"] == "main"
    # a pass after discarding still draws the discarded cards back
    state, events = ENGINE.apply(state, "ann", {"type": "pass"})
    assert events == [{"type": "passed", "player": "ann"}]
    assert ENGINE.view(state, None)["draw"]["cards"] == 2


def test_discard_choices_list_the_largest_sets_first() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands={"ann": [11, 12, 13, 31, 32]},
    )
    assert labels(state, "ann", "discard_useless") == [
        "Discard useless 11, 12",
        "Discard useless 11",
        "Discard useless 12",
    ]


@pytest.mark.parametrize(
    "move",
    [
        {"type": "streetcar", "segments": [N11]},
        {"type": "place_neighborhood", "neighborhood": 4, "at": [7, 0], "rotation": 0},
        {"type": "special", "card": "central_park", "properties": [32, 35, 38]},
        {"type": "build", "building": "single_residence", "properties": [13]},
        {"type": "exchange", "cards": [13]},
        {"type": "pass"},
    ],
)
def test_discarded_useless_cards_are_drawn_back_whatever_the_action(move: dict[str, Any]) -> None:
    # "A player may discard them at the beginning of his turn and draw cards to replace
    # them at the end of his turn."
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands={"ann": [11, 12, 13, 31, "central_park"]},
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [11, 12]})
    state, _ = ENGINE.apply(state, "ann", move)
    public = ENGINE.view(state, "ann")
    assert public["step"] == "draw"
    spent = 0 if move["type"] in ("streetcar", "place_neighborhood", "pass") else 1
    assert public["draw"]["cards"] == 2 + spent
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [6, 6, 7][: 2 + spent]})
    assert events[-1] == {"type": "turn", "player": "bob"}
    assert len(state["hands"]["ann"]) == 5


def test_a_park_on_the_last_free_properties_ends_the_game() -> None:
    # "The game ends when all neighborhoods have been placed and buildings have been placed
    # on all properties": parks and factories fill properties too.
    everything = [p for n in range(1, 9) for p in range(n * 10 + 1, n * 10 + (10 if n % 2 else 9))]
    pieces = [("city_hall", [35], "bob")] + [
        ("single_residence", [p], "bob") for p in everything if p not in (12, 15, 35)
    ]
    state = position(neighborhoods=ROW, pieces=pieces, hands={"ann": ["lincoln_park"]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "special", "card": "lincoln_park", "properties": [12, 15]}
    )
    assert [e["type"] for e in events] == ["special_placed", "game_over"]
    assert events[-1]["reason"] == "city_complete"
    assert ENGINE.view(state, None)["ended_by"] == "city_complete"


def test_an_exchange_with_nothing_left_to_draw_ends_the_turn() -> None:
    # With limited drawing the exchanged card goes under the stack of an unplaced
    # neighbourhood, and the stacks of the placed ones are empty: nothing can be drawn.
    state = position(
        neighborhoods=CITY,
        hands={"ann": [11, 12, 13, 31, 81]},
        options={"limited_card_drawing": True},
    )
    for number in ("1", "2", "3"):
        state["discard"].extend(state["stacks"][number])
        state["stacks"][number] = []
    state, events = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [81]})
    assert events == [
        {"type": "exchanged", "player": "ann", "count": 1, "stacks": [8]},
        {"type": "turn", "player": "bob"},
    ]
    assert len(state["hands"]["ann"]) == 4  # a short hand until a later draw


# --- drawing ----------------------------------------------------------------------------------


def test_drawing_is_refused_with_a_reason() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, _ = ENGINE.apply(
        state, "ann", {"type": "build", "building": "single_residence", "properties": [13]}
    )
    assert refusal(state, "ann", {"type": "draw"}) == "Say which stacks to draw from."
    assert refusal(state, "ann", {"type": "draw", "stacks": []}) == "Say which stacks to draw from."
    assert refusal(state, "ann", {"type": "draw", "stacks": 2}) == "Say which stacks to draw from."
    assert refusal(state, "ann", {"type": "draw", "stacks": [2, 3]}) == (
        "You draw only 1 more card."
    )
    assert refusal(state, "ann", {"type": "draw", "stacks": ["2"]}) == (
        "A stack must be a whole number."
    )
    assert refusal(state, "ann", {"type": "draw", "stacks": [9]}) == "There is no stack 9."
    assert refusal(state, "ann", {"type": "draw", "stacks": [0]}) == "There is no stack 0."
    assert labels(state, "ann", "draw") == [
        f"Draw from stack {n} ({len(state['stacks'][str(n)])} left)" for n in range(1, 9)
    ]
    top = state["stacks"]["2"][0]
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [2]})
    assert events == [
        {"type": "drew", "player": "ann", "stacks": [2]},
        {"type": "turn", "player": "bob"},
    ]
    assert ENGINE.view(state, "ann")["hand"][-1] == top  # the top card of the stack


def test_two_cards_may_come_from_one_stack_and_a_third_may_not() -> None:
    # "The new cards may be from any stack, but only two may come from any single stack."
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12, 13]})
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [5, 5]})
    assert events == [{"type": "drew", "player": "ann", "stacks": [5, 5]}]
    assert ENGINE.view(state, None)["draw"] == {
        "cards": 1,
        "stacks": {1: 2, 2: 2, 3: 2, 4: 2, 6: 2, 7: 2, 8: 2},
    }
    assert "Draw from stack 5" not in " ".join(labels(state, "ann", "draw"))
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [6]})
    assert ENGINE.to_act(state) == ["bob"]


def test_a_stack_with_one_card_left_gives_only_one() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    for number in range(1, 9):
        keep = 1 if number == 7 else 0
        state["discard"].extend(state["stacks"][str(number)][keep:])
        state["stacks"][str(number)] = state["stacks"][str(number)][:keep]
    state["stacks"]["8"] = []
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12]})
    # the exchanged cards went under stack 1: three stacks to draw from
    assert ENGINE.view(state, None)["draw"] == {"cards": 2, "stacks": {1: 2, 7: 1}}


def test_limited_drawing_counts_only_placed_neighbourhoods() -> None:
    # "Limit card drawing ... to those neighborhoods in the city."
    state = position(
        neighborhoods=CITY, hands={"ann": HANDS["ann"]}, options={"limited_card_drawing": True}
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12, 13, 31, 32]})
    assert ENGINE.view(state, None)["draw"] == {"cards": 5, "stacks": {1: 2, 2: 2, 3: 2}}
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [1, 1, 2, 2, 3]})
    assert ENGINE.to_act(state) == ["bob"]


def test_limited_drawing_skips_only_the_unplaced_neighbourhoods() -> None:
    state = position(
        neighborhoods=[(2, (3, 0), 0), (3, (7, 0), 0), (5, (10, 0), 0)],
        hands={"ann": HANDS["ann"]},
        options={"limited_card_drawing": True},
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11]})
    # neighbourhood 4 is missing from the row, neighbourhood 5 is placed after it
    assert ENGINE.view(state, None)["draw"]["stacks"] == {1: 2, 2: 2, 3: 2, 5: 2}
    assert refusal(state, "ann", {"type": "draw", "stacks": [4]}) == (
        "In this game you draw only from placed neighborhoods; 4 is not placed."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [5]})
    assert events[0] == {"type": "drew", "player": "ann", "stacks": [5]}


def test_drawing_from_an_unplaced_neighbourhood_is_fine_without_the_variant() -> None:
    # "Players may draw cards from any of the stacks, even from neighborhoods that have not
    # yet been placed in the city."
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11]})
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [8]})
    assert events[0] == {"type": "drew", "player": "ann", "stacks": [8]}


# --- the menu of moves ------------------------------------------------------------------------


def test_the_menu_lists_builds_best_first_with_their_points() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob"), ("single_residence", [13], "ann")],
        streetcars=[N11],
        hands={"ann": [14, 16, 17, 21, "central_park"]},
    )
    builds = labels(state, "ann", "build")
    assert builds == [
        "Double business on 14+17 (14 pts)",
        "Double residence on 14+17 (8 pts)",
        "Single business on 14 (6 pts)",
        "Single business on 16 (6 pts)",
        "Single residence on 14 (4 pts)",
        "Single residence on 17 (3 pts)",
        "Single residence on 21 (3 pts)",
        "Single business on 17 (2 pts)",
        "Single business on 21 (2 pts)",
        "Single residence on 16 (2 pts)",
    ]
    assert labels(state, "ann", "special") == [
        "Central Park on 18+32+35",
        "Central Park on 32+35+38",
    ]
    menu = ENGINE.legal(state, "ann")
    first = menu[0].action
    assert first == {"type": "build", "building": "double_business", "properties": [14, 17]}
    streetcars = labels(state, "ann", "streetcar")
    assert "Streetcar west of 11" in streetcars
    assert "Streetcars west of 11 and west of 14" in streetcars
    assert menu[-1].label == "Pass" and menu[-1].action == {"type": "pass"}


def test_a_building_worth_one_point_says_pt() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("stanford_corporation", [11, 12, 14], "bob")],
        hands={"ann": [13, 31, 32, 33, 34]},
    )
    # a single residence next to a factory: 2 + 1 outskirts - 2 factory = 1
    assert "Single residence on 13 (1 pt)" in labels(state, "ann", "build")


def test_every_card_subset_may_be_exchanged() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 13, 31, "lincoln_park"]})
    exchanges = labels(state, "ann", "exchange")
    assert len(exchanges) == 31  # every non-empty subset of five cards
    assert exchanges[:6] == [
        "Exchange 11",
        "Exchange 12",
        "Exchange 13",
        "Exchange 31",
        "Exchange Lincoln Park",
        "Exchange 11, 12",
    ]
    assert exchanges[-1] == "Exchange 11, 12, 13, 31, Lincoln Park"


def test_the_trade_variant_offers_one_or_two_cards() -> None:
    state = trade_table()
    trades = [a for a in ENGINE.legal(state, "ann") if a.action["type"] == "trade"]
    assert len(trades) == 15  # 5 single cards, 10 pairs
    assert trades[0].label == "Trade 11"
    assert trades[0].action == {"type": "trade", "cards": [11], "wants": []}
    assert trades[-1].label == "Trade 31, 32"
    for trade in trades:
        after, _ = ENGINE.apply(state, "ann", trade.action)
        assert ENGINE.to_act(after) == ["bob", "cy"]


def test_every_move_on_the_menu_is_accepted() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        streetcars=[N11],
        hands={"ann": [11, 13, 14, 16, "central_park"]},
    )
    menu = ENGINE.legal(state, "ann")
    kinds = {a.action["type"] for a in menu}
    assert kinds == {
        "discard_useless",
        "build",
        "special",
        "streetcar",
        "place_neighborhood",
        "exchange",
        "pass",
    }
    for legal in menu[::7]:
        ENGINE.apply(state, "ann", legal.action)


# --- trading ------------------------------------------------------------------------------


def test_a_trade_announcement_is_checked() -> None:
    state = trade_table()
    assert refusal(state, "ann", {"type": "trade", "cards": [11], "wants": 2}) == (
        "Name the wanted neighborhoods as a list."
    )
    assert refusal(state, "ann", {"type": "trade", "cards": [11], "wants": ["2"]}) == (
        "A neighborhood must be a whole number."
    )
    assert refusal(state, "ann", {"type": "trade", "cards": [11], "wants": [9]}) == (
        "Wanted neighborhoods are numbered 1 to 8."
    )
    assert refusal(state, "ann", {"type": "trade", "cards": [11], "wants": [0]}) == (
        "Wanted neighborhoods are numbered 1 to 8."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "trade", "cards": [31], "wants": [5, 2, 5]})
    announced = {"type": "trade_announced", "player": "ann", "neighborhoods": [3], "wants": [2, 5]}
    assert events == [announced]
    public = ENGINE.view(state, "bob")
    assert public["last_action"] == dict(announced, type="trade")
    assert public["step"] == "trade_offers"
    assert public["to_act"] == ["bob", "cy"]
    assert public["turn"] == "ann"


def test_offers_are_checked_and_reported_by_neighbourhood() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    assert refusal(state, "bob", {"type": "trade_offer", "cards": [21, 22]}) == (
        "ann trades only 1 card."
    )
    assert refusal(state, "bob", {"type": "trade_offer", "cards": [33]}) == (
        "You do not hold the 33 card."
    )
    assert refusal(state, "ann", {"type": "trade_end"}) == "It is not your turn."
    state, events = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [24]})
    assert events == [{"type": "trade_offered", "player": "bob", "neighborhoods": [2]}]
    assert ENGINE.to_act(state) == ["cy"]
    assert refusal(state, "bob", {"type": "trade_decline"}) == "It is not your turn."
    state, events = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    assert events == [{"type": "trade_declined", "player": "cy"}]
    assert ENGINE.to_act(state) == ["ann"]
    assert ENGINE.view(state, None)["step"] == "trade_accept"


def test_two_announced_cards_take_offers_of_one_or_two() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 12]})
    assert refusal(state, "bob", {"type": "trade_offer", "cards": [21, 22, 23]}) == (
        "ann trades only 2 cards."
    )
    offers = [a.label for a in ENGINE.legal(state, "bob")]
    assert offers[0] == "Decline the trade"
    assert "Offer 21" in offers and "Offer 21, 22" in offers
    assert not any(label.count(",") > 1 for label in offers)


def test_the_trader_accepts_with_the_announced_cards_only() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    assert refusal(state, "ann", {"type": "pass"}) == "Accept an offer or end the trade."
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "cy", "give": [11]}) == (
        "That player has no open offer."
    )
    assert refusal(state, "ann", {"type": "trade_accept", "give": [11]}) == (
        "That player has no open offer."
    )
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "bob", "give": 11}) == (
        "Give 1 of your announced cards for that offer."
    )
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "bob", "give": [12]}) == (
        "Give cards you announced for this trade and have not traded yet."
    )
    menu = ENGINE.legal(state, "ann")
    assert [a.label for a in menu if a.action["type"] == "trade_accept"] == [
        "Give 11 for bob's card from neighborhood 2",
        "Give 31 for bob's card from neighborhood 2",
    ]
    assert menu[-1].label == "End the trade"
    assert menu[-1].action == {"type": "trade_end"}
    # no trade made yet: a small exchange is still on the menu
    assert "Exchange 11, 12" in [a.label for a in menu]
    state, events = ENGINE.apply(
        state, "ann", {"type": "trade_accept", "partner": "bob", "give": [31]}
    )
    assert events == [
        {"type": "traded", "player": "ann", "with": "bob", "count": 1},
        {"type": "trade_ended", "player": "ann", "deals": 1},
        {"type": "turn", "player": "bob"},
    ]
    assert sorted(state["hands"]["ann"]) == [11, 12, 13, 21, 32]
    assert sorted(state["hands"]["bob"]) == [22, 23, 24, 25, 31]
    public = ENGINE.view(state, None)
    assert public["trade"] is None
    assert public["passes"] == 0  # a trade made is not a pass


def test_a_card_once_traded_cannot_be_given_again() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_offer", "cards": [33]})
    state, _ = ENGINE.apply(state, "ann", {"type": "trade_accept", "partner": "bob", "give": [11]})
    assert ENGINE.view(state, None)["trade"] == {
        "trader": "ann",
        "neighborhoods": [1, 3],
        "wants": [],
        "waiting_for": [],
        "offers": {"bob": None, "cy": [3]},
        "accepted": ["bob"],
        "deals": 1,
    }
    assert ENGINE.view(state, "ann")["my_trade"] == {"cards": [11, 31], "given": [11]}
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "bob", "give": [31]}) == (
        "That player has no open offer."
    )
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "cy", "give": [11]}) == (
        "Give cards you announced for this trade and have not traded yet."
    )
    menu = ENGINE.legal(state, "ann")
    # "If the player was only able to trade one card, he may not exchange the other."
    assert not any(a.action["type"] == "exchange" for a in menu)
    assert [a.label for a in menu] == [
        "Give 31 for cy's card from neighborhood 3",
        "End the trade",
    ]
    state, events = ENGINE.apply(state, "ann", {"type": "trade_end"})
    assert events == [
        {"type": "trade_ended", "player": "ann", "deals": 1},
        {"type": "turn", "player": "bob"},
    ]
    assert ENGINE.view(state, None)["passes"] == 0


def test_two_deals_are_counted() -> None:
    # "The player may trade both cards with a single player or one each with two players."
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_offer", "cards": [33]})
    state, _ = ENGINE.apply(state, "ann", {"type": "trade_accept", "partner": "cy", "give": [31]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "trade_accept", "partner": "bob", "give": [11]}
    )
    assert events[:2] == [
        {"type": "traded", "player": "ann", "with": "bob", "count": 1},
        {"type": "trade_ended", "player": "ann", "deals": 2},
    ]
    assert sorted(state["hands"]["ann"]) == [12, 13, 21, 32, 33]


def test_the_same_card_cannot_be_given_twice_in_one_deal() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21, 22]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    assert (
        refusal(state, "ann", {"type": "trade_accept", "partner": "bob", "give": [11, 11]})
        == "Give cards you announced for this trade and have not traded yet."
    )


def test_a_failed_trade_may_end_in_a_small_exchange() -> None:
    # "If the player cannot arrange for any trades, he may exchange up to two cards"
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_decline"})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    menu = [a.label for a in ENGINE.legal(state, "ann")]
    assert menu[0] == "Exchange 11" and menu[-1] == "End the trade"
    assert "Exchange 11, 12" in menu and "Exchange 11, 12, 13" not in menu
    state, events = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [32, 12]})
    assert events == [{"type": "exchanged", "player": "ann", "count": 2, "stacks": [3, 1]}]
    public = ENGINE.view(state, "ann")
    assert public["trade"] is None and public["my_trade"] is None
    assert public["step"] == "draw" and public["draw"]["cards"] == 2


def test_a_trade_without_any_deal_is_a_pass_for_the_game_end() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_decline"})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    state, events = ENGINE.apply(state, "ann", {"type": "trade_end"})
    assert events == [
        {"type": "trade_ended", "player": "ann", "deals": 0},
        {"type": "turn", "player": "bob"},
    ]
    state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
    state, events = ENGINE.apply(state, "cy", {"type": "pass"})
    assert events[-1]["type"] == "game_over"
    assert ENGINE.view(state, None)["ended_by"] == "all_passed"


@pytest.mark.parametrize("deal", [True, False])
def test_cards_discarded_before_a_trade_are_drawn_back_after_it(deal: bool) -> None:
    # "A player may discard them at the beginning of his turn and draw cards to replace
    # them at the end of his turn", whatever the turn's action was.
    state = position(
        players=["ann", "bob", "cy"],
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands=HANDS,
        options={"trade_cards": True},
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [11, 12]})
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [13]})
    if deal:
        state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    else:
        state, _ = ENGINE.apply(state, "bob", {"type": "trade_decline"})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    action: dict[str, Any] = (
        {"type": "trade_accept", "partner": "bob", "give": [13]} if deal else {"type": "trade_end"}
    )
    state, events = ENGINE.apply(state, "ann", action)
    assert events[-1] == {"type": "trade_ended", "player": "ann", "deals": 1 if deal else 0}
    public = ENGINE.view(state, "ann")
    assert public["step"] == "draw"
    assert public["to_act"] == ["ann"]
    assert public["draw"]["cards"] == 2
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7, 8]})
    assert events[-1] == {"type": "turn", "player": "bob"}
    assert len(state["hands"]["ann"]) == 5


def test_what_each_player_sees_of_a_trade() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31], "wants": [2]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21, 22]})
    public = ENGINE.view(state, "cy")
    assert public["trade"] == {
        "trader": "ann",
        "neighborhoods": [1, 3],
        "wants": [2],
        "waiting_for": ["cy"],
        "offers": {"bob": [2, 2]},
        "accepted": [],
        "deals": 0,
    }
    assert public["my_trade"] is None
    assert ENGINE.view(state, "ann")["my_trade"] == {"cards": [11, 31], "given": []}
    assert ENGINE.view(state, "bob")["my_trade"] == {"offered": [21, 22]}
    assert "my_trade" not in ENGINE.view(state, None)


# --- the end of a turn and of the game --------------------------------------------------------


def quiet_city(quiet: int | None = 5) -> dict[str, Any]:
    """Bob holds only cards of built properties (useless cards must be exchanged), and the
    city has gone five turns without anything placed: one more quiet turn and the computer
    stops exchanging, so that a game among computers always ends (ai.patience: 2 × 2 + 2)."""
    state = position(
        neighborhoods=CITY,
        pieces=[
            CITY_HALL,
            ("lincoln_park", [11, 12], "ann"),
            ("single_residence", [13], "ann"),
            ("single_residence", [14], "ann"),
            ("single_residence", [16], "ann"),
        ],
        hands={"ann": [17, 18, 31, 32, "central_park"], "bob": [11, 12, 13, 14, 16]},
        options={"must_exchange_useless": True},
    )
    if quiet is not None:  # None: as a new game left it
        state["quiet_turns"] = quiet
    return state


@pytest.mark.parametrize(
    ("move", "placed"),
    [
        ({"type": "build", "building": "single_residence", "properties": [17]}, True),
        ({"type": "special", "card": "central_park", "properties": [32, 35, 38]}, True),
        ({"type": "streetcar", "segments": [N11]}, True),
        ({"type": "place_neighborhood", "neighborhood": 4, "at": [7, 0], "rotation": 0}, True),
        ({"type": "pass"}, False),
        ({"type": "exchange", "cards": [31]}, False),
    ],
)
def test_the_computer_keeps_exchanging_only_while_the_city_grows(
    move: dict[str, Any], placed: bool
) -> None:
    state, _ = ENGINE.apply(quiet_city(), "ann", move)
    while ENGINE.to_act(state) == ["ann"]:
        state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [8]})
    expected = {"type": "exchange", "cards": [11, 12, 13, 14, 16]} if placed else {"type": "pass"}
    assert GAME.computer.normal(state, "bob") == expected


def test_the_computer_stops_exchanging_after_the_sixth_quiet_turn_not_before() -> None:
    state = quiet_city()
    state["quiet_turns"] = 4
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})  # the fifth quiet turn
    assert GAME.computer.normal(state, "bob") == {"type": "exchange", "cards": [11, 12, 13, 14, 16]}


def test_after_a_placement_the_computer_exchanges_for_five_more_quiet_turns() -> None:
    state = quiet_city()
    state["current"] = 1  # bob starts the line: something is placed
    state, _ = ENGINE.apply(state, "bob", {"type": "streetcar", "segments": [N11]})
    for turn in range(5):  # ann exchanges, bob passes: five turns with nothing placed
        if turn % 2:
            state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
        else:
            card = state["hands"]["ann"][0]
            state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [card]})
            state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7]})
    assert ENGINE.to_act(state) == ["bob"]
    assert GAME.computer.normal(state, "bob") == {"type": "exchange", "cards": [11, 12, 13, 14, 16]}


def test_a_new_game_starts_with_the_computer_s_patience_whole() -> None:
    state = quiet_city(quiet=None)
    for turn in range(5):  # ann exchanges, bob passes: five turns with nothing placed
        if turn % 2:
            state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
        else:
            card = state["hands"]["ann"][0]
            state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [card]})
            state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7]})
    assert GAME.computer.normal(state, "bob") == {"type": "exchange", "cards": [11, 12, 13, 14, 16]}


def test_the_game_over_event_carries_the_scores_and_winners() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[("single_residence", [11], "ann"), ("double_residence", [12, 13], "bob")],
    )
    state, events = ENGINE.apply(state, "ann", {"type": "pass"})
    assert events == [{"type": "passed", "player": "ann"}, {"type": "turn", "player": "bob"}]
    state, events = ENGINE.apply(state, "bob", {"type": "pass"})
    assert events == [
        {"type": "passed", "player": "bob"},
        {
            "type": "game_over",
            "reason": "all_passed",
            "scores": {"ann": 3, "bob": 7},
            "winners": ["bob"],
        },
    ]
    public = ENGINE.view(state, "ann")
    assert public["phase"] == "over" and public["step"] == "over"
    assert public["turn"] is None
    assert public["to_act"] == []
    assert public["winners"] == ["bob"]
    assert public["ended_by"] == "all_passed"
    assert public["draw"] is None
    final = ENGINE.result(state)
    assert final is not None
    assert final.scores == {"ann": 3, "bob": 7}
    assert final.winners == ["bob"]
    assert final.extra == {"ended_by": "all_passed"}
    assert refusal(state, "bob", {"type": "pass"}) == "The game is over."


def test_a_pass_after_spending_cards_still_counts_towards_the_end() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, ("lincoln_park", [11, 12], "bob")],
        hands={"ann": [11, 12, 13, 31, 32]},
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [11, 12]})
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7, 8]})
    assert ENGINE.view(state, None)["passes"] == 1
    state, events = ENGINE.apply(state, "bob", {"type": "pass"})
    assert events[-1]["type"] == "game_over"


# --- views --------------------------------------------------------------------------------


def test_the_view_maps_every_property_of_the_city() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[
            CITY_HALL,
            ("lincoln_park", [11, 12], "bob"),
            ("single_residence", [13], "ann"),
            ("single_residence", [37], "bob"),
        ],
        streetcars=[N11],
    )
    public = ENGINE.view(state, None)
    assert [n["number"] for n in public["neighborhoods"]] == [1, 2, 3]
    first = public["neighborhoods"][0]
    assert first["cells"][:4] == [
        {"property": 11, "cell": [0, 0]},
        {"property": 12, "cell": [1, 0]},
        {"property": 13, "cell": [2, 0]},
        {"property": 14, "cell": [0, 1]},
    ]
    second = public["neighborhoods"][1]
    assert (second["at"], second["rotation"]) == ([3, 0], 0)
    assert second["cells"][0] == {"property": 21, "cell": [3, 0]}
    by_property = {p["property"]: p for p in public["properties"]}
    assert len(by_property) == 9 + 8 + 9
    assert by_property[12] == {
        "property": 12,
        "neighborhood": 1,
        "cell": [1, 0],
        "building": "lincoln_park",
        "piece": 1,
        "owner": "bob",
        "outskirts": True,
    }
    assert by_property[15] == {
        "property": 15,
        "neighborhood": 1,
        "cell": [1, 1],
        "building": "city_hall",
        "piece": 0,
        "owner": "bob",
        "outskirts": False,
    }
    assert by_property[13]["piece"] == 2 and by_property[13]["owner"] == "ann"
    assert by_property[26] == {
        "property": 26,
        "neighborhood": 2,
        "cell": [4, 1],
        "building": None,
        "piece": None,
        "owner": None,
        "outskirts": True,
    }
    assert by_property[16]["outskirts"] is False  # between 15 and neighbourhood 2
    assert public["city_hall"] is True
    assert public["streetcars"] == [N11] and public["streetcars_left"] == 16
    assert public["buildings_left"]["single_residence"] == 7  # of nine
    assert public["buildings_left"]["triple_business"] == 4
    assert public["parks_and_factories_left"] == [
        "central_park",
        "stanford_corporation",
        "rockwell_industries",
    ]
    json.dumps(public)


def test_an_outsider_sees_no_hand() -> None:
    state = position(neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    for viewer in (None, "zed"):
        public = ENGINE.view(state, viewer)
        assert not {"viewer", "hand", "useless", "my_trade"} & set(public)
    own = ENGINE.view(state, "ann")
    assert own["viewer"] == "ann"
    assert own["hand"] == HANDS["ann"]
    assert own["useless"] == []
    assert own["my_trade"] is None


def test_the_view_of_the_draw_is_for_the_player_drawing() -> None:
    state = position(players=["ann", "bob", "cy"], neighborhoods=CITY, hands={"ann": HANDS["ann"]})
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12, 13]})
    for viewer in (None, "bob", "ann"):
        assert ENGINE.view(state, viewer)["draw"] == {
            "cards": 3,
            "stacks": {n: 2 for n in range(1, 9)},
        }
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [1, 1]})
    public = ENGINE.view(state, None)
    assert public["draw"] == {"cards": 1, "stacks": {n: 2 for n in range(2, 9)}}
    assert public["hand_sizes"] == {"ann": 4, "bob": 5, "cy": 5}
    assert public["stacks"]["1"] == len(state["stacks"]["1"])


# --- the computer and the clock -------------------------------------------------------------


def test_the_computer_plays_legal_moves_to_the_end_of_a_turn() -> None:
    state = position(
        neighborhoods=CITY,
        pieces=[CITY_HALL],
        hands={"ann": [11, 12, 13, 31, 32]},
    )
    for _ in range(6):
        (player,) = ENGINE.to_act(state)
        action = GAME.computer.normal(state, player)
        menu = [a.action for a in ENGINE.legal(state, player)]
        assert action in menu or action["type"] == "draw"
        state, _ = ENGINE.apply(state, player, action)
        if state["phase"] == "over":
            break


def test_a_timed_out_player_is_left_to_the_computer() -> None:
    state = position(neighborhoods=CITY)
    assert ENGINE.timeout_action(state) is None


# --- the saved game -----------------------------------------------------------------------


def test_the_saved_game_names_itself_and_starts_each_turn_afresh() -> None:
    # The state is what the database keeps: a contract with every saved game.
    state = ENGINE.new(["ann", "bob", "cy"], {"first_player": "bob"}, 4)
    assert state["game"] == "bigcity" and state["seed"] == 4
    fresh = {"drawn": {}, "discarded": False, "gave_cards": False, "main": None,
             "placed": False}
    assert state["turn"] == fresh
    state = position(players=["ann", "bob", "cy"], neighborhoods=CITY, pieces=[CITY_HALL],
                     hands=HANDS)
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})
    while ENGINE.to_act(state) == ["ann"]:  # whatever the pass still asks of ann
        state, _ = ENGINE.apply(state, "ann", ENGINE.legal(state, "ann")[0].action)
    assert state["turn"] == fresh and state["step"] == "start"


def test_a_turn_opens_with_the_offer_to_discard_useless_cards() -> None:
    # "At the beginning of his turn, a player may discard useless cards" — offered again at
    # the start of every turn, not only the first.
    state = position(neighborhoods=CITY, pieces=[CITY_HALL, ("lincoln_park", [18, 19], "bob")],
                     hands={"ann": [11, 12, 13, 31, 32], "bob": [18, 21, 22, 23, 24]})
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})
    while ENGINE.to_act(state) == ["ann"]:
        state, _ = ENGINE.apply(state, "ann", ENGINE.legal(state, "ann")[0].action)
    assert ENGINE.to_act(state) == ["bob"]
    assert labels(state, "bob", "discard_useless") == ["Discard useless 18"]


def test_the_special_cards_on_the_menu_are_moves_the_game_takes() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL],
                     hands={"ann": [11, 13, 14, 16, "central_park"]})
    specials = [a for a in ENGINE.legal(state, "ann") if a.action["type"] == "special"]
    assert specials
    for legal in specials:
        assert set(legal.action) == {"type", "card", "properties"}
        assert legal.action["card"] == "central_park"
        ENGINE.apply(state, "ann", legal.action)  # accepted as listed


def test_the_offers_on_the_menu_are_moves_the_game_takes() -> None:
    state = trade_table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    offers = ENGINE.legal(state, "bob")
    assert offers and all(isinstance(a.action, dict) for a in offers)
    for legal in offers:
        ENGINE.apply(state, "bob", legal.action)


def test_after_the_starting_neighbourhoods_the_first_turn_starts_afresh() -> None:
    state = ENGINE.new(["ann", "bob", "cy"], {}, 4)
    while state["phase"] == "setup":
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, ENGINE.legal(state, player)[0].action)
    assert state["turn"] == {"drawn": {}, "discarded": False, "gave_cards": False,
                             "main": None, "placed": False}
    player = ENGINE.to_act(state)[0]
    assert {a.action["type"] for a in ENGINE.legal(state, player)} >= {"exchange", "pass"}
