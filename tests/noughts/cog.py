"""Noughts and crosses in Discord: /noughts new and rules, and a button per cell."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands

from bot.core.engine import Engine
from bot.core.records import Match
from bot.ui.game import GameAdapter
from bot.ui.items import Click, GameButton
from bot.ui.lobby import GameCommands
from bot.ui.words import mention, winner_line

from .engine import ENGINE

if TYPE_CHECKING:
    from bot.app import CityhallBot

RULES = """\
**Noughts and Crosses** — 2 players. X moves first; in turn, mark an empty cell. Three \
marks in a row, column or diagonal win; a full board without one is a draw."""


class NoughtsAdapter(GameAdapter):
    rules_summary = RULES

    def table_content(self, match: Match) -> str:
        assert match.state is not None
        state = match.state
        if state["over"]:
            result = ENGINE.result(state)
            assert result is not None
            return "**Noughts and Crosses** · final\n" + winner_line(
                match, result.winners, result.scores)
        turn = ENGINE.to_act(state)[0]
        return (f"**Noughts and Crosses** · {mention(match, turn)} "
                f"({'XO'[state['turn']]}), it's your turn: pick a cell.")

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        return [CellButton.make(match.id, match.version, cell, mark)
                for cell, mark in enumerate(match.state["board"])]


class CellButton(GameButton, template=":v{version}:c{cell:[0-8]}"):
    prefix: ClassVar[str] = "ch:nx"
    engine: ClassVar[Engine] = ENGINE
    turn_only = True
    version: int
    cell: int

    @classmethod
    def make(cls, match_id: int, version: int, cell: int, mark: str) -> CellButton:
        return cls.create(discord.ui.Button(label=mark or str(cell + 1), row=cell // 3,
                                            disabled=bool(mark)),
                          match_id=match_id, version=version, cell=cell)

    async def on_click(self, click: Click) -> None:
        outcome = await click.play({"type": "mark", "cell": self.cell})
        if outcome is not None:
            await click.interaction.response.defer()


class Noughts(GameCommands):
    noughts = app_commands.Group(name="noughts", description="Noughts and crosses",
                                 guild_only=True)

    @noughts.command(name="new", description="Open a noughts-and-crosses lobby here")
    async def new(self, interaction: discord.Interaction) -> None:
        await self.open(interaction, {})

    @noughts.command(name="rules", description="How to play noughts and crosses")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(NoughtsAdapter(ENGINE), (CellButton,), Noughts)
