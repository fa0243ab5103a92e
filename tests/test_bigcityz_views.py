"""The typed views of Big Cityz (bot/games/bigcityz/views.py) say exactly what the engine
builds: seeded games, checked at every step for the table and every player, with the moves
offered and played and the reveals reported, so an engine change the types miss fails here."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any, Literal, get_args, get_type_hints

import pytest

from bot.games.bigcityz import ENGINE, GAME
from bot.games.bigcityz import views as bz
from tests.computer_games import mixed_move, played
from tests.typed_views import checked_views, fields, mismatches

JSON = dict[str, Any]

COMPUTER_GAMES: list[tuple[list[str], int, JSON]] = [  # players, seed, options: two to six players
    (["a", "b"], 1, {}),
    (["a", "b", "c"], 2, {"veto_seconds": 30}),
    (["a", "b", "c", "d"], 3, {"ai_level": "hard"}),
    (["a", "b", "c", "d", "e", "f"], 4, {"ai_level": "easy"}),
]
# The computer player seldom replaces a board or says "There's no free square", and never
# wrongly: these games mix in random legal moves, so that every kind of placement, answer and
# reveal happens too.
MIXED_GAMES: list[tuple[list[str], int, JSON]] = [
    (["a", "b", "c"], 5, {}),
    (["a", "b", "c", "d"], 6, {}),
    (["a", "b", "c", "d", "e"], 7, {}),
]


@functools.cache
def tags(hint: Any) -> dict[str, Any]:
    """Each member of a union of TypedDicts by its class name."""
    return {member.__name__: member for member in get_args(hint)}


def kind(value: Any, hint: Any) -> str:
    """Which member of the union ``hint`` ``value`` is (exactly one must fit)."""
    fits = [name for name, member in tags(hint).items() if not mismatches(value, member)]
    assert len(fits) == 1, (value, fits)
    return fits[0]


def mixed(players: list[str], seed: int, options: JSON,
          share: float = 0.5) -> Iterator[tuple[JSON, JSON | None, list[JSON]]]:
    """Every (state, move, events) of a seeded game in which the player due makes a random
    legal move (of a random kind) ``share`` of the time, else the computer's move; the veto
    timer closes a window nobody answers."""
    rng = random.Random(seed)
    state = ENGINE.new(players, options, seed)
    yield state, None, []
    for _ in range(2000):
        if ENGINE.result(state) is not None:
            return
        due = ENGINE.to_act(state)
        player = due[0] if due else None
        if player is None:
            action: JSON = {"type": "close_vetoes"}
        else:
            action = mixed_move(ENGINE, GAME.computer, state, player, rng, share)
        state, events = ENGINE.apply(state, player, action)
        yield state, action, events
    raise AssertionError("the mixed game did not end")


def test_the_checker_catches_a_missing_an_extra_and_a_wrong_key() -> None:
    square = {"type": "place", "slot": 2, "color": "green", "points": 5}
    assert mismatches(square, bz.PlaceSquare) == []
    assert kind(square, bz.Move) == "PlaceSquare"
    assert mismatches({**square, "risk": "1-2"}, bz.PlaceSquare) == [
        "view: PlaceSquare has no key 'risk'"]
    assert mismatches({k: v for k, v in square.items() if k != "points"}, bz.PlaceSquare) == [
        "view: PlaceSquare lacks 'points'"]
    assert mismatches({**square, "points": True}, bz.PlaceSquare) == [
        "view.points: True is a bool, not a int"]
    assert mismatches({**square, "slot": 5}, bz.PlaceSquare) == [
        "view.slot: 5 is not one of (1, 2, 3, 4)"]
    assert mismatches({"value": 3, "true": True}, bz.FactView) == []
    assert mismatches({"value": [3], "true": True}, bz.FactView)
    assert mismatches({"id": "x", "name": "X", "country": "Y", "country_code": "YY",
                       "continent": "Europe", "latitude": 1, "longitude": 2.0, "facts": {}},
                      bz.CityFacts) == ["view.latitude: 1 is a int, not a float"]


PUBLIC_KEYS = bz.BigCityzView.__required_keys__ | bz.BigCityzView.__optional_keys__
PLAYER_KEYS = {key: hint for key, hint in fields(bz.BigCityzPlayerView).items()
               if key not in PUBLIC_KEYS}
"""What a player's view adds: its other keys are the public view's, checked on their own."""


def test_a_player_view_adds_its_keys_to_the_public_ones() -> None:
    assert {"me": str, "is_my_turn": bool, "can_object": bool} == PLAYER_KEYS
    assert bz.BigCityzView.__optional_keys__ == {"winners"}
    assert bz.BigCityzPlayerView.__required_keys__ == (
        bz.BigCityzView.__required_keys__ | set(PLAYER_KEYS))
    assert bz.BigCityzPlayerView.__optional_keys__ == {"winners"}
    assert fields(bz.RevealEvent) == {**fields(bz.RevealView),
                                          "type": Literal["reveal"]}


def check_step(number: int, state: JSON, action: JSON | None, events: list[JSON],
               players: list[str], seen: dict[str, set[str]]) -> None:
    where = f"step {number}"
    public, theirs = checked_views(bz, ENGINE, state, players, bz.BigCityzView,
                                   bz.BigCityzPlayerView, where)
    for player in theirs:
        if public["phase"] == "place" and player == public["turn"]:
            for legal in ENGINE.legal(state, player):
                move = bz.placing_move(legal.action)
                assert move is legal.action
                seen["offered"].add(kind(move, bz.PlacingMove))
    if action is not None:
        assert bz.move_of(action) is action
        seen["played"].add(kind(action, bz.Move))
    shown = bz.reveals(events)
    assert [e for e in events if e["type"] == "reveal"] == shown
    for event in shown:
        assert mismatches(event, bz.RevealEvent, f"{where}, reveal") == []
    if shown:  # the last reveal of the move is the one the state keeps
        assert public["last_reveal"] == {k: v for k, v in shown[-1].items() if k != "type"}
    seen["phase"].add(public["phase"])
    placement = public["placement"]
    if placement is not None:
        seen["placement"].add(placement["kind"])
    reveal = public["last_reveal"]
    if reveal is not None:
        seen["reveal"].add(reveal["placement"]["kind"])
        for right in reveal.get("free_squares_right", []):
            seen["free_squares_right"].add(kind(right, bz.RightSquare | bz.RightRiskField))
    if "winners" in public:
        seen["winners"].add(public["phase"])


def seen_sets() -> dict[str, set[str]]:
    return {key: set() for key in ("phase", "placement", "reveal", "offered", "played",
                                   "free_squares_right", "winners")}


@pytest.mark.parametrize(("players", "seed", "options"), COMPUTER_GAMES)
def test_the_views_are_what_the_types_say_in_computer_games(players: list[str], seed: int,
                                                            options: JSON) -> None:
    seen = seen_sets()
    for number, step in enumerate(played("bigcityz", players, seed, options)):
        check_step(number, step.state, step.action, step.events, players, seen)
    assert seen["phase"] == {"place", "veto", "over"}
    assert seen["winners"] == {"over"}  # there once the game is over, and only then
    assert {"square", "risk"} <= seen["placement"]


def test_the_views_are_what_the_types_say_with_every_kind_of_move() -> None:
    """Between them the mixed games go through every placement, move and reveal, and a
    wrong "There's no free square" with squares and risk fields that would have been
    right, so every TypedDict above is checked against real views."""
    seen = seen_sets()
    for players, seed, options in MIXED_GAMES:
        for number, (state, action, events) in enumerate(mixed(players, seed, options)):
            check_step(number, state, action, events, players, seen)
    kinds = {get_args(get_type_hints(member)["kind"])[0]
             for member in get_args(bz.PlacementView)}
    assert seen["placement"] == seen["reveal"] == kinds
    assert seen["offered"] == set(tags(bz.PlacingMove))
    assert seen["played"] == set(tags(bz.Move))
    assert seen["free_squares_right"] == {"RightSquare", "RightRiskField"}


def keys_in(value: Any) -> set[str]:
    """Every key of every dict within ``value``."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


def test_the_city_in_play_is_only_a_name_until_the_reveal() -> None:
    """No typed view carries the city in play's facts: the table names it, and a card's back
    is only in ``last_reveal``, once it is turned."""
    for step in played("bigcityz", ["a", "b", "c"], 11):
        for view in (bz.table(step.state), *(bz.seen_by(step.state, p) for p in "abc")):
            city = view["city"]
            assert city is None or city == {"id": step.state["current_city"],
                                             "name": city["name"]}
            rest = {k: v for k, v in view.items() if k != "last_reveal"}
            assert not keys_in(rest) & {"facts", "true", "country", "latitude"}
