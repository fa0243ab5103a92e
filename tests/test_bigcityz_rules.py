"""Big Cityz rules, one test per rule of the issue (see docs/bigcityz.md).

The boards are stacked with ``statement_order`` so that slot 1 is Population (green 5/3,
red 4/2), slot 2 South (green 6/5, red 3/2), slot 3 Capital (green 6/4, red 3/2) and slot 4
Coast (green 6/4, red 4/2); the draw pile starts with Europe/Asia. Cities are stacked with
``city_order``. Facts used below: Paris is a capital of over a million, north of the
equator and not on the coast; Tokyo is all of those but on the coast; Bergen is none of
population, south or capital but on the coast.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcityz import ENGINE, content
from bot.games.bigcityz.board import CARDS_PER_GAME

JSON = dict[str, Any]

ORDER = ["population", "south", "capital", "coast", "eurasia", "airport", "founded",
         "elevation", "area", "timezones", "temperature", "left_traffic"]
PLAYERS = ["ann", "bob", "cy"]
# Cities that only fill squares; whether they are right there does not matter.
FILLERS = ["Oslo", "Nassau", "Suva", "Havana", "Kabul", "Tunja", "Helena", "Cheyenne",
           "Valletta", "Brisbane", "Lagos", "Quito"]


# -- helpers (also used by test_bigcityz_examples.py) -------------------------------------


def start(cities: list[str], players: list[str] | None = None, seed: int = 1,
          **options: Any) -> JSON:
    opts = {"city_order": cities, "statement_order": ORDER, **options}
    return ENGINE.new(players or PLAYERS, opts, seed)


def square(slot: int, color: str, points: int) -> JSON:
    return {"type": "place", "slot": slot, "color": color, "points": points}


def risk(field: str, color: str) -> JSON:
    return {"type": "place", "risk": field, "color": color}


def turn(state: JSON, action: JSON, objectors: tuple[str, ...] = (),
         timer: bool = False) -> tuple[JSON, list[JSON]]:
    """The active player makes ``action``; the objectors object, the rest decline (or the
    veto timer runs out when ``timer``)."""
    player = ENGINE.to_act(state)[0]
    state, events = ENGINE.apply(state, player, action)
    if action["type"] == "replace":
        return state, events
    for p in objectors:
        state, more = ENGINE.apply(state, p, {"type": "veto"})
        events += more
    if timer and state["phase"] == "veto":
        state, more = ENGINE.apply(state, None, {"type": "close_vetoes"})
        events += more
    while state["phase"] == "veto":
        state, more = ENGINE.apply(state, ENGINE.to_act(state)[0], {"type": "no_veto"})
        events += more
    return state, events


def reveal_of(events: list[JSON]) -> JSON:
    return next(e for e in events if e["type"] == "reveal")


def city_on(state: JSON, slot: int, color: str, points: int) -> str | None:
    board = state["slots"][slot - 1]
    sq = next(s for s in board["squares"] if s["color"] == color and s["points"] == points)
    return sq["city"]


def play_fillers(state: JSON, actions: list[JSON]) -> JSON:
    for action in actions:
        state, _ = turn(state, action)
    return state


# The right-coloured squares of a board for a city whose statements come out as ``truths``.
SQUARES = {1: (5, 3, 4, 2), 2: (6, 5, 3, 2), 3: (6, 4, 3, 2), 4: (6, 4, 4, 2)}


def both_squares(slot: int, color: str) -> list[JSON]:
    g_hi, g_lo, r_hi, r_lo = SQUARES[slot]
    points = (g_hi, g_lo) if color == "green" else (r_hi, r_lo)
    return [square(slot, color, p) for p in points]


# -- set-up -------------------------------------------------------------------------------


def test_a_game_uses_100_of_the_200_cards() -> None:
    state = ENGINE.new(PLAYERS, {}, 7)
    deck = [state["current_city"], *state["city_pile"]]
    assert len(content.city_ids()) == 200
    assert len(deck) == CARDS_PER_GAME == 100
    assert len(set(deck)) == 100
    other = ENGINE.new(PLAYERS, {}, 8)
    assert set(deck) != {other["current_city"], *other["city_pile"]}


def test_four_boards_in_the_slots_and_eight_in_the_draw_pile() -> None:
    state = ENGINE.new(PLAYERS, {}, 3)
    shown = [b["statement"] for b in state["slots"]]
    assert [b["slot"] for b in state["slots"]] == [1, 2, 3, 4]
    assert len(state["statement_pile"]) == 8
    assert state["statement_discard"] == []
    assert sorted(shown + state["statement_pile"]) == sorted(content.statement_ids())


def test_stacked_cities_and_statements() -> None:
    state = start(["Paris", "tokyo", "Bergen"])
    assert state["current_city"] == "paris"
    assert state["city_pile"][:2] == ["tokyo", "bergen"]
    assert [b["statement"] for b in state["slots"]] == ORDER[:4]
    assert state["statement_pile"] == ORDER[4:]  # top first
    view = ENGINE.view(state, None)
    assert view["city"] == {"id": "paris", "name": "Paris"}
    assert view["turn"] == "ann"


def test_partial_statement_order_fills_slots_then_shuffles_the_rest() -> None:
    state = ENGINE.new(PLAYERS, {"statement_order": ["capital", "coast"]}, 5)
    assert [b["statement"] for b in state["slots"]][:2] == ["capital", "coast"]
    assert len(state["statement_pile"]) == 8


def test_every_player_has_two_veto_markers_and_no_points() -> None:
    view = ENGINE.view(ENGINE.new(PLAYERS, {}, 1), None)
    assert view["vetoes_left"] == {"ann": 2, "bob": 2, "cy": 2}
    assert view["scores"] == {"ann": 0, "bob": 0, "cy": 0}
    assert view["veto_seconds"] == 20


def test_first_player_and_veto_seconds_options() -> None:
    state = ENGINE.new(PLAYERS, {"first_player": "cy", "veto_seconds": 45}, 1)
    assert ENGINE.to_act(state) == ["cy"]
    assert ENGINE.view(state, None)["veto_seconds"] == 45


@pytest.mark.parametrize(("players", "options", "message"), [
    (["ann"], {}, "2 to 6 players"),
    (["a", "b", "c", "d", "e", "f", "g"], {}, "2 to 6 players"),
    (["ann", "ann"], {}, "only one seat"),
    (PLAYERS, {"rounds": 3}, "no option 'rounds'"),
    (PLAYERS, {"first_player": "zed"}, "zed is not playing"),
    (PLAYERS, {"veto_seconds": 0}, "veto timer"),
    (PLAYERS, {"veto_seconds": "20"}, "veto timer"),
    (PLAYERS, {"city_order": ["Atlantis"]}, "no city called 'Atlantis'"),
    (PLAYERS, {"city_order": ["Paris", "paris"]}, "named twice"),
    (PLAYERS, {"statement_order": ["weather"]}, "no statement 'weather'"),
    (PLAYERS, {"statement_order": ["coast", "coast"]}, "twice"),
    (PLAYERS, {"ai_levels": {"bob": "genius"}}, "not easy, normal or hard"),
    (PLAYERS, {"ai_levels": {"zed": "easy"}}, "zed is not playing"),
])
def test_bad_set_ups_are_refused(players: list[str], options: JSON, message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        ENGINE.new(players, options, 1)


def test_same_seed_same_game_and_state_is_json() -> None:
    a, b = ENGINE.new(PLAYERS, {}, 42), ENGINE.new(PLAYERS, {}, 42)
    assert a == b
    assert json.loads(json.dumps(a)) == a


# -- the city: name public, facts hidden --------------------------------------------------


def test_the_city_name_is_public_and_its_facts_are_not() -> None:
    state = start(["Tokyo", "Paris"])
    tokyo = content.card("tokyo")
    for viewer in (None, "ann", "bob"):
        view = ENGINE.view(state, viewer)
        assert view["city"] == {"id": "tokyo", "name": "Tokyo"}
        text = json.dumps(view)
        assert str(tokyo["population"]) not in text
        assert f'"{tokyo["airport_iata"]}"' not in text
        assert "facts" not in text
    # Still hidden while the others decide whether to object.
    state, events = ENGINE.apply(state, "ann", square(1, "green", 5))
    assert state["phase"] == "veto"
    for blob in (ENGINE.view(state, None), events, [la.label for la in ENGINE.legal(state, "bob")]):
        assert str(tokyo["population"]) not in json.dumps(blob)
    # ...and public after the reveal.
    state, events = turn_rest(state)
    shown = ENGINE.view(state, None)["last_reveal"]
    assert shown["city"]["name"] == "Tokyo"
    assert shown["city"]["facts"]["population"] == {"value": tokyo["population"], "true": True}
    assert set(shown["city"]["facts"]) == set(content.statement_ids())


def turn_rest(state: JSON) -> tuple[JSON, list[JSON]]:
    events: list[JSON] = []
    while state["phase"] == "veto":
        state, more = ENGINE.apply(state, ENGINE.to_act(state)[0], {"type": "no_veto"})
        events += more
    return state, events


# -- point squares ------------------------------------------------------------------------


def test_green_square_right_scores_its_points() -> None:
    state, events = turn(start(["Paris"]), square(1, "green", 5))
    result = reveal_of(events)
    assert result["right"] is True
    assert result["checked"] == [{"slot": 1, "statement": "population", "true": True}]
    assert state["scores"]["ann"] == 5


def test_red_square_right_when_the_statement_is_false() -> None:
    state, events = turn(start(["Paris"]), square(2, "red", 3))
    assert reveal_of(events)["right"] is True
    assert state["scores"]["ann"] == 3


def test_wrong_square_scores_nothing() -> None:
    state, events = turn(start(["Paris"]), square(1, "red", 4))
    assert reveal_of(events)["right"] is False
    assert reveal_of(events)["points"] == {"ann": 0, "bob": 0, "cy": 0}
    assert state["scores"]["ann"] == 0


def test_the_card_stays_on_its_square_which_is_then_taken() -> None:
    # "Regardless of whether you were right or wrong, leave your city card on the point
    # square. This point square is now occupied and cannot be used anymore."
    state, _ = turn(start(["Paris", "Tokyo"]), square(1, "red", 4))
    assert city_on(state, 1, "red", 4) == "paris"
    assert ENGINE.view(state, None)["slots"][0]["squares"][2]["city"] == {"id": "paris",
                                                                          "name": "Paris"}
    with pytest.raises(IllegalAction, match=re.escape("That square is taken by Paris.")):
        ENGINE.apply(state, "bob", square(1, "red", 4))
    assert square(1, "red", 4) not in [la.action for la in ENGINE.legal(state, "bob")]


def test_only_existing_squares_can_be_taken() -> None:
    state = start(["Paris"])
    with pytest.raises(IllegalAction, match=re.escape("Board 1 has no green square worth 6.")):
        ENGINE.apply(state, "ann", square(1, "green", 6))
    with pytest.raises(IllegalAction, match=re.escape("Boards are numbered 1 to 4.")):
        ENGINE.apply(state, "ann", square(5, "green", 6))
    with pytest.raises(IllegalAction, match="green"):
        ENGINE.apply(state, "ann", square(1, "blue", 5))
    with pytest.raises(IllegalAction, match=re.escape("Board 1 has no green square worth True.")):
        ENGINE.apply(state, "ann", {"type": "place", "slot": 1, "color": "green", "points": True})


def test_only_the_active_player_places() -> None:
    state = start(["Paris"])
    with pytest.raises(IllegalAction, match=re.escape("It is ann's turn.")):
        ENGINE.apply(state, "bob", square(1, "green", 5))
    assert ENGINE.legal(state, "bob") == []
    with pytest.raises(IllegalAction, match="Only seated players"):
        ENGINE.apply(state, "zed", square(1, "green", 5))
    with pytest.raises(IllegalAction, match="Big Cityz moves are"):
        ENGINE.apply(state, "ann", {"type": "pass"})


def test_labels_of_the_legal_moves() -> None:
    labels = [la.label for la in ENGINE.legal(start(["Paris"]), "ann")]
    assert labels[:4] == ["Green 5 on Population", "Green 3 on Population",
                          "Red 4 on Population", "Red 2 on Population"]
    assert "Risk 1–2 green (8)" in labels and "Risk 4–1 red (8)" in labels
    # 16 point squares + 8 risk fields, and no board to replace yet
    assert labels[-1] == "There's no free square"  # no board can be replaced yet
    assert len(labels) == 25


# -- risk fields --------------------------------------------------------------------------


def test_eight_risk_fields_between_neighbouring_slots() -> None:
    view = ENGINE.view(start(["Paris"]), None)
    fields = [(f["id"], f["color"]) for f in view["risk_fields"]]
    assert fields == [(r, c) for r in ("1-2", "2-3", "3-4", "4-1") for c in ("green", "red")]
    assert all(f["points"] == 8 and f["penalty"] == -2 for f in view["risk_fields"])


def test_green_risk_field_is_right_when_both_statements_are_true() -> None:
    # Tokyo: capital (slot 3) and on the coast (slot 4).
    state, events = turn(start(["Tokyo"]), risk("3-4", "green"))
    result = reveal_of(events)
    assert result["right"] is True
    assert [c["statement"] for c in result["checked"]] == ["capital", "coast"]
    assert state["scores"]["ann"] == 8


def test_red_risk_field_is_right_when_both_statements_are_false() -> None:
    # Bergen: under a million (slot 1), north of the equator (slot 2).
    state, _ = turn(start(["Bergen"]), risk("1-2", "red"))
    assert state["scores"]["ann"] == 8


def test_one_true_one_false_has_no_risk_field() -> None:
    # Paris: population true, south false -> both colours of 1-2 are wrong.
    for color in ("green", "red"):
        state = start(["Tokyo", "Oslo", "Suva", "Paris"])
        state, _ = turn(state, risk("3-4", "green"))  # ann 8
        state = play_fillers(state, [square(1, "red", 2), square(1, "red", 4)])
        state, events = turn(state, risk("1-2", color))
        assert reveal_of(events)["right"] is False
        assert reveal_of(events)["points"]["ann"] == -2
        assert state["scores"]["ann"] == 6


def test_risk_fields_only_between_neighbours() -> None:
    state = start(["Paris"])
    for field in ("1-3", "2-1", "4-5"):
        with pytest.raises(IllegalAction, match="1-2, 2-3, 3-4 and 4-1"):
            ENGINE.apply(state, "ann", risk(field, "green"))


def test_a_taken_risk_field_is_refused() -> None:
    state, _ = turn(start(["Tokyo", "Paris"]), risk("3-4", "green"))
    with pytest.raises(IllegalAction, match=re.escape("That risk field is taken by Tokyo.")):
        ENGINE.apply(state, "bob", risk("3-4", "green"))
    assert ENGINE.apply(state, "bob", risk("3-4", "red"))[0]["phase"] == "veto"


# -- replacing a board --------------------------------------------------------------------


def test_a_board_with_three_cards_can_be_replaced_not_with_two() -> None:
    state = start(FILLERS)
    state = play_fillers(state, [square(1, "green", 5), square(1, "green", 3)])
    with pytest.raises(IllegalAction, match="Board 1 cannot be replaced"):
        ENGINE.apply(state, "cy", {"type": "replace", "slot": 1})
    assert {"type": "replace", "slot": 1} not in [la.action for la in ENGINE.legal(state, "cy")]
    state = play_fillers(state, [square(1, "red", 4)])
    legal = {la.label: la.action for la in ENGINE.legal(state, "ann")}
    assert legal["Replace board 1"] == {"type": "replace", "slot": 1}
    assert "There's no free square" not in legal
    assert ENGINE.view(state, None)["slots"][0]["replaceable"] is True


def test_two_cards_and_two_on_adjacent_risk_fields_allow_a_replacement() -> None:
    state = start(FILLERS)
    state = play_fillers(state, [square(1, "green", 5), square(1, "green", 3),
                                 risk("1-2", "green")])
    with pytest.raises(IllegalAction, match="cannot be replaced"):
        ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    state = play_fillers(state, [risk("4-1", "red")])
    state, events = ENGINE.apply(state, "bob", {"type": "replace", "slot": 1})
    assert events[0]["type"] == "board_replaced"


def test_cards_on_risk_fields_not_touching_the_board_do_not_count() -> None:
    state = start(FILLERS)
    state = play_fillers(state, [square(1, "green", 5), square(1, "green", 3),
                                 risk("2-3", "green"), risk("3-4", "red")])
    with pytest.raises(IllegalAction, match="Board 1 cannot be replaced"):
        ENGINE.apply(state, "bob", {"type": "replace", "slot": 1})


def test_a_full_board_can_be_replaced() -> None:
    state = start(FILLERS)
    state = play_fillers(state, [square(2, "green", 6), square(2, "green", 5),
                                 square(2, "red", 3), square(2, "red", 2)])
    assert {"type": "replace", "slot": 2} in [la.action for la in ENGINE.legal(state, "bob")]


def _ready_to_replace_slot_1() -> JSON:
    """Three cards on board 1, one each on risk fields 1-2 (adjacent), 4-1 (adjacent) and
    2-3 (not adjacent); it is cy's turn with Paris."""
    state = start([*FILLERS[:6], "Paris"])
    return play_fillers(state, [square(1, "green", 5), square(1, "green", 3),
                                square(1, "red", 4), risk("1-2", "green"),
                                risk("4-1", "red"), risk("2-3", "red")])


