"""Cities: the tile-drafting game (Steve Finn & Phil Walker-Harding), with Cityhall's own
tile and card content (data/cities/; not the publisher's components)."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Pictures, Scenario
from bot.core.engine import JSON
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE, CitiesEngine


def pictures() -> Pictures:
    from . import render

    return render


def normal(state: JSON, player: str) -> JSON:
    return ai.choose_action(ENGINE, state, player)


GAME = GameRecord(
    engine=ENGINE,
    computer=Computer(normal=normal, levels=levels.level_action),
    pictures=pictures,
    cog="cogs.cities",
    summary="draft tiles, features and buildings into your own neighbourhood",
    length="8 rounds (4 with two players)",
    prefix="ch:ct",
    scenario=Scenario(players=3),
)

__all__ = ["ENGINE", "GAME", "CitiesEngine"]
