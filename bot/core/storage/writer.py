"""The SQLite writer: one thread that owns the only writing connection.

The writer takes whatever jobs are queued, runs each under its own SAVEPOINT inside one
transaction and commits them together (group commit: many moves, one fsync). A job that
fails rolls back to its own savepoint only, and a caller is answered only after the commit
that holds its data.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import dbfile
from .ops import DatabaseLost, StorageError
from .schema import _prepare

# The name the storage's log lines have always carried (bot.core.storage was one module).
log = logging.getLogger("bot.core.storage")

T = TypeVar("T")


# How long opening waits for another program's lock before saying so (start-up must fail
# within seconds, not hang); writes afterwards wait ``busy_timeout``.
OPEN_TIMEOUT = 2.0


# -- the writer thread ------------------------------------------------------------------


@dataclass
class _Job:
    work: Callable[[sqlite3.Connection], Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return  # the caller gave up (cancelled); the data is committed all the same
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Writer:
    """One thread, one connection, every write. Jobs queued while a commit is running are
    committed together by the next one."""

    MAX_BATCH = 256

    def __init__(self, path: str, busy_timeout: float) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="cityhall-db-writer",
                                        daemon=True)
        self._conn: sqlite3.Connection | None = None
        self.commits = 0
        self.closed = False
        # The file the path named at start (device, inode): checked before every commit
        # (bot/core/dbfile.py). ``lost``: it was deleted or replaced; writes stop.
        self._file: tuple[int, int] | None = None
        self.lost = False
        # Called in the writer thread after each commit with its seconds and job count
        # (the metrics endpoint's database write time); must be quick and thread-safe.
        self.observe: Callable[[float, int], None] | None = None

    def start(self) -> None:
        # Open and migrate here, in the caller's thread, so a bad file fails at once.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=min(OPEN_TIMEOUT, self.busy_timeout))
        try:
            if self.path != ":memory:":
                dbfile.quick_check(conn)
            _prepare(conn, self.path)
            if self.path != ":memory:":
                dbfile.check_recorded(conn, self.path)
                self._file = dbfile.identity(self.path)
            # How long a write waits for another process's lock before it fails.
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
        except dbfile.DatabaseProblem as exc:
            conn.close()
            raise StorageError(str(exc)) from exc
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._thread.start()

    async def submit(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self.closed:
            raise StorageError("The database is closed.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Job(work, future, loop))
        # A caller cancelled while waiting cancels only this future: the job is queued and
        # runs and commits regardless, and its outcome is then dropped (``_settle``). No
        # shield needed, and none made per save.
        return await future

    def close(self) -> None:
        """Finish every queued job, then close the connection."""
        if self.closed:
            return
        self.closed = True
        self._queue.put(None)
        # The thread closes the connection as it ends; a writer never started has none.
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        conn = self._conn
        assert conn is not None
        try:
            while True:
                first = self._queue.get()
                if first is None:
                    break
                batch = [first]
                stop = False
                while len(batch) < self.MAX_BATCH:
                    try:
                        job = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if job is None:
                        stop = True
                        break
                    batch.append(job)
                self._commit(conn, batch)
                if stop:
                    break
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> None:
        outcomes: list[tuple[_Job, Any, BaseException | None]] = []
        began = time.perf_counter()
        if self._file is not None and (self.lost or dbfile.identity(self.path) != self._file):
            if not self.lost:
                self.lost = True
                log.error("The database file %s was deleted or replaced while Cityhall was "
                          "running: no more moves are saved (they would go into the old "
                          "file, which is gone). Put the file back or restore a backup, "
                          "then restart Cityhall.", self.path)
            lost = DatabaseLost(dbfile.LOST)
            for job in batch:
                job.loop.call_soon_threadsafe(_settle, job.future, None, lost)
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in batch:
                conn.execute("SAVEPOINT job")
                try:
                    result = job.work(conn)
                except Exception as exc:  # this job only: the others go on
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    outcomes.append((job, None, exc))
                else:
                    conn.execute("RELEASE job")
                    outcomes.append((job, result, None))
            conn.execute("COMMIT")
        except Exception as exc:
            # The commit itself failed (disk full, locked by another process): nothing in
            # this batch is on disk, and every caller is told so.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            log.error("database write failed: %s", exc)
            for job in batch:
                job.loop.call_soon_threadsafe(_settle, job.future, None, exc)
            return
        self.commits += 1
        if self.observe is not None:
            with contextlib.suppress(Exception):
                self.observe(time.perf_counter() - began, len(batch))
        for job, result, error in outcomes:
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)
