"""Sending a screen: the picture it shows, drawn from the snapshot it was built from."""

from __future__ import annotations

import copy
from collections.abc import Awaitable
from typing import Any

import discord

from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.cities import ENGINE
from bot.ui.game import Picture
from bot.ui.screens import PREVIEW_WORDS, drawn, named_view

from .screens import CitiesScreen

# -- sending screens ----------------------------------------------------------------------

_ = Words("bot.games.cities")
_l = _.lazy

EVERYONE_WORDS = _l("Every player's neighbourhood, as the text below lists them. ")
HOOD_WORDS = _l("A neighbourhood, as the text below lists it. ")


def picture_of(match: Match, screen: CitiesScreen) -> Picture | None:
    """The picture a screen shows, if any: everyone's neighbourhoods, a preview with
    lettered choices, or one player's neighbourhood."""
    if screen.everyone:
        view, _names = named_view(ENGINE, match)
        return Picture("neighbourhoods.png", "render_neighbourhoods", (view,), str(EVERYONE_WORDS))
    if screen.preview:
        view, names = named_view(ENGINE, match)
        return Picture("choices.png", "render_preview",
                       (view, names.get(screen.player, screen.player), screen.preview),
                       str(PREVIEW_WORDS))
    if screen.hood_of is not None:
        view, names = named_view(ENGINE, match)
        return Picture("neighbourhood.png", "render_neighbourhood",
                       (view, names.get(screen.hood_of, screen.hood_of)), str(HOOD_WORDS))
    return None


def build(interaction: discord.Interaction, fn: Any, match: Match, *args: Any
          ) -> tuple[CitiesScreen | str, Awaitable[list[discord.File]] | None]:
    """Build a screen from a snapshot of the match, so moves saved meanwhile cannot mix two
    boards; and the drawing of its picture, from the same snapshot, for ``show`` to wait
    for or let follow. On the event loop: a Cities screen takes about a millisecond, less
    than a worker thread would cost in taking turns at the GIL with the loop."""
    snapshot = copy.copy(match)
    screen = fn(snapshot, *args)
    picture = None if isinstance(screen, str) else picture_of(snapshot, screen)
    if picture is None:
        return screen, None
    return screen, drawn(interaction, "cities", picture, screen,
                         "could not draw a Cities picture; the buttons still work")
