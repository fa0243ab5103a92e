"""The Discord bot: starts storage and the match runtime, loads the cogs, restores games."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Protocol, runtime_checkable

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Settings
from bot.core import loopmonitor
from bot.core.discord_api import gateway_from_api
from bot.core.driver import Driver
from bot.core.engine import JSON
from bot.core.heap import trimmer
from bot.core.heartbeat import note_heartbeats_when_sent
from bot.core.i18n import ENGLISH, Words, language_of, speaking
from bot.core.i18n import current as current_language
from bot.core.inflight import InFlight
from bot.core.levels import Budget
from bot.core.records import ACTIVE, OVER, Match
from bot.core.runtime import Limits, Outcome, Runtime
from bot.core.server_settings import ServerSettingsStore
from bot.core.storage import Storage
from bot.core.tasks import tasks_started_by
from bot.games import GAMES, render_pool
from bot.metrics import Metrics
from bot.render.pool import MEMORY_BUDGET_MB, Priority, RenderPool, RenderPoolError, default_spare
from bot.ui import answers
from bot.ui.command_sync import sync_if_changed
from bot.ui.command_words import CommandWords
from bot.ui.deferral import arrived, deferred_at_door
from bot.ui.door import Door, taken
from bot.ui.expiry import ANSWER_WITHIN_S, LateTally, age_s, expired
from bot.ui.game import GameAdapter, Notice, fit_description, plain_text
from bot.ui.leftovers import Leftovers, trim_click
from bot.ui.lobby import GameCommands
from bot.ui.pacing import RequestGate
from bot.ui.payload import Drawn
from bot.ui.pings import TurnPings
from bot.ui.replies import NO_MENTIONS, RESTARTING, USER_MENTIONS
from bot.ui.table import Tables, channel_gone
from bot.ui.words import slash

_ = Words("bot")
_n = _.plural
log = logging.getLogger("cityhall")


@runtime_checkable
class GameDefaults(Protocol):
    """The Settings cog, as ``add_game`` sees it. (Not its class: discord.py loads an
    extension as a fresh module, so the class this module could import is another one.)"""

    def add_game_defaults(self, command: app_commands.Command[Any, ..., None]) -> None: ...

EXTENSIONS = ("cogs.matches", "cogs.settings", "cogs.help", "cogs.notify", "cogs.records",
              "cogs.replays", "cogs.rematch", *(game.cog for game in GAMES.values()))

# After SIGTERM or SIGINT: clicks in flight get this long to be answered, then what they
# saved is published; the process is gone within bot.process.SHUTDOWN_SECONDS whatever
# happens.
DRAIN_SECONDS = 4.0
PUBLISH_SECONDS = 3.0
# Seconds after the start when matches saved by an earlier version get who is due saved.
SAVE_DUE_AFTER = 30.0
# The longest the stop waits for "restarting, try again" answers still on their way.
TURN_AWAY_SECONDS = 1.5
# How often the bot gives the pages its heap freed back to the system (bot/core/heap.py):
# every picture it uploads passes through its memory.
HEAP_TRIM_S = 20.0

# What the bot needs in a channel: see and post messages (in threads too), attach board
# pictures, embed the lobby and stats, and read history to edit its own table message.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)

def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=PERMISSIONS, scopes=("bot", "applications.commands"))


# Connections to Discord's API at once (aiohttp's own default); requests past it wait for a
# free one. Against the fake Discord 32 and 100 measured the same; against the real one a
# request holds its connection for a network round trip, so a burst wants more than a few.
HTTP_CONNECTIONS = 100


class CityhallBot(commands.Bot):
    USER_LANGUAGES_KEPT = 50_000  # recent clickers' languages remembered (a few MB at most)

    def __init__(self, settings: Settings, *, storage: Storage | None = None,
                 **kwargs: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channels and threads; no privileged intents needed
        note_heartbeats_when_sent()  # no false "websocket is 41.3s behind" (bot/core/heartbeat.py)
        self.metrics = Metrics()
        if settings.metrics_port is not None:
            # aiohttp calls a trace's hooks at every step of every request, which costs
            # each click a few per cent of the bot's CPU: only worth it when someone reads
            # the counters.
            kwargs.setdefault("http_trace", self.metrics.http_trace())
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, allowed_mentions=USER_MENTIONS, **kwargs)
        self.settings = settings
        self.adapters: dict[str, GameAdapter] = {}
        # Every DynamicItem class we register, so unknown custom ids can be told apart.
        self.dynamic_items: list[type[discord.ui.DynamicItem[Any]]] = []
        # Discord's language of each server, as its interactions said (public_language),
        # and of each recent clicker (their direct messages).
        self.guild_locales: dict[int, str] = {}
        self.user_languages: OrderedDict[str, str] = OrderedDict()
        self.tables = Tables(self)
        # Every REST request waits its turn under Discord's limits (bot/ui/pacing.py).
        self.request_gate = RequestGate(settings.rate_limit_scale, share=self.shard_share)
        self.request_gate.install(self.http)
        self._expired_note = LateTally()
        self.pings = TurnPings(self)
        self._tasks: set[asyncio.Task[None]] = set()
        self._restore_task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._due_saver: asyncio.Task[None] | None = None
        self._heap_trimmer: asyncio.Task[None] | None = None
        # Interaction handlers still running, and whether new interactions are turned away
        # (set by ``drain`` when the process is asked to stop).
        self._inflight: set[asyncio.Future[Any]] = set()
        # Clicks waiting to be routed, and whether few enough are being answered that the
        # tables may go on (``crowd_passed``).
        self._arrivals: deque[tuple[Any, str, float]] = deque()
        self._calm = asyncio.Event()
        self._calm.set()
        # "Cityhall is restarting" answers on their way: the stop lets them land before it
        # closes the HTTP session (drain's snapshot of _inflight may predate them).
        self._turning_away: set[asyncio.Task[None]] = set()
        # Handled interactions, until their reference cycles can be cut (bot/ui/leftovers.py).
        self.leftovers = Leftovers()
        self.drawing_tables: InFlight[bytes] = InFlight()
        # Matches whose table skipped a computer move another answered at once (_tell_channel).
        self._held_tables: set[int] = set()
        self._routed: discord.Interaction | None = None
        self.draining = False
        self._frozen_guilds = False
        self._drained = False
        self._cleaned_up = False
        self._gate_interactions()
        self.storage: Storage
        if storage is not None:
            self.storage = storage
        self.runtime: Runtime
        self.driver: Driver
        self.pictures: RenderPool
        self.servers: ServerSettingsStore

    @property
    def shard_share(self) -> float:
        """The part of Discord's shards this process owns: its share of the bot's global
        rate limit, which every process of one bot spends together."""
        shards = self.settings.shards
        return 1.0 if shards is None else len(shards.ids) / shards.count

    async def setup_hook(self) -> None:
        loopmonitor.start_from_env()  # only with CITYHALL_LOOP_STATS set (load tests)
        # Interaction answers without parsing back the messages they made (bot/ui/answers.py);
        # set in this task, which goes on to read the gateway: every handler inherits it.
        answers.install()
        # A few threads are enough for what still runs in threads (notices, previews);
        # each thread is memory, and the pictures go to the render processes.
        asyncio.get_running_loop().set_default_executor(
            concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="cityhall"))
        if self.settings.api_base:
            await gateway_from_api(self)
        if not hasattr(self, "storage"):
            self.storage = await Storage.open(self.settings.database)
        # Pictures are drawn in worker processes (one per core but one by default, and the
        # last core lent to pictures that fall behind), players' private pictures ahead of
        # table refreshes.
        # The memory budget (300 MB in all, a small VPS) governs the default's workers: a
        # spare lent only where it fits, a worker held to what the bot leaves. An admin who
        # sets RENDER_WORKERS has memory for them (docs/configuration.md).
        workers = self.settings.render_workers
        self.pictures = render_pool(workers, spare=default_spare(workers),
                                    memory_budget_mb=MEMORY_BUDGET_MB if workers is None
                                    else None)
        try:
            await self.pictures.start()
        except RenderPoolError as exc:
            log.error("Render workers did not start (%s); drawing in a thread instead.", exc)
            self.pictures = render_pool(0)
            await self.pictures.start()
        loopmonitor.add_reporter("render_cpu", lambda: self.pictures.stats.cpu_by_job)
        loopmonitor.add_reporter("render_age", lambda: self.pictures.stats.table_cpu_by_age)
        loopmonitor.add_reporter("render_workers", lambda: {
            "started": self.pictures.stats.workers_started,
            "replaced": self.pictures.stats.recycled,
            "replaced_for_memory": self.pictures.stats.recycled_for_memory,
            "handed_over": self.pictures.stats.handed_over,
            "lent": self.pictures.stats.lent,
            "not_lent_for_memory": self.pictures.stats.not_lent_for_memory,
            "given_back_for_memory": self.pictures.stats.given_back_for_memory})
        limits = Limits(lobbies_per_user=self.settings.lobbies_per_user,
                        matches_per_server=self.settings.games_per_server,
                        matches_per_user=self.settings.games_per_user,
                        lobby_seconds=self.settings.lobby_minutes * 60)
        # What each server chose with /settings; TURN_SECONDS and CPU_DELAY where it chose
        # nothing. Loaded with the matches (runtime.load), before any timer runs.
        self.servers = ServerSettingsStore(self.storage, turn_seconds=self.settings.turn_seconds,
                                           cpu_delay=self.settings.cpu_delay)
        self.runtime = Runtime(self.storage, GAMES,
                               turn_seconds=self.settings.turn_seconds, limits=limits,
                               servers=self.servers, thinker=self.think,
                               budget=Budget(self.settings.cpu_hard_iterations,
                                             self.settings.cpu_hard_seconds or None),
                               shards=self.settings.shards)
        self.driver = Driver(self.runtime, self.after_move, cpu_delay=self.settings.cpu_delay,
                             cpu_delay_for=self.servers.cpu_delay,
                             on_settled=self._computers_settled)
        self.metrics.watch(self)
        if self.settings.metrics_port is not None:
            try:
                self.metrics.serve(self.settings.metrics_host, self.settings.metrics_port)
            except OSError as exc:
                # Metrics are a convenience: the games go on without them.
                log.error("Cannot serve metrics on %s:%s (%s); going on without them.",
                          self.settings.metrics_host, self.settings.metrics_port,
                          exc.strerror or exc)
        await self.load_commands()
        restored = await self.runtime.load()
        if restored:
            active = sum(1 for m in restored if m.status == ACTIVE)
            log.info("Restored %d unfinished match(es) after the restart: %d game(s) and %d "
                     "lobby(ies).", len(restored), active, len(restored) - active)
        await self.pings.choices.load()
        await self.pings.restore({m.id for m in restored if m.status == ACTIVE})
        for match in restored:
            if match.table_version is not None:
                self.tables.shown[match.id] = match.table_version
            if match.status == ACTIVE:
                # Reminders still ahead; none that are due at once (bot/ui/pings.py).
                self.pings.plan(match, restored=True)
        # Turn timers and computer players, from what each match saved of who is due: no
        # state is decoded until its match is clicked (bot/core/packed.py).
        self.driver.restore(restored)
        # Buttons work as soon as the gateway is up (their custom ids say everything and
        # the matches are in memory). Only tables that may be behind the saved state (the
        # process died between saving a move and showing it) are re-drawn, one at a time
        # in the background, so players' clicks never queue behind a restore.
        behind = [m.id for m in restored if m.status == ACTIVE and m.table_message_id
                  and m.table_version != m.version]
        if behind:
            log.info("Re-drawing %d table(s) that may be behind.", len(behind))
            self._restore_task = asyncio.create_task(self._redraw(behind),
                                                     name="cityhall-restore")
        self._sweeper = asyncio.create_task(self._sweep_lobbies(), name="cityhall-lobbies")
        self._due_saver = asyncio.create_task(self._save_who_is_due(), name="cityhall-due")
        trim = trimmer()
        if trim is not None:
            self._heap_trimmer = asyncio.create_task(self._trim_heap(trim), name="cityhall-heap")
        # What is loaded now lives as long as the process: keep the collector off it, so
        # full collections stay short.
        gc.collect()
        gc.freeze()
        # A click leaves almost nothing in reference cycles (bot/ui/leftovers.py), so the
        # collector mostly walks what is alive: young collections every 2,000 allocations
        # stay under 10 ms (at 10,000, when each click left a hundred objects in cycles,
        # one took 40-60 ms). What the libraries still leave in cycles is freed by a full
        # collection every ~1 million allocations; its cost is walking every long-lived
        # object made since the freeze (mostly the states of matches played since).
        gc.set_threshold(2_000, 5, 100)
        await self.sync_commands()
        if self.application_id:
            log.info("Invite Cityhall to a server: %s", invite_url(self.application_id))

    async def think(self, game: str, state: JSON, player: str, level: str,
                    budget: Budget) -> JSON:
        """A hard computer player's move, worked out by a render worker after the pictures
        waiting for one: off the event loop and off this process's GIL."""
        action: JSON = await self.pictures.think(game, state, player, level, budget)
        return action

    async def load_commands(self) -> None:
        """Every cog, and the translator that gives their commands in every language."""
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.tree.set_translator(CommandWords([game.domain for game in GAMES.values()]))

    async def sync_commands(self) -> None:
        """Send the command tree to Discord only when it differs from the last one sent."""
        await sync_if_changed(self, self.storage, self.settings.dev_guild_id)

    async def on_ready(self) -> None:
        # Once per connection (a resumed session does not repeat it).
        if not self._frozen_guilds:
            # The servers and channels arrived with READY and live as long as the process:
            # out of the collector's way, like what setup_hook loaded.
            self._frozen_guilds = True
            gc.freeze()
        log.info("Online as %s in %d server(s), with %d unfinished match(es).", self.user,
                 len(self.guilds), len(self.runtime.unfinished()))

    async def on_guild_join(self, guild: discord.Guild) -> None:
        log.info("Added to the server %s (%s).", guild.name, guild.id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        log.info("Removed from the server %s (%s); its games stay in the database.",
                 guild.name, guild.id)

    def background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` on its own, kept until done, its failure logged."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("Background work %s failed (anything it saved stays saved).",
                      task.get_name(), exc_info=task.exception())

    async def _redraw(self, match_ids: list[int]) -> None:
        # Paced well under Discord's global 50 requests/s, leaving room for live games.
        for match_id in match_ids:
            await self.tables.refresh(match_id)
            await asyncio.sleep(0.1)

    async def _save_who_is_due(self) -> None:
        """Matches saved before who is due was kept with them had their states decoded at
        this start to work it out: saved now, once the restart's first clicks are answered,
        so the next start need not (bot/core/runtime.py ``save_who_is_due``)."""
        await asyncio.sleep(SAVE_DUE_AFTER)
        saved = await self.runtime.save_who_is_due()
        if saved:
            log.info("Saved who is due with %d match(es) saved by an earlier version: the "
                     "next start plans their timers without reading their states.", saved)

    @staticmethod
    async def _trim_heap(trim: Callable[[], object]) -> None:
        """Every ``HEAP_TRIM_S``, the heap's free pages back to the system: without it the
        bot stays at the size of its busiest moment (a restart's crowd, a burst of
        pictures) for good."""
        while True:
            await asyncio.sleep(HEAP_TRIM_S)
            trim()

    async def _sweep_lobbies(self) -> None:
        """Close lobbies nobody started in time, with a word in the lobby message."""
        while True:
            now = self.runtime.clock()
            for match in self.runtime.lobbies():
                if now >= self.runtime.lobby_deadline(match):
                    try:
                        expired = await self.runtime.expire_lobby(match.id)
                    except Exception:
                        log.exception("could not close lobby %s", match.id)
                        continue
                    if expired is not None:
                        self.background(self._tell_expired(expired))
            await asyncio.sleep(min(30.0, self.runtime.limits.lobby_seconds / 4))

    async def _tell_expired(self, match: Match) -> None:
        if match.table_message_id is None:
            return
        title = self.adapters[match.game].engine.title
        minutes = round(self.runtime.limits.lobby_seconds / 60)
        message = self.get_partial_messageable(match.channel_id).get_partial_message(
            match.table_message_id)
        with self.speaking_to(match.guild_id):
            said = _n("This {game} lobby closed because nobody started it within {n} minute. "
                      "Open a new one with {command}.",
                      "This {game} lobby closed because nobody started it within {n} minutes. "
                      "Open a new one with {command}.", minutes, game=title,
                      command=slash(f"{match.game} new", GAMES[match.game].domain
                                    if match.game in GAMES else "bot"))
        try:
            await message.edit(content=said, embed=None, view=None, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.info("Could not mark lobby %s as closed: %s", match.id, exc)

    async def render_table(self, match: Match, *,
                           priority: Priority = Priority.BACKGROUND) -> bytes:
        """The public table picture, drawn in a render worker. A background refresh of a
        match coalesces with a newer one still queued (``Superseded``), and an ask for the
        board being drawn shares that drawing."""
        async def draw() -> bytes:
            adapter = self.adapters[match.game]
            key = match.id if priority is Priority.BACKGROUND else None
            # The view is not kept in this frame while the picture waits: the pool keeps
            # it pickled (bot/render/pool.py, _Job.args).
            png = await self.pictures.render(
                match.game, "render_table", adapter.named_view(match, adapter.public_view(match)),
                priority=priority, key=key)
            assert isinstance(png, bytes)
            return png

        # The same board asked for again while it is drawn waits for that drawing
        # (bot/core/inflight.py): its version, status and language make the picture.
        board = (match.version, match.status, current_language())
        return await self.drawing_tables.get(match.id, board, int(priority), draw)

    def publish(self, outcome: Outcome, via: discord.Interaction | None = None) -> None:
        """Tell the channel about a committed move, whatever happened to the click's answer
        (``via``: the click, whose webhook the next turn's ping may go through)."""
        self.background(self.after_move(outcome, via, by_player=True))

    async def channel_lost(self, match: Match, exc: discord.HTTPException) -> None:
        """The channel is gone or out of reach: end the match as abandoned (nothing on
        /stats, computer players stop)."""
        why = f"channel unavailable ({exc.status} {exc.code}: {exc.text})"
        await self.runtime.abandon(match.id, why)
        await self.pings.finish(match.id)

    def register(self, adapter: GameAdapter) -> None:
        self.adapters[adapter.engine.name] = adapter

    async def add_game(self, adapter: GameAdapter,
                       items: Iterable[type[discord.ui.DynamicItem[Any]]],
                       group: type[GameCommands],
                       defaults: app_commands.Command[Any, ..., None] | None = None) -> None:
        """What a game's cog module does in ``setup``: its table, its buttons, its slash
        command group (a cog made here, with the adapter) and its ``/settings defaults``
        subcommand (``cogs.settings.save_defaults``), when it has options."""
        self.register(adapter)
        items = tuple(items)
        self.add_dynamic_items(*items)
        self.dynamic_items.extend(items)
        await self.add_cog(group(self, adapter))
        settings = self.get_cog("Settings")
        if defaults is not None and isinstance(settings, GameDefaults):
            settings.add_game_defaults(defaults)

    def note_languages(self, data: Any) -> None:
        """Remember a server's Discord language from an interaction (``guild_locale``), for
        what is posted there later (the gateway's guild may not be cached), and the
        clicker's, for the direct messages a player may choose for their turns (/notify)."""
        guild_id, locale = data.get("guild_id"), data.get("guild_locale")
        if guild_id and locale:
            self.guild_locales[int(guild_id)] = str(locale)
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        if user.get("id") and data.get("locale"):
            self.user_languages[str(user["id"])] = language_of(data["locale"])
            self.user_languages.move_to_end(str(user["id"]))
            while len(self.user_languages) > self.USER_LANGUAGES_KEPT:
                self.user_languages.popitem(last=False)

    def public_language(self, guild_id: int | None) -> str:
        """The language of what the bot posts in a server: its /settings language, else
        Discord's language for the server, else English."""
        if not guild_id:
            return ENGLISH
        chosen = self.servers.get(guild_id).language if hasattr(self, "servers") else None
        if chosen:
            return chosen
        guild = self.get_guild(guild_id)
        locale = guild.preferred_locale if guild is not None else \
            self.guild_locales.get(guild_id)
        return language_of(locale)

    def speaking_to(self, guild_id: int | None) -> contextlib.AbstractContextManager[str]:
        """Say everything inside in the server's language: for the channel, not the clicker."""
        return speaking(self.public_language(guild_id))

    async def after_move(self, outcome: Outcome, via: discord.Interaction | None = None, *,
                         by_player: bool = False) -> None:
        """Tell the channel about an accepted move and plan what happens next
        (``by_player``: a player's click made it, not a computer player or a timeout)."""
        with self.speaking_to(outcome.match.guild_id):
            await self._after_move(outcome, via, by_player)

    async def _after_move(self, outcome: Outcome, via: discord.Interaction | None,
                          by_player: bool = False) -> None:
        if by_player and via is not None:
            self.pings.remember_click(outcome.match, via)
        try:
            await self._tell_channel(outcome, by_player)
            # After the table, so the player pinged finds the board that is theirs to play.
            await self.pings.update(outcome.match.id, via)
        finally:
            self.runtime.delivered(outcome.match.id)
        if outcome.match.status == ACTIVE:
            self.driver.kick(outcome.match.id)
        elif outcome.match.status == OVER:
            # The final standings are out; the game in a few seconds follows, if drawn.
            self.tables.animate(outcome.match)

    async def _tell_channel(self, outcome: Outcome, by_player: bool = False) -> None:
        match = outcome.match
        adapter = self.adapters[match.game]
        notices = []
        news_pictures = False
        for notice in adapter.notices(match, outcome):
            if notice.fold:
                # One move's news: a line of the table's text, not a message of its own; its
                # picture (a Big Cityz reveal) goes on the table message beside the board.
                pictures = await self._draw_notice(match, notice) \
                    if notice.pictures and match.channel_id not in self.tables.no_pictures \
                    else []
                self.tables.add_news(match.id, notice.text, pictures)
                news_pictures = news_pictures or bool(pictures)
            else:
                notices.append(notice)
        channel = self.get_partial_messageable(match.channel_id)
        for notice in notices:
            files = [picture.upload() for picture in await self._draw_notice(match, notice)]
            await self.tables.pacing.wait("send", match.channel_id)
            try:
                # Notices name players without notifying them: the only message that
                # notifies is the turn ping (bot/ui/pings.py).
                await channel.send(notice.text, files=files, allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as exc:
                if channel_gone(exc):
                    await self.channel_lost(match, exc)
                    return
                if files and exc.code == 50013:
                    await self.tables.pictures_refused(match)
                    try:
                        await channel.send(notice.text, allowed_mentions=NO_MENTIONS)
                    except discord.HTTPException:
                        log.warning("could not post a notice for match %s", match.id)
                else:
                    log.warning("could not post a notice for match %s: %s", match.id, exc)
        if notices and match.status == ACTIVE:
            # Notices pushed the table up the channel: bring it back to the bottom.
            await self.tables.repost(match)
            return
        if by_player and not notices and not news_pictures and self._computer_answers_at_once(match):
            # The board after this move would be replaced at once: the computer players due
            # move first, and the table is drawn once, with their moves and this one's news
            # (docs/channel.md). A move with a picture of its own (a Big Cityz reveal) is
            # shown before, so that picture is seen.
            await self.driver.moved_first(match.id, self.COMPUTERS_FIRST_PATIENCE)
        elif (not by_player and not notices and not news_pictures
              and self.driver.continuing(match.id) and self._computer_answers_at_once(match)):
            # Computer players moving one after another without a pause: only the board
            # after the last is seen, so it alone is drawn (its refresh shows this move's
            # news too). If the next move fails, _computers_settled shows this one.
            self._held_tables.add(match.id)
            return
        self._held_tables.discard(match.id)
        await self.tables.refresh(match.id)

    def _computers_settled(self, match_id: int) -> None:
        """The driver is done with this match for now: a table held for a computer move
        that did not come after all is shown."""
        if match_id in self._held_tables:
            self._held_tables.discard(match_id)
            self.background(self.tables.refresh(match_id))

    # Seconds a player's board waits for the computer players answering it at once (a hard
    # one thinks up to CPU_HARD_SECONDS, 0.9 s); then it is shown as it is.
    COMPUTERS_FIRST_PATIENCE = 2.0

    def _computer_answers_at_once(self, match: Match) -> bool:
        """A computer player is due now and this server lets it move without a pause."""
        return (match.status == ACTIVE and not self.driver.pause(match.guild_id)
                and self.runtime.computers_due(match))

    async def _draw_notice(self, match: Match, notice: Notice) -> list[Drawn]:
        drawn = []
        for picture in notice.pictures:
            try:
                png = await self.pictures.render(match.game, picture.function, *picture.args)
            except Exception:
                # The sentence still goes out; only its picture is missing.
                log.exception("could not draw %s for match %s", picture.filename, match.id)
            else:
                # Alt text: the picture's own words, else the notice it illustrates.
                described = picture.description or plain_text(notice.text, match)
                drawn.append(Drawn(png, picture.filename, fit_description(described)))
        return drawn

    def _gate_interactions(self) -> None:
        """Every interaction passes here before discord.py routes it: while stopping it is
        answered with a sentence instead, and the handler tasks discord.py starts for it are
        kept, so that stopping can wait for them.

        Interactions are routed one per turn of the event loop, from a queue: discord.py
        reads every gateway message already received in one go, so without the queue a
        burst of clicks (a restart, 200 players at once) would be parsed and routed in one
        long stretch, and every reply to the bot's own requests meanwhile would wait behind
        all of them."""
        parsers = self._connection.parsers
        route = parsers["INTERACTION_CREATE"]
        arrivals = self._arrivals
        pump: asyncio.Task[None] | None = None

        door = self.door = Door(self._connection)

        def admit(data: Any, kind: str, began: float) -> None:
            acknowledged = door.routed(data)
            # A click acknowledged from the queue is not expired: its answer can follow
            # for 15 minutes (unless the acknowledgement itself failed).
            if expired(data) and (acknowledged is None or taken(acknowledged) is False):
                # Discord has told the player "This interaction failed" already, and any
                # answer would be refused: doing the work would only make every later click
                # late too (a backlog feeding itself).
                self.metrics.expired.inc()
                self._expired_note.note()
                return
            trim_click(data)
            self._routed = None
            self.note_languages(data)
            # The handler tasks discord.py starts copy this context: everything a click or
            # a command says is in the clicker's language unless it speaks to the channel
            # (``speaking_to``).
            with speaking(language_of(data.get("locale"))):
                tasks = tasks_started_by(route, data)
            interaction, self._routed = self._routed, None
            if interaction is not None:
                # The handlers have not run yet: the clock that acknowledges a slow click
                # starts from here, the click's time in the queue counted.
                arrived(interaction, began)
                if acknowledged is not None:
                    deferred_at_door(interaction, acknowledged)
            if tasks:
                # One entry per interaction; handlers log their own failures.
                handled = asyncio.gather(*tasks, return_exceptions=True)
                latency = self.metrics.interaction_seconds.labels(kind)

                def done(_: object) -> None:
                    latency.observe(time.perf_counter() - began)
                    if interaction is not None:
                        self.leftovers.add(interaction)

                handled.add_done_callback(done)
                self._track(handled)

        async def route_in_turn() -> None:
            while arrivals:
                data, kind, began = arrivals.popleft()
                try:
                    admit(data, kind, began)
                except Exception:
                    log.exception("Could not route an interaction.")
                await asyncio.sleep(0)  # the loop's other work goes between two clicks

        def gate(data: Any) -> None:
            nonlocal pump
            kind = self.metrics.interaction(int(data.get("type", 0)))
            if self.draining:
                # A click that arrived before the stop is still routed (from the queue);
                # one that arrives after it is told to try again.
                self.metrics.turned_away.inc()
                interaction = discord.Interaction(data=data, state=self._connection)
                with speaking(language_of(data.get("locale"))):
                    answer = asyncio.get_running_loop().create_task(
                        self._turn_away(interaction), name="cityhall-restarting")
                self._turning_away.add(answer)
                answer.add_done_callback(self._turning_away.discard)
                return
            # Discord's 3 s began when it made the interaction (its id says when): a click
            # that waited in the gateway's buffer behind a busy loop is older than its arrival
            # here, and its acknowledgement is due that much sooner (bot/ui/deferral.py).
            age = min(max(0.0, age_s(data)), ANSWER_WITHIN_S)
            began = time.perf_counter() - age
            arrivals.append((data, kind, began))
            door.waiting(data, began)
            self._crowd_changed()
            if pump is None or pump.done():
                pump = asyncio.get_running_loop().create_task(route_in_turn(),
                                                              name="cityhall-interactions")
                self._track(pump)

        parsers["INTERACTION_CREATE"] = gate

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        if event_name == "interaction" and args:
            # The interaction discord.py just made of a click being routed (``admit``).
            self._routed = args[0]
        super().dispatch(event_name, *args, **kwargs)

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._inflight.add(task)
        task.add_done_callback(self._untrack)
        self._crowd_changed()

    def _untrack(self, task: asyncio.Future[Any]) -> None:
        self._inflight.discard(task)
        self._crowd_changed()

    # Clicks being answered at once (routed or waiting to be) beyond which the tables wait:
    # a restart's crowd, a burst. Steady play at 100 clicks a second keeps under ten.
    CROWD = 48

    def _crowd_changed(self) -> None:
        if len(self._inflight) + len(self._arrivals) >= self.CROWD:
            self._calm.clear()
        else:
            self._calm.set()

    async def crowd_passed(self, patience: float) -> None:
        """Wait (at most ``patience`` seconds) while a crowd of clicks is being answered.
        A table picture is drawn, uploaded and paced: work the clicks' answers would wait
        behind in a restart's crowd. The boards follow once they are answered."""
        if self._calm.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(patience):
                await self._calm.wait()

    @staticmethod
    async def _turn_away(interaction: discord.Interaction) -> None:
        try:
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
            elif interaction.type is not discord.InteractionType.ping:
                # in the clicker's language: _turn_away runs in it (see gate)
                await interaction.response.send_message(_(RESTARTING), ephemeral=True)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, RuntimeError) as exc:
            # RuntimeError: aiohttp's "Session is closed", for a click that came in the last
            # instant before the gateway closed.
            log.info("Could not tell a player that Cityhall is restarting: %s", exc)

    async def _let_turn_aways_land(self, deadline: float) -> None:
        """Wait for the "restarting" answers on their way, by ``deadline``; more may start
        while it waits (the gateway is open until super().close())."""
        while self._turning_away:
            _done, late = await asyncio.wait(set(self._turning_away),
                                             timeout=_until(deadline))
            if late:
                log.info("%d restarting answer(s) were still on their way at shutdown.",
                         len(late))
                return

    async def drain(self, deadline: float) -> None:
        """Stop taking interactions (they are told to try again in a moment), let those in
        flight finish, stop the computer players and timers, and let committed moves be
        published, all by ``deadline`` (time.monotonic())."""
        self.draining = True
        running = set(self._inflight)
        if running:
            log.info("Waiting for %d interaction(s) in flight.", len(running))
        while running:
            _finished, late = await asyncio.wait(running,
                                                 timeout=_until(deadline - PUBLISH_SECONDS))
            if late:
                log.warning("%d interaction(s) were still running at shutdown.", len(late))
                break
            # Clicks that arrived before the stop and were still queued have been routed
            # meanwhile: their handlers are in flight now.
            running = {task for task in self._inflight if not task.done()}
        for task in (self._restore_task, self._sweeper, self._due_saver, self._heap_trimmer):
            if task is not None:
                task.cancel()
        driver = getattr(self, "driver", None)
        if driver is not None:
            await driver.close()
        self.pings.close()
        self.leftovers.close()
        if self._tasks:
            # Moves already committed are still being shown.
            _done, pending = await asyncio.wait(set(self._tasks), timeout=_until(deadline))
            for publishing in pending:
                publishing.cancel()
        # Tables left behind are re-drawn at the next start (their table_version says so).
        self._drained = True

    async def login(self, token: str) -> None:
        if self.http.connector is discord.utils.MISSING:
            # discord.py's default opens a new connection for every request in flight: a
            # burst of clicks (a restart) would open hundreds at once, each a TCP and TLS
            # handshake. A bounded pool keeps reusing kept-alive connections instead.
            self.http.connector = aiohttp.TCPConnector(limit=HTTP_CONNECTIONS)
        await super().login(token)

    async def close(self) -> None:
        if not self._cleaned_up:
            self._cleaned_up = True
            try:
                if not self._drained:
                    await self.drain(time.monotonic() + 5.0)
            finally:
                self.door.close()
                self.metrics.close()
                # Even when the drain is cut short (cancelled by a caller's timeout), the
                # database is closed: its writer finishes what it was given first.
                pictures = getattr(self, "pictures", None)
                if pictures is not None:
                    await pictures.close()
                storage = getattr(self, "storage", None)
                if storage is not None:
                    await storage.close()
                for task in self._inflight:
                    task.cancel()
                # Last before the connection to Discord closes: a click that came in while
                # the rest was closing still gets its "try again" whole.
                await self._let_turn_aways_land(time.monotonic() + TURN_AWAY_SECONDS)
        # discord.py's close leaves the task that says "ready" once the servers have streamed
        # in (2 s after Discord's READY): a bot stopped within those seconds had it fire on
        # the closed client, and a SIGTERM logged its traceback.
        connection = self._connection
        for ready in (getattr(connection, "_ready_task", None),
                      *getattr(connection, "_ready_tasks", {}).values()):
            if ready is not None and not ready.done():
                ready.cancel()
        await super().close()


class ShardedCityhallBot(CityhallBot, commands.AutoShardedBot):
    """The bot connecting only SHARD_IDS of SHARD_COUNT shards (Discord routes each server's
    events and interactions to its shard), and driving only those servers' matches."""

    def __init__(self, settings: Settings, *, storage: Storage | None = None,
                 **kwargs: Any) -> None:
        assert settings.shards is not None
        super().__init__(settings, storage=storage, shard_count=settings.shards.count,
                         shard_ids=list(settings.shards.ids), **kwargs)


def _until(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())
