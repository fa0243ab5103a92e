"""Offline games between computer players, with every board written as a PNG."""

from __future__ import annotations

import json
from pathlib import Path

from bot.core.engine import JSON, Engine
from bot.games import GAMES, renderer

NAMES = ("ann", "bob", "cy", "dee", "eve", "fay")


def next_player(game: str, engine: Engine, state: JSON) -> str:
    """Who moves next in a game that is not over (the first of several due at once)."""
    due = engine.to_act(state)
    if not due:
        raise RuntimeError(f"{game}: nobody can act but the game is not over")
    return due[0]


def simulate(game: str, players: int, seed: int, out: Path | None = None,
             options: JSON | None = None, *, images: bool = True) -> JSON:
    """Play one seeded game to the end; returns a summary that is also a valid replay."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    names = list(NAMES[:players])
    state = engine.new(names, dict(options or {}), seed)
    draw = renderer(game) if images and out is not None else None
    written: list[str] = []

    def write(name: str, png: bytes) -> None:
        assert out is not None
        (out / name).write_bytes(png)
        written.append(name)

    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    if draw is not None:
        write("board-0000.png", draw.render_table(engine.view(state, None)))
    log: list[JSON] = []
    while engine.result(state) is None:
        player = next_player(game, engine, state)
        action = computer.normal(state, player)
        state, events = engine.apply(state, player, action)
        log.append({"player": player, **action})
        if draw is not None:
            view = engine.view(state, None)
            write(f"board-{len(log):04d}.png", draw.render_table(view))
            for name, png in draw.render_extras(view, events):
                write(f"{len(log):04d}-{name}.png", png)
    result = engine.result(state)
    assert result is not None
    summary: JSON = {
        "game": game,
        "players": names,
        "seed": seed,
        "options": dict(options or {}),
        "moves": len(log),
        "scores": result.scores,
        "winners": result.winners,
        "images": written,
        "final_view": engine.view(state, None),
        "actions": log,
    }
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
