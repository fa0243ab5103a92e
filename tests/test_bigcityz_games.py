"""Many seeded computer games of Big Cityz, run to the end with the rules' invariants held.

BIGCITYZ_GAMES sets the number of games per player count (default 8); with ``-s`` the
averages are printed.
"""

from __future__ import annotations

import json
import os
import statistics
from typing import Any

import pytest

from bot.core.rng import peek
from bot.games.bigcityz import ENGINE, GAME, content
from bot.games.bigcityz.board import CARDS_PER_GAME, COLORS, RISK_FIELDS, WINNING_SCORE
from tests.computer_games import moves

GAMES_PER_COUNT = int(os.environ.get("BIGCITYZ_GAMES", "8"))
NAMES = ["ann", "bob", "cy", "dee", "eve", "fay"]
LEVELS = ("easy", "normal", "hard")

JSON = dict[str, Any]


def _cards_in_play(state: JSON) -> list[str]:
    cards = list(state["city_pile"]) + list(state["removed"]) + list(state["beside_board"])
    if state["current_city"] is not None and state["placement"] is None:
        # in the active player's hand; once placed it lies on a square, a risk field or
        # beside the board
        cards.append(state["current_city"])
    for board in state["slots"]:
        cards += [sq["city"] for sq in board["squares"] if sq["city"] is not None]
    for risk in RISK_FIELDS:
        cards += [state["risk_fields"][risk][c] for c in COLORS
                  if state["risk_fields"][risk][c] is not None]
    return cards


def _facts_shown(blob: Any, city: str) -> bool:
    """Whether any dict in a view carries the facts of ``city``."""
    if isinstance(blob, dict):
        if blob.get("id") == city and "facts" in blob:
            return True
        return any(_facts_shown(v, city) for v in blob.values())
    if isinstance(blob, list):
        return any(_facts_shown(v, city) for v in blob)
    return False


def _check(state: JSON, players: list[str]) -> None:
    assert all(score >= 0 for score in state["scores"].values())
    cards = _cards_in_play(state)
    assert len(cards) == CARDS_PER_GAME, "cards are conserved"
    assert len(set(cards)) == CARDS_PER_GAME, "no card is in two places"
    boards = [b["statement"] for b in state["slots"]] + state["statement_pile"] \
        + state["statement_discard"]
    assert sorted(boards) == sorted(content.statement_ids())
    assert state["statement_pile"], "a board can always be drawn"
    for p in players:
        assert 0 <= state["vetoes"][p] <= 2
        assert state["vetoes"][p] + state["tally"][p]["objections"] == 2
    turns = list(state["turns"].values())
    assert max(turns) - min(turns) <= 1


def _play(players: list[str], seed: int) -> JSON:
    levels = {p: LEVELS[(seed + i) % 3] for i, p in enumerate(players)}
    state = ENGINE.new(players, {"ai_levels": levels}, seed)
    steps = 0
    while ENGINE.result(state) is None:
        steps += 1
        assert steps < 2000
        city = state["current_city"]
        view = ENGINE.view(state, None)
        assert view["city"] == {"id": city, "name": content.name(city)}
        assert not _facts_shown(view, city), "the current city's facts stay hidden"
        population = str(content.card(city)["population"])
        assert population not in json.dumps(view)
        due = ENGINE.to_act(state)
        assert due, "somebody can always act"
        if state["phase"] == "veto" and peek(seed, "timer", steps).random() < 0.15:
            player, action = ENGINE.timeout_action(state) or (None, {})
        else:
            player = due[steps % len(due)]
            action = GAME.computer.normal(state, player)
            legal = [la.action for la in ENGINE.legal(state, player)]
            assert action in legal, "the computer plays only legal moves"
        before = json.dumps(state)
        scores_before = dict(state["scores"])
        state, events = ENGINE.apply(state, player, action)
        assert json.dumps(json.loads(before)) == before
        for event in events:
            if event["type"] == "reveal":
                assert event["city"]["id"] == city
                gained = {p: event["scores"][p] - scores_before[p] for p in players}
                assert gained == event["points"]
            if event["type"] in ("placed", "board_replaced", "veto", "no_veto",
                                 "veto_window_opened", "vetoes_closed"):
                assert not _facts_shown(event, city)
                assert population not in json.dumps(event)
        _check(state, players)
    result = ENGINE.result(state)
    assert result is not None
    assert len(set(state["turns"].values())) == 1, "everyone has had the same number of turns"
    best = max(result.scores.values())
    assert result.winners == [p for p in players if result.scores[p] == best]
    if max(state["scores"].values()) < WINNING_SCORE and not state["end_triggered"]:
        assert len(state["city_pile"]) < len(players)
    return state


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_seeded_computer_games_keep_the_rules(count: int) -> None:
    players = NAMES[:count]
    finals: list[int] = []
    turns: list[int] = []
    for seed in range(GAMES_PER_COUNT):
        state = _play(players, seed * 7 + count)
        finals += list(state["scores"].values())
        turns.append(state["turns"][players[0]])
    if GAMES_PER_COUNT > 8:
        print(f"\n{count} players, {GAMES_PER_COUNT} games: mean final score "
              f"{statistics.mean(finals):.1f}, mean turns each {statistics.mean(turns):.1f}, "
              f"top {max(finals)}")


def test_the_same_seed_plays_the_same_game() -> None:
    assert moves("bigcityz", ["a", "b", "c"], 3) == moves("bigcityz", ["a", "b", "c"], 3)
    assert moves("bigcityz", ["a", "b", "c"], 3) != moves("bigcityz", ["a", "b", "c"], 4)
