"""Leases: proof that this process, and no other, drives the matches of its shards.

Two processes driving the same match would both time out its players and both move its
computer players, so each process holds a lease on its shards for its whole life:

* PostgreSQL: one session-level advisory lock per shard, on a connection of its own kept
  open for the life of the process. The server drops the locks when that connection ends
  (the process died, or the network between them did), so a replacement can take over.
  Every process also holds a shared lock on its SHARD_COUNT: processes that disagree on
  the count would split servers differently and overlap, so the second one is refused.
* SQLite: several processes on one file are not supported at all; an exclusive ``flock``
  on a file beside the database (``<database>.lock``) refuses the second. The kernel
  releases it when the process ends, however it ends.

A PostgreSQL lease whose connection ends (the server restarted, the network dropped) is
taken back: the process reconnects and asks for its locks again, for up to
``REGAIN_SECONDS``. Nobody else can have driven its games meanwhile: a process that had taken
the locks would still hold them. Only if another process holds them, or the server stays
out of reach, is ``lost`` set, and the bot exits (docs/shards.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from pathlib import Path
from typing import IO, Any

from .shards import Shards
from .storage import is_database_url, url_for_logs

log = logging.getLogger(__name__)

# The advisory locks' first key (SQLite's application id for Cityhall, "City" in ASCII);
# the second is the shard id. Counts are locked under the next key.
LOCK_SHARD = 0x43697479
LOCK_COUNT = LOCK_SHARD + 1
# How often a held PostgreSQL lease is checked: the server may drop the connection without
# the client noticing until it next speaks.
CHECK_SECONDS = 5.0
POLL_SECONDS = 0.5
# How long a PostgreSQL lease whose connection ended is tried to be taken back (a server
# restart, a minute's outage) before the process gives up and exits.
REGAIN_SECONDS = 120.0


class LeaseError(Exception):
    """The lease cannot be had; ``str(exc)`` says which shard or file, and why."""


class Lease:
    """A held lease. ``lost`` is set if it can no longer be proven."""

    def __init__(self) -> None:
        self.lost = asyncio.Event()
        self.why_lost = ""

    async def close(self) -> None:
        raise NotImplementedError


def everything() -> Shards:
    """An unsharded process owns Discord's one shard."""
    return Shards.of(1, [0])


async def acquire(database: str, shards: Shards | None, *, wait: float) -> Lease:
    """Take the lease on ``shards`` (None: all) in ``database`` (a file or a URL), waiting up
    to ``wait`` seconds for another process to let go; LeaseError if it does not."""
    if is_database_url(database):
        return await PostgresLease.acquire(database, shards or everything(), wait=wait)
    return await FileLease.acquire(database, wait=wait)


