"""Commands every game shares: /game end, /game status, /stats; and the safety nets that
make sure no click or command is ever left unanswered."""

from __future__ import annotations

import copy
import logging
import math
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.i18n import Words
from bot.core.records import LOBBY
from bot.core.runtime import Refusal
from bot.core.storage import RatingRow
from bot.games import ENGINES, GAMES
from bot.ui.game import GAME_CHOICES
from bot.ui.howto import HowToPlay
from bot.ui.lobby import LevelSelect, LobbyButton, level_name
from bot.ui.permissions import NotPermitted, has_manage_messages
from bot.ui.replies import NO_MENTIONS, oops, plain_name, storage_fault, tell
from bot.ui.words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")
_n = _.plural
_l = _.lazy

log = logging.getLogger(__name__)

# One /game status or /stats per member per channel this often: each posts a public
# message (a table picture, a leaderboard), and a burst of them buries the game.
COOLDOWN_SECONDS = 10.0


def _per_member_and_channel(interaction: discord.Interaction) -> tuple[int, int | None]:
    return (interaction.user.id, interaction.channel_id)


# The English, which tests compare; said with ``_(UNKNOWN_BUTTON)`` in the clicker's language.
UNKNOWN_BUTTON = _l("That button isn't one I recognise (it may come from an older version of "
                    "Cityhall). Nothing was changed; /game status shows the current table."
                    ).message


def _board_line(place: int, row: RatingRow, adapter: Any) -> str:
    """One line of /stats: a person's rating, rated games, wins and best; a computer
    level's rating and rated games."""
    rated = _n("{n} rated game", "{n} rated games", row.rated)
    if row.cpu:
        return _("**{place}.** {name} — **{rating}** ({rated})", place=place,
                 name=_("Computer ({level})", level=level_name(row.player_id.removeprefix(
                     "cpu:"))), rating=row.rating, rated=rated)
    return (_("**{place}.** {name} — **{rating}** ({rated}) · {wins}, best {best}", place=place,
              name=plain_name(row.name), rating=row.rating, rated=rated,
              wins=_n("{n} win", "{n} wins", row.wins), best=row.best)
            + (adapter.stats_suffix(row.extra or {}) if adapter else ""))


