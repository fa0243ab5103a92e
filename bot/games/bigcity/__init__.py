"""Big City: the city-building game for 2 to 5 players (rules in docs/bigcity.md)."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Pictures, Scenario
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE, BigCityEngine


def pictures() -> Pictures:
    from . import render

    return render


GAME = GameRecord(
    engine=ENGINE,
    computer=Computer(normal=ai.choose, levels=levels.level_action),
    pictures=pictures,
    cog="cogs.bigcity",
    summary="build neighbourhoods, buildings and a streetcar line on a shared city",
    length="until the city is built",
    prefix="ch:bc",
    scenario=Scenario(players=3),
)

__all__ = ["ENGINE", "GAME", "BigCityEngine"]
