"""What a finished game's table offers: a look back at it (its replay) and another game
(a rematch). Each has its own module; this one puts them on the final table."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.records import Match

from .rematch import rematch_items
from .replay import replay_items


def finished_items(match: Match) -> list[discord.ui.Item[Any]]:
    """The final table's buttons (none while the game is running)."""
    return [*replay_items(match), *rematch_items(match)]