class FileLease(Lease):
    def __init__(self, path: Path | None, handle: IO[bytes] | None) -> None:
        super().__init__()
        self.path = path
        self._handle = handle

    @classmethod
    async def acquire(cls, database: str, *, wait: float) -> FileLease:
        if database == ":memory:":
            return cls(None, None)  # nothing another process could share
        import fcntl  # POSIX; the bot runs on Linux and macOS

        path = Path(database + ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "ab")  # noqa: SIM115 - held for the life of the process
        except OSError:
            # A folder the bot cannot write to: the database cannot be used either (its
            # write-ahead log lives beside it), and opening it says so in its own sentence.
            return cls(None, None)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise LeaseError(
                        f"Another Cityhall process is using the database {database} (it "
                        f"holds {path}); two processes on one SQLite file would both drive "
                        f"every game. Stop the other one, or run several processes over "
                        f"PostgreSQL (DATABASE_URL) with SHARD_COUNT and SHARD_IDS.") from None
                await asyncio.sleep(POLL_SECONDS)
        # Who holds it, for a person looking at the file.
        with contextlib.suppress(OSError):
            handle.truncate(0)
            handle.write(f"{socket.gethostname()} pid {os.getpid()}\n".encode())
            handle.flush()
        return cls(path, handle)

    async def close(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file releases the flock
            self._handle = None


class PostgresLease(Lease):
    def __init__(self, conn: Any, shards: Shards, where: str, url: str = "") -> None:
        super().__init__()
        self.conn = conn
        self.shards = shards
        self.where = where
        self.url = url
        self._closing = False
        self._watch: asyncio.Task[None] | None = None
        self._regaining: asyncio.Task[None] | None = None
        self.regained = 0  # times the lease was taken back after its connection ended

    @staticmethod
    async def _connect(url: str) -> Any:
        import asyncpg

        name = f"cityhall lease {socket.gethostname()} pid {os.getpid()}"
        return await asyncpg.connect(url, timeout=10,
                                     server_settings={"application_name": name[:63]})

    @classmethod
    async def acquire(cls, url: str, shards: Shards, *, wait: float) -> PostgresLease:
        import asyncpg

        where = url_for_logs(url)
        try:
            conn = await cls._connect(url)
        except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
            raise LeaseError(f"Cannot reach the database server {where} to take the lease "
                             f"on {shards.label()}: {exc}.") from exc
        lease = cls(conn, shards, where, url)
        try:
            await lease._take(wait)
        except BaseException:
            with contextlib.suppress(Exception):
                await conn.close()
            raise
        lease._listen()
        lease._watch = asyncio.get_running_loop().create_task(lease._check(),
                                                              name="cityhall-lease")
        log.info("Holding the lease on %s in %s.", shards.label(), where)
        return lease

    def _listen(self) -> None:
        conn = self.conn
        conn.add_termination_listener(
            lambda _conn: self._connection_ended(conn, "the connection ended"))

    async def _take(self, wait: float) -> None:
        conn, shards = self.conn, self.shards
        await conn.execute("SELECT pg_advisory_lock_shared($1, $2)", LOCK_COUNT, shards.count)
        others = await conn.fetch(
            "SELECT DISTINCT objid::int AS count FROM pg_locks WHERE locktype='advisory'"
            " AND granted AND classid::bigint=$1 AND objid::int<>$2", LOCK_COUNT,
            shards.count)
        if others:
            counts = ", ".join(str(row["count"]) for row in others)
            raise LeaseError(f"Another Cityhall process on {self.where} runs with SHARD_COUNT="
                             f"{counts}, this one with {shards.count}: every process must be "
                             f"started with the same SHARD_COUNT (unset counts as 1).")
        deadline = time.monotonic() + wait
        missing = list(shards.ids)
        while True:
            for shard in list(missing):
                if await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LOCK_SHARD,
                                       shard):
                    missing.remove(shard)
            if not missing:
                return
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_SECONDS)
        holders = await conn.fetch(
            "SELECT l.objid::int AS shard, a.application_name AS who FROM pg_locks l"
            " LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype='advisory'"
            " AND l.granted AND l.classid::bigint=$1 AND l.objid::int = ANY($2::int[])"
            " AND l.pid <> pg_backend_pid()", LOCK_SHARD, missing)
        who = {row["shard"]: row["who"] for row in holders}
        named = "; ".join(f"shard {shard} of {shards.count} is held by "
                          f"{who.get(shard) or 'another Cityhall process'}"
                          for shard in missing)
        raise LeaseError(f"Waited {wait:g} s for shards another process owns: {named}. "
                         f"Two processes must never drive the same shard; start this one "
                         f"with other SHARD_IDS, or stop the other first.")

    async def _check(self) -> None:
        while not self.lost.is_set():
            await asyncio.sleep(CHECK_SECONDS)
            if self._regaining is not None:
                continue
            conn = self.conn
            try:
                await asyncio.wait_for(conn.fetchval("SELECT 1"), CHECK_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # whatever broke, the lease must be proven again
                self._connection_ended(
                    conn, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)

    def _connection_ended(self, conn: Any, why: str) -> None:
        """The lease's connection is gone, and with it the server's locks: take them back."""
        if self._closing or self.lost.is_set() or conn is not self.conn \
                or self._regaining is not None:
            return
        log.warning("The lease connection to %s ended (%s); taking the lease on %s back.",
                    self.where, why, self.shards.label())
        self._regaining = asyncio.get_running_loop().create_task(
            self._regain(why), name="cityhall-lease-regain")

    async def _regain(self, why: str) -> None:
        import asyncpg

        began = time.monotonic()
        delay = POLL_SECONDS
        old, last = self.conn, why
        with contextlib.suppress(Exception):
            old.terminate()
        while not self._closing:
            try:
                conn = await self._connect(self.url)
            except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                self.conn = conn
                try:
                    await self._take(0.0)
                except LeaseError as exc:
                    # Another process owns the shards now: it drives their games.
                    self._regaining = None
                    self._lose(str(exc))
                    return
                except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
                    last = f"{type(exc).__name__}: {exc}"
                    with contextlib.suppress(Exception):
                        conn.terminate()
                else:
                    self._listen()
                    self.regained += 1
                    self._regaining = None
                    log.info("Took the lease on %s in %s back after %.1f s.",
                             self.shards.label(), self.where, time.monotonic() - began)
                    return
            if time.monotonic() - began + delay > REGAIN_SECONDS:
                self._regaining = None
                self._lose(f"{why}, and it could not be taken back within "
                           f"{REGAIN_SECONDS:g} s ({last})")
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _lose(self, why: str) -> None:
        if self._closing or self.lost.is_set():
            return
        self.why_lost = why
        log.error("Lost the lease on %s in %s (%s): this process can no longer prove that it "
                  "alone drives their games, so it stops now.", self.shards.label(),
                  self.where, why)
        self.lost.set()

    async def close(self) -> None:
        self._closing = True
        if self._watch is not None:
            self._watch.cancel()
        if self._regaining is not None:
            self._regaining.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 5)
