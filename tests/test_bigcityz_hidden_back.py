"""A computer player never sees the back of the card in play.

What it does not know of the city it guesses from the deck's statistics, and those are
counted over the other 199 cards: a statistic that counted the card in play would let its
hidden back sway the guess (issue 26: with all 200 counted, flipping one fact the hard
player did not know changed its objection in seed 0). Each test flips a fact of the card in
play that the deciding player does not know, as if the card had been printed the other way,
and expects the same beliefs and the same move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from bot.core.levels import Budget, decide
from bot.games.bigcityz import ENGINE, GAME, ai, board, content, levels, playout

JSON = dict
Flip = Callable[[str, str], None]


def _clear_statistics() -> None:
    for cached in (content._true_counts, playout.truths, playout.shares,
                   levels._pair_counts, levels._pairs):
        cached.cache_clear()


@pytest.fixture
def flip(monkeypatch: pytest.MonkeyPatch) -> Iterator[Flip]:
    """``flip(city, statement)`` prints that fact of the card the other way round. The
    boards' point squares stay as printed (they come from the deck's statistics too, and
    a card's back cannot change what is printed on a board)."""
    printed = {sid: board.square_values(sid) for sid in content.statement_ids()}
    monkeypatch.setattr(board, "square_values", printed.__getitem__)

    def flip_one(city: str, statement: str) -> None:
        facts = content._by_id()[city]["statements"]
        monkeypatch.setitem(facts, statement, not facts[statement])
        _clear_statistics()

    yield flip_one
    monkeypatch.undo()
    _clear_statistics()


def _knows(state: JSON, player: str, level: str, statement: str) -> bool:
    city = state["current_city"]
    if level == "hard":
        return levels.hard_knows(state, player, city, statement)
    return ai.knows(state, player, city, statement)


def _beliefs(state: JSON, player: str, level: str) -> list[float]:
    if level == "hard":
        return levels.hard_beliefs(state, player)
    return [ai.belief(state, player, state["current_city"], sid)
            for sid in content.statement_ids()]


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_flipping_an_unknown_fact_of_the_city_in_play_moves_no_belief(
        level: str, flip: Flip) -> None:
    checked = 0
    for seed in range(6):
        state = ENGINE.new(["ann", "bob"], {"ai_level": "easy"}, seed)
        city = state["current_city"]
        player = ENGINE.to_act(state)[0]
        before = _beliefs(state, player, level)
        for statement in content.statement_ids():
            if _knows(state, player, level, statement):
                continue
            flip(city, statement)
            assert _beliefs(state, player, level) == before, (seed, city, statement)
            flip(city, statement)  # and back
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("level", "seeds"), [("easy", 2), ("normal", 2), ("hard", 1)])
def test_no_move_depends_on_the_hidden_back_of_the_card_in_play(
        level: str, seeds: int, flip: Flip) -> None:
    """Whole games (placements, replacements and objections), every decision, every fact
    the decider does not know flipped in turn. Seed 0 holds the objection that changed."""
    budget = Budget(iterations=0)  # the game's own: the searches as played
    checked = 0
    for seed in range(seeds):
        state = ENGINE.new(["ann", "bob"], {"ai_level": "easy"}, seed)
        while ENGINE.result(state) is None:
            player = ENGINE.to_act(state)[0]
            move = decide(GAME.computer, state, player, level, budget)
            city = state["current_city"]
            for statement in content.statement_ids():
                if _knows(state, player, level, statement):
                    continue
                flip(city, statement)
                assert decide(GAME.computer, state, player, level, budget) == move, \
                    (seed, state["phase"], city, statement)
                flip(city, statement)
                checked += 1
            state, _ = ENGINE.apply(state, player, move)
    assert checked >= 50
