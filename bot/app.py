"""The Discord bot: starts storage and the match runtime, loads the cogs, restores games."""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Coroutine, Iterable
from typing import Any

import discord
from discord.ext import commands

from bot.config import ConfigError, Settings
from bot.core import loopmonitor
from bot.core.discord_api import gateway_from_api, use_api_base
from bot.core.driver import Driver
from bot.core.records import ACTIVE
from bot.core.runtime import Outcome, Runtime
from bot.core.storage import Storage
from bot.ui.game import GameAdapter
from bot.ui.replies import USER_MENTIONS
from bot.ui.table import Tables

log = logging.getLogger("cityhall")

EXTENSIONS = ("cogs.matches", "cogs.cityscape", "cogs.bigcityz", "cogs.bigcity", "cogs.cities")

# What the bot needs in a channel: see and post messages (in threads too), attach board
# pictures, embed the lobby and stats, and read history to edit its own table message.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)

NO_TOKEN_HELP = """\
Cityhall needs a Discord bot token to go online, and none is set.

1. Open https://discord.com/developers/applications and choose "New Application".
2. Under "Bot", press "Reset Token" and copy the token.
3. Copy .env.example to .env and put the token after DISCORD_TOKEN=
   (optional: DEV_GUILD_ID=<your server id> makes slash commands appear at once there).
4. Run `make run` again. The log prints an invite link; open it to add the bot to your
   server. It needs no privileged intents, only the permissions in that link:
   View Channel, Send Messages, Send Messages in Threads, Embed Links, Attach Files and
   Read Message History, with the "bot" and "applications.commands" scopes.

No token at hand? Try the games offline:
    .venv/bin/python -m bot simulate cityscape --players 3 --seed 7 --out out/cityscape
writes every board of a computer game as PNG pictures into out/cityscape/.
"""


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=PERMISSIONS, scopes=("bot", "applications.commands"))


class CityhallBot(commands.Bot):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channels and threads; no privileged intents needed
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, allowed_mentions=USER_MENTIONS, **kwargs)
        self.settings = settings
        self.adapters: dict[str, GameAdapter] = {}
        # Every DynamicItem class we register, so unknown custom ids can be told apart.
        self.dynamic_items: list[type[discord.ui.DynamicItem[Any]]] = []
        self.tables = Tables(self)
        self._tasks: set[asyncio.Task[None]] = set()
        self.storage: Storage
        self.runtime: Runtime
        self.driver: Driver

    async def setup_hook(self) -> None:
        loopmonitor.start_from_env()  # only with CITYHALL_LOOP_STATS set (load tests)
        if self.settings.api_base:
            await gateway_from_api(self)
        self.storage = await Storage.open(self.settings.database_path)
        self.runtime = Runtime(self.storage, turn_seconds=self.settings.turn_seconds)
        self.driver = Driver(self.runtime, self.after_move, cpu_delay=self.settings.cpu_delay)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        restored = await self.runtime.load()
        if restored:
            log.info("Restored %d unfinished match(es).", len(restored))
        for match in restored:
            # The process may have died between saving a move and showing it: re-draw
            # every table so its buttons match the saved state.
            if match.table_message_id is not None:
                self._background(self.tables.refresh(match.id))
            if match.status == ACTIVE:
                self.driver.kick(match.id)
        await self.sync_commands()
        if self.application_id:
            log.info("Invite Cityhall to a server: %s", invite_url(self.application_id))

    async def sync_commands(self) -> None:
        guild_id = self.settings.dev_guild_id
        if guild_id:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d slash commands to server %s.", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("Synced %d global slash commands (they can take up to an hour to "
                     "appear; set DEV_GUILD_ID for instant ones on one server).", len(synced))

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def register(self, adapter: GameAdapter) -> None:
        self.adapters[adapter.engine.name] = adapter

    async def add_game(self, adapter: GameAdapter,
                       items: Iterable[type[discord.ui.DynamicItem[Any]]],
                       cog: commands.Cog) -> None:
        """What a game's cog module does in ``setup``: its table, its buttons, its commands."""
        self.register(adapter)
        items = tuple(items)
        self.add_dynamic_items(*items)
        self.dynamic_items.extend(items)
        await self.add_cog(cog)

    async def after_move(self, outcome: Outcome) -> None:
        """Tell the channel about an accepted move and plan what happens next."""
        try:
            await self._tell_channel(outcome)
        finally:
            self.runtime.delivered(outcome.match.id)
        if outcome.match.status == ACTIVE:
            self.driver.kick(outcome.match.id)

    async def _tell_channel(self, outcome: Outcome) -> None:
        match = outcome.match
        adapter = self.adapters[match.game]
        notices = await asyncio.to_thread(adapter.notices, match, outcome)
        channel = self.get_partial_messageable(match.channel_id)
        for notice in notices:
            files = [discord.File(io.BytesIO(png), name) for name, png in notice.images]
            try:
                await channel.send(notice.text, files=files, allowed_mentions=USER_MENTIONS)
            except discord.HTTPException:
                log.exception("could not post a notice for match %s", match.id)
        if notices and match.status == ACTIVE:
            # Notices pushed the table up the channel: bring it back to the bottom.
            await self.tables.repost(match)
        else:
            await self.tables.refresh(match.id)

    async def close(self) -> None:
        driver = getattr(self, "driver", None)
        if driver is not None:
            await driver.close()
        storage = getattr(self, "storage", None)
        if storage is not None:
            await storage.close()
        await super().close()


def run() -> int:
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"Cityhall cannot start: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not settings.token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    if settings.api_base:
        use_api_base(settings.api_base)
    bot = CityhallBot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print("Discord refused the token in DISCORD_TOKEN. Reset it in the Developer Portal "
              "(Bot > Reset Token) and update .env.", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:
        print("Discord asked for privileged intents; Cityhall needs none. Check the bot's "
              "settings in the Developer Portal.", file=sys.stderr)
        return 2
    return 0
