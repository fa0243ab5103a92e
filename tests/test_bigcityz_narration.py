"""Big Cityz as the table hears it: the events of each move, the refusals word for word,
and what is left on the table when the game ends.

Boards and cities are stacked as in test_bigcityz_rules.py: slot 1 Population (green 5/3,
red 4/2), 2 South, 3 Capital, 4 Coast; the statement pile starts with Europe/Asia. Paris:
over a million, north, capital, inland. Tokyo: the same but on the coast. Bergen: under a
million, north, not a capital, on the coast.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcityz import ENGINE, GAME, ai, content
from tests.test_bigcityz_rules import (
    FILLERS,
    PARIS_FILL,
    PLAYERS,
    _no_free_square_for,
    _ready_to_replace_slot_1,
    reveal_of,
    risk,
    square,
    start,
    turn,
    turn_rest,
)

JSON = dict[str, Any]
PARIS = {"id": "paris", "name": "Paris"}
TOKYO = {"id": "tokyo", "name": "Tokyo"}

# The saved state's keys. Changing them needs a state_version step (docs/upgrades.md), or
# games saved before the change no longer load.
STATE_KEYS = {
    "game", "seed", "rng_draws", "players", "first_seat", "turn_seat", "round", "turns",
    "phase", "veto_seconds", "ai_levels", "scores", "vetoes", "tally", "current_city",
    "replaced_slot", "placement", "veto_window", "last_reveal", "end_triggered",
    "beside_board", "removed", "statement_discard", "city_pile", "slots", "statement_pile",
    "risk_fields",
}


# -- the events of a turn -----------------------------------------------------------------


def test_a_turn_tells_the_table_who_placed_who_objected_and_what_the_card_showed() -> None:
    state = start(["Paris", "Tokyo"])
    state, placed = ENGINE.apply(state, "ann", square(1, "green", 5))
    assert placed == [
        {"type": "placed", "player": "ann", "city": PARIS, "label": "Green 5 on Population",
         "kind": "square", "slot": 1, "statement": "population", "color": "green",
         "points": 5},
        {"type": "veto_window_opened", "eligible": ["bob", "cy"], "seconds": 20},
    ]
    state, objected = ENGINE.apply(state, "bob", {"type": "veto"})
    assert objected == [{"type": "veto", "player": "bob", "city": PARIS}]
    state, rest = ENGINE.apply(state, "cy", {"type": "no_veto"})
    placement = {"player": "ann", "label": "Green 5 on Population", "kind": "square",
                 "slot": 1, "statement": "population", "color": "green", "points": 5,
                 "city": PARIS}
    # bob objected at 0 points to a right placement: "If a playing piece is still on the
    # starting position, nothing happens."
    reveal = {"player": "ann", "city": content.facts("paris"), "placement": placement,
              "checked": [{"slot": 1, "statement": "population", "true": True}],
              "right": True, "objectors": ["bob"], "points": {"ann": 5, "bob": 0, "cy": 0},
              "scores": {"ann": 5, "bob": 0, "cy": 0}}
    assert rest == [
        {"type": "no_veto", "player": "cy", "city": PARIS},
        {"type": "vetoes_closed", "by": "answers", "objectors": ["bob"], "silent": []},
        {"type": "reveal", **reveal},
        {"type": "city_drawn", "player": "bob", "round": 1, "city": TOKYO},
    ]
    assert ENGINE.view(state, None)["last_reveal"] == reveal


def test_a_risk_field_names_both_boards_and_the_reveal_checks_both() -> None:
    state = start(["Tokyo", "Paris"])
    state, events = ENGINE.apply(state, "ann", risk("3-4", "green"))
    placed = {"player": "ann", "label": "Risk 3–4 green (8)", "kind": "risk", "risk": "3-4",
              "color": "green", "statements": ["capital", "coast"]}
    assert events[0] == {"type": "placed", "city": TOKYO, **placed}
    assert ENGINE.view(state, None)["placement"] == {**placed, "city": TOKYO}
    state, events = turn_rest(state)
    assert reveal_of(events)["checked"] == [
        {"slot": 3, "statement": "capital", "true": True},
        {"slot": 4, "statement": "coast", "true": True},
    ]


def test_replacing_a_board_tells_which_board_went_which_came_and_which_cards_left() -> None:
    _, events = ENGINE.apply(_ready_to_replace_slot_1(), "ann", {"type": "replace", "slot": 1})
    assert events == [{
        "type": "board_replaced", "player": "ann", "slot": 1, "old": "population",
        "new": "eurasia", "text": "Is in Europe or Asia",
        "removed": [{"id": c, "name": content.name(c)}
                    for c in ("oslo", "nassau", "suva", "havana", "kabul")],
    }]


def test_after_replacing_board_3_only_board_3_takes_the_card() -> None:
    # "If you have replaced a statement board, you must place your city card on the new
    # statement board."
    state = start(FILLERS)
    state = turn(state, square(3, "green", 6))[0]
    state = turn(state, square(3, "green", 4))[0]
    state = turn(state, square(3, "red", 3))[0]
    state, _ = ENGINE.apply(state, "ann", {"type": "replace", "slot": 3})
    assert [la.label for la in ENGINE.legal(state, "ann")] == [
        "Green 5 on Europe/Asia", "Green 3 on Europe/Asia",
        "Red 4 on Europe/Asia", "Red 2 on Europe/Asia"]


def test_there_is_no_free_square_is_told_like_a_placement() -> None:
    state = _no_free_square_for("Paris", PARIS_FILL)
    frozen = copy.deepcopy(state)
    placed, events = ENGINE.apply(state, "cy", {"type": "no_free_square"})
    assert state == frozen  # the card goes beside the board in the new state only
    assert events[0] == {"type": "placed", "player": "cy", "city": PARIS,
                         "label": "There's no free square", "kind": "no_free_square"}
    # The free squares are worked out for the reveal; the table shows only the claim.
    assert ENGINE.view(placed, None)["placement"] == {
        "player": "cy", "label": "There's no free square", "kind": "no_free_square",
        "city": PARIS}


# -- refusals, word for word --------------------------------------------------------------


def _placed(state: JSON) -> JSON:
    return ENGINE.apply(state, "ann", square(1, "green", 5))[0]


def _over(state: JSON) -> JSON:
    state["city_pile"] = state["city_pile"][:2]  # Tokyo and Bergen: one round
    state = turn(state, square(1, "green", 5))[0]
    state = turn(state, square(1, "green", 3))[0]
    return turn(state, square(1, "red", 4))[0]


def _bob_spent(state: JSON) -> JSON:
    state["vetoes"]["bob"] = 0
    return _placed(state)


def _fresh(state: JSON) -> JSON:
    return state


REFUSALS: list[tuple[Callable[[JSON], JSON], str | None, Any, str]] = [
    (_fresh, "ann", {"type": "veto"}, "You can object only after a city has been placed."),
    (_placed, "ann", {"type": "veto"}, "You cannot object to your own placement."),
    (_bob_spent, "bob", {"type": "veto"}, "You have no veto markers left."),
    (_placed, "bob", {"type": "close_vetoes"},
     "Only the veto timer closes the window; answer with Objection or No objection."),
    (_fresh, None, {"type": "close_vetoes"}, "No veto window is open."),
    (_over, "ann", square(2, "red", 3), "The game is over."),
    (_fresh, "zed", square(1, "green", 5), "Only seated players can play in this game."),
    (_fresh, "ann", {"type": "pass"},
     "Big Cityz moves are replace, place, no_free_square, veto, no_veto and close_vetoes."),
    # A move that is not even a mapping (a broken replay line) is refused the same way.
    (_fresh, "ann", "place",
     "Big Cityz moves are replace, place, no_free_square, veto, no_veto and close_vetoes."),
    (_fresh, "ann", {"type": "place", "slot": 1, "color": "blue", "points": 5},
     "The colour must be green (true) or red (false)."),
    (_fresh, "ann", {"type": "place", "risk": "1-3", "color": "green"},
     "Risk fields lie between boards 1-2, 2-3, 3-4 and 4-1."),
    (_fresh, "ann", {"type": "place", "slot": 0, "color": "green", "points": 5},
     "Boards are numbered 1 to 4."),
    (_fresh, "ann", {"type": "replace", "slot": 5}, "Boards are numbered 1 to 4."),
    (_fresh, "ann", {"type": "replace", "slot": "1"}, "Boards are numbered 1 to 4."),
    (_fresh, "ann", {"type": "replace", "slot": 2},
     "Board 2 cannot be replaced: it needs 3 cities on it, or 2 on it and 2 on its "
     "neighbouring risk fields."),
]


@pytest.mark.parametrize(("setup", "player", "action", "message"), REFUSALS)
def test_each_refusal_says_why(setup: Callable[[JSON], JSON], player: str | None,
                               action: Any, message: str) -> None:
    state = setup(start(["Paris", "Tokyo", "Bergen"]))
    with pytest.raises(IllegalAction, match=f"^{re.escape(message)}$"):
        ENGINE.apply(state, player, action)


def test_a_replaceable_board_forbids_the_no_free_square_claim_in_full() -> None:
    state = start(FILLERS)
    state = turn(state, square(1, "green", 5))[0]
    state = turn(state, square(1, "green", 3))[0]
    state = turn(state, square(1, "red", 4))[0]
    with pytest.raises(IllegalAction, match="^" + re.escape(
            "Board 1 can be replaced, so you cannot declare that there's no free square.") + "$"):
        ENGINE.apply(state, "ann", {"type": "no_free_square"})
    state, _ = ENGINE.apply(state, "ann", {"type": "replace", "slot": 1})
    with pytest.raises(IllegalAction, match="^" + re.escape(
            "You have already replaced a board this turn.") + "$"):
        ENGINE.apply(state, "ann", {"type": "replace", "slot": 2})


SET_UP_REFUSALS: list[tuple[list[str], JSON, str]] = [
    (["ann"], {}, "Big Cityz is for 2 to 6 players."),
    (["ann", "ann"], {}, "Each player can take only one seat."),
    (PLAYERS, {"veto_seconds": 601}, "The veto timer must be 1 to 600 seconds."),
    (PLAYERS, {"ai_levels": ["bob"]}, "ai_levels maps players to easy, normal or hard."),
    (PLAYERS, {"city_order": "Paris"}, "city_order must be a list of city names."),
    (PLAYERS, {"statement_order": "coast"},
     "statement_order must be a list of statement ids."),
    (PLAYERS, {"statement_order": ["weather"]},
     "There is no statement 'weather'; known: " + ", ".join(content.statement_ids()) + "."),
    (PLAYERS, {"statement_order": ["coast", "coast"]},
     "statement_order names a statement twice."),
]


@pytest.mark.parametrize(("players", "options", "message"), SET_UP_REFUSALS)
def test_each_set_up_refusal_says_why(players: list[str], options: JSON, message: str) -> None:
    with pytest.raises(IllegalAction, match=f"^{re.escape(message)}$"):
        ENGINE.new(players, options, 1)


def test_the_veto_timer_may_be_anything_from_1_to_600_seconds() -> None:
    for seconds in (1, 2, 599, 600):
        assert ENGINE.new(PLAYERS, {"veto_seconds": seconds}, 1)["veto_seconds"] == seconds


def test_city_order_may_name_the_whole_game_of_100_cities_but_no_more() -> None:
    names = [content.name(c) for c in content.city_ids()]
    state = ENGINE.new(PLAYERS, {"city_order": names[:100]}, 1)
    assert [state["current_city"], *state["city_pile"]] == content.city_ids()[:100]
    with pytest.raises(IllegalAction,
                       match="^" + re.escape("A game uses 100 cities; city_order names more.")):
        ENGINE.new(PLAYERS, {"city_order": names[:101]}, 1)


# -- the saved state and the end ----------------------------------------------------------


def test_the_saved_state_keeps_its_shape_from_the_start_to_the_end() -> None:
    state = start(["Paris", "Tokyo"], players=["ann", "bob"])
    assert set(state) == STATE_KEYS
    state["city_pile"] = state["city_pile"][:1]
    state = turn(state, square(1, "green", 5))[0]
    assert set(state) == STATE_KEYS
    # bob's last turn replaces a full board and places on the new one.
    for sq, city in zip(state["slots"][1]["squares"], ("oslo", "suva", "kabul"), strict=False):
        sq["city"] = city
    state, _ = ENGINE.apply(state, "bob", {"type": "replace", "slot": 2})
    state = turn(state, square(2, "green", 5))[0]
    assert state["phase"] == "over"
    assert set(state) == STATE_KEYS
    # Nothing is left in play on the table.
    assert (state["current_city"], state["placement"], state["veto_window"],
            state["replaced_slot"]) == (None, None, None, None)
    view = ENGINE.view(state, None)
    assert (view["city"], view["placement"], view["veto_window"], view["replaced_slot"]) == (
        None, None, None, None)


def test_tallies_and_turns_keep_counting_past_one() -> None:
    state = start(["Paris", "Tokyo", "Bergen", "Oslo", "Minsk", "Lagos"])
    state = turn(state, square(1, "red", 4), objectors=("bob",))[0]  # ann Paris: wrong
    state = turn(state, square(4, "green", 6))[0]  # bob Tokyo: right
    state = turn(state, square(1, "red", 2))[0]  # cy Bergen: right
    state = turn(state, square(1, "green", 3), objectors=("bob",))[0]  # ann Oslo: wrong
    state = turn(state, square(4, "green", 4))[0]  # bob Minsk, inland: wrong
    assert state["tally"]["bob"] == {"placed": 2, "right": 1, "objections": 2,
                                     "objections_justified": 2}
    state = turn(state, square(2, "red", 3))[0]  # cy Lagos, north of the equator: right
    assert state["tally"]["cy"] == {"placed": 2, "right": 2, "objections": 0,
                                    "objections_justified": 0}
    assert state["turns"] == {"ann": 2, "bob": 2, "cy": 2}


# -- the computer objector ----------------------------------------------------------------


def test_a_computer_objects_with_what_it_knows_itself() -> None:
    """A hard computer that knows the placement is wrong objects; its knowledge is its
    own, drawn for it by name, not some other player's."""
    seed = next(s for s in range(1, 500)
                if ai.knows({"seed": s, "ai_levels": {"bob": "hard"}}, "bob", "paris", "south")
                and not ai.knows({"seed": s, "ai_levels": {}}, None, "paris", "south"))  # type: ignore[arg-type]
    state = start(["Paris", "Tokyo"], seed=seed, ai_levels={"bob": "hard"})
    state = ENGINE.apply(state, "ann", square(2, "green", 6))[0]  # Paris is not south
    assert GAME.computer.normal(state, "bob") == {"type": "veto"}

