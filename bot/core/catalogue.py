"""What a game declares to join Cityhall: one :class:`GameRecord`, in its own package.

The record holds objects, not naming conventions: the engine (rules), the computer player
kept beside it, the function that loads its pictures, the discord.py extension of its cog,
its line in ``/help``, the prefix of its buttons' custom ids and the scenarios the
benchmark and the load test play. ``bot.games`` collects the records into the catalogue
that every list of games reads (the bot, the render workers, the tools and the tests).
This module imports no game, no discord and no Pillow.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Protocol, cast

from bot.core.engine import JSON, Engine
from bot.core.i18n import Text
from bot.core.levels import Computer


class Pictures(Protocol):
    """A game's pictures: pure functions from a view to PNG bytes. A module satisfies it.

    The render workers import it by its ``__name__`` and call these (and a game's other
    ``render_*`` functions) by name."""

    __name__: str

    def render_table(self, view: JSON) -> bytes: ...

    def render_extras(self, view: JSON, events: list[JSON]) -> list[tuple[str, bytes]]:
        """Pictures some events deserve on their own (a round's scoring), named."""
        ...


@dataclass(frozen=True)
class PicturesIn:
    """A game's pictures module, by name (``module``), imported when called: the bot names
    it to its render workers and never calls it, so only the processes that draw import
    Pillow and the fonts."""

    module: str

    def __call__(self) -> Pictures:
        return cast(Pictures, importlib.import_module(self.module))


def pictures_in(package: str, module: str = "render") -> PicturesIn:
    """A game's ``pictures``: its ``<package>.<module>`` (``render`` unless it says). The
    tests check that every catalogued game's module draws its table."""
    return PicturesIn(f"{package}.{module}")


@dataclass(frozen=True)
class Scenario:
    """How the benchmark and the load test play a game: ``players`` seats and the ``/new``
    options their tables are opened with."""

    players: int
    options: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class Help:
    """The game's line in /help: what it is about, and how long a game lasts in its own
    terms (turns, rounds), in a few words each."""

    # ``Text`` (``_l(...)`` in the game's catalog), said in the reader's language
    summary: str | Text
    length: str | Text


@dataclass(frozen=True)
class GameRecord:
    """Everything Cityhall needs to host one game (docs/adding-a-game.md)."""

    engine: Engine
    computer: Computer
    # Names the renderer; calling it imports it (only in the processes that draw).
    pictures: PicturesIn
    # The discord.py extension (a module with ``async def setup(bot)``) holding the cog.
    cog: str
    help: Help
    # Its buttons' and menus' custom ids start with this (``ch:cs``): the load test's
    # players find the game's table by it.
    prefix: str
    scenario: Scenario

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def domain(self) -> str:
        """The package the game lives in, whose ``locale/`` folder holds its words in
        every language (bot.core.i18n)."""
        return type(self.engine).__module__.rpartition(".")[0]