def test_replacing_takes_its_cards_and_those_on_adjacent_risk_fields_out_of_the_game() -> None:
    state = _ready_to_replace_slot_1()
    assert ENGINE.to_act(state) == ["ann"] and state["current_city"] == "paris"
    on_board_1 = [sq["city"] for sq in state["slots"][0]["squares"] if sq["city"]]
    adjacent = [state["risk_fields"]["1-2"]["green"], state["risk_fields"]["4-1"]["red"]]
    keeps = state["risk_fields"]["2-3"]["red"]
    state, events = ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    assert sorted(state["removed"]) == sorted(on_board_1 + adjacent)
    assert [c["id"] for c in events[0]["removed"]] == on_board_1 + adjacent
    assert state["risk_fields"]["1-2"]["green"] is None
    assert state["risk_fields"]["4-1"]["red"] is None
    assert state["risk_fields"]["2-3"]["red"] == keeps
    # The old board goes face up on the discard pile; the new one is the pile's top.
    assert state["statement_discard"] == ["population"]
    assert state["slots"][0]["statement"] == "eurasia"
    assert all(sq["city"] is None for sq in state["slots"][0]["squares"])
    view = ENGINE.view(state, None)
    assert view["piles"]["statement_discard"] == ["population"]
    assert view["piles"]["statements"] == 7
    assert view["piles"]["removed"] == 5
    assert view["replaced_slot"] == 1


