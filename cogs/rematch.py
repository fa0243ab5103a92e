"""The Rematch button of a finished table (issue 28)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import CityhallBot


class Rematch(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot


async def setup(bot: CityhallBot) -> None:
    await bot.add_cog(Rematch(bot))
