"""The typed views of Big City (bot/games/bigcity/views.py) say exactly what the engine builds:
seeded games, checked at every step for every viewer, so an engine change the types miss
fails here."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity import views as bv
from tests.computer_games import mixed_move, played
from tests.scripts import load_script
from tests.typed_views import checked_views, fields, mismatches

JSON = dict[str, Any]

COMPUTER_GAMES = [  # players, seed, options: two to five players, every variant
    (["a", "b"], 1, {}),
    (["a", "b", "c"], 2, {"single_streetcar_line": True, "limited_card_drawing": True}),
    (["a", "b", "c", "d"], 3, {"limited_streetcar_line": True}),
    (["a", "b", "c", "d", "e"], 4, {"must_exchange_useless": True}),
]
# The computer player never starts a trade: these games mix in random legal moves, so that
# trades (announced, answered, accepted, ended), exchanges and discards happen too.
MIXED_GAMES = [
    (["a", "b", "c"], 5, {"trade_cards": True}),
    (["a", "b", "c", "d"], 6, {"trade_cards": True, "limited_card_drawing": True}),
]


def mixed(players: list[str], seed: int, options: JSON, share: float = 0.4) -> Iterator[JSON]:
    """Every state of a seeded game in which the player due makes a random legal move (of a
    random kind) ``share`` of the time, else the computer's move."""
    for state, _action, _events in mixed_moves(players, seed, options, share):
        yield state


def mixed_moves(players: list[str], seed: int, options: JSON,
                share: float = 0.4) -> Iterator[tuple[JSON, JSON | None, list[JSON]]]:
    """``mixed``'s game as (state, the move that led to it, its events): no move before the
    first state."""
    rng = random.Random(seed)
    state = ENGINE.new(players, options, seed)
    yield state, None, []
    for _ in range(600):
        if ENGINE.result(state) is not None:
            return
        player = ENGINE.to_act(state)[0]
        action = mixed_move(ENGINE, GAME.computer, state, player, rng, share)
        state, events = ENGINE.apply(state, player, action)
        yield state, action, events
    raise AssertionError("the mixed game did not end")


def test_the_checker_catches_a_missing_an_extra_and_a_wrong_key() -> None:
    last = {"type": "exchange", "player": "a", "count": 2, "stacks": [3, 4]}
    assert mismatches(last, bv.LastExchange) == []
    assert mismatches(last, bv.LastAction | None) == []
    assert mismatches({**last, "cards": [31]}, bv.LastExchange) == [
        "view: LastExchange has no key 'cards'"]
    assert mismatches({k: v for k, v in last.items() if k != "count"}, bv.LastExchange) == [
        "view: LastExchange lacks 'count'"]
    assert mismatches({**last, "count": True}, bv.LastExchange) == [
        "view.count: True is a bool, not a int"]
    assert mismatches({**last, "type": "exchanged"}, bv.LastAction)
    assert mismatches({"cards": 1, "stacks": {"3": 1}}, bv.DrawView) == [
        "view.stacks key: '3' is a str, not a int"]


PUBLIC_KEYS = bv.BigCityView.__required_keys__ | bv.BigCityView.__optional_keys__
PLAYER_KEYS = {key: hint for key, hint in fields(bv.BigCityPlayerView).items()
               if key not in PUBLIC_KEYS}
"""What a player's view adds: its other keys are the public view's, checked on their own."""


def test_a_player_view_adds_its_keys_to_the_public_ones() -> None:
    assert set(PLAYER_KEYS) == {"viewer", "hand", "useless", "my_trade"}
    assert bv.BigCityPlayerView.__required_keys__ == PUBLIC_KEYS | set(PLAYER_KEYS)
    assert not bv.BigCityPlayerView.__optional_keys__


def check_every_view(states: Iterator[JSON], players: list[str], seen: dict[str, set[str]]) -> None:
    for number, state in enumerate(states):
        public, theirs = checked_views(bv, ENGINE, state, players, bv.BigCityView,
                                       bv.BigCityPlayerView, f"step {number}")
        for mine in theirs.values():
            if mine["my_trade"] is not None:
                seen["my_trade"].add(next(iter(sorted(mine["my_trade"]))))
        seen["step"].add(public["step"])
        if public["last_action"] is not None:
            seen["last_action"].add(public["last_action"]["type"])


