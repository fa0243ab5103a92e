"""Cityscape: build a 4x4 skyline to match your secret goals."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Help, Scenario, pictures_in
from bot.core.i18n import Words
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE

_ = Words("bot.games.cityscape")
_l = _.lazy

# A benchmark or load-test game plays one round at the common table of three.
GAME = GameRecord(ENGINE, Computer(normal=ai.choose_action, levels=levels.level_action),
                  pictures_in(__name__), cog="cogs.cityscape", prefix="ch:cs",
                  help=Help(_l("build a 4×4 skyline that matches your secret goals"),
                            _l("one round of 25 blocks per player (four rounds with two)")),
                  scenario=Scenario(players=3, options={"rounds": 1}))

__all__ = ["ENGINE", "GAME"]
