"""Big Cityz: place city cards on the statements you think are true (or false) of them."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Help, Scenario, pictures_in
from bot.core.i18n import Words
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE

_ = Words("bot.games.bigcityz")
_l = _.lazy

GAME = GameRecord(ENGINE, Computer(normal=ai.choose_action, levels=levels.level_action),
                  pictures_in(__name__), cog="cogs.bigcityz", prefix="ch:bz",
                  help=Help(_l("city trivia: bet where 200 real cities belong, object to others' "
                               "bets"), _l("until someone reaches 36 points")),
                  scenario=Scenario(players=4))

__all__ = ["ENGINE", "GAME"]
