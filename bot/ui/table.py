"""The table message: one per match, re-drawn after every move.

Rendering runs in a worker thread so a picture never holds up other channels' clicks.
Refreshes of one match are serialised and coalesced: whoever publishes reads the latest
state, so a burst of moves ends with the newest board on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.core.records import ACTIVE, LOBBY, Match

from .replies import NO_MENTIONS, USER_MENTIONS

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


@dataclass
class TablePayload:
    content: str
    png: bytes | None
    view: discord.ui.View | None
    embed: discord.Embed | None = None

    def file(self) -> discord.File | None:
        return None if self.png is None else discord.File(io.BytesIO(self.png), "table.png")

    def send_kwargs(self) -> dict:
        kwargs: dict = {"content": self.content, "allowed_mentions": USER_MENTIONS}
        if self.embed is not None:
            kwargs["embed"] = self.embed
        if (f := self.file()) is not None:
            kwargs["file"] = f
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict:
        f = self.file()
        return {
            "content": self.content,
            "embed": self.embed,
            "attachments": [] if f is None else [f],
            "view": self.view,
            "allowed_mentions": NO_MENTIONS,
        }


class Tables:
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._dirty: set[int] = set()
        # The state version each match's table message shows now (tests and the benchmark
        # wait on it; it also tells a refresh apart from a no-op).
        self.shown: dict[int, int] = {}

    async def payload(self, match: Match) -> TablePayload:
        from .lobby import lobby_payload

        if match.status == LOBBY:
            return lobby_payload(self.bot, match)
        adapter = self.bot.adapters[match.game]
        png = await asyncio.to_thread(adapter.render_table, match)
        items = adapter.table_items(match) if match.status == ACTIVE else []
        view = None
        if items:
            view = discord.ui.View(timeout=None)
            for item in items:
                view.add_item(item)
        return TablePayload(adapter.table_content(match), png, view)

    async def refresh(self, match_id: int) -> None:
        """Re-draw the table message in place with the match's latest state."""
        self._dirty.add(match_id)
        async with self._locks.setdefault(match_id, asyncio.Lock()):
            if match_id not in self._dirty:
                return  # a refresh that started after our change already showed it
            self._dirty.discard(match_id)
            match = await self.bot.runtime.fetch(match_id)
            if match is None or match.table_message_id is None:
                return
            payload = await self.payload(match)
            message = self.bot.get_partial_messageable(match.channel_id).get_partial_message(
                match.table_message_id)
            version = match.version
            try:
                await message.edit(**payload.edit_kwargs())
                self.shown[match_id] = version
            except discord.NotFound:
                # Someone deleted the table: post a fresh one so the game can go on.
                await self.repost(match)
            except discord.HTTPException:
                log.exception("could not refresh the table of match %s", match_id)

    async def repost(self, match: Match) -> discord.Message | None:
        """Post the table anew at the bottom of the channel and retire the old message."""
        version = match.version
        payload = await self.payload(match)
        channel = self.bot.get_partial_messageable(match.channel_id)
        try:
            message = await channel.send(**payload.send_kwargs())
        except discord.HTTPException:
            log.exception("could not post the table of match %s", match.id)
            return None
        await self.retire(match)
        await self.bot.runtime.set_table_message(match.id, message.id)
        match.table_message_id = message.id
        self.shown[match.id] = version
        return message

    async def retire(self, match: Match, note: str = "This board moved further down ⬇️") -> None:
        """Take the buttons off an old table message so nobody plays on it."""
        if match.table_message_id is None:
            return
        old = self.bot.get_partial_messageable(match.channel_id).get_partial_message(
            match.table_message_id)
        # Already gone or not editable: then there is nothing to retire.
        with contextlib.suppress(discord.HTTPException):
            await old.edit(content=note, view=None, allowed_mentions=NO_MENTIONS)
