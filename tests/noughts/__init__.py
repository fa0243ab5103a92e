"""Noughts and crosses: a test-only game that joins Cityhall the way any game does, through
its GameRecord (docs/adding-a-game.md). ``EXTRA_GAMES=tests.noughts`` adds it to the
catalogue; no shared file names it."""

from __future__ import annotations

from bot.core.catalogue import GameRecord, Help, Scenario, pictures_in
from bot.core.levels import Computer

from . import ai
from .engine import ENGINE

GAME = GameRecord(ENGINE, Computer(normal=ai.choose), pictures_in(__name__),
                  cog="tests.noughts.cog", prefix="ch:nx",
                  help=Help("three in a row on a 3×3 grid", "at most nine moves"),
                  scenario=Scenario(players=2))
