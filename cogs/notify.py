"""/notify: how each player is told it is their move, chosen by the player for themself and
the same in every server: pinged in the game's channel (the default), a direct message, or
not at all (the table still shows whose turn it is). Kept in the database
(bot/ui/pings.py), so it outlasts restarts. The answer is for the asker only: their choice
now, and what it means.

This cog also registers the tables' How to play button (bot/ui/howto.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.i18n import Words
from bot.ui.pings import CHANNEL, DIRECT, OFF
from bot.ui.replies import tell

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")

# The command's choices (their names are translated with the command's other words).
WAYS = {
    CHANNEL: "Channel pings (the default)",
    DIRECT: "Direct message",
    OFF: "Off",
}


def meaning(way: str) -> str:
    """The player's choice and what it means, in a sentence or two."""
    if way == DIRECT:
        return _("Your turns: **direct message**. When it is your move I send you a direct "
                 "message with a link to the table; if Discord does not let me, you are pinged "
                 "in the game's channel instead.")
    if way == OFF:
        return _("Your turns: **off**. No pings and no reminders; the table still shows whose "
                 "turn it is.")
    return _("Your turns: **channel pings**. When it is your move the game's channel mentions "
             "you, with a link to the table.")


class Notify(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @app_commands.command(name="notify", description="How you are told it is your move: "
                                                     "channel pings, a direct message, or off")
    @app_commands.describe(how="Leave empty to see your choice")
    @app_commands.choices(how=[app_commands.Choice(name=name, value=way)
                               for way, name in WAYS.items()])
    async def notify(self, interaction: discord.Interaction, how: str | None = None) -> None:
        player = str(interaction.user.id)
        if how is not None and how not in WAYS:
            await tell(interaction, _("Choose one of the listed ways."))
            return
        if how is not None:
            await self.bot.pings.choose(player, how)
        way = await self.bot.pings.way_of(player)
        said = meaning(way)
        if how is not None:
            said += " " + _("This applies in every server, from your next turn on.")
        await tell(interaction, said)


async def setup(bot: CityhallBot) -> None:
    await bot.add_cog(Notify(bot))
