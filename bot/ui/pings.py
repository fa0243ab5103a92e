"""Telling players it is their move: one short message that mentions exactly them.

Discord notifies nobody when a message is edited, and the table is edited after every
move, so the table itself can never tell a player it is their turn. A separate message
does, once per turn: when a player becomes due (the runtime restarts the turn clock then),
and never again for the same turn, whatever else is edited, re-posted or asked for with
/game status. Each new ping replaces the previous one of its match, and the last one goes
when the match ends, so pings do not pile up in the channel.

A minute before the computer plays for someone, one reminder mentions exactly those still
due, replacing the ping the same way. Only turns longer than two minutes get one (a shorter
turn is nearly over by then, and the ping is still fresh). Which ping is on screen, and who
was pinged for the turn running, is kept in the database (kv ``ping:<match>``), so a restart
neither leaves a ping behind nor pings anyone twice for one turn. Reminders are timers in memory:
after a restart a turn gets its reminder only if it is still more than a minute (the
restart's grace) away, so a restarted bot never sends a burst of reminders that are due, or
were already sent, at once (docs/channel.md).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.core.alarms import Alarms
from bot.core.keyedlocks import KeyedLocks
from bot.core.records import ACTIVE, Match

from .replies import plain_name

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


# A reminder goes out this long before the computer plays for whoever is due, for turns
# longer than REMIND_MIN_TURN.
REMIND_BEFORE = 60.0
REMIND_MIN_TURN = 120.0


KEY = "ping:"  # + match id: a match's _Sent in the database's kv table


@dataclass
class _Sent:
    """What a match's pings have done so far in the turn that is running. Kept in the
    database too, so that after a restart the ping on screen is still the one replaced by
    the next, and nobody is pinged twice for one turn."""

    channel_id: int
    turn: float | None = None  # the runtime's turn_started_at of the turn pinged for
    pinged: set[str] = field(default_factory=set)
    message_id: int | None = None  # the ping on screen, removed when the next one goes out
    # The match's server: with shards, the process owning the server's shard alone may
    # restore or remove this (None in records saved before 30 Nov: looked up at restore).
    guild_id: int | None = None

    def to_json(self) -> str:
        return json.dumps({"channel_id": self.channel_id, "turn": self.turn,
                           "pinged": sorted(self.pinged), "message_id": self.message_id,
                           "guild_id": self.guild_id})

    @classmethod
    def from_json(cls, text: str) -> _Sent:
        data = json.loads(text)
        guild = data.get("guild_id")
        return cls(int(data["channel_id"]), data.get("turn"), set(data.get("pinged") or []),
                   data.get("message_id"), None if guild is None else int(guild))


def deadline_text(deadline: float | None) -> str:
    """The turn's end as a Discord timestamp, which every reader sees counting down in
    their own time zone ("in 3 minutes")."""
    return "" if deadline is None else f"<t:{int(deadline)}:R>"


class TurnPings:
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self._sent: dict[int, _Sent] = {}
        self._locks = KeyedLocks()
        self.remind_before = REMIND_BEFORE
        self.remind_min_turn = REMIND_MIN_TURN
        # Per match: the turn a reminder is planned for (its clock start and deadline), when
        # it goes out (the runtime's clock) and whether it is still to go out (False: this
        # turn gets none, or it went out). The timers are alarms, one loop timer for all.
        self._reminders: dict[int, tuple[tuple[float, float], float, bool]] = {}
        self._alarms = Alarms(self._ring, lambda: self.bot.runtime.clock())

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
        async with self._locks(match_id):
            match = self.bot.runtime.get(match_id)
            if match is None or match.status != ACTIVE:
                await self._finish(match_id)
                return
            sent = self._sent.setdefault(match_id, _Sent(match.channel_id,
                                                         guild_id=match.guild_id))
            if sent.turn != match.turn_started_at:
                sent.turn, sent.pinged = match.turn_started_at, set()
            self.plan(match)
            new = [p for p in self.humans_due(match) if p not in sent.pinged]
            if not new:
                return
            sent.pinged.update(new)
            turn = match.turn_started_at

            def still_due() -> bool:
                # A busy channel's ping waits its turn under Discord's limits; if the player
                # moved meanwhile, it would only notify them of a turn already over.
                latest = self.bot.runtime.get(match_id)
                return latest is not None and latest.turn_started_at == turn \
                    and any(p in self.humans_due(latest) for p in new)

            message_id = await self._send(match, self.text(match, new), new, still_due)
            if message_id is None:
                return
            old, sent.message_id = sent.message_id, message_id
            await self._remember(match_id, sent)
            if old is not None:
                await self._delete(match.channel_id, old)

    # -- the reminder a minute before the computer plays -----------------------------------

    def plan(self, match: Match, *, restored: bool = False) -> None:
        """Set the reminder timer for the turn now running, once per turn. ``restored``:
        the match was just loaded after a restart, when a reminder that is due within the
        restart's grace either went out before the restart or would go out at once with
        every other game's: skipped."""
        deadline = self.bot.runtime.deadline(match)
        if match.status != ACTIVE or deadline is None or match.turn_started_at is None:
            self._cancel(match.id)
            return
        key = (match.turn_started_at, deadline)
        planned = self._reminders.get(match.id)
        if planned is not None and planned[0] == key:
            return  # others acting leave the turn, and its reminder, as they were
        self._cancel(match.id)
        now = self.bot.runtime.clock()
        at = deadline - self.remind_before
        soonest = now
        if restored:
            soonest = now + max(0.0, self.bot.runtime.limits.restart_grace - self.remind_before)
        due = deadline - match.turn_started_at > self.remind_min_turn and at > soonest
        if due:
            self._alarms.set(match.id, at)
        self._reminders[match.id] = (key, at, due)

    def _ring(self, match_id: int) -> None:
        planned = self._reminders.get(match_id)
        if planned is not None and planned[2]:
            self.bot.background(self.remind(match_id, planned[0]))

    def reminder_at(self, match_id: int) -> float | None:
        """When the match's reminder for the turn running goes out (the runtime's clock);
        None when this turn gets none, or it went out."""
        planned = self._reminders.get(match_id)
        return planned[1] if planned is not None and planned[2] else None

    def _cancel(self, match_id: int) -> None:
        self._reminders.pop(match_id, None)
        self._alarms.cancel(match_id)

    def close(self) -> None:
        """Stopping: no reminder goes out any more (the next start plans them again)."""
        self._reminders.clear()
        self._alarms.close()

    async def remind(self, match_id: int, key: tuple[float, float]) -> None:
        """The reminder for the turn ``key``, if that turn is still running: one message
        mentioning exactly the humans still due, in place of the match's last ping."""
        async with self._locks(match_id):
            planned = self._reminders.get(match_id)
            if planned is not None and planned[0] == key:
                self._reminders[match_id] = (key, planned[1], False)  # it goes out now
            match = self.bot.runtime.get(match_id)
            if match is None or match.status != ACTIVE or self.bot.draining:
                return
            deadline = self.bot.runtime.deadline(match)
            if (match.turn_started_at, deadline) != key or deadline is None \
                    or deadline <= self.bot.runtime.clock():
                return  # the turn moved on meanwhile, or is up already
            players = self.humans_due(match)
            if not players:
                return
            message_id = await self._send(match, self.reminder_text(match, players), players)
            if message_id is None:
                return
            sent = self._sent.setdefault(match_id, _Sent(match.channel_id,
                                                         guild_id=match.guild_id))
            if sent.turn != match.turn_started_at:
                sent.turn, sent.pinged = match.turn_started_at, set()
            sent.pinged.update(players)  # reminded counts as told: no second ping this turn
            old, sent.message_id = sent.message_id, message_id
            await self._remember(match_id, sent)
            if old is not None:
                await self._delete(match.channel_id, old)

    def reminder_text(self, match: Match, players: list[str]) -> str:
        title = self.bot.adapters[match.game].engine.title
        mentions = ", ".join(f"<@{p}>" for p in players)
        ends = deadline_text(self.bot.runtime.deadline(match))
        left = round(self.remind_before)
        amount = "one minute" if left == 60 else \
            f"{left // 60} minutes" if left % 60 == 0 else f"{left} seconds"
        engine = self.bot.runtime.engine(match)
        assert match.state is not None
        after = ("the window closes" if engine.timeout_action(match.state) is not None
                 else "the computer player moves for you")
        return (f"⏳ {mentions}: {amount} left for your move in **{plain_name(title)}** — "
                f"then {after} ({ends}).")

    async def finish(self, match_id: int) -> None:
        """The match is over or ended: take its last ping away."""
        async with self._locks(match_id):
            await self._finish(match_id)

    async def _finish(self, match_id: int) -> None:
        self._cancel(match_id)
        sent = self._sent.pop(match_id, None)
        if sent is not None:
            await self._forget(match_id)
        if sent is not None and sent.message_id is not None:
            await self._delete(sent.channel_id, sent.message_id)

    # -- what was sent, across restarts ----------------------------------------------------

    async def restore(self, unfinished: set[int]) -> None:
        """Take back what the pings of unfinished matches had done before the restart; drop
        what is kept of matches that ended meanwhile (their last ping, if any, is deleted).
        With shards, only this process's servers' pings: another process's are live, and
        its matches are not in ``unfinished`` because they are not this process's."""
        gone: list[str] = []
        for key, text in await self.bot.storage.values_with_prefix(KEY):
            try:
                match_id = int(key[len(KEY):])
                sent = _Sent.from_json(text)
            except (ValueError, KeyError, TypeError):
                gone.append(key)  # not ours to read: forget it rather than fail the start
                continue
            if match_id in unfinished:
                self._sent[match_id] = sent
                continue
            if not await self._owned(match_id, sent):
                continue
            gone.append(key)
            if sent.message_id is not None:
                self.bot.background(self._delete(sent.channel_id, sent.message_id))
        if gone:
            await self.bot.storage.delete_values(gone)

    async def _owned(self, match_id: int, sent: _Sent) -> bool:
        """Whether this process owns the server of a ping's match (always, without shards).
        A record without its server names it through its match; one whose match is gone
        is nobody's, so whoever restarts first may clear it."""
        shards = self.bot.runtime.shards
        if shards is None or shards.everything:
            return True
        guild = sent.guild_id
        if guild is None:
            match = await self.bot.storage.get(match_id)
            if match is None:
                return True
            guild = match.guild_id
        return shards.owns(guild)

    async def _remember(self, match_id: int, sent: _Sent) -> None:
        try:
            await self.bot.storage.set_value(f"{KEY}{match_id}", sent.to_json())
        except Exception:
            # Only a restart's memory of the ping is lost (it may ping this turn again).
            log.warning("Could not save which ping is on screen for match %s.", match_id,
                        exc_info=True)

    async def _forget(self, match_id: int) -> None:
        try:
            await self.bot.storage.delete_values([f"{KEY}{match_id}"])
        except Exception:
            log.warning("Could not forget the pings of match %s.", match_id, exc_info=True)

    def text(self, match: Match, players: list[str]) -> str:
        title = self.bot.adapters[match.game].engine.title
        mentions = ", ".join(f"<@{p}>" for p in players)
        ends = deadline_text(self.bot.runtime.deadline(match))
        asked, deadline = self.bot.adapters[match.game].due_words(match)
        tail = f" — {deadline} {ends}" if ends else ""
        return f"⏰ {mentions}: {asked} in **{plain_name(title)}**{tail}."

    async def _send(self, match: Match, text: str, players: list[str],
                    still_due: Callable[[], bool] | None = None) -> int | None:
        channel = self.bot.get_partial_messageable(match.channel_id)
        # Exactly these players are notified, whatever else the text holds.
        allowed = discord.AllowedMentions(
            everyone=False, roles=False, replied_user=False,
            users=[discord.Object(int(p)) for p in players])
        await self.bot.tables.pacing.wait("send", match.channel_id)
        if still_due is not None and not still_due():
            return None
        try:
            message = await channel.send(text, allowed_mentions=allowed)
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
