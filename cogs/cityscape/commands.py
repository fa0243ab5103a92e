"""/cityscape new and rules, and /settings defaults cityscape: the same options, described
once (``described``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import discord
from discord import app_commands

from bot.core.i18n import Words
from bot.ui.lobby import GameCommands, given
from cogs.settings import save_defaults

# The commands' names, descriptions and options are filed in this catalog
# (scripts/i18n.py reads them from the command tree) and said through the Translator.
_ = Words("bot.games.cityscape")

F = TypeVar("F", bound=Callable[..., object])
Rounds = app_commands.Range[int, 1, 12]


def described(command: F) -> F:
    """The options' words, the same for ``/cityscape new`` and ``/settings defaults
    cityscape``."""
    return app_commands.describe(
        rounds="Rounds to play (default: one per player, four with two)")(command)


class Cityscape(GameCommands):
    cityscape = app_commands.Group(name="cityscape", description="Cityscape: build a skyline "
                                   "to match your secret goals", guild_only=True)

    @cityscape.command(name="new", description="Open a Cityscape lobby in this channel")
    @described
    async def new(self, interaction: discord.Interaction, rounds: Rounds | None = None) -> None:
        await self.open(interaction, given(rounds=rounds))

    @cityscape.command(name="rules", description="How to play Cityscape")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


@app_commands.command(name="cityscape", description="Default options for /cityscape new")
@described
async def defaults(interaction: discord.Interaction, rounds: Rounds | None = None) -> None:
    await save_defaults(interaction, "cityscape", given(rounds=rounds))
