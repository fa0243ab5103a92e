"""The Cityscape engine's interface to the rest of the bot: the moves it lists, the sentences
it refuses with, what each player's view holds, what a round's scoring reveals, and the
computer players' moves. The rules themselves are in test_cityscape_rules.py."""

from __future__ import annotations

import copy

import pytest

from bot.core.engine import IllegalAction
from bot.core.levels import Budget, decide
from bot.games.cityscape import ENGINE, GAME, ai, levels
from bot.games.cityscape.skyline import CODE_GOALS, LINES, LOTS, line_points, visible_count

S_CODES = [1, 2, 3, 4]
W_CODES = [5, 6, 1, 2]
N_CODES = [3, 3, 5, 6]
E_CODES = [4, 1, 2, 5]


def _building(players: list[str], rounds: int = 1) -> dict:
    """A new game with every side's goals set: S, W, N, E codes as above."""
    state = ENGINE.new(players, {"rounds": rounds}, 7)
    for side, codes in (("S", S_CODES), ("W", W_CODES), ("N", N_CODES), ("E", E_CODES)):
        if side in state["sides"]:
            state, _ = ENGINE.apply(state, state["sides"][side],
                                    {"type": "set_goals", "side": side, "codes": codes})
    return state


def _build(state: dict, height: int, lot: str) -> tuple[dict, list[dict]]:
    return ENGINE.apply(state, ENGINE.to_act(state)[0],
                        {"type": "build", "height": height, "lot": lot})


# -- the moves listed ---------------------------------------------------------------------


def test_goal_setting_lists_one_move_per_side_still_open() -> None:
    state = ENGINE.new(["ann", "bob"], {}, 1)
    assert [(a.action, a.label) for a in ENGINE.legal(state, "ann")] == [
        ({"type": "set_goals", "side": "S", "codes": None}, "Set goals (S)"),
        ({"type": "set_goals", "side": "W", "codes": None}, "Set goals (W)"),
    ]
    state, _ = ENGINE.apply(state, "ann", {"type": "set_goals", "side": "W", "codes": S_CODES})
    assert [a.action["side"] for a in ENGINE.legal(state, "ann")] == ["S"]
    assert [a.action["side"] for a in ENGINE.legal(state, "bob")] == ["N", "E"]
    state, _ = ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": S_CODES})
    assert ENGINE.legal(state, "ann") == []  # done: bob is the one still to set goals
    assert ENGINE.legal(state, "carol") == []


def test_building_lists_every_height_left_on_every_lot_for_the_player_on_turn_only() -> None:
    state = _building(["ann", "bob", "cy"])
    moves = ENGINE.legal(state, "ann")
    assert len(moves) == 5 * 16
    assert moves[0].action == {"type": "build", "height": 1, "lot": "A1"}
    assert moves[0].label == "1 on A1"
    assert moves[-1].action == {"type": "build", "height": 5, "lot": LOTS[-1]}
    assert moves[-1].label == f"5 on {LOTS[-1]}"
    assert {(a.action["height"], a.action["lot"]) for a in moves} == {
        (h, lot) for h in range(1, 6) for lot in LOTS}
    assert ENGINE.legal(state, "bob") == []
    for _ in range(5):
        state, _ = _build(state, 2, "B3")
    assert sorted({a.action["height"] for a in ENGINE.legal(state, ENGINE.to_act(state)[0])}) \
        == [1, 3, 4, 5]


# -- refusals: a clear sentence, nothing changed ------------------------------------------


@pytest.mark.parametrize(("players", "options", "sentence"), [
    (["a"], {}, "Cityscape is for 2 to 4 players."),
    (["a", "b", "c", "d", "e"], {}, "Cityscape is for 2 to 4 players."),
    (["a", "a"], {}, "Each player can take only one seat."),
    (["a", "b"], {"colour": "red"}, "Cityscape has no option 'colour'."),
    (["a", "b"], {"rounds": 0}, "The number of rounds must be between 1 and 12."),
    (["a", "b"], {"rounds": 13}, "The number of rounds must be between 1 and 12."),
    (["a", "b"], {"rounds": True}, "The number of rounds must be between 1 and 12."),
    (["a", "b"], {"rounds": "3"}, "The number of rounds must be between 1 and 12."),
    (["a", "b"], {"first_player": "zed"}, "zed is not playing, so cannot build first."),
])
def test_a_game_that_cannot_be_set_up_is_refused_with_its_reason(
        players: list[str], options: dict, sentence: str) -> None:
    with pytest.raises(IllegalAction) as refused:
        ENGINE.new(players, options, 1)
    assert str(refused.value) == sentence


