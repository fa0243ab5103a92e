"""The Rematch button of a finished table (issue 28): registered here so that it answers
after a restart (bot/ui/rematch.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

from bot.ui.rematch import RematchButton

if TYPE_CHECKING:
    from bot.app import CityhallBot


class Rematch(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot


async def setup(bot: CityhallBot) -> None:
    bot.add_dynamic_items(RematchButton)
    bot.dynamic_items.append(RematchButton)
    await bot.add_cog(Rematch(bot))
