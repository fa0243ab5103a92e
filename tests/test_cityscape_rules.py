"""Cityscape rules, one test per rule and per worked example of the rulebook."""

from __future__ import annotations

import pytest

from bot.core.engine import IllegalAction
from bot.games.cityscape import ENGINE, GAME
from bot.games.cityscape.skyline import (
    LINES,
    equal_height_points,
    line_points,
    visible_count,
)

# -- seeing buildings (codes 1-4) -------------------------------------------------------


def test_increasing_heights_show_all_four() -> None:
    # "if ... each building is increasingly taller as you look up the line ... you see all four"
    assert visible_count([1, 2, 3, 4]) == 4
    assert line_points(4, [1, 2, 3, 4], 4) == 40


def test_tallest_in_front_hides_the_rest() -> None:
    # "if the front building is the tallest, it is the only building you can see"
    assert visible_count([5, 4, 3, 2]) == 1
    assert line_points(1, [5, 4, 3, 2], 5) == 10


def test_tallest_second_shows_two() -> None:
    # "If the second building is the tallest, you can see two buildings"
    assert visible_count([2, 6, 3, 4]) == 2


def test_shortest_second_tallest_third_shows_first_and_third() -> None:
    # "if the second building is the shortest but the third building is the tallest, you
    # would still see two buildings, the first and third buildings."
    assert visible_count([3, 1, 5, 2]) == 2
    assert line_points(2, [3, 1, 5, 2], 5) == 20


def test_equal_height_behind_is_hidden_for_codes_1_to_4() -> None:
    # "If two buildings are exactly the same height, the building in back is not visible"
    assert visible_count([3, 3, 0, 0]) == 1
    assert line_points(2, [3, 3, 0, 0], 3) == 0


def test_vacant_lots_are_not_buildings() -> None:
    assert visible_count([0, 0, 0, 0]) == 0
    assert visible_count([0, 2, 0, 3]) == 2
    assert line_points(1, [0, 0, 0, 0], 5) == 0


def test_codes_1_to_4_need_the_exact_number() -> None:
    # "if you choose Code 3 ... but you can see only two buildings there, you score no points"
    assert line_points(3, [1, 4, 2, 2], 4) == 0
    assert line_points(3, [1, 2, 4, 0], 4) == 30


# -- code 5: equal heights --------------------------------------------------------------


def test_code5_pair_scores_20() -> None:
    assert equal_height_points([2, 2, 0, 0]) == 20


def test_code5_three_equal_scores_30() -> None:
    # "if three buildings have the same height, and you can see all of them ... 30 points"
    assert equal_height_points([4, 4, 4, 0]) == 30


def test_code5_two_pairs_shorter_in_front_scores_40() -> None:
    # "two buildings are 3 units high and the other two are 4 units high ... 40 points.
    # the shorter pair must be in front of the taller pair so that all four are visible"
    assert line_points(5, [3, 3, 4, 4], 4) == 40
    assert line_points(5, [4, 4, 3, 3], 4) == 20


def test_code5_all_four_equal_scores_40() -> None:
    assert line_points(5, [2, 2, 2, 2], 2) == 40


def test_code5_taller_building_in_between_blocks() -> None:
    # "with no taller buildings in front or in between"
    assert equal_height_points([2, 5, 2, 0]) == 0


def test_code5_vacant_lots_do_not_count() -> None:
    # "two or more vacant lots in a line of blocks do not satisfy Code 5"
    assert equal_height_points([0, 0, 3, 0]) == 0


def test_code5_shorter_pair_behind_a_tall_front_is_hidden() -> None:
    assert equal_height_points([5, 1, 1, 0]) == 0


# -- code 6: tallest building in the city ------------------------------------------------


def test_code6_tallest_in_line_scores_25() -> None:
    assert line_points(6, [1, 9, 0, 0], 9) == 25
    assert line_points(6, [1, 8, 0, 0], 9) == 0


def test_code6_ties_for_tallest_any_line_with_one_scores() -> None:
    # "If two or more buildings in the city are tied for the highest, you satisfy this code
    # as long as at least one of those buildings is in this line"
    assert line_points(6, [7, 0, 0, 0], 7) == 25


def test_code6_capped_at_25_for_two_tallest_in_one_line() -> None:
    # "your score for that line of blocks is limited to 25 points"
    assert line_points(6, [7, 7, 0, 0], 7) == 25


# -- lines as each side sees them --------------------------------------------------------


