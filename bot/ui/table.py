"""The table message: one per match, re-drawn after every move.

Rendering runs off the event loop (the bot's renderer) so a picture never holds up other
channels' clicks. Refreshes of one match are serialised and coalesced: whoever publishes
reads the latest saved state, so a burst of moves ends with the newest board on screen and a
channel never gets more edits than its moves need.

A channel shows one live board per match: news of a single move (a building and its points,
a timeout) is a line of the table's text rather than a message, and a table that is posted
anew (below a round's scoring, or by /game status) leaves its predecessor as one line of
text, without picture or buttons (docs/channel.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import os
from collections import OrderedDict, deque
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.core.i18n import Text, Words
from bot.core.keyedlocks import KeyedLocks
from bot.core.records import ABANDONED, ACTIVE, ENDED, LOBBY, OVER, Match
from bot.render.animated import ANIMATION, BUDGET_BYTES
from bot.render.pool import Priority, RenderPoolError, Superseded

from .components import Components
from .game import fit_description, plain_text
from .lobby import lobby_payload
from .pacing import ChannelPacing
from .payload import Drawn, TablePayload
from .pings import deadline_text
from .replies import NO_MENTIONS
from .tablehooks import TableHooks, edit_original

_ = Words("bot")
_l = _.lazy
_n = _.plural

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)


def channel_gone(exc: discord.HTTPException) -> bool:
    """The channel was deleted or the bot can no longer see it: the match cannot go on."""
    return exc.code in (UNKNOWN_CHANNEL, MISSING_ACCESS)


# Ended early or abandoned: no more redraws; the end path wrote the table's last words.
STOPPED = (ENDED, ABANDONED)

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013

# CITYHALL_ANIMATIONS=0 (or off, no, false): no animation on final tables (docs/rematch-and-
# animation.md), for an operator who wants none and for test runs that finish many games.
ANIMATIONS = os.environ.get("CITYHALL_ANIMATIONS", "1").strip().lower() not in (
    "0", "off", "no", "false")

# What a superseded table message says once its board is posted again below.
MOVED = _l("This board moved further down ⬇️")

NO_PICTURES = _l("I can't attach pictures in this channel (I'm missing the **Attach Files** "
                 "permission), so the table is shown without its picture. A server admin can "
                 "give me that permission here; the game goes on meanwhile.")


class Tables:
    """Publishes tables: coalesced per match (newest state wins), retried with backoff when
    Discord fails, without the picture where the bot may not attach files, and the match
    abandoned when its channel is gone."""

    RETRY_DELAYS = (1.0, 4.0, 15.0)
    SHOWN_KEPT = 4096  # finished matches whose shown version is remembered (tests, bench)
    NEWS_KEPT = 3  # folded notices a table shows, the newest last
    # Seconds an edit through a click on the table may take before the channel is tried.
    THROUGH_CLICK_PATIENCE = 4.0
    # The longest a table waits for a crowd of clicks to be answered (CityhallBot.CROWD).
    CROWD_PATIENCE = 2.0
    # Matches whose latest news pictures (a Big Cityz reveal, 40-90 KB of PNG) stay beside
    # their board: the most recently told. A match pushed out shows its board alone from its
    # next refresh, as after a restart; ten thousand running matches keep no more than these.
    NEWS_PICTURES_KEPT = 128

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot
        self._locks = KeyedLocks()
        self._dirty: set[int] = set()
        # The state version each match's table message shows now (tests and the benchmark
        # wait on it; it also tells a refresh apart from a no-op).
        self.shown: OrderedDict[int, int] = OrderedDict()
        # Channels where the bot may not attach files (told once, then tables go without).
        self.no_pictures: set[int] = set()
        self.pacing = ChannelPacing(bot.settings.rate_limit_scale, share=bot.shard_share)
        # What each running match's table message shows, so a refresh can tell that a click
        # on the table already brought it up to date (the version alone is not enough: a
        # match ends or is abandoned without a move).
        self._frames: dict[int, tuple[int, str, str]] = {}
        # Running matches whose table message carries its board picture now, with the
        # turn that board is of (``GameAdapter.turn_mark``): only those may keep it while
        # that turn is in progress (``_edit``). Not known after a restart, so the first
        # refresh then draws.
        self._pictured: dict[int, Hashable] = {}
        # Each running match's latest folded notices (one move's news, shown as lines of
        # the table). In memory only: after a restart a table starts without them.
        self._news: dict[int, deque[str]] = {}
        self._news_pictures: OrderedDict[int, list[Drawn]] = OrderedDict()
        # Finished matches' final tables as last sent (payload, message id), until their
        # animation is added or skipped (``animate``); and the animations being drawn.
        self._finals: dict[int, tuple[TablePayload, int]] = {}
        self._animating: set[int] = set()
        # Matches whose animation has run its course (added, skipped or failed): a final
        # table shown after that (its refresh came late) is not kept for it (~150 KB each).
        self._animated: OrderedDict[int, None] = OrderedDict()
        self._animations: set[asyncio.Task[None]] = set()
        # Each match's latest click on its table, whose webhook edits the table outside
        # Discord's global limit (bot/ui/tablehooks.py).
        self.hooks = TableHooks()

    def frame(self, match: Match) -> tuple[int, str, str] | None:
        if match.status == LOBBY:
            return None  # seats change without a move: a lobby is always drawn anew
        return match.version, match.status, self.content(match)

    def add_news(self, match_id: int, text: str, pictures: Sequence[Drawn] = ()) -> None:
        """One move's news, shown in the table's text from its next refresh on; its
        pictures, if it has any, go on the table message beside the board until the next
        news with pictures replaces them (a Big Cityz reveal until the next reveal)."""
        self._news.setdefault(match_id, deque(maxlen=self.NEWS_KEPT)).append(text)
        if pictures:
            self._news_pictures[match_id] = list(pictures)
            self._news_pictures.move_to_end(match_id)
            while len(self._news_pictures) > self.NEWS_PICTURES_KEPT:
                self._news_pictures.popitem(last=False)

    def news(self, match_id: int) -> list[str]:
        return list(self._news.get(match_id, ()))

    def mark_shown(self, match: Match, version: int) -> None:
        self.shown[match.id] = version
        self.shown.move_to_end(match.id)
        while len(self.shown) > self.SHOWN_KEPT:
            self.shown.popitem(last=False)
        if match.status != LOBBY:
            self.bot.background(self.bot.storage.mark_shown(match.id, version))

    async def payload(self, match: Match, *, picture: bool = True,
                      interactive: bool = False, keep_pictures: bool = False) -> TablePayload:
        """The table (or lobby) message as the channel sees it: in the server's language,
        its picture included, whoever's click asked for it (``keep_pictures``: an edit of
        the words and buttons that leaves the message's pictures as they are)."""
        with self.bot.speaking_to(match.guild_id):
            return await self._payload(match, picture and not keep_pictures, interactive,
                                       keep_pictures)

    async def _payload(self, match: Match, picture: bool, interactive: bool,
                       keep_pictures: bool = False) -> TablePayload:
        if match.status == LOBBY:
            return lobby_payload(self.bot, match)
        adapter = self.bot.adapters[match.game]
        png = None
        if picture and match.channel_id not in self.no_pictures:
            png = await self.bot.render_table(
                match, priority=Priority.INTERACTIVE if interactive else Priority.BACKGROUND)
        from .finished import finished_items

        items = adapter.table_items(match) if match.status == ACTIVE else finished_items(match)
        from .howto import with_how_to_play  # How to play, in a row with room
        items = with_how_to_play(match, items)
        view = None
        if items:
            view = Components()
            for item in items:
                view.add_item(item)
        description = self.description(match) if png is not None else ""
        extras = self._news_pictures.get(match.id, []) if png is not None else []
        return TablePayload(self.content(match), png, view, description=description,
                            extras=extras, keeps_pictures=keep_pictures)

    async def answer_payload(self, match: Match) -> TablePayload:
        """The table as the answer to a click on it (Start, a click on an outdated board):
        with its picture if that is drawn within ``PICTURE_WAIT_S``, at a player's priority;
        else without it, so the click is answered well inside Discord's 3 s whatever the
        render workers are busy with. ``payload.png is None`` then tells the caller to
        refresh the table afterwards, which puts the picture in."""
        from .later import drawn_within, picture_wait

        patience = picture_wait(self.bot.pictures)
        if not patience:
            return await self.payload(match, picture=False)
        drawing = asyncio.ensure_future(self.payload(match, interactive=True))
        if await drawn_within(drawing, patience):
            return drawing.result()
        drawing.cancel()  # its picture leaves the queue; the refresh draws a newer one
        with contextlib.suppress(asyncio.CancelledError):
            await drawing
        return await self.payload(match, picture=False)

    async def answer_with(self, interaction: discord.Interaction, match: Match, *,
                          ended: str | Text = "") -> None:
        """Answer a click on ``match``'s lobby by editing its message to what the match is
        now: the lobby as it stands; the table, when the click started the game (the message
        becomes the match's table message, its picture follows in a refresh when the answer
        went without one, computer players and the first turn's ping go on from there); or,
        when the click ended it (a lobby cancelled), ``ended`` alone."""
        if match.status in STOPPED:
            with self.bot.speaking_to(match.guild_id):
                said = str(ended)
            await interaction.response.edit_message(content=said, embed=None, view=None,
                                                    allowed_mentions=NO_MENTIONS)
            return
        if match.status == LOBBY:
            await interaction.response.edit_message(**(await self.payload(match)).edit_kwargs())
            return
        payload = await self.answer_payload(match)
        await interaction.response.edit_message(**payload.edit_kwargs())
        self._note_pictures(match, payload)
        if interaction.message is not None:
            await self.bot.runtime.set_table_message(match.id, interaction.message.id)
            # Start updated the lobby into the table: its picture and the first moves are
            # shown through this click (bot/ui/tablehooks.py).
            self.hooks.carry(match.id, interaction)
            if payload.png is None and match.channel_id not in self.no_pictures:
                self.bot.background(self.refresh(match.id))  # brings the picture
            else:
                # Saved too: else every table last changed by Start (a game nobody has
                # moved in yet) looked behind after a restart and was drawn and sent again.
                self.mark_shown(match, match.version)
        self.bot.driver.kick(match.id)
        self.bot.background(self.bot.pings.update(match.id, interaction))  # who plays first

    def content(self, match: Match) -> str:
        """The adapter's table text, the latest news, and when the turn runs out (unless
        the adapter says so), within Discord's 2,000 characters (the oldest news gives
        way first)."""
        text = self.bot.adapters[match.game].table_content(match)
        ends = deadline_text(self.bot.runtime.deadline(match))
        tail = "\n" + _("⏳ Time runs out {when}.", when=ends) \
            if ends and ends[:-2] not in text else ""
        news = self.news(match.id)
        while news and len(text) + len(tail) + sum(len(n) + 1 for n in news) > 2000:
            news.pop(0)
        return "\n".join([text, *news]) + tail

    def description(self, match: Match) -> str:
        """The table picture's alt text: the adapter's words for the board, then the
        latest news (what changed)."""
        text = self.bot.adapters[match.game].picture_description(match)
        news = self.news(match.id)
        if news:
            text += " " + _("Latest: {news}", news=plain_text("\n".join(news), match))
        return fit_description(text)

    async def refresh(self, match_id: int) -> None:
        """Re-draw the table message in place with the match's latest state."""
        self._dirty.add(match_id)
        async with self._locks(match_id):
            if match_id in self._dirty:
                self._dirty.discard(match_id)
                await self._publish(match_id)
        if self.bot.runtime.get(match_id) is None and not self._locks.locked(match_id):
            # finished: nothing more to publish
            self._frames.pop(match_id, None)
            self._pictured.pop(match_id, None)
            self._news.pop(match_id, None)
            self.hooks.forget(match_id)
            self._news_pictures.pop(match_id, None)

    async def _publish(self, match_id: int) -> None:
        for delay in (*self.RETRY_DELAYS, None):
            # Newest state wins: each attempt draws what is saved now.
            match = await self.bot.runtime.fetch(match_id)
            if match is None or match.table_message_id is None or match.status in STOPPED:
                return  # a match stopped early: its table says so (``end``), keep it
            try:
                await self._edit(match)
                return
            except Superseded:
                return  # a newer refresh of this match draws it
            except discord.NotFound as exc:
                if exc.code == UNKNOWN_MESSAGE:
                    # Someone deleted the table: post a fresh one so the game can go on.
                    await self._repost(match)
                else:
                    await self.bot.channel_lost(match, exc)
                return
            except discord.Forbidden as exc:
                if channel_gone(exc):
                    await self.bot.channel_lost(match, exc)
                    return
                if exc.code == MISSING_PERMISSIONS and match.channel_id not in self.no_pictures:
                    await self.pictures_refused(match)
                    continue  # at once, without the picture
                log.warning("Not allowed to show the table of match %s in channel %s: %s",
                            match.id, match.channel_id, exc.text)
                return
            except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
                if delay is None or self.bot.draining:
                    # At shutdown the next start re-draws it (its table_version says so).
                    log.warning("Gave up showing the table of match %s: %s", match.id, exc)
                    return
                log.info("Table of match %s not shown (%s); trying again in %.0f s.",
                         match.id, exc, delay)
                await asyncio.sleep(delay)

    async def _edit(self, match: Match) -> None:
        assert match.table_message_id is not None
        if self._up_to_date(match):
            return  # shown already (by the refresh of a move after it): no turn in the pacing
        # The answers to a crowd of clicks (a restart) first; newest state wins after it.
        await self.bot.crowd_passed(self.CROWD_PATIENCE)
        # An edit through a click's token is outside the bot's global limit, as Discord
        # counts interaction requests: it waits for its channel's window only. Paced
        # against the global 45 a second as well, tables fell seconds behind at 100 clicks
        # a second (~50 edits a second, ~2 global requests). One that ends up going
        # through the channel is paced globally right before it is sent (RequestGate).
        through_click = self.hooks.carries(match.id, match.table_message_id)
        await self.pacing.wait("edit", match.channel_id, counts_globally=not through_click)
        # What is saved by now is what goes out: frames the channel could not show in time
        # were skipped while waiting.
        live = await self.bot.runtime.fetch(match.id) or match
        # A turn in progress (a Cities player placing what they took) changes the words and
        # buttons at once; its board is drawn when the turn ends (docs/channel.md).
        drawn = not self._words_only(live)
        # A board to draw waits for its turn before its snapshot is taken: thousands of
        # tables behind (a restart's crowd on a slow host) wait as match ids, and each
        # draws what is saved when its turn comes (bot/render/pool.py, ``turn``).
        async with self.bot.pictures.turn() if drawn else contextlib.nullcontext():
            # A snapshot: the runtime updates a match in place when a move commits, and
            # what goes out (picture, text, buttons) and what is remembered as shown must
            # all be one board, even if the next move lands while this one is drawn or sent.
            match = copy.copy(await self.bot.runtime.fetch(match.id) or live)
            if match.table_message_id is None:
                return
            frame = self.frame(match)
            if frame is not None and self._frames.get(match.id) == frame:
                return  # a click on the table brought it up to date meanwhile
            payload = await self.payload(match, keep_pictures=self._words_only(match))
        if frame is not None and self._frames.get(match.id) == frame:
            return
        # The table may have moved while this was drawn: the board goes to the message that
        # is the table now, never back onto a superseded one.
        now = self.bot.runtime.get(match.id)
        message_id = match.table_message_id if now is None else now.table_message_id
        if message_id is None:
            return
        await self._send_edit(match, message_id, payload)
        self._note_pictures(match, payload)
        if frame is not None:
            self._frames[match.id] = frame
        self._keep_final(match, payload, message_id)
        self.mark_shown(match, match.version)

    def _words_only(self, match: Match) -> bool:
        """Edit the table's words and buttons only: a turn is in progress and the message
        shows this turn's board already (its picture before the turn). A board of an
        earlier turn is drawn anew: the end of the turn before may not have been shown (a
        newer move won while it waited, docs/channel.md), and its player looks for it."""
        if match.id not in self._pictured or match.status != ACTIVE:
            return False
        adapter = self.bot.adapters[match.game]
        return (adapter.turn_in_progress(match)
                and self._pictured[match.id] == adapter.turn_mark(match))

    def _note_pictures(self, match: Match, payload: TablePayload) -> None:
        """Remember whether the table message now carries a board picture, and of which
        turn (``payload`` shows ``match``)."""
        if payload.keeps_pictures:
            return
        if payload.png is not None:
            self._pictured[match.id] = self.bot.adapters[match.game].turn_mark(match)
        else:
            self._pictured.pop(match.id, None)

    def _up_to_date(self, match: Match) -> bool:
        """The table message shows ``match`` as it is (its text only built when the
        version and status already agree)."""
        shown = self._frames.get(match.id)
        if shown is None or shown[:2] != (match.version, match.status):
            return False
        return self.frame(match) == shown

    async def _send_edit(self, match: Match, message_id: int, payload: TablePayload) -> None:
        """Edit the table message: through the latest click on it while its token is valid
        (outside Discord's global limit), else, or when Discord refuses that, through the
        channel."""
        webhook = self.hooks.get(match.id, message_id)
        if webhook is not None:
            try:
                # discord.py's webhook requests try a 5xx again after 1, 3, 5… s: the
                # channel is tried instead before the table falls that far behind.
                async with asyncio.timeout(self.THROUGH_CLICK_PATIENCE):
                    await edit_original(webhook, **payload.edit_kwargs())
                return
            except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
                self.hooks.forget(match.id)
                log.info("Table of match %s not edited through a click (%s); through the "
                         "channel instead.", match.id, exc)
        message = self.bot.get_partial_messageable(match.channel_id).get_partial_message(
            message_id)
        await message.edit(**payload.edit_kwargs())

    async def catch_up(self, interaction: discord.Interaction, match: Match) -> bool:
        """When a click on a table message that is behind (a frame skipped under load, or a
        restart) must be answered: edit the table to the match's latest state as the click's
        answer. True when done; False when the click was not on this match's table or the
        answer could not be sent (the caller answers otherwise)."""
        message = interaction.message
        if (message is None or message.id != match.table_message_id
                or interaction.response.is_done()):
            return False
        latest = copy.copy(await self.bot.runtime.fetch(match.id) or match)  # one board
        frame = self.frame(latest)
        try:
            payload = await self.answer_payload(latest)
            if interaction.response.is_done():
                return False
            await interaction.response.edit_message(**payload.edit_kwargs())
        except discord.HTTPException as exc:
            log.info("Could not bring the table of match %s up to date through a click: %s",
                     match.id, exc)
            return False
        self._note_pictures(latest, payload)
        if payload.png is None and match.channel_id not in self.no_pictures:
            # Answered in words and buttons; the picture follows with a refresh.
            self.bot.background(self.refresh(latest.id))
            return True
        if frame is not None:
            self._frames[latest.id] = frame
        self._keep_final(latest, payload, message.id)
        self.mark_shown(latest, latest.version)
        return True

    async def pictures_refused(self, match: Match) -> None:
        """Attach Files is missing here: say so once, in words, and go on without pictures."""
        if match.channel_id in self.no_pictures:
            return
        self.no_pictures.add(match.channel_id)
        log.warning("Missing Attach Files in channel %s: tables go without pictures there.",
                    match.channel_id)
        channel = self.bot.get_partial_messageable(match.channel_id)
        await self.pacing.wait("send", match.channel_id)
        with self.bot.speaking_to(match.guild_id):
            said = str(NO_PICTURES)
        try:
            await channel.send(said, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("Could not tell channel %s about the missing permission: %s",
                        match.channel_id, exc)

    async def end(self, match: Match, note: str | Text) -> None:
        """A match was ended early: its table says so and loses its buttons, after any
        redraw already under way (which would otherwise land last and bring the board and
        its buttons back); later redraws leave it alone."""
        async with self._locks(match.id):
            await self.retire(match, note=note, superseded=False)

    async def moved(self, match: Match, message_id: int, version: int) -> None:
        """The table was posted anew as ``message_id`` (showing ``version``), e.g. by
        /game status: retire the old one and remember the new, after any redraw under way
        (which would otherwise land on the old message after it was retired)."""
        async with self._locks(match.id):
            live = self.bot.runtime.get(match.id) or match
            await self.retire(live)
            await self.bot.runtime.set_table_message(match.id, message_id)
            self._frames.pop(match.id, None)
            self._pictured.pop(match.id, None)  # posted by its command: draw the next one
            self.mark_shown(live, version)
        if live.version != version and live.status not in STOPPED:
            await self.refresh(match.id)  # a move landed while the new table was posted

    async def repost(self, match: Match) -> discord.Message | None:
        """Post the table anew at the bottom of the channel and retire the old message."""
        async with self._locks(match.id):
            return await self._repost(match)

    async def _repost(self, match: Match) -> discord.Message | None:
        if match.status in STOPPED:
            return None  # ended while this waited its turn
        await self.pacing.wait("send", match.channel_id)
        version = match.version
        payload = await self.payload(match)
        channel = self.bot.get_partial_messageable(match.channel_id)
        try:
            message = await channel.send(**payload.send_kwargs())
        except discord.Forbidden as exc:
            if channel_gone(exc):
                await self.bot.channel_lost(match, exc)
                return None
            if exc.code == MISSING_PERMISSIONS and payload.png is not None:
                await self.pictures_refused(match)
                return await self._repost(match)
            log.warning("Could not post the table of match %s: %s", match.id, exc)
            return None
        except discord.NotFound as exc:
            await self.bot.channel_lost(match, exc)
            return None
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            log.warning("Could not post the table of match %s: %s", match.id, exc)
            return None
        await self.retire(match)
        await self.bot.runtime.set_table_message(match.id, message.id)
        match.table_message_id = message.id
        self._note_pictures(match, payload)
        self.mark_shown(match, version)
        return message

    async def retire(self, match: Match, note: str | Text = MOVED, *,
                     superseded: bool = True) -> None:
        """Take the buttons off an old table message so nobody plays on it. A superseded
        table (the board is posted again below) loses its picture too and keeps one line,
        so the channel shows one board per match; a table ended early keeps its last
        board."""
        if match.table_message_id is None:
            return
        old = self.bot.get_partial_messageable(match.channel_id).get_partial_message(
            match.table_message_id)
        with self.bot.speaking_to(match.guild_id):
            said = str(note)  # the channel's words, whoever ended it
        kwargs: dict = {"content": said, "view": None, "allowed_mentions": NO_MENTIONS}
        if superseded:
            kwargs.update(attachments=[], embed=None)
        await self.pacing.wait("edit", match.channel_id)
        # Already gone or not editable: then there is nothing to retire.
        with contextlib.suppress(discord.HTTPException, TimeoutError, aiohttp.ClientError):
            await old.edit(**kwargs)

    # -- the final message's animation (bot/render/animation.py) ----------------------------

    # The most actions a game may have for its animation: stepping through them is the
    # animation's part that grows with the game (~2 ms an action for Cities).
    ANIMATION_MAX_ACTIONS = 2000
    ANIMATION_PATIENCE = 60.0  # seconds an animation may take in all, then skipped
    # Boards drawn per job (0.1-0.4 s of a worker): between two jobs, pictures and computer
    # players' moves asked meanwhile go first.
    ANIMATION_CHUNK = 4

    FINALS_KEPT = 64  # final tables waiting for their animation (a few are, at most)
    ANIMATED_KEPT = 1024  # match ids whose animation is over (a few KB)

    def _keep_final(self, match: Match, payload: TablePayload, message_id: int) -> None:
        # An animation skipped at once (a busy render pool) can be over before the final
        # table it would have gone on is shown: kept then, it waited for nothing until 64
        # later games pushed it out (~100-200 KB each).
        if match.status == OVER and payload.png is not None and match.id not in self._animated:
            self._finals[match.id] = (payload, message_id)
            while len(self._finals) > self.FINALS_KEPT:  # one whose animation never came
                self._finals.pop(next(iter(self._finals)))

    def animate(self, match: Match) -> None:
        """The game ended: its final message gains the game in a few seconds, an animated
        picture drawn at the render pool's lowest priority, by an edit once it is ready
        (the final standings went out without waiting for it). Skipped on a busy server
        (``_skip_animation``)."""
        if match.id in self._animating:
            return
        self._animating.add(match.id)
        # Not one of the bot's background tasks, which a stop waits for: a stop does not
        # wait seconds for an animation (closing the render pool ends it, quietly).
        task = asyncio.create_task(self._animate(match), name=f"cityhall-animation-{match.id}")
        self._animations.add(task)
        task.add_done_callback(self._animation_done)

    def _animation_done(self, task: asyncio.Task[None]) -> None:
        self._animations.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("The animation task %s failed.", task.get_name(),
                      exc_info=task.exception())

    def _skip_animation(self, match: Match, actions: int | None = None) -> str | None:
        """Why no animation is drawn now, or None: animations are off, pictures are drawn
        in threads of this process (no worker processes), the render pool has pictures or other
        work waiting (a busy server, whose players' pictures go first), another animation
        is being drawn, the game is very long, the bot is stopping, or the final table was
        never shown or may not carry pictures in its channel."""
        pool = self.bot.pictures
        if not ANIMATIONS:
            return "CITYHALL_ANIMATIONS is off"
        if pool.workers == 0:
            # Drawn in a thread of this process, seconds of the event loop's GIL.
            return "no render worker processes"
        if self.bot.draining:
            return "the bot is stopping"
        if match.channel_id in self.no_pictures:
            return "no pictures in this channel"
        if match.table_message_id is None:
            return "its table message is unknown"
        if pool.queued() > 0:
            return f"{pool.queued()} job(s) queued in the render pool"
        if len(self._animating) > 1:
            return "another animation is being drawn"
        if actions is not None and actions > self.ANIMATION_MAX_ACTIONS:
            return f"{actions} actions (more than {self.ANIMATION_MAX_ACTIONS})"
        return None

    async def _animate(self, match: Match) -> None:
        try:
            with self.bot.speaking_to(match.guild_id):
                drawn = await self._draw_animation(match)
            final = self._finals.pop(match.id, None)
            if drawn is None:
                return
            if final is None:
                log.info("No animation for match %s: its final table was not shown.", match.id)
                return
            await self._add_animation(match, final, drawn)
        finally:
            self._animating.discard(match.id)
            self._finals.pop(match.id, None)
            self._animated[match.id] = None
            while len(self._animated) > self.ANIMATED_KEPT:
                self._animated.popitem(last=False)

    async def _draw_animation(self, match: Match) -> Drawn | None:
        why = self._skip_animation(match)
        if why is not None:
            log.info("No animation for match %s: %s.", match.id, why)
            return None
        adapter = self.bot.adapters[match.game]
        actions = await self.bot.storage.actions(match.id)
        pool = self.bot.pictures
        try:
            async with asyncio.timeout(self.ANIMATION_PATIENCE):
                if (why := self._skip_animation(match, len(actions))) is not None:
                    log.info("No animation for match %s: %s.", match.id, why)
                    return None
                boards = await pool.later(ANIMATION, "boards", "bot.games", match.game,
                                          match.player_ids, match.options, match.seed, actions)
                if pool.queued() > 0:
                    log.info("No animation for match %s: the render pool got busy.", match.id)
                    return None
                views = [adapter.named_view(match, view) for _step, view in boards]
                pngs: list[bytes] = []
                for first in range(0, len(views), self.ANIMATION_CHUNK):
                    pngs += await pool.later(ANIMATION, "frames",
                                             pool.modules[match.game],
                                             views[first:first + self.ANIMATION_CHUNK])
                drawn = await pool.later(ANIMATION, "gif", pngs)
        except TimeoutError:
            log.info("No animation for match %s: no render worker was free for %.0f s.",
                     match.id, self.ANIMATION_PATIENCE)
            return None
        except RenderPoolError as exc:  # the pool closed (stopping), a worker died
            log.info("No animation for match %s: %s", match.id, exc)
            return None
        except Exception:
            log.exception("The animation of match %s could not be drawn; the final table "
                          "stays as it is.", match.id)
            return None
        if drawn is None:
            log.info("No animation for match %s: over %d bytes even small.", match.id,
                     BUDGET_BYTES)
            return None
        seconds = max(1, round(drawn.milliseconds / 1000))
        words = _n("{game} in {n} second: the board after each move, from the first to the "
                   "last.",
                   "{game} in {n} seconds: the board after each move, from the first to the "
                   "last.", seconds, game=adapter.engine.title)
        described = words + " " + adapter.picture_description(match)
        return Drawn(drawn.data, drawn.filename, fit_description(described))

    async def _add_animation(self, match: Match, final: tuple[TablePayload, int],
                             drawn: Drawn) -> None:
        """Edit the final message to what it showed, the animation added."""
        payload, message_id = final
        message = self.bot.get_partial_messageable(match.channel_id).get_partial_message(
            message_id)
        files: list[discord.File] = [*payload.files(), drawn.upload()]
        async with self._locks(match.id):
            await self.pacing.wait("edit", match.channel_id)
            try:
                await message.edit(content=payload.content, embed=payload.embed,
                                   attachments=files, view=payload.view,
                                   allowed_mentions=NO_MENTIONS)
            except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
                log.info("Could not add the animation to the final table of match %s: %s",
                         match.id, exc)
                return
        log.info("Match %s's final table has its animation (%d KB).", match.id,
                 len(drawn.png) // 1024)
