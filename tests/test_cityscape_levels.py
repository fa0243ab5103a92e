"""Cityscape's hard player: its play-outs build as normal would, and a search stays
within its move budget (what keeps a hard move near a second on one core, by count)."""

from __future__ import annotations

import pytest

from bot.core.engine import JSON
from bot.core.levels import HARD, Budget, decide
from bot.games import GAMES
from bot.games.cityscape import ai, levels
from bot.games.cityscape.skyline import LOTS


def positions(players: int, seed: int, every: int) -> list[tuple[JSON, str]]:
    """Every ``every``-th building position (and every goal choice) of a normal game."""
    return levels.sample_positions(players, seed, every, {"rounds": 2})


def normal_value(state: JSON, player: str, height: int, lot: str) -> float:
    """Normal's own value of a build (``ai.choose_build``'s score without its tie-break)."""
    heights = {name: sum(blocks) for name, blocks in state["lots"].items()}
    heights[lot] += height
    tallest = max(heights.values())
    own = sum(ai._side_value(heights, side, codes, tallest)
              for side, codes in state["goals"].items() if state["sides"][side] == player)
    theirs = sum(ai._guess_value(heights, side, tallest)
                 for side, owner in state["sides"].items() if owner != player)
    return own - ai.OPPONENT_WEIGHT * theirs


@pytest.mark.parametrize("players", [2, 4])
def test_the_play_outs_value_every_build_exactly_as_normal_does(players: int) -> None:
    checked = 0
    for state, player in positions(players, 31, 5):
        if state["phase"] != "building":
            continue
        ranked = levels.Round(state).ranked(player)
        open_heights = [h for h in range(1, 6) if state["blocks_left"][str(h)]]
        assert len(ranked) == 16 * len(open_heights)
        for value, height, lot in ranked:
            assert value == pytest.approx(normal_value(state, player, height, LOTS[lot]))
        checked += 1
    assert checked > 5


def test_a_forgotten_line_scores_nothing_for_easy() -> None:
    state, player = next((s, p) for s, p in positions(2, 8, 7)
                         if s["phase"] == "building" and s["placed"] > 10)
    side = next(s for s, owner in state["sides"].items() if owner == player)
    whole = {(h, lot): v for v, h, lot in levels.Round(state).ranked(player)}
    changed = 0
    for line in range(4):
        lapse = {(h, lot): v for v, h, lot in
                 levels.Round(state).ranked(player, forget=side, forget_line=line)}
        codes = list(state["goals"][side])
        codes[line] = 0
        forgotten = {**state, "goals": {**state["goals"], side: codes}}
        assert lapse == {(h, lot): v for v, h, lot in levels.Round(forgotten).ranked(player)}
        changed += lapse != whole
    assert changed > 0


@pytest.mark.parametrize("players", [2, 4])
def test_a_hard_search_builds_at_most_its_budget_of_blocks(
        players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Early in a round a play-out builds up to 25 blocks, late only a few: the number of
    play-outs shrinks with the blocks left, so no decision, goals included, plays out more
    than about ``PLY_BUDGET`` blocks (before: up to 1,400 for a first build)."""
    built = [0]
    build = levels.Round.build

    def counted(self: levels.Round, height: int, lot: int) -> None:
        built[0] += 1
        build(self, height, lot)

    monkeypatch.setattr(levels.Round, "build", counted)
    computer = GAMES["cityscape"].computer
    most = {"goals": 0, "building": 0}
    for state, player in positions(players, 12, 6):
        built[0] = 0
        decide(computer, state, player, HARD, Budget(iterations=0, seconds=None))
        most[state["phase"]] = max(most[state["phase"]], built[0])
    assert 0 < most["goals"] <= levels.PLY_BUDGET
    # A build's play-outs also place the candidate block itself: one more a play-out.
    assert 0 < most["building"] <= levels.PLY_BUDGET + levels.BUILD_PLAYOUTS
    # Late in a round the full count is kept: the search there is cheap.
    assert levels.playout_count(3, levels.BUILD_PLAYOUTS) == levels.BUILD_PLAYOUTS
    assert levels.playout_count(24, levels.BUILD_PLAYOUTS) < levels.BUILD_PLAYOUTS
