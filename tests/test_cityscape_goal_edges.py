"""Cityscape goals at their edges: the lowest buildings, vacant lots, and what a side sees.

The rulebook is /work/shared/rules/cityscape.txt; each test quotes the sentence it checks.
"""

from __future__ import annotations

import pytest

from bot.games.cityscape.skyline import (
    CODE_GOALS,
    LINES,
    LOTS,
    equal_height_points,
    line_heights,
    line_points,
    visible_count,
)

# -- code 5: two or more buildings of equal height ---------------------------------------


def test_goal5_two_one_high_buildings_in_front_score_20() -> None:
    # "You satisfy Code 5 if two or more buildings of the same height are visible, with no
    # taller buildings in front or in between" - the lowest buildings count like any other.
    assert line_points(5, [1, 1, 0, 0], 5) == 20


def test_goal5_one_high_pair_behind_vacant_lots_scores_20() -> None:
    # "Vacant lots do not count as buildings": they neither block nor form a pair.
    assert line_points(5, [0, 1, 0, 1], 5) == 20


def test_goal5_a_single_one_high_building_scores_nothing() -> None:
    # "Because at least two buildings will always be involved, you will score at least 20
    # if you are successful."
    assert line_points(5, [1, 0, 0, 0], 5) == 0
    assert line_points(5, [0, 0, 0, 0], 5) == 0


def test_goal5_pair_then_a_taller_single_scores_only_the_pair() -> None:
    # "10 points for each visible building in this line of blocks which has exactly the
    # same height as another visible building": the single taller one is seen but unpaired.
    assert equal_height_points([2, 2, 3, 0]) == 20
    assert equal_height_points([1, 1, 2, 2]) == 40


def test_goal5_a_taller_building_in_front_hides_a_pair_behind_it() -> None:
    # "with no taller buildings in front or in between"
    assert line_points(5, [2, 1, 1, 0], 5) == 0
    assert line_points(5, [1, 3, 1, 1], 5) == 0


def test_goal5_a_second_pair_hidden_behind_a_taller_one_does_not_count() -> None:
    assert equal_height_points([1, 1, 4, 1]) == 20


# -- code 6: the tallest building in the city ---------------------------------------------


def test_goal6_when_the_tallest_building_is_one_high() -> None:
    # "the line of blocks must contain the tallest building anywhere in the city": a
    # 1-high building is the tallest when nothing is taller.
    assert line_points(6, [0, 0, 1, 0], 1) == 25
    assert line_points(6, [0, 0, 0, 0], 1) == 0


def test_goal6_an_empty_city_has_no_tallest_building() -> None:
    # "Lots can remain vacant. Empty lots do not count as buildings", so a line of vacant
    # lots never holds the tallest building, even when nothing in the city is taller.
    assert line_points(6, [0, 0, 0, 0], 0) == 0


def test_goal6_a_building_shorter_than_the_tallest_scores_nothing() -> None:
    assert line_points(6, [4, 4, 4, 4], 5) == 0


# -- codes 1 to 4 ---------------------------------------------------------------------------


def test_codes_1_to_4_score_ten_per_building_seen_when_exact() -> None:
    # "10 points if you can "see" exactly one building ... 40 points ... exactly four"
    assert [line_points(c, [1, 2, 3, 4], 4) for c in (1, 2, 3, 4)] == [0, 0, 0, 40]
    assert [line_points(c, [1, 2, 3, 0], 3) for c in (1, 2, 3, 4)] == [0, 0, 30, 0]
    assert [line_points(c, [0, 1, 0, 0], 1) for c in (1, 2, 3, 4)] == [10, 0, 0, 0]


def test_an_empty_line_meets_no_goal() -> None:
    # "if a lot remains vacant, it is not counted as a visible building"
    assert visible_count([0, 0, 0, 0]) == 0
    assert [line_points(c, [0, 0, 0, 0], 3) for c in range(1, 7)] == [0] * 6


def test_a_one_high_building_in_front_is_seen() -> None:
    assert visible_count([1, 0, 0, 0]) == 1
    assert visible_count([1, 1, 2, 2]) == 2


def test_an_unknown_code_is_refused() -> None:
    # Dice have six faces; a seventh code is a programming error, not a miss.
    with pytest.raises(ValueError, match="unknown code 7"):
        line_points(7, [1, 2, 3, 4], 4)
    with pytest.raises(ValueError, match="unknown code 0"):
        line_points(0, [1, 2, 3, 4], 4)


# -- what each side sees ----------------------------------------------------------------------


def test_the_six_codes_have_the_rulebook_goals() -> None:
    assert sorted(CODE_GOALS) == [1, 2, 3, 4, 5, 6]
    assert CODE_GOALS[5] == "see 2+ buildings of equal height"
    assert CODE_GOALS[6] == "hold the tallest building in the city"


def test_lots_run_a1_to_d4_row_by_row() -> None:
    assert LOTS[:5] == ("A1", "B1", "C1", "D1", "A2")
    assert len(LOTS) == 16 and LOTS[-1] == "D4"


def test_each_side_sees_its_lines_left_to_right_front_to_back() -> None:
    # "The lines of blocks begin with the blocks closest to you and extend to the opposite
    # side of the board" and "the die closest to the left end of the dice holder ...
    # represents ... the line of blocks on the left side of the board, from your point of view".
    assert LINES["S"] == (("A1", "A2", "A3", "A4"), ("B1", "B2", "B3", "B4"),
                          ("C1", "C2", "C3", "C4"), ("D1", "D2", "D3", "D4"))
    assert LINES["W"] == (("A4", "B4", "C4", "D4"), ("A3", "B3", "C3", "D3"),
                          ("A2", "B2", "C2", "D2"), ("A1", "B1", "C1", "D1"))
    assert LINES["N"] == (("D4", "D3", "D2", "D1"), ("C4", "C3", "C2", "C1"),
                          ("B4", "B3", "B2", "B1"), ("A4", "A3", "A2", "A1"))
    assert LINES["E"] == (("D1", "C1", "B1", "A1"), ("D2", "C2", "B2", "A2"),
                          ("D3", "C3", "B3", "A3"), ("D4", "C4", "B4", "A4"))


def test_line_heights_read_the_board_as_each_side_sees_it() -> None:
    heights = dict.fromkeys(LOTS, 0)
    heights.update({"A1": 1, "A2": 2, "D4": 5})
    assert line_heights(heights, "S")[0] == [1, 2, 0, 0]
    assert line_heights(heights, "N")[0] == [5, 0, 0, 0]
    assert line_heights(heights, "N")[3] == [0, 0, 2, 1]
    assert line_heights(heights, "E")[0] == [0, 0, 0, 1]
    assert line_heights(heights, "W")[0] == [0, 0, 0, 5]
