"""Cities' hard player shares valuations within a search (``ai.memo``) and plays its
play-outs on states it owns: pure speed-ups, so every value and every move must be what
it was without them. A memo that returned a stale value (a key missing something the
value depends on) would show here as a value or a move that differs."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import pytest

from bot.core.engine import JSON
from bot.core.levels import Budget
from bot.games import GAMES
from bot.games.cities import ai, levels
from bot.games.cities import memo as memos
from bot.games.cities.content import COLOURS
from bot.games.cities.engine import ROWS, copy_json, workers_left
from tests.test_levels import advance

ENGINE = GAMES["cities"].engine
GAME = GAMES["cities"]
NAMES = ["ann", "bob", "cy", "dee"]


def positions(players: int, seed: int, every: int) -> Iterator[JSON]:
    """Every ``every``-th state of a normal-against-normal game, placements included."""
    state = ENGINE.new(NAMES[:players], {}, seed)
    move = 0
    while ENGINE.result(state) is None:
        if state["phase"] == "play" and move % every == 0:
            yield state
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
        move += 1


def judgement(state: JSON, player: str) -> JSON:
    """Everything normal's valuation says of ``player``'s position, made fresh."""
    seen: JSON = {"worth": ai.Mind(state, player).worth()}
    if player in ENGINE.to_act(state):
        seen["move"] = GAME.computer.normal(state, player)
    rows = [row for row in ROWS if workers_left(state, player, row) > 0]
    seen["slots"] = {row: ai.Mind(state, player).slot_worths(row) for row in rows}
    mind = ai.Mind(state, player)
    # The runs of every length, shortest last: a memo keeps the longest and cuts it.
    seen["runs"] = [mind.colour_runs(dict.fromkeys(COLOURS, n)) for n in (4, 1, 3, 2)]
    tiles = [slot["items"][0] for slot in state["rows"]["tiles"] if slot["items"]]
    if not mind.tile_edges():  # full: no room for a tile
        tiles = []
    seen["tiles"] = [ai.Mind(state, player).best_tile(t, keep) for t in tiles for keep in (2, 10)]
    features = [f for slot in state["rows"]["features"] for f in slot["items"]]
    seen["features"] = [ai.Mind(state, player).next_feature(features[i:]) for i in range(len(features))]
    pieces = [c for slot in state["rows"]["pieces"] for c in slot["items"]]
    seen["pieces"] = [ai.Mind(state, player).next_piece(pieces[i:]) for i in range(len(pieces))]
    return seen


@pytest.mark.parametrize(("players", "seed"), [(4, 31), (3, 32), (2, 33)])
def test_shared_valuations_are_those_made_afresh(players: int, seed: int) -> None:
    # One memo for a whole game's positions and every player: far more sharing than a
    # search has, so a key that misses anything a value depends on gets caught.
    with ai.memo():
        shared = [(state, p, judgement(state, p)) for state in positions(players, seed, 11)
                  for p in state["players"]]
    assert len(shared) > 20
    for state, player, seen in shared:
        assert judgement(state, player) == seen  # exact: floats compared bit for bit


def test_a_memo_lasts_one_decision() -> None:
    state = advance(ENGINE, ENGINE.new(NAMES, {}, 41), 30, lambda s: s["pending"] is None)
    me = ENGINE.to_act(state)[0]
    levels.level_action(state, me, "hard", Budget(iterations=8))
    assert memos._MEMO.get() is None
    with ai.memo():
        outer = memos._MEMO.get()
        with ai.memo():  # a nested decision shares the outer one's
            assert memos._MEMO.get() is outer
        assert memos._MEMO.get() is outer
    assert memos._MEMO.get() is None


def test_the_memo_starts_afresh_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memos, "MEMO_LIMIT", 3)
    states = list(positions(4, 42, 5))[:12]
    with ai.memo():
        for state in states:
            if state["pending"] is None:
                for p in state["players"]:
                    ai.Mind(state, p).choose_take()
        memo = memos._MEMO.get()
        assert memo is not None
        assert len(memo.known) <= 3 and len(memo.hoods) <= 3


@pytest.mark.parametrize(("players", "seed", "moves"), [(4, 51, 20), (4, 52, 60), (2, 53, 30)])
def test_hard_takes_the_same_space_without_the_memo(players: int, seed: int, moves: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    state = advance(ENGINE, ENGINE.new(NAMES[:players], {}, seed), moves,
                    lambda s: s["pending"] is None)
    me = ENGINE.to_act(state)[0]
    budget = Budget(iterations=24)
    before = copy_json(state)
    with_memo = levels.level_action(state, me, "hard", budget)
    assert state == before  # the play-outs play on copies of their own
    monkeypatch.setattr(ai, "memo", contextlib.nullcontext)
    assert levels.level_action(state, me, "hard", budget) == with_memo


def test_playing_on_leaves_the_given_state_alone() -> None:
    state = advance(ENGINE, ENGINE.new(NAMES, {}, 61), 25, lambda s: s["pending"] is None)
    me = ENGINE.to_act(state)[0]
    taken, _ = ENGINE.apply(state, me, GAME.computer.normal(state, me))
    before = copy_json(taken)
    finished = levels._finish_turn(taken, me)
    assert taken == before
    after = levels._play_on(finished, me, 1)
    assert finished["pending"] is None and after is not finished
    # Owned: the same moves, made on the state itself.
    again = levels._play_on(levels._finish_turn(copy_json(taken), me, owned=True), me, 1, owned=True)
    assert again == after


def test_in_place_moves_are_the_engines() -> None:
    rng = random.Random(7)
    for state in positions(4, 71, 7):
        player = ENGINE.to_act(state)[0]
        action = GAME.computer.normal(state, player) if rng.random() < 0.5 else \
            rng.choice(ENGINE.legal(state, player)).action
        expected, _ = ENGINE.apply(state, player, action)
        assert levels._step(copy_json(state), player, action) == expected