def test_after_replacing_the_card_must_go_on_the_new_board() -> None:
    state = _ready_to_replace_slot_1()
    state, _ = ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    legal = [la.action for la in ENGINE.legal(state, "ann")]
    assert legal == [square(1, "green", 5), square(1, "green", 3),
                     square(1, "red", 4), square(1, "red", 2)]  # Europe/Asia's squares
    for action, message in [
        (square(2, "green", 6), "After replacing board 1 you must place on the new board."),
        (risk("1-2", "green"), "After replacing board 1 you must place on the new board."),
        ({"type": "no_free_square"}, "After replacing board 1 you must place on the new board."),
        ({"type": "replace", "slot": 1}, "You have already replaced a board this turn."),
    ]:
        with pytest.raises(IllegalAction, match=message):
            ENGINE.apply(state, "ann", action)
    state, events = turn(state, square(1, "green", 5))
    assert reveal_of(events)["checked"][0]["statement"] == "eurasia"
    assert reveal_of(events)["points"]["ann"] == 5  # Paris is in Europe


def test_the_discard_pile_is_reshuffled_when_the_draw_pile_is_empty() -> None:
    state = _ready_to_replace_slot_1()
    # Seven boards have already been drawn and discarded: one board is left to draw.
    state["statement_discard"] = state["statement_pile"][1:]
    state["statement_pile"] = state["statement_pile"][:1]
    state, events = ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    assert state["slots"][0]["statement"] == "eurasia"
    assert {"type": "statements_reshuffled", "pile": 8} in events
    assert state["statement_discard"] == []
    assert sorted(state["statement_pile"]) == sorted(ORDER[:1] + ORDER[5:])
    assert state["statement_pile"] != ORDER[5:] + ORDER[:1]  # shuffled, not stacked
    # The shuffle is the game's third draw from its seed, so a finished game replayed from
    # its seed and log (docs/upgrades.md) reshuffles the same way.
    assert state["statement_pile"] == ["elevation", "airport", "area", "founded", "timezones",
                                       "left_traffic", "population", "temperature"]
    assert state["rng_draws"] == 3


