"""Big City setup: options, dealing, the starting neighbourhoods and the first turn."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bot.core.engine import JSON, IllegalAction
from bot.games.bigcity import ENGINE
from bot.games.bigcity.content import ALL_CARDS, stack_of

PLAYERS = ["ann", "bob", "cy", "dee", "eve"]


def all_cards(state: dict[str, Any]) -> Counter[Any]:
    cards: Counter[Any] = Counter()
    for pile in [*state["stacks"].values(), *state["hands"].values(), state["discard"]]:
        cards.update(pile)
    return cards


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_each_player_gets_one_card_from_each_of_the_first_stacks(count: int) -> None:
    state = ENGINE.new(PLAYERS[:count], {}, seed=7)
    dealt = 6 if count == 5 else 5
    for player in PLAYERS[:count]:
        assert sorted(stack_of(c) for c in state["hands"][player]) == list(range(1, dealt + 1))
    for number in range(1, 9):
        assert len(state["stacks"][str(number)]) == (9 - count if number <= dealt else 9)
    assert all_cards(state) == Counter(ALL_CARDS)
    assert len(ALL_CARDS) == 72


@pytest.mark.parametrize(
    ("count", "pool", "places"),
    [
        (2, [2, 3, 4, 5], ["ann", "bob", "ann", "bob"]),
        (3, [2, 3, 4], ["ann", "bob", "cy"]),
        (4, [2, 3, 4, 5], ["ann", "bob", "cy", "dee"]),
        (5, [2, 3, 4, 5, 6], PLAYERS),
    ],
)
def test_starting_neighbourhoods_are_placed_in_turn(
    count: int, pool: list[int], places: list[str]
) -> None:
    state = ENGINE.new(PLAYERS[:count], {"first_player": "ann"}, seed=3)
    public = ENGINE.view(state, None)
    assert public["setup"] == {"pool": pool, "order": places}
    assert [n["number"] for n in public["neighborhoods"]] == [1]
    seen = []
    while state["phase"] == "setup":
        (player,) = ENGINE.to_act(state)
        seen.append(player)
        options = ENGINE.legal(state, player)
        assert {a.action["neighborhood"] for a in options} == set(state["setup"]["pool"])
        state, events = ENGINE.apply(state, player, options[0].action)
    assert seen == places
    assert sorted(n["number"] for n in state["neighborhoods"]) == [1, *pool]
    assert ENGINE.to_act(state) == ["ann"]
    assert events[-1] == {"type": "turn", "player": "ann"}
    assert state["phase"] == "play"


def test_the_first_player_can_be_chosen_and_otherwise_comes_from_the_seed() -> None:
    assert ENGINE.to_act(ENGINE.new(["ann", "bob", "cy"], {"first_player": "cy"}, 1)) == ["cy"]
    firsts = {ENGINE.to_act(ENGINE.new(["ann", "bob", "cy"], {}, seed))[0] for seed in range(30)}
    assert firsts == {"ann", "bob", "cy"}


def test_same_seed_same_game_and_other_seeds_shuffle_differently() -> None:
    assert ENGINE.new(["ann", "bob"], {}, 11) == ENGINE.new(["ann", "bob"], {}, 11)
    assert (
        ENGINE.new(["ann", "bob"], {}, 11)["stacks"] != ENGINE.new(["ann", "bob"], {}, 12)["stacks"]
    )


def test_stacked_cards_are_dealt_and_drawn_first() -> None:
    options = {"stacks": {"1": [14, 17], 2: [21, 22, "lincoln_park"]}, "first_player": "ann"}
    state = ENGINE.new(["ann", "bob"], options, 5)
    assert state["hands"]["ann"][:2] == [14, 21]
    assert state["hands"]["bob"][:2] == [17, 22]
    assert state["stacks"]["2"][0] == "lincoln_park"
    assert sorted(map(str, state["stacks"]["2"])) == sorted(
        map(str, [23, 24, 25, 26, 27, 28, "lincoln_park"])
    )


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (["ann"], {}, "Big City is for 2 to 5 players."),
        ([*PLAYERS, "fay"], {}, "Big City is for 2 to 5 players."),
        (["ann", "ann"], {}, "Every player must be named once."),
        (["ann", "bob"], {"colour": "red"}, "Big City has no option 'colour'."),
        (
            ["ann", "bob"],
            {"trade_cards": "yes"},
            "The option trade_cards is on or off (true or false).",
        ),
        (["ann", "bob"], {"first_player": "zed"}, "The first player 'zed' is not in this game."),
        (["ann", "bob"], {"stacks": {"1": [21]}}, "Card 21 is not in stack 1."),
        (
            ["ann", "bob"],
            {"stacks": {"2": ["central_park"]}},
            "Card 'central_park' is not in stack 2.",
        ),
        (["ann", "bob"], {"stacks": {"9": []}}, "There is no stack '9'."),
        (["ann", "bob"], {"stacks": {"1": [11, 11]}}, "Stack 1 lists a card twice."),
        (
            ["ann", "bob"],
            {"stacks": [11]},
            "The stacks option maps a stack number to a list of its cards.",
        ),
    ],
)
def test_bad_options_are_refused(players: list[str], options: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.new(players, options, 1)
    assert str(caught.value) == message


def test_every_variant_flag_is_accepted() -> None:
    flags = [
        "trade_cards",
        "must_exchange_useless",
        "single_streetcar_line",
        "limited_streetcar_line",
        "limited_card_drawing",
    ]
    state = ENGINE.new(["ann", "bob"], {flag: True for flag in flags}, 1)
    assert ENGINE.view(state, None)["options"] == {flag: True for flag in flags}


def test_setup_allows_only_placing_starting_neighbourhoods() -> None:
    state = ENGINE.new(["ann", "bob"], {"first_player": "ann"}, 2)
    refused: list[tuple[JSON, str]] = [
        ({"type": "pass"}, "First the starting neighborhoods are placed."),
        (
            {"type": "place_neighborhood", "neighborhood": 7, "at": [3, 0], "rotation": 0},
            "Neighborhood 7 is not one of the starting neighborhoods left (2, 3, 4, 5).",
        ),
        (
            {"type": "place_neighborhood", "neighborhood": 2, "at": [1, 0], "rotation": 0},
            "Neighborhoods may not overlap.",
        ),
        (
            {"type": "place_neighborhood", "neighborhood": 2, "at": [3, 0], "rotation": 30},
            "A neighborhood turns by 0, 90, 180 or 270 degrees.",
        ),
        (
            {"type": "place_neighborhood", "neighborhood": 2, "at": "east"},
            "Say where to place the neighborhood.",
        ),
    ]
    for action, message in refused:
        with pytest.raises(IllegalAction) as caught:
            ENGINE.apply(state, "ann", action)
        assert str(caught.value) == message
    after, events = ENGINE.apply(
        state, "ann", {"type": "place_neighborhood", "neighborhood": 2, "at": [3, 0], "rotation": 0}
    )
    assert events[0]["type"] == "neighborhood_placed"
    assert ENGINE.to_act(after) == ["bob"]
    assert after["setup"]["pool"] == [3, 4, 5]
    labels = [a.label for a in ENGINE.legal(after, "bob")]
    assert "Neighborhood 3 at (0, 3), turned 0°" in labels
