"""Many seeded computer games run to the end with the invariants of the rulebook held."""

from __future__ import annotations

import json
import os

import pytest

from bot.games.cityscape import ENGINE, GAME
from bot.games.cityscape.skyline import LINES, line_points
from tests.computer_games import moves

GAMES_PER_COUNT = int(os.environ.get("CITYSCAPE_GAMES", "40"))
BATCH = 10
"""Seeds per test: a failure names its batch, and no single test runs long."""


def _play(players: list[str], seed: int) -> None:
    state = ENGINE.new(players, {}, seed)
    placed_this_round = 0
    goals_by_round: dict[int, dict[str, list[int]]] = {}
    while ENGINE.result(state) is None:
        public = json.dumps(ENGINE.view(state, None))
        # secret goals never in the public view before scoring
        for side, codes in state["goals"].items():
            assert '"my_goals"' not in public
            goals_by_round.setdefault(state["round"], {})[side] = codes
        due = ENGINE.to_act(state)
        assert due, "somebody must always be able to act"
        player = due[0]
        action = GAME.computer.normal(state, player)
        legal = ENGINE.legal(state, player)
        assert legal, "the player due must have a legal move"
        round_before = state["round"]
        state, events = ENGINE.apply(state, player, action)
        if action["type"] == "build":
            placed_this_round += 1
            assert sum(state["blocks_left"].values()) == 25 - state["placed"] or state["placed"] == 0
        for event in events:
            if event["type"] == "round_scored":
                assert placed_this_round == 25, "a round is 25 blocks"
                placed_this_round = 0
                assert event["round"] == round_before
                # every side's points are the sum of its line scores, recomputed here
                for side, result in event["sides"].items():
                    assert result["codes"] == goals_by_round[round_before][side]
                    for index, line in enumerate(result["lines"]):
                        heights = line["heights"]
                        assert line["lots"] == list(LINES[side][index])
                        assert line["points"] == line_points(line["code"], heights,
                                                             event["tallest"])
                    assert result["points"] == sum(line["points"] for line in result["lines"])
                totals = {p: 0 for p in players}
                for past in state["round_results"]:
                    for p, points in past["points"].items():
                        totals[p] += points
                assert totals == event["totals"]
    result = ENGINE.result(state)
    assert result is not None
    assert len(state["round_results"]) == state["rounds"]
    best = max(result.scores.values())
    assert result.winners == [p for p in players if result.scores[p] == best]


# The first batch of each player count in `make test`; all 40 games with `make test-long`.
@pytest.mark.parametrize("first_seed", [
    pytest.param(first, marks=[pytest.mark.long] if first else [])
    for first in range(0, GAMES_PER_COUNT, BATCH)])
@pytest.mark.parametrize("count", [2, 3, 4])
def test_seeded_computer_games_end_with_invariants(count: int, first_seed: int) -> None:
    players = ["ann", "bob", "cy", "dee"][:count]
    for seed in range(first_seed, min(first_seed + BATCH, GAMES_PER_COUNT)):
        _play(players, seed)


def test_same_seed_same_game() -> None:
    def run(seed: int) -> list[dict]:
        return moves("cityscape", ["a", "b", "c"], seed, {"rounds": 1})

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_computer_player_scores_better_than_blind_building() -> None:
    """The computer builds toward its goals: its own sides beat the same goals on a board
    built without looking at them (lots filled in order)."""
    own, blind = 0, 0
    for seed in range(20):
        state = ENGINE.new(["a", "b"], {"rounds": 1}, seed)
        while state["phase"] == "goals":
            p = ENGINE.to_act(state)[0]
            state, _ = ENGINE.apply(state, p, GAME.computer.normal(state, p))
        goals = dict(state["goals"])
        played = state
        while ENGINE.result(played) is None:
            p = ENGINE.to_act(played)[0]
            played, _ = ENGINE.apply(played, p, GAME.computer.normal(played, p))
        own += played["scores"]["a"] + played["scores"]["b"]
        naive = state
        order = [(h, lot) for h in (1, 2, 3, 4, 5) for lot in ("A1", "B2", "C3", "D4", "A4")]
        for h, lot in order:
            p = ENGINE.to_act(naive)[0]
            naive, _ = ENGINE.apply(naive, p, {"type": "build", "height": h, "lot": lot})
        blind += naive["scores"]["a"] + naive["scores"]["b"]
        assert naive["round_results"][0]["sides"]["S"]["codes"] == goals["S"]
    assert own > blind * 1.3
