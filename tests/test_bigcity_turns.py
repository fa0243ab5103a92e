"""Big City turns: discarding useless cards, drawing, exchanging, passing, the end of the game."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
CITY_HALL = ("city_hall", [15], "bob")
PARK_ON_11_12 = ("lincoln_park", [11, 12], "bob")
ROW = [(n, (x, 0), 0) for n, x in ((2, 3), (3, 7), (4, 10), (5, 14), (6, 17), (7, 21), (8, 24))]
"""All eight neighbourhoods side by side."""


def refusal(state: dict[str, Any], player: str, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, player, action)
    return str(caught.value)


def useless_position(**options: bool) -> dict[str, Any]:
    return position(
        neighborhoods=CITY,
        pieces=[CITY_HALL, PARK_ON_11_12],
        hands={"ann": [11, 12, 13, 31, 32]},
        options=dict(options),
    )


def test_useless_cards_are_discarded_at_the_start_and_replaced_at_the_end() -> None:
    state = useless_position()
    labels = [a.label for a in ENGINE.legal(state, "ann")]
    assert "Discard useless 11, 12" in labels
    assert refusal(state, "ann", {"type": "discard_useless", "cards": [13]}) == (
        "Property 13 is not under a park or factory, so its card is not useless."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [11, 12]})
    assert events == [{"type": "discarded", "player": "ann", "cards": [11, 12]}]
    assert ENGINE.to_act(state) == ["ann"]  # the turn goes on
    assert not any(a.action["type"] == "discard_useless" for a in ENGINE.legal(state, "ann"))
    state, _ = ENGINE.apply(
        state, "ann", {"type": "build", "building": "single_residence", "properties": [13]}
    )
    # three cards to draw, at most two from one stack, counting every draw of the turn
    assert ENGINE.view(state, None)["draw"]["cards"] == 3
    assert refusal(state, "ann", {"type": "draw", "stacks": [2, 2, 2]}) == (
        "You may draw at most two cards from stack 2 in a turn."
    )
    assert (
        refusal(state, "ann", {"type": "draw", "stacks": [2, 2, 3, 4]})
        == "You draw only 3 more cards."
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [2]})
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [2]})
    assert [a.action["stacks"] for a in ENGINE.legal(state, "ann")] == [
        [1],
        [3],
        [4],
        [5],
        [6],
        [7],
        [8],
    ]
    state, events = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [5]})
    assert len(state["hands"]["ann"]) == 5
    assert events[-1] == {"type": "turn", "player": "bob"}


def test_five_players_hold_six_cards() -> None:
    players = ["ann", "bob", "cy", "dee", "eve"]
    state = position(players=players, neighborhoods=CITY, hands={"ann": [11, 12, 13, 31, 32, 33]})
    assert all(len(state["hands"][p]) == 6 for p in players)
    state, _ = ENGINE.apply(
        state, "ann", {"type": "build", "building": "triple_residence", "properties": [11, 12, 13]}
    )
    assert ENGINE.view(state, None)["draw"]["cards"] == 3
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7, 7, 8]})
    assert len(state["hands"]["ann"]) == 6
    assert ENGINE.to_act(state) == ["bob"]


def test_useless_cards_can_only_be_discarded_first() -> None:
    state = useless_position()
    state, _ = ENGINE.apply(state, "ann", {"type": "discard_useless", "cards": [11]})
    assert refusal(state, "ann", {"type": "discard_useless", "cards": [12]}) == (
        "Useless cards can only be discarded at the start of your turn."
    )


def test_variant_useless_cards_must_be_exchanged() -> None:
    state = useless_position(must_exchange_useless=True)
    assert not any(a.action["type"] == "discard_useless" for a in ENGINE.legal(state, "ann"))
    assert refusal(state, "ann", {"type": "discard_useless", "cards": [11]}) == (
        "In this game useless cards must be exchanged, not discarded."
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12]})
    assert state["stacks"]["1"][-2:] == [11, 12]  # another player may draw them later


def test_exchange_puts_cards_under_their_stacks_and_draws_back_to_five() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 21, 31, "lincoln_park"]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "exchange", "cards": ["lincoln_park", 11, 31]}
    )
    assert events[0] == {"type": "exchanged", "player": "ann", "count": 3, "stacks": [2, 1, 3]}
    assert state["stacks"]["2"][-1] == "lincoln_park"
    assert state["stacks"]["1"][-1] == 11
    assert refusal(state, "ann", {"type": "pass"}) == "Finish your turn by drawing cards."
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [7, 8, 7]})
    assert len(state["hands"]["ann"]) == 5
    assert ENGINE.to_act(state) == ["bob"]
    assert refusal(state, "bob", {"type": "exchange", "cards": [99]}) == "There is no card 99."
    assert (
        refusal(state, "bob", {"type": "exchange", "cards": [11]}) == "You do not hold the 11 card."
    )


def test_empty_stacks_cannot_be_drawn_from_and_a_short_hand_stays_short() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [12, 13, 14, 16, 17]})
    for number in range(1, 9):
        if number != 8:
            state["discard"].extend(state["stacks"][str(number)])
            state["stacks"][str(number)] = []
    state["stacks"]["8"] = state["stacks"]["8"][:1]
    state, _ = ENGINE.apply(
        state, "ann", {"type": "build", "building": "double_residence", "properties": [12, 13]}
    )
    assert ENGINE.view(state, None)["draw"]["cards"] == 1
    assert refusal(state, "ann", {"type": "draw", "stacks": [3]}) == "Stack 3 is empty."
    state, _ = ENGINE.apply(state, "ann", {"type": "draw", "stacks": [8]})
    assert len(state["hands"]["ann"]) == 4  # nothing left to draw: the turn ends
    assert ENGINE.to_act(state) == ["bob"]


def test_variant_limited_drawing_only_from_placed_neighbourhoods() -> None:
    state = position(
        neighborhoods=CITY,
        hands={"ann": [11, 12, 13, 31, 32]},
        options={"limited_card_drawing": True},
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12, 13]})
    assert sorted(a.action["stacks"][0] for a in ENGINE.legal(state, "ann")) == [1, 2, 3]
    assert refusal(state, "ann", {"type": "draw", "stacks": [5]}) == (
        "In this game you draw only from placed neighborhoods; 5 is not placed."
    )


def test_the_game_ends_when_all_players_pass_in_a_row() -> None:
    state = position(
        players=["ann", "bob", "cy"], neighborhoods=CITY, hands={"ann": [11, 12, 13, 14, 16]}
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})
    state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
    # cy still has something to do; ann and bob go on passing while cy plays
    state, _ = ENGINE.apply(state, "cy", {"type": "exchange", "cards": [state["hands"]["cy"][0]]})
    state, _ = ENGINE.apply(state, "cy", {"type": "draw", "stacks": [8]})
    state, _ = ENGINE.apply(state, "ann", {"type": "pass"})
    state, _ = ENGINE.apply(state, "bob", {"type": "pass"})
    assert ENGINE.result(state) is None
    state, events = ENGINE.apply(state, "cy", {"type": "pass"})
    final = ENGINE.result(state)
    assert final is not None and final.extra == {"ended_by": "all_passed"}
    assert events[-1]["type"] == "game_over"
    assert ENGINE.to_act(state) == []
    assert ENGINE.legal(state, "ann") == []
    assert refusal(state, "ann", {"type": "pass"}) == "The game is over."


def test_tied_players_share_the_win() -> None:
    state = position(
        players=["ann", "bob", "cy"],
        neighborhoods=CITY,
        pieces=[
            ("single_residence", [11], "ann"),
            ("single_residence", [13], "bob"),
            ("single_residence", [36], "cy"),
        ],
    )
    for player in ("ann", "bob", "cy"):
        state, _ = ENGINE.apply(state, player, {"type": "pass"})
    final = ENGINE.result(state)
    assert final is not None
    assert final.scores == {"ann": 3, "bob": 3, "cy": 3}
    assert final.winners == ["ann", "bob", "cy"]


def test_the_game_ends_when_every_property_of_all_neighbourhoods_is_built() -> None:
    everything = [p for n in range(1, 9) for p in range(n * 10 + 1, n * 10 + (10 if n % 2 else 9))]
    pieces = [CITY_HALL] + [
        ("single_residence", [p], "bob") for p in everything if p not in (15, 88)
    ]
    state = position(neighborhoods=ROW, pieces=pieces, hands={"ann": [88]})
    assert ENGINE.result(state) is None
    state, events = ENGINE.apply(
        state, "ann", {"type": "build", "building": "church", "properties": [88]}
    )
    final = ENGINE.result(state)
    assert final is not None and final.extra == {"ended_by": "city_complete"}
    assert events[-1]["type"] == "game_over"
    assert final.winners == ["bob"]  # 66 residences beat one church


def test_a_full_city_with_neighbourhoods_left_to_place_goes_on() -> None:
    seven = [p for n in range(1, 8) for p in range(n * 10 + 1, n * 10 + (10 if n % 2 else 9))]
    pieces = [CITY_HALL] + [("single_residence", [p], "bob") for p in seven if p not in (15, 77)]
    state = position(neighborhoods=ROW[:6], pieces=pieces, hands={"ann": [77, 81, 82, 83, 84]})
    state, _ = ENGINE.apply(
        state, "ann", {"type": "build", "building": "church", "properties": [77]}
    )
    assert ENGINE.result(state) is None
    assert state["step"] == "draw"


def test_a_turn_without_cards_spent_draws_nothing() -> None:
    state = position(neighborhoods=CITY, pieces=[CITY_HALL], hands={"ann": [11, 12]})
    state, _events = ENGINE.apply(
        state, "ann", {"type": "streetcar", "segments": [[[0, 0], [1, 0]]]}
    )
    assert ENGINE.to_act(state) == ["bob"]
    assert len(state["hands"]["ann"]) == 2


def test_apply_never_changes_its_input() -> None:
    state = useless_position()
    snapshot = copy.deepcopy(state)
    for action in [a.action for a in ENGINE.legal(state, "ann")][:40]:
        ENGINE.apply(state, "ann", action)
        assert state == snapshot
    with pytest.raises(IllegalAction):
        ENGINE.apply(
            state, "ann", {"type": "build", "building": "single_residence", "properties": [11]}
        )
    assert state == snapshot


def test_hands_appear_only_in_their_owners_view() -> None:
    state = useless_position()
    public = ENGINE.view(state, None)
    assert "hand" not in public
    assert public["hand_sizes"] == {"ann": 5, "bob": 5}
    ann = ENGINE.view(state, "ann")
    assert ann["hand"] == [11, 12, 13, 31, 32]
    assert ann["useless"] == [11, 12]
    bob = ENGINE.view(state, "bob")
    assert bob["hand"] == state["hands"]["bob"]
    assert "11, 12, 13" not in json.dumps(bob)
    json.dumps(public)
