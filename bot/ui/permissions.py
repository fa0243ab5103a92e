"""Privileged commands check the caller's permissions themselves.

A command's ``default_permissions`` only hides it from members without them, and a server's
admins can widen it under Integrations. The interaction itself carries the member's resolved
permissions in the channel, sent by Discord with every call; the bot reads those too, so a
forged or misrouted call from a plain member is refused with a sentence and changes nothing.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.core.i18n import Words

_ = Words("bot")


class NotPermitted(app_commands.CheckFailure):
    """A refusal whose text is the sentence the member sees."""


def has_manage_server(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def has_manage_messages(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_messages or perms.administrator)


def require_manage_server(interaction: discord.Interaction) -> None:
    if not has_manage_server(interaction):
        raise NotPermitted(_("Only members with the Manage Server permission can change "
                             "Cityhall's settings. Nothing was changed."))
