"""The catalogue: the games Cityhall hosts, by their command name.

Every list of games reads this one catalogue: the bot (engines, cogs), the render workers
(pictures, computer players), ``/help``, ``/settings defaults``, the tools and the tests.
Adding a game is one line in ``CATALOGUE`` (docs/adding-a-game.md). ``EXTRA_GAMES`` (module
paths, comma-separated) adds games kept elsewhere, such as the tests' noughts and crosses:
the bot and its render workers read the same environment, so both see the same games.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from bot.core.catalogue import GameRecord, Pictures
from bot.core.engine import JSON, Engine
from bot.core.levels import Budget, decide
from bot.render.pool import RenderPool

# Each module exposes ``GAME``, a GameRecord; the order is the bot's (help, /game list).
CATALOGUE = (
    "bot.games.cityscape",
    "bot.games.bigcityz",
    "bot.games.bigcity",
    "bot.games.cities",
)


def _records() -> dict[str, GameRecord]:
    extra = [m.strip() for m in os.environ.get("EXTRA_GAMES", "").split(",") if m.strip()]
    records: dict[str, GameRecord] = {}
    for module in (*CATALOGUE, *extra):
        record = importlib.import_module(module).GAME
        if not isinstance(record, GameRecord):
            raise TypeError(f"{module}.GAME is not a GameRecord")
        if record.name in records:
            raise ValueError(f"two games are called {record.name!r} ({module})")
        records[record.name] = record
    return records


GAMES: dict[str, GameRecord] = _records()
ENGINES: dict[str, Engine] = {name: record.engine for name, record in GAMES.items()}


def get(name: str) -> GameRecord:
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"Unknown game {name!r}; Cityhall hosts {known}.") from None


def computer_move(game: str, state: JSON, player: str, level: str, budget: Budget) -> JSON:
    """``player``'s computer move at ``level``, by game name: what a render worker runs for
    a hard player (``RenderPool.think``), which gets names and JSON, not engine objects."""
    return decide(get(game).computer, state, player, level, budget)


def renderer(name: str) -> Pictures:
    """A game's pictures (imports its renderer, and Pillow, on first use)."""
    return get(name).pictures()


def picture_modules() -> dict[str, str]:
    """Each game's pictures module by game name: what a render worker imports and calls
    (named, not imported: the bot's process draws nothing)."""
    return {name: record.pictures.module for name, record in GAMES.items()}


# Pictures that belong to no one game, by the name the pool is asked for them with: a
# player's profile (/profile).
SHARED_PICTURES = {"profile": "bot.render.profile"}


def render_pool(workers: int | None = None, **options: Any) -> RenderPool:
    """A render pool for the catalogue's games (and ``SHARED_PICTURES``), whose workers also
    think for hard computer players (:func:`computer_move`). ``options``: RenderPool's own
    (``max_jobs``, ...); ``modules`` adds pictures of games outside the catalogue (tests)."""
    modules = {**SHARED_PICTURES, **picture_modules(), **options.pop("modules", {})}
    return RenderPool(workers, modules=modules, preload=[__name__],
                      thinker=(__name__, "computer_move"), **options)
