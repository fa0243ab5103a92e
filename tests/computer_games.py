"""Seeded games the computer plays against itself, for tests that want real states: every
state, the move that led to it and the events it reported."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.games import GAMES

JSON = dict[str, Any]


@dataclass
class Step:
    """One move of a played game: the move (None for the setup), its events, the state after."""

    action: JSON | None
    events: list[JSON]
    state: JSON


def played(game: str, players: list[str], seed: int, options: JSON | None = None) -> list[Step]:
    """Every step of a seeded computer game, the setup first, the end last: whoever is due
    first plays the computer's move."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    state = engine.new(players, options or {}, seed)
    steps = [Step(None, [], state)]
    while engine.result(state) is None:
        due = engine.to_act(state)
        if due:
            player: str | None = due[0]
            action = computer.normal(state, due[0])
        else:  # Big Cityz's veto window, which only the timer closes
            player, action = None, {"type": "close_vetoes"}
        state, events = engine.apply(state, player, action)
        steps.append(Step(action, list(events), state))
    return steps


def states(game: str, players: list[str], seed: int, options: JSON | None = None) -> list[JSON]:
    """Every state of a seeded computer game, the first (setup) to the last (over)."""
    return [step.state for step in played(game, players, seed, options)]


def moves(game: str, players: list[str], seed: int, options: JSON | None = None) -> list[JSON]:
    """The moves of a seeded computer game, in order."""
    return [step.action for step in played(game, players, seed, options)
            if step.action is not None]


def mixed_move(engine: Any, computer: Any, state: JSON, player: str,
               rng: random.Random, share: float) -> JSON:
    """With chance ``share`` a random legal move of a random kind (so that kinds the computer
    seldom or never chooses come up), else the computer's normal move."""
    if rng.random() < share:
        legal = [la.action for la in engine.legal(state, player)]
        kind = rng.choice(sorted({a["type"] for a in legal}))
        return rng.choice([a for a in legal if a["type"] == kind])
    action: JSON = computer.normal(state, player)
    return action
