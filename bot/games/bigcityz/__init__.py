"""Big Cityz: place city cards on the statements you think are true (or false) of them."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Pictures, Scenario
from bot.core.levels import Computer

from . import ai, levels
from .engine import ENGINE


def pictures() -> Pictures:
    from . import render

    return render


GAME = GameRecord(
    engine=ENGINE,
    computer=Computer(normal=ai.choose_action, levels=levels.level_action),
    pictures=pictures,
    cog="cogs.bigcityz",
    summary="city trivia: bet where 200 real cities belong, object to others' bets",
    length="until someone reaches 36 points",
    prefix="ch:bz",
    scenario=Scenario(players=4),
)

__all__ = ["ENGINE", "GAME"]
