"""Telling players it is their move: one short message that mentions exactly them.

Discord notifies nobody when a message is edited, and the table is edited after every
move, so the table itself can never tell a player it is their turn. A separate message
does, once per turn: when a player becomes due (the runtime restarts the turn clock then),
and never again for the same turn, whatever else is edited, re-posted or asked for with
/game status. Each new ping replaces the previous one of its match, and the last one goes
when the match ends, so pings do not pile up in the channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.core.records import ACTIVE, Match

from .replies import plain_name

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


@dataclass
class _Sent:
    """What a match's pings have done so far in the turn that is running."""

    channel_id: int
    turn: float | None = None  # the runtime's turn_started_at of the turn pinged for
    pinged: set[str] = field(default_factory=set)
    message_id: int | None = None  # the ping on screen, removed when the next one goes out


def deadline_text(deadline: float | None) -> str:
    """The turn's end as a Discord timestamp, which every reader sees counting down in
    their own time zone ("in 3 minutes")."""
    return "" if deadline is None else f"<t:{int(deadline)}:R>"


class TurnPings:
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self._sent: dict[int, _Sent] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def humans_due(self, match: Match) -> list[str]:
        if match.status != ACTIVE or match.state is None:
            return []
        due = self.bot.runtime.engine(match).to_act(match.state)
        # Computer players have no one to notify; ids that are not snowflakes cannot be
        # mentioned.
        return [p for p in due if (s := match.seat(p)) is not None and not s.cpu
                and p.isascii() and p.isdigit()]

    async def update(self, match_id: int) -> None:
        """Ping whoever became due since the last ping of this match, from its latest
        saved state; remove the last ping once the match is over."""
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            match = self.bot.runtime.get(match_id)
            if match is None or match.status != ACTIVE:
                await self._finish(match_id)
                return
            sent = self._sent.setdefault(match_id, _Sent(match.channel_id))
            if sent.turn != match.turn_started_at:
                sent.turn, sent.pinged = match.turn_started_at, set()
            new = [p for p in self.humans_due(match) if p not in sent.pinged]
            if not new:
                return
            sent.pinged.update(new)
            message_id = await self._send(match, new)
            if message_id is None:
                return
            old, sent.message_id = sent.message_id, message_id
            if old is not None:
                await self._delete(match.channel_id, old)
        if self.bot.runtime.get(match_id) is None and not lock.locked():
            self._locks.pop(match_id, None)

    async def finish(self, match_id: int) -> None:
        """The match is over or ended: take its last ping away."""
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            await self._finish(match_id)
        if not lock.locked():
            self._locks.pop(match_id, None)

    async def _finish(self, match_id: int) -> None:
        sent = self._sent.pop(match_id, None)
        if sent is not None and sent.message_id is not None:
            await self._delete(sent.channel_id, sent.message_id)

    def text(self, match: Match, players: list[str]) -> str:
        title = self.bot.adapters[match.game].engine.title
        mentions = ", ".join(f"<@{p}>" for p in players)
        ends = deadline_text(self.bot.runtime.deadline(match))
        tail = f" — time runs out {ends}" if ends else ""
        return f"⏰ {mentions}: your move in **{plain_name(title)}**{tail}."

    async def _send(self, match: Match, players: list[str]) -> int | None:
        channel = self.bot.get_partial_messageable(match.channel_id)
        # Exactly these players are notified, whatever else the text holds.
        allowed = discord.AllowedMentions(
            everyone=False, roles=False, replied_user=False,
            users=[discord.Object(int(p)) for p in players])
        await self.bot.tables.pacing.wait("send", match.channel_id)
        try:
            message = await channel.send(self.text(match, players), allowed_mentions=allowed)
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            # The table still says whose turn it is; only the notification is missing.
            log.info("Could not ping the players due in match %s: %s", match.id, exc)
            return None
        return message.id

    async def _delete(self, channel_id: int, message_id: int) -> None:
        await self.bot.tables.pacing.wait("delete", channel_id)
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        # Someone may have deleted it already, or the channel is gone: nothing to tidy.
        with contextlib.suppress(discord.HTTPException, TimeoutError, aiohttp.ClientError):
            await message.delete()
