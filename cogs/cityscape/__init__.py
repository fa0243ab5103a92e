"""Cityscape in Discord: /cityscape new and rules, the building buttons and secret goals.

Table message: block heights (with blocks left) and "My goals". A height opens, for the
player whose turn it is, a private 4x4 lot picker laid out like the board (north at the
top). Goals are chosen privately: four menus, one per line, then Confirm; the choices so far
ride in the components' custom ids, so a half-made choice survives a restart too.

The package is laid out like ``cogs.bigcity`` and ``cogs.cities``: ``words`` (the rules,
builds, lines, a round's scoring), ``screens`` (a player's own goals), ``adapter`` (the
table), ``components`` (the DynamicItems, with the pickers whose ids they carry) and
``commands`` (slash commands, and ``/settings defaults cityscape`` with the same options);
private replies go through the shared kit ``bot/ui/screens.py``. Engine data (views, events,
moves) is read only through the typed views of ``bot.games.cityscape.views``
(``scripts/check_cog_reads.py``). discord.py loads it as the extension ``cogs.cityscape``
through ``setup``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.games.cityscape import ENGINE

from .adapter import CityscapeAdapter
from .commands import Cityscape, defaults, described
from .components import DYNAMIC_ITEMS, GoalConfirm, GoalsButton, GoalSelect, HeightButton, LotButton
from .words import RULES

if TYPE_CHECKING:
    from bot.app import CityhallBot

# Names tests and other modules import from ``cogs.cityscape``.
__all__ = ["DYNAMIC_ITEMS", "RULES", "Cityscape", "CityscapeAdapter", "GoalConfirm", "GoalSelect",
           "GoalsButton", "HeightButton", "LotButton", "defaults", "described", "setup"]


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(CityscapeAdapter(ENGINE), DYNAMIC_ITEMS, Cityscape, defaults)
