"""Sending a screen: its preview drawn, the screen built off the event loop, and the guard
that ties a move to the board it was chosen on."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.ui.game import Picture
from bot.ui.screens import PREVIEW_WORDS, Screen, drawn, named_view

from .ids import Stamp

# -- sending ---------------------------------------------------------------------------


def preview_of(interaction: discord.Interaction, match: Match,
               screen: Screen) -> Awaitable[list[discord.File]] | None:
    """The drawing of the screen's preview picture, if it has one."""
    if not screen.preview:
        return None
    # the view is taken now: the live match may change while the picture is drawn
    view, _names = named_view(ENGINE, match)
    picture = Picture("choices.png", "render_preview", (view, screen.preview),
                      str(PREVIEW_WORDS))
    return drawn(interaction, "bigcity", picture, screen,
                 "could not draw a preview; the menu still works")


T = TypeVar("T")


async def off_loop(fn: Callable[..., T], match: Match, *args: Any) -> T:
    """Build a screen in a worker thread (listing the legal moves can take ~10 ms), from a
    snapshot of the match, so that moves saved meanwhile cannot mix two boards."""
    return await asyncio.to_thread(fn, copy.copy(match), *args)


def guard_for(stamp: Stamp) -> dict[str, Any]:
    """How ``play`` ties the move to the board it was chosen on."""
    if stamp.kind == "v":
        return {"expected_version": stamp.number}
    check: Callable[[Match], bool] = stamp.holds
    return {"still_valid": check}
