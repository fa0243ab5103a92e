"""What each game's cog provides to the shared table and lobby code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import discord

from bot.core.engine import JSON, Engine
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games import renderer


def display_names(match: Match) -> dict[str, str]:
    """Each seat's name, with a number added where two people share a display name."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for seat in match.seats:
        name, n = seat.name, 1
        while name in taken:
            n += 1
            name = f"{seat.name} ({n})"
        taken.add(name)
        names[seat.id] = name
    return names


def seat_name(match: Match, player_id: str) -> str:
    """The name messages give a player: the same one the pictures draw, so two members
    called "Ann" are "Ann" and "Ann (2)" in the table text and in the picture alike."""
    return display_names(match).get(player_id, match.name_of(player_id))


def rename_players(value: Any, names: dict[str, str]) -> Any:
    """A deep copy of ``value`` with every key or string equal to a player id renamed.

    Player ids are snowflakes or ``cpu<n>``, which no other string in a view equals
    (lots, sides, card ids and statement ids all look different).
    """
    if isinstance(value, dict):
        return {names.get(k, k) if isinstance(k, str) else k: rename_players(v, names)
                for k, v in value.items()}
    if isinstance(value, list):
        return [rename_players(v, names) for v in value]
    if isinstance(value, str):
        return names.get(value, value)
    return value


@dataclass(frozen=True)
class Picture:
    """A picture a notice shows, drawn by a render worker when the notice is sent:
    ``bot.games.<game>.render.<function>(*args)``, which returns the PNG. Notices are
    written on the event loop; drawing is the part that must not run there."""

    filename: str
    function: str
    args: tuple[Any, ...]


@dataclass
class Notice:
    """A message for the channel about something that happened (a round scored, a timeout)."""

    text: str
    pictures: list[Picture] = field(default_factory=list)


class GameAdapter:
    """The Discord face of one game: text, buttons and notices for a match's state.

    Subclasses live in ``cogs/<game>.py``; they hold no rules, only presentation.
    """

    engine: Engine
    colour: discord.Colour = discord.Colour.blurple()
    rules_summary: str = ""  # the short rules: /<game> rules and a lobby's How to play
    rules_footer: str | None = None
    player_range: str = ""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.renderer = renderer(engine.name)

    def render_table(self, match: Match) -> bytes:
        """PNG of the public table (runs in a worker thread)."""
        return self.renderer.render_table(self.named_view(match, self.public_view(match)))

    def public_view(self, match: Match) -> JSON:
        assert match.state is not None
        return self.engine.view(match.state, None)

    def named_view(self, match: Match, view: JSON) -> JSON:
        """The view with player ids (Discord snowflakes, ``cpu1``) replaced by display names,
        made unique, since renderers draw whatever identifies a player in the view."""
        return rename_players(view, display_names(match))

    def table_content(self, match: Match) -> str:
        raise NotImplementedError

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        raise NotImplementedError

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        """Channel messages for this move (besides the table, which always refreshes)."""
        return []

    def options_text(self, match: Match) -> str:
        return ""

    def stats_suffix(self, extra: dict[str, int]) -> str:
        """More about a player on the /stats leaderboard, from their summed result extras."""
        return ""
