"""/help: the way in for someone who has never played: what Cityhall is, its games, how a
game starts and the commands that matter, for the asker only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.games import GAMES
from bot.ui.replies import NO_MENTIONS

if TYPE_CHECKING:
    from bot.app import CityhallBot

def help_embed(bot: CityhallBot) -> discord.Embed:
    minutes = max(1, round(bot.settings.turn_seconds / 60))
    embed = discord.Embed(
        title="Cityhall — city board games in this server",
        description=(
            "Cityhall hosts board games in your channels. Everyone plays with slash commands "
            "and buttons, the bot draws the board after every move, and games survive "
            "restarts."),
        colour=discord.Colour.blurple())
    games = []
    for name, adapter in bot.adapters.items():
        engine = adapter.engine
        # What the game is and how long it lasts, in its own terms (turns and rounds, not
        # minutes: how long a move takes depends on the people at the table).
        record = GAMES[name]
        line = (f"**{engine.title}** ({engine.min_players}–{engine.max_players} players): "
                f"{record.help.summary}; {record.help.length}.")
        games.append(f"{line} `/{name} new` · `/{name} rules`")
    embed.add_field(name="The games", value="\n".join(games)[:1024], inline=False)
    embed.add_field(name="Starting a game", value=(
        "1. In a channel or thread, open a lobby: `/<game> new` (for example "
        f"`/{next(iter(bot.adapters), 'cityscape')} new`).\n"
        "2. Others press **Join**; the host may **Add computer** players. "
        "**How to play** in the lobby shows the rules, only to you.\n"
        "3. The host presses **Start**. The table shows the board and the buttons for "
        "your move; private choices open only for you."), inline=False)
    embed.add_field(name="While you play", value=(
        f"You are pinged when it is your move and have about {minutes} minute"
        f"{'s' if minutes != 1 else ''} for it; then a computer player moves for you.\n"
        "`/game status` shows the table again at the bottom of the channel.\n"
        "`/game end` ends the game (the host, or anyone with Manage Messages).\n"
        "`/stats` shows this server's leaderboards."), inline=False)
    embed.set_footer(text="One game per channel or thread; start more in threads.")
    return embed


class Help(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What Cityhall is, its games, and how "
                                                   "to start one")
    async def help(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(embed=help_embed(self.bot), ephemeral=True,
                                                allowed_mentions=NO_MENTIONS)


async def setup(bot: CityhallBot) -> None:
    await bot.add_cog(Help(bot))
