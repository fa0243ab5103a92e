"""Big Cityz through the engine's whole interface: the computer seats' moves, the refusals
and reveals the other rule tests leave out, and the board's replace condition at its edges.

Boards and cities are stacked as in test_bigcityz_rules.py: slot 1 Population (green 5/3,
red 4/2), 2 South (green 6/5, red 3/2), 3 Capital (green 6/4, red 3/2), 4 Coast (green
6/4, red 4/2); the statement pile starts with Europe/Asia. Paris: over a million, north of
the equator, a capital, inland. Tokyo: the same but on the coast. Bergen: under a million,
north, not a capital, on the coast.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.core.levels import Budget, decide
from bot.games.bigcityz import ENGINE, GAME, ai, levels
from tests.test_bigcityz_rules import PLAYERS, square, start

JSON = dict[str, Any]


def _legal(state: JSON, player: str) -> list[JSON]:
    return [la.action for la in ENGINE.legal(state, player)]


@pytest.fixture
def all_knowing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every computer knows every fact of every city (normal and hard alike)."""
    monkeypatch.setattr(ai, "knows", lambda state, player, city, statement: True)
    monkeypatch.setattr(levels, "hard_knows", lambda state, player, city, statement: True)


# -- the computer seats -------------------------------------------------------------------


@pytest.mark.usefixtures("all_knowing")
def test_a_computer_that_knows_the_city_places_it_on_the_best_right_square() -> None:
    # Paris is a capital: Capital's green 6 is the most a right square pays this turn
    # (no risk field fits Paris: each pairs a true statement with a false one).
    state = start(["Paris", "Tokyo"])
    best = square(3, "green", 6)
    assert GAME.computer.normal(state, "ann") == best
    assert decide(GAME.computer, state, "ann", "hard", Budget()) == best
    assert best in _legal(state, "ann")


@pytest.mark.usefixtures("all_knowing")
def test_a_computer_that_knows_better_objects() -> None:
    placed, _ = ENGINE.apply(start(["Paris", "Tokyo"]), "ann", square(2, "green", 6))
    assert GAME.computer.normal(placed, "bob") == {"type": "veto"}  # Paris is not south
    assert decide(GAME.computer, placed, "bob", "hard", Budget()) == {"type": "veto"}
    right, _ = ENGINE.apply(start(["Paris", "Tokyo"]), "ann", square(3, "green", 6))
    assert GAME.computer.normal(right, "bob") == {"type": "no_veto"}
    assert decide(GAME.computer, right, "bob", "hard", Budget()) == {"type": "no_veto"}


@pytest.mark.usefixtures("all_knowing")
def test_an_easy_seat_plays_sloppily_even_when_it_knows_the_answer() -> None:
    # The seat's level is how the computer plays, not what it knows: an easy seat
    # sometimes takes a lesser square and sometimes lets a wrong placement pass.
    places, answers = [], []
    for seed in range(1, 15):
        state = start(["Paris", "Tokyo"], seed=seed)
        move = decide(GAME.computer, state, "ann", "easy", Budget())
        assert move in _legal(state, "ann")
        places.append(move)
        placed, _ = ENGINE.apply(state, "ann", square(2, "green", 6))  # wrong: Paris is north
        answers.append(decide(GAME.computer, placed, "bob", "easy", Budget())["type"])
    assert square(3, "green", 6) in places
    assert any(move != square(3, "green", 6) for move in places)
    assert "veto" in answers and "no_veto" in answers


@pytest.mark.usefixtures("all_knowing")
def test_a_hard_seat_near_the_end_searches_within_its_budget_and_plays_a_legal_move() -> None:
    state = start(["Paris", "Tokyo"])
    state["scores"].update({"bob": 30, "cy": 28})
    move = decide(GAME.computer, state, "ann", "hard", Budget(iterations=8, seconds=None))
    assert move in _legal(state, "ann")


# -- refusals, word for word --------------------------------------------------------------


@pytest.mark.parametrize(("options", "message"), [
    ({"rounds": 3}, "Big Cityz has no option 'rounds'."),
    ({"first_player": "zed"}, "zed is not playing, so cannot go first."),
    ({"veto_seconds": 0}, "The veto timer must be 1 to 600 seconds."),
    # a yes/no is not a number of seconds, though Python counts True as 1
    ({"veto_seconds": True}, "The veto timer must be 1 to 600 seconds."),
    ({"veto_seconds": 2.5}, "The veto timer must be 1 to 600 seconds."),
    ({"ai_levels": {"zed": "easy"}}, "zed is not playing, so has no computer knowledge."),
    ({"ai_levels": {"bob": "genius"}},
     "The computer knowledge 'genius' is not easy, normal or hard."),
    ({"ai_level": "genius"}, "The computer knowledge 'genius' is not easy, normal or hard."),
    ({"city_order": ["Atlantis"]}, "There is no city called 'Atlantis' in the deck."),
    ({"city_order": ["Paris", "PARIS"]}, "Paris is named twice in city_order."),
    ({"city_order": ["Paris", 3]}, "city_order must be a list of city names."),
    ({"statement_order": ["coast", 3]}, "statement_order must be a list of statement ids."),
])
def test_each_set_up_refusal_says_why_in_full(options: JSON, message: str) -> None:
    with pytest.raises(IllegalAction, match=f"^{re.escape(message)}$"):
        ENGINE.new(PLAYERS, options, 1)


def test_seven_players_are_too_many_and_six_are_welcome() -> None:
    with pytest.raises(IllegalAction, match=f"^{re.escape('Big Cityz is for 2 to 6 players.')}$"):
        ENGINE.new(["a", "b", "c", "d", "e", "f", "g"], {}, 1)
    six = ENGINE.new(["a", "b", "c", "d", "e", "f"], {}, 1)
    assert ENGINE.view(six, None)["vetoes_left"] == dict.fromkeys("abcdef", 2)
    assert ENGINE.to_act(ENGINE.new(["a", "b"], {}, 1)) == ["a"]


@pytest.mark.parametrize("action", [
    # True is not a board number, though Python counts it as 1
    {"type": "place", "slot": True, "color": "green", "points": 5},
    {"type": "replace", "slot": True},
    {"type": "place", "slot": "1", "color": "green", "points": 5},
    {"type": "replace"},
])
def test_a_board_is_named_by_its_number(action: JSON) -> None:
    with pytest.raises(IllegalAction, match=f"^{re.escape('Boards are numbered 1 to 4.')}$"):
        ENGINE.apply(start(["Paris"]), "ann", action)


# -- what the player on turn is offered ---------------------------------------------------


def test_every_move_offered_is_a_move_the_game_accepts() -> None:
    # The Place menu is built from these: each entry must be a placement the game takes,
    # risk fields included.
    state = start(["Paris", "Tokyo"])
    offered = ENGINE.legal(state, "ann")
    by_label = {la.label: la.action for la in offered}
    assert by_label["Risk 1–2 green (8)"] == {"type": "place", "risk": "1-2", "color": "green"}
    assert by_label["Risk 4–1 red (8)"] == {"type": "place", "risk": "4-1", "color": "red"}
    assert by_label["Green 6 on Capital"] == square(3, "green", 6)
    for la in offered:
        placed, events = ENGINE.apply(state, "ann", la.action)
        assert events[0]["type"] == "placed" and events[0]["label"] == la.label
        assert placed["phase"] == "veto"
