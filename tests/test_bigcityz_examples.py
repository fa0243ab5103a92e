"""The worked examples and rulings of the Big Cityz rulebook, one test each."""

from __future__ import annotations

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcityz import ENGINE, content
from tests.test_bigcityz_rules import reveal_of, risk, square, start, turn


def test_martin_draws_kiev() -> None:
    # "Martin draws the city card „Kiev“. Among others, the statement boards showing on the
    # game board are: „Has a population of 1 million or more“ and „Is located south of the
    # equator“. Martin is certain that the statement „Has a population of 1 million or
    # more“ is true of Kiev. So he lays the city card on a green point square of this
    # statement board. He is right. Alternatively, Martin could have also laid the city card
    # on a red point square on the other statement board ... he would have been right, too."
    # Kyiv is not in our deck (its airports have been closed since 2022); Minsk, a capital
    # of two million north of the equator, stands in for it.
    assert content.find_city("Kiev") is None
    players = ["martin", "ulla"]
    state, events = turn(start(["Minsk"], players), square(1, "green", 5))
    assert reveal_of(events)["right"] is True and state["scores"]["martin"] == 5
    state, events = turn(start(["Minsk"], players), square(2, "red", 3))
    assert reveal_of(events)["right"] is True and state["scores"]["martin"] == 3


def test_the_symbol_on_the_board_is_the_fact_on_the_card() -> None:
    # "The statement board „Has a population of 1 million or more“ shows the following
    # symbol ... This symbol is also on the city cards. The population of the respective
    # city is next to this symbol."
    state = start(["Minsk"])
    assert ENGINE.view(state, None)["slots"][0]["symbol"] == "people"
    state, events = turn(state, square(1, "green", 5))
    fact = reveal_of(events)["city"]["facts"]["population"]
    assert fact == {"value": content.card("minsk")["population"], "true": True}


def test_a_risk_field_applies_to_both_boards_at_the_same_time() -> None:
    # "Lay your city card on a green risk field if you think both statements of the
    # adjacent statement boards are true of your city. ... If you are right, you will get 8
    # points. If you are wrong, you will get 2 negative points."
    state, events = turn(start(["Tokyo", "Minsk"]), risk("3-4", "green"))  # capital, coast
    assert state["scores"]["ann"] == 8
    state, events = turn(state, risk("3-4", "red"))  # Minsk is a capital: wrong
    assert reveal_of(events)["points"]["bob"] == 0  # "nothing happens" at the start


def test_several_objections_at_once_but_one_marker_each() -> None:
    # "Multiple players can raise an objection at the same time with each one laying his
    # veto marker on the city card. However, one player may not lay two of his veto
    # markers on the city at the same time."
    state, _ = ENGINE.apply(start(["Minsk"]), "ann", square(2, "green", 6))
    state, _ = ENGINE.apply(state, "bob", {"type": "veto"})
    with pytest.raises(IllegalAction, match="already answered"):
        ENGINE.apply(state, "bob", {"type": "veto"})
    state, events = ENGINE.apply(state, "cy", {"type": "veto"})
    assert reveal_of(events)["objectors"] == ["bob", "cy"]
    assert state["scores"] == {"ann": 0, "bob": 3, "cy": 3}
    assert state["vetoes"] == {"ann": 2, "bob": 1, "cy": 1}


def test_an_unjustified_objection_at_the_starting_position() -> None:
    # "they each receive 3 negative points ... If a playing piece is still on the starting
    # position, nothing happens and it stays where it is."
    state, events = turn(start(["Minsk"]), square(1, "green", 5), objectors=("bob",))
    assert reveal_of(events)["points"]["bob"] == 0
    assert state["scores"]["bob"] == 0 and state["vetoes"]["bob"] == 1


def test_each_player_objects_exactly_two_times_in_a_game() -> None:
    # "each player can raise an objection exactly two times throughout the entire game"
    state = start(["Minsk", "Tokyo", "Oslo", "Paris", "Bergen"])
    for action in (square(1, "green", 5), square(1, "green", 3), square(2, "red", 3)):
        objectors = ("cy",) if ENGINE.to_act(state) != ["cy"] else ()
        state, _ = turn(state, action, objectors=objectors)
    assert state["vetoes"]["cy"] == 0
    state, _ = ENGINE.apply(state, "ann", square(3, "green", 6))
    assert ENGINE.to_act(state) == ["bob"]


def test_past_36_and_more_than_one_winner() -> None:
    # "Should you have more than 36 points, move your playing piece the corresponding
    # number of spaces past the starting position. Finish the round. Once the round is
    # over, the player with the most points wins. There can be more than one winner."
    state = start(["Tokyo", "Minsk"], ["ann", "bob"])
    state["scores"].update({"ann": 35, "bob": 33})
    state, _ = turn(state, square(2, "red", 3))  # ann: Tokyo is north of the equator
    assert state["scores"]["ann"] == 38 and ENGINE.result(state) is None
    state, events = turn(state, square(1, "green", 5))  # bob: Minsk has two million
    result = ENGINE.result(state)
    assert result is not None
    assert result.scores == {"ann": 38, "bob": 38}
    assert result.winners == ["ann", "bob"]
    assert events[-1]["winners"] == ["ann", "bob"]
