"""PostgreSQL storage (``DATABASE_URL=postgresql://…``), through an asyncpg pool.

Each write job is its own transaction on a pooled connection: PostgreSQL already flushes
the WAL once for every transaction committing at the same moment, so a queue with
savepoints (as the SQLite writer keeps) would add round trips and tie the moves of many
matches to one commit without saving a flush. A caller is answered after COMMIT returned,
and ``synchronous_commit`` (on unless the server's admin turned it off) makes that a flush.

A lost connection is not a lost move: a job whose transaction broke before COMMIT was sent
is run again on a new connection; one that broke during COMMIT is *in doubt*. Every write
transaction leaves a mark of its own (a random token in its slot's row of
``cityhall_commits``), so once the server can be reached the job looks for its mark: there,
it committed and is neither repeated nor reported as failed; not there, it is run again.
The server's transaction ids are not asked: a crash can lose the WAL that handed one out,
and the id be given again to a transaction that commits. Writes and reads wait for the
server up to ``retry_seconds``, then fail with a sentence.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import asyncpg

from .ops import ALL, EXECUTE, INSERT_ID, ONE, POSTGRES, IntegrityError, Job, StorageError
from .ops import url_for_logs as where
from .schema import CITYHALL_TABLES, MIGRATIONS, SCHEMA_VERSION, _statements

# The name its log lines have always carried (this was the module bot.core.postgres).
log = logging.getLogger("bot.core.postgres")

T = TypeVar("T")

# Any 64-bit number, the same in every Cityhall: migrations of two processes starting at
# once take turns ("city" and "hall" in ASCII).
MIGRATION_LOCK = 0x63697479_68616C6C
CONNECT_TIMEOUT = 5.0

# The marks write transactions leave (see PostgresBackend._transaction). PostgreSQL's alone,
# outside the numbered MIGRATIONS on purpose: SQLite has no use for it (its writer thread
# never doubts a commit), so its files keep their schema, and no older Cityhall refuses a
# database that has it. Created at every start if missing.
MARKS_TABLE = """
CREATE TABLE IF NOT EXISTS cityhall_commits (
    slot BIGINT PRIMARY KEY,   -- random, one per transaction running at once
    token BIGINT NOT NULL,     -- random, written by each transaction in the slot
    at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""
# A process's slots are reused for as long as it runs; a slot not written for a day belongs
# to a process that has ended (or lost it with a connection), and goes at the next start.
# SKIP LOCKED: a row held by a transaction that is still running is left to a later start.
STALE_MARKS = ("DELETE FROM cityhall_commits WHERE slot IN (SELECT slot FROM cityhall_commits"
               " WHERE at < now() - interval '1 day' FOR UPDATE SKIP LOCKED)")
# How long the in-doubt check waits for the old transaction to end before trying again.
MARK_LOCK_WAIT = "5s"


@lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, …`` (the shared SQL has no ``?`` in its
    string literals)."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"\?", number, sql)


def server_unreachable(exc: BaseException | None) -> bool:
    """Whether a failed start met a server that is down or not accepting connections yet
    (worth waiting for), rather than one that refused us (a wrong password, no database)."""
    while exc is not None:
        if _connection_lost(exc):
            return True
        exc = exc.__cause__
    return False


def _connection_lost(exc: BaseException) -> bool:
    """The server went away or is not accepting connections (yet): worth trying again."""
    if isinstance(exc, (OSError, asyncio.TimeoutError, asyncpg.PostgresConnectionError,
                        asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
                        asyncpg.CannotConnectNowError)):
        return True
    # asyncpg says "connection is closed" / "connection was closed in the middle of operation"
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "the connection was refused (is the server running, and on that port?)"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    return str(exc) or type(exc).__name__


async def run_postgres(conn: asyncpg.Connection, job: Job[T]) -> T:
    """Run a job to its end on a connection inside a transaction."""
    try:
        op = job.send(None)
        while True:
            sql = numbered(op.sql)
            try:
                kind = op.kind
                if kind == EXECUTE:
                    status = await conn.execute(sql, *op.args)
                    # "UPDATE 1", "INSERT 0 1", "DELETE 3": the last word is the row count
                    tail = status.rsplit(" ", 1)[-1]
                    result: Any = int(tail) if tail.isdigit() else 0
                elif kind == ONE:
                    result = await conn.fetchrow(sql, *op.args)
                elif kind == ALL:
                    result = await conn.fetch(sql, *op.args)
                elif kind == INSERT_ID:
                    result = await conn.fetchval(sql + " RETURNING id", *op.args)
                else:
                    await conn.executemany(sql, op.args)
                    result = None
            except asyncpg.IntegrityConstraintViolationError as exc:
                # The transaction is aborted now: a job that catches this must end.
                op = job.throw(IntegrityError(str(exc)))
            else:
                op = job.send(result)
    except StopIteration as stop:
        return stop.value


async def _begin_marked(conn: asyncpg.Connection, slot: int, token: int) -> None:
    """Begin a transaction whose first statement writes ``token`` into the row of ``slot``:
    the mark commits if and only if the transaction does."""
    # One round trip: a simple query may hold several statements, and the numbers are ours
    # (ints), so they can be written into it.
    begin = (f"BEGIN; UPDATE cityhall_commits SET token = {int(token)}, at = now()"
             f" WHERE slot = {int(slot)}")
    for _ in range(2):
        if await conn.execute(begin) == "UPDATE 1":
            return
        # A new slot (or one a start-up removed while it lay unused): its row is inserted
        # and committed first, so that a transaction only ever updates it. The check in
        # doubt locks the row to wait for the transaction; a row the transaction had
        # inserted itself would be invisible to it, and it would not wait.
        await conn.execute("ROLLBACK")
        await conn.execute("INSERT INTO cityhall_commits (slot, token) VALUES ($1, 0)"
                           " ON CONFLICT (slot) DO NOTHING", slot)
    raise StorageError("The commit marks table (cityhall_commits) did not keep a row.")


async def _read_mark(conn: asyncpg.Connection, slot: int) -> int | None:
    """The token a slot's row holds once the transaction that last wrote it has ended."""
    async with conn.transaction():
        # A network cut (not a server crash) can leave the old backend running, its
        # transaction idle and never to be committed, or committing just now. Only that
        # transaction can be updating this slot, and the committed row names it (its id in
        # xmax): end it. Matched on the running id, so no other backend is touched, even
        # one that got the old backend's pid.
        await conn.execute("SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a"
                           " JOIN cityhall_commits c ON a.backend_xid = c.xmax"
                           " WHERE c.slot = $1", slot)
        # FOR UPDATE waits for that transaction to end, then reads the row as it left it:
        # a plain read could come a moment before a COMMIT that was already on its way.
        await conn.execute(f"SET LOCAL lock_timeout = '{MARK_LOCK_WAIT}'")
        token = await conn.fetchval("SELECT token FROM cityhall_commits WHERE slot = $1"
                                    " FOR UPDATE", slot)
    return None if token is None else int(token)


class _InDoubt(Exception):
    def __init__(self, slot: int, token: int, result: Any, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.slot, self.token, self.result, self.cause = slot, token, result, cause


class PostgresBackend:
    dialect = POSTGRES

    def __init__(self, url: str, pool: asyncpg.Pool, *, retry_seconds: float) -> None:
        self.url = url
        self.pool = pool
        self.retry_seconds = retry_seconds
        self.commits = 0
        self.closed = False
        self._observe: Callable[[float, int], None] | None = None
        self._outage_since: float | None = None
        # Slots whose last transaction is known to have ended: one is taken per transaction,
        # so there are about as many as transactions ever ran at once (the pool's size).
        self._slots: list[int] = []

    @classmethod
    async def open(cls, url: str, *, pool_size: int = 10,
                   retry_seconds: float = 60.0) -> PostgresBackend:
        """Connect, and create or upgrade the schema; StorageError says in a sentence why the
        server cannot be used."""
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size,
                                             timeout=CONNECT_TIMEOUT)
        except Exception as exc:
            if _connection_lost(exc) or isinstance(exc, asyncpg.PostgresError):
                raise StorageError(f"Cannot reach the database server {where(url)}: "
                                   f"{_describe(exc)}.") from exc
            raise StorageError(f"Cannot use the database URL for {where(url)}: "
                               f"{_describe(exc)}.") from exc
        try:
            async with pool.acquire() as conn:
                await _prepare(conn, url)
        except BaseException as exc:
            pool.terminate()
            if isinstance(exc, (asyncpg.PostgresError, StorageError)) or _connection_lost(exc):
                raise StorageError(f"Cannot open the database {where(url)}: "
                                   f"{_describe(exc)}.") from exc
            raise
        return cls(url, pool, retry_seconds=retry_seconds)

    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None:
        self._observe = callback

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        # Jobs still running hold a connection: close() waits for them to be released.
        await self.pool.close()

    # -- writes -----------------------------------------------------------------------

    async def run(self, make: Callable[[], Job[T]]) -> T:
        if self.closed:
            raise StorageError("The database is closed.")
        # Shielded like the SQLite writer's jobs: a caller that gives up must not cut a
        # transaction off half way, or leave a commit's outcome unknown to the others.
        return await asyncio.shield(self._run(make))

    async def _run(self, make: Callable[[], Job[T]]) -> T:
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.05
        while True:
            try:
                result = await self._transaction(make)
            except _InDoubt as doubt:
                status = await self._status_of(doubt, deadline)
                log.info("A commit cut off by the lost connection was %s on the server%s.",
                         status, "" if status == "committed" else "; running it again")
                if status == "committed":
                    self._counted(0.0)
                    return doubt.result
                cause: BaseException = doubt.cause  # aborted: never happened, try again
            except Exception as exc:
                if not _connection_lost(exc):
                    raise
                cause = exc
            else:
                self._back()
                return result
            delay = await self._wait_for_server(cause, deadline, delay, "; this was not saved")

    async def _transaction(self, make: Callable[[], Job[T]]) -> T:
        began = time.perf_counter()
        stage, result, slot = "running", None, 0
        token = secrets.randbits(63)
        try:
            async with self.pool.acquire() as conn:
                # A slot is taken once a connection is, and given back before the connection
                # is (once its transaction has ended): no more slots than connections.
                slot = self._slots.pop() if self._slots else secrets.randbits(63)
                await _begin_marked(conn, slot, token)
                try:
                    result = await run_postgres(conn, make())
                except BaseException:
                    # The pool rolls back a connection it gets back anyway; this frees the
                    # connection (and the slot) at once when it still works.
                    try:
                        await conn.execute("ROLLBACK")
                    except Exception:
                        pass
                    else:
                        self._slots.append(slot)
                    raise
                stage = "committing"
                await conn.execute("COMMIT")
                stage = "committed"
                self._slots.append(slot)
                # Leaving the block resets the connection for the pool: a server lost just
                # then fails the reset, not this commit.
        except Exception as exc:
            if not _connection_lost(exc):
                raise
            if stage == "committing":
                raise _InDoubt(slot, token, result, exc) from exc
            if stage == "running":
                # Not committed; and the slot is not used again: after a network cut the
                # old backend may hold its row for a while yet. A later start removes it.
                raise
        self._counted(time.perf_counter() - began)
        return result  # type: ignore[return-value]

    async def _status_of(self, doubt: _InDoubt, deadline: float) -> str:
        """Whether an in-doubt transaction committed, by its mark, once the server answers."""
        await self._lost(doubt.cause)
        delay = 0.05
        while True:
            try:
                async with self.pool.acquire() as conn:
                    token = await _read_mark(conn, doubt.slot)
            except Exception as exc:
                # LockNotAvailable: the old transaction did not end within MARK_LOCK_WAIT
                if not (_connection_lost(exc) or
                        isinstance(exc, asyncpg.LockNotAvailableError)):
                    raise
                cause: BaseException = exc
            else:
                self._slots.append(doubt.slot)
                return "committed" if token == doubt.token else "aborted"
            if time.monotonic() + delay > deadline:
                raise StorageError(f"Lost the database server {where(self.url)} while "
                                   f"committing, and could not learn within "
                                   f"{self.retry_seconds:g} s whether it was saved "
                                   f"({_describe(cause)}).") from cause
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    def _counted(self, seconds: float) -> None:
        self.commits += 1
        if self._observe is not None:
            try:
                self._observe(seconds, 1)
            except Exception:  # a metric must never fail a move
                log.debug("write observer failed", exc_info=True)

    async def _lost(self, cause: BaseException) -> None:
        # One broken connection means the others in the pool are likely broken too (the
        # server restarted): replace them all rather than finding out one move at a time.
        await self.pool.expire_connections()
        if self._outage_since is None:
            self._outage_since = time.monotonic()
            log.warning("Lost the connection to the database server %s (%s); waiting for it "
                        "for up to %g s.", where(self.url), _describe(cause),
                        self.retry_seconds)

    def _back(self) -> None:
        if self._outage_since is not None:
            log.warning("The database server %s is back after %.1f s.", where(self.url),
                        time.monotonic() - self._outage_since)
            self._outage_since = None

    # -- reads ------------------------------------------------------------------------

    async def fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return await self._read("fetchrow", sql, args)

    async def fetch_all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return list(await self._read("fetch", sql, args))

    async def fetch_small(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        # asyncpg reads on the event loop already: no thread to spare a trip to
        return await self.fetch_all(sql, args)

    async def _read(self, method: str, sql: str, args: Sequence[Any]) -> Any:
        if self.closed:
            raise StorageError("The database is closed.")
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.05
        while True:
            try:
                async with self.pool.acquire() as conn:
                    result = await getattr(conn, method)(numbered(sql), *args)
            except Exception as exc:
                if not _connection_lost(exc):
                    raise
                delay = await self._wait_for_server(exc, deadline, delay)
            else:
                self._back()
                return result

    async def _wait_for_server(self, cause: BaseException, deadline: float, delay: float,
                               unsaved: str = "") -> float:
        """After a lost connection: start replacing the pool, then wait ``delay`` before the
        next try (the next delay is returned), or give up with a sentence past ``deadline``."""
        await self._lost(cause)
        if time.monotonic() + delay > deadline:
            raise StorageError(f"Lost the database server {where(self.url)} and it did not "
                               f"come back within {self.retry_seconds:g} s "
                               f"({_describe(cause)}){unsaved}.") from cause
        await asyncio.sleep(delay)
        return min(delay * 2, 1.0)


# -- the schema -----------------------------------------------------------------------------


async def _prepare(conn: asyncpg.Connection, url: str) -> None:
    """Create or upgrade the schema: the same numbered migrations as SQLite's, each in a
    transaction with its version number, one process at a time."""
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        tables = {r["table_name"] for r in await conn.fetch(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema()")}
        version = 0
        if "cityhall_schema" in tables:
            version = await conn.fetchval("SELECT version FROM cityhall_schema")
        elif tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            missing = CITYHALL_TABLES - tables
            raise StorageError(f"it is not a Cityhall database: it has the tables {shown}"
                               + (f" but not {', '.join(sorted(missing))}" if missing else
                                  " but no cityhall_schema"))
        if version > SCHEMA_VERSION:
            raise StorageError(f"it was written by a newer Cityhall (schema {version}; this "
                               f"one knows up to {SCHEMA_VERSION})")
        if version < SCHEMA_VERSION:
            if version:
                log.info("Upgrading the database %s from schema %d to %d (take a pg_dump "
                         "first if you may want to go back).", where(url), version,
                         SCHEMA_VERSION)
            else:
                log.info("Setting up a new database at %s (schema %d).", where(url),
                         SCHEMA_VERSION)
        for migration in MIGRATIONS:
            if migration.number <= version:
                continue
            try:
                async with conn.transaction():
                    for statement in _statements(POSTGRES.render(migration.sql)):
                        await conn.execute(statement)
                    if migration.step is not None:
                        await run_postgres(conn, migration.step())
                    if migration.number == 1:
                        await conn.execute("CREATE TABLE cityhall_schema (version INTEGER"
                                           " NOT NULL)")
                        await conn.execute("INSERT INTO cityhall_schema VALUES (1)")
                    else:
                        await conn.execute("UPDATE cityhall_schema SET version=$1",
                                           migration.number)
            except (asyncpg.PostgresError, StorageError) as exc:
                raise StorageError(f"upgrading it from schema {migration.number - 1} to "
                                   f"{migration.number} failed ({exc}); it was left at "
                                   f"schema {migration.number - 1}") from exc
        await conn.execute(MARKS_TABLE)
        await conn.execute(STALE_MARKS)
    finally:
        if not conn.is_closed():
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