def test_a_seed_always_deals_the_same_game() -> None:
    # Finished games are archived as their seed and action log and replayed from ``new``
    # (docs/upgrades.md), so the piles a seed deals must never change: otherwise the logged
    # moves of an old game (a city placed on a square of a board) no longer fit.
    state = ENGINE.new(PLAYERS, {}, 2026)
    assert state["current_city"] == "nairobi"
    assert state["city_pile"][:6] == ["lusaka", "ahmedabad", "gdansk", "popayan", "leon",
                                      "osaka"]
    assert len(state["city_pile"]) == CARDS_PER_GAME - 1
    assert [board["statement"] for board in state["slots"]] == [
        "south", "elevation", "temperature", "timezones"]
    assert state["statement_pile"][:4] == ["airport", "population", "coast", "founded"]
    assert state["rng_draws"] == 2  # the cities, then the statement boards


# -- "There's no free square" -------------------------------------------------------------


def _no_free_square_for(city: str, fill: list[JSON]) -> JSON:
    """Eight turns of fillers take ``fill``; then it is cy's turn with ``city``."""
    state = start([*FILLERS[:8], city])
    return play_fillers(state, fill)


# Paris: population true, south false, capital true, coast false. Taking the right colour
# on every board leaves only wrong squares, and every risk field is "one true, one false".
PARIS_FILL = [*both_squares(1, "green"), *both_squares(2, "red"),
              *both_squares(3, "green"), *both_squares(4, "red")]


