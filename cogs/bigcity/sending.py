"""Sending a screen: wrapping its items, drawing its picture."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import discord

from bot.core.engine import JSON
from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.render.pool import Priority
from bot.ui.game import display_names, fit_description, plain_text, rename_players
from bot.ui.items import components
from bot.ui.items import wrap as wrap_item
from bot.ui.later import show_private
from bot.ui.play import cityhall
from bot.ui.replies import tell
from bot.ui.uploads import Upload

from .ids import Stamp
from .screens import Screen

log = logging.getLogger(__name__)


# -- sending ---------------------------------------------------------------------------


def view_of(items: list[discord.ui.Item[Any]]) -> discord.ui.View:
    # Imported here: the components send screens through this module, so it cannot import
    # theirs at load time.
    from .components import DYNAMIC_ITEMS

    return components(items, DYNAMIC_ITEMS)


def wrap(item: discord.ui.Item[Any]) -> discord.ui.Item[Any]:
    """The component for a plain button or select, by its custom id."""
    from .components import DYNAMIC_ITEMS

    return wrap_item(item, DYNAMIC_ITEMS)


def public_named_view(match: Match) -> JSON:
    assert match.state is not None
    return rename_players(ENGINE.view(match.state, None), display_names(match))


def preview_description(text: str) -> str:
    """A private preview's alt text: what it marks, then the reply's own words."""
    return fit_description("The city with the choices below marked on it by letter. "
                           + plain_text(text))


async def show(interaction: discord.Interaction, match: Match, screen: Screen) -> None:
    """Show a screen privately: edit the private message it was asked from, or send one."""
    message = interaction.message
    edit = message is not None and message.flags.ephemeral
    # the view is taken now: the live match may change while the picture is drawn
    pictures = (draw_preview(interaction, public_named_view(match), screen.preview,
                             preview_description(screen.text))
                if screen.preview else None)
    await show_private(interaction, match.id, screen.text, view_of(screen.items), pictures,
                       edit=edit)


async def draw_preview(interaction: discord.Interaction, view: JSON,
                       preview: list[JSON], description: str) -> list[discord.File]:
    """The preview picture, drawn by a render worker ahead of table refreshes (the player
    is waiting). A drawing failure loses only the picture."""
    files: list[discord.File] = []
    try:
        png = await cityhall(interaction).pictures.render(
            "bigcity", "render_preview", view, preview,
            priority=Priority.INTERACTIVE)
        files.append(Upload(png, "choices.png", description=description))
    except Exception:
        log.exception("could not draw a preview; the menu still works")
    return files


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