def test_the_rounds_option_is_taken_as_given_from_1_to_12() -> None:
    assert ENGINE.new(["a", "b"], {"rounds": 1}, 1)["rounds"] == 1
    assert ENGINE.new(["a", "b"], {"rounds": 12}, 1)["rounds"] == 12
    assert ENGINE.new(["a", "b", "c"], {"rounds": None}, 1)["rounds"] == 3


@pytest.mark.parametrize(("action", "sentence"), [
    ({"type": "set_goals", "side": "X", "codes": S_CODES}, "The side must be one of S, W, N or E."),
    ({"type": "set_goals", "codes": S_CODES}, "The side must be one of S, W, N or E."),
    ({"type": "set_goals", "side": "N", "codes": S_CODES}, "The N side is not yours."),
    ({"type": "set_goals", "side": "S", "codes": [1, 2, 3]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4, 5]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": [0, 2, 3, 4]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": [1, 2, 3, 7]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": [1, True, 3, 4]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": [1, "2", 3, 4]},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S", "codes": "1234"},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "set_goals", "side": "S"},
     "Choose four codes, each from 1 to 6, one for every line."),
    ({"type": "build", "height": 1, "lot": "A1"},
     "Building starts once everyone has set their goals."),
    ({"type": "pass"}, "Cityscape moves are set_goals and build."),
    ("build", "Cityscape moves are set_goals and build."),
])
def test_a_refused_goal_setting_move_says_why_and_changes_nothing(
        action: object, sentence: str) -> None:
    state = ENGINE.new(["ann", "bob"], {}, 1)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, "ann", action)  # type: ignore[arg-type]
    assert str(refused.value) == sentence
    assert state == before


def test_goals_cannot_change_once_building_has_started() -> None:
    state = _building(["ann", "bob", "cy", "di"])
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": S_CODES})
    assert str(refused.value) == "Goals are set before building starts; this round's are fixed."


@pytest.mark.parametrize(("player", "action", "sentence"), [
    ("bob", {"type": "build", "height": 1, "lot": "A1"}, "It is ann's turn."),
    ("zed", {"type": "build", "height": 1, "lot": "A1"},
     "Only seated players can play in this game."),
    (None, {"type": "build", "height": 1, "lot": "A1"},
     "Only seated players can play in this game."),
    ("ann", {"type": "build", "height": 0, "lot": "A1"}, "Blocks are 1 to 5 high."),
    ("ann", {"type": "build", "height": 6, "lot": "A1"}, "Blocks are 1 to 5 high."),
    ("ann", {"type": "build", "height": True, "lot": "A1"}, "Blocks are 1 to 5 high."),
    ("ann", {"type": "build", "height": "1", "lot": "A1"}, "Blocks are 1 to 5 high."),
    ("ann", {"type": "build", "lot": "A1"}, "Blocks are 1 to 5 high."),
    ("ann", {"type": "build", "height": 1, "lot": "E1"}, "Lots are named A1 to D4."),
    ("ann", {"type": "build", "height": 1}, "Lots are named A1 to D4."),
])
def test_a_refused_build_says_why_and_changes_nothing(
        player: str | None, action: dict, sentence: str) -> None:
    state = _building(["ann", "bob"])
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, player, action)
    assert str(refused.value) == sentence
    assert state == before


