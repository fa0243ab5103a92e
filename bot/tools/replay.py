"""The replay runner: one JSON game description in, one JSON outcome out.

It drives an engine exactly as the bot does: an illegal action is listed in ``rejected``
with the sentence a player would see, and the game goes on without it.
"""

from __future__ import annotations

from typing import Any

from bot.core.engine import JSON, IllegalAction
from bot.core.replaying import Step, advance, start
from bot.games import GAMES


class ReplayError(Exception):
    """The replay file itself is unusable (not a per-action refusal)."""


def replay(spec: JSON) -> JSON:
    if not isinstance(spec, dict):
        raise ReplayError("A replay is one JSON object.")
    game = spec.get("game")
    if game not in GAMES:
        raise ReplayError(f"Unknown game {game!r}; known: {', '.join(sorted(GAMES))}.")
    engine = GAMES[game].engine
    players = spec.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ReplayError("players must be a list of names.")
    seed = spec.get("seed", 0)
    if not isinstance(seed, int):
        raise ReplayError("seed must be an integer.")
    options = spec.get("options") or {}
    actions = spec.get("actions") or []
    if not isinstance(options, dict) or not isinstance(actions, list):
        raise ReplayError("options must be an object and actions a list.")
    try:
        step = Step(0, None, None, start(engine, players, options, seed))
    except IllegalAction as exc:
        raise ReplayError(str(exc)) from None
    rejected: list[JSON] = []
    for index, entry in enumerate(actions):
        if not isinstance(entry, dict):
            rejected.append({"index": index, "error": "Each action is a JSON object."})
            continue
        action: dict[str, Any] = {k: v for k, v in entry.items() if k != "player"}
        player = entry.get("player")
        if player is not None and not isinstance(player, str):
            rejected.append({"index": index, "error": "player must be a name."})
            continue
        step = advance(engine, step, player, action)
        if step.error is not None:
            rejected.append({"index": index, "error": step.error})
    state = step.state
    result = engine.result(state)
    view = engine.view(state, None)
    return {
        "game": game,
        "over": result is not None,
        "scores": result.scores if result else dict(view.get("scores", {})),
        "winners": result.winners if result else [],
        "to_act": engine.to_act(state),
        "rejected": rejected,
        "state": view,
    }
