"""The games Cityhall hosts, by their command name."""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from bot.core.engine import JSON, Engine, GameRecord
from bot.core.levels import Budget, decide

from .bigcity import ENGINE as BIGCITY
from .bigcityz import ENGINE as BIGCITYZ
from .cities import ENGINE as CITIES
from .cityscape import ENGINE as CITYSCAPE

GAMES: dict[str, Engine] = {
    CITYSCAPE.name: CITYSCAPE,
    BIGCITYZ.name: BIGCITYZ,
    BIGCITY.name: BIGCITY,
    CITIES.name: CITIES,
}

# One registration record per game, in the order the bot loads them.
RECORDS: tuple[GameRecord, ...] = tuple(
    GameRecord(engine=engine, renderer=f"bot.games.{name}.render", cog=f"cogs.{name}")
    for name, engine in GAMES.items()
)


def get(name: str) -> Engine:
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"Unknown game {name!r}; Cityhall hosts {known}.") from None


def computer_move(game: str, state: JSON, player: str, level: str, budget: Budget) -> JSON:
    """``player``'s computer move at ``level``, by game name: what a render worker runs for
    a hard player (``RenderPool.think``), which gets names and JSON, not engine objects."""
    return decide(get(game), state, player, level, budget)


class Renderer(Protocol):
    """A game's pictures: pure functions from a view to PNG bytes."""

    def render_table(self, view: JSON) -> bytes: ...

    def render_extras(self, view: JSON, events: list[JSON]) -> list[tuple[str, bytes]]:
        """Pictures some events deserve on their own (a round's scoring), named."""
        ...


def renderer(name: str) -> Renderer:
    module = importlib.import_module(f"bot.games.{name}.render")
    return cast(Renderer, module)
