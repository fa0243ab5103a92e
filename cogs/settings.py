"""/settings: what a server's managers choose for their server (turn time, computer players'
pause, where games may be started, default game options), stored in the database and used
from the next turn or lobby on.

The command carries ``default_permissions`` (Manage Server), so members without it don't see
it. The bot also checks the permission on every call itself (``interaction_check``): a
server's admins may show the command to other roles under Server Settings → Integrations →
Cityhall, but only Manage Server changes settings, and a forged call changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.engine import IllegalAction
from bot.core.i18n import ENGLISH, LANGUAGES, Words, speaking
from bot.core.ratings import START_RATING
from bot.core.server_settings import ServerSettings, SettingsError, describe_seconds
from bot.ui.permissions import require_manage_server
from bot.ui.replies import tell
from bot.ui.server_words import channels_sentence, describe
from bot.ui.words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")

log = logging.getLogger(__name__)

AUTOMATIC = "discord"  # /settings language: follow Discord's language for the server

CHANNEL_ACTIONS = {
    "allow": "Allow games in the channel",
    "deny": "No new games in the channel",
    "only": "Games only in listed channels: add the channel to the list",
    "everywhere": "Games in every channel again",
}


class Settings(commands.Cog):
    settings = app_commands.Group(
        name="settings", description="Cityhall's settings for this server (server managers)",
        guild_only=True, default_permissions=discord.Permissions(manage_guild=True))
    defaults = app_commands.Group(name="defaults", parent=settings,
                                  description="Default options for a game's /new in this server")
    ratings = app_commands.Group(name="ratings", parent=settings,
                                 description="This server's rating seasons")

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every /settings command, before it runs: Manage Server, from the interaction's own
        permissions (NotPermitted is answered by the tree's error handler)."""
        require_manage_server(interaction)
        return True

    @settings.command(name="show", description="Show this server's Cityhall settings")
    async def show(self, interaction: discord.Interaction) -> None:
        guild_id = self._guild(interaction)
        await tell(interaction, _("Cityhall in this server:") + "\n" + self._words(guild_id))

    @settings.command(name="turn_time", description="Time for a move before the computer "
                                                    "player makes it")
    @app_commands.describe(minutes="Minutes (leave both empty for the bot's default)",
                           seconds="And seconds")
    async def turn_time(self, interaction: discord.Interaction,
                        minutes: app_commands.Range[int, 0, 1440] | None = None,
                        seconds: app_commands.Range[int, 0, 59] | None = None) -> None:
        guild_id = self._guild(interaction)
        total = None if minutes is None and seconds is None \
            else float((minutes or 0) * 60 + (seconds or 0))
        await self._change(interaction, guild_id, lambda s: _replace(s, turn_seconds=total),
                           _("The turn time applies from the next turn of every game; turns "
                             "already running keep their time."))

    @settings.command(name="computer_delay", description="How long computer players pause "
                                                         "before each move")
    @app_commands.describe(seconds="Seconds, 0 to 10 (empty for the bot's default)")
    async def computer_delay(self, interaction: discord.Interaction,
                             seconds: app_commands.Range[float, 0.0, 10.0] | None = None) -> None:
        guild_id = self._guild(interaction)
        await self._change(interaction, guild_id, lambda s: _replace(s, cpu_delay=seconds),
                           _("Computer players use it from their next move."))

    @settings.command(name="channels", description="Where games may be started")
    @app_commands.describe(action="What to do", channel="The channel (default: this one)")
    @app_commands.choices(action=[app_commands.Choice(name=text, value=key)
                                  for key, text in CHANNEL_ACTIONS.items()])
    async def channels(self, interaction: discord.Interaction, action: str,
                       channel: discord.TextChannel | None = None) -> None:
        guild_id = self._guild(interaction)
        if action not in CHANNEL_ACTIONS:
            await tell(interaction, _("Choose one of the listed actions."))
            return
        target = channel.id if channel is not None else int(interaction.channel_id or 0)

        def change(server: ServerSettings) -> ServerSettings:
            if action == "allow":
                return server.allow(target)
            if action == "deny":
                return server.deny(target)
            if action == "only":
                return server.allow_only(target)
            return server.everywhere()

        await self._change(interaction, guild_id, change,
                           _("Games already running are not affected."))

    @settings.command(name="language", description="The language of Cityhall's messages and "
                                                   "pictures in this server's channels")
    @app_commands.describe(language="A language, or Discord's language for this server")
    @app_commands.choices(language=[
        app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()]
        + [app_commands.Choice(name="Discord's language for this server", value=AUTOMATIC)])
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        guild_id = self._guild(interaction)
        if language not in LANGUAGES and language != AUTOMATIC:
            await tell(interaction, _("Choose one of the listed languages."))
            return
        chosen = None if language == AUTOMATIC else language
        await self._change(interaction, guild_id, lambda s: _replace(s, language=chosen),
                           _("The tables of the games running here are drawn again in it; "
                             "each player's private answers stay in their own Discord "
                             "language."))
        for match in self.bot.runtime.unfinished():
            if match.guild_id == guild_id:
                self.bot.background(self.bot.tables.refresh(match.id))

    @ratings.command(name="reset", description="Start a new rating season: everyone's ratings "
                                               "begin again; the old season stays viewable")
    async def ratings_reset(self, interaction: discord.Interaction) -> None:
        guild_id = self._guild(interaction)
        season = await self.bot.storage.new_season(guild_id)
        log.info("Rating season %d of server %s started by %s", season, guild_id,
                 interaction.user.id)
        await tell(interaction, _(
            "Rating season {season} has begun: every player and computer level starts again "
            "at {start}, from the next game that ends. Season {old} is kept, and {stats} "
            "can still show it.", season=season, old=season - 1, start=START_RATING,
            stats=slash("stats")))

    # -- default options, one subcommand per game (the same options as its /new) ------------

    def add_game_defaults(self, command: app_commands.Command[Any, ..., None]) -> None:
        """A game's ``/settings defaults <game>``, declared by its cog (the options are its
        ``/new``'s; the callback ends in :func:`save_defaults`) and added by
        ``bot.add_game``: the list of games is the catalogue's, not this file's. The same
        Manage Server check as every /settings command runs first."""
        group = self.bot.tree.get_command("settings")
        defaults = group.get_command("defaults") if isinstance(group, app_commands.Group) \
            else None
        assert isinstance(defaults, app_commands.Group), "the Settings cog is not loaded"
        command.add_check(_may_change_settings)
        defaults.add_command(command)

    # -- helpers ----------------------------------------------------------------------------

    def _guild(self, interaction: discord.Interaction) -> int:
        # guild_only: Discord never sends these from a DM.
        assert interaction.guild_id is not None
        return interaction.guild_id

    def _words(self, guild_id: int) -> str:
        return describe(self.bot.servers.get(guild_id), self.bot.servers, guild_id,
                        self.bot.adapters)

    async def save_defaults(self, interaction: discord.Interaction, game: str,
                            options: dict[str, Any]) -> None:
        guild_id = self._guild(interaction)
        engine = self.bot.adapters[game].engine
        try:
            # The same check /new makes, so a default is never refused at every /new.
            engine.new([f"p{i}" for i in range(engine.min_players)], options, 0)
        except (IllegalAction, ValueError) as exc:
            await tell(interaction, _("{title} does not accept those options: {problem}",
                                      title=engine.title, problem=str(exc)))
            return
        await self._change(interaction, guild_id, lambda s: s.with_options(game, options),
                           _("Options given to /{game} new still win over these.", game=game))

    async def _change(self, interaction: discord.Interaction, guild_id: int,
                      change: Any, note: str) -> None:
        before = self.bot.servers.get(guild_id)
        try:
            after: ServerSettings = change(before)
        except SettingsError as exc:
            await tell(interaction, _("{problem} Nothing was changed.", problem=str(exc)))
            return
        await self.bot.servers.save(guild_id, after)
        log.info("Settings of server %s changed by %s: %s", guild_id, interaction.user.id,
                 _difference(before, after))
        await tell(interaction, _("Saved. {note}", note=note) + "\n" + self._words(guild_id))


