"""What each game's cog provides to the shared table and lobby code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.core.engine import JSON, Engine
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games import renderer

if TYPE_CHECKING:
    pass


@dataclass
class Notice:
    """A message for the channel about something that happened (a round scored, a timeout)."""

    text: str
    images: list[tuple[str, bytes]] = field(default_factory=list)


class GameAdapter:
    """The Discord face of one game: text, buttons and notices for a match's state.

    Subclasses live in ``cogs/<game>.py``; they hold no rules, only presentation.
    """

    engine: Engine
    colour: discord.Colour = discord.Colour.blurple()
    rules_summary: str = ""
    player_range: str = ""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.renderer = renderer(engine.name)

    def render_table(self, match: Match) -> bytes:
        """PNG of the public table (runs in a worker thread)."""
        assert match.state is not None
        return self.renderer.render_table(self.engine.view(match.state, None))

    def public_view(self, match: Match) -> JSON:
        assert match.state is not None
        return self.engine.view(match.state, None)

    def table_content(self, match: Match) -> str:
        raise NotImplementedError

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        raise NotImplementedError

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        """Channel messages for this move (besides the table, which always refreshes)."""
        return []

    def options_text(self, match: Match) -> str:
        return ""