def test_no_move_once_the_game_is_over() -> None:
    state = _building(["ann", "bob"])
    for i in range(25):
        state, _ = _build(state, 1 + i // 5, LOTS[i % 16])
    assert state["phase"] == "over"
    for action in ({"type": "build", "height": 1, "lot": "A1"},
                   {"type": "set_goals", "side": "S", "codes": S_CODES}):
        with pytest.raises(IllegalAction) as refused:
            ENGINE.apply(state, "ann", action)
        assert str(refused.value) == "The game is over."


# -- the events a move tells the channel --------------------------------------------------


def test_setting_goals_tells_who_set_which_side_and_the_last_one_starts_building() -> None:
    state = ENGINE.new(["ann", "bob", "cy"], {"first_player": "bob"}, 1)
    state, events = ENGINE.apply(state, "cy", {"type": "set_goals", "side": "N", "codes": N_CODES})
    assert events == [{"type": "goals_set", "player": "cy", "side": "N"}]
    assert state["phase"] == "goals" and state["goals"] == {"N": N_CODES}
    state, _ = ENGINE.apply(state, "ann", {"type": "set_goals", "side": "S", "codes": S_CODES})
    state, events = ENGINE.apply(state, "bob", {"type": "set_goals", "side": "W",
                                                "codes": W_CODES})
    assert events == [{"type": "goals_set", "player": "bob", "side": "W"},
                      {"type": "building_started", "round": 1, "player": "bob"}]
    assert state["phase"] == "building"


def test_a_build_tells_the_block_and_the_building_it_made() -> None:
    state = _building(["ann", "bob"])
    state, _ = _build(state, 3, "C2")
    state, events = _build(state, 4, "C2")
    assert events == [{"type": "built", "player": "bob", "height": 4, "lot": "C2",
                       "building": 7}]
    assert state["last_build"] == {"player": "bob", "height": 4, "lot": "C2", "building": 7}
    assert state["placed"] == 2 and state["blocks_left"]["4"] == 4
    assert state["blocks_left"]["3"] == 4 and state["blocks_left"]["1"] == 5


# -- what each player sees ----------------------------------------------------------------


def test_the_view_shows_the_city_and_each_player_only_their_own_goals() -> None:
    state = _building(["ann", "bob"], rounds=2)
    state, _ = _build(state, 3, "A1")
    state, _ = _build(state, 2, "A1")
    state, _ = _build(state, 5, "D4")
    public = ENGINE.view(state, None)
    assert "my_goals" not in public and "winners" not in public
    assert public["game"] == "cityscape"
    assert public["players"] == ["ann", "bob"]
    assert public["sides"] == {"S": "ann", "W": "ann", "N": "bob", "E": "bob"}
    assert (public["round"], public["rounds"], public["phase"]) == (1, 2, "building")
    assert public["starting_player"] == "ann"
    assert public["turn"] == "bob" and public["to_act"] == ["bob"]
    assert public["lots"]["A1"] == [3, 2] and public["lots"]["D4"] == [5]
    assert public["lots"]["B2"] == []
    assert public["heights"]["A1"] == 5 and public["heights"]["D4"] == 5
    assert public["heights"]["B2"] == 0 and len(public["heights"]) == 16
    assert public["blocks_left"] == {"1": 5, "2": 4, "3": 4, "4": 5, "5": 4}
    assert public["placed"] == 3
    assert public["goals_set"] == {"S": True, "W": True, "N": True, "E": True}
    assert public["lines"] == {side: [[public["heights"][lot] for lot in line]
                                      for line in LINES[side]] for side in "SWNE"}
    assert public["scores"] == {"ann": 0, "bob": 0}
    assert public["last_build"] == {"player": "ann", "height": 5, "lot": "D4", "building": 5}
    assert public["round_results"] == []
    assert ENGINE.view(state, "ann")["my_goals"] == {"S": S_CODES, "W": W_CODES}
    assert ENGINE.view(state, "bob")["my_goals"] == {"N": N_CODES, "E": E_CODES}
    assert ENGINE.view(state, "zed")["my_goals"] == {}


def test_while_goals_are_set_nobody_has_the_turn_and_open_sides_show() -> None:
    state = ENGINE.new(["ann", "bob", "cy"], {"first_player": "cy"}, 1)
    state, _ = ENGINE.apply(state, "bob", {"type": "set_goals", "side": "W", "codes": W_CODES})
    view = ENGINE.view(state, "bob")
    assert view["turn"] is None and view["to_act"] == ["ann", "cy"]
    assert view["starting_player"] == "cy"
    assert view["goals_set"] == {"S": False, "W": True, "N": False}
    assert set(view["lines"]) == {"S", "W", "N"}
    assert view["my_goals"] == {"W": W_CODES}


def test_changing_a_view_never_changes_the_game() -> None:
    state = _building(["ann", "bob"], rounds=2)
    for i in range(25):
        state, _ = _build(state, 1 + i // 5, LOTS[i % 16])
    for side, codes in (("S", S_CODES), ("W", W_CODES), ("N", N_CODES), ("E", E_CODES)):
        state, _ = ENGINE.apply(state, state["sides"][side],
                                {"type": "set_goals", "side": side, "codes": codes})
    state, _ = _build(state, 3, "A1")
    before = copy.deepcopy(state)
    view = ENGINE.view(state, "bob")
    view["lots"]["A1"].append(9)
    view["blocks_left"]["1"] = 0
    view["sides"]["S"] = "bob"
    view["players"].append("zed")
    view["scores"]["ann"] = 99
    view["round_results"][0]["points"]["ann"] = 99
    view["last_build"]["lot"] = "B2"
    view["my_goals"]["N"].append(6)
    assert state == before


def test_the_finished_game_shows_its_winners_and_no_secrets_are_left() -> None:
    state = _building(["ann", "bob"])
    for i in range(25):
        state, events = _build(state, 1 + i // 5, LOTS[i % 16])
    view = ENGINE.view(state, "ann")
    assert "my_goals" not in view  # every code is in round_results now
    result = ENGINE.result(state)
    assert result is not None
    assert view["winners"] == result.winners
    assert view["turn"] is None and view["to_act"] == [] and view["phase"] == "over"
    assert events[-1] == {"type": "game_over", "scores": result.scores,
                          "winners": result.winners}


def test_the_best_total_wins_alone_and_there_is_no_result_before_the_end() -> None:
    state = _building(["ann", "bob", "cy"])
    assert ENGINE.result(state) is None
    state["phase"] = "over"
    state["scores"] = {"ann": 20, "bob": 45, "cy": 30}
    result = ENGINE.result(state)
    assert result is not None and result.winners == ["bob"]
    assert result.scores == {"ann": 20, "bob": 45, "cy": 30}


# -- a round's scoring --------------------------------------------------------------------


def test_the_round_scored_event_reveals_every_line_and_adds_up() -> None:
    state = _building(["ann", "bob"], rounds=2)
    plan = [(5, "A1"), (5, "A1"), (4, "B2"), (4, "B2"), (3, "C3")]
    heights_left = [h for h in (1, 2, 3, 4, 5) for _ in range(5)]
    for h, lot in plan:
        heights_left.remove(h)
        state, events = _build(state, h, lot)
    for i, h in enumerate(heights_left):
        state, events = _build(state, h, LOTS[(3 + i) % 16] if i else "D4")
    assert [e["type"] for e in events] == ["built", "round_scored", "round_started"]
    scored = events[1]
    assert events[2] == {"type": "round_started", "round": 2}
    summary = state["round_results"][0]
    assert {k: v for k, v in scored.items() if k != "type"} == summary
    assert scored["round"] == 1
    heights = {lot: 0 for lot in LOTS}
    for h, lot in plan:
        heights[lot] += h
    for i, h in enumerate(heights_left):
        heights[LOTS[(3 + i) % 16] if i else "D4"] += h
    tallest = max(heights.values())
    assert scored["tallest"] == tallest
    owners = {"S": "ann", "W": "ann", "N": "bob", "E": "bob"}
    codes = {"S": S_CODES, "W": W_CODES, "N": N_CODES, "E": E_CODES}
    points = {"ann": 0, "bob": 0}
    for side in "SWNE":
        revealed = scored["sides"][side]
        assert revealed["player"] == owners[side] and revealed["codes"] == codes[side]
        total = 0
        for index, line in enumerate(revealed["lines"]):
            lots = list(LINES[side][index])
            seen = [heights[lot] for lot in lots]
            code = codes[side][index]
            expected = line_points(code, seen, tallest)
            assert line == {"line": index + 1, "lots": lots, "heights": seen, "code": code,
                            "goal": CODE_GOALS[code], "visible": visible_count(seen),
                            "points": expected}
            total += expected
        assert revealed["points"] == total
        points[owners[side]] += total
    assert scored["points"] == points
    assert scored["totals"] == points == state["scores"]
    assert sum(points.values()) > 0  # the plan scores something, so the sums are tested


def test_a_second_round_adds_to_the_totals_and_the_event_is_a_copy() -> None:
    state = _building(["ann", "bob"], rounds=2)
    for i in range(25):
        state, events = _build(state, 1 + i // 5, LOTS[i % 16])
    first = state["round_results"][0]["points"]
    assert state["scores"] == first
    # A new round starts on an empty city: no block is the "last built" any more.
    assert ENGINE.view(state, None)["last_build"] is None and state["placed"] == 0
    events[1]["sides"]["S"]["lines"][0]["points"] = 1000
    events[1]["totals"]["ann"] = 1000
    assert state["round_results"][0]["sides"]["S"]["lines"][0]["points"] != 1000
    assert state["scores"]["ann"] != 1000
    for side, codes in (("S", S_CODES), ("W", W_CODES), ("N", N_CODES), ("E", E_CODES)):
        state, _ = ENGINE.apply(state, state["sides"][side],
                                {"type": "set_goals", "side": side, "codes": codes})
    for i in range(25):
        state, events = _build(state, 5 - i // 5, LOTS[(i * 3) % 16])
    second = state["round_results"][1]
    assert second["round"] == 2
    assert second["totals"] == {p: first[p] + second["points"][p] for p in ("ann", "bob")}
    assert state["scores"] == second["totals"]
    assert events[-1]["type"] == "game_over"


# -- computer players ---------------------------------------------------------------------


def test_the_computer_sets_goals_for_its_first_open_side_then_builds() -> None:
    state = ENGINE.new(["ann", "bob"], {}, 11)
    move = GAME.computer.normal(state, "bob")
    assert move == {"type": "set_goals", "side": "N", "codes": ai.choose_goals(state, "N")}
    state, _ = ENGINE.apply(state, "bob", move)
    move = GAME.computer.normal(state, "bob")
    assert move["side"] == "E" and move["codes"] == ai.choose_goals(state, "E")
    state, _ = ENGINE.apply(state, "bob", move)
    for side in ("S", "W"):
        move = GAME.computer.normal(state, "ann")
        assert move["side"] == side
        state, _ = ENGINE.apply(state, "ann", move)
    assert state["phase"] == "building"
    move = GAME.computer.normal(state, "ann")
    assert move == ai.choose_build(state, "ann")
    assert move in [a.action for a in ENGINE.legal(state, "ann")]


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_easy_and_hard_computers_move_as_their_module_decides(level: str) -> None:
    budget = Budget(iterations=8)
    state = ENGINE.new(["ann", "bob"], {}, 5)
    move = decide(GAME.computer, state, "bob", level, budget)
    assert move == levels.level_action(state, "bob", level, budget)
    assert move["type"] == "set_goals" and move["side"] == "N"
    state = _building(["ann", "bob"])
    move = decide(GAME.computer, state, "ann", level, budget)
    assert move == levels.level_action(state, "ann", level, budget)
    assert move in [a.action for a in ENGINE.legal(state, "ann")]


def test_no_timer_moves_for_anyone() -> None:
    # Cityscape has no time limit in the rulebook: a slow player is reminded, never moved.
    assert ENGINE.timeout_action(_building(["ann", "bob"])) is None


def test_a_saved_game_names_its_game_and_seats() -> None:
    # The state is what the database keeps (docs/upgrades.md): its shape is a contract with
    # every saved game, so its fields are what they were.
    state = ENGINE.new(["ann", "bob", "cy"], {"rounds": 2, "first_player": "bob"}, 42)
    assert state["game"] == "cityscape" and state["seed"] == 42 and state["rng_draws"] == 0
    assert state["players"] == ["ann", "bob", "cy"] and state["first_seat"] == 1
    assert state["scores"] == {"ann": 0, "bob": 0, "cy": 0} and state["round_results"] == []
    assert (state["round"], state["phase"], state["start_seat"], state["turn_seat"]) == \
        (1, "goals", 1, 1)