def _replace(server: ServerSettings, **changes: Any) -> ServerSettings:
    return replace(server, **changes)  # validated by ServerSettings itself


def _difference(before: ServerSettings, after: ServerSettings) -> str:
    with speaking(ENGLISH):  # for the log, whoever changed the settings
        return _changes(before, after)


def _changes(before: ServerSettings, after: ServerSettings) -> str:
    changed = []
    if before.turn_seconds != after.turn_seconds:
        changed.append("turn time " + ("default" if after.turn_seconds is None
                                       else describe_seconds(after.turn_seconds)))
    if before.cpu_delay != after.cpu_delay:
        changed.append(f"computer pause {after.cpu_delay if after.cpu_delay is not None else 'default'}")
    if (before.allowed_channels, before.denied_channels) != \
            (after.allowed_channels, after.denied_channels):
        changed.append(channels_sentence(after))
    if before.language != after.language:
        changed.append(f"language {after.language or 'Discord'}")
    if before.game_options != after.game_options:
        changed.append(f"game defaults {dict(after.game_options)}")
    return "; ".join(changed) or "nothing"


async def save_defaults(interaction: discord.Interaction, game: str,
                        options: dict[str, Any]) -> None:
    """What a game's ``/settings defaults <game>`` does with the options it was given."""
    settings = interaction.client.get_cog("Settings") \
        if isinstance(interaction.client, commands.Bot) else None
    if not isinstance(settings, Settings):
        await tell(interaction, _("Settings are not available right now. Nothing was "
                                  "changed."))
        return
    await settings.save_defaults(interaction, game, options)


def _may_change_settings(interaction: discord.Interaction) -> bool:
    require_manage_server(interaction)
    return True


async def setup(bot: CityhallBot) -> None:
    await bot.add_cog(Settings(bot))
