"""Sending a screen: its items wrapped in Big City's components, its preview drawn."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any, TypeVar

import discord

from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.ui.game import Picture
from bot.ui.items import wrap as wrap_item
from bot.ui.replies import tell
from bot.ui.screens import PREVIEW_WORDS, Screen, drawn, named_view, show_screen

from .ids import Stamp

# -- sending ---------------------------------------------------------------------------


def wrap(item: discord.ui.Item[Any]) -> discord.ui.Item[Any]:
    """The component for a plain button or select, by its custom id."""
    # Imported here: the components send screens through this module, so it cannot import
    # theirs at load time.
    from .components import DYNAMIC_ITEMS

    return wrap_item(item, DYNAMIC_ITEMS)


async def show(interaction: discord.Interaction, match: Match, screen: Screen) -> None:
    """Show a screen privately: edit the private message it was asked from, or send one."""
    from .components import DYNAMIC_ITEMS

    pictures = None
    if screen.preview:
        # the view is taken now: the live match may change while the picture is drawn
        view, _names = named_view(ENGINE, match)
        preview = Picture("choices.png", "render_preview", (view, screen.preview),
                          PREVIEW_WORDS)
        pictures = drawn(interaction, "bigcity", preview, screen,
                         "could not draw a preview; the menu still works")
    await show_screen(interaction, match.id, screen, DYNAMIC_ITEMS, pictures)


T = TypeVar("T")


async def off_loop(fn: Callable[..., T], match: Match, *args: Any) -> T:
    """Build a screen in a worker thread (listing the legal moves can take ~10 ms), from a
    snapshot of the match, so that moves saved meanwhile cannot mix two boards."""
    return await asyncio.to_thread(fn, copy.copy(match), *args)


async def reply(interaction: discord.Interaction, match: Match, screen: Screen | str) -> None:
    """A screen, or the sentence that says why there is none."""
    if isinstance(screen, str):
        await tell(interaction, screen)
    else:
        await show(interaction, match, screen)


def guard_for(stamp: Stamp) -> dict[str, Any]:
    """How ``play`` ties the move to the board it was chosen on."""
    if stamp.kind == "v":
        return {"expected_version": stamp.number}
    check: Callable[[Match], bool] = stamp.holds
    return {"still_valid": check}
