"""A finished game's Rematch button (issue 28)."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.records import Match


def rematch_items(match: Match) -> list[discord.ui.Item[Any]]:
    return []
