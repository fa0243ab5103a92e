"""Cityscape: build a 4x4 skyline to match your secret goals."""

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
    cog="cogs.cityscape",
    summary="build a 4×4 skyline that matches your secret goals",
    length="one round of 25 blocks per player (four rounds with two)",
    prefix="ch:cs",
    # One round keeps a benchmark or load-test game short; 3 players is the common table.
    scenario=Scenario(players=3, options={"rounds": 1}),
)

__all__ = ["ENGINE", "GAME"]
