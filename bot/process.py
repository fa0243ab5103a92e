"""The process around the bot: settings checked, the database opened (or waited for), the
lease on its shards, the network waited for, signals turned into a clean stop, and the exit
code a service manager acts on (`python -m bot run`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import sys
import threading
import time
from typing import Any

import aiohttp
import discord

from bot.app import DRAIN_SECONDS, PUBLISH_SECONDS, CityhallBot, ShardedCityhallBot
from bot.config import ConfigError, Settings, port_in_use
from bot.core.discord_api import use_api_base
from bot.core.lease import Lease, LeaseError
from bot.core.lease import acquire as acquire_lease
from bot.core.storage import Storage, StorageError, describe_error, is_database_url

log = logging.getLogger("cityhall")

# Exit codes. 78 (EX_CONFIG, sysexits.h) means a restart cannot help (a refused token, a
# bad setting): docs/operating.md's systemd unit lists it in RestartPreventExitStatus=, so the
# bot does not log in again every few seconds forever. A database that cannot be opened
# exits with 74 (EX_IOERR) and is restarted: a lock held by another program may go away.
EXIT_CONFIG = 78
EXIT_DATABASE = 74
# Another process holds this one's shards (or its SQLite file), or the lease on them was
# lost: EX_TEMPFAIL, restarted after a pause; the lease may be free by then.
EXIT_LEASE = 75

# The process is gone within this long of SIGTERM or SIGINT, whatever happens (the
# systemd unit's TimeoutStopSec= leaves room above it).
SHUTDOWN_SECONDS = 9.5

NO_TOKEN_HELP = """\
Cityhall needs a Discord bot token to go online, and none is set.

1. Open https://discord.com/developers/applications and choose "New Application".
2. Under "Bot", press "Reset Token" and copy the token.
3. Copy .env.example to .env and put the token after DISCORD_TOKEN=
   (optional: DEV_GUILD_ID=<your server id> makes slash commands appear at once there).
4. Run `make run` again. The log prints an invite link; open it to add the bot to your
   server. It needs no privileged intents, only the permissions in that link:
   View Channel, Send Messages, Send Messages in Threads, Embed Links, Attach Files and
   Read Message History, with the "bot" and "applications.commands" scopes.

No token at hand? Try the games offline:
    .venv/bin/python -m bot simulate cityscape --players 3 --seed 7 --out out/cityscape
writes every board of a computer game as PNG pictures into out/cityscape/.
"""


def make_bot(settings: Settings, *, storage: Storage | None = None,
             **kwargs: Any) -> CityhallBot:
    """The plain bot without SHARD_COUNT (one process, every server, as before sharding
    existed: not a cost paid by everyone), else the sharded one."""
    if settings.shards is None:
        return CityhallBot(settings, storage=storage, **kwargs)
    return ShardedCityhallBot(settings, storage=storage, **kwargs)


def _limit_malloc_arenas(arenas: int = 2) -> None:
    """glibc gives every thread that allocates its own malloc arena (up to 8 per core), and
    an arena keeps what it once held: with SQLite, the gateway and a few helper threads that
    was a third of the bot's memory. Two arenas cost nothing measurable here."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-8, arenas)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _use_uvloop(event_loop: str) -> None:
    """uvloop runs the same asyncio code with its sockets, timers and callbacks in C: under
    load the bot's one event loop is the limit, and every click costs it about a third less.
    Where it is not installed (Windows), or with EVENT_LOOP=asyncio, the standard loop does
    the same job, slower."""
    if event_loop == "asyncio":
        return
    try:
        import uvloop
    except ImportError:
        return
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


# Big City lists a player's legal moves and builds its screens in threads (~10 ms of Python
# each: cogs/bigcity/sending.py, bot/ui/items.py), off the event loop but not off the GIL.
# With CPython's default 5 ms switch interval the loop's thread, asking for the GIL back,
# slept up to 5 ms a hand-over: the load test's stalls held 20-62 ms of such sleep a run,
# 17 ms of one 34 ms stall. At 1 ms the loop has it back within a millisecond: none in two
# runs, CPU a click unchanged within the host's noise (3 Dec, docs/performance.md).
SWITCH_INTERVAL = 0.001


def _hand_the_gil_back_soon() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)


