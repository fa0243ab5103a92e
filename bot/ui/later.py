"""A private screen answered at once, its picture following when it is slow to draw.

Discord fails a click that is not answered within 3 s, and a player waiting for a menu
should not wait for its picture. A private picture (a preview with lettered choices, a
neighbourhood) is drawn by the render workers ahead of table refreshes, which takes tens of
milliseconds, except when hundreds of players click at once: after a restart every
player's first click wants a preview, and two workers draw them one by one. So the answer
waits for its picture only briefly (not at all when the pictures queued ahead of it cannot
be drawn in that time); past that it goes out with the words and the menus, and the picture
is put in by editing that answer once drawn.

A late picture lands only on the screen it was drawn for: if the player has moved on to
another screen of the same match meanwhile, it is dropped.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any

import discord

from bot.core.i18n import Words
from bot.render.pool import Priority, RenderPool

from .deferral import edit_answer
from .replies import NO_MENTIONS

_ = Words("bot")
_l = _.lazy

log = logging.getLogger(__name__)

# Long enough that an idle bot always answers with its picture (a preview takes 10-60 ms),
# short enough that a click queued behind hundreds of pictures is still answered well
# inside Discord's 3 s.
PICTURE_WAIT_S = 0.4
# When the pictures queued ahead would take longer than this, the answer does not wait at
# all. Waiting "up to 0.4 s" under load meant that, with the render workers just saturated
# (100 clicks a second), a good share of clicks waited the whole 0.4 s and then went without
# their picture anyway: the wait is only worth it when the picture is nearly ready.
PICTURE_BUSY_S = 0.1
# The English, which tests look for; said with ``_(DRAWING)`` in the clicker's language.
DRAWING = _l("🖼️ The picture is on its way…").message


def picture_wait(pictures: RenderPool, wait: float = PICTURE_WAIT_S) -> float:
    """How long an answer may wait for its picture: ``wait``, or not at all when the
    render workers are busy (the pictures queued ahead of it would take longer than
    ``PICTURE_BUSY_S``). The one rule for every answer that carries a picture (private
    screens here, tables in ``Tables``)."""
    busy = pictures.expected_wait(Priority.INTERACTIVE) > min(wait, PICTURE_BUSY_S)
    return 0.0 if busy else wait


async def drawn_within(drawing: asyncio.Future[Any], wait: float) -> bool:
    """Whether ``drawing`` is done after at most ``wait`` seconds (never waits for 0)."""
    if wait > 0 and not drawing.done():
        await asyncio.wait({drawing}, timeout=wait)
    return drawing.done()


class ScreenTokens:
    """The newest private screen of each (match, player): a late picture checks it is still
    for the newest. Bounded: the oldest entries go first, and a forgotten screen only loses
    a late picture."""

    KEPT = 20_000

    def __init__(self) -> None:
        self._newest: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._counter = itertools.count(1)

    def open(self, match_id: int, user_id: int) -> int:
        token = next(self._counter)
        key = (match_id, user_id)
        self._newest[key] = token
        self._newest.move_to_end(key)
        while len(self._newest) > self.KEPT:
            self._newest.popitem(last=False)
        return token

    def is_newest(self, match_id: int, user_id: int, token: int) -> bool:
        return self._newest.get((match_id, user_id)) == token

    def __len__(self) -> int:
        return len(self._newest)


SCREENS = ScreenTokens()


async def show_private(interaction: discord.Interaction, match_id: int, content: str,
                       view: discord.ui.View | None,
                       pictures: Awaitable[list[discord.File]] | None, *, edit: bool,
                       wait: float | None = None) -> None:
    """Answer a click with a private screen: ``edit`` the private message the click came
    from, or send a new ephemeral one. ``pictures`` (drawn concurrently; a drawing failure
    must come back as no pictures) are included if ready within ``wait`` seconds, else they
    follow as an edit of the answer."""
    from .play import cityhall

    token = SCREENS.open(match_id, interaction.user.id)
    files: list[discord.File] = []
    later: asyncio.Future[list[discord.File]] | None = None
    if pictures is not None:
        patience = picture_wait(cityhall(interaction).pictures,
                                PICTURE_WAIT_S if wait is None else wait)
        drawing = asyncio.ensure_future(pictures)
        if await drawn_within(drawing, patience):
            files = drawing.result()
        else:
            later = drawing
    shown = content if later is None else f"{content}\n{_(DRAWING)}"
    try:
        await _answer(interaction, shown, view, files, edit=edit)
    except BaseException:
        if later is not None:
            later.cancel()
        raise
    if later is not None:
        cityhall(interaction).background(
            _picture_follows(interaction, match_id, token, content, later))


async def _answer(interaction: discord.Interaction, content: str, view: discord.ui.View | None,
                  files: list[discord.File], *, edit: bool) -> None:
    if edit:
        # an empty attachment list removes the previous screen's picture
        await interaction.response.edit_message(content=content, view=view, attachments=files,
                                                allowed_mentions=NO_MENTIONS)
        return
    kwargs: dict[str, Any] = {"ephemeral": True, "allowed_mentions": NO_MENTIONS,
                              "files": files}
    if view is not None:
        kwargs["view"] = view
    await interaction.response.send_message(content, **kwargs)


async def _picture_follows(interaction: discord.Interaction, match_id: int, token: int,
                           content: str, drawing: asyncio.Future[list[discord.File]]) -> None:
    files = await drawing
    if not SCREENS.is_newest(match_id, interaction.user.id, token):
        return  # the player has moved on; this picture belongs to a screen no longer shown
    try:
        await edit_answer(interaction, content=content, attachments=files,
                          allowed_mentions=NO_MENTIONS)
    except discord.HTTPException:
        # The words and menus were answered already; only the picture is lost.
        log.warning("Could not put a late picture on a private screen (match %d).", match_id,
                    exc_info=True)
