"""Big City: the city-building game for 2 to 5 players (rules in docs/bigcity.md)."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Help, Scenario, pictures_in
from bot.core.i18n import Words
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE, BigCityEngine

_ = Words("bot.games.bigcity")
_l = _.lazy

GAME = GameRecord(ENGINE, Computer(normal=ai.choose, levels=levels.level_action),
                  pictures_in(__name__), cog="cogs.bigcity", prefix="ch:bc",
                  help=Help(_l("build neighbourhoods, buildings and a streetcar line on a "
                               "shared city"), _l("until the city is built")),
                  scenario=Scenario(players=3))

__all__ = ["ENGINE", "GAME", "BigCityEngine"]