def run() -> int:
    try:
        settings = Settings.from_env()
        if settings.metrics_port and port_in_use(settings.metrics_host,
                                                 settings.metrics_port):
            raise ConfigError(
                f"METRICS_PORT: port {settings.metrics_port} on {settings.metrics_host} is "
                "in use by another program (another Cityhall process?). Give each process "
                "its own port, or leave METRICS_PORT empty.")
    except ConfigError as exc:
        print(f"Cityhall cannot start: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Cityhall never joins voice: discord.py's two warnings about voice libraries are noise.
    logging.getLogger("discord.client").addFilter(
        lambda record: "voice will NOT be supported" not in record.getMessage())
    # A lost connection is one line per attempt, not a traceback each time.
    for name in ("discord.client", "discord.gateway", "discord.http"):
        logging.getLogger(name).addFilter(_one_line_network_errors)
    if not settings.token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return EXIT_CONFIG
    if settings.api_base:
        use_api_base(settings.api_base)
    _limit_malloc_arenas()
    _use_uvloop(settings.event_loop)
    _hand_the_gil_back_soon()
    try:
        code = asyncio.run(_serve(settings))
    except KeyboardInterrupt:  # a Ctrl-C before the signal handlers were in place
        code = 0
    # Python waits for every non-daemon thread before it exits; one left behind by a
    # library would keep a failed bot "running" and offline, and the service manager would
    # never restart it.
    stuck = [t.name for t in threading.enumerate()
             if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if stuck:
        log.warning("Exiting although these threads did not stop: %s.", ", ".join(stuck))
        logging.shutdown()
        os._exit(code)
    return code


def _one_line_network_errors(record: logging.LogRecord) -> bool:
    if record.exc_info and isinstance(record.exc_info[1], (OSError, aiohttp.ClientError,
                                                           TimeoutError)):
        exc = record.exc_info[1]
        record.msg = f"{record.getMessage()} ({_network_cause(exc)})"
        record.args = None
        record.exc_info = None
        record.exc_text = None
    return True


def _network_cause(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, aiohttp.ClientConnectorError):
        exc = exc.os_error
    if isinstance(exc, OSError) and exc.errno and exc.errno > 0:
        return os.strerror(exc.errno)  # asyncio's strerror is "Connect call failed (...)"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _refused(exc: BaseException) -> str | None:
    """The sentence for Discord refusing the bot's credentials or settings, or None."""
    if isinstance(exc, discord.LoginFailure) or (
            isinstance(exc, discord.ConnectionClosed) and exc.code == 4004):
        return ("Discord refused the token in DISCORD_TOKEN; reset it in the Developer "
                "Portal (Bot > Reset Token) and update .env.")
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return ("Discord asked for privileged intents; Cityhall needs none. Check the bot's "
                "settings in the Developer Portal.")
    return None


async def _serve(settings: Settings) -> int:
    """The bot's life in one process: open the database (or say why not), wait for the
    network, run until SIGTERM or SIGINT, then stop cleanly."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    running: list[CityhallBot] = []

    def on_signal(signum: int) -> None:
        if stop.is_set():
            log.info("Already stopping; the process ends within %g s.", SHUTDOWN_SECONDS)
            return
        for bot in running:
            # At once, in this callback: no interaction is routed after the log line below.
            bot.draining = True
        log.info("Stopping (%s): finishing the clicks in flight, then saving and closing.",
                 signal.Signals(signum).name)
        _exit_after(SHUTDOWN_SECONDS)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)

    log.info("Using the database %s.", settings.database_name)
    if settings.shards is not None:
        log.info("Connecting %s.", settings.shards.label())
    # With SQLite the lease comes first: a second process must not even open (and perhaps
    # upgrade) the file the first one is using. With PostgreSQL the database first, so that
    # a server that cannot be reached is said as such (migrations there take a lock of
    # their own).
    postgres = is_database_url(settings.database)
    lease: Lease | None = None
    try:
        if not postgres:
            lease = await acquire_lease(settings.database, settings.shards,
                                        wait=settings.lease_wait)
        opened = await _open_storage(settings, stop, postgres=postgres)
        if not isinstance(opened, Storage):
            return opened
        storage = opened
        if postgres:
            try:
                lease = await acquire_lease(settings.database, settings.shards,
                                            wait=settings.lease_wait)
            except BaseException:
                await storage.close()
                raise
        assert lease is not None
        return await _serve_with_lease(settings, stop, running, lease, storage)
    except LeaseError as exc:
        log.error("%s", exc)
        return EXIT_LEASE
    finally:
        if lease is not None:
            await lease.close()


async def _serve_with_lease(settings: Settings, stop: asyncio.Event,
                            running: list[CityhallBot], lease: Lease,
                            storage: Storage) -> int:
    bot = make_bot(settings, storage=storage)
    running.append(bot)
    try:
        if not await _wait_for_network(settings, stop):
            return 0
        started = asyncio.create_task(bot.start(settings.token or ""), name="cityhall-bot")
        stopping = asyncio.create_task(stop.wait())
        lost = asyncio.create_task(lease.lost.wait())
        await asyncio.wait({started, stopping, lost}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        lost.cancel()
        if lease.lost.is_set() and not started.done():
            # Another process may own these shards already: no click, timer or computer
            # move more. Moves committed so far are safe; the next owner re-draws any
            # table left behind.
            bot.draining = True
            _exit_after(SHUTDOWN_SECONDS)
            await bot.drain(time.monotonic() + 1.0)
            await bot.close()
            await asyncio.wait({started}, timeout=1.0)
            return EXIT_LEASE
        if started.done():
            started.result()  # what ended it, raised here
            return 0
        await bot.drain(time.monotonic() + DRAIN_SECONDS + PUBLISH_SECONDS)
        await bot.close()
        await asyncio.wait({started}, timeout=1.0)
        log.info("Stopped; every saved move is in %s.", settings.database_name)
        return 0
    except Exception as exc:
        refused = _refused(exc)
        if refused is not None:
            log.error("%s", refused)
            return EXIT_CONFIG
        if isinstance(exc, (StorageError, sqlite3.DatabaseError)):
            log.error("Cannot open the database %s: %s.", settings.database_name,
                      describe_error(exc))
            return EXIT_DATABASE
        if isinstance(exc, (OSError, aiohttp.ClientError, TimeoutError)):
            log.error("Lost the connection to Discord while starting (%s); exiting so the "
                      "service manager starts the bot again.", _network_cause(exc))
            return 1
        raise
    finally:
        await bot.close()


async def _open_storage(settings: Settings, stop: asyncio.Event, *,
                        postgres: bool) -> Storage | int:
    """The database, or the exit code. A PostgreSQL server that cannot be reached yet (it is
    restarting, or not up after a reboot) is waited for, up to DATABASE_WAIT_SECONDS, one
    log line per try with backoff (1 s, doubling, at most 15 s); any other problem is one
    sentence and exit 74 at once."""
    deadline = time.monotonic() + settings.database_wait
    delay = 1.0
    while True:
        try:
            return await Storage.open(settings.database)
        except StorageError as exc:
            if not postgres or not _server_unreachable(exc) \
                    or time.monotonic() + delay > deadline:
                log.error("%s", exc)
                return EXIT_DATABASE
            log.warning("%s Trying again in %g s (waiting up to %g s in all, "
                        "DATABASE_WAIT_SECONDS).", exc, delay, settings.database_wait)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        if stop.is_set():
            return 0
        delay = min(delay * 2, 15.0)


def _server_unreachable(exc: BaseException) -> bool:
    from bot.core.storage.postgres import server_unreachable  # asyncpg: only with PostgreSQL

    return server_unreachable(exc)


async def _wait_for_network(settings: Settings, stop: asyncio.Event) -> bool:
    """Until Discord's API answers at all (any HTTP status), one log line per failed try,
    with backoff (1 s, doubling, at most 60 s). False if asked to stop meanwhile."""
    base = settings.api_base or discord.http.Route.BASE
    delay = 1.0
    timeout = aiohttp.ClientTimeout(total=10)
    while not stop.is_set():
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session, \
                    session.get(f"{base}/gateway") as answer:
                await answer.read()
            return True
        except (TimeoutError, OSError, aiohttp.ClientError) as exc:
            log.warning("Cannot reach Discord at %s (%s); trying again in %g s.",
                        base, _network_cause(exc), delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        delay = min(delay * 2, 60.0)
    return False


def _exit_after(seconds: float) -> None:
    """The promise to a service manager: gone within ``seconds`` of being asked, even if
    something hangs. SQLite needs no clean close to keep what was committed."""
    def watchdog() -> None:
        time.sleep(seconds)
        log.error("Shutdown took longer than %g s; exiting now.", seconds)
        logging.shutdown()
        os._exit(1)

    threading.Thread(target=watchdog, name="cityhall-shutdown-watchdog", daemon=True).start()