def test_no_free_square_only_when_no_board_can_be_replaced() -> None:
    state = start(FILLERS)
    state = play_fillers(state, [square(1, "green", 5), square(1, "green", 3),
                                 square(1, "red", 4)])
    with pytest.raises(IllegalAction, match="Board 1 can be replaced, so you cannot declare"):
        ENGINE.apply(state, "ann", {"type": "no_free_square"})
    assert {"type": "no_free_square"} not in [la.action for la in ENGINE.legal(state, "ann")]


def test_no_free_square_is_right_when_no_free_square_would_have_been_right() -> None:
    state = _no_free_square_for("Paris", PARIS_FILL)
    assert ENGINE.view(state, None)["city"]["name"] == "Paris"
    assert ENGINE.to_act(state) == ["cy"]
    state, events = ENGINE.apply(state, "cy", {"type": "no_free_square"})
    assert state["phase"] == "veto"  # "The other players have the option of vetoing."
    assert state["beside_board"] == ["paris"]
    assert ENGINE.view(state, None)["beside_board"] == [{"id": "paris", "name": "Paris"}]
    state, events = turn_rest(state)
    result = reveal_of(events)
    assert result["right"] is True
    assert result["free_squares_right"] == []
    assert [c["statement"] for c in result["checked"]] == ORDER[:4]
    assert result["points"]["cy"] == 8


def test_no_free_square_is_wrong_when_a_free_square_was_right() -> None:
    # Board 1's green 3 stays free, and Paris has over a million people.
    fill = [square(1, "green", 5), *PARIS_FILL[2:], risk("2-3", "green")]
    state = _no_free_square_for("Paris", fill)
    state["scores"]["cy"] = 10
    state, events = turn(state, {"type": "no_free_square"}, objectors=("ann",))
    result = reveal_of(events)
    assert result["right"] is False
    assert result["free_squares_right"] == [
        {"slot": 1, "color": "green", "points": 3, "label": "Green 3 on Population"}]
    assert result["points"] == {"ann": 3, "bob": 0, "cy": -2}


