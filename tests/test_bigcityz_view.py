"""What a Big Cityz player is offered and shown: the buttons of the veto window, whose
turn it is, which boards may be replaced, and the cities on the risk fields.

Stacked as in test_bigcityz_rules.py (slot 1 Population, 2 South, 3 Capital, 4 Coast).
"""

from __future__ import annotations

from bot.core.engine import LegalAction
from bot.games.bigcityz import ENGINE
from tests.test_bigcityz_rules import (
    PARIS_FILL,
    _no_free_square_for,
    risk,
    square,
    start,
    turn,
)


def test_the_objection_buttons_are_exactly_objection_and_no_objection() -> None:
    state, _ = ENGINE.apply(start(["Paris", "Tokyo"]), "ann", square(1, "green", 5))
    buttons = ENGINE.legal(state, "bob")
    assert buttons == [LegalAction({"type": "veto"}, "Objection"),
                       LegalAction({"type": "no_veto"}, "No objection")]
    # each button is a move the game accepts
    objected, _ = ENGINE.apply(state, "bob", buttons[0].action)
    assert objected["veto_window"]["objectors"] == ["bob"]
    declined, _ = ENGINE.apply(state, "cy", buttons[1].action)
    assert declined["veto_window"]["declined"] == ["cy"]
    assert ENGINE.legal(state, "ann") == []  # the placer has nothing to press


def test_whose_turn_the_view_says_it_is() -> None:
    state = start(["Paris", "Tokyo"])
    assert ENGINE.view(state, "ann")["is_my_turn"] is True
    assert ENGINE.view(state, "bob")["is_my_turn"] is False
    assert ENGINE.view(state, None)["turn"] == "ann"
    placed, _ = ENGINE.apply(state, "ann", square(1, "green", 5))
    # during the veto window nobody is placing; the others may object
    assert ENGINE.view(placed, "ann")["is_my_turn"] is False
    assert ENGINE.view(placed, "ann")["can_object"] is False
    assert ENGINE.view(placed, "bob")["can_object"] is True


def test_nobody_has_a_turn_once_the_game_is_over() -> None:
    state = start(["Paris", "Tokyo"], players=["ann", "bob"])
    state["city_pile"] = state["city_pile"][:1]
    state, _ = turn(state, square(1, "green", 5))
    state, _ = turn(state, square(4, "green", 6))
    view = ENGINE.view(state, "ann")
    assert view["phase"] == "over" and view["turn"] is None
    assert view["is_my_turn"] is False and view["can_object"] is False
    assert all(not board["replaceable"] for board in view["slots"])
    assert view["winners"] == ["bob"]


def test_a_full_board_shows_as_replaceable_only_while_placing() -> None:
    state = start(["Oslo", "Nassau", "Suva", "Paris", "Tokyo"])
    for action in (square(1, "green", 5), square(1, "green", 3), square(1, "red", 4)):
        state, _ = turn(state, action)
    assert [b["replaceable"] for b in ENGINE.view(state, None)["slots"]] == [
        True, False, False, False]
    placed, _ = ENGINE.apply(state, "ann", square(2, "green", 6))
    assert not any(b["replaceable"] for b in ENGINE.view(placed, None)["slots"])
    replaced, _ = ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    assert not any(b["replaceable"] for b in ENGINE.view(replaced, None)["slots"])


def test_the_risk_fields_show_their_boards_and_city() -> None:
    state, _ = turn(start(["Tokyo", "Paris"]), risk("3-4", "green"))
    fields = {(f["id"], f["color"]): f for f in ENGINE.view(state, None)["risk_fields"]}
    assert fields[("3-4", "green")]["slots"] == [3, 4]
    assert fields[("3-4", "green")]["city"] == {"id": "tokyo", "name": "Tokyo"}
    assert fields[("4-1", "red")]["slots"] == [4, 1] and fields[("4-1", "red")]["city"] is None


def test_there_is_a_no_free_square_button_when_nothing_else_is_left() -> None:
    state = _no_free_square_for("Paris", PARIS_FILL)
    buttons = ENGINE.legal(state, "cy")
    assert LegalAction({"type": "no_free_square"}, "There's no free square") in buttons
    assert not any(b.action["type"] == "replace" for b in buttons)