@pytest.mark.parametrize(("players", "seed", "options"), COMPUTER_GAMES)
def test_the_views_are_what_the_types_say_in_computer_games(players: list[str], seed: int,
                                                            options: JSON) -> None:
    seen: dict[str, set[str]] = {"step": set(), "last_action": set(), "my_trade": set()}
    check_every_view((step.state for step in played("bigcity", players, seed, options)),
                     players, seen)
    assert {"place", "start", "draw", "over"} <= seen["step"]
    assert {"place_neighborhood", "build", "special"} <= seen["last_action"]


def test_the_views_are_what_the_types_say_with_trades_exchanges_and_discards() -> None:
    """Between them the mixed games go through every step, every kind of last move and both
    sides of a trade, so every TypedDict above is checked against real views."""
    seen: dict[str, set[str]] = {"step": set(), "last_action": set(), "my_trade": set()}
    for players, seed, options in MIXED_GAMES:
        check_every_view(mixed(players, seed, options), players, seen)
    assert seen["step"] == set(get_args(bv.Step))
    assert seen["last_action"] == {get_args(fields(member)["type"])[0]
                                   for member in get_args(bv.LastAction)}
    assert seen["my_trade"] == {"cards", "offered"}


def test_the_cog_reads_the_engine_only_through_the_typed_views() -> None:
    raw_reads = load_script("check_cog_reads").raw_reads
    cog = Path(__file__).resolve().parent.parent / "cogs" / "bigcity"
    for path in sorted(cog.glob("*.py")):
        assert raw_reads(path) == []


def type_names(union: Any) -> set[str]:
    """The ``type`` values a union of TypedDicts told apart by ``type`` allows."""
    return {name for member in get_args(union) for name in get_args(fields(member)["type"])}


def check_moves_and_events(steps: Iterator[tuple[JSON, JSON | None, list[JSON]]],
                           seen: dict[str, set[str]], where: str) -> None:
    """The legal moves of everyone due (of each kind the first and the last: a placement's
    list runs to hundreds of the same shape), every move played and every event reported are
    exactly one of the typed moves and events."""
    for number, (state, action, events) in enumerate(steps):
        at = f"{where}, step {number}"
        for player in ENGINE.to_act(state):
            by_kind: dict[str, list[bv.Move]] = {}
            for la in ENGINE.legal(state, player):
                move = bv.move_of(la.action)
                assert move is la.action
                by_kind.setdefault(move["type"], []).append(move)
            for kind, moves in by_kind.items():
                for first_or_last in {id(m): m for m in (moves[0], moves[-1])}.values():
                    assert mismatches(first_or_last, bv.Move,
                                      f"{at}, {player}'s legal {kind}") == []
                seen["legal"].add(kind)
        if action is not None:
            assert mismatches(action, bv.Move, f"{at}, the move played") == []
            seen["played"].add(action["type"])
        assert bv.events(events) is events
        for event in events:
            assert mismatches(event, bv.Event, f"{at}, an event") == []
            seen["events"].add(event["type"])


def computer_moves(players: list[str], seed: int,
                   options: JSON) -> Iterator[tuple[JSON, JSON | None, list[JSON]]]:
    for step in played("bigcity", players, seed, options):
        yield step.state, step.action, step.events


def test_the_moves_and_events_are_what_the_types_say() -> None:
    """Between them the seeded games make every kind of move and report every kind of event,
    so every move and event TypedDict is checked against the engine's own."""
    seen: dict[str, set[str]] = {"legal": set(), "played": set(), "events": set()}
    for players, seed, options in COMPUTER_GAMES:
        check_moves_and_events(computer_moves(players, seed, options), seen, f"seed {seed}")
    for players, seed, options in MIXED_GAMES:
        check_moves_and_events(mixed_moves(players, seed, options), seen, f"mixed {seed}")
    assert seen["legal"] == type_names(bv.Move)
    assert seen["played"] == type_names(bv.Move)
    assert seen["events"] == type_names(bv.Event)


def test_the_move_readers_check_the_kind_they_read() -> None:
    place: JSON = {"type": "place_neighborhood", "neighborhood": 3, "at": [0, 4], "rotation": 90}
    streetcar: JSON = {"type": "streetcar", "segments": [[[0, 0], [0, 1]]]}
    draw: JSON = {"type": "draw", "stacks": [2]}
    with pytest.raises(AssertionError):
        bv.placing(draw)
    with pytest.raises(AssertionError):
        bv.streetcar_of(place)
    with pytest.raises(AssertionError):
        bv.drawing(streetcar)
    assert bv.placing(place) is place
    assert bv.streetcar_of(streetcar) is streetcar
    assert bv.drawing(draw) is draw
