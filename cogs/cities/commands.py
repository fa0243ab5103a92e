"""/cities new and /cities rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import discord
from discord import app_commands

from bot.core.engine import JSON
from bot.core.i18n import Words
from bot.games.cities.content import CONTENT
from bot.ui.lobby import GameCommands, given
from bot.ui.replies import tell
from cogs.settings import save_defaults

# The commands' words are filed in this catalog (scripts/i18n.py reads the command tree).
_ = Words("bot.games.cities")

# New York City and Rio de Janeiro first: the rulebook suggests them for a first game.
FIRST_CITIES = ("New York City", "Rio de Janeiro")
CITY_ORDER = [*FIRST_CITIES, *(n for n in CONTENT.cities if n not in FIRST_CITIES)]


# -- slash commands -----------------------------------------------------------------------


def new_options(city: str | None, long_variant: bool) -> JSON:
    """The game options ``/cities new`` (and ``/settings defaults cities``) stand for."""
    return given(city=city, variant="3x5" if long_variant else None)


F = TypeVar("F", bound=Callable[..., object])


def described(command: F) -> F:
    """The options' words, the same for ``/cities new`` and ``/settings defaults cities``."""
    command = app_commands.describe(
        city="The city board with its achievements (default: at random)",
        long_variant="Two players only: 7 rounds on a 3×5 neighbourhood")(command)
    return app_commands.choices(
        city=[app_commands.Choice(name=n, value=n) for n in CITY_ORDER])(command)


class Cities(GameCommands):
    cities = app_commands.Group(name="cities", description="Cities: draft tiles, features and "
                                "buildings into your neighbourhood", guild_only=True)

    @cities.command(name="new", description="Open a Cities lobby in this channel")
    @described
    async def new(self, interaction: discord.Interaction, city: str | None = None,
                  long_variant: bool = False) -> None:
        if city is not None and city not in CONTENT.cities:
            await tell(interaction, _("Choose one of the listed city boards."))
            return
        await self.open(interaction, new_options(city, long_variant))

    @cities.command(name="rules", description="How to play Cities")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


@app_commands.command(name="cities", description="Default options for /cities new")
@described
async def defaults(interaction: discord.Interaction, city: str | None = None,
                   long_variant: bool = False) -> None:
    await save_defaults(interaction, "cities", new_options(city, long_variant))
