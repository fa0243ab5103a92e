"""Cities: the tile-drafting game (Steve Finn & Phil Walker-Harding), with Cityhall's own
tile and card content (data/cities/; not the publisher's components)."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Help, Scenario, pictures_in
from bot.core.engine import JSON
from bot.core.i18n import Words
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE, CitiesEngine

_ = Words("bot.games.cities")
_l = _.lazy


def normal(state: JSON, player: str) -> JSON:
    return ai.choose_action(ENGINE, state, player)


GAME = GameRecord(ENGINE, Computer(normal=normal, levels=levels.level_action),
                  pictures_in(__name__), cog="cogs.cities", prefix="ch:ct",
                  help=Help(_l("draft tiles, features and buildings into your own neighbourhood"),
                            _l("8 rounds (4 with two players)")),
                  scenario=Scenario(players=3))

__all__ = ["ENGINE", "GAME", "CitiesEngine"]
