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

A ping goes out as a follow-up of the match's latest click in its channel (usually the
move that made the player due; after a computer's move, the human click before it), through
that interaction's webhook, and the ping it replaces is deleted the same way, while the
click's token is valid (15 minutes): Discord does not count interaction webhooks against the
bot's global limit of 50 requests a second, which the tables' edits need on a busy server
(issue 25; docs/channel.md). With no such click (after a restart, a quiet quarter of an
hour), a click answered by a "thinking…" message (its first follow-up would replace that
private message), and when Discord refuses the follow-up, a ping goes through the channel.

Each ping carries a link to the live table (its jump URL), so a player in a busy channel gets
to the board in one tap. Each player chooses with /notify how they are told, in every server:
in the channel (the default), by direct message, or not at all (kv ``user:<id>:notify``). A
direct message Discord refuses (the player does not take them from the bot) falls back to the
channel; "off" means no ping and no reminder, the table alone saying whose turn it is.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.core.alarms import Alarms
from bot.core.i18n import Words, speaking
from bot.core.keyedlocks import KeyedLocks
from bot.core.records import ACTIVE, Match

from .components import Components
from .replies import plain_name

_ = Words("bot")
_n = _.plural

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


# A reminder goes out this long before the computer plays for whoever is due, for turns
# longer than REMIND_MIN_TURN.
REMIND_BEFORE = 60.0
REMIND_MIN_TURN = 120.0


KEY = "ping:"  # + match id: a match's _Sent in the database's kv table

# How a player is told it is their move (/notify), the same in every server.
CHANNEL, DIRECT, OFF = "channel", "dm", "off"
WAYS = (CHANNEL, DIRECT, OFF)
# Discord's answer to a direct message the user does not take from the bot (403).
CANNOT_MESSAGE_USER = 50007
UNKNOWN_MESSAGE = 10008
# An interaction's token is not used this close to its 15 minutes' end: a request sent just
# before would arrive just after.
TOKEN_MARGIN = 30.0


def through_click(interaction: discord.Interaction | None,
                  match: Match) -> tuple[discord.Webhook, float] | None:
    """The webhook a ping may go through as a follow-up of ``interaction`` (the click that
    made someone due), and when its token runs out (epoch seconds); None where the ping
    must go through the channel: no click, a click in another channel, not answered yet, or
    answered by "thinking…" (its first follow-up would take that private message's place)."""
    if interaction is None or interaction.channel_id != match.channel_id:
        return None
    if not interaction.response.is_done() \
            or interaction.response.type == discord.InteractionResponseType.deferred_channel_message:
        return None
    expires = interaction.expires_at.timestamp() - TOKEN_MARGIN
    if expires <= time.time():
        return None
    return interaction.followup, expires


def notify_key(user_id: str) -> str:
    """A player's /notify choice in the database's kv table."""
    return f"user:{user_id}:notify"


def jump_url(match: Match) -> str:
    """The link that opens the match's live table (its channel, before there is one)."""
    where = f"https://discord.com/channels/{match.guild_id}/{match.channel_id}"
    return f"{where}/{match.table_message_id}" if match.table_message_id else where


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


class NotifyChoices:
    """Each player's /notify choice, read from the database once and then kept in memory.
    With shards in several processes another process may change a choice, so a choice read
    here is trusted for ``SHARED_FOR`` seconds only."""

    SHARED_FOR = 60.0

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self._known: dict[str, tuple[str, float]] = {}  # user -> (way, when it was read)
        # Every choice was read at start (``load``): alone, a player not known chose nothing,
        # so a restart's thousand catch-up pings cost no database read each.
        self._loaded = False

    async def load(self) -> None:
        """Read every stored choice in one query (at start, before the catch-up pings)."""
        now = time.monotonic()
        for key, way in await self.bot.storage.values_with_prefix("user:"):
            if key.endswith(":notify") and way in WAYS:
                self._known[key[len("user:"):-len(":notify")]] = (way, now)
        self._loaded = True

    def _alone(self) -> bool:
        shards = self.bot.runtime.shards
        return shards is None or shards.everything

    async def get(self, user_id: str) -> str:
        known = self._known.get(user_id)
        now = time.monotonic()
        if known is not None and (self._alone() or now - known[1] < self.SHARED_FOR):
            return known[0]
        if known is None and self._loaded and self._alone():
            return CHANNEL  # read at start, and every choice since was made here
        try:
            stored = await self.bot.storage.value(notify_key(user_id))
        except Exception:
            # A ping is still worth sending: the way last known, else the channel.
            log.warning("Could not read how player %s wants to be told.", user_id,
                        exc_info=True)
            return known[0] if known is not None else CHANNEL
        way = stored if stored in WAYS else CHANNEL
        self._known[user_id] = (way, now)
        return way

    async def set(self, user_id: str, way: str) -> None:
        if way not in WAYS:
            raise ValueError(f"not a way to be told: {way!r}")
        await self.bot.storage.set_value(notify_key(user_id), way)
        self._known[user_id] = (way, time.monotonic())


