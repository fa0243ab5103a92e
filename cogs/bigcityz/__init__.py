"""Big Cityz in Discord: /bigcityz new and rules, placing a city, objections, reveals.

The table shows the city to place by name only; its facts stay in the engine until the
reveal. The player on turn presses **Place** and chooses, privately, among exactly the legal
squares (a menu) or Replace / There's no free square (buttons). Then the table offers
**Objection** and **No objection** to everyone who may still object, with the closing time
shown live; the reveal follows as a picture of the city card's back.

The package is laid out like ``cogs.bigcity`` and ``cogs.cities``: ``words`` (the rules, a
placement, the chooser's squares, a reveal), ``adapter`` (the table), ``components`` (the
DynamicItems, with the chooser whose ids they carry) and ``commands`` (slash commands, and
``/settings defaults bigcityz`` with the same options); the chooser is a private screen of
the shared kit ``bot/ui/screens.py``. discord.py loads it as the extension
``cogs.bigcityz`` through ``setup``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.games.bigcityz import ENGINE

from .adapter import BigCityzAdapter
from .commands import KNOWLEDGE_CHOICES, BigCityz, defaults, described, new_options
from .components import (
    DYNAMIC_ITEMS,
    ActionButton,
    PlaceButton,
    PlaceSelect,
    VetoButton,
    card_stamp,
    chooser,
)
from .words import FOOTER, KNOWLEDGE_WORDS, RULES, placement_text, target_option

if TYPE_CHECKING:
    from bot.app import CityhallBot

# Names tests and other modules import from ``cogs.bigcityz``.
__all__ = ["DYNAMIC_ITEMS", "FOOTER", "KNOWLEDGE_CHOICES", "KNOWLEDGE_WORDS", "RULES",
           "ActionButton", "BigCityz", "BigCityzAdapter", "PlaceButton", "PlaceSelect",
           "VetoButton", "card_stamp", "chooser", "defaults", "described", "new_options",
           "placement_text", "setup", "target_option"]


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(BigCityzAdapter(ENGINE), DYNAMIC_ITEMS, BigCityz, defaults)
