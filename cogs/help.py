"""/help: the way in for someone who has never played: what Cityhall is, its games, how a
game starts and the commands that matter, for the asker only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.i18n import Words
from bot.games import GAMES
from bot.ui.replies import NO_MENTIONS
from bot.ui.words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")
_n = _.plural

def help_embed(bot: CityhallBot) -> discord.Embed:
    """/help in the asker's language (the one current where it is built)."""
    minutes = max(1, round(bot.settings.turn_seconds / 60))
    embed = discord.Embed(
        title=_("Cityhall — city board games in this server"),
        description=_(
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
        domain = record.domain
        games.append(_("**{title}** ({fewest}–{most} players): {summary}; {length}. "
                       "`{new}` · `{rules}`", title=engine.title, fewest=engine.min_players,
                       most=engine.max_players, summary=record.help.summary,
                       length=record.help.length, new=slash(f"{name} new", domain),
                       rules=slash(f"{name} rules", domain)))
    embed.add_field(name=_("The games"), value="\n".join(games)[:1024], inline=False)
    first = next(iter(bot.adapters), "cityscape")
    # TRANSLATORS: stands for a game's command in "/<game> new"; keep the angle brackets.
    any_game = _("<game>")
    embed.add_field(name=_("Starting a game"), value="\n".join((
        _("1. In a channel or thread, open a lobby: `{new}` (for example `{example}`).",
          new=slash(f"{any_game} new", GAMES[first].domain if first in GAMES else "bot"),
          example=slash(f"{first} new", GAMES[first].domain if first in GAMES else "bot")),
        _("2. Others press **Join**; the host may **Add computer** players. "
          "**How to play** in the lobby shows the rules, only to you."),
        _("3. The host presses **Start**. The table shows the board and the buttons for "
          "your move; private choices open only for you."))), inline=False)
    embed.add_field(name=_("While you play"), value="\n".join((
        _n("You are pinged when it is your move and have about {n} minute for it; then a "
           "computer player moves for you.",
           "You are pinged when it is your move and have about {n} minutes for it; then a "
           "computer player moves for you.", minutes),
        _("`{command}` shows the table again at the bottom of the channel.",
          command=slash("game status")),
        _("`{command}` ends the game (the host, or anyone with Manage Messages).",
          command=slash("game end")),
        _("`{command}` shows this server's leaderboards.", command=slash("stats")),
        _("`{profile}` shows a player's ratings and results; `{history}` the finished games, "
          "each with its replay.", profile=slash("profile"), history=slash("history")),
        _("`{command}`: pinged in the channel, by direct message, or not at all; a ping's "
          "button takes you to the table.", command=slash("notify")))),
        inline=False)
    embed.set_footer(text=_("One game per channel or thread; start more in threads."))
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