class TurnPings:
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self.choices = NotifyChoices(bot)
        # Players whose direct messages Discord refused: pinged in the channel until they
        # choose again with /notify (logged once, not every turn).
        self._no_direct: set[str] = set()
        self._sent: dict[int, _Sent] = {}
        # Pings sent as a click's follow-up (``through_click``): their message id -> the
        # click's webhook and when its token runs out, to delete them the same way. In
        # memory only (a token is a credential for 15 minutes), one per match at most.
        self._followups: OrderedDict[int, tuple[discord.Webhook, float]] = OrderedDict()
        # Each match's latest click in its channel whose webhook a ping may use (by match).
        self._clicks: OrderedDict[int, tuple[discord.Webhook, float]] = OrderedDict()
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

    FOLLOWUPS_KEPT = 20_000  # pings whose click's webhook is remembered, the newest

    async def update(self, match_id: int, via: discord.Interaction | None = None) -> None:
        """Ping whoever became due since the last ping of this match, from its latest
        saved state; remove the last ping once the match is over. ``via``: the click whose
        move this follows, whose webhook the ping goes through where it can."""
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
            webhook = self._webhook(match, via)  # remembered for the next pings too
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

            wanted, message_id = await self._tell(match, new, self.text, still_due, webhook)
            if wanted and message_id is None:
                return
            await self._replace(match, sent, message_id)

    def remember_click(self, match: Match, via: discord.Interaction) -> None:
        """Keep ``via`` for this match's next pings before they are worked out: the computer
        players answering a move at once are told before the move's own ping update, and
        their pings then go through this click too (outside Discord's global limit)."""
        self._webhook(match, via)

    def _webhook(self, match: Match, via: discord.Interaction | None = None,
                 ) -> tuple[discord.Webhook, float] | None:
        """The webhook of ``via``, else of the match's latest click, for a ping to go
        through (``through_click``); None: through the channel."""
        click = through_click(via, match)
        if click is not None:
            self._clicks[match.id] = click
            self._clicks.move_to_end(match.id)
            while len(self._clicks) > self.FOLLOWUPS_KEPT:
                self._clicks.popitem(last=False)
            return click
        click = self._clicks.get(match.id)
        if click is not None and click[1] <= time.time():
            del self._clicks[match.id]
            return None
        return click

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
            wanted, message_id = await self._tell(match, players, self.reminder_text,
                                                  webhook=self._webhook(match))
            if wanted and message_id is None:
                return
            sent = self._sent.setdefault(match_id, _Sent(match.channel_id,
                                                         guild_id=match.guild_id))
            if sent.turn != match.turn_started_at:
                sent.turn, sent.pinged = match.turn_started_at, set()
            sent.pinged.update(players)  # reminded counts as told: no second ping this turn
            await self._replace(match, sent, message_id)

    async def _replace(self, match: Match, sent: _Sent, message_id: int | None) -> None:
        """Remember what this turn's pings did; a new channel message takes the place of
        the one on screen. (Told only by direct message, or not at all: the channel's last
        ping stays, the one ping per match it may show.)"""
        old = sent.message_id
        if message_id is not None:
            sent.message_id = message_id
        await self._remember(match.id, sent)
        if old is not None and message_id is not None:
            await self._delete(match.channel_id, old)

    def _speaking(self, match: Match, reader: str | None) -> AbstractContextManager[str]:
        """The server's language; for a direct message (``reader``), the reader's own as
        their last click said it (the server's if they have not clicked since the start)."""
        language = self.bot.user_languages.get(reader) if reader is not None else None
        return speaking(language) if language else self.bot.speaking_to(match.guild_id)

    def reminder_text(self, match: Match, players: list[str], reader: str | None = None) -> str:
        """The reminder, in the server's language (a direct message: the reader's)."""
        with self._speaking(match, reader):
            game = plain_name(str(self.bot.adapters[match.game].engine.title))
            mentions = ", ".join(f"<@{p}>" for p in players)
            ends = deadline_text(self.bot.runtime.deadline(match))
            left = round(self.remind_before)
            amount = _("one minute") if left == 60 else \
                _n("{n} minute", "{n} minutes", left // 60) if left % 60 == 0 else \
                _n("{n} second", "{n} seconds", left)
            engine = self.bot.runtime.engine(match)
            assert match.state is not None
            if engine.timeout_action(match.state) is not None:
                return _("⏳ {mentions}: {amount} left for your move in **{game}** — then the "
                         "window closes ({when}).", mentions=mentions, amount=amount,
                         game=game, when=ends)
            return _("⏳ {mentions}: {amount} left for your move in **{game}** — then the "
                     "computer player moves for you ({when}).", mentions=mentions,
                     amount=amount, game=game, when=ends)

    async def finish(self, match_id: int) -> None:
        """The match is over or ended: take its last ping away."""
        async with self._locks(match_id):
            await self._finish(match_id)

    async def _finish(self, match_id: int) -> None:
        self._cancel(match_id)
        self._clicks.pop(match_id, None)
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
                await self._delete(sent.channel_id, sent.message_id)  # (in the background)
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

    def text(self, match: Match, players: list[str], reader: str | None = None) -> str:
        """The turn's ping, in the server's language (a direct message: the reader's)."""
        with self._speaking(match, reader):
            game = plain_name(str(self.bot.adapters[match.game].engine.title))
            mentions = ", ".join(f"<@{p}>" for p in players)
            ends = deadline_text(self.bot.runtime.deadline(match))
            asked, deadline = self.bot.adapters[match.game].due_words(match)
            if not ends:
                return _("⏰ {mentions}: {asked} in **{game}**.", mentions=mentions,
                         asked=asked, game=game)
            return _("⏰ {mentions}: {asked} in **{game}** — {deadline} {when}.",
                     mentions=mentions, asked=asked, game=game, deadline=deadline, when=ends)

    def to_the_table(self, match: Match, reader: str | None = None) -> Components:
        """The ping's link to the live table: one tap from a busy channel or a direct
        message to the board."""
        with self._speaking(match, reader):
            label = _("Jump to the table")
        view = Components()
        view.add_item(discord.ui.Button(label=label, url=jump_url(match)))
        return view

    # -- each player told their own way (/notify) --------------------------------------------

    async def way_of(self, user_id: str) -> str:
        """How the player is told it is their move: CHANNEL, DIRECT or OFF."""
        return await self.choices.get(user_id)

    async def choose(self, user_id: str, way: str) -> None:
        """The player's /notify choice, from now on in every server. Choosing again gives
        direct messages another try."""
        await self.choices.set(user_id, way)
        self._no_direct.discard(user_id)

    async def _tell(self, match: Match, players: list[str],
                    words: Callable[[Match, list[str], str | None], str],
                    still_due: Callable[[], bool] | None = None,
                    webhook: tuple[discord.Webhook, float] | None = None,
                    ) -> tuple[bool, int | None]:
        """Tell ``players`` each the way they chose: one direct message each to those who
        chose them, one channel message to those who chose the channel and to those whose
        direct message did not go (named in the order given), nothing to those who chose
        off. Whether a channel message was wanted, and its id (None: it did not go)."""
        ways = {p: await self.way_of(p) for p in players}
        here = {p for p in players if ways[p] == CHANNEL}
        for p in players:
            if ways[p] == DIRECT and not await self._direct(match, p, words(match, [p], p),
                                                           still_due):
                here.add(p)
        if not here:
            return False, None
        told = [p for p in players if p in here]
        return True, await self._send(match, words(match, told, None), told, still_due,
                                      webhook)

    async def _direct(self, match: Match, player: str, text: str,
                      still_due: Callable[[], bool] | None) -> bool:
        """A player's ping as a direct message. False when it did not go (the channel
        tells them instead)."""
        if player in self._no_direct:
            return False
        try:
            channel = await self.bot.create_dm(discord.Object(int(player)))
            if still_due is not None and not still_due():
                return True  # they moved meanwhile: nothing to tell
            await channel.send(text, allowed_mentions=_only(player),
                               view=self.to_the_table(match, player))
        except discord.Forbidden as exc:
            if exc.code == CANNOT_MESSAGE_USER:
                self._no_direct.add(player)
                log.info("Player %s takes no direct messages from the bot: their turns are "
                         "pinged in the channel.", player)
            else:
                log.info("Could not send player %s a direct message: %s", player, exc)
            return False
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            log.info("Could not send player %s a direct message: %s", player, exc)
            return False
        return True

    async def _send(self, match: Match, text: str, players: list[str],
                    still_due: Callable[[], bool] | None = None,
                    webhook: tuple[discord.Webhook, float] | None = None) -> int | None:
        if webhook is not None:
            sent = await self._follow_up(match, text, players, still_due, webhook)
            if sent is not False:
                return sent
        channel = self.bot.get_partial_messageable(match.channel_id)
        await self.bot.tables.pacing.wait("send", match.channel_id)
        if still_due is not None and not still_due():
            return None
        try:
            message = await channel.send(text, allowed_mentions=_only(*players),
                                         view=self.to_the_table(match))
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            # The table still says whose turn it is; only the notification is missing.
            log.info("Could not ping the players due in match %s: %s", match.id, exc)
            return None
        return message.id

    async def _follow_up(self, match: Match, text: str, players: list[str],
                         still_due: Callable[[], bool] | None,
                         webhook: tuple[discord.Webhook, float]) -> int | bool | None:
        """The ping as a follow-up of the click: its message id, None when nobody is due
        any more, False when Discord refused it (the channel sends it instead)."""
        if still_due is not None and not still_due():
            return None
        followup, expires = webhook
        try:
            message = await followup.send(text, allowed_mentions=_only(*players),
                                          view=self.to_the_table(match), wait=True)
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            log.info("Could not ping the players due in match %s through the click that "
                     "made them due (%s); pinging in the channel.", match.id, exc)
            return False
        self._followups[message.id] = (followup, expires)
        while len(self._followups) > self.FOLLOWUPS_KEPT:
            self._followups.popitem(last=False)
        return message.id

    async def _delete(self, channel_id: int, message_id: int) -> None:
        followup = self._followups.pop(message_id, None)
        if followup is not None and followup[1] > time.time():
            try:
                await followup[0].delete_message(message_id)
                return
            except discord.NotFound as exc:
                if exc.code == UNKNOWN_MESSAGE:
                    return  # someone deleted it already
            except (discord.HTTPException, TimeoutError, aiohttp.ClientError):
                pass  # the token no longer works: through the channel
        # Nobody waits for it: on its own, so that the next ping of the match (its lock)
        # never queues behind the tidying (pacing.TIDY_SHARE).
        self.bot.background(self._delete_in_channel(channel_id, message_id))

    async def _delete_in_channel(self, channel_id: int, message_id: int) -> None:
        await self.bot.tables.pacing.tidying("delete", channel_id)
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        # Someone may have deleted it already, or the channel is gone: nothing to tidy.
        with contextlib.suppress(discord.HTTPException, TimeoutError, aiohttp.ClientError):
            await message.delete()


def _only(*players: str) -> discord.AllowedMentions:
    """Exactly these players are notified, whatever else the text holds."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(int(p)) for p in players])
