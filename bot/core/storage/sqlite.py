"""The SQLite backend: the writer thread for every write, aiosqlite for reads."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .ops import SQLITE, Job, StorageError, describe_error, run_sqlite
from .schema import check_file
from .writer import Writer

# The name the storage's log lines have always carried (bot.core.storage was one module).
log = logging.getLogger("bot.core.storage")

T = TypeVar("T")


class SQLiteBackend:
    """One writer thread (group commit) and one aiosqlite reader on the same file."""

    dialect = SQLITE

    def __init__(self, writer: Writer, reader: aiosqlite.Connection,
                 quick: sqlite3.Connection | None = None) -> None:
        self.writer = writer
        self.reader = reader
        # Small reads bounded by an index, done on the event loop's own thread (``/stats``).
        # A trip to the reader's thread costs more than such a query when the loop is
        # busy: the thread needs the GIL for every step of the query and gets it only when
        # the loop's thread lets go (every 5 ms of running Python), so a 0.3 ms leaderboard
        # came back after 10-15 ms. (WAL: a read never waits for the writer.)
        self.quick = quick

    @property
    def commits(self) -> int:
        return self.writer.commits

    def run(self, make: Callable[[], Job[T]]) -> Awaitable[T]:
        return self.writer.submit(lambda conn: run_sqlite(conn, make()))

    async def fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        async with self.reader.execute(sql, args) as cur:
            return await cur.fetchone()

    async def fetch_all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return list(await self.reader.execute_fetchall(sql, args))

    async def fetch_small(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """``fetch_all`` on the loop's thread, for a query that reads a few index pages;
        through the reader thread (which can wait) if the file is locked for a moment."""
        if self.quick is not None:
            try:
                return self.quick.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                log.info("A small read went through the database thread: %s", exc)
        return await self.fetch_all(sql, args)

    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None:
        self.writer.observe = callback

    async def close(self) -> None:
        try:
            if self.quick is not None:
                self.quick.close()
            await self.reader.close()
        finally:
            await asyncio.to_thread(self.writer.close)

    @classmethod
    async def open(cls, path: str | Path, *, busy_timeout: float = 10.0) -> SQLiteBackend:
        name = str(path)
        if name != ":memory:":
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"Cannot create the folder for the database {name}: "
                                   f"{exc.strerror or exc}.") from exc
        writer = Writer(name, busy_timeout)

        def start() -> None:
            if name != ":memory:":
                check_file(Path(path))
            writer.start()

        try:
            await asyncio.to_thread(start)
        except (sqlite3.Error, StorageError, OSError) as exc:
            raise StorageError(f"Cannot open the database {name}: {describe_error(exc)}.") \
                from exc
        try:
            reader = await aiosqlite.connect(name, timeout=10.0)
        except BaseException as exc:
            await asyncio.to_thread(writer.close)
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"Cannot open the database {name}: "
                                   f"{describe_error(exc)}.") from exc
            raise
        reader.row_factory = aiosqlite.Row
        quick = None
        if name != ":memory:":
            try:
                # short busy wait: this runs on the event loop's thread
                quick = sqlite3.connect(name, timeout=0.02, isolation_level=None)
                quick.row_factory = sqlite3.Row
                quick.execute("PRAGMA query_only=ON")
            except sqlite3.Error as exc:
                log.warning("Small reads go through the database thread: %s",
                            describe_error(exc))
                quick = None
        return cls(writer, reader, quick)
