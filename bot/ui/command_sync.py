"""Slash commands go to Discord only when they changed since the last upload: Discord
rate-limits command uploads and its clients re-fetch commands after each, so a restart or
an upgrade that changes no command should cost nothing. The bot checks at start;
`python -m bot sync` uploads (or clears) on demand."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.core.storage import Storage
from bot.ui.command_words import CommandWords

log = logging.getLogger("cityhall")


async def tree_digest(tree: discord.app_commands.CommandTree[Any],
                      guild: discord.abc.Snowflake | None) -> str:
    """A fingerprint of what ``tree.sync(guild=guild)`` would upload, its translations
    included (a corrected translation uploads again).

    With Cityhall's own translator the translations are stood for by the catalogs' bytes:
    translating the whole tree into every Discord locale means reading every catalog, half
    a second at start spent before the first click can be answered."""
    translator = tree.translator
    commands = tree.get_commands(guild=guild)
    if translator is None or isinstance(translator, CommandWords):
        payloads = [command.to_dict(tree) for command in commands]
    else:
        payloads = [await command.get_translated_payload(tree, translator)
                    for command in commands]
    payload = sorted(payloads, key=lambda c: (c.get("type", 1), c["name"]))
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(text.encode())
    if isinstance(translator, CommandWords):
        digest.update(translator.fingerprint().encode())
    return digest.hexdigest()


def synced_key(client: discord.Client, guild_id: int | None) -> str:
    # Per application too: a new token for another application must sync again.
    target = f"guild:{guild_id}" if guild_id else "global"
    return f"commands:{client.application_id}:{target}"


async def sync_if_changed(client: commands.Bot, storage: Storage, guild_id: int | None) -> None:
    """Send ``client``'s command tree (to the server ``guild_id``, or globally) only when it
    differs from the last one sent, as remembered in ``storage``."""
    guild = discord.Object(id=guild_id) if guild_id else None
    if guild is not None:
        client.tree.copy_global_to(guild=guild)
    key = synced_key(client, guild_id)
    digest = await tree_digest(client.tree, guild)
    where = f"server {guild_id}" if guild_id else "Discord (global)"
    if await storage.value(key) == digest:
        log.info("Slash commands unchanged since they were last synced to %s; not "
                 "syncing (`python -m bot sync` forces it).", where)
        return
    synced = await client.tree.sync(guild=guild)
    await storage.set_value(key, digest)
    if guild_id:
        log.info("Synced %d slash commands to server %s.", len(synced), guild_id)
    else:
        log.info("Synced %d global slash commands (they can take up to an hour to "
                 "appear; set DEV_GUILD_ID for instant ones on one server).", len(synced))
