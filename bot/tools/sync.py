"""``python -m bot sync [--guild ID] [--clear]``: upload or remove slash commands.

The bot syncs by itself at start when its commands changed. This is for the admin's other
cases: commands registered both globally and in ``DEV_GUILD_ID`` (every command shows
twice there), a server that should no longer have its own copy, or a forced re-upload.
It logs in over HTTP only (no gateway), so it can run beside a running bot.
"""

from __future__ import annotations

import sys

import discord

from bot.app import CityhallBot
from bot.config import ConfigError, Settings
from bot.core.discord_api import use_api_base
from bot.core.storage import Storage, StorageError
from bot.ui.command_sync import synced_key, tree_digest


class _CommandsOnly(CityhallBot):
    """The bot's command tree without its games, storage or gateway."""

    async def setup_hook(self) -> None:
        await self.load_commands()


async def sync(settings: Settings, guild_id: int | None, clear: bool) -> str:
    """Sync (or with ``clear``, empty) the global or one server's commands; returns what
    was done, in a sentence. The database remembers it, so the next start only syncs if
    its tree differs from what is now on Discord."""
    if not settings.token:
        raise ConfigError("DISCORD_TOKEN is not set.")
    if settings.api_base:
        use_api_base(settings.api_base)
    storage = await Storage.open(settings.database)
    try:
        async with _CommandsOnly(settings) as bot:
            await bot.login(settings.token)
            guild = discord.Object(id=guild_id) if guild_id else None
            if clear:
                bot.tree.clear_commands(guild=guild)
            elif guild is not None:
                bot.tree.copy_global_to(guild=guild)
            synced = await bot.tree.sync(guild=guild)
            await storage.set_value(synced_key(bot, guild_id), await tree_digest(bot.tree, guild))
    finally:
        await storage.close()
    where = f"server {guild_id}" if guild_id else "Discord (global commands)"
    if clear:
        return f"Removed every Cityhall slash command from {where}."
    return f"Synced {len(synced)} slash commands to {where}."


def main(guild_id: int | None, clear: bool) -> int:
    import asyncio

    try:
        settings = Settings.from_env()
        print(asyncio.run(sync(settings, guild_id, clear)))
    except (ConfigError, StorageError) as exc:
        print(f"Cannot sync commands: {exc}", file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print("Discord refused the token in DISCORD_TOKEN.", file=sys.stderr)
        return 2
    except discord.HTTPException as exc:
        print(f"Discord refused the commands: {exc.status} {exc.text}", file=sys.stderr)
        return 1
    return 0
