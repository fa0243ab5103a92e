"""Noughts and crosses: a test-only game that joins Cityhall the way any game does, through
its GameRecord (docs/adding-a-game.md). ``EXTRA_GAMES=tests.noughts`` adds it to the
catalogue; no shared file names it."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Pictures, Scenario
from bot.core.levels import Computer

from . import ai
from .engine import ENGINE


def pictures() -> Pictures:
    from . import render

    return render


GAME = GameRecord(
    engine=ENGINE,
    computer=Computer(normal=ai.choose),
    pictures=pictures,
    cog="tests.noughts.cog",
    summary="three in a row on a 3×3 grid",
    length="at most nine moves",
    prefix="ch:nx",
    scenario=Scenario(players=2),
)