def test_lines_follow_the_public_conventions() -> None:
    assert LINES["S"][0] == ("A1", "A2", "A3", "A4")
    assert LINES["W"][0] == ("A4", "B4", "C4", "D4")
    assert LINES["N"][0] == ("D4", "D3", "D2", "D1")
    assert LINES["E"][0] == ("D1", "C1", "B1", "A1")
    for side, lines in LINES.items():
        assert sorted(lot for line in lines for lot in line) == sorted(
            c + r for c in "ABCD" for r in "1234"
        ), side


def test_rulebook_code_example_3_5_6_2() -> None:
    # "the code 3-5-6-2 means ... exactly three buildings in the leftmost line ..., at least
    # two buildings of the same height in the second ..., the tallest building in the third,
    # and exactly two buildings in the rightmost line"
    state = ENGINE.new(["ann", "bob", "cy"], {"rounds": 1}, 1)
    state, _ = ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": [3, 5, 6, 2]})
    state, _ = ENGINE.apply(state, "bob", {"type": "set_goals", "side": "W", "codes": [1, 1, 1, 1]})
    state, _ = ENGINE.apply(state, "cy", {"type": "set_goals", "side": "N", "codes": [1, 1, 1, 1]})
    plan = {
        # column A seen from S: 1, 2, 3 -> three buildings
        "A1": [1], "A2": [2], "A3": [3],
        # column B: 2, 2 -> a pair of equal height (20)
        "B1": [2], "B2": [2],
        # column C: the tallest building, 5+5+5+4+4 = 23
        "C3": [5, 5, 5, 4, 4],
        # column D: 3 then 4 -> two buildings
        "D1": [3], "D2": [4],
    }
    blocks = [(lot, h) for lot, hs in plan.items() for h in hs]
    # fill up the remaining blocks on lots that do not change these lines' outcome
    used = [h for _, h in blocks]
    rest = [h for h in (1, 2, 3, 4, 5) for _ in range(5 - used.count(h))]
    blocks += [("C1", h) for h in rest]  # C1 stays shorter than C3's 23
    players = ["ann", "bob", "cy"]
    for turn, (lot, h) in enumerate(blocks):
        state, _ = ENGINE.apply(state, players[turn % 3], {"type": "build", "height": h, "lot": lot})
    result = state["round_results"][0]["sides"]["S"]
    assert [line["points"] for line in result["lines"]] == [30, 20, 25, 20]
    assert result["points"] == 95
    final = ENGINE.result(state)
    assert final is not None and final.scores["ann"] == 95


# -- turns, phases, rounds -------------------------------------------------------------


def _set_all_goals(state: dict, codes: list[int] | None = None) -> dict:
    for side, owner in state["sides"].items():
        state, _ = ENGINE.apply(state, owner, {"type": "set_goals", "side": side,
                                               "codes": codes or [2, 2, 2, 2]})
    return state


def test_default_rounds_one_per_player_and_four_with_two() -> None:
    assert ENGINE.new(["a", "b", "c"], {}, 1)["rounds"] == 3
    assert ENGINE.new(["a", "b", "c", "d"], {}, 1)["rounds"] == 4
    assert ENGINE.new(["a", "b"], {}, 1)["rounds"] == 4


def test_player_counts_and_options_checked() -> None:
    with pytest.raises(IllegalAction):
        ENGINE.new(["a"], {}, 1)
    with pytest.raises(IllegalAction):
        ENGINE.new(["a", "b", "c", "d", "e"], {}, 1)
    with pytest.raises(IllegalAction, match="rounds"):
        ENGINE.new(["a", "b"], {"rounds": 0}, 1)
    with pytest.raises(IllegalAction, match="option"):
        ENGINE.new(["a", "b"], {"colour": "red"}, 1)


def test_seats_take_sides_clockwise_and_two_players_two_sides() -> None:
    assert ENGINE.new(["a", "b", "c"], {}, 1)["sides"] == {"S": "a", "W": "b", "N": "c"}
    assert ENGINE.new(["a", "b"], {}, 1)["sides"] == {"S": "a", "W": "a", "N": "b", "E": "b"}


def test_building_waits_for_all_goals() -> None:
    state = ENGINE.new(["ann", "bob"], {}, 1)
    assert ENGINE.to_act(state) == ["ann", "bob"]
    with pytest.raises(IllegalAction, match="everyone has set their goals"):
        ENGINE.apply(state, "ann", {"type": "build", "height": 1, "lot": "A1"})
    state, _ = ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4]})
    assert ENGINE.to_act(state) == ["ann", "bob"]  # ann still owes her W side
    with pytest.raises(IllegalAction, match="not yours"):
        ENGINE.apply(state, "ann", {"type": "set_goals", "side": "N", "codes": [1, 2, 3, 4]})
    with pytest.raises(IllegalAction, match="already set"):
        ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4]})
    with pytest.raises(IllegalAction, match="four codes"):
        ENGINE.apply(state, "ann", {"type": "set_goals", "side": "W", "codes": [1, 2, 7, 4]})


