"""Cities' hard player looks past its own turn: the others' turns and its own next one."""

from __future__ import annotations

import pytest

from bot.core.engine import JSON
from bot.games import GAMES
from bot.games.cities import levels
from tests.test_levels import advance

ENGINE = GAMES["cities"].engine
GAME = GAMES["cities"]


def takes(state: JSON, player: str) -> int:
    return sum(1 for row in state["rows"].values() for slot in row
               if slot.get("taken_by") == player)


def at_take(state: JSON) -> bool:
    return state["phase"] != "start_tiles" and state["pending"] is None


@pytest.mark.parametrize("players", [2, 4])
def test_the_look_ahead_plays_the_others_turns_and_its_own_next_one(players: int) -> None:
    names = ["ann", "bob", "cy", "dee"][:players]
    state = advance(ENGINE, ENGINE.new(names, {}, 11), 12, at_take)
    me = ENGINE.to_act(state)[0]
    before = {p: takes(state, p) for p in names}
    # As hard plays out a candidate: the take and its placements, then on from there.
    taken = levels._finish_turn(ENGINE.apply(state, me, GAME.computer.normal(state, me))[0], me)
    after = levels._play_on(taken, me, 1)
    # It stops where it would choose again: its own take, after the others' turns, its own
    # next turn and the others' once more.
    assert ENGINE.to_act(after) == [me] and after["pending"] is None
    assert after["round"] == state["round"]
    gained = {p: takes(after, p) - before[p] for p in names}
    assert gained == {p: 2 for p in names}
    # Nobody's neighbourhood is looked at but through normal's own valuation: the margin
    # is its worth against the best other's.
    others = max(levels._worth(after, p) for p in names if p != me)
    assert levels._margin(after, me) == pytest.approx(levels._worth(after, me) - others)