class Matches(commands.Cog):
    game = app_commands.Group(name="game", description="The game in this channel",
                              guild_only=True)
    # A command of its own, so that Discord's permissions decide who may end others' games:
    # Manage Messages by default, changeable per role under Server Settings → Integrations.
    moderate = app_commands.Group(
        name="moderate", description="Moderators' tools for Cityhall games", guild_only=True,
        default_permissions=discord.Permissions(manage_messages=True))

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        bot.tree.error(self.on_app_command_error)

    @game.command(name="status", description="Show the current table of this channel's game again")
    @app_commands.checks.cooldown(1, COOLDOWN_SECONDS, key=_per_member_and_channel)
    async def status(self, interaction: discord.Interaction) -> None:
        match = self.bot.runtime.in_channel(interaction.channel_id or 0)
        if match is None:
            await tell(interaction, _("There is no game in this channel. Start one with "
                                      "{commands}.", commands=_any_new()))
            return
        shown = copy.copy(match)  # one board: the match changes in place as moves land
        payload = await self.bot.tables.payload(shown)
        # Showing the table again must not ping whoever is due a second time.
        await interaction.response.send_message(**{**payload.send_kwargs(),
                                                   "allowed_mentions": NO_MENTIONS})
        message = await interaction.original_response()
        await self.bot.tables.moved(match, message.id, shown.version)

    @game.command(name="end", description="End this channel's game (its host)")
    async def end(self, interaction: discord.Interaction) -> None:
        await self._end(interaction, can_manage=False,
                        refusal=_("Only the host can end this game with {end}. Moderators "
                                  "end anyone's game with {moderate}.",
                                  end=slash("game end"), moderate=slash("moderate end")))

    @moderate.command(name="end", description="End this channel's game, whoever hosts it")
    async def moderate_end(self, interaction: discord.Interaction) -> None:
        await self._end(interaction, can_manage=True,
                        refusal=_("Only members with the Manage Messages permission can end "
                                  "someone else's game. Nothing was changed."))

    async def _end(self, interaction: discord.Interaction, *, can_manage: bool,
                   refusal: str) -> None:
        """End the channel's game for its host or, with ``can_manage``, for a member with Manage
        Messages; anyone else is told ``refusal``."""
        match = self.bot.runtime.in_channel(interaction.channel_id or 0)
        if match is None:
            await tell(interaction, _("There is no game to end in this channel."))
            return
        # Discord showed /moderate end to this member, but the bot checks for itself: a forged
        # call, or a role the admins gave the command to without Manage Messages, must not
        # end someone else's game. The host may always end their own.
        host = str(interaction.user.id) == match.host_id
        if not host and not (can_manage and has_manage_messages(interaction)):
            await tell(interaction, refusal)
            return
        try:
            ended = await self.bot.runtime.end(match.id, str(interaction.user.id),
                                               can_manage=can_manage)
        except Refusal as exc:
            await tell(interaction, str(exc))
            return
        title = self.bot.adapters[ended.game].engine.title
        # Said to the channel, in the server's language.
        with self.bot.speaking_to(ended.guild_id):
            await interaction.response.send_message(
                _("The {title} game was ended by {name}. No result is recorded.", title=title,
                  name=plain_name(interaction.user.display_name)),
                allowed_mentions=NO_MENTIONS)
            await self.bot.tables.end(ended, note=_("This {title} game was ended early.",
                                                    title=title))
        await self.bot.pings.finish(ended.id)

    @app_commands.command(name="stats", description="Leaderboards of this server")
    @app_commands.guild_only()
    @app_commands.checks.cooldown(1, COOLDOWN_SECONDS, key=_per_member_and_channel)
    @app_commands.describe(game="Only this game",
                           season="An earlier rating season (default: the current one)")
    @app_commands.choices(game=GAME_CHOICES)
    async def stats(self, interaction: discord.Interaction, game: str | None = None,
                    season: app_commands.Range[int, 1, 100_000] | None = None) -> None:
        if interaction.guild_id is None:
            await tell(interaction, _("Leaderboards are kept per server; use {stats} in a "
                                      "server.", stats=slash("stats")))
            return
        if game is not None and game not in GAMES:
            await tell(interaction, _("Choose one of the listed games."))
            return
        # The leaderboards are posted in the channel: in the server's language.
        with self.bot.speaking_to(interaction.guild_id):
            embed = await self._leaderboards(interaction.guild_id, game, season)
        await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    async def _leaderboards(self, guild_id: int, game: str | None,
                            season: int | None = None) -> discord.Embed:
        """Each game's board in the current rating season (or ``season``), best rating
        first: the rating and rated games, and beside a person's their wins and best score
        (all seasons)."""
        embed = discord.Embed(title=_("Cityhall leaderboards"), colour=discord.Colour.gold())
        names = [game] if game else sorted(GAMES)
        boards = await self.bot.storage.rating_boards(guild_id, names, season=season)
        if season is None:
            # One read when a board has a row (each row names its season); otherwise the
            # season, to say why the boards are empty.
            shown = next((rows[0].season for rows in boards.values() if rows), None)
            season = shown or await self.bot.storage.season(guild_id)
        for name in names:
            rows = boards[name]
            adapter = self.bot.adapters.get(name)
            if not rows:
                value = (_("No rated games this season yet.") if season > 1
                         else _("No finished games yet."))
            else:
                value = "\n".join(_board_line(i, r, adapter) for i, r in enumerate(rows, 1))
            embed.add_field(name=ENGINES[name].title, value=value[:1024], inline=False)
        if season > 1:
            embed.set_footer(text=_("Rating season {season}", season=season))
        return embed

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer component clicks that no button of ours will pick up."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if self._handled(interaction, custom_id):
            return
        await tell(interaction, _(UNKNOWN_BUTTON))

    def _handled(self, interaction: discord.Interaction, custom_id: str) -> bool:
        # discord.py hands a click to a DynamicItem only when its template matches *and*
        # the message really carries a component with that id; anything else is ours.
        if not any(cls.__discord_ui_compiled_template__.fullmatch(custom_id)
                   for cls in self.bot.dynamic_items):
            return False
        message = interaction.message
        if message is None:
            return False
        for row in message.components:
            for child in getattr(row, "children", [row]):
                if getattr(child, "custom_id", None) == custom_id:
                    return True
        return False

    async def on_app_command_error(self, interaction: discord.Interaction,
                                   error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.NoPrivateMessage):
            await tell(interaction, _("Cityhall games are played in server channels."))
        elif isinstance(error, app_commands.TransformerError):
            await tell(interaction, _("{value} is not a valid value there.",
                                      value=repr(error.value)))
        elif isinstance(error, app_commands.CommandOnCooldown):
            wait = max(1, math.ceil(error.retry_after))
            command = interaction.command
            await tell(interaction, _n(
                "You used {command} here a moment ago; try again in {n} second.",
                "You used {command} here a moment ago; try again in {n} seconds.", wait,
                command=slash(command.qualified_name, _command_domain(command))
                if command else "/" + _("that command")))
        elif isinstance(error, NotPermitted):
            await tell(interaction, str(error))
        elif isinstance(error, app_commands.CheckFailure):
            await tell(interaction, _("You can't use that command here."))
        elif isinstance(error, app_commands.CommandNotFound):
            await tell(interaction, _("That command no longer exists; Discord may still be "
                                      "showing an old list. Try again in a minute."))
        elif (sentence := storage_fault(error, f"/{interaction.command.qualified_name}"
                                        if interaction.command else "a command")) is not None:
            await tell(interaction, sentence)
        else:
            log.error("slash command failed", exc_info=error)
            await oops(interaction)


def _any_new() -> str:
    """"/bigcity new, /cities new, ..." with each game's command as the reader's Discord
    names it."""
    return ", ".join(slash(f"{name} new", f"bot.games.{name}") for name in sorted(GAMES))


def _command_domain(command: app_commands.Command[Any, ..., Any] | app_commands.ContextMenu
                    ) -> str:
    """The catalog of the cog that declares a command (a game's own, or the shared one)."""
    module = getattr(command, "module", None) or ""
    parts = module.split(".")
    return f"bot.games.{parts[1]}" if len(parts) > 1 and parts[0] == "cogs" \
        and parts[1] in GAMES else "bot"


async def setup(bot: CityhallBot) -> None:
    # The lobby's buttons and the tables' How to play: restart-safe, answered whatever
    # became of the match.
    bot.add_dynamic_items(LobbyButton, LevelSelect, HowToPlay)
    bot.dynamic_items.extend((LobbyButton, LevelSelect, HowToPlay))
    await bot.add_cog(Matches(bot))


__all__ = ["LOBBY", "Matches", "setup"]