def test_no_free_square_counts_free_risk_fields_too() -> None:
    # Tokyo is a capital of over a million on the coast, north of the equator: every free
    # point square is wrong, but the green risk fields 3-4 and 4-1 would have been right.
    fill = [*both_squares(1, "green"), *both_squares(2, "red"),
            *both_squares(3, "green"), *both_squares(4, "green")]
    state = _no_free_square_for("Tokyo", fill)
    state["scores"]["cy"] = 5
    state, events = turn(state, {"type": "no_free_square"})
    result = reveal_of(events)
    assert result["right"] is False
    assert [s["label"] for s in result["free_squares_right"]] == ["Risk 3–4 green (8)",
                                                                  "Risk 4–1 green (8)"]
    assert state["scores"]["cy"] == 3


# -- vetoes -------------------------------------------------------------------------------


def test_every_other_player_with_a_marker_may_object() -> None:
    state, events = ENGINE.apply(start(["Paris"]), "ann", square(1, "green", 5))
    assert events[-1] == {"type": "veto_window_opened", "eligible": ["bob", "cy"], "seconds": 20}
    assert ENGINE.to_act(state) == ["bob", "cy"]
    assert [la.label for la in ENGINE.legal(state, "bob")] == ["Objection", "No objection"]
    assert ENGINE.legal(state, "ann") == []
    with pytest.raises(IllegalAction, match=re.escape("You cannot object to your own placement.")):
        ENGINE.apply(state, "ann", {"type": "veto"})
    with pytest.raises(IllegalAction, match=re.escape("Paris is placed; the others may object now.")):
        ENGINE.apply(state, "ann", square(1, "green", 3))


def test_each_player_objects_at_most_once_per_card() -> None:
    state, _ = ENGINE.apply(start(["Paris"]), "ann", square(1, "green", 5))
    state, _ = ENGINE.apply(state, "bob", {"type": "veto"})
    assert ENGINE.to_act(state) == ["cy"]
    view = ENGINE.view(state, None)["veto_window"]
    assert view == {"eligible": ["bob", "cy"], "objectors": ["bob"], "declined": [],
                    "waiting": ["cy"]}
    # The marker lies on the card: it is gone from bob's supply at once.
    assert ENGINE.view(state, None)["vetoes_left"] == {"ann": 2, "bob": 1, "cy": 2}
    for kind in ("veto", "no_veto"):
        with pytest.raises(IllegalAction, match=re.escape("You have already answered on Paris.")):
            ENGINE.apply(state, "bob", {"type": kind})


def test_several_players_may_object_to_one_card() -> None:
    _, events = turn(start(["Paris"]), square(1, "red", 4), objectors=("bob", "cy"))
    result = reveal_of(events)
    assert result["objectors"] == ["bob", "cy"]
    assert result["points"] == {"ann": 0, "bob": 3, "cy": 3}


def test_the_window_closes_when_everyone_eligible_has_answered() -> None:
    state, _ = ENGINE.apply(start(["Paris", "Tokyo"]), "ann", square(1, "green", 5))
    state, events = ENGINE.apply(state, "cy", {"type": "no_veto"})
    assert state["phase"] == "veto" and not any(e["type"] == "reveal" for e in events)
    state, events = ENGINE.apply(state, "bob", {"type": "no_veto"})
    kinds = [e["type"] for e in events]
    assert kinds == ["no_veto", "vetoes_closed", "reveal", "city_drawn"]
    assert events[1] == {"type": "vetoes_closed", "by": "answers", "objectors": [], "silent": []}
    assert ENGINE.to_act(state) == ["bob"]
    assert ENGINE.view(state, None)["city"]["name"] == "Tokyo"


def test_the_veto_timer_closes_the_window() -> None:
    state = start(["Paris", "Tokyo"], veto_seconds=7)
    assert ENGINE.timeout_action(state) is None  # the runtime lets the AI play for ann
    assert ENGINE.timer_seconds(state) is None
    state, _ = ENGINE.apply(state, "ann", square(1, "red", 4))
    state, _ = ENGINE.apply(state, "bob", {"type": "veto"})
    assert ENGINE.timeout_action(state) == (None, {"type": "close_vetoes"})
    assert ENGINE.timer_seconds(state) == 7
    with pytest.raises(IllegalAction, match="Only the veto timer closes the window"):
        ENGINE.apply(state, "cy", {"type": "close_vetoes"})
    state, events = ENGINE.apply(state, None, {"type": "close_vetoes"})
    assert events[0] == {"type": "vetoes_closed", "by": "timer", "objectors": ["bob"],
                         "silent": ["cy"]}
    assert reveal_of(events)["points"] == {"ann": 0, "bob": 3, "cy": 0}
    # cy never answered and keeps both markers; bob's is spent.
    assert state["vetoes"] == {"ann": 2, "bob": 1, "cy": 2}
    with pytest.raises(IllegalAction, match=re.escape("No veto window is open.")):
        ENGINE.apply(state, None, {"type": "close_vetoes"})
    with pytest.raises(IllegalAction, match=re.escape("You can object only after a city has been placed.")):
        ENGINE.apply(state, "cy", {"type": "veto"})


def test_right_placement_costs_each_objector_three() -> None:
    state = start(["Paris", "Tokyo"])
    state["scores"].update({"bob": 5, "cy": 1})
    state, events = turn(state, square(1, "green", 5), objectors=("bob", "cy"))
    assert reveal_of(events)["points"] == {"ann": 5, "bob": -3, "cy": -1}
    assert state["scores"] == {"ann": 5, "bob": 2, "cy": 0}  # never below 0


