"""Seeded computer-player games from start to end, with the invariants checked at every step.

BIGCITY_GAMES sets the games per player count (default 25); every game cycles through the
variant combinations.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest

from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity.city import City
from bot.games.bigcity.content import ALL_CARDS, BUILDINGS, STREETCARS

GAMES = int(os.environ.get("BIGCITY_GAMES", "25"))
VARIANTS = [
    "trade_cards",
    "must_exchange_useless",
    "single_streetcar_line",
    "limited_streetcar_line",
    "limited_card_drawing",
]
ALL = Counter(ALL_CARDS)


def variant_options(game: int) -> dict[str, bool]:
    return {name: bool(game >> bit & 1) for bit, name in enumerate(VARIANTS)}


def check_invariants(state: dict[str, Any]) -> None:
    cards: Counter[Any] = Counter()
    for pile in [*state["stacks"].values(), *state["hands"].values(), state["discard"]]:
        cards.update(pile)
    assert cards == ALL, "cards are not conserved"
    city = City(state)
    covered = [p for piece in state["buildings"] for p in piece["properties"]]
    assert len(covered) == len(set(covered)), "two pieces on one property"
    assert all(city.in_city(p) for p in covered)
    totals = dict.fromkeys(state["players"], 0)
    for piece in state["buildings"]:
        totals[piece["owner"]] += piece["points"]
    assert totals == state["scores"], "scores differ from the sum of the buildings"
    built = Counter(piece["building"] for piece in state["buildings"])
    assert all(built[b] <= BUILDINGS[b][0] for b in BUILDINGS)
    assert len(state["streetcars"]) <= STREETCARS
    assert len({json.dumps(s) for s in state["streetcars"]}) == len(state["streetcars"])
    assert all(len(hand) <= state["hand_size"] for hand in state["hands"].values())


def play(players: int, game: int, check_legal: bool = False) -> dict[str, Any]:
    names = [f"cpu{i}" for i in range(players - 1)] + ["123456789"]
    state = ENGINE.new(names, variant_options(game), seed=1000 * players + game)
    for _ in range(3000):
        if ENGINE.result(state) is not None:
            break
        acting = ENGINE.to_act(state)
        player = acting[game % len(acting)]
        action = GAME.computer.normal(state, player)
        if check_legal:
            assert action in [a.action for a in ENGINE.legal(state, player)], action
        state, _events = ENGINE.apply(state, player, action)
        check_invariants(state)
    else:
        raise AssertionError("the game did not end")
    public = ENGINE.view(state, None)
    assert "hand" not in public
    for name in names:
        assert ENGINE.view(state, name)["hand"] == state["hands"][name]
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_computer_games_end_with_the_invariants_held(players: int) -> None:
    ends: Counter[str] = Counter()
    for game in range(GAMES):
        state = play(players, game)
        final = ENGINE.result(state)
        assert final is not None
        assert final.winners and all(
            final.scores[w] == max(final.scores.values()) for w in final.winners
        )
        ends[state["ended_by"]] += 1
        assert len(state["buildings"]) > 10  # the computer players really build
    assert sum(ends.values()) == GAMES


def test_computer_moves_are_among_the_legal_moves() -> None:
    for players, game in ((2, 1), (5, 30)):
        play(players, game, check_legal=True)


def test_a_five_player_computer_game_plays_to_the_end() -> None:
    state = play(5, 3)
    final = ENGINE.result(state)
    assert final is not None and len(final.scores) == 5
