"""The Big Cityz board: the deck loader, the point-square formula and the risk fields."""

from __future__ import annotations

import pytest

from bot.games.bigcityz import board, content


def test_the_deck_and_the_boards_load_from_data() -> None:
    assert len(content.city_ids()) == 200
    assert content.statement_ids() == [
        "population", "founded", "area", "elevation", "airport", "timezones", "temperature",
        "coast", "south", "left_traffic", "eurasia", "capital"]
    assert content.find_city("rio de janeiro") == content.find_city("Rio de Janeiro")
    assert content.find_city("Atlantis") is None
    assert content.share("airport") == pytest.approx(164 / 200)
    assert content.truth("paris", "capital") is True
    back = content.facts("paris")
    assert back["facts"]["population"]["true"] is True
    assert back["facts"]["timezones"] == {"value": 1.0, "true": False}


@pytest.mark.parametrize("statement_id", content.statement_ids())
def test_each_board_has_two_green_and_two_red_squares_worth_1_to_6(statement_id: str) -> None:
    squares = board.point_squares(statement_id)
    assert [color for color, _ in squares] == ["green", "green", "red", "red"]
    for color in board.COLORS:
        high, low = (points for c, points in squares if c == color)
        assert 1 <= low < high <= 6  # "the two squares of a colour worth different amounts"


@pytest.mark.parametrize("statement_id", content.statement_ids())
def test_the_rarer_answer_pays_more(statement_id: str) -> None:
    values = board.square_values(statement_id)
    rare, common = ("green", "red") if content.share(statement_id) < 0.5 else ("red", "green")
    assert values[rare][0] >= values[common][0] and values[rare][1] >= values[common][1]
    assert sum(values[rare]) > sum(values[common])


def test_the_formula_on_the_deck() -> None:
    # v = 2.4 / q for a colour whose answer has share q; squares round(v) and round(v / 2).
    assert board.square_values("airport") == {"green": (3, 1), "red": (6, 5)}  # 82 % true
    assert board.square_values("population") == {"green": (5, 3), "red": (4, 2)}  # 45 %
    assert board.square_values("coast") == {"green": (6, 4), "red": (4, 2)}  # 33.5 %
    assert board.square_values("founded") == {"green": (4, 2), "red": (6, 3)}  # 59.5 %
    assert board.colour_values(0.5) == (5, 2)
    assert board.colour_values(0.05) == (6, 5)  # capped at 6, still apart
    assert board.colour_values(0.99) == (2, 1)


def test_risk_fields_lie_between_neighbouring_slots() -> None:
    assert board.RISK_FIELDS == ("1-2", "2-3", "3-4", "4-1")
    assert board.adjacent_risk_fields(1) == ["1-2", "4-1"]
    assert board.adjacent_risk_fields(3) == ["2-3", "3-4"]
    assert board.risk_slots("4-1") == (4, 1)


def test_risk_field_and_square_truth_tables() -> None:
    assert board.risk_right("green", True, True)
    assert not board.risk_right("green", True, False)
    assert board.risk_right("red", False, False)
    # "There are no risk fields for a combined guesstimate"
    assert not board.risk_right("red", True, False) and not board.risk_right("red", False, True)
    assert board.square_right("green", True) and board.square_right("red", False)
    assert not board.square_right("red", True)


def test_labels() -> None:
    assert board.square_label("left_traffic", "red", 2) == "Red 2 on Left traffic"
    assert board.risk_label("4-1", "red") == "Risk 4–1 red (8)"
