"""/replay <game> and the replay viewer of a finished game (issue 28; bot/ui/replay.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.i18n import Words
from bot.ui.deferral import answering_in_time
from bot.ui.replay import DYNAMIC_ITEMS, show

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")


class Replays(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Step through a finished game, move by move")
    @app_commands.guild_only()
    @app_commands.describe(game="The game's number, as /history shows it")
    async def replay(self, interaction: discord.Interaction,
                     game: app_commands.Range[int, 1, 2**53 - 1]) -> None:
        async with answering_in_time(interaction):
            await show(interaction, game, 0, edit=False)


async def setup(bot: CityhallBot) -> None:
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    bot.dynamic_items.extend(DYNAMIC_ITEMS)
    await bot.add_cog(Replays(bot))
