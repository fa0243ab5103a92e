"""Big Cityz's words and labels as players read them: the last move in the table text and
the picture, and the goal on the final standings."""

from __future__ import annotations

import copy
from typing import Any

from bot.core.records import ACTIVE, Match, Seat
from bot.games.bigcityz import ENGINE, GAME
from bot.games.bigcityz import render as br
from bot.games.bigcityz.render import render_final, render_table
from bot.render.kit import DrawnText
from cogs.bigcityz import BigCityzAdapter
from tests.pictures import drawn

View = dict[str, Any]


def _play_until(seed: int, stop: Any) -> tuple[View, View]:
    """A two-player computer game (ids "1" and "2") up to the first state ``stop`` accepts:
    (state, its public view)."""
    state = ENGINE.new(["1", "2"], {}, seed)
    while ENGINE.result(state) is None:
        due = ENGINE.to_act(state)
        if due:
            state, _events = ENGINE.apply(state, due[0], GAME.computer.normal(state, due[0]))
        else:
            state, _events = ENGINE.apply(state, None, {"type": "close_vetoes"})
        if stop(state):
            return state, ENGINE.view(state, None)
    raise AssertionError("the game ended first")


def _match(state: View) -> Match:
    return Match(id=1, guild_id=1, channel_id=1, game="bigcityz", status=ACTIVE, host_id="1",
                 seats=[Seat("1", "Ann"), Seat("2", "Bob")], options={}, seed=1, state=state,
                 version=5, turn_started_at=1_700_000_000.0)


def _veto_on(kind: str) -> View:
    def placed(state: View) -> bool:
        return state["phase"] == "veto" and (state["placement"] or {}).get("kind") == kind
    return _play_until(1, placed)[0]


def test_the_table_says_where_a_city_was_put_on_a_risk_field_in_a_sentence() -> None:
    state = _veto_on("risk")
    text = BigCityzAdapter(ENGINE).table_content(_match(state))
    placement = state["placement"]
    first, second = placement["risk"].split("-")
    meaning = "both true" if placement["color"] == "green" else "both false"
    name = "Ann" if placement["player"] == "1" else "Bob"
    assert (f"{name} put it on the risk field between boards {first} and {second}: "
            f"{placement['color']} 8 ({meaning}).") in text
    assert f"risk field {first}–{second}" not in text
    assert "put it Risk" not in text


def test_the_table_says_where_a_city_was_put_on_a_square_in_a_sentence() -> None:
    state = _veto_on("square")
    text = BigCityzAdapter(ENGINE).table_content(_match(state))
    placement = state["placement"]
    meaning = "true" if placement["color"] == "green" else "false"
    assert (f"put it on board {placement['slot']}, ") in text
    assert f": {placement['color']} {placement['points']} ({meaning})." in text
    assert "put it Green" not in text and "put it Red" not in text


def test_the_table_says_who_claimed_there_is_no_free_square() -> None:
    state = copy.deepcopy(_veto_on("square"))
    player = state["placement"]["player"]
    state["placement"] = {"player": player, "city": state["current_city"],
                          "label": "There's no free square", "kind": "no_free_square"}
    text = BigCityzAdapter(ENGINE).table_content(_match(state))
    name = "Ann" if player == "1" else "Bob"
    assert f"{name} said “There's no free square”." in text
    assert "put it" not in text


def _said(draw: Any) -> list[DrawnText]:
    return drawn(br, draw)[1]


def test_the_picture_says_no_free_square_without_put() -> None:
    _state, view = _play_until(1, lambda s: bool(s.get("last_reveal")) and s["phase"] == "place")
    view = copy.deepcopy(view)
    last = view["last_reveal"]
    city = last["city"]["name"]
    last["placement"] = {"player": last["player"], "kind": "no_free_square",
                         "label": "There's no free square", "city": last["city"]}
    said = [t.text for t in _said(lambda: render_table(view))]
    line = said[said.index("Last: "):][:6]
    assert "said there's no free square for " in line and city in line, line
    assert f"put {city} " not in line


def test_the_final_standings_keep_the_goal_apart_from_vetoes_unused() -> None:
    _state, view = _play_until(7, lambda s: s["phase"] == "over")
    texts = _said(lambda: render_final(view))
    vetoes = next(t for t in texts if t.text == "vetoes unused")
    goal = [t for t in texts if "36" in t.text and "reached" not in t.text]
    assert goal, [t.text for t in texts]
    for label in goal:
        assert "points" in label.text  # says what the 36 is
        # not on the header line beside "vetoes unused", where it read "36 vetoes unused"
        top, bottom = label.box[1], label.box[3]
        assert bottom <= vetoes.box[1] or top >= vetoes.box[3], (label, vetoes)
