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
from tests.computer_games import played
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
    rng = random.Random(seed)
    state = ENGINE.new(players, options, seed)
    yield state
    for _ in range(600):
        if ENGINE.result(state) is not None:
            return
        player = ENGINE.to_act(state)[0]
        if rng.random() < share:
            legal = [la.action for la in ENGINE.legal(state, player)]
            kind = rng.choice(sorted({a["type"] for a in legal}))
            action = rng.choice([a for a in legal if a["type"] == kind])
        else:
            action = GAME.computer.normal(state, player)
        state, _events = ENGINE.apply(state, player, action)
        yield state
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
