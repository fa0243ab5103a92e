"""Private screens: a game's reply to one player alone, with its buttons, menus and picture.

Big City's and Cities' choosers are made of these pieces:

- a ``Screen`` holds the words, the components as plain ``discord.ui`` items (``button``s,
  a paged menu from ``paged.py``) and the marks of a preview picture, if any;
- ``lettered_menu`` is the paged menu of choices lettered A, B, C… together with the marks
  of its page's choices, so that the picture and the menu letter the same choices;
- ``drawn`` draws a screen's picture with its alt text, ahead of the table refreshes (the
  player is waiting); a drawing failure loses only the picture;
- ``show_screen`` wraps the items in the game's DynamicItems (``items.components``), which
  handle their clicks, and answers the click with ``later.show_private``: by editing the
  private message the click came from, or with a new one; a slow picture follows.

Nothing here knows a game: the game names its render functions and its items.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.core.engine import JSON, Engine
from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.viewmemo import public_view
from bot.render.pool import Priority

from .game import Picture, display_names, fit_description, plain_text, rename_players
from .items import AnyGameItem, components
from .later import show_private
from .paged import Choice, letters, page_slice, paged_menu, shorten
from .play import cityhall
from .uploads import Upload

_ = Words("bot")
_l = _.lazy

log = logging.getLogger(__name__)

# The alt text's start for a preview picture: what it shows before the screen's words.
# A Text: a cog says it (``str(PREVIEW_WORDS)``) as it builds the screen's Picture; ``drawn``
# puts the space between it and the screen's words.
PREVIEW_WORDS = _l("The city with the choices below marked on it by letter.")


@dataclass
class Screen:
    """A private reply: text, components (plain items, wrapped on sending) and the choices
    to mark on a preview picture, if any."""

    text: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    preview: list[JSON] | None = None


def button(label: str, custom_id: str, *,
           style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None,
           emoji: str | None = None, disabled: bool = False) -> discord.ui.Button[Any]:
    """A plain button of a screen or table (its label cut to Discord's 80 characters)."""
    return discord.ui.Button(label=shorten(label, 80), custom_id=custom_id, style=style, row=row,
                             emoji=emoji, disabled=disabled)


def lettered_menu(choices: Sequence[Choice], actions: Sequence[JSON], page: int, *,
                  mark: Callable[[str, JSON], JSON], select_id: Callable[[int], str],
                  page_id: Callable[[int], str],
                  placeholder: str) -> tuple[list[discord.ui.Item[Any]], list[JSON]]:
    """A paged menu of ``choices`` lettered A, B, C… (``paged.paged_menu``), and the marks of
    the shown page's choices for a preview picture: ``mark(letter, action)`` for each, the
    ``actions`` matching ``choices`` one for one."""
    items = paged_menu(choices, page, select_id=select_id, page_id=page_id,
                       placeholder=placeholder)
    marks = [mark(letters(position), actions[position])
             for position in page_slice(len(choices), page)]
    return items, marks


def named_view(engine: Engine, match: Match) -> tuple[JSON, dict[str, str]]:
    """The public view with the players' display names in place of their ids (pictures draw
    whatever names a player), and those names."""
    assert match.state is not None
    names = display_names(match)
    return rename_players(public_view(engine, match.state), names), names


async def drawn(interaction: discord.Interaction, game: str, picture: Picture, screen: Screen,
                failure: str) -> list[discord.File]:
    """``picture`` of a private ``screen``, drawn by a render worker ahead of table refreshes
    (the player is waiting): ``bot.games.<game>.render.<function>(*args)``. Its alt text is
    ``picture.description`` (what it shows), then the screen's words, read once drawn: a
    caller may still add to them. A drawing failure loses only the picture; ``failure`` is
    logged."""
    try:
        png = await cityhall(interaction).pictures.render(
            game, picture.function, *picture.args, priority=Priority.INTERACTIVE)
    except Exception:
        log.exception(failure)
        return []
    description = fit_description(_described(picture.description) + plain_text(screen.text))
    return [Upload(png, picture.filename, description=description)]


def _described(description: str) -> str:
    """A picture's own words before the screen's, a space between them even where a
    translation lost the one its sentence ends with."""
    return description + " " if description[-1:] in (".", "!", "?", "…", ":") else description


async def show_screen(interaction: discord.Interaction, match_id: int, screen: Screen,
                      classes: Iterable[type[AnyGameItem]],
                      pictures: Awaitable[list[discord.File]] | None, *,
                      edit: bool | None = None) -> None:
    """Show ``screen`` privately, its items handled by the game's ``classes``: ``edit`` the
    private message the click came from (by default, when it came from one), or send a new
    one. ``pictures`` follow the words when slow to draw (``later.show_private``)."""
    if edit is None:
        message = interaction.message
        edit = message is not None and message.flags.ephemeral
    view = components(screen.items, classes) if screen.items else None
    await show_private(interaction, match_id, screen.text, view, pictures, edit=edit)
