"""The public view a click reads several times is built once per state, and a move is
never shown with the view of the state before it."""

from __future__ import annotations

from typing import Any

from bot.core import viewmemo
from bot.core.engine import JSON
from bot.games import GAMES
from bot.games.cities.views import table


class Counting:
    def __init__(self, engine: Any) -> None:
        self.engine, self.built = engine, 0

    def view(self, state: JSON, viewer: str | None) -> JSON:
        self.built += 1
        return self.engine.view(state, viewer)


def test_one_build_per_state_and_a_new_view_after_each_move() -> None:
    game = GAMES["cities"]
    engine = Counting(game.engine)
    state = game.engine.new(["ann", "bob"], {}, 11)
    first = viewmemo.public_view(engine, state)
    assert viewmemo.public_view(engine, state) is first and engine.built == 1
    seen: list[Any] = [first]
    for _ in range(12):
        player = game.engine.to_act(state)[0]
        state, _events = game.engine.apply(state, player, game.computer.normal(state, player))
        now = viewmemo.public_view(engine, state)
        # exactly what the engine shows for the new state, not the kept one
        assert now == game.engine.view(state, None)
        assert table(state) == now
        seen.append(now)
    assert engine.built == 13
    assert seen[-1] != seen[0]


def test_only_the_last_few_views_are_kept() -> None:
    game = GAMES["cityscape"]
    engine = Counting(game.engine)
    states = [game.engine.new(["ann", "bob"], {}, seed) for seed in range(viewmemo.KEPT + 5)]
    for state in states:
        viewmemo.public_view(engine, state)
    assert len(viewmemo._views) <= viewmemo.KEPT
    viewmemo.public_view(engine, states[0])  # long gone: built again
    assert engine.built == len(states) + 1
