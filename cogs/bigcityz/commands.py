"""/bigcityz new and rules, and /settings defaults bigcityz: the same options, described
once (``described``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.core.i18n import Words
from bot.ui.lobby import GameCommands, given
from cogs.settings import save_defaults

from .words import KNOWLEDGE_WORDS

# The slash commands' words below are filed in this catalog (scripts/i18n.py reads them
# from the command tree) and said through discord.py's translator.
_ = Words("bot.games.bigcityz")

F = TypeVar("F", bound=Callable[..., object])
VetoSeconds = app_commands.Range[int, 5, 120]

KNOWLEDGE_CHOICES = [app_commands.Choice(name=words[0].upper() + words[1:], value=value)
                     for value, words in KNOWLEDGE_WORDS.items()]
KNOWLEDGE_HELP = "How many city facts the computer players know"


def new_options(veto_seconds: int | None, computer_knowledge: str | None) -> dict[str, Any]:
    """The game options ``/bigcityz new`` (and ``/settings defaults bigcityz``) stand for."""
    return given(veto_seconds=veto_seconds, ai_level=computer_knowledge)


def described(command: F) -> F:
    """The options' words and choices, the same for ``/bigcityz new`` and ``/settings
    defaults bigcityz``."""
    command = app_commands.describe(
        veto_seconds="Seconds to object after each placement (default 20)",
        computer_knowledge=f"{KNOWLEDGE_HELP} (default normal)")(command)
    return app_commands.choices(computer_knowledge=KNOWLEDGE_CHOICES)(command)


# /settings defaults bigcityz (``setup`` adds it there): the same options, kept as this
# server's defaults for /bigcityz new.
@app_commands.command(name="bigcityz", description="Default options for /bigcityz new")
@described
async def defaults(interaction: discord.Interaction,
                   veto_seconds: VetoSeconds | None = None,
                   computer_knowledge: str | None = None) -> None:
    await save_defaults(interaction, "bigcityz", new_options(veto_seconds, computer_knowledge))


class BigCityz(GameCommands):
    bigcityz = app_commands.Group(name="bigcityz", description="Big Cityz: city trivia with "
                                  "risk fields and vetoes", guild_only=True)

    @bigcityz.command(name="new", description="Open a Big Cityz lobby in this channel")
    @described
    async def new(self, interaction: discord.Interaction,
                  veto_seconds: VetoSeconds | None = None,
                  computer_knowledge: str | None = None) -> None:
        await self.open(interaction, new_options(veto_seconds, computer_knowledge))

    @bigcityz.command(name="rules", description="How to play Big Cityz")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)