def test_turns_go_clockwise_one_block_each_no_passing() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b", "c"], {}, 1))
    assert ENGINE.to_act(state) == ["a"]
    with pytest.raises(IllegalAction, match="It is a's turn"):
        ENGINE.apply(state, "b", {"type": "build", "height": 1, "lot": "A1"})
    with pytest.raises(IllegalAction, match="Cityscape moves"):
        ENGINE.apply(state, "a", {"type": "pass"})
    state, _ = ENGINE.apply(state, "a", {"type": "build", "height": 1, "lot": "A1"})
    assert ENGINE.to_act(state) == ["b"]
    state, _ = ENGINE.apply(state, "b", {"type": "build", "height": 2, "lot": "A1"})
    assert state["lots"]["A1"] == [1, 2]  # "or on top of any existing building"
    assert ENGINE.view(state, None)["heights"]["A1"] == 3


def test_five_blocks_of_each_height() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b"], {}, 1))
    players = ["a", "b"]
    for i in range(5):
        state, _ = ENGINE.apply(state, players[i % 2], {"type": "build", "height": 5, "lot": "B2"})
    with pytest.raises(IllegalAction, match="no 5-high blocks left"):
        ENGINE.apply(state, "b", {"type": "build", "height": 5, "lot": "B3"})
    assert all(a.action["height"] != 5 for a in ENGINE.legal(state, "b"))


def test_bad_build_input_is_refused_with_a_sentence() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b"], {}, 1))
    for bad in ({"type": "build", "height": 6, "lot": "A1"},
                {"type": "build", "height": 2, "lot": "E9"},
                {"type": "build", "height": "2", "lot": "A1"}):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, "a", bad)


def test_round_ends_after_25_blocks_and_next_starts_with_next_player() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b", "c"], {"rounds": 2}, 1))
    for _ in range(25):
        player = ENGINE.to_act(state)[0]
        state, events = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    assert [e["type"] for e in events][-2:] == ["round_scored", "round_started"]
    assert state["round"] == 2 and state["phase"] == "goals"
    assert all(not blocks for blocks in state["lots"].values())
    state = _set_all_goals(state)
    assert ENGINE.to_act(state) == ["b"]  # "Subsequent rounds will be started by other players"


def test_two_player_scores_both_sides() -> None:
    state = ENGINE.new(["a", "b"], {"rounds": 1}, 3)
    state = _set_all_goals(state, [6, 6, 6, 6])
    for i in range(25):
        state, _ = ENGINE.apply(state, ["a", "b"][i % 2], {"type": "build",
                                "height": (1, 2, 3, 4, 5)[i // 5], "lot": "A1" if i < 24 else "D4"})
    # A1 (sum 70) is the tallest: on S line 1 and on W line 4 (row 1) -> a scores 25 twice.
    sides = state["round_results"][0]["sides"]
    assert sides["S"]["points"] == 25 and sides["W"]["points"] == 25
    assert state["scores"] == {"a": 50, "b": 50}  # N line 4 and E line 1 contain A1 too
    final = ENGINE.result(state)
    assert final is not None and final.winners == ["a", "b"]  # ties share the win


def test_goals_stay_secret_until_scored() -> None:
    state = ENGINE.new(["a", "b", "c"], {"rounds": 1}, 1)
    state, _ = ENGINE.apply(state, "a", {"type": "set_goals", "side": "S", "codes": [4, 4, 4, 4]})
    public = ENGINE.view(state, None)
    assert "my_goals" not in public and "4, 4, 4, 4" not in str(public)
    assert ENGINE.view(state, "a")["my_goals"] == {"S": [4, 4, 4, 4]}
    assert ENGINE.view(state, "b")["my_goals"] == {}


def test_apply_never_changes_the_given_state() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b"], {}, 1))
    before = repr(state)
    ENGINE.apply(state, "a", {"type": "build", "height": 3, "lot": "C2"})
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, "b", {"type": "build", "height": 3, "lot": "C2"})
    assert repr(state) == before


def test_first_player_option() -> None:
    state = _set_all_goals(ENGINE.new(["a", "b", "c"], {"first_player": "c"}, 1))
    assert ENGINE.to_act(state) == ["c"]
    with pytest.raises(IllegalAction, match="not playing"):
        ENGINE.new(["a", "b"], {"first_player": "zed"}, 1)
