"""/bigcity new and /bigcity rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.core.i18n import Words
from bot.ui.lobby import GameCommands
from cogs.settings import save_defaults

# The slash commands' words below are filed in this catalog (scripts/i18n.py reads the
# command tree; Discord shows each user their own language's).
_ = Words("bot.games.bigcity")

# -- slash commands --------------------------------------------------------------------


def new_options(**variants: bool) -> dict[str, Any]:
    """The game options ``/bigcity new`` (and ``/settings defaults bigcity``) stand for: the
    variants switched on."""
    return {name: True for name, on in variants.items() if on}


F = TypeVar("F", bound=Callable[..., object])


def described(command: F) -> F:
    """The variants' words, the same for ``/bigcity new`` and ``/settings defaults bigcity``."""
    return app_commands.describe(
        trade_cards="Variant: trade one or two cards with the other players as an action",
        must_exchange_useless="Variant: cards made useless by parks and factories can only be "
                              "exchanged, not discarded",
        single_streetcar_line="Variant: one streetcar line without branches or loops",
        limited_streetcar_line="Variant: streetcars only along properties with a building",
        limited_card_drawing="Variant: draw only from the stacks of placed neighborhoods",
    )(command)


class BigCity(GameCommands):
    bigcity = app_commands.Group(name="bigcity", description="Big City: build a city together, "
                                 "building by building", guild_only=True)

    @bigcity.command(name="new", description="Open a Big City lobby in this channel")
    @described
    async def new(self, interaction: discord.Interaction, trade_cards: bool = False,
                  must_exchange_useless: bool = False, single_streetcar_line: bool = False,
                  limited_streetcar_line: bool = False,
                  limited_card_drawing: bool = False) -> None:
        await self.open(interaction, new_options(
            trade_cards=trade_cards, must_exchange_useless=must_exchange_useless,
            single_streetcar_line=single_streetcar_line,
            limited_streetcar_line=limited_streetcar_line,
            limited_card_drawing=limited_card_drawing))

    @bigcity.command(name="rules", description="How to play Big City")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


@app_commands.command(name="bigcity", description="Default variants for /bigcity new")
@described
async def defaults(interaction: discord.Interaction, trade_cards: bool = False,
                   must_exchange_useless: bool = False, single_streetcar_line: bool = False,
                   limited_streetcar_line: bool = False,
                   limited_card_drawing: bool = False) -> None:
    await save_defaults(interaction, "bigcity", new_options(
        trade_cards=trade_cards, must_exchange_useless=must_exchange_useless,
        single_streetcar_line=single_streetcar_line,
        limited_streetcar_line=limited_streetcar_line,
        limited_card_drawing=limited_card_drawing))
