"""/profile and /history: a player's page and the server's finished games (issue 28).

The answers are built in ``bot/ui/profile.py`` and ``bot/ui/history.py``; this cog declares
the commands and registers the history's buttons, which work after a restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.i18n import Words
from bot.games import GAMES
from bot.ui.game import GAME_CHOICES
from bot.ui.history import DYNAMIC_ITEMS, answer_history
from bot.ui.profile import answer_profile
from bot.ui.replies import tell
from bot.ui.words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")

# A posted profile or history (a picture, a list) once per member per channel this often,
# as /stats; a private one as often as wanted.
COOLDOWN_SECONDS = 10.0


def _posted(interaction: discord.Interaction) -> app_commands.Cooldown | None:
    if getattr(interaction.namespace, "post", False):
        return app_commands.Cooldown(1, COOLDOWN_SECONDS)
    return None


def _per_member_and_channel(interaction: discord.Interaction) -> tuple[int, int | None, bool]:
    # With the choice in the key: discord.py keeps a key's bucket once made, so a posted
    # answer's cooldown would otherwise hold back the private ones after it too.
    return (interaction.user.id, interaction.channel_id,
            bool(getattr(interaction.namespace, "post", False)))


class Records(commands.Cog):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @app_commands.command(name="profile",
                          description="A player's games, wins and rating in this server")
    @app_commands.guild_only()
    @app_commands.describe(member="Whose profile (yours if left out)", game="Only this game",
                           post="Post it in the channel (only you see it otherwise)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.checks.dynamic_cooldown(_posted, key=_per_member_and_channel)
    async def profile(self, interaction: discord.Interaction,
                      member: discord.Member | None = None, game: str | None = None,
                      post: bool = False) -> None:
        if interaction.guild_id is None:
            await tell(interaction, _("Profiles are kept per server; use {profile} in a "
                                      "server.", profile=slash("profile")))
            return
        if game is not None and game not in GAMES:
            await tell(interaction, _("Choose one of the listed games."))
            return
        await answer_profile(self.bot, interaction, member or interaction.user, game,
                             post=post)

    @app_commands.command(name="history",
                          description="This server's finished games, newest first")
    @app_commands.guild_only()
    @app_commands.describe(game="Only this game", member="Only games this member played",
                           post="Post it in the channel (only you see it otherwise)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.checks.dynamic_cooldown(_posted, key=_per_member_and_channel)
    async def history(self, interaction: discord.Interaction, game: str | None = None,
                      member: discord.Member | None = None, post: bool = False) -> None:
        if interaction.guild_id is None:
            await tell(interaction, _("The history is kept per server; use {history} in a "
                                      "server.", history=slash("history")))
            return
        if game is not None and game not in GAMES:
            await tell(interaction, _("Choose one of the listed games."))
            return
        await answer_history(self.bot, interaction, game, member, post=post)


async def setup(bot: CityhallBot) -> None:
    # The history's page buttons and replay menu: restart-safe, everything in their ids.
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    bot.dynamic_items.extend(DYNAMIC_ITEMS)
    await bot.add_cog(Records(bot))