def test_wrong_placement_pays_each_objector_three() -> None:
    state, events = turn(start(["Paris", "Tokyo"]), square(3, "red", 3), objectors=("cy",))
    assert reveal_of(events)["right"] is False
    assert state["scores"] == {"ann": 0, "bob": 0, "cy": 3}


def test_wrong_risk_field_with_objectors() -> None:
    state = start(["Paris", "Tokyo"])
    state["scores"]["ann"] = 1
    state, events = turn(state, risk("1-2", "green"), objectors=("bob",))
    assert reveal_of(events)["points"] == {"ann": -1, "bob": 3, "cy": 0}
    assert state["scores"] == {"ann": 0, "bob": 3, "cy": 0}


def test_markers_are_spent_whether_the_objection_was_justified_or_not() -> None:
    state, _ = turn(start(["Paris", "Tokyo", "Bergen"]), square(1, "green", 5),
                    objectors=("bob",))  # not justified
    assert state["vetoes"]["bob"] == 1
    state, _ = turn(state, square(1, "red", 4), objectors=("cy",))  # Tokyo: justified
    assert state["vetoes"] == {"ann": 2, "bob": 1, "cy": 1}
    assert ENGINE.view(state, None)["vetoes_left"] == {"ann": 2, "bob": 1, "cy": 1}


def test_two_markers_for_the_whole_game() -> None:
    state = start(["Paris", "Tokyo", "Bergen", "Oslo"])
    state, _ = turn(state, square(1, "green", 5), objectors=("bob",))
    state, _ = turn(state, square(2, "red", 3))
    state, _ = turn(state, square(3, "red", 3), objectors=("bob",))
    assert state["vetoes"]["bob"] == 0
    state, _ = ENGINE.apply(state, "ann", square(4, "green", 6))
    assert ENGINE.to_act(state) == ["cy"]
    assert ENGINE.legal(state, "bob") == []
    with pytest.raises(IllegalAction, match=re.escape("You have no veto markers left.")):
        ENGINE.apply(state, "bob", {"type": "veto"})


def test_no_window_when_nobody_else_has_a_marker() -> None:
    state = start(["Paris", "Tokyo", "Bergen"], players=["ann", "bob"])
    state["vetoes"]["bob"] = 0
    state, events = ENGINE.apply(state, "ann", square(1, "green", 5))
    assert [e["type"] for e in events] == ["placed", "reveal", "city_drawn"]
    assert ENGINE.to_act(state) == ["bob"]


# -- the end ------------------------------------------------------------------------------


def test_reaching_36_finishes_the_round_so_all_have_equal_turns() -> None:
    state = start(["Tokyo", "Paris", "Bergen", "Oslo"])
    state["scores"].update({"ann": 30, "bob": 20})
    state, events = turn(state, risk("3-4", "green"))  # ann 38
    assert state["scores"]["ann"] == 38  # "move your playing piece ... past the starting position"
    assert state["end_triggered"] and ENGINE.result(state) is None
    assert ENGINE.to_act(state) == ["bob"]
    state, _ = turn(state, square(1, "green", 5))  # bob, Paris: 25
    state, events = turn(state, square(1, "red", 4))  # cy, Bergen: 4
    assert events[-1] == {"type": "game_over", "scores": {"ann": 38, "bob": 25, "cy": 4},
                          "winners": ["ann"], "reason": "score"}
    result = ENGINE.result(state)
    assert result is not None and result.winners == ["ann"]
    assert state["turns"] == {"ann": 1, "bob": 1, "cy": 1}
    assert ENGINE.to_act(state) == []
    assert ENGINE.view(state, None)["winners"] == ["ann"]
    with pytest.raises(IllegalAction, match=re.escape("The game is over.")):
        ENGINE.apply(state, "ann", square(2, "red", 3))


def test_the_round_ends_before_the_first_player() -> None:
    state = start(["Tokyo", "Paris", "Bergen"], first_player="bob")
    state["scores"]["cy"] = 35
    state, _ = turn(state, square(1, "green", 5))  # bob, Tokyo: 5
    state, _ = turn(state, square(1, "green", 3))  # cy, Paris: 38
    assert state["end_triggered"] and ENGINE.to_act(state) == ["ann"]
    state, _ = turn(state, square(4, "green", 6))  # ann, Bergen on the coast: 6
    result = ENGINE.result(state)
    assert result is not None and result.scores == {"ann": 6, "bob": 5, "cy": 38}
    assert state["turns"] == {"ann": 1, "bob": 1, "cy": 1}


def test_points_from_an_objection_can_end_the_game() -> None:
    state = start(["Paris", "Tokyo", "Bergen"])
    state["scores"]["cy"] = 34
    state, _ = turn(state, square(1, "red", 4), objectors=("cy",))
    assert state["scores"]["cy"] == 37 and state["end_triggered"]
    state, _ = turn(state, square(1, "green", 5))
    state, _ = turn(state, square(2, "red", 3))
    assert ENGINE.result(state) is not None


