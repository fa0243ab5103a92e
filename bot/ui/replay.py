"""The replay viewer of a finished game (issue 28)."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.records import Match


def replay_items(match: Match) -> list[discord.ui.Item[Any]]:
    return []