def test_the_end_once_triggered_stands_even_if_the_score_drops_again() -> None:
    # "The game is over once a player has at least 36 points. ... Finish the round."
    # Reaching 36 is the moment; losing points later in the round does not undo it.
    state = start(["Paris", "Tokyo", "Bergen"])
    state["scores"]["cy"] = 34
    state, _ = turn(state, square(1, "red", 4), objectors=("cy",))  # Paris wrong: cy 37
    state, _ = turn(state, square(1, "green", 5), objectors=("cy",))  # Tokyo right: cy 34
    assert state["end_triggered"] and ENGINE.result(state) is None
    state, _ = turn(state, square(1, "green", 3))  # cy: Bergen is small, wrong
    result = ENGINE.result(state)
    assert result is not None
    assert result.scores == {"ann": 0, "bob": 5, "cy": 34} and result.winners == ["cy"]


def test_ties_share_the_win() -> None:
    state = start(["Tokyo", "Paris"], players=["ann", "bob"])
    state["scores"].update({"ann": 31, "bob": 33})
    state, _ = turn(state, square(1, "green", 5))  # ann 36
    state, _ = turn(state, square(2, "red", 3))  # bob, Paris north of the equator: 36
    result = ENGINE.result(state)
    assert result is not None
    assert result.scores == {"ann": 36, "bob": 36}
    assert result.winners == ["ann", "bob"]


def test_the_game_ends_when_the_pile_cannot_give_everyone_a_turn() -> None:
    # The rulebook is silent; we finish the round and stop when fewer cities are left
    # than players, so everyone has had the same number of turns.
    state = start(["Paris", "Tokyo", "Bergen"], players=["ann", "bob"])
    state["city_pile"] = state["city_pile"][:3]
    state, _ = turn(state, square(1, "green", 5))
    state, events = turn(state, square(1, "green", 3))
    assert ENGINE.result(state) is None  # two cities left for two players: round 2
    assert events[-1]["type"] == "city_drawn" and state["round"] == 2
    state, _ = turn(state, square(2, "red", 3))
    state, events = turn(state, square(3, "green", 6))
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "cities"


def test_apply_never_changes_its_input() -> None:
    state = _ready_to_replace_slot_1()
    frozen = copy.deepcopy(state)
    for action in ({"type": "replace", "slot": 1}, square(2, "green", 6),
                   risk("3-4", "green"), square(1, "green", 5)):
        with contextlib.suppress(IllegalAction):
            ENGINE.apply(state, "ann", action)
        assert state == frozen
    placed, _ = ENGINE.apply(state, "ann", square(2, "green", 6))
    frozen = copy.deepcopy(placed)
    ENGINE.apply(placed, "bob", {"type": "veto"})
    ENGINE.apply(placed, None, {"type": "close_vetoes"})
    assert placed == frozen


def test_public_view_shape() -> None:
    state, _ = ENGINE.apply(start(["Paris"]), "ann", square(2, "green", 6))
    view = ENGINE.view(state, None)
    assert set(view) == {
        "game", "players", "phase", "round", "turn", "first_player", "to_act", "city",
        "slots", "risk_fields", "beside_board", "replaced_slot", "placement", "veto_window",
        "veto_seconds", "vetoes_left", "scores", "turns", "piles", "end_triggered",
        "last_reveal"}
    assert view["slots"][1] == {
        "slot": 2, "statement": "south", "text": "Is located south of the equator",
        "short": "South", "symbol": "south", "replaceable": False,
        "squares": [{"color": "green", "points": 6, "city": {"id": "paris", "name": "Paris"}},
                    {"color": "green", "points": 5, "city": None},
                    {"color": "red", "points": 3, "city": None},
                    {"color": "red", "points": 2, "city": None}]}
    assert view["placement"] == {"player": "ann", "label": "Green 6 on South", "kind": "square",
                                 "slot": 2, "statement": "south", "color": "green",
                                 "points": 6, "city": {"id": "paris", "name": "Paris"}}
    assert view["piles"] == {"cities": 99, "statements": 8, "statement_discard": [],
                             "removed": 0}
    mine = ENGINE.view(state, "bob")
    assert mine["can_object"] is True and mine["is_my_turn"] is False and mine["me"] == "bob"
    # No player holds a secret: every viewer sees the same table.
    assert {k: v for k, v in mine.items() if k not in ("me", "can_object", "is_my_turn")} == view


def test_one_computer_level_for_the_whole_table() -> None:
    from bot.core.engine import IllegalAction as Refused
    from bot.games.bigcityz import ENGINE as BZ

    state = BZ.new(["a", "b", "c"], {"ai_level": "hard", "ai_levels": {"c": "easy"}}, 1)
    assert state["ai_levels"] == {"a": "hard", "b": "hard", "c": "easy"}
    with pytest.raises(Refused, match="genius"):
        BZ.new(["a", "b"], {"ai_level": "genius"}, 1)
